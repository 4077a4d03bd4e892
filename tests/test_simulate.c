/* `ratchet-tune simulate` (tuner/spsa/simulate.c): the classic SPSA converges on
 * synthetic landscapes with a known optimum; the command line. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "helpers.h"
#include "landscape.h"
#include "simulate.h"
#include "simulate_cmd.h"

/* Six parameters shaped like the engine's selectivity constants. */
static const struct {
    const char *name;
    double start, min, max, c_end, r_end;
} SPECS[] = {
    {"LmrQuietBase", 135, 0, 300, 10, 0.002}, {"LmrQuietDivisor", 275, 150, 450, 15, 0.002},
    {"LmpBase", 3, 0, 12, 1, 0.002},          {"FutilityMargin", 100, 20, 300, 10, 0.002},
    {"NullMoveBase", 3, 1, 6, 1, 0.002},      {"IirDepth", 4, 2, 10, 1, 0.002},
};
#define NP 6

static void make_params(SpsaParam *ps)
{
    memset(ps, 0, NP * sizeof *ps);
    for (int i = 0; i < NP; i++) {
        snprintf(ps[i].name, sizeof ps[i].name, "%s", SPECS[i].name);
        ps[i].start = ps[i].theta = SPECS[i].start;
        ps[i].min = SPECS[i].min;
        ps[i].max = SPECS[i].max;
        ps[i].c_end = SPECS[i].c_end;
        ps[i].r_end = SPECS[i].r_end;
    }
}

/* Optima 1 to 3 c_end away from the start, in a random direction, from a seed. */
static void random_optimum(const SpsaParam *ps, unsigned long seed, double *opt)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (int i = 0; i < NP; i++) {
        double d = (1.0 + 2.0 * gsl_rng_uniform(r)) * (gsl_rng_uniform_int(r, 2) ? 1 : -1);
        opt[i] = spsa_clip(floor(ps[i].start + d * ps[i].c_end + 0.5), ps[i].min, ps[i].max);
    }
    gsl_rng_free(r);
}

/* Runs SPSA on the landscape and asserts the stated distance: the final
 * estimate loses less than `max_loss` Elo, and every parameter ends within
 * `max_dist` c_end of its optimum. */
static void converges(const double *opt, double curvature, uint64_t games, int pairs_per,
                      int concurrency, uint64_t seed, double max_loss, double max_dist)
{
    SpsaParam ps[NP];
    make_params(ps);
    double curv[NP], x[NP];
    for (int i = 0; i < NP; i++)
        curv[i] = curvature;
    SimModel m = {NP, opt, curv, 0.5, 0.0, concurrency, 0, NULL, NULL, NULL, NULL};
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    cfg.pairs_per = pairs_per;
    spsa_config_set_games(&cfg, games);
    SimResult r;
    char err[256] = "";
    cr_assert_eq(sim_run(ps, NP, &cfg, &m, seed, x, &r, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.games, cfg.iterations * 2 * (uint64_t)pairs_per);
    cr_assert_eq(r.wins + r.losses + r.draws, r.games);
    cr_assert_gt(r.start_loss, 10.0, "the landscape should start far from the optimum");
    cr_assert_lt(r.loss, max_loss, "seed %d: Elo loss %.3f (from %.3f)", (int)seed, r.loss,
                 r.start_loss);
    for (int i = 0; i < NP; i++)
        cr_assert_lt(fabs(x[i] - opt[i]) / ps[i].c_end, max_dist,
                     "seed %d: %s ended at %.2f, optimum %.0f", (int)seed, ps[i].name, x[i],
                     opt[i]);
}

/* Stated distance for 100000 games (50000 iterations): Elo loss under 1.5
 * (from 16-30 Elo at the start) and every parameter within 1 c_end. */
Test(simulate, converges_fixed_landscape, .timeout = 120)
{
    static const double opt[NP] = {150, 245, 5, 75, 4, 6}; /* start loses 21.5 Elo */
    for (uint64_t seed = 1; seed <= 3; seed++)
        converges(opt, 1.0, 100000, 1, 1, seed, 1.5, 1.0);
}

Test(simulate, converges_random_landscapes, .timeout = 120)
{
    SpsaParam ps[NP];
    make_params(ps);
    for (unsigned long land = 1; land <= 3; land++) {
        double opt[NP];
        random_optimum(ps, land, opt);
        converges(opt, 1.0, 100000, 1, 1, 100 + land, 1.5, 1.0);
    }
}

Test(simulate, converges_with_async_batches, .timeout = 120)
{
    /* 8 batches of 4 pairs in flight at once: the updates arrive late and out
     * of order, each with the gains of its own hand-out. */
    SpsaParam ps[NP];
    make_params(ps);
    double opt[NP];
    random_optimum(ps, 7, opt);
    converges(opt, 1.0, 100000, 4, 8, 5, 1.5, 1.0);
    /* a steeper landscape: same games, tighter result */
    converges(opt, 4.0, 100000, 1, 2, 6, 1.5, 0.6);
}

Test(simulate, deterministic_for_a_seed)
{
    SpsaParam ps[NP];
    make_params(ps);
    double opt[NP] = {150, 245, 5, 75, 4, 6}, curv[NP] = {1, 1, 1, 1, 1, 1};
    SimModel m = {NP, opt, curv, 0.3, 50.0, 3, 0, NULL, NULL, NULL, NULL};
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 4000);
    double x1[NP], x2[NP], x3[NP];
    SimResult r1, r2, r3;
    char err[256];
    cr_assert_eq(sim_run(ps, NP, &cfg, &m, 9, x1, &r1, NULL, err, sizeof err), 0);
    cr_assert_eq(sim_run(ps, NP, &cfg, &m, 9, x2, &r2, NULL, err, sizeof err), 0);
    cr_assert_eq(sim_run(ps, NP, &cfg, &m, 10, x3, &r3, NULL, err, sizeof err), 0);
    cr_assert_eq(memcmp(x1, x2, sizeof x1), 0);
    cr_assert_eq(r1.wins, r2.wins);
    cr_assert_eq(r1.draws, r2.draws);
    cr_assert_neq(memcmp(x1, x3, sizeof x1), 0, "another seed, another run");
}

