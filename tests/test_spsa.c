/* SPSA math (tuner/spsa/spsa.c): gains against hand computations, rounding,
 * clipping, asynchronous updates, serialization, extension; the forms beyond
 * the classic one (rms, adam): their gains and updates by hand, the probe at a
 * bound, the gains from the budget, state.json round trips and resumes that
 * continue bit for bit, old state files, and the classic form unchanged. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "report.h"
#include "state.h"
#include "spsa.h"
#include "spsa_state_json.h"

static SpsaParam param(const char *name, double value, double min, double max, double c_end,
                       double r_end)
{
    SpsaParam p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.theta = p.start = value;
    p.min = min;
    p.max = max;
    p.c_end = c_end;
    p.r_end = r_end;
    return p;
}

/* A config with round numbers: N = 100 (200 games, 1 pair per iteration),
 * A = 0.1 * 100 = 10, alpha = 1, gamma = 0.5. */
static SpsaConfig round_config(void)
{
    SpsaConfig c;
    spsa_config_default(&c);
    c.alpha = 1.0;
    c.gamma = 0.5;
    spsa_config_set_games(&c, 200);
    return c;
}

static void init_ok(SpsaState *st, const SpsaParam *ps, size_t n, const SpsaConfig *cfg,
                    uint64_t seed)
{
    char err[256] = "";
    cr_assert_eq(spsa_init(st, ps, n, cfg, seed, err, sizeof err), 0, "spsa_init: %s", err);
}

#define EPS 1e-12
#define assert_close(a, b, tol) \
    cr_assert(fabs((a) - (b)) <= (tol) * fmax(1.0, fabs(b)), "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

Test(spsa, iterations_from_games)
{
    /* one iteration = one batch of P pairs = 2P games; N rounds up, >= 1 */
    cr_assert_eq(spsa_iterations_for_games(1000, 1), 500);
    cr_assert_eq(spsa_iterations_for_games(1000, 8), 63); /* 1000 / 16 = 62.5 */
    cr_assert_eq(spsa_iterations_for_games(992, 8), 62);
    cr_assert_eq(spsa_iterations_for_games(1, 4), 1);
    cr_assert_eq(spsa_iterations_for_games(0, 1), 1);
}

Test(spsa, gains_round_numbers)
{
    /* By hand, N = 100, A = 10, alpha = 1, gamma = 0.5, c_end = 2, r_end = 0.01:
     *   c = 2 * 100^0.5 = 20          a = 0.01 * 2^2 * (10 + 100)^1 = 4.4
     *   k = 4:   c_4 = 20 / 4^0.5 = 10     R_4 = 4.4 / 14 / 10^2 = 0.0031428571428...
     *   k = 25:  c_25 = 20 / 5 = 4         R_25 = 4.4 / 35 / 16 = 0.0078571428571...
     *   k = 100: c = 2 = c_end            R = 4.4 / 110 / 4 = 0.01 = r_end */
    SpsaConfig cfg = round_config();
    SpsaParam p = param("X", 50, 0, 100, 2, 0.01);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 1);
    assert_close(st.params[0].c, 20.0, EPS);
    assert_close(st.params[0].a, 4.4, EPS);
    assert_close(spsa_c_k(&st, 0, 4), 10.0, EPS);
    assert_close(spsa_R_k(&st, 0, 4), 4.4 / 14.0 / 100.0, EPS);
    assert_close(spsa_R_k(&st, 0, 4), 0.0031428571428571, 1e-12);
    assert_close(spsa_c_k(&st, 0, 25), 4.0, EPS);
    assert_close(spsa_R_k(&st, 0, 25), 0.0078571428571429, 1e-12);
    assert_close(spsa_c_k(&st, 0, 100), 2.0, EPS);
    assert_close(spsa_R_k(&st, 0, 100), 0.01, EPS);
    spsa_free(&st);
}

Test(spsa, gains_default_exponents)
{
    /* By hand (calculator), N = 1000 (2000 games), A = 100, alpha = 0.602,
     * gamma = 0.101, c_end = 10, r_end = 0.002:
     *   c = 10 * 1000^0.101 = 10 * 10^0.303 = 20.0909281...
     *   a = 0.002 * 10^2 * 1100^0.602 = 0.2 * e^(0.602 * 7.0030655) = 0.2 * 67.751419 = 13.550284
     *   k = 1:  c_1 = c = 20.090928   R_1 = 13.550284 / 101^0.602 / c^2
     *                                     = 13.550284 / 16.091683 / 403.64539 = 0.00208616
     *   k = 10: c_10 = c / 10^0.101 = 20.090928 / 1.2618275 = 15.922087
     *           R_10 = 13.550284 / 110^0.602 / 15.922087^2 = 13.550284 / 16.940195 / 253.51286 = 0.00315522
     *   k = 1000: c_end and r_end */
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 2000);
    cr_assert_eq(cfg.iterations, 1000);
    SpsaParam p = param("X", 100, 0, 300, 10, 0.002);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 1);
    assert_close(st.params[0].c, 20.0909281, 1e-8);
    assert_close(st.params[0].a, 13.550284, 1e-7);
    assert_close(spsa_c_k(&st, 0, 1), 20.0909281, 1e-8);
    assert_close(spsa_R_k(&st, 0, 1), 0.00208616, 1e-5);
    assert_close(spsa_c_k(&st, 0, 10), 15.922087, 1e-7);
    assert_close(spsa_R_k(&st, 0, 10), 0.00315522, 1e-5);
    assert_close(spsa_c_k(&st, 0, 1000), 10.0, 1e-12);
    assert_close(spsa_R_k(&st, 0, 1000), 0.002, 1e-12);
    spsa_free(&st);
}

Test(spsa, c_k_clamped_for_integers)
{
    /* c_end = 0.2, N = 100, gamma = 0.5: c = 0.2 * 10 = 2, a = 0.01 * 0.04 * 110 = 0.044.
     * k = 4: c_4 = 1 (no clamp).  k = 25: 2 / 5 = 0.4 -> clamped to 0.5, and
     * R_25 uses the clamped value: 0.044 / 35 / 0.25 = 0.0050285714... */
    SpsaConfig cfg = round_config();
    SpsaParam p = param("X", 50, 0, 100, 0.2, 0.01);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 3);
    assert_close(spsa_c_k(&st, 0, 4), 1.0, EPS);
    assert_close(spsa_c_k(&st, 0, 25), 0.5, EPS);
    assert_close(spsa_R_k(&st, 0, 25), 0.044 / 35.0 / 0.25, EPS);
    assert_close(spsa_c_k(&st, 0, 100), 0.5, EPS);
    /* With c_k = 0.5 the span is exactly 1: the engines always differ by one. */
    SpsaBatch b;
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        if (b.k >= 25) {
            cr_assert_eq(b.c_k[0], 0.5);
            cr_assert_eq((b.plus_values[0] - b.minus_values[0]) * b.flip[0], 1, "k %d",
                         (int)b.k);
        }
        cr_assert_eq(spsa_batch_apply(&st, &b, 0, 0), 0);
        spsa_batch_free(&b);
    }
    cr_assert_eq(spsa_batch_begin(&st, &b), 0, "all N iterations handed out");
    cr_assert(spsa_done(&st));
    spsa_free(&st);
}

Test(spsa, helpers)
{
    cr_assert_eq(spsa_clip(5, 0, 10), 5);
    cr_assert_eq(spsa_clip(-1, 0, 10), 0);
    cr_assert_eq(spsa_clip(11.5, 0, 10), 10);
    cr_assert_eq(spsa_round(2.3, 0.69), 2); /* floor(2.99) */
    cr_assert_eq(spsa_round(2.3, 0.7), 3);  /* floor(3.0) */
    cr_assert_eq(spsa_round(-2.3, 0.2), -3);
    cr_assert_eq(spsa_round(-2.3, 0.4), -2);
}

