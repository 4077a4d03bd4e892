/* SPSA: the forms, the scale and the centre batches; see spsa.h.  The
 * formulas are in docs/spsa-forms.md, "The forms in formulas". */
#include "spsa.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "errmsg.h"

/* ---- small helpers ------------------------------------------------------ */

double spsa_clip(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

int spsa_round(double x, double u)
{
    return (int)floor(x + u);
}

void spsa_config_default(SpsaConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->pairs_per = 1;
    cfg->A_ratio = 0.1;
    cfg->alpha = 0.602;
    cfg->gamma = 0.101;
    cfg->average = 0.0;
    cfg->form = SPSA_FORM_CLASSIC;
    cfg->eta = 0.0;
    cfg->decay = SPSA_DEFAULT_DECAY;
    cfg->eta_base = SPSA_AUTO_ETA;
    cfg->eta_pow = SPSA_AUTO_ETA_KPOW;
    cfg->eta_npow = SPSA_AUTO_ETA_NPOW;
    cfg->unbiased = true;
    cfg->beta1 = SPSA_DEFAULT_BETA1;
    cfg->beta2 = SPSA_DEFAULT_BETA2;
    cfg->probe = SPSA_DEFAULT_PROBE;
    cfg->narrow = true;
    cfg->adapt = SPSA_DEFAULT_ADAPT;
    cfg->adapt_rate = SPSA_DEFAULT_ADAPT_RATE;
    cfg->adapt_bias = SPSA_DEFAULT_ADAPT_BIAS;
    cfg->adapt_window = SPSA_DEFAULT_ADAPT_WINDOW;
    cfg->scale_min = SPSA_DEFAULT_SCALE_MIN;
    cfg->scale_max = SPSA_DEFAULT_SCALE_MAX;
    cfg->scale_start = SPSA_DEFAULT_SCALE_START;
    cfg->centre = SPSA_DEFAULT_CENTRE;
    cfg->centre_elo = SPSA_DEFAULT_CENTRE_ELO;
    cfg->centre_rate = SPSA_DEFAULT_CENTRE_RATE;
    cfg->centre_window = SPSA_DEFAULT_CENTRE_WINDOW;
    cfg->centre_min = SPSA_DEFAULT_CENTRE_MIN;
}

void spsa_config_set_form(SpsaConfig *cfg, SpsaForm form)
{
    cfg->form = form;
    bool settle = form == SPSA_FORM_SETTLE;
    cfg->decay = settle ? SPSA_SETTLE_DECAY : SPSA_DEFAULT_DECAY;
    cfg->eta_base = settle ? SPSA_SETTLE_ETA : SPSA_AUTO_ETA;
    cfg->eta_pow = settle ? SPSA_SETTLE_ETA_KPOW : SPSA_AUTO_ETA_KPOW;
    cfg->eta_npow = settle ? SPSA_SETTLE_ETA_NPOW : SPSA_AUTO_ETA_NPOW;
    cfg->probe = settle ? SPSA_SETTLE_PROBE : SPSA_DEFAULT_PROBE;
    cfg->average = settle ? SPSA_SETTLE_AVERAGE : 0.0;
}

static const char *const FORM_NAMES[SPSA_FORM_COUNT] = { "classic", "far", "adam", "settle" };

const char *spsa_form_name(SpsaForm f)
{
    return (unsigned)f < SPSA_FORM_COUNT ? FORM_NAMES[f] : "?";
}

int spsa_form_parse(const char *name, SpsaForm *out)
{
    if (!strcmp(name, "rms")) {
        *out = SPSA_FORM_RMS;
        return 0;
    }
    for (int i = 0; i < SPSA_FORM_COUNT; i++)
        if (!strcmp(name, FORM_NAMES[i])) {
            *out = (SpsaForm)i;
            return 0;
        }
    return -1;
}

uint64_t spsa_iterations_for_games(uint64_t games, int pairs_per)
{
    uint64_t per = 2 * (uint64_t)(pairs_per > 0 ? pairs_per : 1);
    uint64_t n = games / per + (games % per != 0);
    return n ? n : 1;
}

void spsa_config_set_games(SpsaConfig *cfg, uint64_t games)
{
    cfg->games = games;
    cfg->iterations = spsa_iterations_for_games(games, cfg->pairs_per);
}

/* c = c_end * N^gamma, a = r_end * c_end^2 * (A + N)^alpha with A = A_ratio N */
static void compute_schedule(SpsaState *st)
{
    double n = (double)st->cfg.iterations;
    double A = st->cfg.A_ratio * n;
    for (size_t i = 0; i < st->nparams; i++) {
        SpsaParam *p = &st->params[i];
        p->c = p->c_end * pow(n, st->cfg.gamma);
        p->a = p->r_end * p->c_end * p->c_end * pow(A + n, st->cfg.alpha);
    }
}

/* The classic c_k, before the probe factor of the other forms. */
static double classic_c_k(const SpsaState *st, size_t p, uint64_t k)
{
    double ck = st->params[p].c / pow((double)k, st->cfg.gamma);
    return ck < SPSA_MIN_C_INT && !st->params[p].is_float ? SPSA_MIN_C_INT : ck;
}

/* The scale of parameter p's step: 1 unless the scale adapts. */
static double param_scale(const SpsaState *st, size_t p)
{
    return st->cfg.form != SPSA_FORM_CLASSIC && st->cfg.adapt ? st->params[p].scale : 1.0;
}

bool spsa_centre_on(const SpsaState *st)
{
    return st->cfg.form != SPSA_FORM_CLASSIC && st->cfg.centre > 0;
}

/* The probe multiplier of parameter p: 1 unless centre batches measure it. */
static double param_pm(const SpsaState *st, size_t p)
{
    return spsa_centre_on(st) ? st->params[p].pm : 1.0;
}

/* The probe factor at iteration k: cfg.probe, or on its way to
 * cfg.probe_end at k = N. */
static double probe_factor(const SpsaState *st, uint64_t k)
{
    const SpsaConfig *c = &st->cfg;
    if (!(c->probe_end > 0) || c->iterations < 2)
        return c->probe;
    double t = spsa_clip(((double)k - 1) / ((double)c->iterations - 1), 0, 1);
    return c->probe * pow(c->probe_end / c->probe, t);
}

double spsa_c_k(const SpsaState *st, size_t p, uint64_t k)
{
    double ck = classic_c_k(st, p, k);
    return st->cfg.form == SPSA_FORM_CLASSIC ? ck : probe_factor(st, k) * ck;
}

double spsa_R_k(const SpsaState *st, size_t p, uint64_t k)
{
    if (st->cfg.form != SPSA_FORM_CLASSIC)
        return spsa_eta_k(st, k);
    double A = st->cfg.A_ratio * (double)st->cfg.iterations;
    double ck = spsa_c_k(st, p, k);
    return st->params[p].a / pow(A + (double)k, st->cfg.alpha) / (ck * ck);
}

double spsa_auto_eta(uint64_t iterations, size_t nparams)
{
    double n = nparams ? (double)nparams : 1.0, N = iterations ? (double)iterations : 1.0;
    return SPSA_AUTO_ETA * pow(8.0 / n, SPSA_AUTO_ETA_NPOW) * pow(5000.0 / N, SPSA_AUTO_ETA_KPOW);
}

double spsa_eta(const SpsaState *st)
{
    if (st->cfg.eta > 0)
        return st->cfg.eta;
    double n = st->nparams ? (double)st->nparams : 1.0;
    double N = st->cfg.iterations ? (double)st->cfg.iterations : 1.0;
    return st->cfg.eta_base * pow(8.0 / n, st->cfg.eta_npow) *
           pow(5000.0 / N, st->cfg.eta_pow);
}

double spsa_eta_k(const SpsaState *st, uint64_t k)
{
    double A = st->cfg.A_ratio * (double)st->cfg.iterations;
    double n = (double)st->cfg.iterations;
    return spsa_eta(st) * pow((A + n) / (A + (double)k), st->cfg.decay);
}

bool spsa_is_integer(double x)
{
    return isfinite(x) && x == floor(x) && fabs(x) < 2e9;
}

static int check_config(const SpsaConfig *c, char *err, size_t errlen)
{
    if (c->iterations < 1) {
        errmsg(err, errlen, "spsa: games must give at least one iteration");
        return -1;
    }
    if (c->pairs_per < 1) {
        errmsg(err, errlen, "spsa: pairs-per must be >= 1 (got %d)", c->pairs_per);
        return -1;
    }
    if (!(c->A_ratio >= 0) || !isfinite(c->A_ratio)) {
        errmsg(err, errlen, "spsa: A-ratio must be >= 0 (got %g)", c->A_ratio);
        return -1;
    }
    if (!(c->alpha > 0) || !isfinite(c->alpha)) {
        errmsg(err, errlen, "spsa: alpha must be > 0 (got %g)", c->alpha);
        return -1;
    }
    if (!(c->gamma >= 0) || !isfinite(c->gamma)) {
        errmsg(err, errlen, "spsa: gamma must be >= 0 (got %g)", c->gamma);
        return -1;
    }
    if (!(c->average >= 0 && c->average < 1)) {
        errmsg(err, errlen, "spsa: average must be in [0, 1) (got %g)", c->average);
        return -1;
    }
    if ((unsigned)c->form >= SPSA_FORM_COUNT) {
        errmsg(err, errlen, "spsa: unknown form %d", (int)c->form);
        return -1;
    }
    if (!(c->eta >= 0) || !isfinite(c->eta)) {
        errmsg(err, errlen, "spsa: eta must be >= 0 (got %g)", c->eta);
        return -1;
    }
    if (!(c->decay >= 0) || !isfinite(c->decay)) {
        errmsg(err, errlen, "spsa: decay must be >= 0 (got %g)", c->decay);
        return -1;
    }
    if (!(c->eta_base > 0) || !isfinite(c->eta_base) || !(c->eta_pow >= 0) ||
        !(c->eta_pow <= 2) || !(c->eta_npow >= 0) || !(c->eta_npow <= 2)) {
        errmsg(err, errlen,
               "spsa: eta_base must be > 0, eta_pow and eta_npow in [0, 2] (got %g, %g, %g)",
               c->eta_base, c->eta_pow, c->eta_npow);
        return -1;
    }
    if (!(c->beta1 >= 0 && c->beta1 < 1)) {
        errmsg(err, errlen, "spsa: beta1 must be in [0, 1) (got %g)", c->beta1);
        return -1;
    }
    if (!(c->probe >= 1) || !isfinite(c->probe) || !(c->probe_end == 0 || (c->probe_end >= 1 && c->probe_end <= 100))) {
        errmsg(err, errlen, "spsa: probe must be >= 1 and probe_end 0 or in [1, 100] (got %g, %g)", c->probe,
               c->probe_end);
        return -1;
    }
    if (!(c->beta2 >= 0 && c->beta2 < 1)) {
        errmsg(err, errlen, "spsa: beta2 must be in [0, 1) (got %g)", c->beta2);
        return -1;
    }
    if (c->adapt && !(c->adapt_rate >= 0 && c->adapt_rate <= 100 && isfinite(c->adapt_bias) &&
                      c->adapt_window > 0 && c->adapt_window <= 1 && c->scale_min > 0 &&
                      c->scale_min <= 1 && c->scale_max >= 1 && c->scale_max <= 1e6 &&
                      c->scale_start >= c->scale_min && c->scale_start <= c->scale_max)) {
        errmsg(err, errlen,
               "spsa: adapt needs adapt_rate in [0, 100], a finite adapt_bias, adapt_window in "
               "(0, 1], scale_min in (0, 1], scale_max in [1, 1e6] and scale_start between them");
        return -1;
    }
    if (c->centre != 0 && !(c->centre > 0 && c->centre < 1 && c->centre_elo > 0 &&
                            isfinite(c->centre_elo) && c->centre_rate >= 0 &&
                            c->centre_rate <= 100 && c->centre_window > 0 &&
                            c->centre_window <= 1 && c->centre_min > 0 && c->centre_min <= 1)) {
        errmsg(err, errlen,
               "spsa: centre must be in [0, 1), and with it centre_elo > 0, centre_rate in "
               "[0, 100], centre_window in (0, 1] and centre_min in (0, 1]");
        return -1;
    }
    return 0;
}

static int check_param(const SpsaParam *p, char *err, size_t errlen)
{
    if (!p->name[0]) {
        errmsg(err, errlen, "parameter with an empty name");
        return -1;
    }
    if (p->is_float ? !isfinite(p->min) || !isfinite(p->max) : !spsa_is_integer(p->min) || !spsa_is_integer(p->max)) {
        errmsg(err, errlen, "parameter %s: min and max must be integers (got %g, %g)",
               p->name, p->min, p->max);
        return -1;
    }
    if (p->min > p->max) {
        errmsg(err, errlen, "parameter %s: min %g > max %g", p->name, p->min, p->max);
        return -1;
    }
    if (!isfinite(p->theta) || p->theta < p->min || p->theta > p->max) {
        errmsg(err, errlen, "parameter %s: value %g outside [%g, %g]", p->name, p->theta,
               p->min, p->max);
        return -1;
    }
    if (!(p->c_end > 0) || !isfinite(p->c_end)) {
        errmsg(err, errlen, "parameter %s: c_end must be > 0 (got %g)", p->name, p->c_end);
        return -1;
    }
    if (!(p->r_end > 0) || !isfinite(p->r_end)) {
        errmsg(err, errlen, "parameter %s: r_end must be > 0 (got %g)", p->name, p->r_end);
        return -1;
    }
    return 0;
}

static int check_params(const SpsaParam *params, size_t n, char *err, size_t errlen)
{
    if (n == 0) {
        errmsg(err, errlen, "spsa: no parameters to tune");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (check_param(&params[i], err, errlen))
            return -1;
        if (!memchr(params[i].name, '\0', SPSA_NAME_MAX)) {
            errmsg(err, errlen, "parameter %zu: name too long", i);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(params[i].name, params[j].name)) {
                errmsg(err, errlen, "parameter %s appears twice", params[i].name);
                return -1;
            }
    }
    return 0;
}

/* ---- state -------------------------------------------------------------- */

int spsa_init(SpsaState *st, const SpsaParam *params, size_t nparams,
              const SpsaConfig *cfg, uint64_t seed, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (check_config(cfg, err, errlen) || check_params(params, nparams, err, errlen))
        return -1;
    st->params = calloc(nparams, sizeof *st->params);
    st->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!st->params || !st->rng) {
        spsa_free(st);
        errmsg(err, errlen, "spsa: out of memory");
        return -1;
    }
    st->cfg = *cfg;
    st->nparams = nparams;
    memcpy(st->params, params, nparams * sizeof *params);
    for (size_t i = 0; i < nparams; i++) {
        st->params[i].start = st->params[i].theta;
        st->params[i].avg = st->params[i].theta;
        st->params[i].m = 0.0;
        st->params[i].scale = cfg->scale_start;
        st->params[i].e = 0.0;
        st->params[i].pm = 1.0;
        st->params[i].cm = 0.0;
        st->params[i].cq = 0.0;
    }
    st->v = (double)cfg->pairs_per; /* prior: W - L of an even pair has variance about 1 */
    compute_schedule(st);
    gsl_rng_set(st->rng, (unsigned long)seed);
    return 0;
}

