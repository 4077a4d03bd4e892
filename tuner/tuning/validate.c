/* The validation schedule of a run: the -validate settings resolved for
 * its budget (validate_setup, validate_plan, and the user's limit,
 * validate_limit_from_conf), which book positions the tuning and the
 * validation play (the picks), which point is due and when (validate_next_point,
 * validate_due, validate_points, validate_pairs_planned), and the taking of a
 * point (validate_take); with them the basics the other validate_*.c use:
 * validate_free and the forfeit counts.  See validate.h. */
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "errmsg.h"

static const double DEFAULT_HOLDOUT = 0.2;

void validate_free(Validation *v)
{
    free(v->values);
    v->values = NULL;
    v->nvalues = 0;
}

/* Intermediate points of a schedule: the multiples K every strictly inside the budget. */
static uint64_t intermediate_points(double every)
{
    return every > 0 ? (uint64_t)ceil(1.0 / every - 1e-9) - 1 : 0;
}

int validate_plan(Validation *v, double every, int64_t games, int64_t final, uint64_t total, char *err,
                  size_t errlen)
{
    if (!(every > 0))
        every = VALIDATE_DEFAULT_EVERY;
    if ((games > 0 && games % 2) || (final > 0 && final % 2)) {
        errmsg(err, errlen, "validate.%s=%lld: validation plays game pairs, so games must be even",
               games > 0 && games % 2 ? "games" : "final", (long long)(games > 0 && games % 2 ? games : final));
        return -1;
    }
    if (final == 0 && games != 0) {
        errmsg(err, errlen, "validate.final=0: a run validates its final values (-validate off or games=0 for "
               "no validation)");
        return -1;
    }
    uint64_t inter = intermediate_points(every);
    double cost = (double)total * VALIDATE_COST_PCT / 100.0;
    /* the default: VALIDATE_FINAL_SHARE of the cost in the final point, the rest over the others */
    double share = inter ? VALIDATE_FINAL_SHARE : 1.0;
    uint64_t dgames = inter ? 2 * (uint64_t)ceil(cost * (1 - share) / (double)inter / 2.0 - 1e-9) : 2;
    uint64_t dfinal = 2 * (uint64_t)ceil(cost * share / 2.0 - 1e-9);
    v->games = games >= 0 ? (uint64_t)games : dgames < 2 ? 2 : dgames;
    v->final = final > 0 ? (uint64_t)final : games > 0 ? (uint64_t)games : dfinal < 2 ? 2 : dfinal;
    if (v->games == 0)
        v->final = 0;
    v->every = v->games ? every : 0;
    return 0;
}

int validate_setup(Validation *v, const RunConf *conf, const SpsaState *st, size_t nbook, char *err, size_t errlen)
{
    double every = VALIDATE_DEFAULT_EVERY, holdout = DEFAULT_HOLDOUT;
    if (conf_get(conf, "validate", "every") &&
        conf_get_double(conf, "validate", "every", VALIDATE_MIN_EVERY, 1.0, &every, err, errlen) < 0)
        return -1;
    if (conf_get(conf, "validate", "holdout") &&
        conf_get_double(conf, "validate", "holdout", 0.0, 0.9, &holdout, err, errlen) < 0)
        return -1;
    uint64_t total = spsa_budget_games(&st->cfg);
    int64_t count[2] = { -1, -1 };
    static const char *const KEYS[2] = { "games", "final" };
    for (int k = 0; k < 2; k++) {
        unsigned long long x;
        if (!conf_get(conf, "validate", KEYS[k]))
            continue;
        if (conf_get_u64(conf, "validate", KEYS[k], 0, 1000000000ULL, &x, err, errlen) < 0)
            return -1;
        count[k] = (int64_t)x;
    }
    /* games=0 turns validation off: a key that shapes the points then has nothing to shape */
    static const char *const SHAPING[] = { "every", "final", "tc", "st", "nodes", "depth", "nodestime", NULL };
    for (const char *const *k = SHAPING; count[0] == 0 && *k; k++)
        if (conf_get(conf, "validate", *k))
            return errmsg(err, errlen, "validate.games=0 turns validation off, so validate.%s=%s has nothing to "
                          "apply to: drop it, or give games=N (even) for points of N games",
                          *k, conf_get(conf, "validate", *k));
    memset(v, 0, sizeof *v);
    if (validate_plan(v, every, count[0], count[1], total, err, errlen) < 0)
        return -1;
    v->holdout = 0;
    if (nbook >= 2 && holdout > 0) {
        double h = floor(holdout * (double)nbook + 0.5);
        v->holdout = h < 1 ? 1 : h > (double)(nbook - 1) ? nbook - 1 : (uint64_t)h;
    }
    v->last_known = true;
    return 0;
}