Test(spsa, shared_uniform_rounding)
{
    /* Replay the documented draw order (per parameter: flip = uniform_int(2),
     * then u = uniform) with an RNG of our own seeded the same, and check the
     * values against floor(theta +/- c_k flip + u). */
    SpsaConfig cfg = round_config();
    SpsaParam ps[2] = {param("A", 40, 0, 100, 2.3, 0.01), param("B", 7, 0, 20, 0.7, 0.01)};
    SpsaState st;
    init_ok(&st, ps, 2, &cfg, 42);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    int spans[2][2] = {{0, 0}, {0, 0}}; /* count of floor / ceil spans */
    for (int it = 0; it < 100; it++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        for (int i = 0; i < 2; i++) {
            int flip = gsl_rng_uniform_int(r, 2) ? 1 : -1;
            double u = gsl_rng_uniform(r);
            cr_assert_eq(b.flip[i], flip);
            cr_assert_eq(b.u[i], u);
            double theta = st.params[i].theta, ck = b.c_k[i];
            cr_assert_eq(b.plus_values[i], (int)floor(theta + ck * flip + u));
            cr_assert_eq(b.minus_values[i], (int)floor(theta - ck * flip + u));
            /* Both sides differ by exactly the rounded span: floor or ceil of 2 c_k. */
            int span = (b.plus_values[i] - b.minus_values[i]) * flip;
            cr_assert(span == (int)floor(2 * ck) || span == (int)ceil(2 * ck),
                      "span %d for c_k %g", span, ck);
            spans[i][span == (int)ceil(2 * ck) && ceil(2 * ck) != floor(2 * ck)]++;
        }
        /* keep theta where it is: no clipping in play */
        cr_assert_eq(spsa_batch_apply(&st, &b, 3, 3), 0);
        spsa_batch_free(&b);
    }
    /* Stochastic rounding really uses both spans (2 c_k is never an integer here
     * for A at early k; over 100 draws both outcomes occur). */
    cr_assert_gt(spans[0][0], 0);
    cr_assert_gt(spans[0][1], 0);
    gsl_rng_free(r);
    spsa_free(&st);
}

Test(spsa, clipping_of_values_and_update)
{
    /* theta = 99 in [0, 100], c_1 = c_end * 10 = 20 (round config): the side
     * pushed up plays 100, not 119; the other plays floor(79 + u). */
    SpsaConfig cfg = round_config();
    SpsaParam p = param("X", 99, 0, 100, 2, 0.01);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 5);
    SpsaBatch b;
    cr_assert_eq(spsa_batch_begin(&st, &b), 1);
    assert_close(b.c_k[0], 20.0, EPS);
    int up = b.flip[0] > 0 ? b.plus_values[0] : b.minus_values[0];
    int down = b.flip[0] > 0 ? b.minus_values[0] : b.plus_values[0];
    cr_assert_eq(up, 100);
    cr_assert(down == 79 || down == 80);
    /* A huge result in the up direction: theta is clipped at max. */
    uint64_t w = b.flip[0] > 0 ? 1000 : 0, l = b.flip[0] > 0 ? 0 : 1000;
    cr_assert_eq(spsa_batch_apply(&st, &b, w, l), 0);
    cr_assert_eq(st.params[0].theta, 100.0);
    spsa_batch_free(&b);
    /* and in the down direction at min */
    cr_assert_eq(spsa_batch_begin(&st, &b), 1);
    w = b.flip[0] > 0 ? 0 : 100000;
    l = b.flip[0] > 0 ? 100000 : 0;
    cr_assert_eq(spsa_batch_apply(&st, &b, w, l), 0);
    cr_assert_eq(st.params[0].theta, 0.0);
    spsa_batch_free(&b);
    spsa_free(&st);
}

Test(spsa, update_uses_the_batch_own_gains)
{
    /* Round config, c_end 2, r_end 0.01: c = 20, a = 4.4.
     *   k = 1: c_1 = 20, R_1 = 4.4 / 11 / 400 = 0.001, so one net win moves
     *          theta by R_1 * c_1 = 0.02 in the flip's direction.
     *   k = 3: c_3 = 20 / sqrt(3) = 11.547005, R_3 = 4.4 / 13 / 133.33333 = 0.0025384615,
     *          R_3 * c_3 = 0.029311...
     * Hand out k = 1, 2, 3, then apply 1 with W - L = 5 and 3 with W - L = -2. */
    SpsaConfig cfg = round_config();
    SpsaParam p = param("X", 50, 0, 100, 2, 0.01);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 9);
    SpsaBatch b1, b2, b3;
    cr_assert_eq(spsa_batch_begin(&st, &b1), 1);
    cr_assert_eq(spsa_batch_begin(&st, &b2), 1);
    cr_assert_eq(spsa_batch_begin(&st, &b3), 1);
    cr_assert_eq(b1.k, 1);
    cr_assert_eq(b3.k, 3);
    cr_assert_eq(st.ninflight, 3);
    assert_close(b1.R_k[0], 0.001, EPS);
    assert_close(b3.c_k[0], 20.0 / sqrt(3.0), EPS);
    assert_close(b3.R_k[0], 4.4 / 13.0 / (400.0 / 3.0), EPS);

    double expect = 50 + 0.02 * 5 * b1.flip[0];
    cr_assert_eq(spsa_batch_apply(&st, &b1, 7, 2), 0);
    assert_close(st.params[0].theta, expect, EPS);
    expect += 4.4 / 13.0 / (400.0 / 3.0) * (20.0 / sqrt(3.0)) * -2 * b3.flip[0];
    cr_assert_eq(spsa_batch_apply(&st, &b3, 1, 3), 0);
    assert_close(st.params[0].theta, expect, EPS);
    cr_assert_eq(st.completed, 2);
    cr_assert_eq(st.wins, 8);
    cr_assert_eq(st.losses, 5);

    /* applying the same batch twice is refused and changes nothing */
    cr_assert_eq(spsa_batch_apply(&st, &b1, 100, 0), -1);
    assert_close(st.params[0].theta, expect, EPS);
    cr_assert_eq(st.completed, 2);
    /* the caller's copy cannot change the gains: they come from the state */
    b2.R_k[0] = 1000;
    b2.flip[0] = -b2.flip[0];
    SpsaBatch own;
    cr_assert_eq(spsa_inflight_get(&st, 0, &own), 0);
    cr_assert_eq(own.k, 2);
    expect += own.R_k[0] * own.c_k[0] * 1 * own.flip[0];
    cr_assert_eq(spsa_batch_apply(&st, &b2, 1, 0), 0);
    assert_close(st.params[0].theta, expect, EPS);
    cr_assert_eq(st.ninflight, 0);
    spsa_batch_free(&own);
    spsa_batch_free(&b1);
    spsa_batch_free(&b2);
    spsa_batch_free(&b3);
    spsa_free(&st);
}

Test(spsa, init_refuses_bad_specs)
{
    SpsaConfig cfg = round_config();
    char err[256];
    SpsaState st;
    SpsaParam p = param("X", 5, 10, 1, 1, 0.01);
    cr_assert_eq(spsa_init(&st, &p, 1, &cfg, 1, err, sizeof err), -1);
    cr_assert(strstr(err, "X") && strstr(err, "min"), "%s", err);
    p = param("X", 50, 0, 10, 1, 0.01);
    cr_assert_eq(spsa_init(&st, &p, 1, &cfg, 1, err, sizeof err), -1);
    cr_assert(strstr(err, "outside"), "%s", err);
    p = param("X", 5, 0, 10, 0, 0.01);
    cr_assert_eq(spsa_init(&st, &p, 1, &cfg, 1, err, sizeof err), -1);
    cr_assert(strstr(err, "c_end"), "%s", err);
    SpsaParam two[2] = {param("X", 5, 0, 10, 1, 0.01), param("X", 5, 0, 10, 1, 0.01)};
    cr_assert_eq(spsa_init(&st, two, 2, &cfg, 1, err, sizeof err), -1);
    cr_assert(strstr(err, "twice"), "%s", err);
    cfg.pairs_per = 0;
    cr_assert_eq(spsa_init(&st, two, 1, &cfg, 1, err, sizeof err), -1);
    cr_assert(strstr(err, "pairs-per"), "%s", err);
}

/* Plays a deterministic sequence: batches handed out two at a time. */
static void play_some(SpsaState *st, int rounds, SpsaBatch *left_out)
{
    for (int i = 0; i < rounds; i++) {
        SpsaBatch a, b;
        cr_assert_eq(spsa_batch_begin(st, &a), 1);
        cr_assert_eq(spsa_batch_begin(st, &b), 1);
        cr_assert_eq(spsa_batch_apply(st, &b, (uint64_t)(i % 3), 1), 0);
        cr_assert_eq(spsa_batch_apply(st, &a, 2, (uint64_t)(i % 2)), 0);
        spsa_batch_free(&a);
        spsa_batch_free(&b);
    }
    cr_assert_eq(spsa_batch_begin(st, left_out), 1);
}

