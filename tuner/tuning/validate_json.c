/* state.json's run.validation: the schedule's counts and the pending
 * point, written (validate_to_json) and read back with every count checked
 * against the others (validate_from_json); and validate_resolve_last, which
 * completes the state of an older build, which did not record the last
 * point's position, from DIR/validation.csv.  See validate.h. */
#include "validate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"

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

static const char *const FORFEIT_KEYS[4] = { "time_losses", "crashes", "illegal", "stalls" };

bool validate_forfeits_to_json(cJSON *o, const ValidationForfeits *f)
{
    cJSON *j = cJSON_AddObjectToObject(o, "forfeits");
    const uint64_t x[4] = { f->time_losses, f->crashes, f->illegal, f->stalls };
    bool ok = j != NULL;
    for (int i = 0; ok && i < 4; i++)
        ok = cJSON_AddNumberToObject(j, FORFEIT_KEYS[i], (double)x[i]) != NULL;
    return ok;
}

int validate_forfeits_read(const cJSON *o, ValidationForfeits *f, const char **bad)
{
    memset(f, 0, sizeof *f);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "forfeits");
    if (!j)
        return 0;
    uint64_t *dst[4] = { &f->time_losses, &f->crashes, &f->illegal, &f->stalls };
    for (int i = 0; i < 4; i++)
        if (!json_get_u64(j, FORFEIT_KEYS[i], dst[i])) {
            *bad = FORFEIT_KEYS[i];
            return -1;
        }
    return 0;
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
        ok = ok && pt && validate_forfeits_to_json(p, &v->forfeits);
        if (ok && pt && v->has_limit) {
            cJSON *l = cJSON_AddObjectToObject(p, "limit");
            ok = l && cJSON_AddNumberToObject(l, "pairs", (double)v->lim.pairs) &&
                 cJSON_AddNumberToObject(l, "wins", (double)v->lim.wins) &&
                 cJSON_AddNumberToObject(l, "losses", (double)v->lim.losses) &&
                 cJSON_AddNumberToObject(l, "draws", (double)v->lim.draws);
            cJSON *lp = ok ? cJSON_AddArrayToObject(l, "ptnml") : NULL;
            for (int i = 0; lp && i < 5; i++)
                ok = ok && cJSON_AddItemToArray(lp, cJSON_CreateNumber((double)v->lim.ptnml[i]));
            ok = ok && lp && validate_forfeits_to_json(l, &v->lim.forfeits);
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
    const char *bad = "";
    if (validate_forfeits_read(o, f, &bad) < 0)
        return errmsg(err, errlen, "%s: run.validation.%s.forfeits.%s is not a non-negative integer", origin, what,
                      bad);
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

