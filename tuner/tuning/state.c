/* state.json of a run; see state.h. */
#include "state.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"
#include "rd.h"
#include "spec.h"
#include "spsa_state_json.h"

#define STATE_VERSION 1

/* The counters of a run.partial entry (PartialBatch), in its order. */
static const char *const PARTIAL_FIELDS[] = { "k", "pairs", "wins", "losses", "draws", "time_losses", "crashes",
                                               "illegal" };
const char *const runstate_engine_counts[ENG_NCOUNTS] = { "time_losses", "crashes", "illegal", "restarts" };

void runstate_init(RunState *rs)
{
    memset(rs, 0, sizeof *rs);
    conf_init(&rs->conf);
}

void runstate_free(RunState *rs)
{
    conf_free(&rs->conf);
    spsa_free(&rs->spsa);
    free(rs->fixed);
    free(rs->order);
    free(rs->to_spin);
    free(rs->partial);
    validate_free(&rs->val);
    memset(rs, 0, sizeof *rs);
}

/* o.per_engine = { "time_losses": [+, -], ... }; NULL when out of memory. */
static cJSON *add_per_engine(cJSON *o, const uint64_t counts[ENG_NCOUNTS][2])
{
    cJSON *pe = cJSON_AddObjectToObject(o, "per_engine");
    for (int c = 0; pe && c < ENG_NCOUNTS; c++) {
        cJSON *a = cJSON_AddArrayToObject(pe, runstate_engine_counts[c]);
        if (!a || !cJSON_AddItemToArray(a, cJSON_CreateNumber((double)counts[c][0])) ||
            !cJSON_AddItemToArray(a, cJSON_CreateNumber((double)counts[c][1])))
            return NULL;
    }
    return pe;
}

/* A kept partial batch's per-engine counts add up to its totals. */
static bool partial_counts_whole(const PartialBatch *pb)
{
    const uint64_t total[ENG_RESTARTS] = { [ENG_TIME_LOSSES] = pb->time_losses, [ENG_CRASHES] = pb->crashes,
                                           [ENG_ILLEGAL] = pb->illegal };
    for (int c = 0; c < ENG_RESTARTS; c++)
        if (pb->per_engine[c][0] + pb->per_engine[c][1] != total[c])
            return false;
    return true;
}