/* *out = the state as it reads back after printing it as state.json holds it. */
static void copy_through_text(const SpsaState *st, SpsaState *out)
{
    cJSON *j = spsa_state_to_json(st);
    cr_assert_not_null(j);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    cJSON *back = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(back);
    char err[256] = "";
    cr_assert_eq(spsa_state_from_json(out, back, err, sizeof err), 0, "%s", err);
    cJSON_Delete(back);
}

static void assert_same_batch(const SpsaBatch *x, const SpsaBatch *y)
{
    cr_assert_eq(x->k, y->k);
    cr_assert_eq(x->nparams, y->nparams);
    for (size_t i = 0; i < x->nparams; i++) {
        cr_assert_eq(x->c_k[i], y->c_k[i]);
        cr_assert_eq(x->R_k[i], y->R_k[i]);
        cr_assert_eq(x->flip[i], y->flip[i]);
        cr_assert_eq(x->u[i], y->u[i]);
        cr_assert_eq(x->plus_values[i], y->plus_values[i]);
        cr_assert_eq(x->minus_values[i], y->minus_values[i]);
    }
}

Test(spsa, json_round_trip)
{
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    cfg.pairs_per = 2;
    cfg.average = 0.5;
    spsa_config_set_games(&cfg, 400); /* N = 100 */
    SpsaParam ps[3] = {param("LmrBase", 135, 0, 300, 10, 0.002),
                       param("LmpBase", 3, 0, 12, 1, 0.002),
                       param("Futility", 100, 20, 300, 10, 0.002)};
    SpsaState st;
    init_ok(&st, ps, 3, &cfg, 77);
    SpsaBatch open1, open2;
    play_some(&st, 30, &open1); /* past 1 - average: the average is in use */
    cr_assert_eq(spsa_batch_begin(&st, &open2), 1);
    cr_assert_eq(st.ninflight, 2);
    cr_assert_gt(st.avg_count, 0);

    SpsaState st2;
    copy_through_text(&st, &st2);

    cr_assert_eq(st2.k, st.k);
    cr_assert_eq(st2.completed, st.completed);
    cr_assert_eq(st2.wins, st.wins);
    cr_assert_eq(st2.cfg.iterations, 100);
    cr_assert_eq(st2.cfg.pairs_per, 2);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_str_eq(st2.params[i].name, st.params[i].name);
        cr_assert_eq(st2.params[i].theta, st.params[i].theta);
        cr_assert_eq(st2.params[i].avg, st.params[i].avg);
        cr_assert_eq(st2.params[i].start, st.params[i].start);
        cr_assert_eq(st2.params[i].c, st.params[i].c);
        cr_assert_eq(st2.params[i].a, st.params[i].a);
    }
    /* the in-flight batches come back, to be re-issued */
    cr_assert_eq(st2.ninflight, 2);
    SpsaBatch re;
    cr_assert_eq(spsa_inflight_get(&st2, 0, &re), 0);
    assert_same_batch(&re, &open1);
    spsa_batch_free(&re);
    cr_assert_eq(spsa_inflight_get(&st2, 1, &re), 0);
    assert_same_batch(&re, &open2);
    spsa_batch_free(&re);
    cr_assert_eq(spsa_inflight_get(&st2, 2, &re), -1);

    /* both states continue identically: same results in, same batches out */
    for (int i = 0; i < 20; i++) {
        SpsaBatch x, y;
        cr_assert_eq(spsa_batch_begin(&st, &x), 1);
        cr_assert_eq(spsa_batch_begin(&st2, &y), 1);
        assert_same_batch(&x, &y);
        cr_assert_eq(spsa_batch_apply(&st, &x, (uint64_t)i % 4, 2), 0);
        cr_assert_eq(spsa_batch_apply(&st2, &y, (uint64_t)i % 4, 2), 0);
        spsa_batch_free(&x);
        spsa_batch_free(&y);
    }
    cr_assert_eq(spsa_batch_apply(&st, &open1, 3, 0), 0);
    cr_assert_eq(spsa_batch_apply(&st2, &open1, 3, 0), 0);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(st2.params[i].theta, st.params[i].theta);
        cr_assert_eq(st2.params[i].avg, st.params[i].avg);
        cr_assert_eq(spsa_value(&st2, i), spsa_value(&st, i));
    }
    spsa_batch_free(&open1);
    spsa_batch_free(&open2);
    spsa_free(&st);
    spsa_free(&st2);
}

Test(spsa, json_bad_input_names_the_field)
{
    SpsaConfig cfg = round_config();
    SpsaParam p = param("X", 50, 0, 100, 2, 0.01);
    SpsaState st, st2;
    init_ok(&st, &p, 1, &cfg, 1);
    char err[256];

    cJSON *j = spsa_state_to_json(&st);
    cJSON_DeleteItemFromObject(j, "k");
    cr_assert_eq(spsa_state_from_json(&st2, j, err, sizeof err), -1);
    cr_assert(strstr(err, "\"k\""), "%s", err);
    cJSON_Delete(j);

    j = spsa_state_to_json(&st);
    cJSON *rng = cJSON_GetObjectItem(j, "rng");
    cJSON_ReplaceItemInObject(rng, "state", cJSON_CreateString("abcd"));
    cr_assert_eq(spsa_state_from_json(&st2, j, err, sizeof err), -1);
    cr_assert(strstr(err, "rng"), "%s", err);
    cJSON_Delete(j);

    j = spsa_state_to_json(&st);
    cJSON *q = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "params"), 0);
    cJSON_ReplaceItemInObject(q, "theta", cJSON_CreateNumber(500));
    cr_assert_eq(spsa_state_from_json(&st2, j, err, sizeof err), -1);
    cr_assert(strstr(err, "outside"), "%s", err);
    cJSON_Delete(j);

    j = spsa_state_to_json(&st);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(99));
    cr_assert_eq(spsa_state_from_json(&st2, j, err, sizeof err), -1);
    cr_assert(strstr(err, "version"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&st);
}

Test(spsa, extend_recomputes_schedule_and_keeps_k)
{
    /* Round config: N = 100.  After 60 iterations, extend to 400 games:
     * N' = 200, A' = 20, c' = 2 * sqrt(200) = 28.284271, a' = 0.01 * 4 * 220 = 8.8.
     * The next batch is k = 61: c_61 = 28.284271 / sqrt(61) = 3.6214298,
     * R_61 = 8.8 / 81 / c_61^2 = 8.8 / 81 / 13.114754 = 0.0082839506;
     * at k = 200 the gains are c_end and r_end again. */
    SpsaConfig cfg = round_config();
    SpsaParam p = param("X", 50, 0, 100, 2, 0.01);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 11);
    SpsaBatch b;
    for (int i = 0; i < 60; i++) {
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        cr_assert_eq(spsa_batch_apply(&st, &b, 1, 1), 0);
        spsa_batch_free(&b);
    }
    double theta = st.params[0].theta;
    char err[256];
    cr_assert_eq(spsa_extend(&st, 100, err, sizeof err), -1, "fewer than handed out");
    cr_assert(strstr(err, "already handed out"), "%s", err);
    cr_assert_eq(spsa_extend(&st, 400, err, sizeof err), 0, "%s", err);
    cr_assert_eq(st.cfg.iterations, 200);
    cr_assert_eq(st.k, 60);
    cr_assert_eq(st.params[0].theta, theta);
    assert_close(st.params[0].c, 28.284271247, 1e-9);
    assert_close(st.params[0].a, 8.8, EPS);
    cr_assert_eq(spsa_batch_begin(&st, &b), 1);
    cr_assert_eq(b.k, 61);
    assert_close(b.c_k[0], 3.6214298, 1e-7);
    assert_close(b.R_k[0], 0.0082839506, 1e-8);
    spsa_batch_free(&b);
    assert_close(spsa_c_k(&st, 0, 200), 2.0, EPS);
    assert_close(spsa_R_k(&st, 0, 200), 0.01, EPS);
    spsa_free(&st);
}

