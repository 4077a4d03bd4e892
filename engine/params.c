/* The faces of the parameter list params.def: storage, validation, UCI
 * options, JSON spec and SPSA lines.  Each is one expansion of PARAM. */
#include "params.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "errmsg.h"

/* Defaults must lie in their ranges: checked at compile time. */
#define PARAM(name, def, lo, hi, c_end, r_end, desc) \
    _Static_assert((lo) <= (def) && (def) <= (hi), #name ": default outside [min, max]");
#include "params.def"
#undef PARAM

#ifndef PARAMS_BAKED
#define PARAM(name, def, lo, hi, c_end, r_end, desc) int name = def;
#include "params.def"
#undef PARAM

static int *const slots[PARAM_COUNT] = {
#define PARAM(name, def, lo, hi, c_end, r_end, desc) &name,
#include "params.def"
#undef PARAM
};
#endif

const ParamSpec param_specs[PARAM_COUNT] = {
#define PARAM(name, def, lo, hi, c_end, r_end, desc) {#name, desc, def, lo, hi, c_end, r_end},
#include "params.def"
#undef PARAM
};

int params_lmr_table[2][LMR_DIM][LMR_DIM];
int params_lmp_table[2][LMP_DIM];

static void tables_init(void)
{
    for (int d = 1; d < LMR_DIM; d++)
        for (int m = 1; m < LMR_DIM; m++) {
            double lnlm = log(d) * log(m);
            params_lmr_table[0][d][m] = LmrQuietBase + (int)(10000.0 * lnlm / LmrQuietDivisor);
            params_lmr_table[1][d][m] = LmrNoisyBase + (int)(10000.0 * lnlm / LmrNoisyDivisor);
        }
    for (int d = 0; d < LMP_DIM; d++) {
        params_lmp_table[0][d] = (LmpBase + LmpScale * d * d) / 100;
        params_lmp_table[1][d] = (LmpImprovingBase + LmpImprovingScale * d * d) / 100;
    }
}

void params_init(void) { tables_init(); }

#ifdef PARAMS_BAKED
bool params_baked(void) { return true; }
const char *params_baked_tag(void) { return PARAMS_BAKED_TAG; }
int param_get(int i)
{
    static const int values[PARAM_COUNT] = {
#define PARAM(name, def, lo, hi, c_end, r_end, desc) name,
#include "params.def"
#undef PARAM
    };
    return values[i];
}
#else
bool params_baked(void) { return false; }
const char *params_baked_tag(void) { return NULL; }
int param_get(int i) { return *slots[i]; }
#endif

int param_index(const char *name)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        if (strcasecmp(name, param_specs[i].name) == 0)
            return i;
    return -1;
}

void param_group(int i, char *buf, size_t len)
{
    const char *n = param_specs[i].name;
    size_t k = 1;
    while (n[k] && !isupper((unsigned char)n[k]))
        k++;
    if (len == 0)
        return;
    if (k >= len)
        k = len - 1;
    memcpy(buf, n, k);
    buf[k] = '\0';
}

int param_check(int i, long value, char *err, size_t errlen)
{
    const ParamSpec *ps = &param_specs[i];
    if (value < ps->min || value > ps->max)
        return errmsg(err, errlen, "%s: value %ld outside [%d, %d]", ps->name, value, ps->min, ps->max);
    return 0;
}

#ifdef PARAMS_BAKED
static int refuse_baked(int i, char *err, size_t errlen)
{
    return errmsg(err, errlen, "%s: parameters are baked into this build (%s); rebuild without PARAMS to change them",
                  i >= 0 ? param_specs[i].name : "parameters", PARAMS_BAKED_TAG);
}
#endif

int param_set(int i, long value, char *err, size_t errlen)
{
    if (i < 0 || i >= PARAM_COUNT)
        return errmsg(err, errlen, "no parameter with index %d", i);
#ifdef PARAMS_BAKED
    (void)value;
    return refuse_baked(i, err, errlen);
#else
    if (param_check(i, value, err, errlen) != 0)
        return -1;
    *slots[i] = (int)value;
    tables_init();
    return 0;
#endif
}

int params_set_all(const int *values, char *err, size_t errlen)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        if (param_check(i, values[i], err, errlen) != 0)
            return -1;
#ifdef PARAMS_BAKED
    return refuse_baked(-1, err, errlen);
#else
    for (int i = 0; i < PARAM_COUNT; i++)
        *slots[i] = values[i];
    tables_init();
    return 0;
#endif
}

void params_reset(void)
{
#ifndef PARAMS_BAKED
    for (int i = 0; i < PARAM_COUNT; i++)
        *slots[i] = param_specs[i].def;
    tables_init();
#endif
}

void params_print_uci(FILE *out)
{
    if (params_baked())
        return;
    for (int i = 0; i < PARAM_COUNT; i++) {
        const ParamSpec *ps = &param_specs[i];
        fprintf(out, "option name %s type spin default %d min %d max %d\n", ps->name, param_get(i), ps->min,
                ps->max);
    }
}

char *params_spec_json(void)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "engine", "ratchet");
    cJSON_AddBoolToObject(root, "baked", params_baked());
    if (params_baked())
        cJSON_AddStringToObject(root, "baked_tag", params_baked_tag());
    cJSON *list = cJSON_AddArrayToObject(root, "params");
    for (int i = 0; list && i < PARAM_COUNT; i++) {
        const ParamSpec *ps = &param_specs[i];
        char group[32];
        param_group(i, group, sizeof group);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "name", ps->name);
        cJSON_AddNumberToObject(o, "value", param_get(i));
        cJSON_AddNumberToObject(o, "default", ps->def);
        cJSON_AddNumberToObject(o, "min", ps->min);
        cJSON_AddNumberToObject(o, "max", ps->max);
        cJSON_AddNumberToObject(o, "c_end", ps->c_end);
        cJSON_AddNumberToObject(o, "r_end", ps->r_end);
        cJSON_AddStringToObject(o, "group", group);
        cJSON_AddStringToObject(o, "description", ps->desc);
        cJSON_AddItemToArray(list, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return NULL;
    /* Hand back memory the caller can free() whatever cJSON's allocator. */
    char *copy = strdup(text);
    cJSON_free(text);
    return copy;
}

void params_print_spsa(FILE *out)
{
    for (int i = 0; i < PARAM_COUNT; i++) {
        const ParamSpec *ps = &param_specs[i];
        fprintf(out, "%s, int, %d, %d, %d, %g, %g\n", ps->name, param_get(i), ps->min, ps->max, ps->c_end,
                ps->r_end);
    }
}
