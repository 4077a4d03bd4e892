/* verify's verdict as status and verify print it; see verdict.h. */
#include "verdict.h"

#include <string.h>

#include "elotext.h"
#include "jsonget.h"
#include "setup.h"
#include "stats.h"

void verdict_print(FILE *out, const cJSON *j, const char *dir)
{
    const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(j, "verdict");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(j, "tc");
    const cJSON *eng = cJSON_GetObjectItemCaseSensitive(j, "engines");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(eng, "mode");
    const cJSON *sprt = cJSON_GetObjectItemCaseSensitive(j, "sprt");
    uint64_t ptnml[5] = { 0 }, games = 0, run_games = 0;
    json_get_counts(j, "ptnml", ptnml, 5);
    json_get_u64(j, "games", &games);
    json_get_u64(j, "run_games", &run_games);
    const char *vs = cJSON_IsString(verdict) ? verdict->valuestring : "?";
    const char *st = cJSON_IsString(status) ? status->valuestring : "?";
    const cJSON *bf = cJSON_GetObjectItemCaseSensitive(j, "base_file");
    const cJSON *tf = cJSON_GetObjectItemCaseSensitive(j, "tuned_file");
    if (cJSON_IsString(tf) && tf->valuestring[0])
        fprintf(out, "verify: the values of %s", tf->valuestring);
    else
        fprintf(out, "verify: the values after %llu games", (unsigned long long)run_games);
    fprintf(out, " against %s, %s, %s engines: ", cJSON_IsString(bf) && bf->valuestring[0] ? bf->valuestring : "the start values",
            cJSON_IsString(tc) ? tc->valuestring : "?",
            cJSON_IsString(mode) ? mode->valuestring : "?");
    if (!strcmp(vs, "identical")) {
        fprintf(out, "the tuned values are the start values: nothing to verify\n");
        return;
    }
    if (!strcmp(st, "done")) {
        if (!strcmp(vs, "H1") || !strcmp(vs, "H0"))
            fprintf(out, "SPRT %s accepted", vs);
        else if (!strcmp(vs, "undecided"))
            fprintf(out, "SPRT undecided at the round limit");
        else
            fprintf(out, "played (no SPRT)");
    } else {
        fprintf(out, "%s (continue with: %s verify %s)", st, setup_prog(), dir);
    }
    EloEstimate e;
    stats_from_ptnml(ptnml, &e);
    char elo[160], nelo[160];
    fprintf(out, "\n  %llu games, Elo %s, nElo %s, LOS %.1f%%, Ptnml(0-2) [%llu, %llu, %llu, %llu, %llu]",
            (unsigned long long)games, elo_text(elo, sizeof elo, e.elo, e.elo_err, 2, false, ptnml, 0, 0, 0),
            elo_has_interval(e.nelo, e.nelo_err) ? elo_text(nelo, sizeof nelo, e.nelo, e.nelo_err, 2, false, ptnml, 0, 0, 0)
                                                 : "n/a",
            100 * e.los, (unsigned long long)ptnml[0],
            (unsigned long long)ptnml[1], (unsigned long long)ptnml[2], (unsigned long long)ptnml[3],
            (unsigned long long)ptnml[4]);
    if (cJSON_IsObject(sprt)) {
        const cJSON *llr = cJSON_GetObjectItemCaseSensitive(sprt, "llr"), *lo = cJSON_GetObjectItemCaseSensitive(sprt, "lower"),
                    *up = cJSON_GetObjectItemCaseSensitive(sprt, "upper"), *e0 = cJSON_GetObjectItemCaseSensitive(sprt, "elo0"),
                    *e1 = cJSON_GetObjectItemCaseSensitive(sprt, "elo1");
        if (cJSON_IsNumber(llr) && cJSON_IsNumber(lo) && cJSON_IsNumber(up) && cJSON_IsNumber(e0) && cJSON_IsNumber(e1))
            fprintf(out, ", LLR %.2f (%.2f, %.2f) [%.2f, %.2f]", llr->valuedouble, lo->valuedouble, up->valuedouble,
                    e0->valuedouble, e1->valuedouble);
    }
    fputc('\n', out);
}

/* The run's values now, as verify.json's "tuned" holds them: every
 * parameter of the run by name (NULL on OOM). */
void verdict_print_status(FILE *out, const char *dir, const cJSON *j, const char *err, const RunState *rs)
{
    fputc('\n', out);
    if (!j) {
        fprintf(out, "verify: %s\n", err);
        return;
    }
    verdict_print(out, j, dir);
    uint64_t run_games = 0;
    json_get_u64(j, "run_games", &run_games);
    cJSON *now = rs ? runstate_values_json(rs) : NULL;
    const cJSON *then = cJSON_GetObjectItemCaseSensitive(j, "tuned");
    if (now && !(then && cJSON_Compare(now, then, true)))
        fprintf(out, "  the run has moved on since (%llu games now, %llu then): %s verify %s checks the new values\n",
                (unsigned long long)rs->games, (unsigned long long)run_games, setup_prog(), dir);
    cJSON_Delete(now);
}
