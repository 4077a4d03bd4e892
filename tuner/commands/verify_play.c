/* `ratchet-tune verify`: the match, tuned against base, its progress and
 * the verdict; see verify_impl.h. */
#include "verify.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "elotext.h"
#include "engcheck.h"
#include "errmsg.h"
#include "export.h"
#include "match.h"
#include "match_cmd.h"
#include "setup.h"
#include "stats.h"
#include "strlist.h"
#include "validate.h"
#include "verify_impl.h"

static bool is_param(const RunState *rs, const char *name)
{
    for (size_t i = 0; i < rs->norder; i++)
        if (!strcasecmp(rs->order[i], name))
            return true;
    return false;
}

/* The -engine words of one side: the run's engine section, cmd and name, and
 * (options mode) every parameter's value as option.NAME=V. */
static int engine_words(const Verify *v, const char *name, const char *cmd, const cJSON *values, bool limit_over,
                        int *argc, char ***argv)
{
    if (conf_argv_push(argc, argv, "-engine") < 0)
        return -1;
    const RunConf *c = &v->rs.conf;
    char kv[PATH_MAX + 64];
    for (size_t i = 0; i < c->n; i++) {
        const ConfItem *it = &c->v[i];
        if (strcmp(it->sec, "engine") != 0 || !strcmp(it->key, "name") || !strcmp(it->key, "cmd") ||
            (limit_over && str_in_list(VERIFY_LIMIT_KEYS, it->key)) ||
            (!strncmp(it->key, "option.", 7) && is_param(&v->rs, it->key + 7)))
            continue;
        snprintf(kv, sizeof kv, "%s=%s", it->key, it->val);
        if (conf_argv_push(argc, argv, kv) < 0)
            return -1;
    }
    snprintf(kv, sizeof kv, "cmd=%s", cmd);
    if (conf_argv_push(argc, argv, kv) < 0)
        return -1;
    snprintf(kv, sizeof kv, "name=%s", name);
    if (conf_argv_push(argc, argv, kv) < 0)
        return -1;
    if (v->baked)
        return 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, verify_params_of(values))
    {
        snprintf(kv, sizeof kv, "option.%s=%.12g", p->string, p->valuedouble);
        if (conf_argv_push(argc, argv, kv) < 0)
            return -1;
    }
    return 0;
}

int verify_build_match(Verify *v, const RunConf *settings, bool limit_over, char (*cmd)[PATH_MAX + 64], char *err,
                       size_t errlen)
{
    int argc = 0;
    char **argv = NULL;
    int rc = 0;
    if (engine_words(v, "tuned", cmd[0], v->tuned, limit_over, &argc, &argv) < 0 ||
        engine_words(v, "base", cmd[1], v->base, limit_over, &argc, &argv) < 0)
        rc = errmsg(err, errlen, "out of memory");
    for (const char *const *s = VERIFY_SECTIONS; rc == 0 && *s; s++)
        if (strcmp(*s, "srand") != 0 && conf_section_argv(settings, *s, NULL, &argc, &argv) < 0)
            rc = errmsg(err, errlen, "out of memory");
    match_config_init(&v->mc);
    v->mc_init = true;
    for (int i = 0; rc == 0 && i < argc;) {
        const char *opt = argv[i];
        char e2[768] = "";
        int r = match_parse_option(&v->mc, argc, argv, &i, e2, sizeof e2);
        if (r != 1)
            rc = errmsg(err, errlen, "%s: %s", opt, r == 0 ? "unknown option" : e2);
    }
    conf_free_argv(argc, argv);
    if (rc < 0)
        return -1;
    v->mc.seed = v->seed;
    v->mc.seed_set = true;
    if (!v->mc.book_path[0] && setup_default_book(v->mc.book_path, sizeof v->mc.book_path))
        v->mc.book_random = true;
    char e2[768];
    if (match_config_finish(&v->mc, e2, sizeof e2) < 0)
        return errmsg(err, errlen, "%s", e2);
    tc_format(&v->mc.eng[0].tc, v->tc, sizeof v->tc);
    return 0;
}

/* -snapshot best|K: the tuned side plays snapshot K (DIR/snapshots/K.json)
 * instead of the run's current values. */
