/* DIR/verify.json; see verify_record.h. */
#include "verify_record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "game.h"
#include "jsonget.h"
#include "jsonput.h"

void verify_record_estimate(VerifyRecord *r)
{
    stats_from_ptnml(r->tally.ptnml, &r->est);
    if (r->has_sprt)
        sprt_check(&r->tally, &r->sprt, &r->llr, &r->lower, &r->upper);
}

cJSON *verify_record_to_json(const VerifyRecord *r)
{
    const MatchTally *t = &r->tally;
    JsonPut w = jput_new();
    jput_num(&w, "version", 1);
    jput_str(&w, "status", r->status);
    jput_str(&w, "verdict", r->verdict);
    jput_num(&w, "games", (double)t->games);
    jput_num(&w, "wins", (double)t->wins);
    jput_num(&w, "losses", (double)t->losses);
    jput_num(&w, "draws", (double)t->draws);
    jput_num(&w, "pairs", (double)t->pairs);
    jput_counts(&w, "ptnml", t->ptnml, 5);
    jput_num(&w, "elo", r->est.elo);
    jput_num(&w, "elo_err", r->est.elo_err);
    jput_num(&w, "nelo", r->est.nelo);
    jput_num(&w, "nelo_err", r->est.nelo_err);
    jput_num(&w, "los", r->est.los);
    if (r->has_sprt) {
        JsonPut s = jput_new();
        jput_num(&s, "elo0", r->sprt.elo0);
        jput_num(&s, "elo1", r->sprt.elo1);
        jput_num(&s, "alpha", r->sprt.alpha);
        jput_num(&s, "beta", r->sprt.beta);
        jput_num(&s, "llr", r->llr);
        jput_num(&s, "lower", r->lower);
        jput_num(&s, "upper", r->upper);
        jput_item(&w, "sprt", jput_done(&s));
    }
    jput_num(&w, "rounds", (double)r->rounds);
    jput_str(&w, "tc", r->tc);
    jput_str(&w, "book", r->book);
    if (r->has_openings) {
        JsonPut op = jput_new();
        jput_str(&op, "set", r->set);
        jput_str(&op, "file", r->openings_file);
        jput_num(&op, "count", (double)r->count);
        jput_num(&op, "book_size", (double)r->book_size);
        jput_num(&op, "fresh_pairs", (double)r->fresh_pairs);
        jput_bool(&op, "deterministic", r->deterministic);
        if (r->claimed) {
            jput_num(&op, "held_out_first", (double)r->held_out_first);
            jput_num(&op, "held_out_count", (double)r->held_out_count);
        }
        jput_item(&w, "openings", jput_done(&op));
    }
    jput_num(&w, "seed", (double)r->seed);
    JsonPut eng = jput_new();
    jput_str(&eng, "mode", r->mode);
    jput_str(&eng, "tuned", r->engine_tuned);
    jput_str(&eng, "base", r->engine_base);
    jput_item(&w, "engines", jput_done(&eng));
    jput_num(&w, "run_games", (double)r->run_games);
    jput_str(&w, "base_file", r->base_file);
    jput_str(&w, "tuned_file", r->tuned_file);
    jput_item(&w, "tuned", cJSON_Duplicate(r->tuned, true));
    jput_item(&w, "base", cJSON_Duplicate(r->base, true));
    jput_item(&w, "args", r->nargs ? cJSON_CreateStringArray(r->args, r->nargs) : cJSON_CreateArray());
    if (r->dir)
        jput_str(&w, "dir", r->dir);
    jput_num(&w, "next_round", (double)r->next_round);
    jput_counts(&w, "pending", r->pending, r->npending);
    jput_num(&w, "penta_wl", (double)t->penta_wl);
    jput_num(&w, "penta_dd", (double)t->penta_dd);
    jput_num(&w, "plies", (double)t->plies);
    jput_counts(&w, "time_losses", t->time_losses, 2);
    jput_counts(&w, "crashes", t->crashes, 2);
    jput_counts(&w, "illegal", t->illegal, 2);
    jput_counts(&w, "restarts", t->restarts, 2);
    if (t->wall_nodes || t->wall_ms) {
        JsonPut ws = jput_new();
        jput_num(&ws, "nodes", (double)t->wall_nodes);
        jput_num(&ws, "ms", (double)t->wall_ms);
        jput_item(&w, "wall_search", jput_done(&ws));
    }
    jput_num(&w, "sessions", (double)r->sessions);
    jput_num(&w, "elapsed_s", r->elapsed_s);
    jput_str(&w, "created", r->created);
    jput_str(&w, "updated", r->updated);
    return jput_done(&w);
}

