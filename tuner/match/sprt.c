/* The tally, the estimate and the SPRT of a match.  See sprt.h. */
#include "sprt.h"

#include <string.h>

#include "cliutil.h"
#include "errmsg.h"

void tally_add(MatchTally *t, const PairResult *r)
{
    for (int g = 0; g < r->games; g++) {
        t->games++;
        t->plies += (uint64_t)r->plies[g];
        if (r->score2[g] == 2)
            t->wins++;
        else if (r->score2[g] == 1)
            t->draws++;
        else
            t->losses++;
    }
    if (r->games == 2 && r->ptnml_index >= 0 && r->ptnml_index < 5) {
        t->pairs++;
        t->ptnml[r->ptnml_index]++;
        if (r->ptnml_index == 2) {
            if (r->score2[0] == 1)
                t->penta_dd++;
            else
                t->penta_wl++;
        }
    }
    for (int e = 0; e < 2; e++) {
        t->time_losses[e] += (uint64_t)r->time_losses[e];
        t->crashes[e] += (uint64_t)r->crashes[e];
        t->illegal[e] += (uint64_t)r->illegal[e];
        t->restarts[e] += (uint64_t)r->restarts[e];
    }
}

int sprt_check(const MatchTally *t, const SprtSpec *s, double *llr, double *lower, double *upper)
{
    stats_sprt_bounds(s->alpha, s->beta, lower, upper);
    *llr = t->pairs > 0 ? stats_sprt_llr_ptnml(t->ptnml, s->elo0, s->elo1)
                        : stats_sprt_llr_wdl(t->wins, t->losses, t->draws, s->elo0, s->elo1);
    if (*llr >= *upper)
        return 1;
    if (*llr <= *lower)
        return -1;
    return 0;
}

void match_estimate(const MatchTally *t, EloEstimate *e)
{
    if (t->pairs > 0)
        stats_from_ptnml(t->ptnml, e);
    else
        stats_from_wdl(t->wins, t->losses, t->draws, e);
}

int sprt_kv(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    SprtSpec *s = ctx;
    double d;
    if (!strcmp(key, "model")) {
        if (strcmp(v, "normalized") != 0)
            return errmsg(err, errlen, "-sprt: model=%s is not supported (normalized)", v);
        return 0;
    }
    if (!cli_parse_double(v, -1000, 1000, &d))
        return errmsg(err, errlen, "-sprt: bad %s='%s'", key, v);
    if (!strcmp(key, "elo0"))
        s->elo0 = d;
    else if (!strcmp(key, "elo1"))
        s->elo1 = d;
    else if (!strcmp(key, "alpha"))
        s->alpha = d;
    else if (!strcmp(key, "beta"))
        s->beta = d;
    else
        return errmsg(err, errlen, "-sprt: unknown key '%s' (elo0, elo1, alpha, beta)", key);
    return 0;
}
