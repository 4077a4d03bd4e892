/* SPSA with OpenBench `float` parameters (tuner/spsa/spsa.c): no rounding, no
 * c_k clamp, the type kept across a save and a resume, and states written
 * before floats existed still read as integers. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spsa.h"
#include "spsa_state_json.h"

static SpsaParam fparam(const char *name, double value, double min, double max, double c_end, bool is_float)
{
    SpsaParam p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.theta = p.start = value;
    p.min = min;
    p.max = max;
    p.c_end = c_end;
    p.r_end = 0.002;
    p.is_float = is_float;
    return p;
}

static void init_ok(SpsaState *st, const SpsaParam *ps, size_t n, uint64_t games)
{
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, games);
    char err[256] = "";
    cr_assert_eq(spsa_init(st, ps, n, &cfg, 5, err, sizeof err), 0, "spsa_init: %s", err);
}

Test(spsafloat, values_are_not_rounded_and_c_k_is_not_clamped)
{
    /* c_end 0.05 is far below the integer clamp of 0.5. */
    SpsaParam ps[2] = { fparam("Scale", 0.8, 0.25, 1.5, 0.05, true), fparam("Depth", 3, 0, 12, 0.05, false) };
    SpsaState st;
    init_ok(&st, ps, 2, 2000);
    int fractional = 0;
    for (int i = 0; i < 1000; i++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        double theta = st.params[0].theta;
        cr_assert_eq(b.plus_values[0], theta + b.c_k[0] * b.flip[0], "the float plays theta + c_k * flip exactly");
        cr_assert_eq(b.minus_values[0], theta - b.c_k[0] * b.flip[0]);
        cr_assert_lt(b.c_k[0], 0.5);
        cr_assert_geq(b.c_k[1], 0.5, "the integer parameter keeps its clamp");
        cr_assert_eq(b.plus_values[1], floor(b.plus_values[1]));
        fractional += b.plus_values[0] != floor(b.plus_values[0]);
        cr_assert_eq(spsa_batch_apply(&st, &b, i % 3 == 0, i % 3 == 1), 0);
        spsa_batch_free(&b);
    }
    cr_assert_eq(fractional, 1000);
    double v = spsa_value(&st, 0);
    cr_assert_eq(v, st.params[0].theta, "the estimate of a float is theta itself");
    cr_assert_neq(v, floor(v));
    cr_assert_eq(spsa_value(&st, 1), floor(st.params[1].theta + 0.5), "an integer's estimate is rounded");
    spsa_free(&st);
}

Test(spsafloat, type_survives_json_and_old_states_are_integers)
{
    SpsaParam ps[2] = { fparam("Slow Mover", 0.8, 0, 2, 0.05, true), fparam("Skill Level", 5, 0, 20, 1, false) };
    SpsaState st;
    init_ok(&st, ps, 2, 200);
    SpsaBatch b;
    cr_assert_eq(spsa_batch_begin(&st, &b), 1);
    cJSON *j = spsa_state_to_json(&st);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    j = cJSON_Parse(text);
    free(text);
    SpsaState back;
    char err[256] = "";
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert(back.params[0].is_float);
    cr_assert(!back.params[1].is_float);
    cr_assert_str_eq(back.params[0].name, "Slow Mover");
    SpsaBatch again;
    cr_assert_eq(spsa_inflight_get(&back, 0, &again), 0);
    cr_assert_eq(again.plus_values[0], b.plus_values[0], "the float value in flight is exact");
    cr_assert_eq(again.minus_values[0], b.minus_values[0]);
    spsa_batch_free(&again);
    spsa_free(&back);

    /* A state from before float parameters: no "type" means an integer, so a
     * fractional value in flight for it is refused. */
    cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "params"), 0);
    cJSON_DeleteItemFromObjectCaseSensitive(p0, "type");
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), -1);
    cr_assert(strstr(err, "must be integers"), "%s", err);
    cJSON *plus = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "inflight"), 0), "plus");
    cJSON *minus = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "inflight"), 0), "minus");
    cJSON_ReplaceItemInArray(plus, 0, cJSON_CreateNumber(1));
    cJSON_ReplaceItemInArray(minus, 0, cJSON_CreateNumber(0));
    cr_assert_eq(spsa_state_from_json(&back, j, err, sizeof err), 0, "%s", err);
    cr_assert(!back.params[0].is_float);
    spsa_free(&back);
    cJSON_Delete(j);
    spsa_batch_free(&b);
    spsa_free(&st);
}

Test(spsafloat, fractional_bounds_only_for_floats)
{
    SpsaParam p = fparam("X", 0.5, 0.25, 0.75, 0.1, false);
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 10);
    SpsaState st;
    char err[256];
    cr_assert_eq(spsa_init(&st, &p, 1, &cfg, 1, err, sizeof err), -1);
    cr_assert(strstr(err, "integers"), "%s", err);
    p.is_float = true;
    cr_assert_eq(spsa_init(&st, &p, 1, &cfg, 1, err, sizeof err), 0, "%s", err);
    spsa_free(&st);
}
