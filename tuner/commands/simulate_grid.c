/* `ratchet-tune simulate -grid`: the robustness grid.  Landscapes drawn from
 * a seed (so a method chosen on one range of seeds is judged on another),
 * each played with the spec's c_end off by a factor, from far and from the
 * optimum.  All parameters have a landscape unit of 10 in [0, 1000], the
 * optimum near the middle; the spec's c_end is factor * 10.
 *
 *   quad     8 parameters, curvatures log-uniform over 16x
 *   plat     quad with plateaus: widths uniform in 3..8 units
 *   asym     quad with skews of random sign, |skew| uniform in 0.3..0.7
 *   coupled  quad with three disjoint pairs coupled, k = +/-(0.3..1.2) sqrt(curv_a curv_b)
 *
 * far: each parameter 3 to 15 units from its optimum in a random direction,
 * the curvatures scaled so that the start loses 117 Elo (the suite's far8);
 * opt: the same landscape started at the optimum.  Factors 0.2, 0.33, 1, 3,
 * 5 for every parameter, and `mixed`: each parameter's factor drawn from
 * those five.  Then the flat landscape: 8 parameters with no Elo effect,
 * the median over seeds and parameters of |final - start| in c_end after
 * each budget of 100 to 100k games.  The targets of issue 42 (a good start
 * never loses) for the first column: from the optimum at c_end x1 and x3
 * at most 3 Elo, from far at c_end x1 at most 2x far's loss, and a flat drift
 * of at most 2.5 c_end at 3k games and 1.5 at 20k.
 *
 * Rows: the median over the seeds of the loss after the budget, for the
 * form of -spsa (default: the default form with the scale, adapt=1),
 * form=far (the default before form=settle), the same run exported as
 * `export -keep-noise=start` would (every move moves.h calls noise undone),
 * the classic form with the spec's 0.002 and its own
 * c_end, and the classic form made fair: its c_end probe times larger and
 * r_end = eta / probe from the budget (spsa_auto_eta), so the step at the
 * end is that of the other forms. */
#include "simulate_grid.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "moves.h"
#include "simulate.h"

#define NP 8
#define UNIT 10.0
#define START_LOSS 117.0

enum { QUAD, PLAT, ASYM, COUPLED, NKIND };
static const char *const KIND_NAMES[NKIND] = {"quad", "plat", "asym", "coupled"};
static const double FACTORS[] = {0.2, 0.33, 1, 3, 5};
#define NFACT (sizeof FACTORS / sizeof *FACTORS)

typedef struct {
    SpsaParam ps[NP];
    double opt[NP], curv[NP], skew[NP], width[NP], scale[NP];
    double far[NP]; /* the far start */
    SimCoupling cpl[3];
    SimModel m;
} GridLand;

/* The landscape of (kind, seed); fi = NFACT for mixed factors.  mult: the
 * spec's c_end is also multiplied by this (the fair classic's probe), with
 * the model's scale to match, so that the landscape itself is unchanged. */
static void grid_build(int kind, uint64_t seed, size_t fi, double mult, bool at_opt,
                       double draw_ratio, double bias, GridLand *g)
{
    memset(g, 0, sizeof *g);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, (unsigned long)(seed * 7919u + (unsigned)kind * 104729u + 17u));
    for (size_t i = 0; i < NP; i++) {
        g->curv[i] = exp(gsl_ran_flat(r, log(0.25), log(4.0)));
        g->opt[i] = 500.0 + floor(gsl_ran_flat(r, -100.0, 100.0));
        double z = gsl_ran_flat(r, 3.0, 15.0);
        double side = gsl_rng_uniform_int(r, 2) ? 1.0 : -1.0;
        g->far[i] = floor(g->opt[i] + side * z * UNIT + 0.5);
        double w = gsl_ran_flat(r, 3.0, 8.0);
        double sk = gsl_ran_flat(r, 0.3, 0.7) * (gsl_rng_uniform_int(r, 2) ? 1.0 : -1.0);
        size_t f = gsl_rng_uniform_int(r, NFACT);
        g->width[i] = kind == PLAT ? w : 0;
        g->skew[i] = kind == ASYM ? sk : 0;
        double factor = fi < NFACT ? FACTORS[fi] : FACTORS[f];
        SpsaParam *p = &g->ps[i];
        snprintf(p->name, sizeof p->name, "P%zu", i);
        p->min = 0;
        p->max = 1000;
        p->c_end = factor * UNIT * mult;
        p->r_end = 0.002;
        g->scale[i] = factor * mult;
    }
    g->m = (SimModel){NP, g->opt, g->curv, draw_ratio, bias, 1, 0, NULL, g->skew, g->width,
                      g->scale};
    if (kind == COUPLED) {
        size_t idx[NP];
        for (size_t i = 0; i < NP; i++)
            idx[i] = i;
        gsl_ran_shuffle(r, idx, NP, sizeof *idx);
        for (size_t j = 0; j < 3; j++) {
            size_t a = idx[2 * j], b = idx[2 * j + 1];
            double k = gsl_ran_flat(r, 0.3, 1.2) * (gsl_rng_uniform_int(r, 2) ? 1.0 : -1.0);
            g->cpl[j] = (SimCoupling){a, b, k * sqrt(g->curv[a] * g->curv[b])};
        }
        g->m.ncouplings = 3;
        g->m.couplings = g->cpl;
    }
    double loss = sim_elo_loss(&g->m, g->ps, g->far);
    double s = loss > 0 ? START_LOSS / loss : 1.0;
    for (size_t i = 0; i < NP; i++)
        g->curv[i] *= s;
    for (size_t j = 0; j < g->m.ncouplings; j++)
        g->cpl[j].k *= s;
    for (size_t i = 0; i < NP; i++)
        g->ps[i].start = g->ps[i].theta = at_opt ? g->opt[i] : g->far[i];
    gsl_rng_free(r);
}

