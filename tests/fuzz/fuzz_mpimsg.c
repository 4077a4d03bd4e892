/* libFuzzer harness: the MPI messages of bin/ratchet-tune-mpi as bytes
 * (tuner/mpi/msg.h), without MPI.  The first byte is the tag: WANT,
 * RESULT, ABANDON, DONE, BYE decode as rank 0 decodes them, JOB and CONFIG
 * as a worker does.  What a decoder accepts must be in range, and a RESULT
 * or JOB it accepts must decode the same after packing it again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "msg.h"

static void check_job(const uint8_t *p, size_t n)
{
    static PairJob job, again;
    uint64_t seq, seq2;
    char why[256];
    if (msg_decode_job(p, n, &seq, &job, why, sizeof why) < 0)
        return;
    if (job.games < 0 || job.games > 2 || job.nopts[0] < 0 || job.nopts[0] > MAX_JOB_OPTS || job.nopts[1] < 0 ||
        job.nopts[1] > MAX_JOB_OPTS || !memchr(job.fen, '\0', sizeof job.fen))
        abort();
    Buf b = { 0 };
    msg_pack_job(&b, seq, &job);
    if (b.oom || b.len != n || memcmp(b.p, p, n) != 0)
        abort(); /* an accepted JOB is exactly what packing it gives */
    if (msg_decode_job(b.p, b.len, &seq2, &again, why, sizeof why) < 0 || seq2 != seq)
        abort();
    free(b.p);
}

static void check_coord(int tag, const uint8_t *p, size_t n)
{
    CoordMsg m;
    char why[256];
    if (msg_decode_coord(tag, p, n, &m, why, sizeof why) < 0) {
        if (!why[0])
            abort(); /* a refusal says why */
        return;
    }
    if (!memchr(m.host, '\0', sizeof m.host))
        abort();
    if (tag == T_WANT && (m.n < 0 || m.n > MSG_MAX_CREDIT))
        abort();
    if (tag == T_DONE && (m.n < -1 || m.n > 1))
        abort();
    if (tag == T_RESULT) {
        if (msg_check_result(&m.res, why, sizeof why) < 0 || memchr(m.text, '\0', m.textlen))
            abort();
        for (int e = 0; e < 2; e++)
            if (m.res.time_losses[e] < 0 || m.res.crashes[e] < 0 || m.res.illegal[e] < 0 || m.res.restarts[e] < 0)
                abort(); /* the counts rank 0 adds to the state as unsigned */
        Buf b = { 0 };
        msg_pack_result(&b, m.seq, &m.res, m.text, m.textlen);
        CoordMsg again;
        if (b.oom || msg_decode_coord(T_RESULT, b.p, b.len, &again, why, sizeof why) < 0 || again.seq != m.seq ||
            again.textlen != m.textlen)
            abort();
        free(b.p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int tag = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    /* the decoders take unaligned bytes: give them a copy of their own */
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return 0;
    memcpy(copy, p, n);
    if (tag == T_JOB) {
        check_job(copy, n);
    } else if (tag == T_CONFIG) {
        static ConfigHead h;
        static MatchConfig cfg;
        char why[256];
        if (msg_decode_config(copy, n, &h, &cfg, why, sizeof why) == 0 &&
            (cfg.nengines != 2 || cfg.eng[0].nopts < 0 || cfg.eng[0].nopts > MAX_ENGINE_OPTS ||
             !memchr(cfg.pgnout, '\0', sizeof cfg.pgnout)))
            abort();
    } else {
        check_coord(tag, copy, n);
    }
    free(copy);
    return 0;
}
