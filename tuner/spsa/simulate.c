/* SPSA against a synthetic Elo landscape (the model in simulate.h); the
 * `simulate` command is commands/simulate_cmd.c. */
#include "simulate.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "errmsg.h"

/* ---- the model ----------------------------------------------------------- */

/* The landscape's unit of distance for parameter i. */
static double unit(const SimModel *m, const SpsaParam *params, size_t i)
{
    return m->scale ? params[i].c_end / m->scale[i] : params[i].c_end;
}

double sim_elo_loss(const SimModel *m, const SpsaParam *params, const double *x)
{
    double loss = 0;
    for (size_t i = 0; i < m->nparams; i++) {
        double z = (x[i] - m->opt[i]) / unit(m, params, i);
        double side = m->skew ? 1.0 + (z > 0 ? m->skew[i] : -m->skew[i]) : 1.0;
        double w = m->width ? m->width[i] : 0;
        loss += m->curv[i] * side * (w > 0 ? w * w * -expm1(-(z / w) * (z / w)) : z * z);
    }
    for (size_t j = 0; j < m->ncouplings; j++) {
        const SimCoupling *c = &m->couplings[j];
        loss += c->k * (x[c->a] - m->opt[c->a]) / unit(m, params, c->a) *
                (x[c->b] - m->opt[c->b]) / unit(m, params, c->b);
    }
    return loss;
}

/* One game for the `+` side at Elo advantage d: 2 = win, 1 = draw, 0 = loss. */
static int play_game(gsl_rng *r, double d, double draw_ratio)
{
    double s = 1.0 / (1.0 + pow(10.0, -d / 400.0));
    double pd = fmin(draw_ratio, 2.0 * fmin(s, 1.0 - s));
    double pw = s - pd / 2.0;
    double u = gsl_rng_uniform(r);
    return u < pw ? 2 : u < pw + pd ? 1 : 0;
}

/* Plays the batch's P pairs; adds the `+` engine's W, L, D. */
static void play_batch(gsl_rng *r, const SimModel *m, const SpsaParam *params,
                       const SpsaBatch *b, int pairs, double *xp, double *xm, uint64_t wld[3])
{
    for (size_t i = 0; i < m->nparams; i++) {
        xp[i] = b->plus_values[i];
        xm[i] = b->minus_values[i];
    }
    double d = sim_elo_loss(m, params, xm) - sim_elo_loss(m, params, xp);
    for (int p = 0; p < pairs; p++) {
        double bias = m->opening_bias > 0 ? gsl_ran_gaussian(r, m->opening_bias) : 0.0;
        int g1 = play_game(r, d + bias, m->draw_ratio); /* `+` has White */
        int g2 = play_game(r, d - bias, m->draw_ratio); /* colours swapped */
        wld[0] += (g1 == 2) + (g2 == 2);
        wld[1] += (g1 == 0) + (g2 == 0);
        wld[2] += (g1 == 1) + (g2 == 1);
    }
}

static void estimate(const SpsaState *st, double *x)
{
    for (size_t i = 0; i < st->nparams; i++)
        x[i] = st->cfg.average > 0 && st->avg_count > 0 ? st->params[i].avg
                                                        : st->params[i].theta;
}

static void print_progress(FILE *out, const SpsaState *st, const SimModel *m, double *x)
{
    estimate(st, x);
    fprintf(out, "  %8" PRIu64 "/%" PRIu64 " iterations  %9" PRIu64 " games  Elo loss %7.2f  W-L %+" PRId64 "\n",
            st->completed, st->cfg.iterations, st->completed * 2 * (uint64_t)st->cfg.pairs_per,
            sim_elo_loss(m, st->params, x), (int64_t)st->wins - (int64_t)st->losses);
}

int sim_run(const SpsaParam *params, size_t nparams, const SpsaConfig *cfg, const SimModel *m,
            uint64_t seed, double *final, SimResult *res, FILE *progress, char *err,
            size_t errlen)
{
    return sim_run_traced(params, nparams, cfg, m, seed, final, res, progress, NULL, NULL, err, errlen);
}