Test(spsa, averaging_option)
{
    /* average = 0.5 with N = 100: theta_avg is the mean of theta after each
     * batch with k > 50; the classic update itself is unchanged. */
    SpsaConfig cfg = round_config();
    cfg.average = 0.5;
    SpsaConfig classic = round_config();
    SpsaParam p = param("X", 50, 0, 100, 2, 0.01);
    SpsaState st, ref;
    init_ok(&st, &p, 1, &cfg, 4);
    init_ok(&ref, &p, 1, &classic, 4);
    double sum = 0;
    int count = 0;
    for (int i = 0; i < 100; i++) {
        SpsaBatch b, c;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        cr_assert_eq(spsa_batch_begin(&ref, &c), 1);
        uint64_t w = (uint64_t)(i % 3), l = (uint64_t)(i % 2);
        cr_assert_eq(spsa_batch_apply(&st, &b, w, l), 0);
        cr_assert_eq(spsa_batch_apply(&ref, &c, w, l), 0);
        cr_assert_eq(st.params[0].theta, ref.params[0].theta);
        if (b.k > 50) {
            sum += st.params[0].theta;
            count++;
        }
        spsa_batch_free(&b);
        spsa_batch_free(&c);
    }
    cr_assert_eq(st.avg_count, 50);
    assert_close(st.params[0].avg, sum / count, 1e-12);
    cr_assert_eq(spsa_value(&st, 0), (int)floor(sum / count + 0.5));
    cr_assert_eq(spsa_value(&ref, 0), (int)floor(ref.params[0].theta + 0.5));
    spsa_free(&st);
    spsa_free(&ref);
}

/* ---- the forms beyond the classic one --------------------------------------- */

/* N = 100 (200 games, one pair per iteration), A = 10, gamma = 0.5, and for
 * the non-classic forms eta = 0.05, decay = 1, probe = 2. */
static SpsaConfig form_config(SpsaForm form)
{
    SpsaConfig c;
    spsa_config_default(&c);
    c.form = form;
    c.gamma = 0.5;
    c.eta = 0.05;
    c.decay = 1.0;
    c.probe = 2.0;
    spsa_config_set_games(&c, 200);
    return c;
}

Test(spsa_forms, names)
{
    SpsaForm f;
    cr_assert_eq(spsa_form_parse("classic", &f), 0);
    cr_assert_eq(f, SPSA_FORM_CLASSIC);
    cr_assert_eq(spsa_form_parse("rms", &f), 0, "the older name of far");
    cr_assert_eq(f, SPSA_FORM_RMS);
    cr_assert_eq(spsa_form_parse("far", &f), 0);
    cr_assert_eq(f, SPSA_FORM_RMS);
    cr_assert_eq(spsa_form_parse("settle", &f), 0);
    cr_assert_eq(f, SPSA_FORM_SETTLE);
    cr_assert_eq(spsa_form_parse("adam", &f), 0);
    cr_assert_eq(f, SPSA_FORM_ADAM);
    cr_assert_eq(spsa_form_parse("Adam", &f), -1);
    cr_assert_str_eq(spsa_form_name(SPSA_FORM_RMS), "far");
    cr_assert_str_eq(spsa_form_name(SPSA_FORM_SETTLE), "settle");
    cr_assert_eq(SPSA_FORM_DEFAULT, SPSA_FORM_SETTLE);
    SpsaConfig c;
    spsa_config_default(&c);
    cr_assert_eq(c.form, SPSA_FORM_CLASSIC, "the pure-math default stays the classic form");
    /* each form's own schedule */
    spsa_config_set_form(&c, SPSA_FORM_SETTLE);
    cr_assert_eq(c.decay, SPSA_SETTLE_DECAY);
    cr_assert_eq(c.eta_base, SPSA_SETTLE_ETA);
    cr_assert_eq(c.eta_pow, SPSA_SETTLE_ETA_KPOW);
    cr_assert_eq(c.eta_npow, SPSA_SETTLE_ETA_NPOW);
    cr_assert_eq(c.probe, SPSA_SETTLE_PROBE);
    cr_assert_eq(c.average, SPSA_SETTLE_AVERAGE);
    spsa_config_set_form(&c, SPSA_FORM_RMS);
    cr_assert_eq(c.decay, 1.2);
    cr_assert_eq(c.eta_base, 0.025);
    cr_assert_eq(c.eta_pow, 0.5);
    cr_assert_eq(c.eta_npow, 1.0);
    cr_assert_eq(c.probe, 4.0);
    cr_assert_eq(c.average, 0.0);
}

static bool two_batches_unbiased = true; /* adam's bias correction */
static void run_form(SpsaForm form, int its, int stop_at, SpsaState *st);

/* By hand (form_config, theta 50 in [0, 100], c_end 2):
 *   classic c = 2 * 100^0.5 = 20; probe 2: c_1 = 2 * 20 / 1 = 40,
 *   c_2 = 40 / sqrt(2) = 28.284271247461902
 *   eta_k = 0.05 * ((10 + 100) / (10 + k))^1: eta_1 = 0.5, eta_2 = 0.45833333333333337
 * rms, results r = W - L of +2 then -1:
 *   v = 1 (prior); batch 1: weight 1/2, v = 1 + (4 - 1) / 2 = 2.5
 *     step = 0.5 * 2 * 2 * flip_1 / sqrt(2.5) = 1.2649110640673518 flip_1
 *   batch 2: weight 1/3, v = 2.5 + (1 - 2.5) / 3 = 2
 *     step = 0.45833333333333337 * 2 * (-1) * flip_2 / sqrt(2) = -0.64818121608766 flip_2
 * adam with beta1 = 0.5: m_1 = 0.5 * 2 flip_1 = flip_1, unbiased m_1 / (1 - 0.5) = 2 flip_1,
 *   step 0.5 * 2 * 2 flip_1 / sqrt(2.5) = 1.2649110640673518 flip_1 (rms's first step);
 *   m_2 = 0.5 flip_1 - 0.5 flip_2, unbiased m_2 / (1 - 0.25),
 *   step 0.45833333333333337 * 2 * m_2 / 0.75 / sqrt(2) = 0.4321208107251123 (flip_1 - flip_2) */
static void two_batches(SpsaForm form, double beta1, double expect[2][2])
{
    SpsaConfig cfg = form_config(form);
    cfg.beta1 = beta1;
    cfg.unbiased = two_batches_unbiased;
    cfg.adapt = false; /* the form's step alone; the scale: scale_by_hand */
    SpsaParam p = param("X", 50, 0, 100, 2, 0.002);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 3);
    SpsaBatch b1, b2;
    cr_assert_eq(spsa_batch_begin(&st, &b1), 1);
    assert_close(b1.c_k[0], 40.0, 1e-15);
    assert_close(b1.R_k[0], 0.5, 1e-15);
    cr_assert_eq(spsa_batch_apply_wld(&st, &b1, 2, 0, 0), 0);
    assert_close(st.v, 2.5, 1e-15);
    int f1 = b1.flip[0];
    assert_close(st.params[0].theta, 50 + expect[0][0] * f1, 1e-14);
    cr_assert_eq(spsa_batch_begin(&st, &b2), 1);
    assert_close(b2.c_k[0], 28.284271247461902, 1e-15);
    assert_close(b2.R_k[0], 0.45833333333333337, 1e-15);
    cr_assert_eq(spsa_batch_apply_wld(&st, &b2, 0, 1, 1), 0);
    assert_close(st.v, 2.0, 1e-15);
    int f2 = b2.flip[0];
    double second = expect[1][0] * f2 + expect[1][1] * f1;
    assert_close(st.params[0].theta, 50 + expect[0][0] * f1 + second, 1e-14);
    spsa_batch_free(&b1);
    spsa_batch_free(&b2);
    spsa_free(&st);
}

Test(spsa_forms, rms_update_by_hand)
{
    double e[2][2] = {{1.2649110640673518, 0}, {-0.64818121608766, 0}};
    two_batches(SPSA_FORM_RMS, 0.9, e); /* rms ignores beta1 */
}

Test(spsa_forms, adam_update_by_hand)
{
    double e[2][2] = {{1.2649110640673518, 0}, {-0.4321208107251123, 0.4321208107251123}};
    two_batches(SPSA_FORM_ADAM, 0.5, e);
}

/* An adam state written before the bias correction goes on without it:
 * second step 0.64818121608766 * (0.5 flip_1 - 0.5 flip_2). */
Test(spsa_forms, adam_update_by_hand_without_bias_correction)
{
    double e[2][2] = {{0.63245553203367588, 0}, {-0.32409060804383, 0.32409060804383}};
    two_batches_unbiased = false;
    two_batches(SPSA_FORM_ADAM, 0.5, e);
}

Test(spsa_forms, adam_state_records_the_bias_correction)
{
    SpsaState st, back;
    run_form(SPSA_FORM_ADAM, 20, -1, &st);
    cr_assert(st.cfg.unbiased);
    cJSON *j = spsa_state_to_json(&st);
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "unbiased")));
    char err[256];
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert(back.cfg.unbiased);
    spsa_free(&back);
    cJSON_DeleteItemFromObject(c, "unbiased");
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert(!back.cfg.unbiased, "an older adam state goes on without it");
    spsa_free(&back);
    cJSON_AddNumberToObject(c, "unbiased", 1);
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "unbiased"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&st);
}