uint64_t validate_tuning_pick(const Validation *v, size_t nbook, uint64_t i)
{
    if (v->holdout == 0 || v->holdout >= nbook)
        return i;
    return i % (nbook - v->holdout);
}

uint64_t validate_holdout_pick(const Validation *v, size_t nbook, uint64_t j)
{
    if (v->holdout == 0 || v->holdout >= nbook)
        return j;
    return (nbook - v->holdout) + j % v->holdout;
}

bool validate_next_point(const Validation *v, uint64_t after, uint64_t total, uint64_t *at, uint64_t *size)
{
    if (v->every <= 0 || v->games == 0 || after >= total)
        return false;
    double step = v->every * (double)total;
    /* the first multiple K step beyond `after` (the tuning games of the first batch at or past it) */
    double k = floor((double)after / step);
    for (;; k++) {
        double pos = ceil((k + 1) * step - 1e-6);
        if (pos > (double)after)
            break;
    }
    if ((k + 1) * v->every < 1 - 1e-9 && ceil((k + 1) * step - 1e-6) < (double)total) {
        *at = (uint64_t)ceil((k + 1) * step - 1e-6);
        *size = v->games;
    } else {
        *at = total;
        *size = v->final;
    }
    return true;
}

uint64_t validate_points(const Validation *v, uint64_t total)
{
    if (v->every <= 0 || v->games == 0)
        return 0;
    uint64_t n = v->done + (v->pending ? 1 : 0), after = v->pending ? v->due : v->last_at, at, size;
    while (validate_next_point(v, after, total, &at, &size)) {
        n++;
        after = at;
    }
    return n;
}

uint64_t validate_pairs_planned(const Validation *v, uint64_t total)
{
    uint64_t pairs = v->used + (v->pending ? v->size / 2 : 0);
    if (v->every <= 0 || v->games == 0)
        return pairs;
    uint64_t after = v->pending ? v->due : v->last_at, at, size;
    /* A schedule has at most a point per tuning game, and the step moves forward. */
    for (uint64_t k = 0; k <= total && validate_next_point(v, after, total, &at, &size) && at > after; k++) {
        pairs += size / 2;
        after = at;
    }
    return pairs;
}

bool validate_due(const Validation *v, uint64_t games, uint64_t total)
{
    uint64_t at, size;
    if (v->pending || !validate_next_point(v, v->last_at, total, &at, &size))
        return false;
    return games >= at;
}

const char *validate_plan_text(const Validation *v, uint64_t total, char *buf, size_t len)
{
    uint64_t at, size;
    bool inter = validate_next_point(v, 0, total, &at, &size) && at < total;
    if (v->every <= 0 || v->games == 0)
        snprintf(buf, len, "off");
    else if (inter || intermediate_points(v->every) > 0)
        snprintf(buf, len, "a point every %g of the budget (%llu games each) and the final values (%llu games)",
                 v->every, (unsigned long long)v->games, (unsigned long long)v->final);
    else
        snprintf(buf, len, "the final values (%llu games)", (unsigned long long)v->final);
    return buf;
}

bool validate_final_taken(const Validation *v, uint64_t total)
{
    return (v->pending && v->due >= total) || (v->done > 0 && v->last_at >= total);
}

