/* A tuning run in play: the match hooks that hand out SPSA batches and
 * apply their results, a checkpoint after every batch, signals and
 * progress.  The checks before the first game are in setup.c, the `run`
 * and `resume` commands in commands/run_cmd.c.  See tuning.h. */
#include <stdatomic.h>
#include "errmsg.h"
#include "tuning.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "hist.h"
#include "loadcheck.h"
#include "match.h"
#include "rd.h"
#include "setup.h"
#include "state.h"
#include "saver.h"
#include "spsa.h"
#include "stopsig.h"
#include "uciopt.h"
#include "validate.h"

enum {
    EXIT_DONE = 0,
    EXIT_FAILED = 1,
    TTY_PROGRESS_MS = 500,
    LOG_PROGRESS_MS = 10000
};

/* ---- the run ----------------------------------------------------------------- */

void run_msg_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ratchet-tune: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static double now_elapsed(const Run *r)
{
    return r->elapsed0 + (double)(ep_now_ms() - r->t0) / 1000.0;
}

/* ---- the hooks ------------------------------------------------------------------ */

static Active *find_active(Run *r, uint64_t k)
{
    for (size_t i = 0; i < r->nact; i++)
        if (r->act[i].b.k == k)
            return &r->act[i];
    return NULL;
}

static void stop_failed(Run *r)
{
    r->failed = true;
    stopsig_request();
}

/* A batch in flight whose finished pairs the state kept: only the rest
 * of it is played. */
static void resume_partial(Run *r, Active *a)
{
    for (size_t i = 0; i < r->rs.npartial; i++) {
        const PartialBatch *pb = &r->rs.partial[i];
        if (pb->k != a->b.k)
            continue;
        a->handed = a->done = (int)pb->pairs;
        a->w = pb->wins;
        a->l = pb->losses;
        a->d = pb->draws;
        memcpy(a->ptnml, pb->ptnml, sizeof a->ptnml);
        a->time_losses = pb->time_losses;
        a->crashes = pb->crashes;
        a->illegal = pb->illegal;
        memcpy(a->per_engine, pb->per_engine, sizeof a->per_engine);
    }
}

/* The finished pairs of the batches in flight, into the state (before
 * every save), so that a stop keeps them. */
static void keep_partials(Run *r)
{
    RunState *rs = &r->rs;
    PartialBatch *np = calloc(r->nact + rs->npartial + 1, sizeof *np);
    if (!np)
        return; /* the old list stays: still consistent, only less is kept */
    size_t n = 0;
    for (size_t i = 0; i < r->nact; i++) {
        const Active *a = &r->act[i];
        if (a->done <= 0 || a->done >= rs->spsa.cfg.pairs_per)
            continue;
        np[n++] = (PartialBatch){ .k = a->b.k, .pairs = (uint64_t)a->done, .wins = a->w, .losses = a->l,
                                  .draws = a->d, .time_losses = a->time_losses, .crashes = a->crashes,
                                  .illegal = a->illegal };
        memcpy(np[n - 1].ptnml, a->ptnml, sizeof a->ptnml);
        memcpy(np[n - 1].per_engine, a->per_engine, sizeof a->per_engine);
    }
    /* Kept partials of batches not handed out again yet in this session. */
    for (size_t i = 0; i < rs->npartial; i++) {
        bool active = false;
        for (size_t j = 0; j < r->nact; j++)
            active |= r->act[j].b.k == rs->partial[i].k;
        bool pending = false;
        for (size_t j = r->nextreissue; j < r->nreissue; j++)
            pending |= r->reissue[j].k == rs->partial[i].k;
        if (!active && pending)
            np[n++] = rs->partial[i];
    }
    free(rs->partial);
    rs->partial = np;
    rs->npartial = n;
}

/* ---- validation points (validate.h) ------------------------------------------------ */

/* The value file of snapshot K: the export format, the tuned parameters at
 * the snapshot's values. */