/* The scale by hand (form_config: N = 100, so W = max(0.02 * 100, 4) = 4;
 * the results of two_batches, +2 then -1, v 2.5 then 2):
 *   batch 1: the step with s = 0.1: 0.5 * 2 * 0.1 * 2 flip_1 / sqrt(2.5);
 *     g_1 = 2 flip_1 / sqrt(2.5), beta 0 (sd 1), e 0 so q 0:
 *     log s = log 0.1 + 3 / 4 * (0 - 0.02); then e = g_1
 *   batch 2: the step with that s: 0.45833333333333337 * 2 * s * (-1) flip_2 / sqrt(2);
 *     g_2 = -flip_2 / sqrt(2), beta 1/2, sd = sqrt(1/3):
 *     q = g_2 g_1 / sd, log s += 3 / 4 * (q - 0.02) */
Test(spsa_forms, scale_by_hand)
{
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.adapt = true;
    SpsaParam p = param("X", 50, 0, 100, 2, 0.002);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 3);
    cr_assert_eq(st.params[0].scale, 0.1);
    SpsaBatch b1, b2;
    cr_assert_eq(spsa_batch_begin(&st, &b1), 1);
    assert_close(b1.c_k[0], 40.0, 1e-15); /* the probe is not scaled */
    cr_assert_eq(spsa_batch_apply_wld(&st, &b1, 2, 0, 0), 0);
    int f1 = b1.flip[0];
    double g1 = 2.0 * f1 / sqrt(2.5);
    double s1 = exp(log(0.1) + 0.75 * (0 - 0.02));
    double theta = 50 + 0.5 * 2 * 0.1 * 2 * f1 / sqrt(2.5);
    assert_close(st.params[0].theta, theta, 1e-14);
    assert_close(st.params[0].scale, s1, 1e-15);
    assert_close(st.params[0].e, g1, 1e-15);
    cr_assert_eq(spsa_batch_begin(&st, &b2), 1);
    cr_assert_eq(spsa_batch_apply_wld(&st, &b2, 0, 1, 1), 0);
    int f2 = b2.flip[0];
    double g2 = -1.0 * f2 / sqrt(2.0);
    theta += 0.45833333333333337 * 2 * s1 * -1.0 * f2 / sqrt(2.0);
    double q = g2 * g1 / sqrt(1.0 / 3.0);
    assert_close(st.params[0].theta, theta, 1e-14);
    assert_close(st.params[0].scale, exp(log(s1) + 0.75 * (q - 0.02)), 1e-14);
    assert_close(st.params[0].e, 0.5 * g1 + 0.5 * g2, 1e-15);
    spsa_batch_free(&b1);
    spsa_batch_free(&b2);
    spsa_free(&st);
}

/* The scale stays in [scale_min, scale_max]: a run of results that always
 * agree with the flip drives it to the top, one of draws to the bottom. */
Test(spsa_forms, scale_is_bounded)
{
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.adapt = true;
    cfg.adapt_rate = 100; /* fast enough to reach a bound in the 100 iterations */
    SpsaParam p = param("X", 50, 0, 100, 2, 0.002);
    for (int agree = 0; agree < 2; agree++) {
        SpsaState st;
        init_ok(&st, &p, 1, &cfg, 5);
        SpsaBatch b;
        while (spsa_batch_begin(&st, &b) == 1) {
            bool plus_wins = b.flip[0] > 0; /* the `+` engine is the one above theta */
            uint64_t w = agree ? (plus_wins ? 2 : 0) : 0, l = agree ? (plus_wins ? 0 : 2) : 0;
            cr_assert_eq(spsa_batch_apply_wld(&st, &b, w, l, 2 - w - l), 0);
            spsa_batch_free(&b);
        }
        double want = agree ? cfg.scale_max : cfg.scale_min;
        assert_close(st.params[0].scale, want, 1e-12);
        /* a state at a bound of the scale saves and loads */
        cJSON *j = spsa_state_to_json(&st);
        SpsaState back;
        char err[256];
        cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
        cr_assert_eq(back.params[0].scale, st.params[0].scale);
        spsa_free(&back);
        cJSON_Delete(j);
        spsa_free(&st);
    }
}

Test(spsa_forms, second_moment_window)
{
    /* beta2 = 0.75: weights 1/2, 1/3, 1/4, then 1 - beta2 = 1/4 from there on.
     * Results 2, 0, 0, 0, 2 (r^2 = 4, 0, 0, 0, 4):
     *   v: 1 -> 2.5 -> 2.5 * 2/3 = 1.6666667 -> 1.25 -> 0.9375 -> 0.9375 + (4 - 0.9375) / 4 = 1.703125 */
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.beta2 = 0.75;
    SpsaParam p = param("X", 50, 0, 100, 2, 0.002);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 3);
    const uint64_t w[5] = {2, 1, 0, 1, 2}, l[5] = {0, 1, 0, 1, 0}, d[5] = {0, 0, 2, 0, 0};
    const double v[5] = {2.5, 5.0 / 3.0, 1.25, 0.9375, 1.703125};
    for (int i = 0; i < 5; i++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        cr_assert_eq(spsa_batch_apply_wld(&st, &b, w[i], l[i], d[i]), 0);
        assert_close(st.v, v[i], 1e-14);
        spsa_batch_free(&b);
    }
    spsa_free(&st);
}

Test(spsa_forms, probes_stay_symmetric_at_a_bound)
{
    /* theta 5 in [0, 100] with c_1 = 40: the classic form plays floor(45 + u)
     * and max(0, floor(-35 + u)) = 0, a lopsided probe; rms plays around
     * 40 = min + c_1: floor(80 + u) and floor(0 + u) = 0 and 80 exactly. */
    SpsaParam p = param("X", 5, 0, 100, 2, 0.002);
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.narrow = false; /* the full probe, moved inside the bounds */
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 9);
    for (int i = 0; i < 20; i++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        double ck = b.c_k[0];
        double centre = spsa_clip(st.params[0].theta, ck, 100 - ck);
        cr_assert_eq(b.plus_values[0], (int)floor(centre + ck * b.flip[0] + b.u[0]));
        cr_assert_eq(b.minus_values[0], (int)floor(centre - ck * b.flip[0] + b.u[0]));
        cr_assert_geq(b.plus_values[0] < b.minus_values[0] ? b.plus_values[0] : b.minus_values[0], 0);
        if (i == 0) {
            cr_assert_eq(centre, 40.0);
            cr_assert_eq(fabs(b.plus_values[0] - b.minus_values[0]), 80.0, "not cut short by the bound");
        }
        /* the side that plays the lower value wins: theta is pushed down */
        cr_assert_eq(spsa_batch_apply_wld(&st, &b, b.flip[0] < 0 ? 2 : 0, b.flip[0] < 0 ? 0 : 2, 0), 0);
        cr_assert_geq(st.params[0].theta, 0.0);
        spsa_batch_free(&b);
    }
    cr_assert_eq(st.params[0].theta, 0.0, "theta rests on the bound");
    spsa_free(&st);
}