Test(simulate, no_signal_no_drift, .timeout = 120)
{
    /* Start at the optimum: SPSA should stay close (noise only). */
    SpsaParam ps[NP];
    make_params(ps);
    double opt[NP];
    for (int i = 0; i < NP; i++)
        opt[i] = ps[i].start;
    double curv[NP] = {1, 1, 1, 1, 1, 1}, x[NP];
    SimModel m = {NP, opt, curv, 0.5, 0.0, 1, 0, NULL, NULL, NULL, NULL};
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 40000);
    SimResult r;
    char err[256];
    cr_assert_eq(sim_run(ps, NP, &cfg, &m, 3, x, &r, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.start_loss, 0.0);
    cr_assert_lt(r.loss, 1.5, "drifted to a loss of %.3f", r.loss);
}

Test(simulate, elo_loss_formula)
{
    /* -Elo = sum curv * ((x - opt) / c_end)^2: 2 * (5/10)^2 + 3 * (-2/1)^2 = 0.5 + 12 */
    SpsaParam ps[2];
    memset(ps, 0, sizeof ps);
    ps[0].c_end = 10;
    ps[1].c_end = 1;
    double opt[2] = {100, 4}, curv[2] = {2, 3}, x[2] = {105, 2};
    SimModel m = {2, opt, curv, 0.5, 0, 1, 0, NULL, NULL, NULL, NULL};
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 12.5, 1e-12);
}

Test(simulate, elo_loss_skewed)
{
    /* skew 0.6 on the first (above its optimum: curvature 2 * 1.6), -0.5 on
     * the second (below its optimum: 3 * (1 + 0.5)): 3.2 * 0.25 + 4.5 * 4 */
    SpsaParam ps[2];
    memset(ps, 0, sizeof ps);
    ps[0].c_end = 10;
    ps[1].c_end = 1;
    double opt[2] = {100, 4}, curv[2] = {2, 3}, skew[2] = {0.6, -0.5}, x[2] = {105, 2};
    SimModel m = {2, opt, curv, 0.5, 0, 1, 0, NULL, skew, NULL, NULL};
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 0.8 + 18.0, 1e-12);
    x[0] = 95, x[1] = 6; /* the other sides: 2 * 0.4 * 0.25 + 3 * 0.5 * 4 */
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 0.2 + 6.0, 1e-12);
}

Test(simulate, elo_loss_with_plateaus)
{
    /* width 2 on the first: 2 * 2^2 * (1 - e^-(0.5/2)^2) = 8 * (1 - e^-0.0625)
     * = 8 * 0.0605869372 = 0.4846954975 (calculator); the second keeps its
     * quadratic (width 0): 3 * 4 = 12.  Far away the first saturates at
     * curv * width^2 = 8: at z = 50 it is 8 to 12 digits. */
    SpsaParam ps[2];
    memset(ps, 0, sizeof ps);
    ps[0].c_end = 10;
    ps[1].c_end = 1;
    double opt[2] = {100, 4}, curv[2] = {2, 3}, width[2] = {2, 0}, x[2] = {105, 2};
    SimModel m = {2, opt, curv, 0.5, 0, 1, 0, NULL, NULL, width, NULL};
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 0.4846954975 + 12.0, 1e-9);
    x[0] = 600;
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 8.0 + 12.0, 1e-9);
}

/* ---- command line --------------------------------------------------------- */

static int run_cli(const char *const *args, int n)
{
    char *argv[32];
    argv[0] = (char *)"simulate";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    return simulate_main(n + 1, argv);
}

