/* The random-balance ablation's pure parts (tuner/spsa/ablation.c): the
 * technique prefix, the groups (auto, inline, the errors), the design
 * (reproducible, mirrored couples), and the least-squares fit on synthetic
 * pairs with known group effects. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "ablation.h"

static const char *const NAMES[] = { "LmrQuietBase", "LmrPvAdj", "NmpBase", "QsSeeEnabled", "SeePruneDepth",
                                     "Rule50Plies", "FutilityMargin", "SeMargin" };
enum { NNAMES = sizeof NAMES / sizeof *NAMES };

Test(ablation, prefix_is_the_technique)
{
    char b[32];
    const char *cases[][2] = { { "LmrQuietBase", "Lmr" }, { "Rule50Plies", "Rule50" }, { "QsSeeEnabled", "Qs" },
                               { "SeePruneDepth", "See" }, { "SeMargin", "Se" }, { "FutilityLmrDepth", "Futility" },
                               { "Alpha", "Alpha" }, { "X", "X" } };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ablation_prefix(cases[i][0], b, sizeof b);
        cr_assert_str_eq(b, cases[i][1], "%s", cases[i][0]);
    }
}

Test(ablation, auto_groups_hold_the_moved_parameters_by_prefix)
{
    bool moved[NNAMES] = { true, true, false, true, true, true, false, true };
    AblGroups gs;
    char note[256], err[256];
    cr_assert_eq(ablation_groups(NULL, "groups=", NAMES, moved, NNAMES, &gs, note, sizeof note, err, sizeof err), 0, "%s",
                 err);
    const char *want[] = { "Lmr", "Qs", "See", "Rule50", "Se" };
    size_t count[] = { 2, 1, 1, 1, 1 };
    cr_assert_eq(gs.n, 5, "Nmp and Futility did not move: no group");
    for (size_t g = 0; g < gs.n; g++) {
        cr_assert_str_eq(gs.g[g].name, want[g]);
        cr_assert_eq(gs.g[g].nparams, count[g], "%s", want[g]);
    }
    cr_assert_str_eq(gs.g[0].params[1], "LmrPvAdj");
    ablation_groups_free(&gs);
}

Test(ablation, given_groups_and_their_errors)
{
    bool moved[NNAMES] = { true, true, false, true, true, true, true, true };
    AblGroups gs;
    char note[256], err[512];
    cr_assert_eq(ablation_groups("reductions: LmrQuietBase, LmrPvAdj, NmpBase; pruning:SeePruneDepth FutilityMargin\n"
                                 "# a comment\nidle: NmpBase2x # none\n",
                                 "g.txt", NAMES, moved, NNAMES, &gs, note, sizeof note, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "g.txt, line 3") && strstr(err, "'NmpBase2x' is not a parameter"), "%s", err);
    cr_assert_eq(ablation_groups("a: LmrPvAdj; idle: NmpBase; b: SeMargin, Rule50Plies", "groups=", NAMES, moved, NNAMES,
                                 &gs, note, sizeof note, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(gs.n, 2, "the group whose one parameter did not move is left out");
    cr_assert_str_eq(gs.g[1].name, "b");
    cr_assert_str_eq(gs.g[1].params[1], "Rule50Plies");
    cr_assert(strstr(note, "idle"), "%s", note);
    ablation_groups_free(&gs);
    cr_assert_eq(ablation_groups("a: LmrPvAdj; b: LmrPvAdj", "groups=", NAMES, moved, NNAMES, &gs, note, sizeof note,
                                 err, sizeof err),
                 -1);
    cr_assert(strstr(err, "'LmrPvAdj' is in group a and in group b"), "%s", err);
    cr_assert_eq(ablation_groups("a LmrPvAdj", "groups=", NAMES, moved, NNAMES, &gs, note, sizeof note, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "no ':'"), "%s", err);
    cr_assert_eq(ablation_groups("a: LmrPvAdj; a: NmpBase", "groups=", NAMES, moved, NNAMES, &gs, note, sizeof note, err,
                                 sizeof err),
                 -1);
    cr_assert(strstr(err, "group a is given twice"), "%s", err);
    cr_assert_eq(ablation_groups("idle: NmpBase", "groups=", NAMES, moved, NNAMES, &gs, note, sizeof note, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "nothing to ablate"), "%s", err);
}

/* The design is a function of (seed, pair, groups): mirrored couples, each
 * group on engine 0 about half the time, other seeds other designs. */