Test(spsa_forms, probes_narrow_near_a_bound)
{
    /* form_config: c_1 = 40 (probe 2 x the classic 20) in [0, 100].  With
     * narrow the probe is min(40, room) but at least 20, room = the distance
     * from theta to the nearer bound; the centre moves only below 20. */
    static const struct {
        double theta, ck, centre;
    } CASES[] = {
        {50, 40, 50}, {30, 30, 30}, {75, 25, 75}, {5, 20, 20}, {100, 20, 80},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++)
        for (int narrow = 0; narrow <= 1; narrow++) {
            SpsaParam p = param("X", CASES[c].theta, 0, 100, 2, 0.002);
            SpsaConfig cfg = form_config(SPSA_FORM_RMS);
            cfg.narrow = narrow;
            SpsaState st;
            init_ok(&st, &p, 1, &cfg, 3);
            /* what `status` prints: the probe the next batch gets */
            RunState rs;
            memset(&rs, 0, sizeof rs);
            rs.spsa = st;
            ParamSummary sum;
            report_param(&rs, NULL, 0, &sum);
            SpsaBatch b;
            cr_assert_eq(spsa_batch_begin(&st, &b), 1);
            double ck = narrow ? CASES[c].ck : 40;
            cr_assert_eq(sum.c_k, ck, "theta %g narrow %d: status c_k %g", CASES[c].theta, narrow, sum.c_k);
            double centre = narrow ? CASES[c].centre : spsa_clip(CASES[c].theta, 40, 60);
            cr_assert_eq(b.c_k[0], ck, "theta %g narrow %d: c_k %g", CASES[c].theta, narrow, b.c_k[0]);
            cr_assert_eq(b.plus_values[0], floor(centre + ck * b.flip[0] + b.u[0]));
            cr_assert_eq(b.minus_values[0], floor(centre - ck * b.flip[0] + b.u[0]));
            spsa_batch_free(&b);
            spsa_free(&st);
        }
    /* the classic form is never narrowed */
    SpsaParam p = param("X", 30, 0, 100, 2, 0.002);
    SpsaConfig cfg = form_config(SPSA_FORM_CLASSIC);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 3);
    SpsaBatch b;
    cr_assert_eq(spsa_batch_begin(&st, &b), 1);
    cr_assert_eq(b.c_k[0], 20.0);
    spsa_batch_free(&b);
    spsa_free(&st);
}

Test(spsa_forms, gains_from_the_budget)
{
    /* eta = 0.025 * (8 / n) * sqrt(5000 / N) when not given */
    assert_close(spsa_auto_eta(5000, 8), 0.025, 1e-15);
    assert_close(spsa_auto_eta(20000, 16), 0.025 * 0.5 * 0.5, 1e-15);
    assert_close(spsa_auto_eta(1250, 4), 0.025 * 2 * 2, 1e-15);
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.eta = 0;
    SpsaParam ps[2] = {param("X", 50, 0, 100, 2, 0.002), param("Y", 50, 0, 100, 2, 0.002)};
    SpsaState st;
    init_ok(&st, ps, 2, &cfg, 1);
    double eta = 0.025 * 4 * sqrt(50.0); /* N = 100, n = 2 */
    assert_close(spsa_eta(&st), eta, 1e-14);
    assert_close(spsa_eta_k(&st, 100), eta, 1e-14);
    assert_close(spsa_eta_k(&st, 1), eta * 110.0 / 11.0, 1e-14);
    assert_close(spsa_R_k(&st, 0, 100), eta, 1e-14);
    assert_close(spsa_c_k(&st, 0, 100), 4.0, 1e-14); /* form_config's probe 2 * c_end 2 */
    SpsaConfig def;
    spsa_config_default(&def);
    cr_assert_eq(def.probe, 4.0, "the default probe is 4 x the classic c_k (README, suite)");
    /* extending recomputes the budget's eta: N' = 400 */
    char err[256];
    cr_assert_eq(spsa_extend(&st, 800, err, sizeof err), 0, "%s", err);
    assert_close(spsa_eta_k(&st, 400), 0.025 * 4 * sqrt(12.5), 1e-14);
    spsa_free(&st);
    /* settle: eta = SPSA_SETTLE_ETA * (8 / n)^SPSA_SETTLE_ETA_NPOW *
     * (5000 / N)^SPSA_SETTLE_ETA_KPOW, the same at every k (decay 0) */
    spsa_config_set_form(&cfg, SPSA_FORM_SETTLE);
    init_ok(&st, ps, 2, &cfg, 1);
    double nf = pow(4.0, SPSA_SETTLE_ETA_NPOW);
    eta = SPSA_SETTLE_ETA * nf * pow(50.0, SPSA_SETTLE_ETA_KPOW);
    assert_close(spsa_eta(&st), eta, 1e-14);
    assert_close(spsa_eta_k(&st, 1), eta, 1e-14);
    assert_close(spsa_eta_k(&st, 100), eta, 1e-14);
    cr_assert_eq(spsa_extend(&st, 800, err, sizeof err), 0, "%s", err);
    assert_close(spsa_eta_k(&st, 7), SPSA_SETTLE_ETA * nf * pow(12.5, SPSA_SETTLE_ETA_KPOW), 1e-14);
    spsa_free(&st);
}

/* ---- state.json ------------------------------------------------------------ */

/* The W, L, D of a batch as a function of its values only. */
static void outcome(const SpsaBatch *b, uint64_t *w, uint64_t *l)
{
    *w = (b->k * 7 + (uint64_t)b->plus_values[0]) % 3;
    *l = (b->k * 5 + (uint64_t)b->minus_values[1]) % 3;
    if (*l > 2 - *w)
        *l = 2 - *w;
}

static void make3(SpsaParam ps[3])
{
    ps[0] = param("A", 135, 0, 300, 10, 0.002);
    ps[1] = param("B", 3, 0, 12, 1, 0.002);
    ps[2] = param("C", 95, 20, 100, 10, 0.002);
}

/* *st replaced by what it reads back as after state.json's text. */
static void through_text(SpsaState *st)
{
    SpsaState st2;
    copy_through_text(st, &st2);
    spsa_free(st);
    *st = st2;
}

/* Runs `its` iterations with one batch in flight at a time (concurrency 1):
 * hand out, play, apply.  With stop_at >= 0 the state goes through the text
 * of state.json after stop_at iterations with that batch handed out and not
 * yet played (a run stopped mid-batch), and the batch is re-issued from the
 * state as `resume` does. */
static bool run_form_adapt; /* run_form with the per-parameter scale */
static double run_form_centre; /* run_form with centre batches: stops at the first at or after stop_at */

static void run_form(SpsaForm form, int its, int stop_at, SpsaState *st)
{
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_form(&cfg, form);
    cfg.adapt = run_form_adapt;
    cfg.centre = run_form_centre;
    cfg.average = 0.25;
    spsa_config_set_games(&cfg, 2 * (uint64_t)its);
    SpsaParam ps[3];
    make3(ps);
    init_ok(st, ps, 3, &cfg, 2024);
    bool stopped = false;
    for (int it = 0; it < its; it++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(st, &b), 1);
        if (!stopped && stop_at >= 0 && it >= stop_at && (b.centre || cfg.centre == 0)) {
            stopped = true;
            spsa_batch_free(&b);
            through_text(st);
            cr_assert_eq(st->ninflight, 1);
            cr_assert_eq(spsa_inflight_get(st, 0, &b), 0);
        }
        uint64_t w, l;
        outcome(&b, &w, &l);
        cr_assert_eq(spsa_batch_apply_wld(st, &b, w, l, 2 - w - l), 0);
        spsa_batch_free(&b);
    }
}

static void resume_is_exact(SpsaForm form)
{
    SpsaState a, b;
    run_form(form, 300, -1, &a);
    run_form(form, 300, 137, &b);
    cr_assert(spsa_done(&a) && spsa_done(&b));
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(memcmp(&a.params[i].theta, &b.params[i].theta, sizeof(double)), 0,
                     "%s: theta of %s %.17g vs %.17g", spsa_form_name(form), a.params[i].name,
                     a.params[i].theta, b.params[i].theta);
        cr_assert_eq(memcmp(&a.params[i].avg, &b.params[i].avg, sizeof(double)), 0);
        cr_assert_eq(memcmp(&a.params[i].m, &b.params[i].m, sizeof(double)), 0);
        cr_assert_eq(memcmp(&a.params[i].scale, &b.params[i].scale, sizeof(double)), 0);
        cr_assert_eq(memcmp(&a.params[i].e, &b.params[i].e, sizeof(double)), 0);
        cr_assert_eq(memcmp(&a.params[i].pm, &b.params[i].pm, sizeof(double)), 0);
        cr_assert_eq(memcmp(&a.params[i].cm, &b.params[i].cm, sizeof(double)), 0);
        cr_assert_eq(memcmp(&a.params[i].cq, &b.params[i].cq, sizeof(double)), 0);
    }
    cr_assert_eq(a.centre_count, b.centre_count);
    cr_assert_eq(memcmp(&a.v, &b.v, sizeof(double)), 0);
    cr_assert_eq(a.wins, b.wins);
    cr_assert_eq(a.losses, b.losses);
    cr_assert_eq(a.draws, b.draws);
    cr_assert_neq(a.params[0].theta, 135.0, "the run moved");
    spsa_free(&a);
    spsa_free(&b);
}

