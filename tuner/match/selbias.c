/* The selection bias of the highest of independent normal estimates, by
 * numerical integration (GSL); see selbias.h. */
#include "selbias.h"

#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>

/* Estimate b being the highest of independent N(0, s_i): the density of its
 * estimate there, f_b(x) prod_{j != b} Phi(x / s_j), times x^power. */
typedef struct {
    const double *s;
    size_t n, b;
    int power;
} BestOfNormals;

static double best_density(double x, void *ctx)
{
    const BestOfNormals *m = ctx;
    double d = gsl_ran_ugaussian_pdf(x / m->s[m->b]) / m->s[m->b];
    for (size_t j = 0; j < m->n && d > 0; j++)
        if (j != m->b)
            d *= gsl_cdf_ugaussian_P(x / m->s[j]);
    return m->power ? x * d : d;
}


double selbias_best(const double *s, size_t n, size_t b)
{
    /* E[X_b | X_b is the highest] = int x f_b prod Phi / int f_b prod Phi */
    double num = 0, den = 0, abserr;
    BestOfNormals m = { s, n, b, 1 };
    gsl_function f = { best_density, &m };
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(200);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = !w || gsl_integration_qagi(&f, 1e-9, 1e-7, 200, w, &num, &abserr) != 0;
    m.power = 0;
    rc = rc || gsl_integration_qagi(&f, 1e-12, 1e-9, 200, w, &den, &abserr) != 0 || !(den > 0);
    double bias = rc ? NAN : num / den;
    gsl_set_error_handler(old);
    if (w)
        gsl_integration_workspace_free(w);
    return bias;
}
