/* Held-out openings and validation points of a run; see validate.h. */
#include "validate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "elotext.h"
#include "errmsg.h"
#include "jsonget.h"
#include "rd.h"
#include "selbias.h"
#include "stats.h"

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
    uint64_t total = st->cfg.iterations * 2 * (uint64_t)st->cfg.pairs_per;
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

void validate_resolve_last(Validation *v, const char *dir, uint64_t total)
{
    if (v->last_known)
        return;
    v->last_known = true;
    v->last_at = 0;
    if (v->done == 0)
        return;
    ValidationPoint *pts = NULL;
    size_t n = 0;
    char err[512];
    /* an older build's point K was due at K every total (its first budget); taken then or later */
    double at = ceil((double)v->done * v->every * (double)total - 1e-6);
    v->last_at = at > (double)total ? total : (uint64_t)at;
    if (validate_read(dir, &pts, &n, err, sizeof err) == 0 && n >= v->done && pts[v->done - 1].point == v->done &&
        pts[v->done - 1].games < v->last_at)
        v->last_at = pts[v->done - 1].games;
    free(pts);
}

/* "forfeits": { "time_losses", "crashes", "illegal", "stalls" } into o. */
static bool forfeits_to_json(cJSON *o, const ValidationForfeits *f)
{
    cJSON *j = cJSON_AddObjectToObject(o, "forfeits");
    return j && cJSON_AddNumberToObject(j, "time_losses", (double)f->time_losses) &&
           cJSON_AddNumberToObject(j, "crashes", (double)f->crashes) &&
           cJSON_AddNumberToObject(j, "illegal", (double)f->illegal) &&
           cJSON_AddNumberToObject(j, "stalls", (double)f->stalls);
}

cJSON *validate_to_json(const Validation *v, const SpsaState *st)
{
    if (v->holdout == 0 && v->every <= 0)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddNumberToObject(o, "every", v->every) &&
              cJSON_AddNumberToObject(o, "games", (double)v->games) &&
              cJSON_AddNumberToObject(o, "final", (double)v->final) &&
              cJSON_AddNumberToObject(o, "holdout", (double)v->holdout) &&
              cJSON_AddNumberToObject(o, "done", (double)v->done) &&
              cJSON_AddNumberToObject(o, "last", (double)v->last_at) &&
              cJSON_AddNumberToObject(o, "used", (double)v->used);
    if (ok && v->pending) {
        cJSON *p = cJSON_AddObjectToObject(o, "pending");
        ok = p && cJSON_AddNumberToObject(p, "point", (double)(v->done + 1)) &&
             cJSON_AddNumberToObject(p, "at_games", (double)v->at_games) &&
             cJSON_AddNumberToObject(p, "due", (double)v->due) &&
             cJSON_AddNumberToObject(p, "size", (double)v->size) &&
             cJSON_AddNumberToObject(p, "pairs", (double)v->pairs) &&
             cJSON_AddNumberToObject(p, "wins", (double)v->wins) &&
             cJSON_AddNumberToObject(p, "losses", (double)v->losses) &&
             cJSON_AddNumberToObject(p, "draws", (double)v->draws);
        cJSON *pt = ok ? cJSON_AddArrayToObject(p, "ptnml") : NULL;
        for (int i = 0; pt && i < 5; i++)
            ok = ok && cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)v->ptnml[i]));
        ok = ok && pt && forfeits_to_json(p, &v->forfeits);
        if (ok && pt && v->has_limit) {
            cJSON *l = cJSON_AddObjectToObject(p, "limit");
            ok = l && cJSON_AddNumberToObject(l, "pairs", (double)v->lim.pairs) &&
                 cJSON_AddNumberToObject(l, "wins", (double)v->lim.wins) &&
                 cJSON_AddNumberToObject(l, "losses", (double)v->lim.losses) &&
                 cJSON_AddNumberToObject(l, "draws", (double)v->lim.draws);
            cJSON *lp = ok ? cJSON_AddArrayToObject(l, "ptnml") : NULL;
            for (int i = 0; lp && i < 5; i++)
                ok = ok && cJSON_AddItemToArray(lp, cJSON_CreateNumber((double)v->lim.ptnml[i]));
            ok = ok && lp && forfeits_to_json(l, &v->lim.forfeits);
        }
        cJSON *vals = ok && pt ? cJSON_AddObjectToObject(p, "values") : NULL;
        ok = ok && vals;
        for (size_t i = 0; ok && i < v->nvalues && i < st->nparams; i++)
            ok = cJSON_AddNumberToObject(vals, st->params[i].name, v->values[i]) != NULL;
    }
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

static int count_of(const cJSON *o, const char *key, uint64_t *out, const char *origin, char *err, size_t errlen)
{
    char what[PATH_MAX + 32];
    snprintf(what, sizeof what, "%s: run.validation.", origin);
    return json_get_count(o, key, out, what, err, errlen);
}