static void quiet(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

Test(simulate, cli_help, .init = cr_redirect_stdout)
{
    const char *a[] = {"--help"};
    cr_assert_eq(run_cli(a, 1), 0);
    fflush(stdout);
    cr_assert_stdout_neq_str("");
}

Test(simulate, cli_usage_errors, .init = quiet)
{
    const char *a1[] = {"-bogus", "1"};
    cr_assert_eq(run_cli(a1, 2), 2);
    const char *a2[] = {"-spsa", "games=abc"};
    cr_assert_eq(run_cli(a2, 2), 2);
    const char *a3[] = {"-spsa", "flavour=1"};
    cr_assert_eq(run_cli(a3, 2), 2);
    const char *a4[] = {"-params", "file=/nonexistent/spec.json"};
    cr_assert_eq(run_cli(a4, 2), 2);
    const char *a5[] = {"-landscape", "optimum=1,2"};
    cr_assert_eq(run_cli(a5, 2), 2);
    const char *a6[] = {"-draw-ratio", "1.5"};
    cr_assert_eq(run_cli(a6, 2), 2);
    const char *a7[] = {"-spsa"};
    cr_assert_eq(run_cli(a7, 1), 2);
    const char *a8[] = {"-suite", "-landscapes", "far9"};
    cr_assert_eq(run_cli(a8, 3), 2);
    const char *a9[] = {"-landscapes", "far8"};
    cr_assert_eq(run_cli(a9, 2), 2);
    const char *a10[] = {"-spsa", "form=lion"};
    cr_assert_eq(run_cli(a10, 2), 2);
}

/* The options are one table (cli_options): an unknown word is named as
 * unknown also when it is the last (the strcmp ladder before it said
 * "foo needs a value"), and a bad value names the option. */
Test(simulate, cli_an_unknown_last_word_is_unknown, .init = quiet)
{
    const char *a1[] = {"-quiet", "-srand", "3", "foo"};
    cr_assert_eq(run_cli(a1, 4), 2);
    const char *a2[] = {"-seeds", "0"};
    cr_assert_eq(run_cli(a2, 2), 2);
    fflush(stderr);
    cr_assert_stderr_eq_str("simulate: unknown option \"foo\"\n(see ratchet-tune simulate --help)\n"
                            "simulate: bad value \"0\" for -seeds\n(see ratchet-tune simulate --help)\n");
}

/* The -spsa numbers run takes are taken with run's bounds (one table,
 * SPSA_NUMBER_KEYS): alpha=50 is refused as run refuses it (simulate took
 * any positive alpha), and a value inside the bounds is taken. */
Test(simulate, cli_spsa_numbers_have_runs_bounds, .init = quiet)
{
    const char *a1[] = {"-spsa", "games=200", "alpha=50"};
    cr_assert_eq(run_cli(a1, 3), 2);
    const char *a2[] = {"-spsa", "games=200", "A-ratio=1000"};
    cr_assert_eq(run_cli(a2, 3), 2);
    const char *a3[] = {"-spsa", "games=200", "probe=0.5"};
    cr_assert_eq(run_cli(a3, 3), 2);
    for (const SpsaNumberKey *k = SPSA_NUMBER_KEYS; k->key; k++) {
        char kv[64];
        snprintf(kv, sizeof kv, "%s=%g", k->key, k->max * 2 + 1);
        const char *a[] = {"-spsa", "games=200", kv};
        cr_assert_eq(run_cli(a, 3), 2, "simulate takes %s", kv);
    }
    const char *ok[] = {"-spsa", "games=200", "alpha=0.7"};
    cr_assert_eq(run_cli(ok, 3), 0);
}

/* -grid -landscapes takes exact names, as -suite does: an unknown one
 * (bogus, coupledX, an empty item) is a usage error, not a grid of no rows
 * that says its targets are met with exit 0 (bogus) or the landscape whose
 * name it contains (coupledX ran coupled); a known one runs its rows only. */
Test(simulate, cli_grid_landscapes_are_exact_names, .init = quiet, .timeout = 60)
{
    static const char *const bad[] = {"bogus", "coupledX", "plat,", "plat,quadX", "", "qua"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *a[] = {"-grid", "-seeds", "1", "-spsa", "games=200", "-landscapes", bad[i]};
        cr_expect_eq(run_cli(a, 7), 2, "-grid -landscapes '%s' was taken", bad[i]);
    }
    const char *a[] = {"-grid", "-seeds", "1", "-spsa", "games=200", "-landscapes", "coupled"};
    cr_assert_eq(run_cli(a, 7), 0);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char line[512];
    int rows = 0, others = 0;
    while (fgets(line, sizeof line, out)) {
        char land[16], c[16], from[8];
        if (sscanf(line, "%15s %15s %7s", land, c, from) == 3 && (!strcmp(from, "far") || !strcmp(from, "opt"))) {
            rows += !strcmp(land, "coupled");
            others += strcmp(land, "coupled") != 0;
        }
    }
    cr_assert_eq(rows, 12, "coupled: %d rows", rows);
    cr_assert_eq(others, 0, "%d rows of other landscapes", others);
}

/* The wiring of -suite (the suite itself is a benchmark: make bench-spsa):
 * one landscape, one seed, the -spsa form beside the classic one. */
Test(simulate, cli_suite_runs_a_form, .init = cr_redirect_stdout, .timeout = 60)
{
    const char *a[] = {"-suite", "-seeds", "1", "-landscapes", "opt8", "-spsa", "form=adam"};
    cr_assert_eq(run_cli(a, 7), 0);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, out)) {
        char land[16], form[32];
        double l2, l10, l50;
        if (sscanf(line, "%15s %31s %*s %lf %lf %lf", land, form, &l2, &l10, &l50) == 5 &&
            !strcmp(land, "opt8")) {
            cr_assert(!strcmp(form, "classic") || !strcmp(form, "adam"), "%s", line);
            cr_assert(l2 >= 0 && l10 >= 0 && l50 >= 0, "%s", line);
            rows++;
        }
    }
    cr_assert_eq(rows, 3, "a row for classic, one for the fair classic and one for adam");
}