static int write_snapshot(Run *r, char *err, size_t errlen)
{
    const RunState *rs = &r->rs;
    const Validation *v = &rs->val;
    char date[32], path[PATH_MAX + 64];
    rd_now_iso(date, sizeof date);
    const char *name = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
    cJSON *o = cJSON_CreateObject();
    cJSON *params = o ? cJSON_AddObjectToObject(o, "params") : NULL;
    bool ok = params != NULL;
    for (size_t i = 0; ok && i < rs->norder; i++) {
        double x;
        size_t t = 0;
        while (t < rs->spsa.nparams && strcmp(rs->spsa.params[t].name, rs->order[i]) != 0)
            t++;
        if (t < rs->spsa.nparams && t < v->nvalues)
            ok = cJSON_AddNumberToObject(params, rs->order[i], v->values[t]) != NULL;
        else if (runstate_value(rs, rs->order[i], &x, NULL) == 0)
            ok = cJSON_AddNumberToObject(params, rs->order[i], x) != NULL;
    }
    ok = ok && cJSON_AddStringToObject(o, "source", "ratchet-tune") && cJSON_AddStringToObject(o, "run", name) &&
         cJSON_AddNumberToObject(o, "games", (double)v->at_games) && cJSON_AddStringToObject(o, "date", date) &&
         cJSON_AddStringToObject(o, "engine", rs->engine) && cJSON_AddStringToObject(o, "tc", rs->tc) &&
         cJSON_AddNumberToObject(o, "snapshot", (double)(v->done + 1));
    int rc = -1;
    if (!ok) {
        errmsg(err, errlen, "out of memory");
    } else {
        /* Written through the checked directory's descriptor, not its path. */
        snprintf(path, sizeof path, "%s/%s", r->dir, SNAPSHOT_DIR);
        int dfd = rd_open_sub(path, err, errlen);
        if (dfd >= 0) {
            char name[32];
            snprintf(name, sizeof name, "%llu.json", (unsigned long long)(v->done + 1));
            rc = rd_write_json_at(dfd, path, name, o, err, errlen);
            close(dfd);
        }
    }
    cJSON_Delete(o);
    return rc;
}

/* Take the next point if it is due: the values export would write now. */
static void validation_check(Run *r)
{
    RunState *rs = &r->rs;
    if (!validate_due(&rs->val, rs->games, spsa_budget_games(&rs->spsa.cfg)))
        return;
    size_t n = rs->spsa.nparams;
    double *vals = malloc((n + 1) * sizeof *vals);
    for (size_t i = 0; vals && i < n; i++)
        vals[i] = spsa_value(&rs->spsa, i);
    int rc = vals ? validate_take(&rs->val, vals, n, rs->games, spsa_budget_games(&rs->spsa.cfg)) : -1;
    free(vals);
    char err[1024];
    if (rc < 0) {
        run_msg_err("out of memory");
        stop_failed(r);
        return;
    }
    if (write_snapshot(r, err, sizeof err) < 0) {
        run_msg_err("validation: %s; stopping the run (the last saved state is whole)", err);
        stop_failed(r);
    }
}

static bool validation_next(Run *r, PairJob *job)
{
    Validation *v = &r->rs.val;
    if (!v->pending)
        return false;
    /* the point's pairs at the tuning limit, then (with -validate tc= etc.) the same openings at the user's */
    bool at_limit = 2 * (v->pairs + v->inflight) >= v->size;
    if (at_limit && (!v->has_limit || 2 * (v->lim.pairs + v->lim.inflight) >= v->size))
        return false;
    uint64_t pair = at_limit ? v->lim.next++ : v->next++, j = v->used + pair;
    if (at_limit)
        v->lim.inflight++;
    else
        v->inflight++;
    job->id = VALIDATION_ID | (at_limit ? VALIDATION_LIMIT_ID : 0) | j;
    job->opening = book_pick(r->mc->book, validate_holdout_pick(v, book_size(r->mc->book), claims_skip(&r->claims, j)));
    job->games = 2;
    job->has_tc = at_limit;
    if (at_limit)
        job->tc = v->limit;
    /* In the PGN: Round point.pair (the pairs at the user's limit numbered after the others), the values each
     * side played, and what the games were, with this run's mark (validate_event; the tuning's own games have
     * whole-number Rounds). */
    uint64_t point = v->done + 1;
    snprintf(job->round, sizeof job->round, "%llu.%llu", (unsigned long long)point,
             (unsigned long long)(pair + 1 + (at_limit ? v->size / 2 : 0)));
    snprintf(job->names[0], sizeof job->names[0], "snapshot %llu", (unsigned long long)point);
    snprintf(job->names[1], sizeof job->names[1], "start");
    validate_event(v, r->rs.created, point, at_limit, job->event, sizeof job->event);
    const SpsaState *st = &r->rs.spsa;
    int n = (int)st->nparams;
    job->nopts[0] = job->nopts[1] = n;
    for (int i = 0; i < n; i++) {
        const SpsaParam *p = &st->params[i];
        bool spin = p->is_float && r->rs.to_spin && r->rs.to_spin[i];
        double x[2] = { v->values[i], p->start };
        for (int e = 0; e < 2; e++) {
            snprintf(job->opts[e][i].name, sizeof job->opts[e][i].name, "%s", p->name);
            uciopt_format(spin ? floor(x[e] + 0.5) : x[e], p->is_float && !spin, job->opts[e][i].value,
                          sizeof job->opts[e][i].value);
        }
    }
    return true;
}

