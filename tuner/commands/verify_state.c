/* `ratchet-tune verify`: DIR/verify.json, written after every pair and read
 * back to continue; see verify_impl.h. */
#include "verify_impl.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"
#include "rd.h"
#include "verdict.h"

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
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
#define NUM(k, x) (ok = ok && cJSON_AddNumberToObject(o, k, (double)(x)) != NULL)
#define STR(k, x) (ok = ok && cJSON_AddStringToObject(o, k, x) != NULL)
#define ADD(k, x) (ok = ok && cJSON_AddItemToObject(o, k, x))
    NUM("version", 1);
    STR("status", status);
    STR("verdict", verdict);
    NUM("games", t->games);
    NUM("wins", t->wins);
    NUM("losses", t->losses);
    NUM("draws", t->draws);
    NUM("pairs", t->pairs);
    ADD("ptnml", u64_array(t->ptnml, 5));
    NUM("elo", e.elo);
    NUM("elo_err", e.elo_err);
    NUM("nelo", e.nelo);
    NUM("nelo_err", e.nelo_err);
    NUM("los", e.los);
    if (v->sprt.on) {
        double llr, lo, up;
        sprt_check(t, &v->sprt, &llr, &lo, &up);
        cJSON *s = cJSON_CreateObject();
        ok = ok && s && cJSON_AddNumberToObject(s, "elo0", v->sprt.elo0) && cJSON_AddNumberToObject(s, "elo1", v->sprt.elo1) &&
             cJSON_AddNumberToObject(s, "alpha", v->sprt.alpha) && cJSON_AddNumberToObject(s, "beta", v->sprt.beta) &&
             cJSON_AddNumberToObject(s, "llr", llr) && cJSON_AddNumberToObject(s, "lower", lo) &&
             cJSON_AddNumberToObject(s, "upper", up);
        ADD("sprt", s);
    }
    NUM("rounds", v->rounds);
    STR("tc", v->tc);
    STR("book", v->mc.book_path);
    if (v->openings[0]) {
        cJSON *op = cJSON_CreateObject();
        ok = ok && op && cJSON_AddStringToObject(op, "set", v->openings) &&
             cJSON_AddStringToObject(op, "file", v->mc.book_path) &&
             cJSON_AddNumberToObject(op, "count", (double)book_picks(v->mc.book)) &&
             cJSON_AddNumberToObject(op, "book_size", (double)book_size(v->mc.book)) &&
             cJSON_AddNumberToObject(op, "fresh_pairs", (double)v->fresh) &&
             cJSON_AddBoolToObject(op, "deterministic", match_deterministic(&v->mc));
        if (!ok)
            cJSON_Delete(op);
        ADD("openings", op);
    }
    NUM("seed", v->seed);
    cJSON *eng = cJSON_CreateObject();
    ok = ok && eng && cJSON_AddStringToObject(eng, "mode", v->baked ? "baked" : "options") &&
         cJSON_AddStringToObject(eng, "tuned", v->mc.eng[0].cmd) && cJSON_AddStringToObject(eng, "base", v->mc.eng[1].cmd);
    ADD("engines", eng);
    NUM("run_games", v->rs.games);
    STR("base_file", v->base_file);
    STR("tuned_file", v->tuned_file);
    ADD("tuned", cJSON_Duplicate(verify_params_of(v->tuned), true));
    ADD("base", cJSON_Duplicate(verify_params_of(v->base), true));
    ADD("args", v->nargs ? cJSON_CreateStringArray((const char *const *)v->args, v->nargs) : cJSON_CreateArray());
    NUM("next_round", v->next_round);
    /* Rounds to replay: those in flight now, and those not yet replayed from the last session. */
    size_t np = v->ninflight + (v->npending - v->nextpending);
    uint64_t *pend = malloc((np + 1) * sizeof *pend);
    ok = ok && pend;
    if (pend) {
        if (v->ninflight)
            memcpy(pend, v->inflight, v->ninflight * sizeof *pend);
        if (v->npending > v->nextpending)
            memcpy(pend + v->ninflight, v->pending + v->nextpending, (v->npending - v->nextpending) * sizeof *pend);
        ADD("pending", u64_array(pend, np));
        free(pend);
    }
    NUM("penta_wl", t->penta_wl);
    NUM("penta_dd", t->penta_dd);
    NUM("plies", t->plies);
    ADD("time_losses", u64_array(t->time_losses, 2));
    ADD("crashes", u64_array(t->crashes, 2));
    ADD("illegal", u64_array(t->illegal, 2));
    ADD("restarts", u64_array(t->restarts, 2));
    NUM("sessions", v->sessions);
    NUM("elapsed_s", elapsed_now(v));
    STR("created", v->created[0] ? v->created : now);
    STR("updated", now);
#undef NUM
#undef STR
#undef ADD
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
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
              json_get_u64(j, "sessions", &v->sessions) && json_get_u64(j, "seed", &seed);
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(j, "elapsed_s");
    const cJSON *pend = cJSON_GetObjectItemCaseSensitive(j, "pending");
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(j, "created");
    ok = ok && cJSON_IsNumber(el) && cJSON_IsArray(pend) && cJSON_IsString(cr);
    if (!ok)
        return errmsg(err, errlen, "%s: a field is missing or malformed; start over with -restart", v->path);
    v->seed = seed;
    v->elapsed0 = el->valuedouble;
    snprintf(v->created, sizeof v->created, "%s", cr->valuestring);
    size_t n = (size_t)cJSON_GetArraySize(pend);
    v->pending = calloc(n + 1, sizeof *v->pending);
    if (!v->pending)
        return errmsg(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(pend, (int)i);
        if (!cJSON_IsNumber(x) || x->valuedouble < 0 || (uint64_t)x->valuedouble >= v->next_round)
            return errmsg(err, errlen, "%s: pending: a round that was never handed out; start over with -restart",
                          v->path);
        v->pending[i] = (uint64_t)x->valuedouble;
    }
    v->npending = n;
    return 0;
}