typedef struct {
    char label[40];
    SpsaConfig cfg;
    double mult;  /* c_end multiple (the fair classic's probe) */
    bool fair;    /* r_end = eta / mult from the budget */
    bool keep;    /* the estimate export -keep-noise=start writes: noise moves undone (moves.h) */
} GridVariant;

/* The trace of a run, for the verdicts of -keep-noise=start. */
typedef struct {
    MoveAcc acc[NP];
} GridTrace;

static void grid_trace(void *ctx, const SpsaState *st)
{
    GridTrace *t = ctx;
    for (size_t i = 0; i < NP; i++)
        moves_acc_add(&t->acc[i], st->params[i].theta, false);
}

/* The loss of one run: of its final estimate, or with v->keep of that
 * estimate with every move that moves.h calls noise undone. */
static int grid_run(const GridVariant *v, GridLand *g, const SpsaConfig *cfg, uint64_t seed,
                    double *loss, char *err, size_t errlen)
{
    GridTrace t;
    for (size_t i = 0; i < NP; i++)
        moves_acc_init(&t.acc[i], g->ps[i].start);
    double x[NP];
    SimResult r;
    if (sim_run_traced(g->ps, NP, cfg, &g->m, seed, x, &r, NULL, v->keep ? grid_trace : NULL, &t,
                       err, errlen))
        return -1;
    *loss = r.loss;
    if (v->keep) {
        for (size_t i = 0; i < NP; i++) {
            MoveVerdict mv;
            moves_acc_verdict(&t.acc[i], &mv);
            if (!mv.real)
                x[i] = g->ps[i].start;
        }
        *loss = sim_elo_loss(&g->m, g->ps, x);
    }
    return 0;
}

/* Median loss over the seeds; -1 on error. */
static double grid_cell(const GridVariant *v, int kind, size_t fi, bool at_opt, uint64_t games,
                        uint64_t seed0, int seeds, double draw_ratio, double bias)
{
    double *ls = calloc((size_t)seeds, sizeof *ls);
    if (!ls)
        return -1;
    char err[512];
    double res = -1;
    for (int s = 0; s < seeds; s++) {
        GridLand g;
        grid_build(kind, seed0 + (uint64_t)s, fi, v->mult, at_opt, draw_ratio, bias, &g);
        SpsaConfig cfg = v->cfg;
        spsa_config_set_games(&cfg, games);
        for (size_t i = 0; v->fair && i < NP; i++)
            g.ps[i].r_end = spsa_auto_eta(cfg.iterations, NP) / v->mult;
        if (grid_run(v, &g, &cfg, seed0 + (uint64_t)s, &ls[s], err, sizeof err)) {
            fprintf(stderr, "simulate: %s\n", err);
            goto done;
        }
    }
    res = gsl_stats_median(ls, 1, (size_t)seeds);
done:
    free(ls);
    return res;
}

/* Median over seeds and parameters of |final - start| / c_end on a flat
 * landscape. */
