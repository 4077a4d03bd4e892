/* libFuzzer harness: the runner's reading of engine output: line splitting
 * (ep_read_line, over-long lines, CR), the `uci` answer (`id name`, `option
 * name ... type ...` as probe_parse_option and ep_handshake_line read it),
 * and the lines of a search (`info ... score ... depth`, its `wdl` as
 * bin/ratchet-label reads it, `bestmove` and its move in the start
 * position). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "board.h"
#include "engine_proc.h"
#include "game.h"
#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool init;
    static int fd = -1;
    static Position start;
    if (!init) {
        rules_init();
        pos_startpos(&start);
        fd = memfd_create("fuzz-engine-output", 0);
        init = true;
    }
    if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
        return 0;
    /* An EngineProc reading the input as if it were the engine's stdout. */
    EngineLaunch l = { .name = "fuzz", .cmd = "fuzz" };
    EngineProc e;
    ep_init(&e, &l);
    e.cap = 4096;
    e.buf = malloc(e.cap);
    if (!e.buf)
        return 0;
    e.from_fd = dup(fd);
    e.eof = false;
    bool handshake = true;
    int32_t score = 0;
    int16_t depth = 0;
    const char *line;
    while (ep_read_line(&e, ep_now_ms() + 1000, NULL, &line) == EP_LINE) {
        if (handshake) {
            ProbeOption o;
            probe_parse_option(line, &o);
            handshake = !ep_handshake_line(&e, line);
            continue;
        }
        double wdl = ep_wdl_expected(line);
        if (wdl != -1 && !(wdl >= 0 && wdl <= 1))
            abort(); /* a label outside [0, 1] */
        const char *bm;
        if (game_engine_line(line, &score, &depth, NULL, &bm)) {
            size_t mlen;
            Move m = game_bestmove(&start, &bm, &mlen);
            if (m != MOVE_NONE && !pos_is_legal(&start, m))
                abort(); /* a move the runner accepts is legal */
        }
    }
    ep_has_option(&e, "Hash");
    ep_destroy(&e);
    return 0;
}
