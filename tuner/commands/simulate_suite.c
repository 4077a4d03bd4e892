/* `ratchet-tune simulate -suite`: every SPSA form on a fixed set of synthetic
 * landscapes, medians over seeds.  The landscapes (all parameters have
 * c_end 10 in [0, 1000]; z is the distance from the optimum in c_end):
 *
 *   far8    8 parameters, curvatures (Elo lost at 1 c_end) spread 16x
 *           geometrically, the start 3 to 15 c_end from the optimum, each in
 *           a random direction per seed; 117 Elo lost at the start
 *   opt8    far8 started at the optimum
 *   flat8   far8 with one parameter that has no Elo effect at all
 *   pair8   far8 with a cross term 1.5 sqrt(curv_a curv_b) z_a z_b between the
 *           two parameters of highest curvature (an interacting pair)
 *   bound8  far8 with the optimum of four parameters at a bound of their range
 *   far30   30 parameters shaped like far8 (the same loss per parameter)
 *   opt30   far30 started at the optimum
 *   asym8   far8 with each parameter's curvature 4x steeper on one side of
 *           the optimum than on the other (1.6 and 0.4 times curv, the side
 *           random per seed), scaled to the same 117 Elo at the start
 *   aopt8   asym8 started at the optimum: a wide probe pair straddling an
 *           asymmetric optimum measures a slope that is not zero there, so
 *           this is where a large probe pays for its signal
 *   plat8   far8 with plateaus: parameter i's loss saturates at
 *           curv_i w_i^2 with w_i 4, 6 or 8 c_end (simulate.h), so from the
 *           far start the slope fades and some parameters feel almost none,
 *           as on bin/ratchet at the far ends of its ranges (docs/results/recovery.md,
 *           the per-parameter table); scaled to the same 117 Elo at the start
 *   platb8  bench-recover's detune in ranges like bin/ratchet's: 20 c_end,
 *           each optimum 2 to 8 c_end inside its nearer bound, the start 13
 *           c_end from it toward the farther bound, clipped (two of the
 *           eight start on the bound); plateau widths 0 (quadratic), 10, 6
 *           and 4 c_end in turn
 *   near8   far8's curvatures, each optimum 2 to 4 c_end inside a bound (the
 *           side random per seed), started at the optimum: as bin/ratchet's
 *           defaults lie in ranges of 20 c_end; a probe pair that does not
 *           fit beside the bound is measured elsewhere
 *
 * Beside the classic form with the spec's r_end, the classic form made fair:
 * its c_end the other forms' probe (4) times larger and r_end = eta / 4 from
 * the budget, so that what the other forms add is seen apart from the probe.
 * For each form and landscape: the median over the seeds of the games until
 * the estimate first loses less than 1 Elo (in the longest budget's run), and
 * of the loss left after runs of each budget (2k, 10k and 50k games; the
 * schedule of every form depends on the budget, so each is its own run).
 * Then the curve of each form at 10k games: far8 loss against opt8 loss as
 * the gain is scaled. */
#include "simulate_suite.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "simulate.h"

#define START_LOSS_PER_PARAM (117.0 / 8.0)
#define C_END 10.0
#define MID 500.0
#define SKEW 0.6 /* curvatures 1.6 and 0.4 times curv: 4x */

enum { FAR, OPT, FLAT, PAIR, BOUND, ASYM, AOPT, NEAR, PLAT, PLATB };

typedef struct {
    const char *name;
    size_t n;
    int kind;
} Landscape;

static const Landscape LANDSCAPES[] = {
    {"far8", 8, FAR},   {"opt8", 8, OPT},     {"flat8", 8, FLAT}, {"pair8", 8, PAIR},
    {"bound8", 8, BOUND}, {"far30", 30, FAR}, {"opt30", 30, OPT},
    {"asym8", 8, ASYM}, {"aopt8", 8, AOPT}, {"near8", 8, NEAR},
    {"plat8", 8, PLAT}, {"platb8", 8, PLATB},
};
#define NLAND (sizeof LANDSCAPES / sizeof *LANDSCAPES)

