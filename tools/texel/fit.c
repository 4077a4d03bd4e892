/* The Texel fit; see fit.h.
 *
 * Why GSL's multilarge_nlinear (trust region, Levenberg-Marquardt) and not
 * gsl_multimin: the objective is a sum of squared residuals
 * r_j = sigmoid(K * E_j(w)) - y_j of a model that is linear in the weights
 * inside the sigmoid, so the Jacobian is exact and cheap
 * (dr_j/dw = sigmoid' * K * feature) and Gauss-Newton steps get the
 * curvature from it for free: tens of iterations, insensitive to the very
 * different scales of the weights (a queen's value next to a tempo), where
 * a gradient method (BFGS) needs hundreds of passes and careful scaling.
 * multilarge rather than multifit because it never stores the n x p
 * Jacobian (n is hundreds of thousands of positions): its callbacks form
 * J u, J^T u and J^T J from the sparse features, one pass over the data. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multilarge_nlinear.h>

#include "weights.h"

void texel_weights_compiled(TexelWeights *w)
{
    memset(w, 0, sizeof *w);
    for (size_t k = 0; k < texel_nweights; k++) {
        const WeightInfo *x = &texel_weights[k];
        if (x->index >= 0) {
            w->mg[x->index] = x->mg;
            w->eg[x->index] = x->kind == WK_FLAT ? 0 : x->eg;
        }
    }
}

void texel_free_default(TexelFree *f)
{
    memset(f, 0, sizeof *f);
    for (size_t k = 0; k < texel_nweights; k++) {
        const WeightInfo *x = &texel_weights[k];
        if (x->kind == WK_TAPERED)
            f->mg[x->index] = f->eg[x->index] = true;
        else if (x->kind == WK_FLAT)
            f->mg[x->index] = true;
    }
}

/* Is weight i tapered (else flat)?  A table, filled once. */
static bool is_flat(int i)
{
    static int flat[EVAL_NWEIGHTS + 1]; /* [EVAL_NWEIGHTS]: filled */
    if (!flat[EVAL_NWEIGHTS]) {
        for (int k = 0; k < EVAL_NWEIGHTS; k++)
            flat[k] = texel_weight(k)->kind == WK_FLAT ? 1 : -1;
        flat[EVAL_NWEIGHTS] = 1;
    }
    return flat[i] > 0;
}

/* The factors a feature count is multiplied by for the mg and eg weight. */
static void phase_factors(const TexelPos *t, double *fm, double *fe)
{
    *fm = t->phase / (double)EVAL_PHASE_MAX * t->mg_scale / EVAL_SCALE_NORMAL;
    *fe = (EVAL_PHASE_MAX - t->phase) / (double)EVAL_PHASE_MAX * t->eg_scale / EVAL_SCALE_NORMAL;
}