cJSON *runstate_to_json(const RunState *rs)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = cJSON_AddNumberToObject(o, "version", STATE_VERSION) &&
              cJSON_AddStringToObject(o, "created", rs->created) &&
              cJSON_AddStringToObject(o, "updated", rs->updated);
    cJSON *conf = ok ? conf_to_json(&rs->conf) : NULL;
    ok = conf && cJSON_AddItemToObject(o, "config", conf);
    if (!ok)
        cJSON_Delete(conf);
    cJSON *spsa = ok ? spsa_state_to_json(&rs->spsa) : NULL;
    ok = spsa && cJSON_AddItemToObject(o, "spsa", spsa);
    if (!ok)
        cJSON_Delete(spsa);
    cJSON *run = ok ? cJSON_AddObjectToObject(o, "run") : NULL;
    ok = run && cJSON_AddNumberToObject(run, "games", (double)rs->games);
    cJSON *ptnml = ok ? cJSON_AddArrayToObject(run, "ptnml") : NULL;
    ok = ptnml != NULL;
    for (int i = 0; ok && i < 5; i++)
        ok = cJSON_AddItemToArray(ptnml, cJSON_CreateNumber((double)rs->ptnml[i]));
    ok = ok && cJSON_AddNumberToObject(run, "pairs_issued", (double)rs->pairs_issued) &&
         cJSON_AddNumberToObject(run, "time_losses", (double)rs->time_losses) &&
         cJSON_AddNumberToObject(run, "crashes", (double)rs->crashes) &&
         cJSON_AddNumberToObject(run, "illegal", (double)rs->illegal) &&
         cJSON_AddNumberToObject(run, "elapsed_s", rs->elapsed) &&
         cJSON_AddNumberToObject(run, "sessions", (double)rs->sessions) &&
         cJSON_AddStringToObject(run, "engine", rs->engine) && cJSON_AddStringToObject(run, "tc", rs->tc);
    cJSON *pe = ok ? add_per_engine(run, rs->per_engine) : NULL;
    ok = pe && cJSON_AddNumberToObject(pe, "since", (double)rs->per_engine_since);
    if (ok && (rs->wall_nodes || rs->wall_ms)) {
        cJSON *ws = cJSON_AddObjectToObject(run, "wall_search");
        ok = ws && cJSON_AddNumberToObject(ws, "nodes", (double)rs->wall_nodes) &&
             cJSON_AddNumberToObject(ws, "ms", (double)rs->wall_ms);
    }
    cJSON *order = ok ? cJSON_AddArrayToObject(run, "spec_order") : NULL;
    ok = order != NULL;
    for (size_t i = 0; ok && i < rs->norder; i++)
        ok = cJSON_AddItemToArray(order, cJSON_CreateString(rs->order[i]));
    cJSON *fixed = ok ? cJSON_AddObjectToObject(run, "fixed") : NULL;
    ok = fixed != NULL;
    for (size_t i = 0; ok && i < rs->nfixed; i++)
        ok = cJSON_AddNumberToObject(fixed, rs->fixed[i].name, rs->fixed[i].value) != NULL;
    cJSON *ffloat = ok ? cJSON_AddArrayToObject(run, "fixed_float") : NULL;
    ok = ffloat != NULL;
    for (size_t i = 0; ok && i < rs->nfixed; i++)
        ok = !rs->fixed[i].is_float || cJSON_AddItemToArray(ffloat, cJSON_CreateString(rs->fixed[i].name));
    cJSON *partial = ok && rs->npartial ? cJSON_AddArrayToObject(run, "partial") : NULL;
    ok = ok && (!rs->npartial || partial);
    for (size_t i = 0; ok && i < rs->npartial; i++) {
        const PartialBatch *pb = &rs->partial[i];
        cJSON *entry = cJSON_CreateObject();
        const uint64_t vals[] = { pb->k, pb->pairs, pb->wins, pb->losses, pb->draws, pb->time_losses, pb->crashes,
                                  pb->illegal };
        for (size_t f = 0; entry && f < sizeof vals / sizeof vals[0]; f++)
            if (!cJSON_AddNumberToObject(entry, PARTIAL_FIELDS[f], (double)vals[f]))
                ok = false;
        cJSON *pt = entry ? cJSON_AddArrayToObject(entry, "ptnml") : NULL;
        for (int t = 0; pt && t < 5; t++)
            ok = ok && cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)pb->ptnml[t]));
        /* Per-engine counts that do not cover all the entry's pairs (an
         * older build's entry, resumed and stopped again before its batch
         * ended) are left out, as that build wrote them: the reader would
         * refuse counts that do not add up. */
        if (ok && pt && partial_counts_whole(pb))
            ok = add_per_engine(entry, pb->per_engine) != NULL;
        ok = ok && pt && cJSON_AddItemToArray(partial, entry);
        if (!ok)
            cJSON_Delete(entry);
    }
    cJSON *val = ok ? validate_to_json(&rs->val, &rs->spsa) : NULL;
    ok = ok && (!val || cJSON_AddItemToObject(run, "validation", val));
    if (ok && rs->engine_id.have) {
        cJSON *ec = engcheck_to_json(&rs->engine_id);
        ok = ec && cJSON_AddItemToObject(run, "engine_check", ec);
        if (!ok)
            cJSON_Delete(ec);
    }
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* run.partial: each entry a batch in flight, once, with fewer pairs than a
 * batch and counts that add up. */