/* o's "forfeits" into *f (absent, in states of older builds: none), at most
 * the `games` of its leg; `what` names o in messages. */
static int forfeits_from_json(const cJSON *o, ValidationForfeits *f, uint64_t games, const char *what,
                              const char *origin, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "forfeits");
    if (!j)
        return 0;
    static const char *const KEYS[4] = { "time_losses", "crashes", "illegal", "stalls" };
    uint64_t *dst[4] = { &f->time_losses, &f->crashes, &f->illegal, &f->stalls };
    for (int i = 0; i < 4; i++)
        if (!json_get_u64(j, KEYS[i], dst[i]))
            return errmsg(err, errlen, "%s: run.validation.%s.forfeits.%s is not a non-negative integer", origin,
                          what, KEYS[i]);
    if (f->time_losses > games || f->crashes > games || f->illegal > games || f->stalls > games ||
        validate_forfeits(f) > games)
        return errmsg(err, errlen, "%s: run.validation.%s.forfeits count %llu games, more than its %llu", origin,
                      what, (unsigned long long)validate_forfeits(f), (unsigned long long)games);
    return 0;
}

int validate_from_json(Validation *v, const cJSON *j, const SpsaState *st, const char *origin, char *err,
                       size_t errlen)
{
    validate_free(v);
    memset(v, 0, sizeof *v);
    if (!j)
        return 0;
    /* 0 (no points) or what -validate every= takes: a finer schedule has 1/every points to count */
    const cJSON *every = cJSON_GetObjectItemCaseSensitive(j, "every");
    if (!cJSON_IsNumber(every))
        return errmsg(err, errlen, "%s: run.validation.every is missing or not a number", origin);
    if (!(every->valuedouble >= 0) || every->valuedouble > 1 ||
        (every->valuedouble > 0 && every->valuedouble < VALIDATE_MIN_EVERY))
        return errmsg(err, errlen, "%s: run.validation.every=%g: must be 0 (no validation) or a fraction of the "
                      "budget in [%g, 1]", origin, every->valuedouble, VALIDATE_MIN_EVERY);
    v->every = every->valuedouble;
    if (count_of(j, "games", &v->games, origin, err, errlen) < 0 ||
        count_of(j, "holdout", &v->holdout, origin, err, errlen) < 0 ||
        count_of(j, "done", &v->done, origin, err, errlen) < 0)
        return -1;
    /* Absent in states of older builds: points of `games` each, the last one's games read from
     * validation.csv (validate_resolve_last). */
    v->final = v->games;
    v->used = v->done * (v->games / 2);
    if ((cJSON_GetObjectItemCaseSensitive(j, "final") && count_of(j, "final", &v->final, origin, err, errlen) < 0) ||
        (cJSON_GetObjectItemCaseSensitive(j, "used") && count_of(j, "used", &v->used, origin, err, errlen) < 0))
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(j, "last")) {
        if (count_of(j, "last", &v->last_at, origin, err, errlen) < 0)
            return -1;
        v->last_known = true;
    }
    if (v->games > 0 && (v->final == 0 || v->final % 2 || v->games % 2)) {
        errmsg(err, errlen, "%s: run.validation: games %llu and final %llu must be even and not 0", origin,
               (unsigned long long)v->games, (unsigned long long)v->final);
        return -1;
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pending");
    if (!p)
        return 0;
    v->size = v->games;
    if (cJSON_GetObjectItemCaseSensitive(p, "size") && count_of(p, "size", &v->size, origin, err, errlen) < 0)
        return -1;
    /* a point of no games hands out no pair and is never recorded: a resume would wait for it for ever */
    if (v->size == 0 || v->size % 2)
        return errmsg(err, errlen, "%s: run.validation.pending.size is %llu games%s: a point plays whole game pairs, "
                      "at least one (edit or remove run.validation.pending)", origin, (unsigned long long)v->size,
                      cJSON_GetObjectItemCaseSensitive(p, "size") ? "" : " (absent: the points' games)");
    /* absent in states of older builds: the games at which the point was taken */
    v->due = UINT64_MAX;
    if (cJSON_GetObjectItemCaseSensitive(p, "due") && count_of(p, "due", &v->due, origin, err, errlen) < 0)
        return -1;
    uint64_t point;
    if (count_of(p, "point", &point, origin, err, errlen) < 0 || count_of(p, "at_games", &v->at_games, origin, err, errlen) < 0 ||
        count_of(p, "pairs", &v->pairs, origin, err, errlen) < 0 || count_of(p, "wins", &v->wins, origin, err, errlen) < 0 ||
        count_of(p, "losses", &v->losses, origin, err, errlen) < 0 ||
        count_of(p, "draws", &v->draws, origin, err, errlen) < 0)
        return -1;
    if (v->due == UINT64_MAX || v->due > v->at_games)
        v->due = v->at_games;
    if (point != v->done + 1 || 2 * v->pairs > v->size || v->wins + v->losses + v->draws != 2 * v->pairs) {
        errmsg(err, errlen, "%s: run.validation.pending: point %llu with %llu pairs (+%llu -%llu =%llu) does not "
               "follow %llu done points, or exceeds its %llu games", origin, (unsigned long long)point,
               (unsigned long long)v->pairs, (unsigned long long)v->wins, (unsigned long long)v->losses,
               (unsigned long long)v->draws, (unsigned long long)v->done, (unsigned long long)v->size);
        return -1;
    }
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(p, "ptnml");
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++) {
        if (cJSON_GetArraySize(pt) != 5 || !json_count(cJSON_GetArrayItem(pt, i), &v->ptnml[i])) {
            errmsg(err, errlen, "%s: run.validation.pending.ptnml must hold 5 counts", origin);
            return -1;
        }
        sum += v->ptnml[i];
    }
    if (sum != v->pairs) {
        errmsg(err, errlen, "%s: run.validation.pending.ptnml counts %llu pairs, not %llu", origin,
               (unsigned long long)sum, (unsigned long long)v->pairs);
        return -1;
    }
    if (forfeits_from_json(p, &v->forfeits, 2 * v->pairs, "pending", origin, err, errlen) < 0)
        return -1;
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values");
    v->values = calloc(st->nparams + 1, sizeof *v->values);
    if (!v->values) {
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    v->nvalues = st->nparams;
    for (size_t i = 0; i < st->nparams; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(vals, st->params[i].name);
        if (!cJSON_IsNumber(x)) {
            errmsg(err, errlen, "%s: run.validation.pending.values has no number for '%s'", origin,
                   st->params[i].name);
            return -1;
        }
        v->values[i] = x->valuedouble;
    }
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "limit");
    v->lim_in_state = l != NULL;
    if (l) {
        const cJSON *lp = cJSON_GetObjectItemCaseSensitive(l, "ptnml");
        uint64_t lsum = 0;
        if (count_of(l, "pairs", &v->lim.pairs, origin, err, errlen) < 0 ||
            count_of(l, "wins", &v->lim.wins, origin, err, errlen) < 0 ||
            count_of(l, "losses", &v->lim.losses, origin, err, errlen) < 0 ||
            count_of(l, "draws", &v->lim.draws, origin, err, errlen) < 0)
            return -1;
        for (int i = 0; i < 5; i++) {
            if (cJSON_GetArraySize(lp) != 5 || !json_count(cJSON_GetArrayItem(lp, i), &v->lim.ptnml[i])) {
                errmsg(err, errlen, "%s: run.validation.pending.limit.ptnml must hold 5 counts", origin);
                return -1;
            }
            lsum += v->lim.ptnml[i];
        }
        if (lsum != v->lim.pairs || 2 * v->lim.pairs > v->size ||
            v->lim.wins + v->lim.losses + v->lim.draws != 2 * v->lim.pairs) {
            errmsg(err, errlen, "%s: run.validation.pending.limit: %llu pairs (+%llu -%llu =%llu, ptnml %llu) do not "
                   "add up or exceed the point's %llu games", origin, (unsigned long long)v->lim.pairs,
                   (unsigned long long)v->lim.wins, (unsigned long long)v->lim.losses,
                   (unsigned long long)v->lim.draws, (unsigned long long)lsum, (unsigned long long)v->size);
            return -1;
        }
        if (forfeits_from_json(l, &v->lim.forfeits, 2 * v->lim.pairs, "pending.limit", origin, err, errlen) < 0)
            return -1;
        v->lim.next = v->lim.pairs;
    }
    if (v->size > 0 && 2 * v->pairs >= v->size && (!l || 2 * v->lim.pairs >= v->size)) {
        /* validate_record counts a point when its last pair ends (at the user's limit too, when it has
         * one), before the state is saved */
        errmsg(err, errlen, "%s: run.validation.pending: point %llu holds %llu pairs, all of its %llu games%s, but "
               "was never recorded: this state was not written by a run (edit or remove run.validation.pending)",
               origin, (unsigned long long)point, (unsigned long long)v->pairs, (unsigned long long)v->size,
               l ? ", at both limits" : "");
        return -1;
    }
    v->pending = true;
    v->next = v->pairs;
    return 0;
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