int verify_use_snapshot(Verify *v, char *err, size_t errlen)
{
    uint64_t k;
    if (!v->snapshot[0] || export_snapshot_number(v->dir, &v->rs, v->snapshot, &k, err, errlen) < 0)
        return v->snapshot[0] ? -1 : 0;
    if (k == 0)
        return 0;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/%llu.json", v->dir, SNAPSHOT_DIR, (unsigned long long)k);
    cJSON *j = export_snapshot_load(v->dir, &v->rs, k, err, errlen);
    if (!j)
        return -1;
    cJSON_Delete(v->tuned);
    v->tuned = j;
    printf("verify: the tuned side plays snapshot %llu (%s)\n", (unsigned long long)k, path);
    return 0;
}

/* Out of sample by default: without an -openings of its own, verify plays
 * the positions the run held out of its tuning (validate.h): the last
 * `holdout` of the run's book order, in that order.  A run of an older build
 * held none out: verify then plays the whole book and says that the tuning
 * drew from it. */
int verify_pick_openings(Verify *v, const RunConf *over, char *err, size_t errlen)
{
    if (conf_get(over, "openings", "file")) {
        snprintf(v->openings, sizeof v->openings, "given");
        printf("verify: openings: %zu from %s (given with -openings)\n", book_size(v->mc.book), v->mc.book_path);
        return 0;
    }
    uint64_t h = v->rs.val.holdout;
    MatchConfig *run = NULL;
    int rc = 0;
    if (h > 0 && setup_match(&v->rs, &run, err, errlen) < 0) {
        setup_free_match(run);
        return -1;
    }
    size_t n = book_size(v->mc.book);
    if (h == 0 || !run->book || book_size(run->book) != n || h >= n || strcmp(run->book_path, v->mc.book_path) != 0) {
        snprintf(v->openings, sizeof v->openings, "whole book (in sample)");
        printf("verify: openings: the whole book %s (%zu); the run %s, so the tuning drew from these openings: "
               "give -openings file=F for openings the run did not play\n", v->mc.book_path, n,
               h == 0 ? "held none out (a run started by an older build, or a book of one position)"
                      : "held out openings of a book that has changed since");
    } else {
        /* The validation points played the first of them (validate.h): fresh ones when there are. */
        const Validation *val = &v->rs.val;
        uint64_t used = val->used + (val->pending ? val->size / 2 : 0);
        uint64_t skip = used < h ? used : 0;
        book_set_order(v->mc.book, run->book_random, run->seed, (size_t)(run->book_start - 1));
        if (book_keep(v->mc.book, n - h + skip, (size_t)(h - skip)) < 0) {
            rc = errmsg(err, errlen, "out of memory");
        } else {
            snprintf(v->openings, sizeof v->openings, "held-out");
            printf("verify: openings: %llu of the %llu of %s's %zu that the run held out of its tuning (never played "
                   "by it)%s\n", (unsigned long long)(h - skip), (unsigned long long)h, v->mc.book_path, n,
                   used == 0 ? "" : skip ? ", past those its validation points played"
                                         : "; its validation points played them all");
        }
    }
    setup_free_match(run);
    return rc;
}

int verify_fresh_openings(Verify *v, char *err, size_t errlen)
{
    v->fresh = match_fresh_rounds(&v->mc, 2);
    if (match_deterministic(&v->mc) && v->next_round > v->fresh)
        return errmsg(err, errlen,
                      "verify: %s counts %llu pairs, but the %s limit replays games and there are only %llu fresh "
                      "openings: its figures count replayed games as new; start again with -restart",
                      v->path, (unsigned long long)v->next_round, v->tc, (unsigned long long)v->fresh);
    v->fresh_cut = match_cap_fresh(&v->mc, 2, &v->rounds, true, "verify", stdout);
    return 0;
}

void verify_progress(Verify *v, bool force)
{
    int64_t now = ep_now_ms();
    if (!force && now - v->last_progress < (v->tty ? 500 : 10000))
        return;
    v->last_progress = now;
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
    if (v->tty) {
        printf("\r%s\033[K", line);
        v->line_open = true;
    } else {
        printf("%s\n", line);
    }
    fflush(stdout);
}

bool verify_next(void *ctx, PairJob *job)
{
    Verify *v = ctx;
    if (v->failed || verify_g_stop || v->verdict != 0)
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
            verify_g_stop = 1;
            return false;
        }
        v->inflight = n;
        v->capinflight = cap;
    }
    v->inflight[v->ninflight++] = id;
    job->id = id;
    job->opening = book_pick(v->mc.book, id);
    job->games = 2;
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
        verify_g_stop = 1;
    }
    verify_progress(v, false);
}

/* Abandoned: it stays in flight, so the next session plays it again. */
void verify_abandoned(void *ctx, const PairJob *job)
{
    (void)ctx;
    (void)job;
}