static int partial_from_json(RunState *rs, const cJSON *arr, const char *origin, char *err, size_t errlen)
{
    if (!arr)
        return 0;
    int n = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || !(rs->partial = calloc((size_t)n + 1, sizeof *rs->partial)))
        return errmsg(err, errlen, "%s: run.partial must be an array", origin);
    const SpsaState *st = &rs->spsa;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        size_t i = rs->npartial;
        PartialBatch *pb = &rs->partial[i];
        uint64_t *dst[] = { &pb->k, &pb->pairs, &pb->wins, &pb->losses, &pb->draws, &pb->time_losses, &pb->crashes,
                            &pb->illegal };
        for (size_t f = 0; f < sizeof dst / sizeof dst[0]; f++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, PARTIAL_FIELDS[f]);
            if (!json_count(v, dst[f]))
                return errmsg(err, errlen, "%s: run.partial[%zu].%s is missing or not a non-negative integer", origin,
                              i, PARTIAL_FIELDS[f]);
        }
        const cJSON *pt = cJSON_GetObjectItemCaseSensitive(e, "ptnml");
        uint64_t psum = 0;
        for (int t = 0; t < 5; t++) {
            const cJSON *v = cJSON_GetArrayItem(pt, t);
            if (cJSON_GetArraySize(pt) != 5 || !json_count(v, &pb->ptnml[t]))
                return errmsg(err, errlen, "%s: run.partial[%zu].ptnml must hold 5 non-negative integers", origin, i);
            psum += pb->ptnml[t];
        }
        /* Absent in states of older builds: those pairs add nothing to
         * the per-engine counts. */
        const cJSON *pe = cJSON_GetObjectItemCaseSensitive(e, "per_engine");
        for (int c = 0; pe && c < ENG_NCOUNTS; c++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(pe, runstate_engine_counts[c]);
            if (cJSON_GetArraySize(a) != 2 || !json_count(cJSON_GetArrayItem(a, 0), &pb->per_engine[c][0])
                || !json_count(cJSON_GetArrayItem(a, 1), &pb->per_engine[c][1]))
                return errmsg(err, errlen, "%s: run.partial[%zu].per_engine.%s must hold 2 non-negative integers",
                              origin, i, runstate_engine_counts[c]);
        }
        const uint64_t total[ENG_RESTARTS] = { [ENG_TIME_LOSSES] = pb->time_losses, [ENG_CRASHES] = pb->crashes,
                                               [ENG_ILLEGAL] = pb->illegal };
        for (int c = 0; pe && c < ENG_RESTARTS; c++)
            if (pb->per_engine[c][0] + pb->per_engine[c][1] != total[c])
                return errmsg(err, errlen, "%s: run.partial[%zu].per_engine.%s does not add up to its %s", origin,
                              i, runstate_engine_counts[c], runstate_engine_counts[c]);
        bool in_flight = false;
        for (size_t b = 0; b < st->ninflight; b++)
            in_flight |= st->inflight[b].k == pb->k;
        for (size_t b = 0; b < i; b++)
            if (rs->partial[b].k == pb->k)
                return errmsg(err, errlen, "%s: run.partial[%zu].k %llu appears twice", origin, i,
                              (unsigned long long)pb->k);
        if (!in_flight)
            return errmsg(err, errlen, "%s: run.partial[%zu].k %llu is not a batch in flight", origin, i,
                          (unsigned long long)pb->k);
        if (pb->pairs < 1 || pb->pairs >= (uint64_t)st->cfg.pairs_per || psum != pb->pairs ||
            pb->wins + pb->losses + pb->draws != 2 * pb->pairs)
            return errmsg(err, errlen,
                          "%s: run.partial[%zu].pairs %llu must be 1..%d with 2 games per pair and one ptnml count "
                          "per pair",
                          origin, i, (unsigned long long)pb->pairs, st->cfg.pairs_per - 1);
        rs->npartial++;
    }
    return 0;
}

static int get_u64(const cJSON *o, const char *key, uint64_t *out, const char *origin, char *err, size_t errlen)
{
    char what[PATH_MAX + 16];
    snprintf(what, sizeof what, "%s: run.", origin);
    return json_get_count(o, key, out, what, err, errlen);
}