Test(simulate, cli_runs_a_spec_file, .init = cr_redirect_stdout, .timeout = 120)
{
    char path[] = "/tmp/ratchet-sim-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *text = "A, int, 50, 0, 100, 5, 0.002\nB, int, 10, 0, 20, 1, 0.002\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    const char *a[] = {"-params", path,  "-spsa", "games=60000", "pairs-per=2",
                       "-landscape", "optimum=60,12", "-seeds", "3", "-quiet",
                       "-draw-ratio", "0.5", "-opening-bias", "0"};
    char file_arg[64];
    snprintf(file_arg, sizeof file_arg, "file=%s", path);
    a[1] = file_arg;
    int rc = run_cli(a, 14);
    unlink(path);
    cr_assert_eq(rc, 0);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char line[512];
    bool median = false;
    double loss = -1;
    while (fgets(line, sizeof line, out))
        if (sscanf(line, "median over 3 seeds: Elo loss %lf", &loss) == 1)
            median = true;
    cr_assert(median, "no median line");
    /* start loss (10/5)^2 + (2/1)^2 = 8 Elo */
    cr_assert_lt(loss, 1.0, "median loss %.3f", loss);
}

/* ---- landscapes of a user's own (tuner/spsa/landscape.c) ------------------ */

Test(simulate, elo_loss_with_a_c_end_error)
{
    SpsaParam ps[2];
    memset(ps, 0, sizeof ps);
    ps[0].c_end = 10;
    ps[1].c_end = 2;
    double opt[2] = {100, 20}, curv[2] = {1, 3}, scale[2] = {5, 0.5}, x[2] = {104, 24};
    SimModel m = {2, opt, curv, 0.25, 80, 1, 0, NULL, NULL, NULL, scale};
    /* units c_end / scale: 2 and 4, so z = 2 and 1 */
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 1.0 * 4 + 3.0 * 1, 1e-9);
}

static void three_params(SpsaParam *ps)
{
    memset(ps, 0, 3 * sizeof *ps);
    static const char *const NAMES[3] = {"Alpha", "Beta", "Gamma"};
    for (int i = 0; i < 3; i++) {
        strcpy(ps[i].name, NAMES[i]);
        ps[i].min = 0;
        ps[i].max = 100;
        ps[i].start = ps[i].theta = 50;
        ps[i].c_end = 5;
        ps[i].r_end = 0.002;
    }
}

Test(simulate, landscape_json_has_every_feature)
{
    SpsaParam ps[3];
    three_params(ps);
    SimLandscape l;
    cr_assert_eq(landscape_init(&l, 3), 0);
    const char *text =
        "{\"draw_ratio\": 0.3, \"opening_bias\": 60,\n"
        " \"params\": {\"Alpha\": {\"optimum\": \"max-2\", \"curvature\": 2, \"width\": 4,"
        " \"scale\": 3, \"start\": \"optimum\"},\n"
        "  \"Beta\": {\"optimum\": 40, \"skew\": -0.5, \"start\": 70},\n"
        "  \"Gamma\": {\"optimum\": \"min+1\"}},\n"
        " \"couplings\": [{\"a\": \"Beta\", \"b\": \"Gamma\", \"k\": 0.5}]}";
    char err[512];
    cr_assert_eq(landscape_parse_json(&l, ps, text, "my.json", err, sizeof err), 0, "%s", err);
    cr_assert_eq(landscape_finish(&l, ps, 1, err, sizeof err), 0, "%s", err);
    cr_assert_float_eq(l.draw_ratio, 0.3, 1e-12);
    cr_assert_float_eq(l.opening_bias, 60, 1e-12);
    cr_assert_float_eq(l.opt[0], 90, 1e-12);
    cr_assert_float_eq(l.opt[1], 40, 1e-12);
    cr_assert_float_eq(l.opt[2], 5, 1e-12);
    cr_assert_float_eq(l.curv[0], 2, 1e-12);
    cr_assert_float_eq(l.width[0], 4, 1e-12);
    cr_assert_float_eq(l.scale[0], 3, 1e-12);
    cr_assert_float_eq(l.skew[1], -0.5, 1e-12);
    cr_assert_float_eq(ps[0].theta, 90, 1e-12, "start at the optimum");
    cr_assert_float_eq(ps[0].start, 90, 1e-12);
    cr_assert_float_eq(ps[1].theta, 70, 1e-12);
    cr_assert_float_eq(ps[2].theta, 50, 1e-12, "the spec's start");
    cr_assert_eq(l.ncouplings, 1);
    cr_assert_eq(l.couplings[0].a, 1);
    cr_assert_eq(l.couplings[0].b, 2);
    SimModel m = landscape_model(&l, 0.25, 80, 1);
    double x[3] = {90, 35, 10}; /* Beta 1 c_end below (curvature 1.5 there), Gamma 1 above */
    cr_assert_float_eq(sim_elo_loss(&m, ps, x), 1.5 + 1.0 + 0.5 * -1 * 1, 1e-9);
    landscape_free(&l);
}

