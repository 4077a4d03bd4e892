/* The power of a validation schedule (validate.h), simulated: what a run's
 * validation points would say for a known true Elo trajectory, over many
 * seeds (`ratchet-tune simulate -validation`,
 * docs/results/validation-power.md).
 *
 * The model.  The snapshot taken at a fraction f of the budget has the true
 * Elo e(f) against the start values:
 *   - walk: e(f) = walk f (the values drift to `walk` Elo at the end; -20: a
 *     run that loses);
 *   - flat: e(f) = flat for every f > 0 (a gain made early and kept);
 *   - null: e(f) = 0 (nothing gained: the best point's selection bias);
 *   - collapse: e(f) = collapse for every f > 0 (a run broken from the
 *     start: does a point before the final one show the loss, so that the
 *     run can be stopped early?).
 * Each of a point's game pairs is one pentanomial outcome, drawn (GSL
 * multinomial) from a real night's pentanomial shape tilted to the mean
 * score of e(f): p_i(l) proportional to shape_i exp(l x_i), x_i = i / 4 the
 * pair's score, l solved (GSL Brent) so that sum p_i x_i is the logistic
 * score of e(f).  The point's Elo and 95% interval are stats_from_ptnml's,
 * as a run computes them.
 *
 * The verdict of a schedule is its final point, the values `export`
 * writes: a significant loss when its interval lies below 0, a significant
 * gain when above.  For the best point (validate_best) under the null: its
 * Elo (the selection bias), how often its interval excludes 0, and its Elo
 * less validate_selection_bias (the correction status and export show). */
#ifndef RATCHET_VALPOWER_H
#define RATCHET_VALPOWER_H

#include <stddef.h>
#include <stdint.h>

#include "validate.h"

/* A real night's pentanomial counts (Ptnml(0-2) of 2000 pairs, nodes=5000,
 * the second night of docs/results/tuning-night.md): the shape drawn from. */
extern const double VALPOWER_NIGHT_PTNML[5];

typedef struct {
    uint64_t budget;   /* tuning games of the run */
    double walk, flat; /* the trajectories' final Elo (walk) and level (flat) */
    double collapse;   /* the level of the collapse trajectory */
    const double *shape; /* 5 pentanomial weights (NULL: VALPOWER_NIGHT_PTNML) */
    uint64_t seed0;    /* the first seed */
    int seeds;         /* runs per trajectory */
} ValPowerConf;

typedef struct {
    uint64_t points, games;   /* points of the schedule and their games in all */
    uint64_t final_games;     /* games of the final point */
    double walk_loss;         /* walk: share of runs whose final point is a significant loss */
    double flat_gain;         /* flat: share whose final point is a significant gain */
    double null_loss, null_gain; /* null: share whose final point is significant either way */
    double early_warning;     /* collapse: share in which a point before the final one is a significant loss */
    double final_err;         /* median half-width of the final point's 95% interval (null) */
    double best_mean, best_median; /* null: the best point's Elo (its selection bias) */
    double best_excludes0;    /* null: share whose best point's interval lies above 0 */
    double best_se;           /* null: median standard error (elo_err / 1.96) of the best point */
    double corr_mean, corr_median; /* null: the best point's Elo less validate_selection_bias */
    double corr_above0;       /* null: share of the corrected Elo above 2 best SEs (what "significant" would be) */
} ValPowerResult;

/* Simulates the schedule v (every, games, final; the rest ignored) under
 * the three trajectories.  0, or -1 with a message. */
int valpower_run(const Validation *v, const ValPowerConf *c, ValPowerResult *out, char *err, size_t errlen);

#endif
