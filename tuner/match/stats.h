/* Match statistics: Elo estimates with 95% intervals, LOS and SPRT
 * log-likelihood ratios, for game pairs (pentanomial) and for single games
 * (trinomial W/D/L).  The definitions follow fastchess so that a user sees
 * the same figures here as there:
 *
 *   score      mean score per game, 0..1 (for pairs: the pair's points / 2)
 *   Elo        logistic Elo of the score, -400 log10(1/score - 1); its 95%
 *              interval is the logistic transform of score +/- z sd / sqrt(N),
 *              with sd the standard deviation of one pair's score (or one
 *              game's) and N the number of pairs (or games); the reported
 *              error is half the width of that transformed interval
 *   nElo       normalized Elo (Michel Van den Bergh): (score - 0.5) / sigma
 *              * 800 / ln 10, with sigma the standard deviation of one game's
 *              score; for pairs sigma = sqrt(2) * sd_pair
 *   LOS        Phi((score - 0.5) / (sd / sqrt(N)))
 *
 * The SPRT uses the normalized model (fastchess's default): H0 nElo = elo0
 * against H1 nElo = elo1, each hypothesis taken at the maximum-likelihood
 * distribution that satisfies it. */
#ifndef RATCHET_STATS_H
#define RATCHET_STATS_H

#include <stdint.h>

/* Pentanomial categories, from engine 0's view: the pair's total points. */
enum { PTNML_LL, PTNML_LD, PTNML_DD_WL, PTNML_WD, PTNML_WW, PTNML_N };

typedef struct {
    double score;            /* mean score per game, 0..1 */
    double elo, elo_err;     /* logistic Elo and half-width of its 95% interval */
    double nelo, nelo_err;   /* normalized Elo and half-width of its 95% interval */
    double los;              /* likelihood of superiority, 0..1 */
    double draw_ratio;       /* pentanomial: share of pairs that scored 1/2 in
                              * total (DD + WL), as fastchess's "DrawRatio";
                              * trinomial: share of drawn games */
} EloEstimate;

/* ptnml[5] = LL, LD, DD+WL, WD, WW pair counts from engine 0's view.
 * Returns 0 with every field filled.  Returns -1 when no interval exists:
 *   - no pairs: score 0.5, los 0.5, everything else 0;
 *   - zero variance (every pair in one category): the point values of the
 *     sample (score, draw_ratio; elo and nelo 0 at score 0.5, +/-INFINITY
 *     otherwise; los 0.5, 1 or 0), both errors 0.
 * An interval reaching score 0 or 1 gives an infinite elo_err. */
int stats_from_ptnml(const uint64_t ptnml[5], EloEstimate *out);
/* The same for unpaired games, with the trinomial (W/D/L) variance. */
int stats_from_wdl(uint64_t wins, uint64_t losses, uint64_t draws, EloEstimate *out);

/* SPRT log-likelihood ratio, normalized pentanomial model as fastchess's
 * default: elo0/elo1 are normalized Elo (the nElo above).  Empty categories
 * count as 1e-3 pairs (as fastchess does), so the value is finite from the
 * first pair on; with no pairs at all it is 0.
 * The fit is exact for practical bounds (checked against an independent
 * computation, see tests/test_stats.c).  Limits: with lopsided data (nearly
 * every pair in one category) and a bound far from the data, the constrained
 * likelihood can have several local maxima and the fit may find a lower one;
 * the LLR is then already far beyond Wald's bounds, so the decision stands.
 * Bounds beyond about 230 nElo (pairs) or 340 (games) may have no fit: NAN,
 * which a caller treats as "continue"; reject such bounds up front. */
double stats_sprt_llr_ptnml(const uint64_t ptnml[5], double elo0, double elo1);
/* The same for unpaired games (normalized trinomial model). */
double stats_sprt_llr_wdl(uint64_t wins, uint64_t losses, uint64_t draws, double elo0, double elo1);
/* Wald's bounds: lower = log(beta / (1 - alpha)), upper = log((1 - beta) / alpha).
 * Accept H0 at llr <= lower, H1 at llr >= upper. */
void stats_sprt_bounds(double alpha, double beta, double *lower, double *upper);

#endif