int validate_take(Validation *v, const double *values, size_t n, uint64_t games, uint64_t total)
{
    double *nv = malloc((n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    memcpy(nv, values, n * sizeof *nv);
    validate_free(v);
    v->values = nv;
    v->nvalues = n;
    v->pending = true;
    v->at_games = games;
    v->size = games >= total ? v->final : v->games;
    /* the position it was due at: the next point is the one after it, so a point taken late (the one before
     * it still in play) does not skip the next; a point of the final values is the final point */
    uint64_t at, size;
    v->due = games >= total ? total : validate_next_point(v, v->last_at, total, &at, &size) ? at : games;
    v->pairs = v->wins = v->losses = v->draws = 0;
    memset(v->ptnml, 0, sizeof v->ptnml);
    memset(&v->forfeits, 0, sizeof v->forfeits);
    v->inflight = 0;
    v->next = 0;
    memset(&v->lim, 0, sizeof v->lim);
    return 0;
}

uint64_t validate_forfeits(const ValidationForfeits *f)
{
    return f->time_losses + f->crashes + f->illegal + f->stalls;
}

const char *validate_forfeit_text(const ValidationForfeits *f, char *buf, size_t len)
{
    const uint64_t x[4] = { f->time_losses, f->crashes, f->illegal, f->stalls };
    static const char *const one[4] = { "time loss", "crash", "illegal move", "stall" };
    static const char *const many[4] = { "time losses", "crashes", "illegal moves", "stalls" };
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < 4; i++)
        if (x[i])
            n = appendf(buf, len, n, "%s%llu %s", n ? ", " : "", (unsigned long long)x[i], x[i] == 1 ? one[i] : many[i]);
    return buf;
}

void validate_forfeits_add(ValidationForfeits *f, const PairResult *res)
{
    for (int g = 0; g < res->games && g < 2; g++) {
        if (res->term[g] == TERM_TIME)
            f->time_losses++;
        else if (res->term[g] == TERM_CRASH)
            f->crashes++;
        else if (res->term[g] == TERM_ILLEGAL)
            f->illegal++;
        else if (res->term[g] == TERM_STALL)
            f->stalls++;
    }
}

/* The limit words of -validate (the keys -each takes for a limit). */
static const char *const LIMIT_KEYS[] = { "tc", "st", "nodes", "depth", "nodestime", NULL };

int validate_limit_from_conf(Validation *v, const RunConf *conf, const TimeControl *base, char *err, size_t errlen)
{
    v->has_limit = false;
    int argc = 0;
    char **argv = NULL;
    for (const char *const *k = LIMIT_KEYS; *k; k++) {
        const char *val = conf_get(conf, "validate", *k);
        if (!val)
            continue;
        char kv[256];
        snprintf(kv, sizeof kv, "%s=%s", *k, val);
        if ((argc == 0 && conf_argv_push(&argc, &argv, "-each") < 0) || conf_argv_push(&argc, &argv, kv) < 0) {
            conf_free_argv(argc, argv);
            return errmsg(err, errlen, "out of memory");
        }
    }
    if (argc == 0) {
        if (v->pending && v->lim_in_state)
            return errmsg(err, errlen, "run.validation.pending.limit: the pending point has pairs at a user's limit, "
                          "but the run's settings name none (validate.tc=, st=, nodes=, depth=): the state was "
                          "edited or belongs to another run");
        return 0;
    }
    MatchConfig tmp;
    match_config_init(&tmp);
    char e2[512] = "";
    int i = 0, rc = match_parse_option(&tmp, argc, argv, &i, e2, sizeof e2);
    conf_free_argv(argc, argv);
    if (rc != 1) {
        match_config_free(&tmp);
        return errmsg(err, errlen, "validate: %s", rc == 0 ? "bad limit" : e2);
    }
    /* the run's limit with its clock, st=, nodes=, depth= and nodestime= replaced; its margins kept */
    TimeControl t = { 0 };
    if (base)
        t = *base;
    t.base_ms = t.inc_ms = t.movetime_ms = t.nodes = t.nodestime = 0;
    t.moves = t.depth = 0;
    const TimeControl *w = &tmp.each.tc;
    t.base_ms = w->base_ms;
    t.inc_ms = w->inc_ms;
    t.moves = w->moves;
    t.movetime_ms = w->movetime_ms;
    t.nodes = w->nodes;
    t.depth = w->depth;
    t.nodestime = w->nodestime;
    match_config_free(&tmp);
    /* as -each's: a limit without one (tc=inf, nodestime= alone) would send a bare `go` */
    if (base && cli_check_limit(&t, "validate", " (in -validate)", err, errlen) < 0)
        return -1;
    v->limit = t;
    v->has_limit = true;
    tc_format(&t, v->limit_text, sizeof v->limit_text);
    return 0;
}