void spsa_batch_free(SpsaBatch *b)
{
    free(b->c_k);
    free(b->R_k);
    free(b->flip);
    free(b->u);
    free(b->plus_values);
    free(b->minus_values);
    free(b->mask);
    memset(b, 0, sizeof *b);
}

void spsa_free(SpsaState *st)
{
    for (size_t i = 0; i < st->ninflight; i++)
        spsa_batch_free(&st->inflight[i]);
    free(st->inflight);
    free(st->params);
    if (st->rng)
        gsl_rng_free(st->rng);
    memset(st, 0, sizeof *st);
}

int spsa_batch_alloc(SpsaBatch *b, size_t n)
{
    memset(b, 0, sizeof *b);
    b->nparams = n;
    size_t m = n ? n : 1;
    b->c_k = calloc(m, sizeof *b->c_k);
    b->R_k = calloc(m, sizeof *b->R_k);
    b->flip = calloc(m, sizeof *b->flip);
    b->u = calloc(m, sizeof *b->u);
    b->plus_values = calloc(m, sizeof *b->plus_values);
    b->minus_values = calloc(m, sizeof *b->minus_values);
    b->mask = calloc(m, sizeof *b->mask);
    if (!b->c_k || !b->R_k || !b->flip || !b->u || !b->plus_values || !b->minus_values ||
        !b->mask) {
        spsa_batch_free(b);
        return -1;
    }
    return 0;
}