static void tally_pair(const PairResult *res, uint64_t *w, uint64_t *l, uint64_t *d, uint64_t ptnml[5],
                       ValidationForfeits *f)
{
    for (int g = 0; g < res->games && g < 2; g++) {
        if (res->score2[g] == 2)
            (*w)++;
        else if (res->score2[g] == 0)
            (*l)++;
        else
            (*d)++;
    }
    validate_forfeits_add(f, res);
    if (res->ptnml_index >= 0 && res->ptnml_index < 5)
        ptnml[res->ptnml_index]++;
}

/* The warning when a finished point's games (p, and pl at the user's limit when given) ended by forfeit. */
static void warn_forfeits(const Run *r, const ValidationPoint *p, const ValidationPoint *pl)
{
    const ValidationPoint *legs[2] = { p, pl };
    const char *tc[2] = { r->rs.tc, r->rs.val.limit_text };
    char msg[640];
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
        uint64_t k = legs[i] ? validate_forfeits(&legs[i]->forfeits) : 0;
        char why[160];
        if (k)
            n = appendf(msg, sizeof msg, n, "%s%llu of %llu games at %s (%s)", n ? "; " : "", (unsigned long long)k,
                        (unsigned long long)(2 * legs[i]->pairs), tc[i],
                        validate_forfeit_text(&legs[i]->forfeits, why, sizeof why));
    }
    if (n)
        run_msg_err("warning: validation point %llu: games ended by forfeit, not over the board: %s; a forfeit is a "
                    "loss of the side at fault, so the point scores the forfeits, not the values",
                    (unsigned long long)p->point, msg);
}

static void progress(Run *r, bool force);

static void validation_pair_done(Run *r, const PairJob *job, const PairResult *res)
{
    RunState *rs = &r->rs;
    Validation *v = &rs->val;
    bool at_limit = (job->id & VALIDATION_LIMIT_ID) != 0;
    if (!v->pending || (at_limit ? v->lim.inflight : v->inflight) == 0)
        return;
    if (at_limit) {
        v->lim.inflight--;
        tally_pair(res, &v->lim.wins, &v->lim.losses, &v->lim.draws, v->lim.ptnml, &v->lim.forfeits);
        v->lim.pairs++;
    } else {
        v->inflight--;
        tally_pair(res, &v->wins, &v->losses, &v->draws, v->ptnml, &v->forfeits);
        v->pairs++;
    }
    r->val_games += 2;
    char err[1024];
    if (2 * v->pairs >= v->size && (!v->has_limit || 2 * v->lim.pairs >= v->size)) {
        ValidationPoint p, pl;
        if ((v->has_limit && validate_record_limit(v, r->dir, &pl, err, sizeof err) < 0) ||
            validate_record(v, r->dir, &p, err, sizeof err) < 0) {
            run_msg_err("validation: %s; stopping the run (the last saved state is whole)", err);
            stop_failed(r);
            return;
        }
        progress_clear(&r->progress);
        char elo[200], elol[200] = "";
        if (v->has_limit) {
            char e2[160];
            snprintf(elol, sizeof elol, "; at %s: %s over %llu games", v->limit_text,
                     validate_elo_text(&pl, e2, sizeof e2), (unsigned long long)(2 * pl.pairs));
        }
        printf("validation %llu at %llu games: %s over %llu games%s%s%s, snapshot %s/%s/%llu.json\n",
               (unsigned long long)p.point, (unsigned long long)p.games, validate_elo_text(&p, elo, sizeof elo),
               (unsigned long long)(2 * p.pairs), v->has_limit ? " at " : "", v->has_limit ? rs->tc : "", elol,
               r->dir, SNAPSHOT_DIR, (unsigned long long)p.point);
        fflush(stdout);
        warn_forfeits(r, &p, v->has_limit ? &pl : NULL);
        validation_check(r); /* a budget shortened on resume can make the next one due at once */
    }
    char *state = runstate_text(rs);
    char *row = strdup("");
    if (!state || !row) {
        free(state);
        free(row);
        run_msg_err("out of memory saving the state; stopping the run (the last saved state is whole)");
        stop_failed(r);
        return;
    }
    saver_push(r->saver, row, 0, state);
    progress(r, false);
}

