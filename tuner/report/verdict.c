/* verify's verdict as status and verify print it; see verdict.h. */
#include "verdict.h"

#include <math.h>
#include <string.h>

#include "elotext.h"
#include "jsonget.h"
#include "setup.h"
#include "stats.h"

void verdict_print(FILE *out, const VerifyRecord *r, const char *dir)
{
    const uint64_t *ptnml = r->tally.ptnml;
    const char *vs = json_shown(r->verdict);
    const char *st = json_shown(r->status);
    if (r->tuned_file && r->tuned_file[0])
        fprintf(out, "verify: the values of %s", r->tuned_file);
    else
        fprintf(out, "verify: the values after %llu games", (unsigned long long)r->run_games);
    fprintf(out, " against %s, %s, %s engines: ", r->base_file && r->base_file[0] ? r->base_file : "the start values",
            json_shown(r->tc), json_shown(r->mode));
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
            (unsigned long long)r->tally.games, elo_text(elo, sizeof elo, e.elo, e.elo_err, 2, false, ptnml, 0, 0, 0),
            elo_has_interval(e.nelo, e.nelo_err) ? elo_text(nelo, sizeof nelo, e.nelo, e.nelo_err, 2, false, ptnml, 0, 0, 0)
                                                 : "n/a",
            100 * e.los, (unsigned long long)ptnml[0],
            (unsigned long long)ptnml[1], (unsigned long long)ptnml[2], (unsigned long long)ptnml[3],
            (unsigned long long)ptnml[4]);
    if (r->has_sprt && !isnan(r->llr) && !isnan(r->lower) && !isnan(r->upper) && !isnan(r->sprt.elo0) &&
        !isnan(r->sprt.elo1))
        fprintf(out, ", LLR %.2f (%.2f, %.2f) [%.2f, %.2f]", r->llr, r->lower, r->upper, r->sprt.elo0, r->sprt.elo1);
    fputc('\n', out);
}

/* The run's values now, as verify.json's "tuned" holds them: every
 * parameter of the run by name (NULL on OOM). */
void verdict_print_status(FILE *out, const char *dir, const VerifyRecord *r, const char *err, const RunState *rs)
{
    fputc('\n', out);
    if (!r) {
        fprintf(out, "verify: %s\n", err);
        return;
    }
    verdict_print(out, r, dir);
    cJSON *now = rs ? runstate_values_json(rs) : NULL;
    if (now && !(r->tuned && cJSON_Compare(now, r->tuned, true)))
        fprintf(out, "  the run has moved on since (%llu games now, %llu then): %s verify %s checks the new values\n",
                (unsigned long long)rs->games, (unsigned long long)r->run_games, setup_prog(), dir);
    cJSON_Delete(now);
}