int spsa_batch_copy(SpsaBatch *dst, const SpsaBatch *src)
{
    if (spsa_batch_alloc(dst, src->nparams))
        return -1;
    dst->k = src->k;
    size_t n = src->nparams;
    memcpy(dst->c_k, src->c_k, n * sizeof *dst->c_k);
    memcpy(dst->R_k, src->R_k, n * sizeof *dst->R_k);
    memcpy(dst->flip, src->flip, n * sizeof *dst->flip);
    memcpy(dst->u, src->u, n * sizeof *dst->u);
    memcpy(dst->plus_values, src->plus_values, n * sizeof *dst->plus_values);
    memcpy(dst->minus_values, src->minus_values, n * sizeof *dst->minus_values);
    dst->centre = src->centre;
    if (src->mask)
        memcpy(dst->mask, src->mask, n * sizeof *dst->mask);
    return 0;
}

int spsa_inflight_push(SpsaState *st, const SpsaBatch *b)
{
    SpsaBatch *grown = realloc(st->inflight, (st->ninflight + 1) * sizeof *grown);
    if (!grown)
        return -1;
    st->inflight = grown;
    if (spsa_batch_copy(&st->inflight[st->ninflight], b))
        return -1;
    st->ninflight++;
    return 0;
}

/* The point the two probes are placed around: theta in the classic form;
 * in the others theta moved inside [min + c_k, max - c_k] when the range
 * allows, so that a probe near a bound is not cut short on one side. */
