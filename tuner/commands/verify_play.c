/* `ratchet-tune verify`: the match, tuned against base, its progress and
 * the verdict; see verify_impl.h. */

#include <stdlib.h>
#include <string.h>

#include "elotext.h"
#include "errmsg.h"
#include "export.h"
#include "match.h"
#include "stats.h"
#include "stopsig.h"
#include "verify_record.h"
#include "verify_impl.h"

/* -snapshot best|K: the tuned side plays snapshot K (DIR/snapshots/K.json)
 * instead of the run's current values. */
int verify_use_snapshot(Verify *v, char *err, size_t errlen)
{
    uint64_t k;
    if (!v->snapshot[0] || export_snapshot_number(v->run.dir, &v->run.rs, v->snapshot, &k, err, errlen) < 0)
        return v->snapshot[0] ? -1 : 0;
    if (k == 0)
        return 0;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/%llu.json", v->run.dir, SNAPSHOT_DIR, (unsigned long long)k);
    cJSON *j = export_snapshot_load(v->run.dir, &v->run.rs, k, err, errlen);
    if (!j)
        return -1;
    cJSON_Delete(v->run.tuned);
    v->run.tuned = j;
    printf("verify: the tuned side plays snapshot %llu (%s)\n", (unsigned long long)k, path);
    return 0;
}

int verify_fresh_openings(Verify *v, char *err, size_t errlen)
{
    v->fresh = match_fresh_rounds(&v->run.mc, 2);
    if (match_deterministic(&v->run.mc) && v->next_round > v->fresh)
        return errmsg(err, errlen,
                      "verify: %s counts %llu pairs, but the %s limit replays games and there are only %llu fresh "
                      "openings: its figures count replayed games as new; start again with -restart",
                      v->path, (unsigned long long)v->next_round, v->run.tc, (unsigned long long)v->fresh);
    v->fresh_cut = match_cap_fresh(&v->run.mc, 2, &v->rounds, true, "verify", stdout);
    return 0;
}

void verify_progress(Verify *v, bool force)
{
    if (!progress_due(&v->progress, ep_now_ms(), force))
        return;
    const MatchTally *t = &v->tally;
    EloEstimate e;
    stats_from_ptnml(t->ptnml, &e);
    char line[320];
    char elo[160];
    int n = snprintf(line, sizeof line, "verify: Games: %llu (+%llu -%llu =%llu)  Elo: %s",
                     (unsigned long long)t->games, (unsigned long long)t->wins, (unsigned long long)t->losses,
                     (unsigned long long)t->draws,
                     elo_text(elo, sizeof elo, e.elo, e.elo_err, 1, false, t->ptnml, t->wins, t->losses, t->draws));
    if (v->sprt.on && n > 0 && (size_t)n < sizeof line) {
        double llr, lo, up;
        sprt_check(t, &v->sprt, &llr, &lo, &up);
        n = appendf(line, sizeof line, n, "  LLR: %.2f (%.2f, %.2f)", llr, lo, up);
    }
    if (v->rounds && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  pairs %llu/%llu", (unsigned long long)t->pairs,
                 (unsigned long long)v->rounds);
    progress_show(&v->progress, line);
}

bool verify_next(void *ctx, PairJob *job)
{
    Verify *v = ctx;
    if (v->failed || stopsig_flag || v->verdict != 0)
        return false;
    uint64_t id;
    if (v->nextpending < v->npending)
        id = v->pending[v->nextpending++];
    else if (v->rounds && v->next_round >= v->rounds)
        return false;
    else
        id = v->next_round++;
    if (v->ninflight == v->capinflight) {
        size_t cap = v->capinflight ? 2 * v->capinflight : 16;
        uint64_t *n = realloc(v->inflight, cap * sizeof *n);
        if (!n) {
            v->failed = true;
            stopsig_request();
            return false;
        }
        v->inflight = n;
        v->capinflight = cap;
    }
    v->inflight[v->ninflight++] = id;
    job->id = id;
    job->opening = book_pick(v->run.mc.book, id);
    job->games = 2;
    verify_pgn_mark(&v->run, "verify", job->event, sizeof job->event);
    return true;
}

static bool drop_inflight(Verify *v, uint64_t id)
{
    for (size_t i = 0; i < v->ninflight; i++)
        if (v->inflight[i] == id) {
            v->inflight[i] = v->inflight[--v->ninflight];
            return true;
        }
    return false;
}

void verify_done(void *ctx, const PairJob *job, const PairResult *res)
{
    Verify *v = ctx;
    if (!drop_inflight(v, job->id))
        return;
    tally_add(&v->tally, res);
    uint64_t losses = v->tally.time_losses[0] + v->tally.time_losses[1];
    char msg[256];
    if (!v->time_loss_warned && (tc_is_wall_clock(&v->run.mc.eng[0].tc) || tc_is_wall_clock(&v->run.mc.eng[1].tc)) &&
        verify_time_loss_alarm(losses, v->tally.games, msg, sizeof msg)) {
        progress_clear(&v->progress);
        fflush(stdout);
        fprintf(stderr, "ratchet-tune: verify: warning: %s\n", msg);
        v->time_loss_warned = true;
    }
    if (v->sprt.on && v->verdict == 0) {
        double llr, lo, up;
        v->verdict = sprt_check(&v->tally, &v->sprt, &llr, &lo, &up);
        if (v->verdict != 0)
            v->stop = (SprtStop){ .verdict = v->verdict, .games = v->tally.games, .llr = llr };
    }
    char err[PATH_MAX + 128];
    if (!v->failed && verify_save(v, "running", verify_verdict_name(v), err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: verify: %s; stopping\n", err);
        v->failed = true;
        stopsig_request();
    }
    verify_progress(v, false);
}

bool verify_counted(void *ctx, uint64_t id)
{
    const Verify *v = ctx;
    if (id >= v->next_round)
        return false;
    for (size_t i = v->nextpending; i < v->npending; i++)
        if (v->pending[i] == id)
            return false;
    return true;
}

/* Abandoned: it stays in flight, so the next session plays it again. */
void verify_abandoned(void *ctx, const PairJob *job)
{
    (void)ctx;
    (void)job;
}