double texel_eval(const Dataset *d, size_t j, const TexelWeights *w)
{
    const TexelPos *t = &d->pos[j];
    double fm, fe, mg = t->nonlinear_mg, eg = 0, flat = 0;
    phase_factors(t, &fm, &fe);
    for (uint32_t k = t->first; k < t->first + t->nf; k++) {
        int i = d->idx[k], f = d->val[k];
        if (is_flat(i)) {
            flat += f * w->mg[i];
        } else {
            mg += f * w->mg[i];
            eg += f * w->eg[i];
        }
    }
    return mg * fm + eg * fe + flat;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static bool in_slice(const TexelPos *t, TexelSlice s)
{
    return s == SLICE_ALL || (s == SLICE_HELDOUT) == texel_held_out(t);
}

double texel_mse(const Dataset *d, TexelSlice s, const TexelWeights *w, double K, size_t *count)
{
    double sum = 0;
    size_t n = 0;
    for (size_t j = 0; j < d->n; j++) {
        if (!in_slice(&d->pos[j], s))
            continue;
        double e = d->pos[j].label - sigmoid(K * texel_eval(d, j, w));
        sum += e * e;
        n++;
    }
    if (count)
        *count = n;
    return n ? sum / n : 0;
}

typedef struct {
    const Dataset *d;
    const TexelWeights *w;
} KArgs;

static double mse_of_k(double K, void *arg)
{
    const KArgs *a = arg;
    return texel_mse(a->d, SLICE_TRAIN, a->w, K, NULL);
}

double texel_fit_k(const Dataset *d, const TexelWeights *w)
{
    KArgs a = {d, w};
    /* A scan on a log grid brackets the minimum ... */
    enum { STEPS = 40 };
    const double lo = 1e-4, hi = 0.1, ratio = pow(hi / lo, 1.0 / STEPS);
    double best_k = lo, best = mse_of_k(lo, &a);
    int best_i = 0;
    for (int i = 1; i <= STEPS; i++) {
        double k = lo * pow(ratio, i), m = mse_of_k(k, &a);
        if (m < best) {
            best = m;
            best_k = k;
            best_i = i;
        }
    }
    if (best_i == 0 || best_i == STEPS)
        return best_k;
    /* ... and Brent's method finds it. */
    gsl_function F = {mse_of_k, &a};
    gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    if (!m)
        return best_k;
    double a_k = best_k / ratio, b_k = best_k * ratio;
    if (gsl_min_fminimizer_set(m, &F, best_k, a_k, b_k) == GSL_SUCCESS) {
        for (int it = 0; it < 100; it++) {
            if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS)
                break;
            a_k = gsl_min_fminimizer_x_lower(m);
            b_k = gsl_min_fminimizer_x_upper(m);
            if (gsl_min_test_interval(a_k, b_k, 1e-7, 1e-6) == GSL_SUCCESS)
                break;
        }
        best_k = gsl_min_fminimizer_x_minimum(m);
    }
    gsl_min_fminimizer_free(m);
    return best_k;
}

/* ---- the weight fit ----------------------------------------------------- */

typedef struct {
    const Dataset *d;
    double K;
    size_t *rows;            /* the training slice */
    size_t n;
    TexelWeights *w;         /* the current values; free ones from x */
    int pmg[EVAL_NWEIGHTS];  /* parameter index of weight i's mg part, or -1 */
    int peg[EVAL_NWEIGHTS];
    int p;
    int nr;                  /* ridge rows after the n positions: ... */
    int *ridge_q;            /* ... parameter of each ... */
    double *ridge_c;         /* ... and its factor sqrt(lambda * n) / 100 */
    int *nz;                 /* scratch: a row's parameters ... */
    double *jv;              /* ... and its Jacobian entries */
} Fit;

static void take_x(Fit *F, const gsl_vector *x)
{
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        if (F->pmg[i] >= 0)
            F->w->mg[i] = gsl_vector_get(x, (size_t)F->pmg[i]);
        if (F->peg[i] >= 0)
            F->w->eg[i] = gsl_vector_get(x, (size_t)F->peg[i]);
    }
}

static int fit_f(const gsl_vector *x, void *arg, gsl_vector *f)
{
    Fit *F = arg;
    take_x(F, x);
    for (size_t r = 0; r < F->n; r++) {
        size_t j = F->rows[r];
        gsl_vector_set(f, r, sigmoid(F->K * texel_eval(F->d, j, F->w)) - F->d->pos[j].label);
    }
    for (int q = 0; q < F->nr; q++)
        gsl_vector_set(f, F->n + (size_t)q, F->ridge_c[q] * gsl_vector_get(x, (size_t)F->ridge_q[q]));
    return GSL_SUCCESS;
}

/* Row j of the Jacobian: its nonzero entries into F->nz / F->jv. */
static int jacobian_row(Fit *F, size_t j)
{
    const TexelPos *t = &F->d->pos[j];
    double s = sigmoid(F->K * texel_eval(F->d, j, F->w)), g = F->K * s * (1 - s), fm, fe;
    phase_factors(t, &fm, &fe);
    int m = 0;
    for (uint32_t k = t->first; k < t->first + t->nf; k++) {
        int i = F->d->idx[k], f = F->d->val[k];
        if (F->pmg[i] >= 0) {
            F->nz[m] = F->pmg[i];
            F->jv[m++] = g * f * (is_flat(i) ? 1.0 : fm);
        }
        if (F->peg[i] >= 0) {
            F->nz[m] = F->peg[i];
            F->jv[m++] = g * f * fe;
        }
    }
    return m;
}

