/* The power of a validation schedule, simulated; see valpower.h. */
#include "valpower.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_statistics_double.h>

#include "elotext.h"
#include "errmsg.h"
#include "stats.h"

/* verify's 4000 games of the second night's values against the shipped defaults, nodes=5000
 * (docs/results/tuning-night.md): +34.68 +/- 8.71 Elo. */
const double VALPOWER_NIGHT_PTNML[5] = { 152, 380, 674, 506, 288 };

typedef struct {
    const double *shape; /* normalized */
    double target;       /* mean pair score wanted, 0..1 */
} Tilt;

static double tilted_mean(double l, const double *shape, double *p)
{
    double z = 0, m = 0, q[5];
    for (int i = 0; i < 5; i++) {
        q[i] = shape[i] * exp(l * (i / 4.0 - 0.5));
        z += q[i];
    }
    for (int i = 0; i < 5; i++) {
        q[i] /= z;
        m += q[i] * (i / 4.0);
        if (p)
            p[i] = q[i];
    }
    return m;
}

static double tilt_f(double l, void *ctx)
{
    const Tilt *t = ctx;
    return tilted_mean(l, t->shape, NULL) - t->target;
}

/* The pentanomial probabilities of the shape tilted to Elo e. */
static int tilt_to(const double *shape, double e, double p[5])
{
    Tilt t = { shape, 1.0 / (1.0 + pow(10.0, -e / 400.0)) };
    gsl_function f = { tilt_f, &t };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return -1;
    double lo = -60, hi = 60, l = 0;
    int rc = gsl_root_fsolver_set(s, &f, lo, hi);
    for (int it = 0; rc == 0 && it < 200; it++) {
        if (gsl_root_fsolver_iterate(s) != 0) {
            rc = -1;
            break;
        }
        l = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 1e-12, 0) ==
            GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    if (rc != 0)
        return -1;
    tilted_mean(l, shape, p);
    return 0;
}

enum { TRAJ_WALK, TRAJ_FLAT, TRAJ_NULL, TRAJ_COLLAPSE, NTRAJ };

static double true_elo(const ValPowerConf *c, int traj, double f)
{
    return traj == TRAJ_WALK ? c->walk * f : traj == TRAJ_FLAT ? c->flat : traj == TRAJ_COLLAPSE ? c->collapse : 0.0;
}