static double probe_centre(const SpsaState *st, const SpsaParam *p, double ck)
{
    if (st->cfg.form == SPSA_FORM_CLASSIC || p->max - p->min < 2 * ck)
        return p->theta;
    return spsa_clip(p->theta, p->min + ck, p->max - ck);
}

double spsa_probe_c_k(const SpsaState *st, size_t i, uint64_t k)
{
    double ck = spsa_c_k(st, i, k) * param_pm(st, i);
    if (st->cfg.form == SPSA_FORM_CLASSIC || !st->cfg.narrow)
        return ck;
    const SpsaParam *p = &st->params[i];
    double room = fmin(p->theta - p->min, p->max - p->theta);
    return ck > room ? fmax(room, classic_c_k(st, i, k)) : ck;
}

/* The values of one parameter for both engines (docs/spsa-forms.md). */
static void perturb(double centre, const SpsaParam *p, double ck, int flip, double u, double *plus,
                    double *minus)
{
    double hi = centre + ck * flip, lo = centre - ck * flip;
    if (!p->is_float) {
        hi = floor(hi + u);
        lo = floor(lo + u);
    }
    *plus = spsa_clip(hi, p->min, p->max);
    *minus = spsa_clip(lo, p->min, p->max);
}

int spsa_batch_begin(SpsaState *st, SpsaBatch *b)
{
    memset(b, 0, sizeof *b);
    if (st->k >= st->cfg.iterations)
        return 0;
    if (spsa_batch_alloc(b, st->nparams))
        return -1;
    uint64_t k = st->k + 1;
    b->k = k;
    /* Only with centre batches is there a draw for the kind of batch, so
     * that a run without them draws what it always drew. */
    b->centre = spsa_centre_on(st) && gsl_rng_uniform(st->rng) < st->cfg.centre;
    for (size_t i = 0; i < st->nparams; i++) {
        b->c_k[i] = spsa_probe_c_k(st, i, k);
        b->R_k[i] = spsa_R_k(st, i, k);
        /* Draw order per parameter: flip, then the rounding uniform (then
         * the mask in a centre batch). */
        b->flip[i] = gsl_rng_uniform_int(st->rng, 2) ? 1 : -1;
        b->u[i] = gsl_rng_uniform(st->rng);
        const SpsaParam *p = &st->params[i];
        double centre = probe_centre(st, p, b->c_k[i]);
        perturb(centre, p, b->c_k[i], b->flip[i], b->u[i], &b->plus_values[i],
                &b->minus_values[i]);
        if (b->centre) {
            /* engine 0: centre + c flip on the masked parameters; engine 1:
             * centre (theta moved inside the bounds as for the probes) */
            double mid = p->is_float ? centre : floor(centre + b->u[i]);
            b->mask[i] = (int)gsl_rng_uniform_int(st->rng, 2);
            b->minus_values[i] = spsa_clip(mid, p->min, p->max);
            if (!b->mask[i])
                b->plus_values[i] = b->minus_values[i];
            else {
                double hi = centre + b->c_k[i] * b->flip[i];
                b->plus_values[i] = spsa_clip(p->is_float ? hi : floor(hi + b->u[i]), p->min,
                                              p->max);
            }
        }
    }
    if (spsa_inflight_push(st, b)) {
        spsa_batch_free(b);
        return -1;
    }
    st->k = k;
    return 1;
}