static int fit_df(CBLAS_TRANSPOSE_t trans, const gsl_vector *x, const gsl_vector *u, void *arg, gsl_vector *v,
                  gsl_matrix *JTJ)
{
    Fit *F = arg;
    take_x(F, x);
    if (v && trans == CblasTrans)
        gsl_vector_set_zero(v);
    if (JTJ)
        gsl_matrix_set_zero(JTJ);
    double *jtj = JTJ ? JTJ->data : NULL;
    size_t tda = JTJ ? JTJ->tda : 0;
    for (size_t r = 0; r < F->n + (size_t)F->nr; r++) {
        int m;
        if (r < F->n) {
            m = jacobian_row(F, F->rows[r]);
        } else { /* a ridge row: one entry */
            F->nz[0] = F->ridge_q[r - F->n];
            F->jv[0] = F->ridge_c[r - F->n];
            m = 1;
        }
        if (v && u) {
            if (trans == CblasNoTrans) {
                double sum = 0;
                for (int a = 0; a < m; a++)
                    sum += F->jv[a] * gsl_vector_get(u, (size_t)F->nz[a]);
                gsl_vector_set(v, r, sum);
            } else {
                double ur = gsl_vector_get(u, r);
                for (int a = 0; a < m; a++)
                    *gsl_vector_ptr(v, (size_t)F->nz[a]) += F->jv[a] * ur;
            }
        }
        if (jtj) /* the lower triangle, through the raw array: the hot loop of a fit */
            for (int a = 0; a < m; a++) {
                double *row = jtj + (size_t)F->nz[a] * tda, ja = F->jv[a];
                for (int b = 0; b < m; b++)
                    if (F->nz[b] <= F->nz[a])
                        row[F->nz[b]] += ja * F->jv[b];
            }
    }
    if (JTJ)
        for (size_t a = 0; a < JTJ->size1; a++)
            for (size_t b = 0; b < a; b++)
                gsl_matrix_set(JTJ, b, a, gsl_matrix_get(JTJ, a, b));
    return GSL_SUCCESS;
}

typedef struct {
    Fit *F;
    FILE *log;
} Progress;

static void progress(const size_t iter, void *arg, const gsl_multilarge_nlinear_workspace *w)
{
    const Progress *pr = arg;
    if (!pr->log)
        return;
    double c = 0;
    gsl_blas_ddot(gsl_multilarge_nlinear_residual(w), gsl_multilarge_nlinear_residual(w), &c);
    fprintf(pr->log, "  iteration %zu: training MSE %.6f%s\n", iter, pr->F->n ? c / pr->F->n : 0.0,
            pr->F->nr ? " (with the ridge penalty)" : "");
    fflush(pr->log);
}

