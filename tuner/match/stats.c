/* Elo estimates, LOS and the normalized SPRT.  See stats.h for the
 * definitions; the SPRT's maximum-likelihood step is explained at
 * constrained_mle() below. */
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_roots.h>

/* 800 / ln 10: converts a normalized score difference into normalized Elo. */
#define NELO_SCALE (800.0 / M_LN10)

/* Per-pair score (points / 2) of each pentanomial category; per-game score of
 * L, D, W. */
static const double PTNML_SCORES[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
static const double WDL_SCORES[3] = {0.0, 0.5, 1.0};

/* ------------------------------------------------------------------ */
/* Elo estimates                                                        */

/* Logistic Elo of a score, infinite at 0 and 1. */
static double score_to_elo(double s)
{
    if (s <= 0.0)
        return -INFINITY;
    if (s >= 1.0)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

/* Mean and variance of a discrete distribution: outcomes x[] with
 * probabilities p[] (summing to 1). */
static void mean_var(const double *x, const double *p, int n, double *mu, double *var)
{
    double m = 0.0, v = 0.0;
    for (int i = 0; i < n; i++)
        m += p[i] * x[i];
    for (int i = 0; i < n; i++)
        v += p[i] * (x[i] - m) * (x[i] - m);
    *mu = m;
    *var = v;
}

static double sign_of(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0; }

/* The estimate from n observations of a unit (a game or a pair) whose
 * outcomes x[] occurred with frequencies p[]; `games_per_unit` is 1 or 2
 * (sigma of one game = sqrt(2) * sd of a pair's score). */
static int estimate(const double *x, const double *p, int k, double n, double games_per_unit,
                    double draw_ratio, EloEstimate *out)
{
    memset(out, 0, sizeof *out);
    out->score = 0.5;
    out->los = 0.5;
    if (n <= 0.0)
        return -1;

    double mu, var;
    mean_var(x, p, k, &mu, &var);
    out->score = mu;
    out->draw_ratio = draw_ratio;
    out->elo = score_to_elo(mu);
    if (!(var > 0.0)) {
        /* Every unit in one category: no spread, no interval. */
        out->nelo = mu == 0.5 ? 0.0 : sign_of(mu - 0.5) * INFINITY;
        out->los = mu == 0.5 ? 0.5 : mu > 0.5 ? 1.0 : 0.0;
        if (mu == 0.5)
            out->elo = 0.0;
        return -1;
    }

    double z = gsl_cdf_ugaussian_Pinv(0.975);
    double se = sqrt(var / n);              /* standard error of the mean */
    double lo = fmax(mu - z * se, 0.0);
    double hi = fmin(mu + z * se, 1.0);
    out->elo_err = (score_to_elo(hi) - score_to_elo(lo)) / 2.0;

    double sigma_game = sqrt(var * games_per_unit);
    out->nelo = (mu - 0.5) / sigma_game * NELO_SCALE;
    out->nelo_err = z * se / sigma_game * NELO_SCALE;
    out->los = gsl_cdf_ugaussian_P((mu - 0.5) / se);
    return 0;
}

int stats_from_ptnml(const uint64_t ptnml[5], EloEstimate *out)
{
    double n = 0.0, p[5];
    for (int i = 0; i < 5; i++)
        n += (double)ptnml[i];
    for (int i = 0; i < 5; i++)
        p[i] = n > 0.0 ? (double)ptnml[i] / n : 0.0;
    return estimate(PTNML_SCORES, p, 5, n, 2.0, p[PTNML_DD_WL], out);
}

int stats_from_wdl(uint64_t wins, uint64_t losses, uint64_t draws, EloEstimate *out)
{
    double n = (double)wins + (double)losses + (double)draws;
    double p[3] = {0.0, 0.0, 0.0};
    if (n > 0.0) {
        p[0] = (double)losses / n;
        p[1] = (double)draws / n;
        p[2] = (double)wins / n;
    }
    return estimate(WDL_SCORES, p, 3, n, 1.0, p[1], out);
}

/* ------------------------------------------------------------------ */
/* Normalized SPRT                                                      */

/* The largest number of outcome categories handled (pentanomial). */
#define MAXK 5

/* Equation for the Lagrange multiplier theta of one fixed-point step:
 * f(theta) = sum_i phat_i phi_i / (1 + theta phi_i), strictly decreasing on
 * the interval where every 1 + theta phi_i > 0. */
typedef struct {
    const double *phat;
    const double *phi;
    int k;
} ThetaEq;

static double theta_eq(double theta, void *arg)
{
    const ThetaEq *e = arg;
    double f = 0.0;
    for (int i = 0; i < e->k; i++)
        f += e->phat[i] * e->phi[i] / (1.0 + theta * e->phi[i]);
    return f;
}

/* Solves theta_eq(theta) = 0 with GSL's Brent solver.  The root lies in
 * (-1/max phi, -1/min phi); the function tends to +inf at the left end and
 * to -inf at the right one (every phat_i > 0), so an inset bracket exists.
 * Returns false if min phi >= 0 or max phi <= 0 (no root). */
static bool solve_theta(ThetaEq *e, double *theta)
{
    double u = e->phi[0], v = e->phi[0];
    for (int i = 1; i < e->k; i++) {
        u = fmin(u, e->phi[i]);
        v = fmax(v, e->phi[i]);
    }
    if (!(u < 0.0 && v > 0.0))
        return false;

    double a0 = -1.0 / v, b0 = -1.0 / u;
    double a = 0.0, b = 0.0;
    bool bracketed = false;
    for (double inset = 1e-3; inset > 1e-15 && !bracketed; inset *= 1e-3) {
        a = a0 + inset * (b0 - a0);
        b = b0 - inset * (b0 - a0);
        bracketed = theta_eq(a, e) > 0.0 && theta_eq(b, e) < 0.0;
    }
    if (!bracketed)
        return false;

    gsl_function F = {.function = theta_eq, .params = e};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return false;
    gsl_root_fsolver_set(s, &F, a, b);
    /* To machine precision: near a pole of the sum a small error in theta
     * is a large relative error in p_i.  Brent keeps a bracket, so after the
     * iteration cap the root is still as good as the bracket is narrow. */
    bool ok = true;
    int status = GSL_CONTINUE;
    for (int iter = 0; iter < 200 && status == GSL_CONTINUE && ok; iter++) {
        ok = gsl_root_fsolver_iterate(s) == GSL_SUCCESS;
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
                                        0.0, 4 * GSL_DBL_EPSILON);
    }
    *theta = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    return ok && isfinite(*theta);
}

/* The maximum-likelihood distribution p over outcomes x[] (k of them), given
 * the empirical frequencies phat[] (all > 0), under the constraint
 *     (mu(p) - 1/2) / sigma(p) = t.
 * Following Van den Bergh ("Comments on normalized Elo", section 4.1): with
 * g(p) = mu - 1/2 - t sigma, the Lagrange conditions give
 *     p_i = phat_i / (1 + theta phi_i),  sum_i p_i phi_i = 0,
 * where phi_i = d g / d p_i shifted by a constant so that sum p_i phi_i = g(p):
 *     phi_i = x_i - 1/2 - (t sigma / 2) (1 + ((x_i - mu) / sigma)^2).
 * phi depends on p, so iterate from the starting distribution in p[]:
 * compute phi at the current p, solve for theta, update p.  Returns false if
 * a step has no solution (the start is too far from the answer). */
static bool mle_iterate(const double *x, const double *phat, int k, double t, double *p)
{
    double change = 1.0;
    for (int iter = 0; iter < 1000 && change >= 1e-12; iter++) {
        double mu, var, phi[MAXK];
        mean_var(x, p, k, &mu, &var);
        double sigma = sqrt(var);
        if (!(sigma > 0.0))
            return false;
        for (int i = 0; i < k; i++) {
            double d = (x[i] - mu) / sigma;
            phi[i] = x[i] - 0.5 - 0.5 * t * sigma * (1.0 + d * d);
        }

        ThetaEq e = {phat, phi, k};
        double theta;
        if (!solve_theta(&e, &theta))
            return false;

        change = 0.0;
        for (int i = 0; i < k; i++) {
            double q = phat[i] / (1.0 + theta * phi[i]);
            change = fmax(change, fabs(q - p[i]));
            p[i] = q;
        }
    }
    /* With a nearly empty category carrying half the fitted mass, rounding in
     * theta leaves a limit cycle of some 1e-9 (the LLR moves by ~N * 1e-9);
     * accept that, not a real failure to converge. */
    return change < 1e-6;
}

/* Log-likelihood of p for the frequencies phat, up to a constant. */
static double loglik(const double *phat, const double *p, int k)
{
    double l = 0.0;
    for (int i = 0; i < k; i++)
        l += phat[i] * log(p[i]);
    return l;
}

/* The constraint is not convex: with lopsided data (nearly every pair in one
 * category) there can be more than one stationary point.  Iterate from the
 * uniform distribution (the paper's suggestion, and fastchess's) and from
 * the empirical one, and keep the better fit.  The uniform start has no
 * solution for theta once |t| >= 0.9428 (bounds of some 230 nElo for pairs,
 * 340 for games); the empirical start sometimes none for other reasons. */
static bool constrained_mle(const double *x, const double *phat, int k, double t, double *p)
{
    double q[MAXK];
    for (int i = 0; i < k; i++)
        p[i] = 1.0 / k;
    memcpy(q, phat, (size_t)k * sizeof *q);
    bool ok_p = mle_iterate(x, phat, k, t, p);
    bool ok_q = mle_iterate(x, phat, k, t, q);
    if (ok_q && (!ok_p || loglik(phat, q, k) > loglik(phat, p, k)))
        memcpy(p, q, (size_t)k * sizeof *p);
    return ok_p || ok_q;
}

/* LLR of H1 (t = t1) against H0 (t = t0) for counts[] over outcomes x[]:
 * total * sum_i phat_i log(p1_i / p0_i).  Empty categories count 1e-3. */
static double llr_normalized(const uint64_t *counts, const double *x, int k, double t0, double t1)
{
    double c[MAXK], phat[MAXK], p0[MAXK], p1[MAXK], total = 0.0;
    bool any = false;
    for (int i = 0; i < k; i++) {
        any |= counts[i] > 0;
        c[i] = counts[i] > 0 ? (double)counts[i] : 1e-3;
        total += c[i];
    }
    if (!any)
        return 0.0;
    for (int i = 0; i < k; i++)
        phat[i] = c[i] / total;

    if (!constrained_mle(x, phat, k, t0, p0) || !constrained_mle(x, phat, k, t1, p1))
        return NAN;

    double llr = 0.0;
    for (int i = 0; i < k; i++)
        llr += phat[i] * (log(p1[i]) - log(p0[i]));
    return total * llr;
}

double stats_sprt_llr_ptnml(const uint64_t ptnml[5], double elo0, double elo1)
{
    /* nElo counts per game; a pair's sd is sigma_game / sqrt(2), so the
     * pair-level t = (mu - 1/2) / sd_pair is sqrt(2) * nElo / NELO_SCALE. */
    double t0 = M_SQRT2 * elo0 / NELO_SCALE;
    double t1 = M_SQRT2 * elo1 / NELO_SCALE;
    return llr_normalized(ptnml, PTNML_SCORES, 5, t0, t1);
}

double stats_sprt_llr_wdl(uint64_t wins, uint64_t losses, uint64_t draws, double elo0, double elo1)
{
    const uint64_t counts[3] = {losses, draws, wins};
    return llr_normalized(counts, WDL_SCORES, 3, elo0 / NELO_SCALE, elo1 / NELO_SCALE);
}

void stats_sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1.0 - alpha));
    *upper = log((1.0 - beta) / alpha);
}