Test(spsa_forms, resume_continues_bit_for_bit_classic) { resume_is_exact(SPSA_FORM_CLASSIC); }
Test(spsa_forms, resume_continues_bit_for_bit_rms) { resume_is_exact(SPSA_FORM_RMS); }
Test(spsa_forms, resume_continues_bit_for_bit_adam) { resume_is_exact(SPSA_FORM_ADAM); }
Test(spsa_forms, resume_continues_bit_for_bit_settle) { resume_is_exact(SPSA_FORM_SETTLE); }

/* settle's state holds its form and its eta rule; a non-classic state from
 * before settle existed (no eta_base, eta_pow: "rms" with decay 1.2) resumes
 * with far's rule, which is the rule it ran with. */
Test(spsa_forms, state_records_the_schedule)
{
    SpsaState st, back;
    run_form(SPSA_FORM_SETTLE, 20, -1, &st);
    cJSON *j = spsa_state_to_json(&st);
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cr_assert_str_eq(cJSON_GetObjectItem(c, "form")->valuestring, "settle");
    cr_assert_not_null(cJSON_GetObjectItem(c, "eta_base"));
    cr_assert_not_null(cJSON_GetObjectItem(c, "eta_pow"));
    char err[256];
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.form, SPSA_FORM_SETTLE);
    cr_assert_eq(back.cfg.decay, SPSA_SETTLE_DECAY);
    cr_assert_eq(back.cfg.eta_base, SPSA_SETTLE_ETA);
    cr_assert_eq(back.cfg.eta_pow, SPSA_SETTLE_ETA_KPOW);
    cr_assert_eq(back.cfg.eta_npow, SPSA_SETTLE_ETA_NPOW);
    cr_assert_eq(spsa_eta(&back), spsa_eta(&st));
    spsa_free(&back);
    /* a settle state without eta_npow ran with (8 / n)^1 */
    cJSON_DeleteItemFromObject(c, "eta_npow");
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.eta_npow, 1.0);
    spsa_free(&back);
    cJSON_Delete(j);
    spsa_free(&st);

    run_form(SPSA_FORM_RMS, 20, -1, &st);
    j = spsa_state_to_json(&st);
    c = cJSON_GetObjectItem(j, "config");
    cr_assert_str_eq(cJSON_GetObjectItem(c, "form")->valuestring, "far");
    cJSON_DeleteItemFromObject(c, "eta_base");
    cJSON_DeleteItemFromObject(c, "eta_pow");
    cJSON_DeleteItemFromObject(c, "eta_npow");
    cJSON_ReplaceItemInObject(c, "form", cJSON_CreateString("rms"));
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.form, SPSA_FORM_RMS);
    cr_assert_eq(back.cfg.eta_base, SPSA_AUTO_ETA);
    cr_assert_eq(back.cfg.eta_pow, SPSA_AUTO_ETA_KPOW);
    cr_assert_eq(back.cfg.eta_npow, SPSA_AUTO_ETA_NPOW);
    cr_assert_eq(back.cfg.decay, 1.2);
    cr_assert_eq(spsa_eta(&back), spsa_auto_eta(back.cfg.iterations, back.nparams));
    spsa_free(&back);
    /* a bad eta_pow is refused, naming it */
    cJSON_AddNumberToObject(c, "eta_base", 0.03);
    cJSON_AddNumberToObject(c, "eta_npow", 1);
    cJSON_AddNumberToObject(c, "eta_pow", -1);
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "eta_pow"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&st);
}
Test(spsa_forms, resume_continues_bit_for_bit_with_the_scale)
{
    run_form_adapt = true;
    resume_is_exact(SPSA_FORM_RMS);
}

/* With centre batches, a run stopped while a centre batch is in flight and
 * resumed from the text of its state ends bit for bit as one never stopped;
 * the state is version 4 and holds the centre settings, and a state without
 * them (an older build's) goes on without centre batches. */
Test(spsa_forms, resume_continues_bit_for_bit_with_centre_batches)
{
    run_form_centre = 0.3;
    resume_is_exact(SPSA_FORM_RMS);
    SpsaState st, back;
    run_form(SPSA_FORM_RMS, 300, -1, &st);
    cr_assert_gt(st.centre_count, 50, "%" PRIu64 " centre batches of 300", st.centre_count);
    cr_assert_lt(st.centre_count, 130, "%" PRIu64 " centre batches of 300", st.centre_count);
    cJSON *j = spsa_state_to_json(&st);
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 4);
    char err[256];
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.centre, 0.3);
    cr_assert_eq(back.cfg.centre_elo, st.cfg.centre_elo);
    spsa_free(&back);
    /* version 4 without the settings, or the settings under version 2, are refused */
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(2));
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "version") && strstr(err, "centre"), "%s", err);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(4));
    cJSON_DeleteItemFromObject(c, "centre");
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "version") && strstr(err, "centre"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&st);
    /* without centre batches nothing of them is written, and the run draws
     * what it drew before they existed (the bit-for-bit tests above) */
    run_form_centre = 0;
    run_form(SPSA_FORM_RMS, 50, -1, &st);
    j = spsa_state_to_json(&st);
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 2);
    cr_assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "config"), "centre"));
    cr_assert_null(cJSON_GetObjectItem(j, "centre_count"));
    cJSON_Delete(j);
    spsa_free(&st);
}

Test(spsa_forms, state_records_the_form)
{
    SpsaState st;
    run_form(SPSA_FORM_ADAM, 20, -1, &st);
    cJSON *j = spsa_state_to_json(&st);
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 2);
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cr_assert_str_eq(cJSON_GetObjectItem(c, "form")->valuestring, "adam");
    SpsaState back;
    char err[256];
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.form, SPSA_FORM_ADAM);
    cr_assert_eq(back.cfg.beta1, st.cfg.beta1);
    cr_assert_eq(back.cfg.probe, st.cfg.probe);
    cr_assert_eq(back.v, st.v);
    cr_assert(back.cfg.narrow && st.cfg.narrow);
    spsa_free(&back);
    /* a state from before narrow existed goes on without it; a bad value is refused */
    cJSON_DeleteItemFromObject(c, "narrow");
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert(!back.cfg.narrow);
    spsa_free(&back);
    cJSON_AddNumberToObject(c, "narrow", 2);
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "narrow"), "%s", err);
    cJSON_ReplaceItemInObject(c, "narrow", cJSON_CreateTrue());

    /* a form's moments are required, and a version 1 file cannot hold a non-classic form */
    cJSON_DeleteItemFromObject(j, "v");
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "\"v\""), "%s", err);
    cJSON_AddNumberToObject(j, "v", 1.5);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(1));
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "version"), "%s", err);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(2));
    cJSON_ReplaceItemInObject(c, "form", cJSON_CreateString("lion"));
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "form"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&st);
}

/* A state written before the scale existed (no "adapt", no per-parameter
 * "scale" and "e") resumes without it, and goes on exactly as a run started
 * without it; a state with it keeps it; bad values are refused. */
Test(spsa_forms, a_state_without_the_scale_resumes_without_it)
{
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.adapt = false;
    SpsaParam ps[3];
    make3(ps);
    SpsaState a, b;
    init_ok(&a, ps, 3, &cfg, 11);
    init_ok(&b, ps, 3, &cfg, 11);
    for (int it = 0; it < 100; it++) {
        SpsaState *st;
        if (it == 60) {
            /* b goes through the text of an old state.json */
            cJSON *j = spsa_state_to_json(&b);
            cJSON *c = cJSON_GetObjectItem(j, "config");
            cr_assert_null(cJSON_GetObjectItem(c, "adapt"));
            cr_assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "params"), 0), "scale"));
            SpsaState back;
            char err[256];
            cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
            cr_assert(!back.cfg.adapt, "an old state resumes with its old form");
            cJSON_Delete(j);
            spsa_free(&b);
            b = back;
        }
        st = &b;
        SpsaBatch x, y;
        cr_assert_eq(spsa_batch_begin(&a, &x), 1);
        cr_assert_eq(spsa_batch_begin(st, &y), 1);
        uint64_t w, l;
        outcome(&x, &w, &l);
        cr_assert_eq(spsa_batch_apply_wld(&a, &x, w, l, 2 - w - l), 0);
        cr_assert_eq(spsa_batch_apply_wld(st, &y, w, l, 2 - w - l), 0);
        spsa_batch_free(&x);
        spsa_batch_free(&y);
    }
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(memcmp(&a.params[i].theta, &b.params[i].theta, sizeof(double)), 0);
    spsa_free(&a);
    spsa_free(&b);

    /* with the scale: kept, with its settings; bad values refused */
    cfg.adapt = true;
    cfg.adapt_rate = 2.5;
    init_ok(&a, ps, 3, &cfg, 11);
    SpsaBatch x;
    for (int it = 0; it < 30 && spsa_batch_begin(&a, &x) == 1; it++) {
        uint64_t w, l;
        outcome(&x, &w, &l);
        cr_assert_eq(spsa_batch_apply_wld(&a, &x, w, l, 2 - w - l), 0);
        spsa_batch_free(&x);
    }
    cJSON *j = spsa_state_to_json(&a);
    char err[256];
    cr_assert_eq(spsa_state_from_json(&b, j, err, sizeof err), 0, "%s", err);
    cr_assert(b.cfg.adapt);
    cr_assert_eq(b.cfg.adapt_rate, 2.5);
    /* version 3, so that a build without the scale refuses it rather than
     * resume it without */
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(b.params[i].scale, a.params[i].scale);
        cr_assert_eq(b.params[i].e, a.params[i].e);
    }
    spsa_free(&b);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(2));
    cr_assert_eq(spsa_state_from_json(&b, j, err, sizeof err), -1);
    cr_assert(strstr(err, "version") && strstr(err, "adapt"), "%s", err);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(3));
    cJSON *q = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "params"), 1);
    cJSON_ReplaceItemInObject(q, "scale", cJSON_CreateNumber(1e9));
    cr_assert_eq(spsa_state_from_json(&b, j, err, sizeof err), -1);
    cr_assert(strstr(err, "scale") && strstr(err, ps[1].name), "%s", err);
    cJSON_DeleteItemFromObject(q, "scale");
    cr_assert_eq(spsa_state_from_json(&b, j, err, sizeof err), -1);
    cr_assert(strstr(err, "scale"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&a);
}

