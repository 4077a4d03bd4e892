/* The SPSA state as JSON; see spsa_state_json.h. */
#include "spsa_state_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"

/* Version 1: the classic form (the only one before forms existed; a file
 * without "form" is classic).  Version 2: any other form, so that a build
 * that knows only the classic form refuses it instead of resuming it wrongly. */
#define SPSA_JSON_VERSION 1
#define SPSA_JSON_VERSION_FORMS 2
/* Version 3: a non-classic form with the per-parameter scale, which a build
 * without the scale would resume without it. */
#define SPSA_JSON_VERSION_SCALE 3
/* Version 4: a non-classic form with centre batches (with or without the
 * scale), which a build without them would resume without them. */
#define SPSA_JSON_VERSION_CENTRE 4

static int json_version(const SpsaConfig *c)
{
    if (c->form == SPSA_FORM_CLASSIC)
        return SPSA_JSON_VERSION;
    if (c->centre > 0)
        return SPSA_JSON_VERSION_CENTRE;
    return c->adapt ? SPSA_JSON_VERSION_SCALE : SPSA_JSON_VERSION_FORMS;
}

/* A double as a JSON number that reads back to exactly the same double:
 * cJSON's own printer compares with a tolerance and may drop the last bit,
 * so the shortest of %.15g/%.16g/%.17g that round-trips is emitted raw. */
static cJSON *exact_number(double d)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return cJSON_CreateRaw(buf);
}

