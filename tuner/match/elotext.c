/* An Elo estimate that has no interval, in words; see elotext.h. */
#include "elotext.h"

#include <math.h>
#include <stdio.h>

#include "stats.h"

bool elo_has_interval(double elo, double err)
{
    /* A zero half-width is a sample with no variance: every pair in one
     * category.  Only Elo 0 is shown so (draws only, as fastchess prints
     * it); "-190.8 +/- 0.0" after one LD pair would claim a certainty the
     * sample does not have. */
    return isfinite(elo) && isfinite(err) && (err > 0 || (err == 0 && elo == 0));
}

const char *elo_na_text(char *buf, size_t len, const uint64_t *ptnml, uint64_t wins, uint64_t losses,
                        uint64_t draws)
{
    static const char *const cats[PTNML_N] = { "LL", "LD", "DD+WL", "WD", "WW" };
    uint64_t pairs = 0, halves = 0; /* halves: the pairs' points in half points (0..4 each) */
    int filled = 0, last = 0;
    for (int i = 0; ptnml && i < PTNML_N; i++) {
        pairs += ptnml[i];
        halves += (uint64_t)i * ptnml[i];
        if (ptnml[i]) {
            filled++;
            last = i;
        }
    }
    if (pairs > 0) {
        double score = 100.0 * (double)halves / (4.0 * (double)pairs);
        if (filled > 1)
            snprintf(buf, len, "n/a (%llu pairs, score %.1f%%: too few games for a finite interval)",
                     (unsigned long long)pairs, score);
        else if (pairs == 1)
            snprintf(buf, len, "n/a (1 pair, %s, score %.1f%%: too few games for an interval)", cats[last], score);
        else
            snprintf(buf, len, "n/a (all %llu pairs %s, score %.1f%%: too few games for an interval)",
                     (unsigned long long)pairs, cats[last], score);
        return buf;
    }
    uint64_t games = wins + losses + draws;
    if (games == 0) {
        snprintf(buf, len, "n/a (no games yet)");
        return buf;
    }
    double score = 100.0 * ((double)wins + 0.5 * (double)draws) / (double)games;
    const char *one = wins == games ? "won" : losses == games ? "lost" : draws == games ? "drawn" : NULL;
    if (!one)
        snprintf(buf, len, "n/a (%llu games, score %.1f%%: too few games for a finite interval)",
                 (unsigned long long)games, score);
    else if (games == 1)
        snprintf(buf, len, "n/a (1 game, %s, score %.1f%%: too few games for an interval)", one, score);
    else
        snprintf(buf, len, "n/a (all %llu games %s, score %.1f%%: too few games for an interval)",
                 (unsigned long long)games, one, score);
    return buf;
}

const char *elo_text(char *buf, size_t len, double elo, double err, int digits, bool plus, const uint64_t *ptnml,
                     uint64_t wins, uint64_t losses, uint64_t draws)
{
    if (!elo_has_interval(elo, err))
        return elo_na_text(buf, len, ptnml, wins, losses, draws);
    snprintf(buf, len, plus ? "%+.*f +/- %.*f" : "%.*f +/- %.*f", digits, elo_no_minus_zero(elo, digits), digits,
             err);
    return buf;
}

double elo_no_minus_zero(double x, int digits)
{
    return fabs(x) < 0.5 * pow(10, -digits) ? 0.0 : x;
}