static void get_str(const cJSON *o, const char *key, char *buf, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(buf, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* Every batch handed out is either applied or in flight, once. */
static int check_batches(const SpsaState *st, const char *origin, char *err, size_t errlen)
{
    if (st->completed + st->ninflight != st->k) {
        errmsg(err, errlen,
               "%s: spsa \"k\" is %llu but \"completed\" %llu + %zu batch%s in \"inflight\" make %llu: the state "
               "is inconsistent",
               origin, (unsigned long long)st->k, (unsigned long long)st->completed, st->ninflight,
               st->ninflight == 1 ? "" : "es", (unsigned long long)(st->completed + st->ninflight));
        return -1;
    }
    for (size_t i = 0; i < st->ninflight; i++)
        for (size_t j = 0; j < i; j++)
            if (st->inflight[i].k == st->inflight[j].k) {
                errmsg(err, errlen, "%s: spsa \"inflight\"[%zu] and [%zu] are both batch k = %llu", origin, j, i,
                       (unsigned long long)st->inflight[i].k);
                return -1;
            }
    return 0;
}

int runstate_from_json(RunState *rs, const cJSON *j, const char *origin, char *err, size_t errlen)
{
    runstate_init(rs);
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(j, "version");
    if (!cJSON_IsNumber(ver) || ver->valueint != STATE_VERSION) {
        errmsg(err, errlen, "%s: not a ratchet-tune run state (version %d expected)", origin, STATE_VERSION);
        return -1;
    }
    get_str(j, "created", rs->created, sizeof rs->created);
    get_str(j, "updated", rs->updated, sizeof rs->updated);
    if (conf_from_json(&rs->conf, cJSON_GetObjectItemCaseSensitive(j, "config"), origin, err, errlen) < 0)
        goto fail;
    char e2[512];
    if (spsa_state_from_json(&rs->spsa, cJSON_GetObjectItemCaseSensitive(j, "spsa"), e2, sizeof e2) < 0) {
        errmsg(err, errlen, "%s: spsa: %s", origin, e2);
        goto fail;
    }
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
    double el = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, "elapsed_s");
    if (cJSON_IsNumber(v))
        el = v->valuedouble;
    rs->elapsed = el;
    if (get_u64(run, "games", &rs->games, origin, err, errlen) < 0 ||
        get_u64(run, "pairs_issued", &rs->pairs_issued, origin, err, errlen) < 0 ||
        get_u64(run, "time_losses", &rs->time_losses, origin, err, errlen) < 0 ||
        get_u64(run, "crashes", &rs->crashes, origin, err, errlen) < 0 ||
        get_u64(run, "illegal", &rs->illegal, origin, err, errlen) < 0 ||
        get_u64(run, "sessions", &rs->sessions, origin, err, errlen) < 0)
        goto fail;
    const cJSON *ptnml = cJSON_GetObjectItemCaseSensitive(run, "ptnml");
    if (cJSON_GetArraySize(ptnml) != 5) {
        errmsg(err, errlen, "%s: run.ptnml must have 5 counts", origin);
        goto fail;
    }
    for (int i = 0; i < 5; i++) {
        if (!json_count(cJSON_GetArrayItem(ptnml, i), &rs->ptnml[i])) {
            errmsg(err, errlen, "%s: run.ptnml[%d] is not a non-negative integer", origin, i);
            goto fail;
        }
    }
    /* The counters of a run that played them: each game was handed out in a
     * pair (a replayed batch hands its pairs out again), each pair's count
     * stands for two games, each failure ended a game. */
    uint64_t in_pairs = 0;
    for (int i = 0; i < 5; i++)
        in_pairs += rs->ptnml[i];
    if (rs->games > SPSA_STATE_MAX_GAMES || rs->games / 2 > rs->pairs_issued || 2 * in_pairs > rs->games ||
        rs->time_losses > rs->games || rs->crashes > rs->games || rs->illegal > rs->games) {
        errmsg(err, errlen, "%s: run: the counters disagree (games %llu, pairs_issued %llu, ptnml pairs %llu, time "
               "losses %llu, crashes %llu, illegal %llu): no run counts these; the file is damaged", origin,
               (unsigned long long)rs->games, (unsigned long long)rs->pairs_issued, (unsigned long long)in_pairs,
               (unsigned long long)rs->time_losses, (unsigned long long)rs->crashes, (unsigned long long)rs->illegal);
        goto fail;
    }
    if (check_batches(&rs->spsa, origin, err, errlen) < 0 ||
        engcheck_from_json(&rs->engine_id, cJSON_GetObjectItemCaseSensitive(run, "engine_check"), origin, err,
                           errlen) < 0 ||
        partial_from_json(rs, cJSON_GetObjectItemCaseSensitive(run, "partial"), origin, err, errlen) < 0 ||
        validate_from_json(&rs->val, cJSON_GetObjectItemCaseSensitive(run, "validation"), &rs->spsa, origin, err,
                           errlen) < 0)
        goto fail;
    /* Absent in states of older builds: counted from now on. */
    const cJSON *pe = cJSON_GetObjectItemCaseSensitive(run, "per_engine");
    const cJSON *since = cJSON_GetObjectItemCaseSensitive(pe, "since");
    if (cJSON_IsNumber(since) && !json_count(since, NULL)) {
        errmsg(err, errlen, "%s: run.per_engine.since is not a non-negative integer", origin);
        goto fail;
    }
    rs->per_engine_since = cJSON_IsNumber(since) ? (uint64_t)since->valuedouble : rs->games;
    for (int c = 0; c < ENG_NCOUNTS; c++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(pe, runstate_engine_counts[c]);
        for (int e = 0; e < 2 && cJSON_IsNumber(since); e++) {
            const cJSON *count = cJSON_GetArrayItem(a, e);
            if (cJSON_IsNumber(count) && !json_count(count, NULL)) {
                errmsg(err, errlen, "%s: run.per_engine.%s[%d] is not a non-negative integer", origin,
                       runstate_engine_counts[c], e);
                goto fail;
            }
            rs->per_engine[c][e] = cJSON_IsNumber(count) ? (uint64_t)count->valuedouble : 0;
        }
    }
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(run, "wall_search");
    if (ws) {
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "%s: run.wall_search.", origin);
        if (json_get_count(ws, "nodes", &rs->wall_nodes, what, err, errlen) < 0 ||
            json_get_count(ws, "ms", &rs->wall_ms, what, err, errlen) < 0)
            goto fail;
    }
    get_str(run, "engine", rs->engine, sizeof rs->engine);
    get_str(run, "tc", rs->tc, sizeof rs->tc);
    const cJSON *order = cJSON_GetObjectItemCaseSensitive(run, "spec_order");
    const cJSON *fixed = cJSON_GetObjectItemCaseSensitive(run, "fixed");
    int no = cJSON_GetArraySize(order), nf = cJSON_GetArraySize(fixed);
    rs->order = calloc((size_t)no + 1, sizeof *rs->order);
    rs->fixed = calloc((size_t)nf + 1, sizeof *rs->fixed);
    if (!rs->order || !rs->fixed) {
        errmsg(err, errlen, "out of memory");
        goto fail;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, order)
    {
        if (!cJSON_IsString(e)) {
            errmsg(err, errlen, "%s: run.spec_order must hold names", origin);
            goto fail;
        }
        snprintf(rs->order[rs->norder++], SPSA_NAME_MAX, "%s", e->valuestring);
    }
    cJSON_ArrayForEach(e, fixed)
    {
        if (!cJSON_IsNumber(e)) {
            errmsg(err, errlen, "%s: run.fixed.%s must be a number", origin, e->string);
            goto fail;
        }
        snprintf(rs->fixed[rs->nfixed].name, SPSA_NAME_MAX, "%s", e->string);
        rs->fixed[rs->nfixed++].value = e->valuedouble;
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(run, "fixed_float"))
    {
        size_t i = 0;
        while (i < rs->nfixed && !(cJSON_IsString(e) && strcmp(rs->fixed[i].name, e->valuestring) == 0))
            i++;
        if (i == rs->nfixed) {
            errmsg(err, errlen, "%s: run.fixed_float must hold names of run.fixed", origin);
            goto fail;
        }
        rs->fixed[i].is_float = true;
    }
    return 0;
fail:
    runstate_free(rs);
    return -1;
}