static cJSON *add_num(cJSON *o, const char *key, double d)
{
    cJSON *v = exact_number(d);
    if (v && !cJSON_AddItemToObject(o, key, v)) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

static cJSON *add_u64(cJSON *o, const char *key, uint64_t v)
{
    /* cJSON numbers are doubles: exact up to 2^53, far above any game count. */
    return cJSON_AddNumberToObject(o, key, (double)v);
}

static cJSON *num_array(const double *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = exact_number(v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *int_array(const int *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = cJSON_CreateNumber(v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *batch_to_json(const SpsaBatch *b)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = add_u64(o, "k", b->k) &&
              cJSON_AddItemToObject(o, "c_k", num_array(b->c_k, b->nparams)) &&
              cJSON_AddItemToObject(o, "R_k", num_array(b->R_k, b->nparams)) &&
              cJSON_AddItemToObject(o, "flip", int_array(b->flip, b->nparams)) &&
              cJSON_AddItemToObject(o, "u", num_array(b->u, b->nparams)) &&
              cJSON_AddItemToObject(o, "plus", num_array(b->plus_values, b->nparams)) &&
              cJSON_AddItemToObject(o, "minus", num_array(b->minus_values, b->nparams)) &&
              (!b->centre || (cJSON_AddBoolToObject(o, "centre", true) &&
                              cJSON_AddItemToObject(o, "mask", int_array(b->mask, b->nparams))));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static char *rng_to_hex(const gsl_rng *r)
{
    const unsigned char *bytes = gsl_rng_state(r);
    size_t n = gsl_rng_size(r);
    char *hex = malloc(2 * n + 1);
    if (!hex)
        return NULL;
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[bytes[i] >> 4];
        hex[2 * i + 1] = digits[bytes[i] & 15];
    }
    hex[2 * n] = '\0';
    return hex;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int rng_from_hex(gsl_rng *r, const char *hex)
{
    size_t n = gsl_rng_size(r);
    if (strlen(hex) != 2 * n)
        return -1;
    unsigned char *bytes = gsl_rng_state(r);
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        bytes[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

cJSON *spsa_state_to_json(const SpsaState *st)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool classic = st->cfg.form == SPSA_FORM_CLASSIC;
    bool ok = cJSON_AddNumberToObject(o, "version", json_version(&st->cfg)) != NULL;
    bool centre = spsa_centre_on(st);

    cJSON *cfg = cJSON_AddObjectToObject(o, "config");
    ok = ok && cfg && add_u64(cfg, "games", st->cfg.games) &&
         add_u64(cfg, "iterations", st->cfg.iterations) &&
         cJSON_AddNumberToObject(cfg, "pairs_per", st->cfg.pairs_per) &&
         add_num(cfg, "A_ratio", st->cfg.A_ratio) &&
         add_num(cfg, "alpha", st->cfg.alpha) &&
         add_num(cfg, "gamma", st->cfg.gamma) &&
         add_num(cfg, "average", st->cfg.average) &&
         cJSON_AddStringToObject(cfg, "form", spsa_form_name(st->cfg.form));
    if (ok && !classic)
        ok = add_num(cfg, "eta", st->cfg.eta) && add_num(cfg, "decay", st->cfg.decay) &&
             add_num(cfg, "beta1", st->cfg.beta1) && add_num(cfg, "beta2", st->cfg.beta2) &&
             add_num(cfg, "probe", st->cfg.probe) &&
             cJSON_AddBoolToObject(cfg, "narrow", st->cfg.narrow) &&
             add_num(cfg, "eta_base", st->cfg.eta_base) && add_num(cfg, "eta_pow", st->cfg.eta_pow) &&
             add_num(cfg, "eta_npow", st->cfg.eta_npow);
    if (ok && st->cfg.form == SPSA_FORM_ADAM)
        ok = cJSON_AddBoolToObject(cfg, "unbiased", st->cfg.unbiased) != NULL;
    if (ok && !classic && st->cfg.adapt)
        ok = cJSON_AddBoolToObject(cfg, "adapt", true) &&
             add_num(cfg, "adapt_rate", st->cfg.adapt_rate) &&
             add_num(cfg, "adapt_bias", st->cfg.adapt_bias) &&
             add_num(cfg, "adapt_window", st->cfg.adapt_window) &&
             add_num(cfg, "scale_min", st->cfg.scale_min) &&
             add_num(cfg, "scale_max", st->cfg.scale_max) &&
             add_num(cfg, "scale_start", st->cfg.scale_start);
    if (ok && centre)
        ok = add_num(cfg, "centre", st->cfg.centre) &&
             add_num(cfg, "centre_elo", st->cfg.centre_elo) &&
             add_num(cfg, "centre_rate", st->cfg.centre_rate) &&
             add_num(cfg, "centre_window", st->cfg.centre_window) &&
             add_num(cfg, "centre_min", st->cfg.centre_min);

    cJSON *params = cJSON_AddArrayToObject(o, "params");
    ok = ok && params;
    for (size_t i = 0; ok && i < st->nparams; i++) {
        const SpsaParam *p = &st->params[i];
        cJSON *q = cJSON_CreateObject();
        ok = q && cJSON_AddItemToArray(params, q) &&
             cJSON_AddStringToObject(q, "name", p->name) &&
             add_num(q, "start", p->start) &&
             add_num(q, "theta", p->theta) &&
             add_num(q, "min", p->min) &&
             add_num(q, "max", p->max) &&
             add_num(q, "c_end", p->c_end) &&
             add_num(q, "r_end", p->r_end) &&
             add_num(q, "avg", p->avg) &&
             (!p->is_float || cJSON_AddStringToObject(q, "type", "float")) &&
             (classic || add_num(q, "m", p->m)) &&
             (classic || !st->cfg.adapt ||
              (add_num(q, "scale", p->scale) && add_num(q, "e", p->e))) &&
             (!centre || (add_num(q, "pm", p->pm) && add_num(q, "cm", p->cm) &&
                          add_num(q, "cq", p->cq)));
        if (!q)
            ok = false;
    }

    ok = ok && add_u64(o, "k", st->k) && add_u64(o, "completed", st->completed) &&
         add_u64(o, "wins", st->wins) && add_u64(o, "losses", st->losses) &&
         add_u64(o, "draws", st->draws) && add_u64(o, "avg_count", st->avg_count) &&
         (classic || add_num(o, "v", st->v)) &&
         (!centre || add_u64(o, "centre_count", st->centre_count));

    if (ok) {
        cJSON *rng = cJSON_AddObjectToObject(o, "rng");
        char *hex = rng_to_hex(st->rng);
        ok = rng && hex && cJSON_AddStringToObject(rng, "type", gsl_rng_name(st->rng)) &&
             cJSON_AddStringToObject(rng, "state", hex);
        free(hex);
    }

    cJSON *inflight = ok ? cJSON_AddArrayToObject(o, "inflight") : NULL;
    ok = ok && inflight;
    for (size_t i = 0; ok && i < st->ninflight; i++) {
        cJSON *b = batch_to_json(&st->inflight[i]);
        ok = b && cJSON_AddItemToArray(inflight, b);
        if (!b)
            ok = false;
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A number item, or a raw item holding a number (as spsa_state_to_json makes
 * them, before the object is printed and parsed again). */
static bool item_number(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    if (cJSON_IsRaw(v) && v->valuestring) {
        char *end;
        double d = strtod(v->valuestring, &end);
        if (end != v->valuestring && !*end && isfinite(d)) {
            *out = d;
            return true;
        }
    }
    return false;
}

/* Readers that name the field they fail on. */
static int get_num(const cJSON *o, const char *key, const char *where, double *out,
                   char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!item_number(v, out)) {
        errmsg(err, errlen, "spsa state: %s%s\"%s\" missing or not a number", where,
               *where ? " " : "", key);
        return -1;
    }
    return 0;
}

static int get_u64(const cJSON *o, const char *key, const char *where, uint64_t *out,
                   char *err, size_t errlen)
{
    double d;
    if (get_num(o, key, where, &d, err, errlen))
        return -1;
    if (!json_u64_of(d, out)) {
        errmsg(err, errlen, "spsa state: %s%s\"%s\" must be a non-negative integer", where,
               *where ? " " : "", key);
        return -1;
    }
    return 0;
}

static int get_num_array(const cJSON *o, const char *key, const char *where, size_t n,
                         double *out, bool want_int, char *err, size_t errlen)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != n) {
        errmsg(err, errlen, "spsa state: %s \"%s\" must be an array of %zu numbers", where,
               key, n);
        return -1;
    }
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        double d;
        if (!item_number(v, &d) || (want_int && !spsa_is_integer(d))) {
            errmsg(err, errlen, "spsa state: %s \"%s\"[%zu] is not a%s number", where, key, i,
                   want_int ? "n integer" : "");
            return -1;
        }
        out[i++] = d;
    }
    return 0;
}

static int batch_from_json(SpsaBatch *b, const cJSON *o, const SpsaParam *params, size_t n, size_t idx,
                           bool centre_ok, char *err, size_t errlen)
{
    char where[48];
    snprintf(where, sizeof where, "inflight[%zu]", idx);
    if (!cJSON_IsObject(o)) {
        errmsg(err, errlen, "spsa state: %s is not an object", where);
        return -1;
    }
    double *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp || spsa_batch_alloc(b, n)) {
        free(tmp);
        errmsg(err, errlen, "spsa state: out of memory");
        return -1;
    }
    int rc = -1;
    if (get_u64(o, "k", where, &b->k, err, errlen) ||
        get_num_array(o, "c_k", where, n, b->c_k, false, err, errlen) ||
        get_num_array(o, "R_k", where, n, b->R_k, false, err, errlen) ||
        get_num_array(o, "u", where, n, b->u, false, err, errlen))
        goto out;
    if (get_num_array(o, "flip", where, n, tmp, true, err, errlen))
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (tmp[i] != 1 && tmp[i] != -1) {
            errmsg(err, errlen, "spsa state: %s \"flip\"[%zu] must be 1 or -1", where, i);
            goto out;
        }
        b->flip[i] = (int)tmp[i];
    }
    if (get_num_array(o, "plus", where, n, b->plus_values, false, err, errlen) ||
        get_num_array(o, "minus", where, n, b->minus_values, false, err, errlen))
        goto out;
    const cJSON *centre = cJSON_GetObjectItemCaseSensitive(o, "centre");
    if (centre && !cJSON_IsBool(centre)) {
        errmsg(err, errlen, "spsa state: %s \"centre\" must be true or false", where);
        goto out;
    }
    b->centre = cJSON_IsTrue(centre);
    if (b->centre && !centre_ok) {
        errmsg(err, errlen, "spsa state: %s is a centre batch in a run without centre batches",
               where);
        goto out;
    }
    if (b->centre) {
        if (get_num_array(o, "mask", where, n, tmp, true, err, errlen))
            goto out;
        for (size_t i = 0; i < n; i++) {
            if (tmp[i] != 0 && tmp[i] != 1) {
                errmsg(err, errlen, "spsa state: %s \"mask\"[%zu] must be 0 or 1", where, i);
                goto out;
            }
            b->mask[i] = (int)tmp[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!params[i].is_float && (!spsa_is_integer(b->plus_values[i]) || !spsa_is_integer(b->minus_values[i]))) {
            errmsg(err, errlen, "spsa state: %s \"plus\"/\"minus\"[%zu] must be integers (%s is not a float)",
                   where, i, params[i].name);
            goto out;
        }
    rc = 0;
out:
    free(tmp);
    if (rc)
        spsa_batch_free(b);
    return rc;
}

static int params_from_json(SpsaParam **out, size_t *nout, const cJSON *arr, bool classic,
                            bool adapt, bool centre,
                            char *err, size_t errlen)
{
    if (!cJSON_IsArray(arr)) {
        errmsg(err, errlen, "spsa state: \"params\" missing or not an array");
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    SpsaParam *ps = calloc(n ? n : 1, sizeof *ps);
    if (!ps) {
        errmsg(err, errlen, "spsa state: out of memory");
        return -1;
    }
    size_t i = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, arr)
    {
        char where[32];
        snprintf(where, sizeof where, "params[%zu]", i);
        SpsaParam *p = &ps[i];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(q, "name");
        if (!cJSON_IsString(name) || strlen(name->valuestring) >= SPSA_NAME_MAX) {
            errmsg(err, errlen, "spsa state: %s \"name\" missing, not a string or too long",
                   where);
            free(ps);
            return -1;
        }
        strcpy(p->name, name->valuestring);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(q, "type");
        if (type && (!cJSON_IsString(type) || (strcmp(type->valuestring, "float") && strcmp(type->valuestring, "int")))) {
            errmsg(err, errlen, "spsa state: %s \"type\" must be \"int\" or \"float\"", where);
            free(ps);
            return -1;
        }
        p->is_float = type && !strcmp(type->valuestring, "float");
        if (get_num(q, "start", where, &p->start, err, errlen) ||
            get_num(q, "theta", where, &p->theta, err, errlen) ||
            get_num(q, "min", where, &p->min, err, errlen) ||
            get_num(q, "max", where, &p->max, err, errlen) ||
            get_num(q, "c_end", where, &p->c_end, err, errlen) ||
            get_num(q, "r_end", where, &p->r_end, err, errlen) ||
            get_num(q, "avg", where, &p->avg, err, errlen) ||
            (!classic && get_num(q, "m", where, &p->m, err, errlen)) ||
            (adapt && (get_num(q, "scale", where, &p->scale, err, errlen) ||
                       get_num(q, "e", where, &p->e, err, errlen))) ||
            (centre && (get_num(q, "pm", where, &p->pm, err, errlen) ||
                        get_num(q, "cm", where, &p->cm, err, errlen) ||
                        get_num(q, "cq", where, &p->cq, err, errlen)))) {
            free(ps);
            return -1;
        }
        i++;
    }
    *out = ps;
    *nout = n;
    return 0;
}

int spsa_state_from_json(SpsaState *st, const cJSON *json, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (!cJSON_IsObject(json)) {
        errmsg(err, errlen, "spsa state: not a JSON object");
        return -1;
    }
    double version;
    if (get_num(json, "version", "", &version, err, errlen))
        return -1;
    if (version != SPSA_JSON_VERSION && version != SPSA_JSON_VERSION_FORMS &&
        version != SPSA_JSON_VERSION_SCALE && version != SPSA_JSON_VERSION_CENTRE) {
        errmsg(err, errlen,
               "spsa state: unsupported \"version\" %g (this build reads %d, %d, %d and %d)",
               version, SPSA_JSON_VERSION, SPSA_JSON_VERSION_FORMS, SPSA_JSON_VERSION_SCALE,
               SPSA_JSON_VERSION_CENTRE);
        return -1;
    }

    const cJSON *c = cJSON_GetObjectItemCaseSensitive(json, "config");
    if (!cJSON_IsObject(c)) {
        errmsg(err, errlen, "spsa state: \"config\" missing or not an object");
        return -1;
    }
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    double pairs_per;
    if (get_u64(c, "games", "config", &cfg.games, err, errlen) ||
        get_u64(c, "iterations", "config", &cfg.iterations, err, errlen) ||
        get_num(c, "pairs_per", "config", &pairs_per, err, errlen) ||
        get_num(c, "A_ratio", "config", &cfg.A_ratio, err, errlen) ||
        get_num(c, "alpha", "config", &cfg.alpha, err, errlen) ||
        get_num(c, "gamma", "config", &cfg.gamma, err, errlen) ||
        get_num(c, "average", "config", &cfg.average, err, errlen))
        return -1;
    /* A state written before forms existed has no "form": it is classic. */
    const cJSON *form = cJSON_GetObjectItemCaseSensitive(c, "form");
    if (form && (!cJSON_IsString(form) || spsa_form_parse(form->valuestring, &cfg.form))) {
        errmsg(err, errlen, "spsa state: config \"form\" must be one of classic, far (or rms), adam, settle");
        return -1;
    }
    bool classic = cfg.form == SPSA_FORM_CLASSIC;
    if ((version == SPSA_JSON_VERSION) != classic) {
        errmsg(err, errlen, "spsa state: \"version\" %g does not go with form %s", version,
               spsa_form_name(cfg.form));
        return -1;
    }
    if (!classic && (get_num(c, "eta", "config", &cfg.eta, err, errlen) ||
                     get_num(c, "decay", "config", &cfg.decay, err, errlen) ||
                     get_num(c, "beta1", "config", &cfg.beta1, err, errlen) ||
                     get_num(c, "beta2", "config", &cfg.beta2, err, errlen) ||
                     get_num(c, "probe", "config", &cfg.probe, err, errlen)))
        return -1;
    /* A state from before form=settle has no eta_base and eta_pow: its eta
     * came from far's rule (the defaults), and it goes on so; one from
     * before eta_npow ran with (8 / n)^1, the default too. */
    if (!classic && cJSON_GetObjectItemCaseSensitive(c, "eta_base") &&
        (get_num(c, "eta_base", "config", &cfg.eta_base, err, errlen) ||
         get_num(c, "eta_pow", "config", &cfg.eta_pow, err, errlen)))
        return -1;
    if (!classic && cJSON_GetObjectItemCaseSensitive(c, "eta_npow") &&
        get_num(c, "eta_npow", "config", &cfg.eta_npow, err, errlen))
        return -1;
    /* An adam state from before the bias correction ran without it. */
    const cJSON *unbiased = cJSON_GetObjectItemCaseSensitive(c, "unbiased");
    if (unbiased && !cJSON_IsBool(unbiased)) {
        errmsg(err, errlen, "spsa state: config \"unbiased\" must be true or false");
        return -1;
    }
    cfg.unbiased = cJSON_IsTrue(unbiased);
    /* A state from before `narrow` existed ran without it: it goes on so. */
    const cJSON *narrow = cJSON_GetObjectItemCaseSensitive(c, "narrow");
    if (narrow && !cJSON_IsBool(narrow)) {
        errmsg(err, errlen, "spsa state: config \"narrow\" must be true or false");
        return -1;
    }
    cfg.narrow = classic ? true : cJSON_IsTrue(narrow);
    /* A state from before the scale existed ran without it: it goes on so. */
    const cJSON *adapt = cJSON_GetObjectItemCaseSensitive(c, "adapt");
    if (adapt && !cJSON_IsBool(adapt)) {
        errmsg(err, errlen, "spsa state: config \"adapt\" must be true or false");
        return -1;
    }
    cfg.adapt = !classic && cJSON_IsTrue(adapt);
    /* A state from before centre batches existed ran without them. */
    const cJSON *centre = cJSON_GetObjectItemCaseSensitive(c, "centre");
    if (!classic && centre &&
        (get_num(c, "centre", "config", &cfg.centre, err, errlen) ||
         get_num(c, "centre_elo", "config", &cfg.centre_elo, err, errlen) ||
         get_num(c, "centre_rate", "config", &cfg.centre_rate, err, errlen) ||
         get_num(c, "centre_window", "config", &cfg.centre_window, err, errlen) ||
         get_num(c, "centre_min", "config", &cfg.centre_min, err, errlen)))
        return -1;
    if (!classic && centre && !(cfg.centre > 0)) {
        errmsg(err, errlen, "spsa state: config \"centre\" must be > 0 when present");
        return -1;
    }
    if ((version == SPSA_JSON_VERSION_CENTRE) != (cfg.centre > 0)) {
        errmsg(err, errlen, "spsa state: \"version\" %g does not go with config \"centre\" %g",
               version, cfg.centre);
        return -1;
    }
    if (version != SPSA_JSON_VERSION_CENTRE && (version == SPSA_JSON_VERSION_SCALE) != cfg.adapt) {
        errmsg(err, errlen, "spsa state: \"version\" %g does not go with config \"adapt\" %s",
               version, cfg.adapt ? "true" : "false");
        return -1;
    }
    if (cfg.adapt && (get_num(c, "adapt_rate", "config", &cfg.adapt_rate, err, errlen) ||
                      get_num(c, "adapt_bias", "config", &cfg.adapt_bias, err, errlen) ||
                      get_num(c, "adapt_window", "config", &cfg.adapt_window, err, errlen) ||
                      get_num(c, "scale_min", "config", &cfg.scale_min, err, errlen) ||
                      get_num(c, "scale_max", "config", &cfg.scale_max, err, errlen) ||
                      get_num(c, "scale_start", "config", &cfg.scale_start, err, errlen)))
        return -1;
    if (!spsa_is_integer(pairs_per)) {
        errmsg(err, errlen, "spsa state: config \"pairs_per\" must be an integer");
        return -1;
    }
    cfg.pairs_per = (int)pairs_per;

    SpsaParam *ps;
    size_t n;
    if (params_from_json(&ps, &n, cJSON_GetObjectItemCaseSensitive(json, "params"), classic,
                         cfg.adapt, cfg.centre > 0,
                         err, errlen))
        return -1;
    /* spsa_init validates everything and resets start/avg: restore them after. */
    if (spsa_init(st, ps, n, &cfg, 0, err, errlen)) {
        free(ps);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        st->params[i].start = ps[i].start;
        st->params[i].avg = ps[i].avg;
        st->params[i].m = ps[i].m;
        if (cfg.adapt) {
            st->params[i].scale = ps[i].scale;
            st->params[i].e = ps[i].e;
        }
        if (cfg.centre > 0) {
            st->params[i].pm = ps[i].pm;
            st->params[i].cm = ps[i].cm;
            st->params[i].cq = ps[i].cq;
        }
    }
    free(ps);
    for (size_t i = 0; cfg.adapt && i < n; i++) {
        const SpsaParam *p = &st->params[i];
        if (!(p->scale >= cfg.scale_min && p->scale <= cfg.scale_max) || !isfinite(p->e)) {
            errmsg(err, errlen,
                   "spsa state: params[%zu] (%s): \"scale\" must be in [scale_min, scale_max] "
                   "and \"e\" finite",
                   i, p->name);
            goto fail;
        }
    }
    for (size_t i = 0; cfg.centre > 0 && i < n; i++) {
        const SpsaParam *p = &st->params[i];
        if (!(p->pm >= cfg.centre_min && p->pm <= 1) || !isfinite(p->cm) ||
            !(p->cq >= 0) || !isfinite(p->cq)) {
            errmsg(err, errlen,
                   "spsa state: params[%zu] (%s): \"pm\" must be in [centre_min, 1], \"cm\" "
                   "finite and \"cq\" >= 0",
                   i, p->name);
            goto fail;
        }
    }
    if (cfg.centre > 0 && get_u64(json, "centre_count", "", &st->centre_count, err, errlen))
        goto fail;
    if (!classic && get_num(json, "v", "", &st->v, err, errlen))
        goto fail;
    if (!(st->v >= 0)) {
        errmsg(err, errlen, "spsa state: \"v\" must be >= 0");
        goto fail;
    }

    if (get_u64(json, "k", "", &st->k, err, errlen) ||
        get_u64(json, "completed", "", &st->completed, err, errlen) ||
        get_u64(json, "wins", "", &st->wins, err, errlen) ||
        get_u64(json, "losses", "", &st->losses, err, errlen) ||
        get_u64(json, "draws", "", &st->draws, err, errlen) ||
        get_u64(json, "avg_count", "", &st->avg_count, err, errlen))
        goto fail;
    if (st->k > st->cfg.iterations) {
        errmsg(err, errlen, "spsa state: \"k\" %" PRIu64 " exceeds config iterations %" PRIu64,
               st->k, st->cfg.iterations);
        goto fail;
    }

    const cJSON *rng = cJSON_GetObjectItemCaseSensitive(json, "rng");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(rng, "type");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(rng, "state");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, gsl_rng_name(st->rng))) {
        errmsg(err, errlen, "spsa state: \"rng\".\"type\" must be \"%s\"",
               gsl_rng_name(st->rng));
        goto fail;
    }
    if (!cJSON_IsString(state) || rng_from_hex(st->rng, state->valuestring)) {
        errmsg(err, errlen, "spsa state: \"rng\".\"state\" must be %zu hex-encoded bytes",
               gsl_rng_size(st->rng));
        goto fail;
    }

    const cJSON *inflight = cJSON_GetObjectItemCaseSensitive(json, "inflight");
    if (!cJSON_IsArray(inflight)) {
        errmsg(err, errlen, "spsa state: \"inflight\" missing or not an array");
        goto fail;
    }
    size_t idx = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, inflight)
    {
        SpsaBatch batch;
        if (batch_from_json(&batch, b, st->params, n, idx, spsa_centre_on(st), err, errlen))
            goto fail;
        if (batch.k < 1 || batch.k > st->k) {
            errmsg(err, errlen, "spsa state: inflight[%zu] \"k\" %" PRIu64 " not in 1..%" PRIu64,
                   idx, batch.k, st->k);
            spsa_batch_free(&batch);
            goto fail;
        }
        int rc = spsa_inflight_push(st, &batch);
        spsa_batch_free(&batch);
        if (rc) {
            errmsg(err, errlen, "spsa state: out of memory");
            goto fail;
        }
        idx++;
    }
    return 0;
fail:
    spsa_free(st);
    return -1;
}
