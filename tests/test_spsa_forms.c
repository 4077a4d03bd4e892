/* The SPSA forms of tuner/spsa.c beyond the classic one (rms, adam): their
 * gains and updates against hand computations, the probe kept inside the
 * bounds, the gains from the budget, state.json round trips and resumes that
 * continue bit for bit, old state files, and the classic form unchanged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runstate.h"
#include "spsa.h"

static SpsaParam param(const char *name, double value, double min, double max, double c_end)
{
    SpsaParam p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.theta = p.start = value;
    p.min = min;
    p.max = max;
    p.c_end = c_end;
    p.r_end = 0.002;
    return p;
}

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

static void init_ok(SpsaState *st, const SpsaParam *ps, size_t n, const SpsaConfig *cfg,
                    uint64_t seed)
{
    char err[256] = "";
    cr_assert_eq(spsa_init(st, ps, n, cfg, seed, err, sizeof err), 0, "spsa_init: %s", err);
}

#define assert_close(a, b, tol)                                                              \
    cr_assert(fabs((a) - (b)) <= (tol) * fmax(1.0, fabs(b)), "%s = %.17g, expected %.17g", #a, \
              (double)(a), (double)(b))

Test(spsa_forms, names)
{
    SpsaForm f;
    cr_assert_eq(spsa_form_parse("classic", &f), 0);
    cr_assert_eq(f, SPSA_FORM_CLASSIC);
    cr_assert_eq(spsa_form_parse("rms", &f), 0);
    cr_assert_eq(f, SPSA_FORM_RMS);
    cr_assert_eq(spsa_form_parse("adam", &f), 0);
    cr_assert_eq(f, SPSA_FORM_ADAM);
    cr_assert_eq(spsa_form_parse("Adam", &f), -1);
    cr_assert_str_eq(spsa_form_name(SPSA_FORM_RMS), "rms");
    SpsaConfig c;
    spsa_config_default(&c);
    cr_assert_eq(c.form, SPSA_FORM_CLASSIC, "the pure-math default stays the classic form");
}

/* By hand (form_config, theta 50 in [0, 100], c_end 2):
 *   classic c = 2 * 100^0.5 = 20; probe 2: c_1 = 2 * 20 / 1 = 40,
 *   c_2 = 40 / sqrt(2) = 28.284271247461902
 *   eta_k = 0.05 * ((10 + 100) / (10 + k))^1: eta_1 = 0.5, eta_2 = 0.45833333333333337
 * rms, results r = W - L of +2 then -1:
 *   v = 1 (prior); batch 1: weight 1/2, v = 1 + (4 - 1) / 2 = 2.5
 *     step = 0.5 * 2 * 2 * flip_1 / sqrt(2.5) = 1.2649110640673518 flip_1
 *   batch 2: weight 1/3, v = 2.5 + (1 - 2.5) / 3 = 2
 *     step = 0.45833333333333337 * 2 * (-1) * flip_2 / sqrt(2) = -0.64818121608766 flip_2
 * adam with beta1 = 0.5: m_1 = 0.5 * 2 flip_1 = flip_1, step 0.5 * 2 * flip_1 / sqrt(2.5)
 *   = 0.63245553203367588 flip_1; m_2 = 0.5 flip_1 - 0.5 flip_2,
 *   step 0.45833333333333337 * 2 * m_2 / sqrt(2) = 0.64818121608766 m_2 */
static void two_batches(SpsaForm form, double beta1, double expect[2][2])
{
    SpsaConfig cfg = form_config(form);
    cfg.beta1 = beta1;
    SpsaParam p = param("X", 50, 0, 100, 2);
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
    /* second step: 0.64818121608766 * (0.5 flip_1 - 0.5 flip_2) */
    double e[2][2] = {{0.63245553203367588, 0}, {-0.32409060804383, 0.32409060804383}};
    two_batches(SPSA_FORM_ADAM, 0.5, e);
}