/* The header, and that of the files of older builds (its first 13 columns: no forfeits). */
static const char HEADER[] = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws,time_losses,crashes,"
                             "illegal,stalls\n";
static const char OLD_HEADER[] = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n";

/* p as a row: all 17 columns, or the first 13 (old: a file of an older build). */
static int format_row(char *buf, size_t len, const ValidationPoint *p, bool old)
{
    int n = snprintf(buf, len, "%llu,%llu,%llu,%.2f,%.2f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
                     (unsigned long long)p->point, (unsigned long long)p->games, (unsigned long long)p->pairs,
                     p->elo, p->elo_err, (unsigned long long)p->ptnml[0], (unsigned long long)p->ptnml[1],
                     (unsigned long long)p->ptnml[2], (unsigned long long)p->ptnml[3],
                     (unsigned long long)p->ptnml[4], (unsigned long long)p->wins, (unsigned long long)p->losses,
                     (unsigned long long)p->draws);
    if (n < 0)
        return n;
    const ValidationForfeits *f = &p->forfeits;
    size_t used = (size_t)n < len ? (size_t)n : len;
    int m = old ? snprintf(buf ? buf + used : NULL, len - used, "\n")
                : snprintf(buf ? buf + used : NULL, len - used, ",%llu,%llu,%llu,%llu\n",
                           (unsigned long long)f->time_losses, (unsigned long long)f->crashes,
                           (unsigned long long)f->illegal, (unsigned long long)f->stalls);
    return m < 0 ? m : n + m;
}