static void fold_average(SpsaState *st, uint64_t k)
{
    if (st->cfg.average <= 0)
        return;
    double first = (1.0 - st->cfg.average) * (double)st->cfg.iterations;
    if ((double)k <= first)
        return;
    st->avg_count++;
    for (size_t i = 0; i < st->nparams; i++) {
        SpsaParam *p = &st->params[i];
        p->avg += (p->theta - p->avg) / (double)st->avg_count;
    }
}

/* The scale's update (docs/spsa-forms.md, "The scale"): g_i = rn flip_i with rn the
 * batch's normalised result. */
static void adapt_scale(SpsaState *st, const SpsaBatch *b, double rn)
{
    double W = fmax(st->cfg.adapt_window * (double)st->cfg.iterations, SPSA_ADAPT_MIN_WINDOW);
    /* the mean of the batches so far until there are W of them */
    double Wk = fmin((double)st->completed + 1.0, W);
    double beta = 1.0 - 1.0 / Wk;
    double sd = sqrt((1.0 - beta) / (1.0 + beta));
    double lo = log(st->cfg.scale_min), hi = log(st->cfg.scale_max);
    for (size_t i = 0; i < st->nparams; i++) {
        SpsaParam *p = &st->params[i];
        double g = rn * b->flip[i];
        double q = g * p->e / sd;
        double ls = log(p->scale) + st->cfg.adapt_rate / W * (q - st->cfg.adapt_bias);
        /* exp(log(x)) may miss x by a bit: clip the scale itself too */
        p->scale = spsa_clip(exp(spsa_clip(ls, lo, hi)), st->cfg.scale_min, st->cfg.scale_max);
        p->e = beta * p->e + (1.0 - beta) * g;
    }
}