/* o[key] as a count into *out, and bit into *have when it is one. */
static bool count_of(const cJSON *o, const char *key, uint64_t *out, unsigned *have, unsigned bit)
{
    bool ok = json_get_u64(o, key, out);
    if (ok)
        *have |= bit;
    return ok;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* "pending" of a continued verify: every round handed out is counted or
 * pending, once. */
static int read_pending(VerifyRecord *r, const cJSON *pend, const char *path, char *err, size_t errlen)
{
    size_t n = (size_t)cJSON_GetArraySize(pend);
    r->own_pending = calloc(n + 1, sizeof *r->own_pending);
    if (!r->own_pending)
        return errmsg(err, errlen, "out of memory");
    r->pending = r->own_pending;
    if (n > r->next_round || r->tally.pairs > r->next_round - n)
        return errmsg(err, errlen, "%s: %llu pairs counted and %zu pending are more than the %llu rounds handed out; "
                      "start over with -restart", path, (unsigned long long)r->tally.pairs, n,
                      (unsigned long long)r->next_round);
    for (size_t i = 0; i < n; i++) {
        uint64_t k;
        if (!json_count(cJSON_GetArrayItem(pend, (int)i), &k) || k >= r->next_round)
            return errmsg(err, errlen, "%s: pending: a round that was never handed out; start over with -restart",
                          path);
        r->own_pending[i] = k;
    }
    r->npending = n;
    uint64_t *sorted = malloc((n + 1) * sizeof *sorted);
    if (!sorted)
        return errmsg(err, errlen, "out of memory");
    memcpy(sorted, r->own_pending, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    size_t twice = n;
    for (size_t i = 1; i < n && twice == n; i++)
        if (sorted[i] == sorted[i - 1])
            twice = i;
    uint64_t k = twice < n ? sorted[twice] : 0;
    free(sorted);
    if (twice < n)
        return errmsg(err, errlen, "%s: pending: round %llu is listed twice; start over with -restart", path,
                      (unsigned long long)k);
    return 0;
}

int verify_record_from_json(VerifyRecord *r, const cJSON *j, bool resume, const char *path, char *err,
                            size_t errlen)
{
    memset(r, 0, sizeof *r);
    MatchTally *t = &r->tally;
    unsigned *h = &r->have;
    r->status = json_get_text(j, "status");
    r->verdict = json_get_text(j, "verdict");
    /* The counts progress needs, in the order they were first checked. */
    bool ok = count_of(j, "games", &t->games, h, VREC_GAMES);
    ok &= json_get_u64(j, "wins", &t->wins);
    ok &= json_get_u64(j, "losses", &t->losses);
    ok &= json_get_u64(j, "draws", &t->draws);
    ok &= count_of(j, "pairs", &t->pairs, h, VREC_PAIRS);
    if (json_get_counts(j, "ptnml", t->ptnml, 5))
        *h |= VREC_PTNML;
    else
        ok = false;
    r->est = (EloEstimate){ .elo = json_num_shown(j, "elo"), .elo_err = json_num_shown(j, "elo_err"), .nelo = json_num_shown(j, "nelo"),
                            .nelo_err = json_num_shown(j, "nelo_err"), .los = json_num_shown(j, "los") };
    const cJSON *sprt = cJSON_GetObjectItemCaseSensitive(j, "sprt");
    r->has_sprt = cJSON_IsObject(sprt);
    r->sprt = (SprtSpec){ .on = r->has_sprt, .elo0 = json_num_shown(sprt, "elo0"), .elo1 = json_num_shown(sprt, "elo1"),
                          .alpha = json_num_shown(sprt, "alpha"), .beta = json_num_shown(sprt, "beta") };
    r->llr = json_num_shown(sprt, "llr");
    r->lower = json_num_shown(sprt, "lower");
    r->upper = json_num_shown(sprt, "upper");
    count_of(j, "rounds", &r->rounds, h, VREC_ROUNDS);
    r->tc = json_get_text(j, "tc");
    r->book = json_get_text(j, "book");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "openings");
    r->has_openings = cJSON_IsObject(op);
    r->set = json_get_text(op, "set");
    r->openings_file = json_get_text(op, "file");
    json_get_u64(op, "count", &r->count);
    json_get_u64(op, "book_size", &r->book_size);
    json_get_u64(op, "fresh_pairs", &r->fresh_pairs);
    r->deterministic = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(op, "deterministic"));
    r->claimed = json_get_u64(op, "held_out_first", &r->held_out_first) &&
                 json_get_u64(op, "held_out_count", &r->held_out_count);
    if (r->claimed)
        *h |= VREC_CLAIM;
    const cJSON *eng = cJSON_GetObjectItemCaseSensitive(j, "engines");
    r->mode = json_get_text(eng, "mode");
    r->engine_tuned = json_get_text(eng, "tuned");
    r->engine_base = json_get_text(eng, "base");
    json_get_u64(j, "run_games", &r->run_games);
    r->base_file = json_get_text(j, "base_file");
    r->tuned_file = json_get_text(j, "tuned_file");
    r->tuned = cJSON_GetObjectItemCaseSensitive(j, "tuned");
    r->base = cJSON_GetObjectItemCaseSensitive(j, "base");
    ok &= json_get_u64(j, "penta_wl", &t->penta_wl);
    ok &= json_get_u64(j, "penta_dd", &t->penta_dd);
    ok &= json_get_u64(j, "plies", &t->plies);
    if (json_get_counts(j, "time_losses", t->time_losses, 2))
        *h |= VREC_TIME_LOSSES;
    else
        ok = false;
    ok &= json_get_counts(j, "crashes", t->crashes, 2);
    ok &= json_get_counts(j, "illegal", t->illegal, 2);
    ok &= json_get_counts(j, "restarts", t->restarts, 2);
    /* absent: not on the wall clock, or an older build; not counted then */
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(j, "wall_search");
    if (ws && !(json_get_u64(ws, "nodes", &t->wall_nodes) && json_get_u64(ws, "ms", &t->wall_ms) &&
                t->wall_nodes <= WALL_SEARCH_MAX && t->wall_ms <= WALL_SEARCH_MAX))
        ok = false;
    ok &= json_get_u64(j, "next_round", &r->next_round);
    ok &= json_get_u64(j, "sessions", &r->sessions);
    ok &= json_get_u64(j, "seed", &r->seed);
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(j, "elapsed_s");
    const cJSON *pend = cJSON_GetObjectItemCaseSensitive(j, "pending");
    r->elapsed_s = json_num_shown(j, "elapsed_s");
    r->created = json_get_text(j, "created");
    r->updated = json_get_text(j, "updated");
    if (!resume)
        return 0;
    if (!ok || !cJSON_IsNumber(el) || !cJSON_IsArray(pend) || !r->created)
        return errmsg(err, errlen, "%s: a field is missing or malformed; start over with -restart", path);
    char why[256];
    if (tally_check(t, why, sizeof why) < 0)
        return errmsg(err, errlen, "%s: the counts disagree: %s; start over with -restart", path, why);
    return read_pending(r, pend, path, err, errlen);
}

void verify_record_free(VerifyRecord *r)
{
    free(r->own_pending);
    r->own_pending = NULL;
    r->pending = NULL;
    r->npending = 0;
}

double verify_record_shown(const VerifyRecord *r, unsigned bit, uint64_t n)
{
    return r->have & bit ? (double)n : NAN;
}

bool verify_time_loss_alarm(uint64_t losses, uint64_t games, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!time_losses_alarming(losses, games))
        return false;
    snprintf(buf, len, "%llu of %llu games lost on time: the machine may be too loaded for this clock, and the "
             "Elo counts those losses; play it on an idle machine", (unsigned long long)losses,
             (unsigned long long)games);
    return true;
}