Test(ablation, design_is_reproducible_and_mirrored)
{
    enum { G = 7, N = 2000 };
    signed char z[G], w[G], m[G];
    long sum[G] = { 0 };
    int differ = 0;
    for (uint64_t k = 0; k < N; k++) {
        ablation_design(42, k, G, z);
        ablation_design(42, k, G, w);
        cr_assert(!memcmp(z, w, G), "pair %llu drawn twice alike", (unsigned long long)k);
        ablation_design(42, k ^ 1, G, m);
        for (int g = 0; g < G; g++) {
            cr_assert(z[g] == 1 || z[g] == -1);
            cr_assert_eq(z[g], -m[g], "pair %llu mirrors its couple", (unsigned long long)k);
            sum[g] += z[g];
        }
        ablation_design(43, k, G, w);
        differ += memcmp(z, w, G) != 0;
    }
    for (int g = 0; g < G; g++)
        cr_assert_eq(sum[g], 0, "group %d: as often on engine 0 as on engine 1", g);
    cr_assert_gt(differ, N / 2, "another seed draws another design");
    char text[G + 1];
    ablation_design(42, 0, G, z);
    ablation_design_text(z, G, text, sizeof text);
    cr_assert_eq(strlen(text), G);
    for (int g = 0; g < G; g++)
        cr_assert_eq(text[g], z[g] > 0 ? '+' : '-');
    /* Couples: the first half of a couple differs from couple to couple. */
    int same = 0;
    for (uint64_t c = 1; c < 200; c++) {
        ablation_design(42, 2 * c, G, w);
        ablation_design(42, 0, G, z);
        same += !memcmp(z, w, G);
    }
    cr_assert_lt(same, 10, "couples draw designs of their own");
}

/* Synthetic pairs y = sum_g z[g] beta[g] + noise: every beta recovered within
 * its interval, the verdicts right, and the interval about the 1.96 sigma /
 * sqrt(n) of a single A/B match of the same length. */
Test(ablation, fit_recovers_known_effects)
{
    enum { G = 4, N = 3000 };
    const double beta[G] = { 0.12, -0.08, 0.0, 0.03 };
    const double sigma = 0.8;
    double *y = malloc(N * sizeof *y);
    signed char *z = malloc(N * G);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (size_t k = 0; k < N; k++) {
        ablation_design(9, k, G, z + k * G);
        y[k] = 0.01 + gsl_ran_gaussian(r, sigma);
        for (int g = 0; g < G; g++)
            y[k] += z[k * G + g] * beta[g];
    }
    AblEffect e[G];
    AblFit fit;
    char err[256];
    cr_assert_eq(ablation_fit(y, z, NULL, N, G, e, &fit, err, sizeof err), 0, "%s", err);
    for (int g = 0; g < G; g++) {
        cr_assert_lt(fabs(e[g].beta - beta[g]), 1.96 * e[g].se, "group %d: %g +/- %g, true %g", g, e[g].beta,
                     1.96 * e[g].se, beta[g]);
        cr_assert_lt(fabs(e[g].se - sigma / sqrt(N)) / (sigma / sqrt(N)), 0.1, "group %d: se %g", g, e[g].se);
        cr_assert_lt(e[g].elo_lo, e[g].elo);
        cr_assert_lt(e[g].elo, e[g].elo_hi);
        cr_assert_lt(fabs(e[g].elo - ablation_elo(e[g].beta)), 1e-9);
    }
    cr_assert_eq(e[0].verdict, ABL_PAYS);
    cr_assert_eq(e[1].verdict, ABL_COSTS);
    cr_assert_eq(e[2].verdict, ABL_UNCLEAR);
    cr_assert_lt(fabs(fit.sigma - sigma), 0.05);
    cr_assert_eq(fit.pairs, N);
    /* 0.12 in pair score difference: a per-game score of 0.53, +20.9 Elo. */
    cr_assert_lt(fabs(ablation_elo(0.12) - 20.87), 0.01);
    cr_assert_str_eq(ablation_verdict_name(ABL_PAYS), "pays");
    cr_assert_str_eq(ablation_verdict_name(ABL_COSTS), "costs");
    cr_assert_str_eq(ablation_verdict_name(ABL_UNCLEAR), "unclear");
    free(y);
    free(z);
    gsl_rng_free(r);
}

Test(ablation, fit_refuses_too_few_pairs_and_a_design_that_mixes_groups)
{
    enum { G = 3, N = 40 };
    double y[N];
    signed char z[N * G];
    for (size_t k = 0; k < N; k++) {
        ablation_design(1, k, G, z + k * G);
        y[k] = (double)(k % 3) - 1;
    }
    AblEffect e[G];
    AblFit fit;
    char err[256];
    cr_assert_eq(ablation_fit(y, z, NULL, G + 1, G, e, &fit, err, sizeof err), -1);
    cr_assert(strstr(err, "at least 5"), "%s", err);
    for (size_t k = 0; k < N; k++)
        z[k * G + 2] = (signed char)-z[k * G + 1]; /* group 2 always opposite group 1 */
    cr_assert_eq(ablation_fit(y, z, NULL, N, G, e, &fit, err, sizeof err), -1);
    cr_assert(strstr(err, "does not tell the groups apart"), "%s", err);
}