/* The far, settle and adam forms (docs/spsa-forms.md, "far, adam and
 * settle"): the second moment of the result first (it includes this batch),
 * then per parameter the momentum and the step of eta_k c_end m / sqrt(v). */
/* A centre batch's result (docs/spsa-forms.md, "The centre batches"): the running means
 * of each parameter's contrast d, then its probe multiplier. */
static void centre_update(SpsaState *st, const SpsaBatch *b, double result)
{
    double games = 2.0 * st->cfg.pairs_per;
    double Wc = fmax(st->cfg.centre_window * st->cfg.centre * (double)st->cfg.iterations,
                     SPSA_CENTRE_MIN_WINDOW);
    st->centre_count++;
    double Wk = fmin((double)st->centre_count, Wc);
    double beta = 1.0 - 1.0 / Wk;
    /* the noise of a running mean of this window, per unit sd of d */
    double nf = Wk > 1 ? sqrt((1.0 - beta) / (1.0 + beta)) : 1.0;
    double lo = log(st->cfg.centre_min);
    for (size_t i = 0; i < st->nparams; i++) {
        SpsaParam *p = &st->params[i];
        double d = result * (2 * b->mask[i] - 1) / games;
        p->cm = beta * p->cm + (1.0 - beta) * d;
        p->cq = beta * p->cq + (1.0 - beta) * d * d;
        if (st->centre_count < SPSA_CENTRE_WARMUP)
            continue;
        double sd = sqrt(fmax(p->cq - p->cm * p->cm, 1e-12));
        double loss = -2.0 * SPSA_ELO_PER_WL * p->cm;
        double se = 2.0 * SPSA_ELO_PER_WL * sd * nf;
        /* shrink on clear evidence that the probe costs more than centre_elo,
         * grow back while the estimate is below it: the running estimates
         * of successive batches share most of their games, so they vote, and
         * are not summed as if they were independent */
        double z = (loss - st->cfg.centre_elo) / se;
        double dir = z > SPSA_CENTRE_Z ? -1.0 : loss < st->cfg.centre_elo ? 1.0 : 0.0;
        double lp = log(p->pm) + st->cfg.centre_rate / Wc * dir;
        p->pm = spsa_clip(exp(spsa_clip(lp, lo, 0.0)), st->cfg.centre_min, 1.0);
    }
}