/* A finished point's row: its counts, and its Elo from them.  Every pair in
 * one category has no interval: its error is written as inf (as is the Elo
 * of a point that scored 0 or 100%). */
static ValidationPoint point_row(uint64_t point, uint64_t games, uint64_t pairs, uint64_t wins, uint64_t losses,
                                 uint64_t draws, const uint64_t ptnml[5], const ValidationForfeits *forfeits)
{
    ValidationPoint p = { .point = point, .games = games, .pairs = pairs, .wins = wins, .losses = losses,
                          .draws = draws, .forfeits = *forfeits };
    memcpy(p.ptnml, ptnml, sizeof p.ptnml);
    EloEstimate e;
    bool interval = stats_from_ptnml(p.ptnml, &e) == 0;
    p.elo = e.elo;
    p.elo_err = interval || pairs == 0 ? e.elo_err : INFINITY;
    return p;
}

static int read_rows(const char *dir, const char *name, ValidationPoint **pts, size_t *n, bool *old, char *err,
                     size_t errlen);
static char *format_rows(const ValidationPoint *pts, size_t n, bool old, size_t *len);

/* Whether the file at path starts with the header of an older build's (13 columns). */
static bool old_columns(const char *path)
{
    size_t len;
    char err[8];
    char *text = rd_read_file(path, &len, err, sizeof err);
    bool old = text && !strncmp(text, OLD_HEADER, sizeof OLD_HEADER - 1);
    free(text);
    return old;
}

/* An older build's DIR/NAME (13 columns) with p after its rows, all of
 * them in 17 columns (no forfeits in the old ones), replaced atomically. */
static int append_upgrading(const char *dir, const char *name, const char *path, const ValidationPoint *p, char *err,
                            size_t errlen)
{
    ValidationPoint *pts;
    size_t n;
    if (read_rows(dir, name, &pts, &n, NULL, err, errlen) < 0)
        return -1;
    ValidationPoint *np = realloc(pts, (n + 1) * sizeof *np);
    if (!np) {
        free(pts);
        return errmsg(err, errlen, "%s: out of memory", path);
    }
    np[n++] = *p;
    size_t len;
    char *text = format_rows(np, n, false, &len);
    int rc = text ? rd_write_atomic(path, text, len, err, errlen) : errmsg(err, errlen, "%s: out of memory", path);
    free(text);
    free(np);
    return rc;
}

/* p appended to DIR/NAME (the header first in a new file) and synced; the
 * file opened without following a link, and only if regular.  A file of an
 * older build's columns is rewritten with all of them (append_upgrading). */