int runstate_resolve(RunState *rs, const char *dir, char *err, size_t errlen)
{
    validate_resolve_last(&rs->val, dir, spsa_budget_games(&rs->spsa.cfg));
    return validate_limit_from_conf(&rs->val, &rs->conf, NULL, err, errlen);
}

int runstate_load(RunState *rs, const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, STATE_FILE);
    cJSON *j = rd_read_json(path, err, errlen);
    if (!j) {
        runstate_init(rs);
        return -1;
    }
    int rc = runstate_from_json(rs, j, path, err, errlen);
    cJSON_Delete(j);
    return rc == 0 ? runstate_resolve(rs, dir, err, errlen) : rc;
}

char *runstate_text(RunState *rs)
{
    rd_now_iso(rs->updated, sizeof rs->updated);
    cJSON *j = runstate_to_json(rs);
    char *s = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return NULL;
    }
    t[n] = '\n';
    t[n + 1] = '\0';
    return t;
}

int runstate_check_text(const char *text, const char *path, char *err, size_t errlen)
{
    char why[1024];
    cJSON *j = json_parse_text(text, path, why, sizeof why);
    RunState again;
    int rc = j ? runstate_from_json(&again, j, path, why, sizeof why) : -1;
    cJSON_Delete(j);
    if (rc < 0)
        return errmsg(err, errlen, "not writing '%s': the state would not load again (%s)", path, why);
    runstate_free(&again);
    return 0;
}