/* One way of running SPSA: a form with its settings.  r_end and eta scale
 * the gains (r_end = 0 keeps the spec's 0.002; eta = 0 the budget's). */
typedef struct {
    char label[48];
    SpsaConfig cfg;
    double r_end;
    double mult; /* > 1: the classic form made fair, its c_end this many times the
                  * spec's (the other forms' probe) and r_end = eta / mult from the
                  * budget (spsa_auto_eta), so its last step is theirs */
} Variant;

typedef struct {
    const Landscape *land;
    SpsaParam *ps;
    double *opt, *curv, *skew, *width;
    SimCoupling cpl;
    SimModel m;
} Built;

/* The landscape of seed s: deterministic for (landscape, seed). */
static int build(const Landscape *l, uint64_t seed, double r_end, double draw_ratio,
                 double bias, Built *b)
{
    size_t n = l->n;
    memset(b, 0, sizeof *b);
    b->land = l;
    b->ps = calloc(n, sizeof *b->ps);
    b->opt = calloc(n, sizeof *b->opt);
    b->curv = calloc(n, sizeof *b->curv);
    b->skew = calloc(n, sizeof *b->skew);
    b->width = calloc(n, sizeof *b->width);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!b->ps || !b->opt || !b->curv || !b->skew || !b->width || !r) {
        if (r)
            gsl_rng_free(r);
        return -1;
    }
    gsl_rng_set(r, (unsigned long)(seed * 1000003u + n * 31u + (unsigned)l->kind));
    /* distances 3..15 c_end spread over the parameters, curvatures 16x */
    double *z = calloc(n, sizeof *z), *sides = calloc(n, sizeof *sides), sum = 0;
    if (!z || !sides) {
        free(z);
        free(sides);
        gsl_rng_free(r);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        z[i] = 3.0 + 12.0 * (double)((i * 5) % n) / (double)(n - 1);
        b->curv[i] = pow(16.0, (double)i / (double)(n - 1));
        sum += b->curv[i] * z[i] * z[i];
    }
    double scale = START_LOSS_PER_PARAM * (double)n / sum;
    for (size_t i = 0; i < n; i++) {
        SpsaParam *p = &b->ps[i];
        snprintf(p->name, sizeof p->name, "P%02zu", i);
        p->min = 0;
        p->max = 1000;
        p->c_end = C_END;
        p->r_end = r_end > 0 ? r_end : 0.002;
        b->curv[i] *= scale;
        double sign = gsl_rng_uniform_int(r, 2) ? 1.0 : -1.0;
        sides[i] = sign;
        b->opt[i] = MID;
        p->theta = l->kind == OPT || l->kind == AOPT ? MID : MID + sign * z[i] * C_END;
        if (l->kind == ASYM || l->kind == AOPT)
            b->skew[i] = gsl_rng_uniform_int(r, 2) ? SKEW : -SKEW;
        if (l->kind == NEAR) { /* 2, 3 or 4 c_end inside the bound on side `sign` */
            b->opt[i] = (sign > 0 ? p->max : p->min) - sign * (2.0 + (double)(i % 3)) * C_END;
            p->theta = b->opt[i];
        }
        if (l->kind == BOUND && i % 2 == 0) { /* optimum at the bound the start lies towards */
            b->opt[i] = sign > 0 ? p->max : p->min;
            p->theta = b->opt[i] - sign * z[i] * C_END;
        }
        if (l->kind == PLAT)
            b->width[i] = 4.0 + 2.0 * (double)(i % 3);
        if (l->kind == PLATB) { /* bench-recover's detune in a range of 20 c_end */
            double near = round(2.0 + 6.0 * (double)((i * 3) % n) / (double)(n - 1));
            p->min = sign > 0 ? MID - near * C_END : MID - (20.0 - near) * C_END;
            p->max = p->min + 20.0 * C_END;
            z[i] = fmin(13.0, 20.0 - near);
            p->theta = MID + sign * z[i] * C_END;
            b->width[i] = (double)((int[]){0, 10, 6, 4})[i % 4];
        }
        p->start = p->theta;
    }
    if (l->kind == FLAT)
        b->curv[n / 2] = 0; /* no Elo effect */
    b->m = (SimModel){n, b->opt, b->curv, draw_ratio, bias, 1, 0, NULL, NULL, NULL, NULL};
    if (l->kind == ASYM || l->kind == AOPT) {
        /* the same loss as far8 at the far start (the side it lies on: sides) */
        double start = 0;
        for (size_t i = 0; i < n; i++)
            start += b->curv[i] * (1.0 + sides[i] * b->skew[i]) * z[i] * z[i];
        for (size_t i = 0; i < n; i++)
            b->curv[i] *= START_LOSS_PER_PARAM * (double)n / start;
        b->m.skew = b->skew;
    }
    if (l->kind == PLAT || l->kind == PLATB) {
        b->m.width = b->width;
        double start = 0;
        for (size_t i = 0; i < n; i++) {
            double w = b->width[i];
            start += b->curv[i] * (w > 0 ? w * w * -expm1(-(z[i] / w) * (z[i] / w)) : z[i] * z[i]);
        }
        for (size_t i = 0; i < n; i++)
            b->curv[i] *= START_LOSS_PER_PARAM * (double)n / start;
    }
    if (l->kind == PAIR) {
        b->cpl = (SimCoupling){n - 1, n - 2, 1.5 * sqrt(b->curv[n - 1] * b->curv[n - 2])};
        b->m.ncouplings = 1;
        b->m.couplings = &b->cpl;
    }
    free(z);
    free(sides);
    gsl_rng_free(r);
    return 0;
}