static bool next_pair(void *ctx, PairJob *job)
{
    Run *r = ctx;
    char err[512];
    if (!r->failed && saver_failed(r->saver, err, sizeof err)) {
        run_msg_err("%s; stopping the run (the last saved state is whole)", err);
        stop_failed(r);
    }
    if (r->failed || stopsig_flag)
        return false;
    if (!r->tplay)
        r->tplay = ep_now_ms();
    if (validation_next(r, job))
        return true;
    SpsaState *st = &r->rs.spsa;
    int P = st->cfg.pairs_per;
    Active *a = NULL;
    for (size_t i = 0; i < r->nact && !a; i++)
        if (r->act[i].handed < P)
            a = &r->act[i];
    if (!a) {
        if (r->nact == r->capact) {
            size_t cap = r->capact ? r->capact * 2 : 8;
            Active *na = realloc(r->act, cap * sizeof *na);
            if (!na) {
                run_msg_err("out of memory");
                stop_failed(r);
                return false;
            }
            r->act = na;
            r->capact = cap;
        }
        a = &r->act[r->nact];
        memset(a, 0, sizeof *a);
        if (r->nextreissue < r->nreissue) {
            a->b = r->reissue[r->nextreissue];
            memset(&r->reissue[r->nextreissue++], 0, sizeof a->b);
            resume_partial(r, a);
        } else {
            int rc = spsa_batch_begin(st, &a->b);
            if (rc == 0)
                return false;
            if (rc < 0) {
                run_msg_err("out of memory");
                stop_failed(r);
                return false;
            }
        }
        r->nact++;
    }
    /* The opening of pair j of batch k is number (k - 1) P + j of the order:
     * a batch replayed after a resume plays the openings it had, so the run
     * continues as if it had never stopped. */
    uint64_t pair_index = (a->b.k - 1) * (uint64_t)P + (uint64_t)a->handed;
    a->handed++;
    job->id = a->b.k - 1; /* the PGN Round is id + 1 = k */
    r->rs.pairs_issued++;
    job->opening = book_pick(r->mc->book, validate_tuning_pick(&r->rs.val, book_size(r->mc->book), pair_index));
    job->games = 2;
    int n = (int)a->b.nparams;
    job->nopts[0] = job->nopts[1] = n;
    for (int i = 0; i < n; i++) {
        const char *name = st->params[i].name;
        snprintf(job->opts[0][i].name, sizeof job->opts[0][i].name, "%s", name);
        snprintf(job->opts[1][i].name, sizeof job->opts[1][i].name, "%s", name);
        setup_value_text(&r->rs, &a->b, (size_t)i, a->b.plus_values[i], job->opts[0][i].value,
                         sizeof job->opts[0][i].value);
        setup_value_text(&r->rs, &a->b, (size_t)i, a->b.minus_values[i], job->opts[1][i].value,
                         sizeof job->opts[1][i].value);
    }
    return true;
}

static void complete_batch(Run *r, Active *a)
{
    RunState *rs = &r->rs;
    SpsaState *st = &rs->spsa;
    if (spsa_batch_apply_wld(st, &a->b, a->w, a->l, a->d) < 0) {
        run_msg_err("internal error: batch %llu is not in flight", (unsigned long long)a->b.k);
        stop_failed(r);
        return;
    }
    rs->games += a->w + a->l + a->d;
    for (int i = 0; i < 5; i++)
        rs->ptnml[i] += a->ptnml[i];
    rs->time_losses += a->time_losses;
    rs->crashes += a->crashes;
    rs->illegal += a->illegal;
    for (int c = 0; c < ENG_NCOUNTS; c++)
        for (int e = 0; e < 2; e++)
            rs->per_engine[c][e] += a->per_engine[c][e];
    if (!r->time_loss_warned && tc_is_wall_clock(&r->mc->eng[0].tc)
        && time_losses_alarming(rs->time_losses, rs->games)) {
        char msg[256];
        time_losses_text(msg, sizeof msg, rs->time_losses, rs->games);
        progress_clear(&r->progress);
        fflush(stdout);
        run_msg_err("warning: %s", msg);
        r->time_loss_warned = true;
    }
    rs->elapsed = now_elapsed(r);
    keep_partials(r); /* this batch has all its pairs: it is not kept as partial */
    validation_check(r);
    HistRow row = { .row = st->completed, .k = a->b.k, .games = rs->games, .wins = a->w, .losses = a->l,
                    .draws = a->d, .elapsed = rs->elapsed };
    /* The row and the state that counts it, written in that order by the saver. */
    size_t len;
    char *text = hist_format_row(&row, st, &a->b, &len);
    char *state = runstate_text(rs);
    if (!text || !state) {
        free(text);
        free(state);
        run_msg_err("out of memory saving the state; stopping the run (the last saved state is whole)");
        stop_failed(r);
    } else {
        saver_push(r->saver, text, len, state);
    }
    uint64_t *rec = r->recent[r->nrecent++ % RUN_RECENT];
    rec[0] = a->w;
    rec[1] = a->l;
    rec[2] = a->d;
    spsa_batch_free(&a->b);
    *a = r->act[--r->nact];
    progress(r, false);
}