Test(spsa_forms, second_moment_window)
{
    /* beta2 = 0.75: weights 1/2, 1/3, 1/4, then 1 - beta2 = 1/4 from there on.
     * Results 2, 0, 0, 0, 2 (r^2 = 4, 0, 0, 0, 4):
     *   v: 1 -> 2.5 -> 2.5 * 2/3 = 1.6666667 -> 1.25 -> 0.9375 -> 0.9375 + (4 - 0.9375) / 4 = 1.703125 */
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
    cfg.beta2 = 0.75;
    SpsaParam p = param("X", 50, 0, 100, 2);
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
    SpsaParam p = param("X", 5, 0, 100, 2);
    SpsaConfig cfg = form_config(SPSA_FORM_RMS);
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
            cr_assert_eq(abs(b.plus_values[0] - b.minus_values[0]), 80, "not cut short by the bound");
        }
        /* the side that plays the lower value wins: theta is pushed down */
        cr_assert_eq(spsa_batch_apply_wld(&st, &b, b.flip[0] < 0 ? 2 : 0, b.flip[0] < 0 ? 0 : 2, 0), 0);
        cr_assert_geq(st.params[0].theta, 0.0);
        spsa_batch_free(&b);
    }
    cr_assert_eq(st.params[0].theta, 0.0, "theta rests on the bound");
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
    SpsaParam ps[2] = {param("X", 50, 0, 100, 2), param("Y", 50, 0, 100, 2)};
    SpsaState st;
    init_ok(&st, ps, 2, &cfg, 1);
    double eta = 0.025 * 4 * sqrt(50.0); /* N = 100, n = 2 */
    assert_close(spsa_eta(&st), eta, 1e-14);
    assert_close(spsa_eta_k(&st, 100), eta, 1e-14);
    assert_close(spsa_eta_k(&st, 1), eta * 110.0 / 11.0, 1e-14);
    assert_close(spsa_R_k(&st, 0, 100), eta, 1e-14);
    assert_close(spsa_c_k(&st, 0, 100), 4.0, 1e-14); /* probe 2 * c_end 2 */
    /* extending recomputes the budget's eta: N' = 400 */
    char err[256];
    cr_assert_eq(spsa_extend(&st, 800, err, sizeof err), 0, "%s", err);
    assert_close(spsa_eta_k(&st, 400), 0.025 * 4 * sqrt(12.5), 1e-14);
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
    ps[0] = param("A", 135, 0, 300, 10);
    ps[1] = param("B", 3, 0, 12, 1);
    ps[2] = param("C", 95, 20, 100, 10);
}

/* The state after printing it as state.json would hold it and reading it back. */
static void through_text(SpsaState *st)
{
    cJSON *j = spsa_to_json(st);
    cr_assert_not_null(j);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    cJSON *back = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(back);
    SpsaState st2;
    char err[256] = "";
    cr_assert_eq(spsa_from_json(&st2, back, err, sizeof err), 0, "%s", err);
    cJSON_Delete(back);
    spsa_free(st);
    *st = st2;
}

/* Runs `its` iterations with one batch in flight at a time (concurrency 1):
 * hand out, play, apply.  With stop_at >= 0 the state goes through the text
 * of state.json after stop_at iterations with that batch handed out and not
 * yet played (a run stopped mid-batch), and the batch is re-issued from the
 * state as `resume` does. */
static void run_form(SpsaForm form, int its, int stop_at, SpsaState *st)
{
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    cfg.form = form;
    cfg.average = 0.25;
    spsa_config_set_games(&cfg, 2 * (uint64_t)its);
    SpsaParam ps[3];
    make3(ps);
    init_ok(st, ps, 3, &cfg, 2024);
    for (int it = 0; it < its; it++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(st, &b), 1);
        if (it == stop_at) {
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
    }
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

Test(spsa_forms, state_records_the_form)
{
    SpsaState st;
    run_form(SPSA_FORM_ADAM, 20, -1, &st);
    cJSON *j = spsa_to_json(&st);
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 2);
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cr_assert_str_eq(cJSON_GetObjectItem(c, "form")->valuestring, "adam");
    SpsaState back;
    char err[256];
    cr_assert_eq(spsa_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.cfg.form, SPSA_FORM_ADAM);
    cr_assert_eq(back.cfg.beta1, st.cfg.beta1);
    cr_assert_eq(back.cfg.probe, st.cfg.probe);
    cr_assert_eq(back.v, st.v);
    spsa_free(&back);

    /* a form's moments are required, and a version 1 file cannot hold a non-classic form */
    cJSON_DeleteItemFromObject(j, "v");
    cr_assert_eq(spsa_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "\"v\""), "%s", err);
    cJSON_AddNumberToObject(j, "v", 1.5);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(1));
    cr_assert_eq(spsa_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "version"), "%s", err);
    cJSON_ReplaceItemInObject(j, "version", cJSON_CreateNumber(2));
    cJSON_ReplaceItemInObject(c, "form", cJSON_CreateString("lion"));
    cr_assert_eq(spsa_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "form"), "%s", err);
    cJSON_Delete(j);
    spsa_free(&st);
}

Test(spsa_forms, a_state_without_a_form_loads_as_classic)
{
    /* What a build before forms wrote: version 1, no "form", no moments. */
    SpsaState st;
    run_form(SPSA_FORM_CLASSIC, 40, -1, &st);
    cJSON *j = spsa_to_json(&st);
    cr_assert_eq(cJSON_GetObjectItem(j, "version")->valuedouble, 1);
    cJSON *c = cJSON_GetObjectItem(j, "config");
    cJSON_DeleteItemFromObject(c, "form");
    cr_assert_null(cJSON_GetObjectItem(c, "eta"));
    cr_assert_null(cJSON_GetObjectItem(j, "v"));
    SpsaState back;
    char err[256];
    cr_assert_eq(spsa_from_json(&back, j, err, sizeof err), 0, "%s", err);
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
    int v;
    cr_assert_eq(runstate_value(&rs, "LmpBase", &v), 0);
    cr_assert_eq(v, 213); /* theta 213.12773998637218 */
    runstate_free(&rs);
}

Test(spsa_forms, classic_is_unchanged)
{
    /* The classic form gives, bit for bit, what the build before forms gave
     * for the same sequence (two batches in flight, applied out of order;
     * printed with %a by that build's tuner/spsa.c, commit fe3c3c2). */
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