static void unbuild(Built *b)
{
    free(b->ps);
    free(b->opt);
    free(b->curv);
    free(b->skew);
    free(b->width);
}

typedef struct {
    double games_to_1;  /* median; INFINITY if most seeds never got there */
    double loss[3];     /* median loss after each budget */
} Cell;

static const uint64_t BUDGETS[3] = {2000, 10000, 50000};

static int run_cell(const Variant *v, const Landscape *l, int seeds, double draw_ratio,
                    double bias, const uint64_t *budgets, int nbudgets, Cell *out)
{
    double *g1 = calloc((size_t)seeds, sizeof *g1), *ls = calloc((size_t)seeds, sizeof *ls);
    char err[512];
    int rc = -1;
    if (!g1 || !ls)
        goto done;
    for (int bi = 0; bi < nbudgets; bi++) {
        for (int s = 0; s < seeds; s++) {
            Built b;
            if (build(l, (uint64_t)s + 1, v->r_end, draw_ratio, bias, &b)) {
                unbuild(&b);
                goto done;
            }
            SpsaConfig cfg = v->cfg;
            spsa_config_set_games(&cfg, budgets[bi]);
            double unit[64];
            if (v->mult > 1 && l->n <= 64) {
                for (size_t i = 0; i < l->n; i++) {
                    b.ps[i].c_end *= v->mult;
                    b.ps[i].r_end = spsa_auto_eta(cfg.iterations, l->n) / v->mult;
                    unit[i] = v->mult; /* the same landscape: its unit is c_end / mult */
                }
                b.m.scale = unit;
            }
            SimResult r;
            double x[64];
            int e = sim_run(b.ps, l->n, &cfg, &b.m, (uint64_t)s + 1, l->n <= 64 ? x : NULL, &r,
                            NULL, err, sizeof err);
            if (!e && getenv("SUITE_DEBUG") && l->n <= 64) {
                fprintf(stderr, "%s %s %" PRIu64 " seed %d:", v->label, l->name, budgets[bi], s + 1);
                for (size_t i = 0; i < l->n; i++)
                    fprintf(stderr, " %.2f", (x[i] - b.opt[i]) / C_END); /* z */
                fprintf(stderr, "\n");
            }
            unbuild(&b);
            if (e) {
                fprintf(stderr, "simulate: %s\n", err);
                goto done;
            }
            ls[s] = r.loss;
            g1[s] = r.games_to_1 == UINT64_MAX ? INFINITY : (double)r.games_to_1;
        }
        out->loss[bi] = gsl_stats_median(ls, 1, (size_t)seeds);
        if (bi == nbudgets - 1)
            out->games_to_1 = gsl_stats_median(g1, 1, (size_t)seeds);
    }
    rc = 0;
done:
    free(g1);
    free(ls);
    return rc;
}