static void pair_done(void *ctx, const PairJob *job, const PairResult *res)
{
    Run *r = ctx;
    if (job->id & VALIDATION_ID) {
        validation_pair_done(r, job, res);
        return;
    }
    /* What the machine's clock is worth in nodes, from every pair played
     * (applied or not: a measure of speed, not a result). */
    for (int e = 0; e < 2; e++)
        wall_search_add(&r->rs.wall_nodes, &r->rs.wall_ms, res->wall_nodes[e], res->wall_ms[e]);
    Active *a = find_active(r, job->id + 1);
    if (!a)
        return;
    for (int g = 0; g < res->games && g < 2; g++) {
        if (res->score2[g] == 2)
            a->w++;
        else if (res->score2[g] == 0)
            a->l++;
        else
            a->d++;
    }
    if (res->ptnml_index >= 0 && res->ptnml_index < 5)
        a->ptnml[res->ptnml_index]++;
    for (int e = 0; e < 2; e++) {
        a->time_losses += (uint64_t)res->time_losses[e];
        a->crashes += (uint64_t)res->crashes[e];
        a->illegal += (uint64_t)res->illegal[e];
        a->per_engine[ENG_TIME_LOSSES][e] += (uint64_t)res->time_losses[e];
        a->per_engine[ENG_CRASHES][e] += (uint64_t)res->crashes[e];
        a->per_engine[ENG_ILLEGAL][e] += (uint64_t)res->illegal[e];
        a->per_engine[ENG_RESTARTS][e] += (uint64_t)res->restarts[e];
    }
    if (++a->done == r->rs.spsa.cfg.pairs_per)
        complete_batch(r, a);
}

/* A pair that was not finished: hand it out again if the run goes on; when it
 * stops, its batch stays in flight in the state and a resume replays it. */
static void pair_abandoned(void *ctx, const PairJob *job)
{
    Run *r = ctx;
    if (job->id & VALIDATION_ID) {
        uint64_t *inflight = job->id & VALIDATION_LIMIT_ID ? &r->rs.val.lim.inflight : &r->rs.val.inflight;
        if (*inflight > 0)
            (*inflight)--;
        return;
    }
    Active *a = find_active(r, job->id + 1);
    if (a && a->handed > a->done)
        a->handed--;
}

/* ---- progress ------------------------------------------------------------------ */

static void progress(Run *r, bool force)
{
    int64_t now = ep_now_ms();
    const RunState *rs = &r->rs;
    const SpsaState *st = &rs->spsa;
    const Validation *v = &rs->val;
    if (force && r->last_progress_k == st->completed && r->last_progress_v == r->val_games && r->progress.shown)
        return;
    if (!progress_due(&r->progress, now, force))
        return;
    r->last_progress_k = st->completed;
    r->last_progress_v = r->val_games;
    /* The rate and the time left count the validation's games beside the tuning's. */
    double secs = r->tplay ? (double)(now - r->tplay) / 1000.0 : 0; /* engine start-up excluded */
    double gps = secs > 0 ? (double)(rs->games - r->games0 + r->val_games) / secs : 0;
    uint64_t total = spsa_budget_games(&st->cfg);
    uint64_t vplan = 2 * (validate_pairs_planned(v, total) - v->used); /* the pending point's among them */
    uint64_t vmain = v->pending ? 2 * v->pairs : 0, vlim = v->pending ? 2 * v->lim.pairs : 0;
    uint64_t vleft = (vplan > vmain ? vplan - vmain : 0) + (v->has_limit && vplan > vlim ? vplan - vlim : 0);
    double eta = gps > 0 ? (double)((total > rs->games ? total - rs->games : 0) + vleft) / gps : -1;
    char etas[32];
    duration_format(eta, etas, sizeof etas);

    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "iter %llu/%llu  %llu games  %.2f games/s  ETA %s",
                                (unsigned long long)st->completed, (unsigned long long)st->cfg.iterations,
                                (unsigned long long)rs->games, gps, etas);
    uint64_t w = 0, l = 0, d = 0, nb = r->nrecent < RUN_RECENT ? r->nrecent : RUN_RECENT;
    for (uint64_t i = 0; i < nb; i++) {
        w += r->recent[i][0];
        l += r->recent[i][1];
        d += r->recent[i][2];
    }
    if (w + l + d > 0 && n < sizeof line)
        n = appendf(line, sizeof line, n, "  last %llu: %.1f%% (+%llu -%llu =%llu)",
                              (unsigned long long)nb, 100.0 * ((double)w + 0.5 * (double)d) / (double)(w + l + d),
                              (unsigned long long)w, (unsigned long long)l, (unsigned long long)d);
    /* The three parameters that moved most, in units of their c_end. */
    size_t top[3];
    int ntop = 0;
    for (; ntop < 3; ntop++) {
        double best = 1e-9;
        size_t bi = SIZE_MAX;
        for (size_t i = 0; i < st->nparams; i++) {
            const SpsaParam *p = &st->params[i];
            double m = fabs(p->theta - p->start) / p->c_end;
            bool taken = false;
            for (int j = 0; j < ntop; j++)
                taken |= top[j] == i;
            if (!taken && m > best) {
                best = m;
                bi = i;
            }
        }
        if (bi == SIZE_MAX)
            break;
        top[ntop] = bi;
    }
    if (ntop > 0 && n < sizeof line)
        n = appendf(line, sizeof line, n, "  moved:");
    for (int i = 0; i < ntop && n < sizeof line; i++) {
        const SpsaParam *p = &st->params[top[i]];
        n = appendf(line, sizeof line, n, " %s %g>%.2f", p->name, p->start, p->theta);
    }
    if (v->pending && n < sizeof line) {
        n = appendf(line, sizeof line, n, "  validation %llu: %llu of %llu games", (unsigned long long)(v->done + 1),
                    (unsigned long long)(2 * v->pairs), (unsigned long long)v->size);
        if (v->has_limit && n < sizeof line)
            appendf(line, sizeof line, n, ", %llu of %llu at %s", (unsigned long long)(2 * v->lim.pairs),
                    (unsigned long long)v->size, v->limit_text);
    }
    progress_show(&r->progress, line);
}