static double flat_drift(const GridVariant *v, uint64_t games, uint64_t seed0, int seeds)
{
    size_t n = (size_t)seeds * NP;
    double *d = calloc(n, sizeof *d);
    if (!d)
        return -1;
    char err[512];
    double res = -1;
    for (int s = 0; s < seeds; s++) {
        GridLand g;
        grid_build(QUAD, seed0 + (uint64_t)s, 2, v->mult, true, SIM_DRAW_RATIO,
                   SIM_OPENING_BIAS, &g);
        for (size_t i = 0; i < NP; i++)
            g.curv[i] = 0;
        SpsaConfig cfg = v->cfg;
        spsa_config_set_games(&cfg, games);
        for (size_t i = 0; v->fair && i < NP; i++)
            g.ps[i].r_end = spsa_auto_eta(cfg.iterations, NP) / v->mult;
        double x[NP];
        SimResult r;
        if (sim_run(g.ps, NP, &cfg, &g.m, seed0 + (uint64_t)s, x, &r, NULL, err, sizeof err)) {
            fprintf(stderr, "simulate: %s\n", err);
            goto done;
        }
        for (size_t i = 0; i < NP; i++)
            d[(size_t)s * NP + i] = fabs(x[i] - g.ps[i].start) / (g.ps[i].c_end / v->mult);
    }
    res = gsl_stats_median(d, 1, n);
done:
    free(d);
    return res;
}

/* Whether the comma-separated list lands (NULL: all) names kind exactly. */
static bool kind_listed(const char *lands, int kind)
{
    if (!lands)
        return true;
    size_t want = strlen(KIND_NAMES[kind]);
    for (const char *p = lands;;) {
        size_t l = strcspn(p, ",");
        if (l == want && !strncmp(p, KIND_NAMES[kind], l))
            return true;
        if (!p[l])
            return false;
        p += l + 1;
    }
}

/* Every name of the list is a landscape kind, and there is one at least. */
static bool kinds_known(const char *lands)
{
    if (!lands)
        return true;
    for (const char *p = lands;;) {
        size_t l = strcspn(p, ",");
        bool found = false;
        for (int k = 0; k < NKIND; k++)
            found |= strlen(KIND_NAMES[k]) == l && !strncmp(p, KIND_NAMES[k], l);
        if (!found)
            return false;
        if (!p[l])
            return true;
        p += l + 1;
    }
}

