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
        wall_search_add(&t->wall_nodes, &t->wall_ms, r->wall_nodes[e], r->wall_ms[e]);
    }
}

int tally_check(const MatchTally *t, char *why, size_t len)
{
    /* Each count is at most 2^53 (json_get_u64), so the sums do not wrap. */
    uint64_t in_pairs = 0, half_points = 0;
    for (int k = 0; k < 5; k++) {
        in_pairs += t->ptnml[k];
        half_points += (uint64_t)k * t->ptnml[k];
    }
    if (t->wins + t->draws + t->losses != t->games)
        return errmsg(why, len, "wins %llu + draws %llu + losses %llu is not the games %llu",
                      (unsigned long long)t->wins, (unsigned long long)t->draws, (unsigned long long)t->losses,
                      (unsigned long long)t->games);
    if (in_pairs != t->pairs)
        return errmsg(why, len, "the ptnml counts add up to %llu pairs, not the pairs %llu",
                      (unsigned long long)in_pairs, (unsigned long long)t->pairs);
    if (2 * t->pairs > t->games)
        return errmsg(why, len, "%llu pairs are more games than the games %llu", (unsigned long long)t->pairs,
                      (unsigned long long)t->games);
    if (t->penta_wl + t->penta_dd != t->ptnml[2])
        return errmsg(why, len, "penta_wl %llu + penta_dd %llu is not ptnml[2] %llu", (unsigned long long)t->penta_wl,
                      (unsigned long long)t->penta_dd, (unsigned long long)t->ptnml[2]);
    /* The pairs' points are some of the games' points, from either side. */
    if (half_points > 2 * t->wins + t->draws || 4 * t->pairs - half_points > 2 * t->losses + t->draws)
        return errmsg(why, len, "the ptnml counts score %llu of %llu half-points, which wins %llu, draws %llu and "
                      "losses %llu do not hold", (unsigned long long)half_points, (unsigned long long)(4 * t->pairs),
                      (unsigned long long)t->wins, (unsigned long long)t->draws, (unsigned long long)t->losses);
    for (int e = 0; e < 2; e++)
        if (t->time_losses[e] > t->games || t->crashes[e] > t->games || t->illegal[e] > t->games)
            return errmsg(why, len, "engine %d has more time losses, crashes or illegal moves than there are games "
                          "(%llu)", e, (unsigned long long)t->games);
    return 0;
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