/* ---- one session of play -------------------------------------------------------- */

void run_free(Run *r)
{
    for (size_t i = 0; i < r->nact; i++)
        spsa_batch_free(&r->act[i].b);
    free(r->act);
    for (size_t i = 0; i < r->nreissue; i++)
        spsa_batch_free(&r->reissue[i]);
    free(r->reissue);
    hist_close(&r->hist);
    claims_free(&r->claims);
    setup_free_match(r->mc);
    runstate_free(&r->rs);
    rd_unlock(r->lockfd);
    r->lockfd = -1;
}

/* The line after a stop: what a resume will start from.  After a failed
 * save that is the state on disk, not the one in memory: it is read back. */
static void print_stopped(Run *r, bool saved_ok, int mrc)
{
    const RunState *rs = &r->rs;
    unsigned long long total = (unsigned long long)spsa_budget_games(&rs->spsa.cfg);
    const char *pgn = mrc == 2 ? "; the PGN file could not be written (it holds the whole games before the failure)"
                               : "";
    if (saved_ok) {
        printf("stopped after %llu of %llu games (%zu batch%s in flight will be replayed)%s\n",
               (unsigned long long)rs->games, total, rs->spsa.ninflight, rs->spsa.ninflight == 1 ? "" : "es", pgn);
        return;
    }
    RunState disk;
    char err[1024];
    if (runstate_load(&disk, r->dir, err, sizeof err) < 0) {
        printf("stopped: the state could not be saved, and the one on disk cannot be read (%s)%s\n", err, pgn);
        return;
    }
    unsigned long long lost = rs->games > disk.games ? (unsigned long long)(rs->games - disk.games) : 0;
    printf("stopped: the state could not be saved; the one on disk counts %llu of %llu games and has %zu batch%s in "
           "flight, which a resume replays (%llu game%s played since its last save are not counted)%s\n",
           (unsigned long long)disk.games, total, disk.spsa.ninflight, disk.spsa.ninflight == 1 ? "" : "es", lost,
           lost == 1 ? "" : "s", pgn);
    runstate_free(&disk);
}

/* The batches in flight when the previous session ended, into r->reissue:
 * they are played again.  0, or -1 (out of memory) with the message printed. */
static int load_reissue(Run *r)
{
    RunState *rs = &r->rs;
    r->nreissue = rs->spsa.ninflight;
    r->reissue = calloc(r->nreissue + 1, sizeof *r->reissue);
    if (!r->reissue) {
        run_msg_err("out of memory");
        return -1;
    }
    for (size_t i = 0; i < r->nreissue; i++)
        if (spsa_inflight_get(&rs->spsa, i, &r->reissue[i]) < 0) {
            run_msg_err("out of memory");
            return -1;
        }
    if (r->nreissue > 0)
        printf("replaying %zu batch%s that %s in flight when the run stopped\n", r->nreissue,
               r->nreissue == 1 ? "" : "es", r->nreissue == 1 ? "was" : "were");
    return 0;
}