int valpower_run(const Validation *v, const ValPowerConf *c, ValPowerResult *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (c->seeds < 1 || c->budget == 0)
        return errmsg(err, errlen, "simulate -validation: needs seeds >= 1 and a budget");
    /* the schedule, as a run would play it */
    uint64_t at[4096], size[4096], n = 0, after = 0;
    while (n < 4096 && validate_next_point(v, after, c->budget, &at[n], &size[n])) {
        after = at[n];
        out->games += size[n];
        n++;
    }
    if (n == 0)
        return errmsg(err, errlen, "simulate -validation: the schedule has no point");
    out->points = n;
    out->final_games = size[n - 1];
    double shape[5], sum = 0;
    for (int i = 0; i < 5; i++)
        sum += (c->shape ? c->shape : VALPOWER_NIGHT_PTNML)[i];
    for (int i = 0; i < 5; i++)
        shape[i] = (c->shape ? c->shape : VALPOWER_NIGHT_PTNML)[i] / sum;
    /* the tilted probabilities of each point under each trajectory */
    double(*p)[NTRAJ][5] = calloc(n, sizeof *p);
    ValidationPoint *pts = calloc(n, sizeof *pts);
    double *best = calloc((size_t)c->seeds, sizeof *best), *corr = calloc((size_t)c->seeds, sizeof *corr);
    double *se = calloc((size_t)c->seeds, sizeof *se), *ferr = calloc((size_t)c->seeds, sizeof *ferr);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = -1;
    if (!p || !pts || !best || !corr || !se || !ferr || !r) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    for (uint64_t k = 0; k < n; k++)
        for (int t = 0; t < NTRAJ; t++)
            if (tilt_to(shape, true_elo(c, t, (double)at[k] / (double)c->budget), p[k][t]) < 0) {
                errmsg(err, errlen, "simulate -validation: cannot tilt the pentanomial shape to %+.1f Elo",
                       true_elo(c, t, (double)at[k] / (double)c->budget));
                goto done;
            }
    size_t counts[NTRAJ][2] = { { 0 } };
    size_t excl = 0, corr_sig = 0, warned = 0;
    for (int s = 0; s < c->seeds; s++) {
        for (int t = 0; t < NTRAJ; t++) {
            /* one stream per seed and trajectory */
            gsl_rng_set(r, (unsigned long)((c->seed0 + (uint64_t)s) * 3 + (uint64_t)t));
            for (uint64_t k = 0; k < n; k++) {
                unsigned int cnt[5];
                gsl_ran_multinomial(r, 5, (unsigned int)(size[k] / 2), p[k][t], cnt);
                ValidationPoint *q = &pts[k];
                memset(q, 0, sizeof *q);
                q->point = k + 1;
                q->games = at[k];
                q->pairs = size[k] / 2;
                for (int i = 0; i < 5; i++)
                    q->ptnml[i] = cnt[i];
                EloEstimate e;
                bool interval = stats_from_ptnml(q->ptnml, &e) == 0;
                q->elo = e.elo;
                q->elo_err = interval ? e.elo_err : INFINITY;
            }
            const ValidationPoint *f = &pts[n - 1];
            bool has = elo_has_interval(f->elo, f->elo_err);
            counts[t][0] += has && f->elo + f->elo_err < 0;
            counts[t][1] += has && f->elo - f->elo_err > 0;
            if (t == TRAJ_COLLAPSE) {
                bool w = false;
                for (uint64_t k = 0; k + 1 < n; k++)
                    w |= elo_has_interval(pts[k].elo, pts[k].elo_err) && pts[k].elo + pts[k].elo_err < 0;
                warned += w;
            }
            if (t != TRAJ_NULL)
                continue;
            ferr[s] = has ? f->elo_err : INFINITY;
            size_t b = validate_best(pts, n);
            best[s] = pts[b].elo;
            se[s] = pts[b].elo_err / 1.959963984540054;
            excl += elo_has_interval(pts[b].elo, pts[b].elo_err) && pts[b].elo - pts[b].elo_err > 0;
            double bias = validate_selection_bias(pts, n);
            corr[s] = pts[b].elo - (isfinite(bias) ? bias : 0);
            corr_sig += corr[s] > 1.959963984540054 * se[s];
        }
    }
    double ns = (double)c->seeds;
    out->walk_loss = (double)counts[TRAJ_WALK][0] / ns;
    out->flat_gain = (double)counts[TRAJ_FLAT][1] / ns;
    out->null_loss = (double)counts[TRAJ_NULL][0] / ns;
    out->null_gain = (double)counts[TRAJ_NULL][1] / ns;
    out->best_excludes0 = (double)excl / ns;
    out->early_warning = (double)warned / ns;
    out->corr_above0 = (double)corr_sig / ns;
    out->best_mean = gsl_stats_mean(best, 1, (size_t)c->seeds);
    out->corr_mean = gsl_stats_mean(corr, 1, (size_t)c->seeds);
    gsl_sort(best, 1, (size_t)c->seeds);
    gsl_sort(corr, 1, (size_t)c->seeds);
    gsl_sort(se, 1, (size_t)c->seeds);
    gsl_sort(ferr, 1, (size_t)c->seeds);
    out->best_median = gsl_stats_median_from_sorted_data(best, 1, (size_t)c->seeds);
    out->corr_median = gsl_stats_median_from_sorted_data(corr, 1, (size_t)c->seeds);
    out->best_se = gsl_stats_median_from_sorted_data(se, 1, (size_t)c->seeds);
    out->final_err = gsl_stats_median_from_sorted_data(ferr, 1, (size_t)c->seeds);
    rc = 0;
done:
    free(p);
    free(pts);
    free(best);
    free(corr);
    free(se);
    free(ferr);
    if (r)
        gsl_rng_free(r);
    return rc;
}