int texel_fit(const Dataset *d, double K, const TexelFree *free_set, TexelWeights *w, int maxiter, FILE *log,
              TexelFitReport *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->stop = "nothing to fit";
    Fit F = {.d = d, .K = K, .w = w};
    /* The free weights that occur in the training slice. */
    bool seen[EVAL_NWEIGHTS] = {false};
    F.rows = malloc((d->n ? d->n : 1) * sizeof *F.rows);
    if (!F.rows) {
        rep->status = GSL_ENOMEM;
        rep->stop = "out of memory";
        return -1;
    }
    for (size_t j = 0; j < d->n; j++) {
        if (texel_held_out(&d->pos[j]))
            continue;
        F.rows[F.n++] = j;
        for (uint32_t k = d->pos[j].first; k < d->pos[j].first + d->pos[j].nf; k++)
            seen[d->idx[k]] = true;
    }
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        F.pmg[i] = F.peg[i] = -1;
        bool fm = free_set->mg[i], fe = free_set->eg[i] && !is_flat(i);
        if ((fm || fe) && !seen[i]) {
            rep->unseen += fm + fe;
            continue;
        }
        if (fm)
            F.pmg[i] = F.p++;
        if (fe)
            F.peg[i] = F.p++;
    }
    rep->free_params = F.p;
    F.ridge_q = malloc((size_t)(F.p ? F.p : 1) * sizeof *F.ridge_q);
    F.ridge_c = malloc((size_t)(F.p ? F.p : 1) * sizeof *F.ridge_c);
    if (!F.ridge_q || !F.ridge_c) {
        free(F.rows), free(F.ridge_q), free(F.ridge_c);
        rep->status = GSL_ENOMEM;
        rep->stop = "out of memory";
        return -1;
    }
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        if (!(free_set->ridge[i] > 0))
            continue;
        double c = sqrt(free_set->ridge[i] * (double)F.n) / 100.0;
        if (F.pmg[i] >= 0)
            F.ridge_q[F.nr] = F.pmg[i], F.ridge_c[F.nr++] = c;
        if (F.peg[i] >= 0)
            F.ridge_q[F.nr] = F.peg[i], F.ridge_c[F.nr++] = c;
    }
    if (F.p == 0 || F.n + (size_t)F.nr < (size_t)F.p) { /* the ridge rows count: they pin their weights */
        free(F.ridge_q), free(F.ridge_c);
        free(F.rows);
        if (F.p > 0) {
            rep->stop = "fewer training positions than free weights";
            rep->status = GSL_EINVAL;
            return -1;
        }
        return 0;
    }

    F.nz = malloc(2 * EVAL_NWEIGHTS * sizeof *F.nz);
    F.jv = malloc(2 * EVAL_NWEIGHTS * sizeof *F.jv);
    gsl_vector *x = gsl_vector_alloc((size_t)F.p);
    gsl_multilarge_nlinear_parameters par = gsl_multilarge_nlinear_default_parameters();
    par.trs = gsl_multilarge_nlinear_trs_lm;
    gsl_multilarge_nlinear_workspace *ws =
        gsl_multilarge_nlinear_alloc(gsl_multilarge_nlinear_trust, &par, F.n + (size_t)F.nr, (size_t)F.p);
    int rc = -1;
    if (F.nz && F.jv && x && ws) {
        for (int i = 0; i < EVAL_NWEIGHTS; i++) {
            if (F.pmg[i] >= 0)
                gsl_vector_set(x, (size_t)F.pmg[i], w->mg[i]);
            if (F.peg[i] >= 0)
                gsl_vector_set(x, (size_t)F.peg[i], w->eg[i]);
        }
        gsl_multilarge_nlinear_fdf fdf = {.f = fit_f, .df = fit_df, .fvv = NULL, .n = F.n + (size_t)F.nr, .p = (size_t)F.p,
                                          .params = &F};
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        int info = 0;
        rep->status = gsl_multilarge_nlinear_init(x, &fdf, ws);
        if (rep->status == GSL_SUCCESS) {
            Progress pr = {&F, log};
            rep->status = gsl_multilarge_nlinear_driver((size_t)maxiter, 1e-6, 1e-10, 1e-10, progress, &pr, &info, ws);
        }
        gsl_set_error_handler(old);
        rep->iterations = (int)gsl_multilarge_nlinear_niter(ws);
        take_x(&F, gsl_multilarge_nlinear_position(ws));
        if (rep->status == GSL_SUCCESS) {
            rep->stop = info == 1 ? "small step" : info == 2 ? "small gradient" : "converged";
            rc = 0;
        } else if (rep->status == GSL_EMAXITER) {
            rep->stop = "iteration limit";
            rc = 0;
        } else {
            rep->stop = gsl_strerror(rep->status);
            /* A step that made no progress still leaves the best point. */
            rc = rep->status == GSL_ENOPROG ? 0 : -1;
        }
    } else {
        rep->status = GSL_ENOMEM;
        rep->stop = "out of memory";
    }
    if (ws)
        gsl_multilarge_nlinear_free(ws);
    gsl_vector_free(x);
    free(F.nz);
    free(F.jv);
    free(F.rows);
    free(F.ridge_q);
    free(F.ridge_c);
    return rc;
}