int runstate_write_text(const char *path, const char *text, char *err, size_t errlen)
{
    if (runstate_check_text(text, path, err, errlen) < 0)
        return -1;
    return rd_write_atomic(path, text, strlen(text), err, errlen);
}

int runstate_save(RunState *rs, const char *dir, char *err, size_t errlen)
{
    char *text = runstate_text(rs);
    if (!text) {
        errmsg(err, errlen, "out of memory saving the state");
        return -1;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, STATE_FILE);
    int rc = runstate_write_text(path, text, err, errlen);
    free(text);
    return rc;
}

int runstate_value(const RunState *rs, const char *name, double *value, bool *is_float)
{
    for (size_t i = 0; i < rs->spsa.nparams; i++)
        if (strcmp(rs->spsa.params[i].name, name) == 0) {
            *value = spsa_value(&rs->spsa, i);
            if (is_float)
                *is_float = rs->spsa.params[i].is_float;
            return 0;
        }
    for (size_t i = 0; i < rs->nfixed; i++)
        if (strcmp(rs->fixed[i].name, name) == 0) {
            *value = rs->fixed[i].value;
            if (is_float)
                *is_float = rs->fixed[i].is_float;
            return 0;
        }
    return -1;
}

int runstate_check_value(const RunState *rs, const char *name, double v, char *why, size_t len)
{
    double now;
    bool is_float = false;
    if (runstate_value(rs, name, &now, &is_float) < 0)
        return errmsg(why, len, "'%s' is not a parameter of the run", name);
    if (!isfinite(v))
        return errmsg(why, len, "%s is not a finite number", name);
    if (!is_float && v != floor(v))
        return errmsg(why, len, "%s = %g is not an integer", name, v);
    if (v == now)
        return 0; /* what the run plays already */
    double lo = 0, hi = 0;
    bool found = false;
    for (size_t i = 0; i < rs->spsa.nparams && !found; i++)
        if (strcmp(rs->spsa.params[i].name, name) == 0) {
            lo = rs->spsa.params[i].min;
            hi = rs->spsa.params[i].max;
            found = true;
        }
    if (!found) {
        /* Not tuned: the state keeps its value, the params file its range. */
        const char *spec_file = conf_get(&rs->conf, "params", "file");
        SpsaParam *all = NULL;
        size_t nall = 0;
        char e2[512];
        if (!spec_file)
            return errmsg(why, len, "%s is not tuned and the run names no params file for its range", name);
        if (spec_load(spec_file, &all, &nall, e2, sizeof e2) < 0)
            return errmsg(why, len, "%s is not tuned, and its range is in the params file: %s", name, e2);
        for (size_t i = 0; i < nall && !found; i++)
            if (strcmp(all[i].name, name) == 0) {
                lo = all[i].min;
                hi = all[i].max;
                found = true;
            }
        free(all);
        if (!found)
            return errmsg(why, len, "%s is not tuned, and the params file %s no longer has it (for its range)",
                          name, spec_file);
    }
    if (v < lo || v > hi)
        return errmsg(why, len, "%s = %g is outside its range [%g, %g]", name, v, lo, hi);
    return 0;
}

cJSON *runstate_values_json(const RunState *rs)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < rs->norder; i++) {
        double v;
        if (runstate_value(rs, rs->order[i], &v, NULL) == 0 && !cJSON_AddNumberToObject(o, rs->order[i], v)) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

int runstate_moved(const RunState *rs)
{
    cJSON *params = runstate_values_json(rs);
    if (!params)
        return -1;
    int moved = 0;
    for (size_t k = 0; k < rs->spsa.nparams; k++) {
        const SpsaParam *q = &rs->spsa.params[k];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, q->name);
        double start = q->is_float ? q->start : (double)lround(q->start);
        moved += cJSON_IsNumber(v) && v->valuedouble != start;
    }
    cJSON_Delete(params);
    return moved;
}
