/* `ratchet-tune verify`: DIR/verify.json, written after every pair and read
 * back to continue; see verify_impl.h. */
#include "verify_impl.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "rd.h"
#include "verdict.h"
#include "verify_record.h"

const char *verify_verdict_name(const Verify *v)
{
    if (!v->sprt.on)
        return "none";
    return v->verdict > 0 ? "H1" : v->verdict < 0 ? "H0" : "undecided";
}

static double elapsed_now(const Verify *v)
{
    return v->elapsed0 + (v->t0 ? (double)(ep_now_ms() - v->t0) / 1000.0 : 0);
}

/* The record of v as its file holds it (verify_record.h), updated now
 * (which it borrows); *pend holds the rounds to replay (free it), NULL
 * when out of memory. */
static void record_of(const Verify *v, const char *status, const char *verdict, char now[32], VerifyRecord *r,
                      uint64_t **pend)
{
    rd_now_iso(now, 32);
    *r = (VerifyRecord){
        .status = status,
        .verdict = verdict,
        .tally = v->tally,
        .has_sprt = v->sprt.on,
        .sprt = v->sprt,
        .rounds = v->rounds,
        .tc = v->run.tc,
        .book = v->run.mc.book_path,
        .has_openings = v->run.openings[0] != '\0',
        .seed = v->run.seed,
        .mode = v->run.baked ? "baked" : "options",
        .engine_tuned = v->run.mc.eng[0].cmd,
        .engine_base = v->run.mc.eng[1].cmd,
        .run_games = v->run.rs.games,
        .base_file = v->run.base_file,
        .tuned_file = v->run.tuned_file,
        .tuned = verify_params_of(v->run.tuned),
        .base = verify_params_of(v->run.base),
        .args = (const char *const *)v->run.args,
        .nargs = v->run.nargs,
        .dir = v->run.dir,
        .next_round = v->next_round,
        .sessions = v->run.sessions,
        .elapsed_s = elapsed_now(v),
        .created = v->run.created[0] ? v->run.created : now,
        .updated = now,
    };
    verify_record_estimate(r);
    if (r->has_openings) {
        r->set = v->run.openings;
        r->openings_file = v->run.mc.book_path;
        r->count = book_picks(v->run.mc.book);
        r->book_size = book_size(v->run.mc.book);
        r->fresh_pairs = v->fresh;
        r->deterministic = match_deterministic(&v->run.mc);
        r->claimed = v->run.claimed;
        r->held_out_first = v->run.claim_first;
        r->held_out_count = v->run.claim_count;
    }
    /* Rounds to replay: those in flight now, and those not yet replayed from the last session. */
    size_t np = v->ninflight + (v->npending - v->nextpending);
    *pend = malloc((np + 1) * sizeof **pend);
    if (*pend) {
        if (v->ninflight)
            memcpy(*pend, v->inflight, v->ninflight * sizeof **pend);
        if (v->npending > v->nextpending)
            memcpy(*pend + v->ninflight, v->pending + v->nextpending, (v->npending - v->nextpending) * sizeof **pend);
        r->pending = *pend;
        r->npending = np;
    }
}

void verify_print_verdict(FILE *out, const Verify *v, const char *status)
{
    char now[32];
    VerifyRecord r;
    uint64_t *pend;
    record_of(v, status, verify_verdict_name(v), now, &r, &pend);
    if (pend)
        verdict_print(out, &r, v->run.dir);
    free(pend);
}

int verify_save(Verify *v, const char *status, const char *verdict, char *err, size_t errlen)
{
    char now[32];
    VerifyRecord r;
    uint64_t *pend;
    record_of(v, status, verdict, now, &r, &pend);
    cJSON *j = pend ? verify_record_to_json(&r) : NULL;
    free(pend);
    if (j && !verify_machine_to(&v->run, j)) {
        cJSON_Delete(j);
        j = NULL;
    }
    if (!j)
        return errmsg(err, errlen, "out of memory writing %s", v->path);
    int rc = rd_write_json(v->path, j, err, errlen);
    cJSON_Delete(j);
    return rc;
}

/* The progress of an unfinished verify from its file. */
int verify_progress_from(Verify *v, const cJSON *j, char *err, size_t errlen)
{
    VerifyRecord r;
    int rc = verify_record_from_json(&r, j, true, v->path, err, errlen);
    if (rc == 0 && verify_machine_from(&v->run, j) < 0)
        rc = errmsg(err, errlen, "out of memory reading %s", v->path);
    if (rc == 0) {
        v->tally = r.tally;
        v->next_round = r.next_round;
        v->run.sessions = r.sessions;
        v->run.seed = r.seed;
        v->elapsed0 = r.elapsed_s;
        snprintf(v->run.created, sizeof v->run.created, "%s", r.created);
        v->pending = r.own_pending; /* v owns it from here */
        v->npending = r.npending;
        r.own_pending = NULL;
    }
    verify_record_free(&r);
    return rc;
}