/* A side's strength with the groups of set s (bit g) tuned: the groups' own
 * effects l[g] summed, plus c3 when groups 0, 1 and 2 are all tuned (a
 * three-way interaction; c3 = 0: additive). */
static double strength(const double *l, int G, unsigned s, double c3)
{
    double L = 0;
    for (int g = 0; g < G; g++)
        if (s & (1u << g))
            L += l[g];
    return L + ((s & 7u) == 7u ? c3 : 0);
}

/* How many of `seeds` fits of synthetic ablations (y = strength(engine 0's
 * groups) - strength(engine 1's) + noise, a whole couple every 4) put the
 * true gap inside the gap's 95% interval; *excl0: how many put 0 outside.
 * The true gap: the whole (all tuned against none) minus the sum of the
 * groups' effects as the design sees them, E[y z_g] over every design. */
static int gap_coverage(const double *l, int G, double c3, int seeds, int *excl0, double *truth)
{
    enum { N = 4000, EVERY = 4 };
    double sum = 0;
    for (int g = 0; g < G; g++) {
        double b = 0;
        for (unsigned s = 0; s < (1u << G); s++)
            b += ((s >> g) & 1 ? 1 : -1) * (strength(l, G, s, c3) - strength(l, G, ~s & ((1u << G) - 1), c3));
        sum += b / (double)(1u << G);
    }
    *truth = strength(l, G, (1u << G) - 1, c3) - sum;
    double *y = malloc(N * sizeof *y);
    signed char *z = malloc(N * (size_t)G), *w = malloc(N);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int covered = 0;
    *excl0 = 0;
    for (int seed = 1; seed <= seeds; seed++) {
        gsl_rng_set(r, (unsigned long)seed);
        for (size_t k = 0; k < N; k++) {
            ablation_design_of((uint64_t)seed, k, (size_t)G, EVERY, z + k * (size_t)G);
            w[k] = (signed char)ablation_whole(k, EVERY);
            unsigned s0 = 0;
            for (int g = 0; g < G; g++)
                s0 |= z[k * (size_t)G + (size_t)g] > 0 ? 1u << g : 0;
            y[k] = strength(l, G, s0, c3) - strength(l, G, ~s0 & ((1u << G) - 1), c3) + gsl_ran_gaussian(r, 0.8);
        }
        AblEffect e[8];
        AblFit fit;
        char err[256];
        cr_assert_eq(ablation_fit(y, z, w, N, (size_t)G, e, &fit, err, sizeof err), 0, "%s", err);
        cr_assert_eq(fit.whole_pairs, (size_t)N / EVERY);
        double lo = fit.gap - fit.t * fit.gap_se, hi = fit.gap + fit.t * fit.gap_se;
        covered += lo <= *truth && *truth <= hi;
        *excl0 += lo > 0 || hi < 0;
        cr_assert_lt(fabs(fit.whole - (fit.sum + fit.gap)), 1e-12);
    }
    free(y);
    free(z);
    free(w);
    gsl_rng_free(r);
    return covered;
}

/* The additivity check recovers a known gap: with a three-way interaction
 * that costs when all three groups are tuned (c3 = -0.6: the design sees a
 * quarter of it in the groups' sum, so the true gap is -0.15) the whole
 * pairs score less than the sum, and the gap's interval holds the true gap
 * (about 19 fits in 20); with additive effects it holds 0.  (A pairwise
 * interaction leaves no gap: the design puts it whole into the sum.) Fails
 * when the whole pairs are not told apart (no w column, or w = 0). */
Test(ablation, the_additivity_check_recovers_a_known_gap)
{
    const double l[4] = { 0.30, 0.25, 0.20, 0.15 };
    double truth;
    int excl0;
    int covered = gap_coverage(l, 4, -0.6, 20, &excl0, &truth);
    cr_assert_lt(fabs(truth + 0.15), 1e-12, "the true gap is a quarter of c3 short of it: %g", truth);
    cr_assert_geq(covered, 17, "the gap's interval holds the true gap %g in %d of 20 fits", truth, covered);
    cr_assert_geq(excl0, 17, "and says the effects do not add in %d of 20", excl0);
    covered = gap_coverage(l, 4, 0, 20, &excl0, &truth);
    cr_assert_lt(fabs(truth), 1e-12, "additive effects: no gap");
    cr_assert_geq(covered, 17, "the interval holds 0 in %d of 20 fits", covered);
}

Test(ablation, whole_couples_come_every_n_and_mirror)
{
    signed char z[5];
    for (uint64_t k = 0; k < 40; k++) {
        int w = ablation_whole(k, 4);
        cr_assert_eq(w, (k / 2) % 4 == 3 ? (k % 2 ? -1 : 1) : 0, "pair %llu", (unsigned long long)k);
        ablation_design_of(3, k, 5, 4, z);
        for (int g = 0; w && g < 5; g++)
            cr_assert_eq(z[g], w);
        cr_assert_eq(ablation_whole(k, 0), 0);
    }
}
