/* The SPSA simulator: the SPSA code of tuner/spsa/spsa.c driven by a
 * synthetic match model instead of engines, so c_end / r_end / games can be
 * tried in seconds and convergence can be tested.
 *
 * The model.  A quadratic Elo landscape with a known optimum:
 *     Elo(x) = - sum_i curv_i * ((x_i - opt_i) / c_end_i)^2
 * i.e. curv_i is the Elo lost by parameter i sitting c_end_i away from its
 * optimum (with `scale`, the landscape's unit is c_end_i / scale_i instead) (with `skew`, a different curvature on each side of it, where a
 * wide probe pair straddling the optimum no longer cancels; with `width`, a
 * loss that saturates far from the optimum, where the slope fades as it does
 * on bin/ratchet's plateaus).  A game pair between the `+` values x+ and the `-` values x- (the
 * integers the engines would play) has the Elo difference
 * d = Elo(x+) - Elo(x-); each game's expected score is the logistic
 * s = 1 / (1 + 10^(-d'/400)) with d' = d + b for the game where `+` has White
 * and d' = d - b for the other, b ~ Normal(0, opening_bias) drawn per pair
 * (the opening's White advantage; 0 = no bias).  A game is a draw with
 * probability min(draw_ratio, 2 min(s, 1 - s)), a win with s - P(draw)/2, a
 * loss otherwise; so both games of a pair give a pentanomial outcome.
 * Asynchronous batches: up to `concurrency` batches are out at once and a
 * random one of them finishes next.  All randomness comes from GSL RNGs
 * seeded from the seed: deterministic for a given seed.
 */
#ifndef RATCHET_SIMULATE_H
#define RATCHET_SIMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spsa.h"

/* A cross term of the landscape: Elo loss += k * z_a * z_b, with z the
 * distances from the optimum in units of c_end (|k| < 2 sqrt(curv_a curv_b)
 * keeps the optimum unique). */
typedef struct {
    size_t a, b;
    double k;
} SimCoupling;

typedef struct {
    size_t nparams;
    const double *opt;   /* optimum per parameter, inside [min, max] */
    const double *curv;  /* Elo lost at a distance of c_end from the optimum */
    double draw_ratio;   /* draw probability of an even game, 0..1 */
    double opening_bias; /* std dev in Elo of an opening's White advantage */
    int concurrency;     /* batches in flight at once, >= 1 */
    size_t ncouplings;   /* cross terms (0 = a separable landscape) */
    const SimCoupling *couplings;
    const double *skew;  /* per parameter, or NULL: an asymmetric landscape, the
                          * curvature curv_i (1 + skew_i) above the optimum and
                          * curv_i (1 - skew_i) below it, -1 < skew_i < 1 */
    const double *width; /* per parameter, or NULL: a landscape with plateaus, the
                          * loss of parameter i saturating at curv_i w_i^2 far from
                          * the optimum: curv_i w_i^2 (1 - exp(-(z / w_i)^2)), z and
                          * w_i in c_end, so quadratic near the optimum and flat far
                          * away (w_i <= 0: quadratic) */
    const double *scale; /* per parameter, or NULL (all 1): the spec's c_end_i is
                          * scale_i units of the landscape, z = (x_i - opt_i) *
                          * scale_i / c_end_i (scale_i 5: c_end 5x too large) */
} SimModel;

/* The model's defaults (simulate, its suite and grid), measured on
 * bin/ratchet at nodes=5000 (a 600-game history.csv,
 * docs/results/spsa-suite.md): draws, and the opening bias that gives the
 * share of win-and-loss pairs seen there. */
#define SIM_DRAW_RATIO 0.25
#define SIM_OPENING_BIAS 80.0

typedef struct {
    uint64_t games;      /* games played */
    double start_loss;   /* Elo loss of the start values */
    double loss;         /* Elo loss of the final estimate (real-valued) */
    double loss_int;     /* Elo loss of the final estimate rounded to integers (spsa_value) */
    uint64_t wins, losses, draws; /* of the `+` engine */
    uint64_t games_to_1; /* games played when the estimate's loss first fell below 1 Elo
                          * (0 if it started below; UINT64_MAX if it never did) */
} SimResult;

/* Elo loss (>= 0 with valid couplings) of x in the model's landscape. */
double sim_elo_loss(const SimModel *m, const SpsaParam *params, const double *x);

/* One simulated tuning run from params (theta = start) with cfg and seed.
 * final (nparams entries, may be NULL) receives the final estimate (theta, or
 * the iterate average when cfg->average is on).  progress: if not NULL, ten
 * progress lines are printed there.  0 on success; -1 with err filled. */
int sim_run(const SpsaParam *params, size_t nparams, const SpsaConfig *cfg, const SimModel *m,
            uint64_t seed, double *final, SimResult *res, FILE *progress, char *err,
            size_t errlen);

/* sim_run, calling trace(ctx, state) after every batch is applied (the
 * state's theta as history.csv would record it). */
typedef void (*SimTraceFn)(void *ctx, const SpsaState *st);
int sim_run_traced(const SpsaParam *params, size_t nparams, const SpsaConfig *cfg, const SimModel *m,
                   uint64_t seed, double *final, SimResult *res, FILE *progress, SimTraceFn trace, void *ctx,
                   char *err, size_t errlen);

#endif