Test(simulate, landscape_words_set_every_feature)
{
    SpsaParam ps[3];
    three_params(ps);
    SimLandscape l;
    cr_assert_eq(landscape_init(&l, 3), 0);
    char err[512];
    const char *words[][2] = {{"optimum", "20,min+3,max"}, {"curvature", "2"},
                              {"width", "0,6,0"},         {"skew", "0.25,0,-0.25"},
                              {"scale", "0.2,1,5"},       {"start", "optimum,60,40"},
                              {"coupling", "Alpha:2:0.5"}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        cr_assert_eq(landscape_set(&l, ps, words[i][0], words[i][1], err, sizeof err), 0, "%s",
                     err);
    cr_assert_eq(landscape_finish(&l, ps, 1, err, sizeof err), 0, "%s", err);
    cr_assert_float_eq(l.opt[0], 20, 1e-12);
    cr_assert_float_eq(l.opt[1], 15, 1e-12);
    cr_assert_float_eq(l.opt[2], 100, 1e-12);
    for (int i = 0; i < 3; i++)
        cr_assert_float_eq(l.curv[i], 2, 1e-12);
    cr_assert_float_eq(l.width[1], 6, 1e-12);
    cr_assert_float_eq(l.skew[2], -0.25, 1e-12);
    cr_assert_float_eq(l.scale[0], 0.2, 1e-12);
    cr_assert_float_eq(l.scale[2], 5, 1e-12);
    cr_assert_float_eq(ps[0].theta, 20, 1e-12);
    cr_assert_float_eq(ps[1].theta, 60, 1e-12);
    cr_assert_eq(l.ncouplings, 1);
    cr_assert_eq(l.couplings[0].b, 2);
    landscape_free(&l);
}

/* Bad input is refused with a message that names the file or word, and the
 * parameter or key. */
static void refused_json(const char *text, const char *want1, const char *want2)
{
    SpsaParam ps[3];
    three_params(ps);
    SimLandscape l;
    cr_assert_eq(landscape_init(&l, 3), 0);
    char err[512] = "";
    int rc = landscape_parse_json(&l, ps, text, "my.json", err, sizeof err);
    if (rc == 0)
        rc = landscape_finish(&l, ps, 1, err, sizeof err);
    landscape_free(&l);
    cr_assert_eq(rc, -1, "accepted: %s", text);
    cr_assert(strstr(err, want1) && strstr(err, want2), "\"%s\" lacks \"%s\"/\"%s\"", err, want1,
              want2);
}

Test(simulate, landscape_bad_input_is_named)
{
    refused_json("{\"params\": {\"Delta\": {}}}", "my.json", "Delta");
    refused_json("{\"params\": {\"Beta\": {\"skew\": 1}}}", "my.json", "Beta");
    refused_json("{\"params\": {\"Beta\": {\"width\": \"wide\"}}}", "Beta", "width");
    refused_json("{\"params\": {\"Beta\": {\"curve\": 1}}}", "Beta", "curve");
    refused_json("{\"params\": {\"Beta\": {\"optimum\": 101}}}", "Beta", "optimum");
    refused_json("{\"params\": {\"Beta\": {\"optimum\": \"max+1\"}}}", "Beta", "optimum");
    refused_json("{\"params\": {\"Beta\": {\"scale\": 0}}}", "Beta", "scale");
    refused_json("{\"draw_ratio\": 2}", "my.json", "draw_ratio");
    refused_json("{\"drawratio\": 0.2}", "my.json", "drawratio");
    refused_json("{\"couplings\": [{\"a\": \"Alpha\", \"b\": \"Alpha\", \"k\": 1}]}", "Alpha",
                 "itself");
    refused_json("{\"couplings\": [{\"a\": \"Alpha\", \"b\": \"Beta\", \"k\": 2}]}", "Alpha",
                 "Beta");
    refused_json("{\"params\": {\"Alpha\": {\"width\": 3}},"
                 " \"couplings\": [{\"a\": \"Alpha\", \"b\": \"Beta\", \"k\": 1}]}",
                 "Alpha", "plateau");
    refused_json("{\"params\":\n {\"Alpha\": }}", "my.json:2:", "malformed JSON");

    SpsaParam ps[3];
    three_params(ps);
    SimLandscape l;
    cr_assert_eq(landscape_init(&l, 3), 0);
    char err[512];
    cr_assert_eq(landscape_set(&l, ps, "width", "1,2", err, sizeof err), -1);
    cr_assert(strstr(err, "width") && strstr(err, "3"), "%s", err);
    cr_assert_eq(landscape_set(&l, ps, "skew", "0,0.9,x", err, sizeof err), -1);
    cr_assert(strstr(err, "Gamma") && strstr(err, "skew"), "%s", err);
    cr_assert_eq(landscape_set(&l, ps, "coupling", "Alpha:Omega:1", err, sizeof err), -1);
    cr_assert(strstr(err, "Omega"), "%s", err);
    cr_assert_eq(landscape_set(&l, ps, "tilt", "1", err, sizeof err), -1);
    cr_assert(strstr(err, "tilt"), "%s", err);
    landscape_free(&l);
}

/* simulate -landscape file=: the file's landscape is the one played, and by
 * default the draw ratio and opening bias are the measured ones. */
Test(simulate, cli_runs_a_landscape_file, .init = cr_redirect_stdout, .timeout = 60)
{
    char path[] = "/tmp/ratchet-land-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    /* the built-in spec: LmpBase 3 in [0, 12], c_end 1; IirDepth 4 in [2, 10] */
    const char *text = "{\"params\": {\"LmpBase\": {\"optimum\": \"max-2\", \"curvature\": 4},"
                       " \"IirDepth\": {\"optimum\": 4, \"start\": \"optimum\"}}}";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char file_arg[64];
    snprintf(file_arg, sizeof file_arg, "file=%s", path);
    const char *a[] = {"-landscape", file_arg, "-spsa", "games=200", "-quiet"};
    int rc = run_cli(a, 5);
    unlink(path);
    cr_assert_eq(rc, 0);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char line[512];
    bool header = false, lmp = false, iir = false;
    double start_loss = -1;
    while (fgets(line, sizeof line, out)) {
        header |= strstr(line, "draw ratio 0.25, opening bias 80,") != NULL;
        double start, fin, opt;
        if (sscanf(line, " LmpBase %lf %lf %lf", &start, &fin, &opt) == 3)
            lmp = start == 3 && opt == 10;
        if (sscanf(line, " IirDepth %lf %lf %lf", &start, &fin, &opt) == 3)
            iir = start == 4 && opt == 4;
        sscanf(line, "seed 1: %*s games (W %*s L %*s D %*[0-9]), Elo loss %lf", &start_loss);
    }
    cr_assert(header, "the measured draw ratio and opening bias by default");
    cr_assert(lmp && iir, "the file's optima and starts");
    /* the built-in optima of the other four: 2.25 + 4 + 6.25 + 1 Elo, LmpBase 4 * 7^2 */
    cr_assert_float_eq(start_loss, 13.5 + 4.0 * 49, 1e-6, "start loss %g", start_loss);
}

/* ---- the per-parameter scale (docs/spsa-forms.md, "The scale") ------------ */

/* Median Elo loss over seeds 1..5 after 10k games of form=far
 * with or without the per-parameter scale, on 8 quadratic parameters at their optimum whose spec
 * c_end is 5x the landscape's unit (scale 5): every step the old form takes
 * there is 5x too large, and the games carry no signal to say so. */
static double loss_at_optimum_c_end_5x(bool adapt)
{
    SpsaParam ps[8];
    double opt[8], curv[8], scale[8], loss[5];
    memset(ps, 0, sizeof ps);
    for (int i = 0; i < 8; i++) {
        snprintf(ps[i].name, sizeof ps[i].name, "P%d", i);
        ps[i].min = 0;
        ps[i].max = 1000;
        ps[i].start = ps[i].theta = opt[i] = 500;
        ps[i].c_end = 50;
        ps[i].r_end = 0.002;
        curv[i] = 1;
        scale[i] = 5;
    }
    SimModel m = {8, opt, curv, SIM_DRAW_RATIO, SIM_OPENING_BIAS, 1, 0, NULL, NULL,
                  NULL, scale};
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_form(&cfg, SPSA_FORM_RMS);
    cfg.adapt = adapt;
    spsa_config_set_games(&cfg, 10000);
    for (int s = 0; s < 5; s++) {
        SimResult r;
        char err[256];
        cr_assert_eq(sim_run(ps, 8, &cfg, &m, (uint64_t)s + 1, NULL, &r, NULL, err, sizeof err), 0,
                     "%s", err);
        loss[s] = r.loss;
    }
    gsl_sort(loss, 1, 5);
    return loss[2];
}

Test(simulate, the_scale_keeps_an_optimum_when_c_end_is_too_large, .timeout = 60)
{
    double with = loss_at_optimum_c_end_5x(true), without = loss_at_optimum_c_end_5x(false);
    cr_assert_lt(with, 0.5, "the form with the scale lost %.3f Elo from the optimum", with);
    cr_assert_gt(without, 0.5, "the form without the scale lost only %.3f: the bound tells nothing",
                 without);
}

/* ---- the centre batches (docs/spsa-forms.md, "The centre batches") ------- */

typedef struct {
    double pm[8], loss[8];
    uint64_t centre_count;
} CentreTrace;

static void centre_trace(void *ctx, const SpsaState *st)
{
    CentreTrace *t = ctx;
    for (size_t i = 0; i < st->nparams; i++) {
        t->pm[i] = st->params[i].pm;
        t->loss[i] = -2.0 * SPSA_ELO_PER_WL * st->params[i].cm;
    }
    t->centre_count = st->centre_count;
}

/* 8 parameters at their optimum 500 in [0, 1000], c_end 50, on a quadratic
 * landscape losing curv Elo at 1 c_end (scale 1); 4000 games with 30%
 * centre batches.  The probe is 4 c_k, about 4.5 c_end on average, so a
 * perturbation of one parameter costs about 20 curv Elo. */
static void centre_run(double curv1, CentreTrace *t)
{
    SpsaParam ps[8];
    double opt[8], curv[8];
    memset(ps, 0, sizeof ps);
    for (int i = 0; i < 8; i++) {
        snprintf(ps[i].name, sizeof ps[i].name, "P%d", i);
        ps[i].min = 0;
        ps[i].max = 1000;
        ps[i].start = ps[i].theta = opt[i] = 500;
        ps[i].c_end = 50;
        ps[i].r_end = 0.002;
        curv[i] = curv1;
    }
    SimModel m = {8, opt, curv, SIM_DRAW_RATIO, SIM_OPENING_BIAS, 1, 0, NULL, NULL,
                  NULL, NULL};
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    cfg.form = SPSA_FORM_DEFAULT;
    cfg.centre = 0.3;
    spsa_config_set_games(&cfg, 4000);
    char err[256];
    memset(t, 0, sizeof *t);
    SimResult r;
    cr_assert_eq(sim_run_traced(ps, 8, &cfg, &m, 7, NULL, &r, NULL, centre_trace, t, err,
                                sizeof err),
                 0, "%s", err);
    cr_assert_gt(t->centre_count, 400, "%" PRIu64 " centre batches of 2000", t->centre_count);
    cr_assert_lt(t->centre_count, 800, "%" PRIu64 " centre batches of 2000", t->centre_count);
}

/* At an optimum the centre batches see that theta beats theta + c: the
 * probes shrink (the estimates of a perturbation's cost, positive on the
 * mean, pull them down until they cost about centre_elo, within the noise);
 * on a flat landscape the estimates are near 0 and the probes stay. */
Test(simulate, centre_batches_measure_the_curvature, .timeout = 60)
{
    CentreTrace t;
    centre_run(3.0, &t); /* at p = 1 a probe costs about 60 Elo per parameter */
    double pm = 0, loss = 0;
    for (int i = 0; i < 8; i++) {
        pm += t.pm[i] / 8;
        loss += t.loss[i] / 8;
    }
    cr_assert_lt(pm, 0.8, "mean probe multiplier %.3f at an optimum", pm);
    cr_assert_gt(loss, 0, "mean probe cost %.2f Elo at an optimum", loss);
    centre_run(0.0, &t);
    pm = loss = 0;
    for (int i = 0; i < 8; i++) {
        pm += t.pm[i] / 8;
        loss += t.loss[i] / 8;
    }
    cr_assert_gt(pm, 0.95, "mean probe multiplier %.3f on a flat landscape", pm);
    cr_assert_lt(fabs(loss), SPSA_DEFAULT_CENTRE_ELO, "mean probe cost %.2f Elo on a flat landscape",
                 loss);
}

/* ---- form=far is the default form of before form=settle ---------------------- */

/* The trajectory of theta after every batch of a short simulated run, as
 * text: one line per batch, the six parameters' theta with %.17g. */
typedef struct {
    char *buf;
    size_t len, cap;
} Golden;

static void golden_trace(void *ctx, const SpsaState *st)
{
    Golden *g = ctx;
    for (size_t i = 0; i < st->nparams; i++) {
        char num[40];
        int n = snprintf(num, sizeof num, "%s%.17g", i ? " " : "", st->params[i].theta);
        if (g->len + (size_t)n + 2 > g->cap) {
            g->cap = 2 * (g->cap + (size_t)n + 2);
            g->buf = realloc(g->buf, g->cap);
            cr_assert_not_null(g->buf);
        }
        memcpy(g->buf + g->len, num, (size_t)n);
        g->len += (size_t)n;
    }
    g->buf[g->len++] = '\n';
    g->buf[g->len] = '\0';
}

/* 300 games (150 batches of one pair, two in flight) of the six SPECS from
 * random_optimum(3), curvature 2, draws 0.25, opening bias 80, seed 11, with
 * cfg: every step of theta, as golden_trace writes it. */
static char *far_trajectory(const SpsaConfig *cfg)
{
    SpsaParam ps[NP];
    make_params(ps);
    double opt[NP], curv[NP];
    random_optimum(ps, 3, opt);
    for (int i = 0; i < NP; i++)
        curv[i] = 2.0;
    SimModel m = {NP, opt, curv, 0.25, 80.0, 2, 0, NULL, NULL, NULL, NULL};
    Golden g = {0};
    SimResult r;
    char err[256] = "";
    cr_assert_eq(sim_run_traced(ps, NP, cfg, &m, 11, NULL, &r, NULL, golden_trace, &g, err,
                                sizeof err), 0, "%s", err);
    return g.buf;
}

#define FAR_GOLDEN "tests/data/spsa_far_golden.txt"

/* tests/data/spsa_far_golden.txt was written by this test (with
 * RATCHET_WRITE_GOLDEN=1) at commit 8ae4b3e, when the default form was the
 * only rms form: `form=far` must take every step it took then. */
Test(simulate, form_far_takes_the_old_default_steps, .timeout = 60)
{
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    SpsaForm far;
    cr_assert_eq(spsa_form_parse("far", &far), 0);
    spsa_config_set_form(&cfg, far); /* what -spsa form=far does (setup.c) */
    spsa_config_set_games(&cfg, 300);
    char *got = far_trajectory(&cfg);
    if (getenv("RATCHET_WRITE_GOLDEN")) {
        FILE *f = fopen(FAR_GOLDEN, "w");
        cr_assert_not_null(f);
        fputs(got, f);
        cr_assert_eq(fclose(f), 0);
    }
    FILE *f = fopen(FAR_GOLDEN, "r");
    cr_assert_not_null(f, "cannot open %s", FAR_GOLDEN);
    char *want = calloc(1, 1 << 16);
    cr_assert_not_null(want);
    size_t n = fread(want, 1, (1 << 16) - 1, f);
    fclose(f);
    want[n] = '\0';
    cr_assert_gt(strlen(got), 1000);
    size_t line = 1, i = 0;
    while (got[i] && got[i] == want[i])
        line += got[i++] == '\n';
    cr_assert(got[i] == want[i], "%s: the trajectory differs from batch %zu on", FAR_GOLDEN,
              line);
    free(want);
    free(got);
}

/* ---- a parameter the games cannot see settles (issue 42) --------------------- */

/* The root mean square of |final - start| / c_end of eight parameters with no
 * Elo effect at all (each in [0, 1000], c_end 10, from 500), after `games`
 * games of `form` (its own schedule) with seed `seed`. */
static double flat_rms_drift(SpsaForm form, uint64_t games, uint64_t seed)
{
    enum { N = 8 };
    SpsaParam ps[N];
    double opt[N], curv[N], x[N];
    memset(ps, 0, sizeof ps);
    for (int i = 0; i < N; i++) {
        snprintf(ps[i].name, sizeof ps[i].name, "F%d", i);
        ps[i].start = ps[i].theta = 500;
        ps[i].min = 0;
        ps[i].max = 1000;
        ps[i].c_end = 10;
        ps[i].r_end = 0.002;
        opt[i] = 500;
        curv[i] = 0;
    }
    SimModel m = {N, opt, curv, 0.25, 80.0, 1, 0, NULL, NULL, NULL, NULL};
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_form(&cfg, form);
    spsa_config_set_games(&cfg, games);
    SimResult r;
    char err[256] = "";
    cr_assert_eq(sim_run(ps, N, &cfg, &m, seed, x, &r, NULL, err, sizeof err), 0, "%s", err);
    double ss = 0;
    for (int i = 0; i < N; i++)
        ss += (x[i] - 500) / 10 * (x[i] - 500) / 10;
    return sqrt(ss / N);
}

/* After 20k games the default form's wander on a flat landscape is below
 * far's (the default before it) on every one of five seeds: the largest of
 * its five is below the smallest of far's, which two forms that wandered
 * alike would show with a chance of 1 in 252. */
Test(simulate, the_default_form_settles_where_the_games_see_nothing, .timeout = 60)
{
    double worst_default = 0, best_far = HUGE_VAL;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        double d = flat_rms_drift(SPSA_FORM_DEFAULT, 20000, seed);
        double f = flat_rms_drift(SPSA_FORM_RMS, 20000, seed);
        worst_default = fmax(worst_default, d);
        best_far = fmin(best_far, f);
    }
    cr_assert_lt(worst_default, best_far,
                 "flat drift after 20k games (root mean square, c_end): the default form's worst seed %.2f, "
                 "far's best %.2f", worst_default, best_far);
}

/* As in run, the keys given stand over form='s own schedule whichever
 * comes first: decay=0.3 before form=far plays what form=far decay=0.3
 * plays, and that is not form=far's own decay. */
Test(simulate, cli_a_key_given_before_the_form_stands_over_it, .timeout = 60)
{
    static const char *const words[3] = { "decay=0.3 form=far", "form=far decay=0.3", "form=far" };
    static char got[3][sizeof out];
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(shell("bin/ratchet-tune simulate -spsa games=200 %s -seeds 1 -srand 3", words[i]), 0, "%s", out);
        snprintf(got[i], sizeof got[i], "%s", out);
    }
    cr_expect_str_eq(got[0], got[1], "-spsa %s and -spsa %s differ", words[0], words[1]);
    cr_expect_str_neq(got[1], got[2], "decay=0.3 changes nothing");
}