/* The run's files made to agree with the state before play: the history
 * and the validation CSVs cut back to the rows the state counts, the
 * snapshot directory checked, on a resume the PGN's validation games
 * trimmed; a validation in progress is announced and its snapshot written
 * if missing.  0, or -1 with the message printed. */
static int prepare_files(Run *r)
{
    RunState *rs = &r->rs;
    char err[1024];
    char snapdir[PATH_MAX + 16];
    snprintf(snapdir, sizeof snapdir, "%s/%s", r->dir, SNAPSHOT_DIR);
    if (hist_open(&r->hist, r->dir, &rs->spsa, rs->spsa.completed, err, sizeof err) < 0 ||
        validate_trim(&rs->val, r->dir, err, sizeof err) < 0 || validate_trim_limit(&rs->val, r->dir, err, sizeof err) < 0 ||
        rd_sub_check(snapdir, err, sizeof err) < 0 ||
        (rs->val.holdout > 0 && claims_load(r->dir, rs->val.holdout, &r->claims, err, sizeof err) < 0)) {
        run_msg_err("%s", err);
        return -1;
    }
    /* A resume: this run's validation games in the PGN as the state counts them (every other game is left as
     * it is). */
    PgnTrim trim = { 0 };
    if (rs->sessions > 0 && validate_trim_pgn(&rs->val, r->dir, rs->created, r->mc->pgnout, &trim, err, sizeof err) < 0) {
        run_msg_err("%s", err);
        return -1;
    }
    /* the next pair's Round follows the kept ones, at each limit */
    if (rs->val.pending && trim.last_pair > rs->val.next)
        rs->val.next = trim.last_pair;
    if (rs->val.pending && trim.last_lim_pair > rs->val.lim.next)
        rs->val.lim.next = trim.last_lim_pair;
    if (trim.dropped)
        printf("PGN file %s: %zu validation game%s the state does not count (of a pair cut short or not saved) "
               "taken out: %s played again\n", r->mc->pgnout, trim.dropped, trim.dropped == 1 ? "" : "s",
               trim.dropped == 1 ? "its pair is" : "their pairs are");
    if (rs->val.pending) {
        printf("validation %llu: %llu of %llu games played, continuing\n", (unsigned long long)(rs->val.done + 1),
               (unsigned long long)(2 * rs->val.pairs), (unsigned long long)rs->val.size);
        /* The snapshot is written before the state that holds its point: missing only after a failed write. */
        char snap[PATH_MAX + 64];
        snprintf(snap, sizeof snap, "%s/%s/%llu.json", r->dir, SNAPSHOT_DIR, (unsigned long long)(rs->val.done + 1));
        if (access(snap, F_OK) != 0 && write_snapshot(r, err, sizeof err) < 0) {
            run_msg_err("validation: %s", err);
            return -1;
        }
    }
    return 0;
}

/* What the session will do: the parameters, engine, clock and budget, the
 * openings for tuning and for validation, the validation plan. */
static void print_banner(const Run *r)
{
    const RunState *rs = &r->rs;
    printf("tuning %zu parameter%s of %s (%s) at %s, %llu games in %llu iterations, concurrency %d, into %s\n",
           rs->spsa.nparams, rs->spsa.nparams == 1 ? "" : "s", rs->engine, r->mc->eng[0].cmd, rs->tc,
           (unsigned long long)spsa_budget_games(&rs->spsa.cfg),
           (unsigned long long)rs->spsa.cfg.iterations, r->mc->concurrency, r->dir);
    size_t nbook = book_size(r->mc->book);
    if (rs->val.holdout && rs->val.holdout < nbook)
        printf("openings: %zu of the book's %zu for tuning, the other %llu held out for validation and verify\n",
               nbook - (size_t)rs->val.holdout, nbook, (unsigned long long)rs->val.holdout);
    else
        printf("openings: the whole book (%zu) for tuning, none held out%s\n", nbook,
               rs->val.every > 0 ? "" : " (a run started by an older build, or a book of one position)");
    uint64_t total = spsa_budget_games(&rs->spsa.cfg), npoints = validate_points(&rs->val, total);
    if (npoints) {
        char plan[256];
        printf("validation: %s, the values export would write against the start values%s; %llu of %llu done\n",
               validate_plan_text(&rs->val, total, plan, sizeof plan),
               rs->val.holdout && rs->val.holdout < nbook ? "" : ", on the tuning's own openings (none held out: in sample)",
               (unsigned long long)rs->val.done, (unsigned long long)npoints);
    }
    fflush(stdout);
}

/* The games of the session, under the stop signal and with the saver
 * running; the runner's return (match_transport) in *mrc.  False, with the
 * message printed, if the saver could not start: nothing was played. */