static void fmt_games(double g, char *buf, size_t len)
{
    if (isinf(g))
        snprintf(buf, len, "never");
    else
        snprintf(buf, len, "%.0f", g);
}

static bool land_selected(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && !strncmp(p, name, len))
            return true;
        p += l + (e != NULL);
    }
    return false;
}

/* Every name of the list is a landscape of the suite. */
static bool lands_known(const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        for (size_t i = 0; i < NLAND; i++)
            found |= strlen(LANDSCAPES[i].name) == l && !strncmp(p, LANDSCAPES[i].name, l);
        if (!found)
            return false;
        p += l + (e != NULL);
    }
    return true;
}

static void variant(Variant *v, const char *label, SpsaForm form, double r_end, double eta)
{
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", label);
    spsa_config_default(&v->cfg);
    spsa_config_set_form(&v->cfg, form);
    v->cfg.eta = eta;
    v->r_end = r_end;
}

int simulate_suite_run(const SimSuiteOptions *o)
{
    int seeds = o->seeds;
    double draw_ratio = o->draw_ratio, bias = o->opening_bias;
    const char *lands = o->landscapes;
    bool custom = o->custom;
    Variant cv;
    variant(&cv, "", SPSA_FORM_DEFAULT, o->r_end, 0);
    cv.cfg = o->cfg;
    snprintf(cv.label, sizeof cv.label, "%s (custom)", spsa_form_name(cv.cfg.form));
    if (!lands_known(lands)) {
        fprintf(stderr, "simulate: -landscapes %s: the suite has far8 opt8 flat8 pair8 bound8 far30 opt30 asym8 aopt8 near8 plat8 platb8\n", lands);
        return 2;
    }

    Variant vs[14];
    int nv = 0;
    variant(&vs[nv++], "classic", SPSA_FORM_CLASSIC, 0, 0);
    variant(&vs[nv], "classic fair", SPSA_FORM_CLASSIC, 0, 0);
    vs[nv++].mult = SPSA_DEFAULT_PROBE;
    if (custom)
        vs[nv++] = cv;
    else {
        variant(&vs[nv++], "settle", SPSA_FORM_SETTLE, 0, 0);
        variant(&vs[nv++], "rms", SPSA_FORM_RMS, 0, 0);
        /* the default form with the per-parameter scale (docs/spsa-forms.md, "The scale") */
        variant(&vs[nv], "rms adapt=1", SPSA_FORM_RMS, 0, 0);
        vs[nv++].cfg.adapt = true;
        variant(&vs[nv++], "adam", SPSA_FORM_ADAM, 0, 0);
        /* what the probe buys: rms with the classic probe, the 2x of the
         * first rms default, and a wider one than the default's 4x */
        static const double PROBES[] = {1, 2, 6};
        for (size_t i = 0; i < sizeof PROBES / sizeof *PROBES; i++) {
            char label[32];
            snprintf(label, sizeof label, "rms probe=%g", PROBES[i]);
            variant(&vs[nv], label, SPSA_FORM_RMS, 0, 0);
            vs[nv++].cfg.probe = PROBES[i];
        }
        /* what narrowing the probe near a bound buys */
        variant(&vs[nv], "rms narrow=0", SPSA_FORM_RMS, 0, 0);
        vs[nv++].cfg.narrow = false;
        /* the schedule of the step: the first default's slower decay */
        variant(&vs[nv], "rms decay=0.602", SPSA_FORM_RMS, 0, 0);
        vs[nv++].cfg.decay = 0.602;
        /* what iterate averaging buys on top */
        variant(&vs[nv], "rms average=0.25", SPSA_FORM_RMS, 0, 0);
        vs[nv++].cfg.average = 0.25;
    }

    printf("simulate -suite: %d seeds, draw ratio %g, opening bias %g Elo; medians over seeds\n",
           seeds, draw_ratio, bias);
    printf("%-8s %-22s %9s %9s %9s %9s\n", "land", "form", "games<1", "loss@2k", "loss@10k",
           "loss@50k");
    Cell far8[14], opt8[14];
    bool have_far8 = false, have_opt8 = false;
    for (size_t li = 0; li < NLAND; li++) {
        const Landscape *l = &LANDSCAPES[li];
        if (!land_selected(lands, l->name))
            continue;
        for (int vi = 0; vi < nv; vi++) {
            Cell c;
            if (run_cell(&vs[vi], l, seeds, draw_ratio, bias, BUDGETS, 3, &c))
                return 1;
            char g[32];
            fmt_games(c.games_to_1, g, sizeof g);
            printf("%-8s %-22s %9s %9.2f %9.2f %9.2f\n", l->name, vs[vi].label, g, c.loss[0],
                   c.loss[1], c.loss[2]);
            fflush(stdout);
            if (l->kind == FAR && l->n == 8)
                far8[vi] = c, have_far8 = true;
            if (l->kind == OPT && l->n == 8)
                opt8[vi] = c, have_opt8 = true;
        }
    }
    if (have_far8 && have_opt8) {
        printf("\ntargets at 10k games (far8 <= 0.2 x classic's %.2f = %.2f, opt8 <= 3):\n",
               far8[0].loss[1], 0.2 * far8[0].loss[1]);
        for (int vi = 1; vi < nv; vi++)
            printf("  %-22s far8 %6.2f (%.2fx classic) %s   opt8 %5.2f %s\n", vs[vi].label,
                   far8[vi].loss[1], far8[vi].loss[1] / far8[0].loss[1],
                   far8[vi].loss[1] <= 0.2 * far8[0].loss[1] ? "met" : "MISSED", opt8[vi].loss[1],
                   opt8[vi].loss[1] <= 3 ? "met" : "MISSED");
    }

    if (land_selected(lands, "far8") && land_selected(lands, "opt8")) {
        printf("\ncurves at 10k games: loss from the far8 start against loss from the optimum (opt8)\n");
        printf("%-22s %12s %10s %10s\n", "form", "gain", "far8", "opt8");
        static const double R_END[] = {0.002, 0.005, 0.01, 0.02, 0.025, 0.03, 0.04};
        static const double MULT[] = {0.25, 0.5, 1, 2, 4};
        uint64_t b10[1] = {10000};
        for (int vi = 0; vi < nv; vi++) {
            if (vs[vi].mult > 1)
                continue; /* its gains are the budget's */
            bool classic = vs[vi].cfg.form == SPSA_FORM_CLASSIC;
            size_t np = classic ? sizeof R_END / sizeof *R_END : sizeof MULT / sizeof *MULT;
            for (size_t k = 0; k < np; k++) {
                Variant w = vs[vi];
                char gain[32];
                if (classic) {
                    w.r_end = R_END[k];
                    snprintf(gain, sizeof gain, "r_end %g", R_END[k]);
                } else {
                    double base = w.cfg.eta > 0 ? w.cfg.eta : w.cfg.eta_base; /* eta at 10k games of 8 */
                    w.cfg.eta = base * MULT[k];
                    snprintf(gain, sizeof gain, "eta %.4g", w.cfg.eta);
                }
                Cell cf, co;
                if (run_cell(&w, &LANDSCAPES[0], seeds, draw_ratio, bias, b10, 1, &cf) ||
                    run_cell(&w, &LANDSCAPES[1], seeds, draw_ratio, bias, b10, 1, &co))
                    return 1;
                printf("%-22s %12s %10.2f %10.2f\n", vs[vi].label, gain, cf.loss[0], co.loss[0]);
                fflush(stdout);
            }
        }
    }
    return 0;
}