static void normalised_update(SpsaState *st, const SpsaBatch *b, double result)
{
    double w = 1.0 / ((double)st->completed + 2.0);
    if (w < 1.0 - st->cfg.beta2)
        w = 1.0 - st->cfg.beta2;
    st->v += (result * result - st->v) * w;
    double beta1 = st->cfg.form == SPSA_FORM_ADAM ? st->cfg.beta1 : 0.0;
    double scale = st->v > 1e-300 ? 1.0 / sqrt(st->v) : 0.0; /* v = 0: every result was 0 */
    /* adam: m / (1 - beta1^t), t counting this batch; m starts at 0 */
    double unbias = 1.0;
    if (beta1 > 0 && st->cfg.unbiased)
        unbias = 1.0 / -expm1((double)(st->completed - st->centre_count + 1) * log(beta1));
    for (size_t i = 0; i < st->nparams; i++) {
        SpsaParam *p = &st->params[i];
        p->m = beta1 * p->m + (1.0 - beta1) * result * b->flip[i];
        double step = b->R_k[i] * p->c_end * param_scale(st, i) * param_pm(st, i) * p->m *
                      unbias * scale;
        p->theta = spsa_clip(p->theta + step, p->min, p->max);
    }
    if (st->cfg.adapt)
        adapt_scale(st, b, result * scale);
}

