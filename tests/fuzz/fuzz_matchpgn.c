/* libFuzzer harness: match -resume's reader of a match's -pgnout file
 * (match_resume_read), for a match of A against B at nodes= from the
 * standard start.  What it accepts must be whole pairs in ascending rounds,
 * and reading the file it left (with the unfinished pairs cut) again must
 * give the same rounds and cut nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "board.h"
#include "cli.h"
#include "match.h"
#include "match_resume.h"

static void check(const MatchResume *r)
{
    for (size_t i = 0; i < r->ndone; i++) {
        const PairResult *p = &r->res[i];
        if ((i > 0 && r->done[i] <= r->done[i - 1]) || p->games != 2 || p->ptnml_index < 0 || p->ptnml_index > 4 ||
            p->score2[0] < 0 || p->score2[0] > 2 || p->score2[1] < 0 || p->score2[1] > 2)
            abort();
    }
}

static MatchConfig cfg;
static char dir[] = "/tmp/fuzz-matchpgn-XXXXXX";

static void cleanup(void)
{
    unlink(cfg.pgnout);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool init;
    if (!init) {
        rules_init();
        if (!mkdtemp(dir))
            abort();
        match_config_init(&cfg);
        snprintf(cfg.eng[0].name, sizeof cfg.eng[0].name, "A");
        snprintf(cfg.eng[1].name, sizeof cfg.eng[1].name, "B");
        snprintf(cfg.pgnout, sizeof cfg.pgnout, "%s/m.pgn", dir);
        atexit(cleanup);
        init = true;
    }
    FILE *f = fopen(cfg.pgnout, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    char err[1024];
    MatchResume a, b;
    if (match_resume_read(&cfg, 2, 0, &a, err, sizeof err) != 0)
        return 0;
    check(&a);
    if (match_resume_read(&cfg, 2, 0, &b, err, sizeof err) != 0 || b.cut_games != 0 || b.ndone != a.ndone ||
        (a.ndone && memcmp(a.done, b.done, a.ndone * sizeof *a.done)))
        abort(); /* the file left behind reads back as the same whole pairs */
    match_resume_free(&a);
    match_resume_free(&b);
    return 0;
}
