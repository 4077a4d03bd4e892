/* `ratchet-tune verify`: DIR/verify.json, written after every pair and read
 * back to continue; see verify_impl.h. */
#include "verify_impl.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"
#include "jsonput.h"
#include "rd.h"

static cJSON *u64_array(const uint64_t *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

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

cJSON *verify_to_json(const Verify *v, const char *status, const char *verdict)
{
    const MatchTally *t = &v->tally;
    EloEstimate e;
    stats_from_ptnml(t->ptnml, &e);
    char now[32];
    rd_now_iso(now, sizeof now);
    JsonPut w = jput_new();
    jput_num(&w, "version", 1);
    jput_str(&w, "status", status);
    jput_str(&w, "verdict", verdict);
    jput_num(&w, "games", (double)t->games);
    jput_num(&w, "wins", (double)t->wins);
    jput_num(&w, "losses", (double)t->losses);
    jput_num(&w, "draws", (double)t->draws);
    jput_num(&w, "pairs", (double)t->pairs);
    jput_item(&w, "ptnml", u64_array(t->ptnml, 5));
    jput_num(&w, "elo", e.elo);
    jput_num(&w, "elo_err", e.elo_err);
    jput_num(&w, "nelo", e.nelo);
    jput_num(&w, "nelo_err", e.nelo_err);
    jput_num(&w, "los", e.los);
    if (v->sprt.on) {
        double llr, lo, up;
        sprt_check(t, &v->sprt, &llr, &lo, &up);
        JsonPut s = jput_new();
        jput_num(&s, "elo0", v->sprt.elo0);
        jput_num(&s, "elo1", v->sprt.elo1);
        jput_num(&s, "alpha", v->sprt.alpha);
        jput_num(&s, "beta", v->sprt.beta);
        jput_num(&s, "llr", llr);
        jput_num(&s, "lower", lo);
        jput_num(&s, "upper", up);
        jput_item(&w, "sprt", jput_done(&s));
    }
    jput_num(&w, "rounds", (double)v->rounds);
    jput_str(&w, "tc", v->run.tc);
    jput_str(&w, "book", v->run.mc.book_path);
    if (v->run.openings[0]) {
        JsonPut op = jput_new();
        jput_str(&op, "set", v->run.openings);
        jput_str(&op, "file", v->run.mc.book_path);
        jput_num(&op, "count", (double)book_picks(v->run.mc.book));
        jput_num(&op, "book_size", (double)book_size(v->run.mc.book));
        jput_num(&op, "fresh_pairs", (double)v->fresh);
        jput_bool(&op, "deterministic", match_deterministic(&v->run.mc));
        verify_claim_json(&v->run, &op);
        jput_item(&w, "openings", jput_done(&op));
    }
    jput_num(&w, "seed", (double)v->run.seed);
    JsonPut eng = jput_new();
    jput_str(&eng, "mode", v->run.baked ? "baked" : "options");
    jput_str(&eng, "tuned", v->run.mc.eng[0].cmd);
    jput_str(&eng, "base", v->run.mc.eng[1].cmd);
    jput_item(&w, "engines", jput_done(&eng));
    jput_num(&w, "run_games", (double)v->run.rs.games);
    jput_str(&w, "base_file", v->run.base_file);
    jput_str(&w, "tuned_file", v->run.tuned_file);
    jput_item(&w, "tuned", cJSON_Duplicate(verify_params_of(v->run.tuned), true));
    jput_item(&w, "base", cJSON_Duplicate(verify_params_of(v->run.base), true));
    jput_item(&w, "args",
              v->run.nargs ? cJSON_CreateStringArray((const char *const *)v->run.args, v->run.nargs) : cJSON_CreateArray());
    jput_num(&w, "next_round", (double)v->next_round);
    /* Rounds to replay: those in flight now, and those not yet replayed from the last session. */
    size_t np = v->ninflight + (v->npending - v->nextpending);
    uint64_t *pend = malloc((np + 1) * sizeof *pend);
    if (pend) {
        if (v->ninflight)
            memcpy(pend, v->inflight, v->ninflight * sizeof *pend);
        if (v->npending > v->nextpending)
            memcpy(pend + v->ninflight, v->pending + v->nextpending, (v->npending - v->nextpending) * sizeof *pend);
    }
    jput_item(&w, "pending", pend ? u64_array(pend, np) : NULL); /* NULL fails w */
    free(pend);
    jput_num(&w, "penta_wl", (double)t->penta_wl);
    jput_num(&w, "penta_dd", (double)t->penta_dd);
    jput_num(&w, "plies", (double)t->plies);
    jput_item(&w, "time_losses", u64_array(t->time_losses, 2));
    jput_item(&w, "crashes", u64_array(t->crashes, 2));
    jput_item(&w, "illegal", u64_array(t->illegal, 2));
    jput_item(&w, "restarts", u64_array(t->restarts, 2));
    jput_num(&w, "sessions", (double)v->run.sessions);
    jput_num(&w, "elapsed_s", elapsed_now(v));
    jput_str(&w, "created", v->run.created[0] ? v->run.created : now);
    jput_str(&w, "updated", now);
    return jput_done(&w);
}

int verify_save(Verify *v, const char *status, const char *verdict, char *err, size_t errlen)
{
    cJSON *j = verify_to_json(v, status, verdict);
    if (!j)
        return errmsg(err, errlen, "out of memory writing %s", v->path);
    int rc = rd_write_json(v->path, j, err, errlen);
    cJSON_Delete(j);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The progress of an unfinished verify from its file. */
int verify_progress_from(Verify *v, const cJSON *j, char *err, size_t errlen)
{
    MatchTally *t = &v->tally;
    memset(t, 0, sizeof *t);
    uint64_t seed = 0;
    bool ok = json_get_u64(j, "games", &t->games) && json_get_u64(j, "wins", &t->wins) &&
              json_get_u64(j, "losses", &t->losses) && json_get_u64(j, "draws", &t->draws) &&
              json_get_u64(j, "pairs", &t->pairs) && json_get_counts(j, "ptnml", t->ptnml, 5) &&
              json_get_u64(j, "penta_wl", &t->penta_wl) && json_get_u64(j, "penta_dd", &t->penta_dd) &&
              json_get_u64(j, "plies", &t->plies) && json_get_counts(j, "time_losses", t->time_losses, 2) &&
              json_get_counts(j, "crashes", t->crashes, 2) && json_get_counts(j, "illegal", t->illegal, 2) &&
              json_get_counts(j, "restarts", t->restarts, 2) && json_get_u64(j, "next_round", &v->next_round) &&
              json_get_u64(j, "sessions", &v->run.sessions) && json_get_u64(j, "seed", &seed);
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(j, "elapsed_s");
    const cJSON *pend = cJSON_GetObjectItemCaseSensitive(j, "pending");
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(j, "created");
    ok = ok && cJSON_IsNumber(el) && cJSON_IsArray(pend) && cJSON_IsString(cr);
    if (!ok)
        return errmsg(err, errlen, "%s: a field is missing or malformed; start over with -restart", v->path);
    char why[256];
    if (tally_check(t, why, sizeof why) < 0)
        return errmsg(err, errlen, "%s: the counts disagree: %s; start over with -restart", v->path, why);
    v->run.seed = seed;
    v->elapsed0 = el->valuedouble;
    snprintf(v->run.created, sizeof v->run.created, "%s", cr->valuestring);
    size_t n = (size_t)cJSON_GetArraySize(pend);
    v->pending = calloc(n + 1, sizeof *v->pending);
    if (!v->pending)
        return errmsg(err, errlen, "out of memory");
    /* Every round handed out is counted or pending, once. */
    if (n > v->next_round || t->pairs > v->next_round - n)
        return errmsg(err, errlen, "%s: %llu pairs counted and %zu pending are more than the %llu rounds handed out; "
                      "start over with -restart", v->path, (unsigned long long)t->pairs, n,
                      (unsigned long long)v->next_round);
    for (size_t i = 0; i < n; i++) {
        uint64_t r;
        if (!json_count(cJSON_GetArrayItem(pend, (int)i), &r) || r >= v->next_round)
            return errmsg(err, errlen, "%s: pending: a round that was never handed out; start over with -restart",
                          v->path);
        v->pending[i] = r;
    }
    v->npending = n;
    uint64_t *sorted = malloc((n + 1) * sizeof *sorted);
    if (!sorted)
        return errmsg(err, errlen, "out of memory");
    memcpy(sorted, v->pending, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    size_t twice = n;
    for (size_t i = 1; i < n && twice == n; i++)
        if (sorted[i] == sorted[i - 1])
            twice = i;
    uint64_t r = twice < n ? sorted[twice] : 0;
    free(sorted);
    if (twice < n)
        return errmsg(err, errlen, "%s: pending: round %llu is listed twice; start over with -restart", v->path,
                      (unsigned long long)r);
    return 0;
}