int sim_run_traced(const SpsaParam *params, size_t nparams, const SpsaConfig *cfg, const SimModel *m,
                   uint64_t seed, double *final, SimResult *res, FILE *progress, SimTraceFn trace, void *ctx,
                   char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    bool bad_coupling = false;
    for (size_t j = 0; j < m->ncouplings; j++)
        bad_coupling |= m->couplings[j].a >= nparams || m->couplings[j].b >= nparams ||
                        m->couplings[j].a == m->couplings[j].b;
    if (m->nparams != nparams || m->concurrency < 1 || !(m->draw_ratio >= 0) ||
        m->draw_ratio > 1 || !(m->opening_bias >= 0) || bad_coupling) {
        errmsg(err, errlen, "simulate: bad model (parameters, concurrency >= 1, draw ratio in [0,1], opening bias >= 0)");
        return -1;
    }
    SpsaState st;
    if (spsa_init(&st, params, nparams, cfg, seed, err, errlen))
        return -1;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    SpsaBatch *out = calloc((size_t)m->concurrency, sizeof *out);
    double *xp = calloc(nparams, sizeof *xp), *xm = calloc(nparams, sizeof *xm);
    uint64_t wld[3] = {0, 0, 0};
    uint64_t tenth = cfg->iterations / 10 ? cfg->iterations / 10 : 1;
    size_t nout = 0;
    int rc = -1;
    if (!r || !out || !xp || !xm) {
        errmsg(err, errlen, "simulate: out of memory");
        goto done;
    }
    /* A stream of its own, distinct from the SPSA state's. */
    gsl_rng_set(r, (unsigned long)(seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL));

    for (size_t i = 0; i < nparams; i++)
        xp[i] = params[i].theta;
    res->start_loss = sim_elo_loss(m, params, xp);
    res->games_to_1 = res->start_loss < 1.0 ? 0 : UINT64_MAX;

    for (;;) {
        while (nout < (size_t)m->concurrency) {
            int got = spsa_batch_begin(&st, &out[nout]);
            if (got < 0) {
                errmsg(err, errlen, "simulate: out of memory");
                goto done;
            }
            if (got == 0)
                break;
            nout++;
        }
        if (nout == 0)
            break;
        size_t j = nout == 1 ? 0 : gsl_rng_uniform_int(r, nout);
        uint64_t b[3] = {0, 0, 0};
        play_batch(r, m, params, &out[j], cfg->pairs_per, xp, xm, b);
        spsa_batch_apply_wld(&st, &out[j], b[0], b[1], b[2]);
        if (trace)
            trace(ctx, &st);
        for (int i = 0; i < 3; i++)
            wld[i] += b[i];
        spsa_batch_free(&out[j]);
        out[j] = out[--nout];
        memset(&out[nout], 0, sizeof out[nout]);
        if (res->games_to_1 == UINT64_MAX) {
            estimate(&st, xm);
            if (sim_elo_loss(m, params, xm) < 1.0)
                res->games_to_1 = st.completed * 2 * (uint64_t)cfg->pairs_per;
        }
        if (progress && st.completed % tenth == 0)
            print_progress(progress, &st, m, xp);
    }

    estimate(&st, xp);
    res->loss = sim_elo_loss(m, params, xp);
    if (final)
        memcpy(final, xp, nparams * sizeof *xp);
    for (size_t i = 0; i < nparams; i++)
        xm[i] = spsa_value(&st, i);
    res->loss_int = sim_elo_loss(m, params, xm);
    res->games = st.completed * 2 * (uint64_t)cfg->pairs_per;
    res->wins = wld[0];
    res->losses = wld[1];
    res->draws = wld[2];
    rc = 0;
done:
    for (size_t i = 0; out && i < nout; i++)
        spsa_batch_free(&out[i]);
    free(out);
    free(xp);
    free(xm);
    if (r)
        gsl_rng_free(r);
    spsa_free(&st);
    return rc;
}