Test(spsa_forms, a_state_without_a_form_loads_as_classic)
{
    /* What a build before forms wrote: version 1, no "form", no moments. */
    SpsaState st;
    run_form(SPSA_FORM_CLASSIC, 40, -1, &st);
    cJSON *j = spsa_state_to_json(&st);
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 1);
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cJSON_DeleteItemFromObject(c, "form");
    cr_assert_null(cJSON_GetObjectItem(c, "eta"));
    cr_assert_null(cJSON_GetObjectItem(j, "v"));
    SpsaState back;
    char err[256];
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.form, SPSA_FORM_CLASSIC);
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(back.params[i].theta, st.params[i].theta);
    cJSON_Delete(j);
    spsa_free(&back);
    spsa_free(&st);
}

Test(spsa_forms, old_run_directory_state_loads)
{
    /* A whole state.json as the build before forms wrote it (a 600-game run
     * of bin/ratchet at nodes=5000 by commit fe3c3c2): it loads, as the
     * classic form, and its values export as before. */
    RunState rs;
    runstate_init(&rs);
    char err[512] = "";
    cr_assert_eq(runstate_load(&rs, "tests/data/state_v1", err, sizeof err), 0, "%s", err);
    cr_assert_eq(rs.spsa.cfg.form, SPSA_FORM_CLASSIC);
    cr_assert_eq(rs.spsa.nparams, 8);
    cr_assert_eq(rs.spsa.completed, 300);
    cr_assert_str_eq(rs.spsa.params[2].name, "LmpBase");
    double v;
    cr_assert_eq(runstate_value(&rs, "LmpBase", &v, NULL), 0);
    cr_assert_eq(v, 213.0); /* theta 213.12773998637218 */
    runstate_free(&rs);
}

Test(spsa_forms, classic_is_unchanged)
{
    /* The classic form gives, bit for bit, what the build before forms gave
     * for the same sequence (two batches in flight, applied out of order;
     * printed with %a by that build's tuner/spsa/spsa.c, commit fe3c3c2). */
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 600);
    SpsaParam ps[3];
    make3(ps);
    SpsaState st;
    init_ok(&st, ps, 3, &cfg, 2024);
    for (int it = 0; it < 150; it++) {
        SpsaBatch a, b;
        uint64_t w, l;
        cr_assert_eq(spsa_batch_begin(&st, &a), 1);
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        outcome(&b, &w, &l);
        cr_assert_eq(spsa_batch_apply(&st, &b, w, l), 0);
        outcome(&a, &w, &l);
        cr_assert_eq(spsa_batch_apply(&st, &a, w, l), 0);
        spsa_batch_free(&a);
        spsa_batch_free(&b);
    }
    cr_assert_eq(st.params[0].theta, 0x1.0facec513d417p+7);
    cr_assert_eq(st.params[1].theta, 0x1.90fd8e66beaafp+1);
    cr_assert_eq(st.params[2].theta, 0x1.7a85fd585d895p+6);
    cr_assert_eq(st.wins, 290);
    cr_assert_eq(st.losses, 152);
    spsa_free(&st);
}

/* A centre batch is placed around the same point as the batch's probes
 * (probe_centre): with theta on a bound, engine 1 plays the point c_k inside
 * it and engine 0 that point + c_k flip, so a perturbation toward the bound
 * is not cut to nothing by it. */
Test(spsa_forms, centre_batches_use_the_probe_centre)
{
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.centre = 0.5;
    SpsaParam p = param("X", 0, 0, 100, 2, 0.002);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 5);
    int centres = 0, toward = 0;
    for (int i = 0; i < 100; i++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        if (b.centre) {
            double ck = b.c_k[0], mid = ck; /* theta 0 moved inside [ck, 100 - ck] */
            centres++;
            cr_assert_eq(b.minus_values[0], floor(mid + b.u[0]), "batch %d", i);
            if (b.mask[0]) {
                toward += b.flip[0] < 0;
                cr_assert_eq(b.plus_values[0], floor(mid + ck * b.flip[0] + b.u[0]),
                             "batch %d: flip %d, c_k %g", i, b.flip[0], ck);
                cr_assert_geq(fabs(b.plus_values[0] - b.minus_values[0]), floor(ck));
            } else
                cr_assert_eq(b.plus_values[0], b.minus_values[0]);
        }
        spsa_batch_free(&b);
    }
    cr_assert_gt(toward, 5, "%d centre batches perturbed toward the bound", toward);
    cr_assert_gt(centres, 30);
    spsa_free(&st);
}

/* The -spsa keys that conf accepts hold every key of the number table, so
 * a number key added to the table is accepted by run without a second
 * list to change. */
Test(spsa, every_number_key_is_an_spsa_key)
{
    for (const SpsaNumberKey *k = SPSA_NUMBER_KEYS; k->key; k++) {
        bool found = false;
        for (const char *const *s = SPSA_KEYS; *s && !found; s++)
            found = !strcmp(*s, k->key);
        cr_assert(found, "-spsa %s= is in SPSA_NUMBER_KEYS but not in SPSA_KEYS", k->key);
    }
}

/* simulate's probe-end: the probe factor goes from probe at k = 1 to
 * probe_end at k = N, geometrically (by hand, N = 100, gamma 0.5, c_end 2:
 * the classic c_k 20, 10 at k = 4, 2 at k = 100; probe 4 -> 1: at k = 4 the
 * factor is 4 * (1/4)^(3/99)). */
Test(spsa, the_probe_narrows_to_probe_end_over_the_run)
{
    SpsaConfig cfg = round_config();
    spsa_config_set_form(&cfg, SPSA_FORM_SETTLE);
    cfg.alpha = 1;
    cfg.gamma = 0.5;
    spsa_config_set_games(&cfg, 200);
    cfg.probe = 4;
    cfg.probe_end = 1;
    cfg.narrow = false;
    SpsaParam p = param("X", 50, -10000, 10000, 2, 0.01);
    SpsaState st;
    init_ok(&st, &p, 1, &cfg, 1);
    assert_close(spsa_c_k(&st, 0, 1), 4 * 20.0, EPS);
    assert_close(spsa_c_k(&st, 0, 4), 4 * pow(0.25, 3.0 / 99) * 10.0, EPS);
    assert_close(spsa_c_k(&st, 0, 100), 1 * 2.0, EPS);
    spsa_free(&st);
    cfg.probe_end = 0; /* off: probe throughout */
    init_ok(&st, &p, 1, &cfg, 1);
    assert_close(spsa_c_k(&st, 0, 100), 4 * 2.0, EPS);
    spsa_free(&st);
    cfg.probe_end = 0.5;
    char err[256] = "";
    cr_expect_eq(spsa_init(&st, &p, 1, &cfg, 1, err, sizeof err), -1);
    cr_expect(strstr(err, "probe_end 0 or in [1, 100]"), "%s", err);
}