int simulate_grid_run(const SimSuiteOptions *o, uint64_t seed0, uint64_t games)
{
    if (!kinds_known(o->landscapes)) {
        fprintf(stderr, "simulate: -grid -landscapes %s: the grid has quad plat asym coupled (a comma-separated list "
                        "of those names)\n", o->landscapes);
        return 2;
    }
    GridVariant vs[5];
    int nv = 0;
    memset(vs, 0, sizeof vs);
    vs[nv].cfg = o->cfg;
    if (!o->custom)
        vs[nv].cfg.adapt = true; /* what the grid is for: the per-parameter scale */
    snprintf(vs[nv].label, sizeof vs[nv].label, "%s%s", spsa_form_name(o->cfg.form),
             o->custom ? " (custom)" : " adapt=1");
    vs[nv++].mult = 1;
    spsa_config_default(&vs[nv].cfg);
    spsa_config_set_form(&vs[nv].cfg, SPSA_FORM_RMS);
    vs[nv].cfg.adapt = false;
    snprintf(vs[nv].label, sizeof vs[nv].label, "%s", spsa_form_name(SPSA_FORM_RMS));
    vs[nv++].mult = 1;
    vs[nv] = vs[nv - 1];
    snprintf(vs[nv].label, sizeof vs[nv].label, "far keep");
    vs[nv++].keep = true;
    spsa_config_default(&vs[nv].cfg);
    snprintf(vs[nv].label, sizeof vs[nv].label, "classic");
    vs[nv++].mult = 1;
    spsa_config_default(&vs[nv].cfg);
    snprintf(vs[nv].label, sizeof vs[nv].label, "classic fair");
    vs[nv].mult = SPSA_DEFAULT_PROBE;
    vs[nv++].fair = true;

    int seeds = o->seeds;
    printf("simulate -grid: seeds %" PRIu64 "..%" PRIu64 ", %" PRIu64
           " games, draw ratio %g, opening bias %g Elo; median Elo loss over the seeds\n",
           seed0, seed0 + (uint64_t)seeds - 1, games, o->draw_ratio, o->opening_bias);
    printf("%-8s %-6s %-4s", "land", "c_end", "from");
    for (int v = 0; v < nv; v++)
        printf(" %14s", vs[v].label);
    printf("\n");
    double worst_opt = 0, worst_far_ratio = 0;
    char worst_opt_at[64] = "", worst_far_at[64] = "";
    /* issue 42: from the optimum at c_end x1 and x3, and from far at x1
     * against far's */
    double worst_opt13 = 0, worst_far_vs = 0;
    char worst_opt13_at[64] = "", worst_far_vs_at[64] = "";
    for (int kind = 0; kind < NKIND; kind++) {
        if (!kind_listed(o->landscapes, kind))
            continue;
        double far1 = 0;
        for (int start = 0; start < 2; start++) {
            bool at_opt = start == 1;
            /* factor 1 first, so that the far rows can be compared with it */
            static const size_t ORDER[] = {2, 0, 1, 3, 4, NFACT};
            for (size_t oi = 0; oi < sizeof ORDER / sizeof *ORDER; oi++) {
                size_t fi = ORDER[oi];
                char fname[16];
                if (fi < NFACT)
                    snprintf(fname, sizeof fname, "x%g", FACTORS[fi]);
                else
                    snprintf(fname, sizeof fname, "mixed");
                printf("%-8s %-6s %-4s", KIND_NAMES[kind], fname, at_opt ? "opt" : "far");
                for (int v = 0; v < nv; v++) {
                    double l = grid_cell(&vs[v], kind, fi, at_opt, games, seed0, seeds,
                                         o->draw_ratio, o->opening_bias);
                    if (l < 0)
                        return 1;
                    printf(" %14.2f", l);
                    if (v == 1 && !at_opt && fi == 2 && l > 0 && far1 / l > worst_far_vs) {
                        worst_far_vs = far1 / l;
                        snprintf(worst_far_vs_at, sizeof worst_far_vs_at, "%s", KIND_NAMES[kind]);
                    }
                    if (v != 0)
                        continue;
                    if (at_opt && (fi == 2 || fi == 3) && l > worst_opt13) {
                        worst_opt13 = l;
                        snprintf(worst_opt13_at, sizeof worst_opt13_at, "%s %s", KIND_NAMES[kind],
                                 fname);
                    }
                    if (at_opt && l > worst_opt) {
                        worst_opt = l;
                        snprintf(worst_opt_at, sizeof worst_opt_at, "%s %s", KIND_NAMES[kind],
                                 fname);
                    }
                    if (!at_opt && fi == 2)
                        far1 = l;
                    if (!at_opt && fi != 2 && far1 > 0 && l / far1 > worst_far_ratio) {
                        worst_far_ratio = l / far1;
                        snprintf(worst_far_at, sizeof worst_far_at, "%s %s", KIND_NAMES[kind],
                                 fname);
                    }
                }
                printf("\n");
                fflush(stdout);
            }
        }
    }
    printf("\ntargets (%s): from the optimum at most 3 Elo: worst %.2f (%s) %s; from far at most "
           "2x the loss at c_end x1: worst %.2fx (%s) %s\n",
           vs[0].label, worst_opt, worst_opt_at, worst_opt <= 3 ? "met" : "NOT MET",
           worst_far_ratio, worst_far_at, worst_far_ratio <= 2 ? "met" : "NOT MET");
    printf("targets of issue 42 (%s): from the optimum at c_end x1 and x3 at most 3 Elo: worst "
           "%.2f (%s) %s; from far at c_end x1 at most 2x far's loss: worst %.2fx (%s) %s\n",
           vs[0].label, worst_opt13, worst_opt13_at, worst_opt13 <= 3 ? "met" : "NOT MET",
           worst_far_vs, worst_far_vs_at, worst_far_vs <= 2 ? "met" : "NOT MET");

    static const uint64_t BUDGETS[] = {100, 1000, 3000, 10000, 20000, 100000};
    printf("\nflat landscape: median |final - start| in c_end over seeds and parameters\n");
    printf("%-8s", "games");
    for (int v = 0; v < nv; v++)
        printf(" %14s", vs[v].label);
    printf("\n");
    double worst_drift = 0, drift3k = 0, drift20k = 0;
    for (size_t b = 0; b < sizeof BUDGETS / sizeof *BUDGETS; b++) {
        printf("%-8" PRIu64, BUDGETS[b]);
        for (int v = 0; v < nv; v++) {
            double d = flat_drift(&vs[v], BUDGETS[b], seed0, seeds);
            if (d < 0)
                return 1;
            printf(" %14.2f", d);
            if (v == 0 && d > worst_drift)
                worst_drift = d;
            if (v == 0 && BUDGETS[b] == 3000)
                drift3k = d;
            if (v == 0 && BUDGETS[b] == 20000)
                drift20k = d;
        }
        printf("\n");
        fflush(stdout);
    }
    printf("target (%s): drift at most 2 c_end at every budget: worst %.2f %s\n", vs[0].label,
           worst_drift, worst_drift <= 2 ? "met" : "NOT MET");
    printf("targets of issue 42 (%s): drift at most 2.5 c_end at 3k games: %.2f %s; at most 1.5 "
           "at 20k: %.2f %s\n",
           vs[0].label, drift3k, drift3k <= 2.5 ? "met" : "NOT MET", drift20k,
           drift20k <= 1.5 ? "met" : "NOT MET");
    return 0;
}