int spsa_batch_apply_wld(SpsaState *st, const SpsaBatch *b, uint64_t wins, uint64_t losses,
                         uint64_t draws)
{
    size_t idx = st->ninflight;
    for (size_t i = 0; i < st->ninflight; i++)
        if (st->inflight[i].k == b->k) {
            idx = i;
            break;
        }
    if (idx == st->ninflight)
        return -1;
    const SpsaBatch *own = &st->inflight[idx];
    double result = (double)wins - (double)losses;
    if (st->cfg.form == SPSA_FORM_CLASSIC)
        for (size_t i = 0; i < st->nparams; i++) {
            SpsaParam *p = &st->params[i];
            double step = own->R_k[i] * own->c_k[i] * result * own->flip[i];
            p->theta = spsa_clip(p->theta + step, p->min, p->max);
        }
    else if (own->centre)
        centre_update(st, own, result);
    else
        normalised_update(st, own, result);
    st->wins += wins;
    st->losses += losses;
    st->draws += draws;
    st->completed++;
    uint64_t k = own->k;
    spsa_batch_free(&st->inflight[idx]);
    memmove(&st->inflight[idx], &st->inflight[idx + 1],
            (st->ninflight - idx - 1) * sizeof *st->inflight);
    st->ninflight--;
    if (st->cfg.average > 0)
        fold_average(st, k);
    else
        for (size_t i = 0; i < st->nparams; i++)
            st->params[i].avg = st->params[i].theta;
    return 0;
}

int spsa_batch_apply(SpsaState *st, const SpsaBatch *b, uint64_t wins, uint64_t losses)
{
    return spsa_batch_apply_wld(st, b, wins, losses, 0);
}

bool spsa_done(const SpsaState *st)
{
    return st->k >= st->cfg.iterations && st->ninflight == 0;
}

int spsa_inflight_get(const SpsaState *st, size_t i, SpsaBatch *out)
{
    memset(out, 0, sizeof *out);
    if (i >= st->ninflight)
        return -1;
    return spsa_batch_copy(out, &st->inflight[i]);
}

int spsa_extend(SpsaState *st, uint64_t new_games, char *err, size_t errlen)
{
    uint64_t n = spsa_iterations_for_games(new_games, st->cfg.pairs_per);
    if (n < st->k) {
        errmsg(err, errlen,
               "spsa: %" PRIu64 " games give %" PRIu64 " iterations, fewer than the %" PRIu64
               " already handed out",
               new_games, n, st->k);
        return -1;
    }
    st->cfg.games = new_games;
    st->cfg.iterations = n;
    compute_schedule(st);
    return 0;
}

double spsa_value(const SpsaState *st, size_t p)
{
    const SpsaParam *q = &st->params[p];
    double v = st->cfg.average > 0 && st->avg_count > 0 ? q->avg : q->theta;
    return spsa_clip(q->is_float ? v : floor(v + 0.5), q->min, q->max);
}

const SpsaNumberKey SPSA_NUMBER_KEYS[] = {
    { "A-ratio", offsetof(SpsaConfig, A_ratio), 0, 100 },
    { "alpha", offsetof(SpsaConfig, alpha), 1e-6, 10 },
    { "gamma", offsetof(SpsaConfig, gamma), 0, 10 },
    { "average", offsetof(SpsaConfig, average), 0, 0.999999 },
    { "eta", offsetof(SpsaConfig, eta), 0, 10 },
    { "probe", offsetof(SpsaConfig, probe), 1, 100 },
    { "centre", offsetof(SpsaConfig, centre), 0, 0.999999 },
    { NULL, 0, 0, 0 },
};

uint64_t spsa_budget_games(const SpsaConfig *c)
{
    return c->iterations * 2 * (uint64_t)c->pairs_per;
}

const char *const SPSA_KEYS[] = { "games", "pairs-per", "A-ratio", "alpha", "gamma", "average", "form", "eta",
                                   "probe", "narrow", "adapt", "centre", NULL };

const SpsaNumberKey *spsa_number_key(const char *key, size_t len)
{
    for (const SpsaNumberKey *k = SPSA_NUMBER_KEYS; k->key; k++)
        if (strlen(k->key) == len && !strncmp(k->key, key, len))
            return k;
    return NULL;
}

double *spsa_number_field(SpsaConfig *cfg, const SpsaNumberKey *k)
{
    return (double *)((char *)cfg + k->offset);
}