static bool play_games(Run *r, const RunObserver *obs, int *mrc)
{
    RunState *rs = &r->rs;
    char err[1024];
    StopSig saved;
    stopsig_install(&saved, "\nratchet-tune: stopping: abandoning the games in flight and saving (again to quit at once)\n");
    r->mc->stop = &stopsig_flag;
    LoadCheck lc;
    load_check_before(r->mc, 0, "run", &lc); /* busy: a warning; SPSA's games need no wait */
    r->t0 = ep_now_ms();
    progress_start(&r->progress, TTY_PROGRESS_MS, LOG_PROGRESS_MS, r->t0);
    r->elapsed0 = rs->elapsed;
    r->games0 = rs->games;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", r->dir, STATE_FILE);
    if (!(r->saver = saver_start(&r->hist, path, err, sizeof err))) {
        stopsig_restore(&saved);
        run_msg_err("%s", err);
        return false;
    }
    if (obs && obs->started)
        obs->started(obs->ctx, r);
    MatchHooks hooks = { .next_pair = next_pair, .pair_done = pair_done, .pair_abandoned = pair_abandoned, .ctx = r };
    uint64_t played = rs->games;
    *mrc = match_transport(r->mc, &hooks);
    /* The runner ends when no pair is left to hand out and none is in
     * flight, so a point taken by the last batches (the final values) is
     * played in the same session.  Pairs given back after the hand-out
     * ended, with no thread left to take them (the distributed runner
     * retired a worker rank: coord_play), are played in a session of their
     * own, as long as the session before played something. */
    for (;;) {
        bool again = spsa_done(&rs->spsa) ? rs->val.pending : rs->games > played;
        if (*mrc != 0 || stopsig_flag || r->failed || !again)
            break;
        played = rs->games;
        *mrc = match_transport(r->mc, &hooks);
    }
    if (saver_finish(r->saver, err, sizeof err) < 0) {
        run_msg_err("%s; the last saved state is whole", err);
        r->failed = true;
    }
    r->saver = NULL;
    stopsig_restore(&saved);
    return true;
}

/* After play: the state saved, the observer told, and the closing lines
 * (where the report is when the run is complete, how to resume when it is
 * not).  The command's exit status. */
static int finish_session(Run *r, const RunObserver *obs, int mrc)
{
    RunState *rs = &r->rs;
    char err[1024];
    /* After a failed write the last saved state is the consistent one: keep it. */
    rs->elapsed = now_elapsed(r);
    keep_partials(r);
    bool saved_ok = !r->failed && runstate_save(rs, r->dir, err, sizeof err) == 0;
    if (!saved_ok && !r->failed)
        run_msg_err("%s", err);
    if (obs && obs->stopped)
        obs->stopped(obs->ctx, r);
    if (mrc < 0) {
        run_msg_err("the run could not start its engines; nothing was played.  Fix the problem, then: %s resume %s",
                    setup_prog(), r->dir);
        return EXIT_FAILED;
    }
    if (spsa_done(&rs->spsa) && !rs->val.pending && !r->failed) {
        progress(r, true);
        progress_end(&r->progress);
        if (obs && obs->complete)
            obs->complete(obs->ctx, r);
        printf("\nreport: %s/report.html\n", r->dir);
        if (!setup_caller()) {
            printf("export the values with: %s export %s -o params/tuned/NAME.json\n", setup_prog(), r->dir);
            printf("verify them (export, bake, SPRT against the start values) with: %s verify %s\n", setup_prog(),
                   r->dir);
        }
        return EXIT_DONE;
    }
    progress(r, true);
    progress_end(&r->progress);
    print_stopped(r, saved_ok, mrc);
    if (!setup_caller())
        printf("resume with: %s resume %s\n", setup_prog(), r->dir);
    fflush(stdout);
    if (stopsig_signal() && !r->failed && mrc == 0)
        return 128 + stopsig_signal();
    return EXIT_FAILED;
}

int run_play(Run *r, const RunObserver *obs)
{
    RunState *rs = &r->rs;
    char err[1024];
    if (load_reissue(r) < 0 || prepare_files(r) < 0)
        return EXIT_FAILED;
    /* A point due now: the budget was extended past the last point, or the final values of a run of an
     * older build were never validated. */
    validation_check(r);
    if (r->failed)
        return EXIT_FAILED;
    /* The session counted in the state on disk before its first game. */
    rs->sessions++;
    if (runstate_save(rs, r->dir, err, sizeof err) < 0) {
        run_msg_err("%s", err);
        return EXIT_FAILED;
    }
    print_banner(r);
    int mrc;
    if (!play_games(r, obs, &mrc))
        return EXIT_FAILED;
    return finish_session(r, obs, mrc);
}