static int append_row(const char *dir, const char *name, const ValidationPoint *p, char *err, size_t errlen)
{
    char path[PATH_MAX + 32], row[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = rd_open_append(path, true, err, errlen);
    if (fd < 0)
        return -1;
    off_t end = lseek(fd, 0, SEEK_END);
    if (end > 0 && old_columns(path)) {
        close(fd);
        return append_upgrading(dir, name, path, p, err, errlen);
    }
    int n = format_row(row, sizeof row, p, false);
    bool ok = end >= 0 && (end > 0 || write(fd, HEADER, sizeof HEADER - 1) == (ssize_t)(sizeof HEADER - 1)) &&
              n > 0 && (size_t)n < sizeof row && write(fd, row, (size_t)n) == n && fsync(fd) == 0;
    int saved = errno;
    close(fd);
    if (!ok)
        return errmsg(err, errlen, "%s: cannot append the validation point: %s", path, strerror(saved));
    return 0;
}

int validate_record(Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen)
{
    ValidationPoint p = point_row(v->done + 1, v->at_games, v->pairs, v->wins, v->losses, v->draws, v->ptnml,
                                  &v->forfeits);
    if (append_row(dir, VALIDATION_FILE, &p, err, errlen) < 0)
        return -1;
    v->done++;
    v->last_at = v->due;
    v->last_known = true;
    v->used += v->pairs;
    v->pending = false;
    memset(&v->forfeits, 0, sizeof v->forfeits);
    memset(&v->lim, 0, sizeof v->lim);
    validate_free(v);
    if (out)
        *out = p;
    return 0;
}

/* A count field: digits only (no sign), at most 2^53 (what state.json's numbers hold exactly). */
static bool parse_count(const char *f, uint64_t *out)
{
    if (!*f || strspn(f, "0123456789") != strlen(f) || strlen(f) > 16)
        return false;
    unsigned long long u = strtoull(f, NULL, 10);
    if (u > 9007199254740992ULL)
        return false;
    *out = u;
    return true;
}

/* An Elo or its error as validate_record writes it: finite and within
 * VALIDATION_MAX_ELO, or inf / nan (a point without an interval). */
static bool parse_elo(const char *f, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(f, &end);
    if (end == f || *end != '\0' || (isfinite(x) && fabs(x) > VALIDATION_MAX_ELO))
        return false;
    *out = x;
    return true;
}

/* One row into *p: 17 fields, or the 13 of an older build's (no
 * forfeits), counts that agree with each other (wins, losses and draws make
 * 2 * pairs games, the pentanomial counts make pairs, the forfeits are some
 * of the games).  NULL, or what is wrong with it. */
static const char *parse_row(const char *line, ValidationPoint *p)
{
    char buf[1024];
    size_t n = strcspn(line, "\r\n");
    if (n >= sizeof buf)
        return "the row is too long";
    memcpy(buf, line, n);
    buf[n] = '\0';
    char *fld[18];
    int nf = 0;
    for (char *s = buf; nf < 18;) {
        fld[nf++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    if (nf != 13 && nf != 17)
        return "not 17 fields (nor the 13 of an older build)";
    uint64_t u[15] = { 0 };
    static const int count_fields[15] = { 0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    for (int i = 0; i < 15 && count_fields[i] < nf; i++)
        if (!parse_count(fld[count_fields[i]], &u[i]))
            return "a count that is not a whole number from 0 to 2^53";
    double elo, err;
    if (!parse_elo(fld[3], &elo) || !parse_elo(fld[4], &err) || err < 0)
        return "an Elo or error that is not a number within +/-1e6, inf or nan";
    *p = (ValidationPoint){ .point = u[0], .games = u[1], .pairs = u[2], .elo = elo, .elo_err = err,
                            .ptnml = { u[3], u[4], u[5], u[6], u[7] }, .wins = u[8], .losses = u[9], .draws = u[10],
                            .forfeits = { .time_losses = u[11], .crashes = u[12], .illegal = u[13], .stalls = u[14] } };
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++)
        sum += p->ptnml[i];
    if (p->point == 0 || sum != p->pairs || p->wins + p->losses + p->draws != 2 * p->pairs ||
        validate_forfeits(&p->forfeits) > 2 * p->pairs)
        return "counts that do not agree (wins + losses + draws must be 2 * pairs, the pentanomial counts pairs, the "
               "forfeits at most 2 * pairs)";
    return NULL;
}

int validate_parse(const char *text, const char *path, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    *pts = NULL;
    *n = 0;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        const char *next = nl ? nl + 1 : line + strlen(line);
        lineno++;
        const char *bad = NULL;
        ValidationPoint p;
        if ((lineno == 1 && strncmp(line, "point,", 6) == 0) || *line == '\n' || (line[0] == '\r' && line[1] == '\n')) {
            line = next;
            continue;
        }
        char row[1024];
        size_t len = (size_t)(next - line);
        if (len >= sizeof row) {
            bad = "the row is too long";
        } else {
            memcpy(row, line, len);
            row[len] = '\0';
            bad = parse_row(row, &p);
        }
        if (!bad && *n > 0 && p.point <= (*pts)[*n - 1].point)
            bad = "its point does not follow the row before";
        if (bad) {
            errmsg(err, errlen, "%s:%d: not a validation row: %s (expected %.*s)", path, lineno, bad,
                   (int)sizeof HEADER - 2, HEADER);
            rc = -1;
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            ValidationPoint *np = realloc(*pts, cap * sizeof *np);
            if (!np) {
                errmsg(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            *pts = np;
        }
        (*pts)[(*n)++] = p;
        line = next;
    }
    if (rc < 0) {
        free(*pts);
        *pts = NULL;
        *n = 0;
    }
    return rc;
}

/* DIR/NAME's rows (validate_parse); no file: none.  *old (when given):
 * whether the file has an older build's header (13 columns). */
static int read_rows(const char *dir, const char *name, ValidationPoint **pts, size_t *n, bool *old, char *err,
                     size_t errlen)
{
    *pts = NULL;
    *n = 0;
    if (old)
        *old = false;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = rd_read_file(path, &len, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    int rc = strlen(text) != len ? errmsg(err, errlen, "%s: a NUL byte: not a validation file", path)
                                 : validate_parse(text, path, pts, n, err, errlen);
    if (old)
        *old = !strncmp(text, OLD_HEADER, sizeof OLD_HEADER - 1);
    free(text);
    return rc;
}

int validate_read(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    return read_rows(dir, VALIDATION_FILE, pts, n, NULL, err, errlen);
}

/* validate_format, or in an older build's 13 columns (old). */
static char *format_rows(const ValidationPoint *pts, size_t n, bool old, size_t *len)
{
    /* the buffer holds what the rows print, measured first */
    size_t cap = sizeof HEADER;
    for (size_t i = 0; i < n; i++) {
        int w = format_row(NULL, 0, &pts[i], old);
        if (w < 0)
            return NULL;
        cap += (size_t)w;
    }
    char *text = malloc(cap);
    if (!text)
        return NULL;
    *len = (size_t)snprintf(text, cap, "%s", old ? OLD_HEADER : HEADER);
    for (size_t i = 0; i < n; i++) {
        int w = format_row(text + *len, cap - *len, &pts[i], old);
        if (w < 0 || (size_t)w >= cap - *len) {
            free(text);
            return NULL;
        }
        *len += (size_t)w;
    }
    return text;
}

char *validate_format(const ValidationPoint *pts, size_t n, size_t *len)
{
    return format_rows(pts, n, false, len);
}

/* DIR/NAME cut to the rows of the points the state counts (a row beyond
 * them: a kill between its append and the state's save), replaced
 * atomically in the columns it had; untouched when nothing goes. */
static int trim_rows(const Validation *v, const char *dir, const char *name, char *err, size_t errlen)
{
    ValidationPoint *pts;
    size_t n;
    bool old;
    if (read_rows(dir, name, &pts, &n, &old, err, errlen) < 0)
        return -1;
    size_t keep = 0;
    while (keep < n && pts[keep].point <= v->done)
        keep++;
    int rc = 0;
    if (keep < n) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t len;
        char *text = format_rows(pts, keep, old, &len);
        rc = text ? rd_write_atomic(path, text, len, err, errlen) : errmsg(err, errlen, "%s: out of memory", path);
        free(text);
    }
    free(pts);
    return rc;
}

int validate_trim(const Validation *v, const char *dir, char *err, size_t errlen)
{
    return trim_rows(v, dir, VALIDATION_FILE, err, errlen);
}

const char *validate_event(const Validation *v, const char *run, uint64_t point, bool at_limit, char *buf,
                           size_t len)
{
    char mark[64] = "";
    if (run && run[0])
        snprintf(mark, sizeof mark, " (the run created %.40s)", run);
    if (at_limit)
        snprintf(buf, len, "ratchet-tune validation point %llu at %.40s: snapshot %llu against the start values%s",
                 (unsigned long long)point, v->limit_text, (unsigned long long)point, mark);
    else
        snprintf(buf, len, "ratchet-tune validation point %llu: %s/%llu.json against the start values%s",
                 (unsigned long long)point, SNAPSHOT_DIR, (unsigned long long)point, mark);
    return buf;
}

typedef struct {
    size_t start, end;          /* the game's bytes */
    uint64_t point, pair;       /* its Round P.J; point 0: not one of this run's validation games */
    bool limit;                 /* a game at the user's limit */
    bool keep;
} PgnGame;

/* Whether the tag line `line` (len bytes) is [NAME "value"]. */
static bool tag_is(const char *line, size_t len, const char *name, const char *value)
{
    size_t n = strlen(name), m = strlen(value);
    return len == n + m + 5 && line[0] == '[' && !strncmp(line + 1, name, n) && line[n + 1] == ' ' &&
           line[n + 2] == '"' && !strncmp(line + n + 3, value, m) && line[n + 3 + m] == '"' && line[len - 1] == ']';
}

/* Whether the game text[0..n) (its header ends at the first blank line) is
 * one of this run's validation games (validate_trim_pgn): *point, *pair
 * from its Round P.J, *limit whether it was played at the user's limit;
 * *point 0 when it is not. */
static void game_round(const Validation *v, const char *run, const char *text, size_t n, uint64_t *point,
                       uint64_t *pair, bool *limit)
{
    *point = *pair = 0;
    *limit = false;
    const char *event = NULL, *white = NULL, *black = NULL;
    size_t elen = 0, wlen = 0, blen = 0;
    unsigned long long p = 0, j = 0;
    for (size_t i = 0; i < n;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', n - i);
        size_t len = nl ? (size_t)(nl - line) : n - i;
        if (len == 0)
            break; /* the movetext */
        char close;
        if (len > 8 && !strncmp(line, "[Round \"", 8)) {
            if (sscanf(line + 8, "%llu.%llu%c", &p, &j, &close) != 3 || close != '"')
                p = 0;
        } else if (!strncmp(line, "[Event ", 7)) {
            event = line;
            elen = len;
        } else if (!strncmp(line, "[White ", 7)) {
            white = line;
            wlen = len;
        } else if (!strncmp(line, "[Black ", 7)) {
            black = line;
            blen = len;
        }
        i += len + 1;
    }
    if (p == 0 || !event || !white || !black)
        return;
    char snap[32], want[PAIR_JOB_EVENT];
    snprintf(snap, sizeof snap, "snapshot %llu", p);
    bool players = (tag_is(white, wlen, "White", snap) && tag_is(black, blen, "Black", "start")) ||
                   (tag_is(white, wlen, "White", "start") && tag_is(black, blen, "Black", snap));
    bool tuning = players && tag_is(event, elen, "Event", validate_event(v, run, p, false, want, sizeof want));
    bool at_limit = players && !tuning && v->has_limit &&
                    tag_is(event, elen, "Event", validate_event(v, run, p, true, want, sizeof want));
    if (tuning || at_limit) {
        *point = p;
        *pair = j;
        *limit = at_limit;
    }
}

/* A validation game's place in the sort by point, leg, Round and place in
 * the file; a whole pair of them (its games: indices into the games). */
typedef struct {
    uint64_t point, pair;
    bool limit;
    size_t first, second; /* a game: first is its index; a pair: its games, second the one that ended it */
} PgnRound;

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static bool same_round(const PgnRound *a, const PgnRound *b)
{
    return a->point == b->point && a->limit == b->limit && a->pair == b->pair;
}

static int by_round(const void *a, const void *b)
{
    const PgnRound *x = a, *y = b;
    int c = cmp_u64(x->point, y->point);
    c = c ? c : cmp_u64(x->limit, y->limit);
    c = c ? c : cmp_u64(x->pair, y->pair);
    return c ? c : cmp_u64(x->first, y->first);
}

static int by_end(const void *a, const void *b)
{
    const PgnRound *x = a, *y = b;
    int c = cmp_u64(x->point, y->point);
    c = c ? c : cmp_u64(x->limit, y->limit);
    return c ? c : cmp_u64(x->second, y->second);
}

/* The pairs of point p's row in pts[0..n) (rows in point order); false when it has none. */
static bool row_pairs(const ValidationPoint *pts, size_t n, uint64_t p, uint64_t *pairs)
{
    for (size_t i = 0; i < n && pts[i].point <= p; i++)
        if (pts[i].point == p) {
            *pairs = pts[i].pairs;
            return true;
        }
    return false;
}

/* The whole pairs of a point's leg that the state counts: a recorded
 * point's, those of its row (of validation.csv, or of validation-limit.csv
 * for the leg at the user's limit; all of them when the row is missing, so
 * that nothing counted goes); the pending point's, those it counts; none of
 * a later point. */
static uint64_t pgn_quota(const Validation *v, uint64_t point, bool limit, const ValidationPoint *rows, size_t nrows,
                          const ValidationPoint *lrows, size_t nlrows)
{
    uint64_t q;
    if (point <= v->done)
        return row_pairs(limit ? lrows : rows, limit ? nlrows : nrows, point, &q) ? q : UINT64_MAX;
    if (point == v->done + 1 && v->pending)
        return limit ? v->lim.pairs : v->pairs;
    return 0;
}

int validate_trim_pgn(const Validation *v, const char *dir, const char *run, const char *pgn, PgnTrim *out,
                      char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!pgn || !pgn[0])
        return 0;
    size_t n;
    char *text = rd_read_file(pgn, &n, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    ValidationPoint *rows = NULL, *lrows = NULL;
    size_t nrows = 0, nlrows = 0;
    if (validate_read(dir, &rows, &nrows, err, errlen) < 0 || validate_read_limit(dir, &lrows, &nlrows, err, errlen) < 0) {
        free(rows);
        free(text);
        return -1;
    }
    /* the games: each starts with [Event at the start of the file or after a blank line */
    PgnGame *g = NULL;
    size_t ng = 0, cap = 0, nval = 0;
    int rc = -1;
    PgnRound *val = NULL, *pairs = NULL;
    for (size_t i = 0; i < n;) {
        const char *next = strstr(text + i + 1, "\n\n[Event \"");
        size_t end = next ? (size_t)(next + 2 - text) : n;
        if (ng == cap) {
            cap = cap ? 2 * cap : 256;
            PgnGame *ngs = realloc(g, cap * sizeof *ngs);
            if (!ngs)
                goto oom;
            g = ngs;
        }
        g[ng] = (PgnGame){ .start = i, .end = end, .keep = true };
        game_round(v, run, text + i, end - i, &g[ng].point, &g[ng].pair, &g[ng].limit);
        nval += g[ng].point != 0;
        ng++;
        i = end;
    }
    /* The validation games by point, leg and Round: a Round's last two
     * games are its pair (an earlier one is of a pair cut short); the pairs
     * of each point's leg in the order they ended, up to its quota. */
    val = malloc((nval + 1) * sizeof *val);
    pairs = malloc((nval / 2 + 1) * sizeof *pairs);
    if (!val || !pairs)
        goto oom;
    size_t k = 0, np = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].point) {
            g[i].keep = false;
            val[k++] = (PgnRound){ .point = g[i].point, .pair = g[i].pair, .limit = g[i].limit, .first = i };
        }
    qsort(val, nval, sizeof *val, by_round);
    for (size_t i = 0; i + 1 < nval; i++)
        if (same_round(&val[i], &val[i + 1]) && (i + 2 == nval || !same_round(&val[i + 1], &val[i + 2]))) {
            pairs[np] = val[i];
            pairs[np++].second = val[i + 1].first;
        }
    qsort(pairs, np, sizeof *pairs, by_end);
    uint64_t kept = 0;
    for (size_t i = 0; i < np; i++) {
        const PgnRound *q = &pairs[i];
        if (i == 0 || q->point != pairs[i - 1].point || q->limit != pairs[i - 1].limit)
            kept = 0;
        if (kept >= pgn_quota(v, q->point, q->limit, rows, nrows, lrows, nlrows))
            continue;
        kept++;
        g[q->first].keep = g[q->second].keep = true;
        if (q->point == v->done + 1 && !q->limit && q->pair > out->last_pair)
            out->last_pair = q->pair;
        if (q->point == v->done + 1 && q->limit && q->pair > v->size / 2 && q->pair - v->size / 2 > out->last_lim_pair)
            out->last_lim_pair = q->pair - v->size / 2;
    }
    size_t len = 0;
    for (size_t i = 0; i < ng; i++) {
        if (!g[i].keep) {
            out->dropped++;
            continue;
        }
        memmove(text + len, text + g[i].start, g[i].end - g[i].start);
        len += g[i].end - g[i].start;
    }
    rc = out->dropped ? rd_write_atomic(pgn, text, len, err, errlen) : 0;
    goto done;
oom:
    rc = errmsg(err, errlen, "%s: out of memory", pgn);
done:
    free(pairs);
    free(val);
    free(g);
    free(rows);
    free(lrows);
    free(text);
    return rc;
}

const char *validate_elo_text(const ValidationPoint *p, char *buf, size_t len)
{
    if (elo_has_interval(p->elo, p->elo_err)) {
        snprintf(buf, len, "%+.1f +/- %.1f Elo", p->elo, p->elo_err);
    } else {
        char na[160];
        snprintf(buf, len, "Elo %s", elo_na_text(na, sizeof na, p->ptnml, p->wins, p->losses, p->draws));
    }
    return buf;
}

/* A point's rank for validate_best: with an interval above without one,
 * then the Elo; a non-finite Elo ranks last. */
static int best_class(const ValidationPoint *p)
{
    return elo_has_interval(p->elo, p->elo_err) ? 2 : isfinite(p->elo) ? 1 : 0;
}

size_t validate_best(const ValidationPoint *pts, size_t n)
{
    size_t b = n - 1;
    for (size_t i = 0; i < n; i++) {
        int ci = best_class(&pts[i]), cb = best_class(&pts[b]);
        if (ci > cb || (ci == cb && ci > 0 && pts[i].elo > pts[b].elo))
            b = i;
    }
    return b;
}

double validate_selection_bias(const ValidationPoint *pts, size_t n)
{
    if (n == 0)
        return 0;
    size_t best = validate_best(pts, n);
    double *s = malloc((n + 1) * sizeof *s);
    size_t k = 0, b = n;
    for (size_t i = 0; s && i < n; i++)
        if (elo_has_interval(pts[i].elo, pts[i].elo_err) && pts[i].elo_err > 0) {
            if (i == best)
                b = k;
            s[k++] = pts[i].elo_err / 1.959963984540054;
        }
    double bias = 0;
    if (!s)
        bias = NAN;
    else if (k >= 2 && b == n)
        bias = NAN; /* the best point has no interval: nothing to condition on */
    else if (k >= 2)
        bias = selbias_best(s, k, b);
    free(s);
    return bias;
}

/* ---- the user's limit: DIR/validation-limit.csv ---------------------------------------
 * The same rows as validation.csv, in a file of their own, so that the
 * rows a reader of validation.csv expects are unchanged. */

int validate_record_limit(const Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen)
{
    ValidationPoint p = point_row(v->done + 1, v->at_games, v->lim.pairs, v->lim.wins, v->lim.losses, v->lim.draws,
                                  v->lim.ptnml, &v->lim.forfeits);
    if (append_row(dir, VALIDATION_LIMIT_FILE, &p, err, errlen) < 0)
        return -1;
    if (out)
        *out = p;
    return 0;
}

int validate_read_limit(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    return read_rows(dir, VALIDATION_LIMIT_FILE, pts, n, NULL, err, errlen);
}

int validate_trim_limit(const Validation *v, const char *dir, char *err, size_t errlen)
{
    return trim_rows(v, dir, VALIDATION_LIMIT_FILE, err, errlen);
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

