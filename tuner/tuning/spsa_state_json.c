/* The SPSA state as JSON; see spsa_state_json.h. */
#include "spsa_state_json.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"

/* The versions of the format.  A state is written with the version of the
 * newest feature it uses, so that a build without that feature refuses the
 * state instead of resuming it without the feature. */
enum {
    V_CLASSIC = 1, /* the classic form (the only one before forms existed) */
    V_FORMS = 2,   /* another form: far (rms), adam, settle */
    V_SCALE = 3,   /* another form with the per-parameter scale (cfg.adapt) */
    V_CENTRE = 4,  /* another form with centre batches, with or without the scale */
    V_NEWEST = V_CENTRE
};

/* Whether a state with config c uses the feature of version v, and so holds
 * the fields that version brought. */
static bool has_version(const SpsaConfig *c, int v)
{
    bool classic = c->form == SPSA_FORM_CLASSIC;
    switch (v) {
    case V_CLASSIC:
        return true;
    case V_FORMS:
        return !classic;
    case V_SCALE:
        return !classic && c->adapt;
    default:
        return !classic && c->centre > 0;
    }
}

/* The version a state with config c is written with: its newest feature's
 * (centre batches with the scale are version 4). */
static int json_version(const SpsaConfig *c)
{
    int v = V_NEWEST;
    while (!has_version(c, v))
        v--;
    return v;
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

/* An array of n numbers: the doubles d exactly (exact_number), or the ints i. */
static cJSON *number_array(const double *d, const int *i, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t k = 0; a && k < n; k++) {
        cJSON *x = d ? exact_number(d[k]) : cJSON_CreateNumber(i[k]);
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
              cJSON_AddItemToObject(o, "c_k", number_array(b->c_k, NULL, b->nparams)) &&
              cJSON_AddItemToObject(o, "R_k", number_array(b->R_k, NULL, b->nparams)) &&
              cJSON_AddItemToObject(o, "flip", number_array(NULL, b->flip, b->nparams)) &&
              cJSON_AddItemToObject(o, "u", number_array(b->u, NULL, b->nparams)) &&
              cJSON_AddItemToObject(o, "plus", number_array(b->plus_values, NULL, b->nparams)) &&
              cJSON_AddItemToObject(o, "minus", number_array(b->minus_values, NULL, b->nparams)) &&
              (!b->centre || (cJSON_AddBoolToObject(o, "centre", true) &&
                              cJSON_AddItemToObject(o, "mask", number_array(NULL, b->mask, b->nparams))));
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

/* A finite number: a number item, or a raw item holding a number (as
 * spsa_state_to_json makes them, before the object is printed and parsed
 * again).  JSON has no infinity, but cJSON reads 1e400 as one; the writer
 * could not write it back. */
static bool item_number(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble))
            return false;
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
        errmsg(err, errlen, "spsa state: %s%s\"%s\" %s", where, *where ? " " : "", key,
               cJSON_IsNumber(v) || cJSON_IsRaw(v) ? "is not a finite number" : "missing or not a number");
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
    char what[256];
    snprintf(what, sizeof what, "spsa state: %s%s", where, *where ? "." : "");
    return json_get_count(o, key, out, what, err, errlen);
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

/* The fields of the state's objects are read from tables (CONFIG_FIELDS,
 * PARAM_FIELDS, STATE_FIELDS below): one row per field, in the order they
 * are read, with its kind, its destination, the version of the format that
 * brought it and its rule, and check rows where a check needs the fields
 * above it.  A field is read in the states that use its version's feature
 * (has_version); its rule says what a state without it gets. */
typedef enum {
    NUM,  /* a number (or a raw one, item_number) into a double */
    U64,  /* a count (json_u64_of) into a uint64_t */
    INT,  /* a whole number of an int's range into an int */
    BOOL, /* true or false into a bool; wherever it appears, even in a state
           * without its feature, it must be one of them */
    FORM, /* a form's name (spsa_form_parse) into an SpsaForm */
    NAME, /* a string shorter than SPSA_NAME_MAX into a char array */
    TYPE  /* "int" or "float" into a bool, true for "float" */
} Kind;

typedef enum {
    REQUIRED,      /* every state that uses its version's feature has it */
    OPTIONAL,      /* came after its version, so older states of that version
                    * lack it: absent, the destination keeps its default (a
                    * BOOL is false) */
    WITH_PREVIOUS, /* read, and then required, when the row above it that is
                    * not WITH_PREVIOUS was in the file */
    SWITCH         /* whether the state uses its version's feature: read in
                    * every state that may ("form": every state; the others:
                    * every state of another form than classic); absent, off */
} Rule;

typedef struct Reader Reader;
typedef struct {
    const char *key;
    Kind kind;
    size_t offset; /* of the destination in the struct read into */
    int since;     /* the version that brought the field */
    Rule rule;
    int (*check)(const Reader *r); /* a check row: no field, runs here */
} Field;

#define FIELD(key, kind, dest, since, rule) { key, kind, dest, since, rule, NULL }
#define CHECK(fn) { NULL, NUM, 0, 0, REQUIRED, fn }

/* One object being read. */
struct Reader {
    const cJSON *obj;
    const char *where;     /* the object in messages: "config", "params[2]", "" */
    void *dest;            /* the struct the rows' offsets point into */
    const SpsaConfig *cfg; /* the state's features: for "config", what is read so far */
    double version;
    char *err;
    size_t errlen;
};

/* Reads field v of row f into r->dest; 0, or -1 with a message. */
static int read_field(const Reader *r, const Field *f, const cJSON *v)
{
    char *dest = (char *)r->dest + f->offset;
    const char *sep = *r->where ? " " : "";
    switch (f->kind) {
    case NUM:
        return get_num(r->obj, f->key, r->where, (double *)dest, r->err, r->errlen);
    case U64:
        return get_u64(r->obj, f->key, r->where, (uint64_t *)dest, r->err, r->errlen);
    case INT: {
        double d;
        if (get_num(r->obj, f->key, r->where, &d, r->err, r->errlen))
            return -1;
        if (!spsa_is_integer(d) || d < INT_MIN || d > INT_MAX) {
            errmsg(r->err, r->errlen, "spsa state: %s%s\"%s\" must be an integer", r->where, sep, f->key);
            return -1;
        }
        *(int *)dest = (int)d;
        return 0;
    }
    case BOOL: /* its type is checked in read_fields */
        *(bool *)dest = cJSON_IsTrue(v);
        return 0;
    case FORM:
        if (!cJSON_IsString(v) || spsa_form_parse(v->valuestring, (SpsaForm *)dest)) {
            errmsg(r->err, r->errlen,
                   "spsa state: %s%s\"%s\" must be one of classic, far (or rms), adam, settle", r->where, sep,
                   f->key);
            return -1;
        }
        return 0;
    case NAME:
        if (!cJSON_IsString(v) || strlen(v->valuestring) >= SPSA_NAME_MAX) {
            errmsg(r->err, r->errlen, "spsa state: %s%s\"%s\" missing, not a string or too long", r->where, sep,
                   f->key);
            return -1;
        }
        strcpy(dest, v->valuestring);
        return 0;
    case TYPE:
        if (!cJSON_IsString(v) || (strcmp(v->valuestring, "float") && strcmp(v->valuestring, "int"))) {
            errmsg(r->err, r->errlen, "spsa state: %s%s\"%s\" must be \"int\" or \"float\"", r->where, sep,
                   f->key);
            return -1;
        }
        *(bool *)dest = !strcmp(v->valuestring, "float");
        return 0;
    }
    return 0;
}

/* Whether row f is read in the state r->cfg describes. */
static bool row_applies(const Reader *r, const Field *f, bool previous_present)
{
    switch (f->rule) {
    case WITH_PREVIOUS:
        return previous_present;
    case SWITCH:
        /* every feature after the forms is one of another form than classic */
        return has_version(r->cfg, f->since == V_FORMS ? V_CLASSIC : V_FORMS);
    default:
        return has_version(r->cfg, f->since);
    }
}

/* Reads the rows of a table in order; 0, or -1 with a message. */
static int read_fields(const Reader *r, const Field *rows, size_t nrows)
{
    bool previous_present = false; /* the last row not WITH_PREVIOUS applied and was in the file */
    for (size_t i = 0; i < nrows; i++) {
        const Field *f = &rows[i];
        if (f->check) {
            if (f->check(r))
                return -1;
            continue;
        }
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, f->key);
        if (f->kind == BOOL && v && !cJSON_IsBool(v)) {
            errmsg(r->err, r->errlen, "spsa state: %s%s\"%s\" must be true or false", r->where,
                   *r->where ? " " : "", f->key);
            return -1;
        }
        bool applies = row_applies(r, f, previous_present);
        /* Absent: a REQUIRED or WITH_PREVIOUS field is an error (read_field
         * says which), a BOOL is false, any other keeps its default. */
        if (applies && (v || f->rule == REQUIRED || f->rule == WITH_PREVIOUS || f->kind == BOOL) &&
            read_field(r, f, v))
            return -1;
        if (f->rule != WITH_PREVIOUS)
            previous_present = applies && v;
    }
    return 0;
}

/* The checks between the rows of "config". */
static int form_goes_with_version(const Reader *r)
{
    if ((r->version == V_CLASSIC) != (r->cfg->form == SPSA_FORM_CLASSIC)) {
        errmsg(r->err, r->errlen, "spsa state: \"version\" %g does not go with form %s", r->version,
               spsa_form_name(r->cfg->form));
        return -1;
    }
    return 0;
}

static int switches_go_with_version(const Reader *r)
{
    const SpsaConfig *c = r->cfg;
    bool centre_given = c->form != SPSA_FORM_CLASSIC && cJSON_GetObjectItemCaseSensitive(r->obj, "centre");
    if (centre_given && !(c->centre > 0)) {
        errmsg(r->err, r->errlen, "spsa state: config \"centre\" must be > 0 when present");
        return -1;
    }
    if ((r->version == V_CENTRE) != (c->centre > 0)) {
        errmsg(r->err, r->errlen, "spsa state: \"version\" %g does not go with config \"centre\" %g",
               r->version, c->centre);
        return -1;
    }
    if (r->version != V_CENTRE && (r->version == V_SCALE) != c->adapt) {
        errmsg(r->err, r->errlen, "spsa state: \"version\" %g does not go with config \"adapt\" %s", r->version,
               c->adapt ? "true" : "false");
        return -1;
    }
    return 0;
}

/* The budget, iterations x 2 x pairs_per games, within what a run can be
 * given (-spsa games up to SPSA_STATE_MAX_GAMES): larger ones wrap the
 * counts that everything after reads. */
static int budget_in_range(const Reader *r)
{
    const SpsaConfig *c = r->dest;
    if (c->pairs_per < 1 || c->iterations > SPSA_STATE_MAX_GAMES / 2 / (uint64_t)c->pairs_per) {
        errmsg(r->err, r->errlen, "spsa state: config \"iterations\" %" PRIu64 " x 2 x \"pairs_per\" %d games is "
               "beyond any run's budget (at most %llu games)", c->iterations, c->pairs_per, SPSA_STATE_MAX_GAMES);
        return -1;
    }
    return 0;
}

#define CFG(f) offsetof(SpsaConfig, f)
/* "config", into an SpsaConfig that starts as spsa_config_default's. */
static const Field CONFIG_FIELDS[] = {
    /*    key              kind  destination                       since      rule */
    FIELD("games",         U64,  CFG(games),                       V_CLASSIC, REQUIRED),
    FIELD("iterations",    U64,  CFG(iterations),                  V_CLASSIC, REQUIRED),
    FIELD("pairs_per",     INT,  CFG(pairs_per),                   V_CLASSIC, REQUIRED),
    FIELD("A_ratio",       NUM,  CFG(A_ratio),                     V_CLASSIC, REQUIRED),
    FIELD("alpha",         NUM,  CFG(alpha),                       V_CLASSIC, REQUIRED),
    FIELD("gamma",         NUM,  CFG(gamma),                       V_CLASSIC, REQUIRED),
    FIELD("average",       NUM,  CFG(average),                     V_CLASSIC, REQUIRED),
    /* absent in the states written before forms existed: classic */
    FIELD("form",          FORM, CFG(form),                        V_FORMS,   SWITCH),
    CHECK(form_goes_with_version),
    FIELD("eta",           NUM,  CFG(eta),                         V_FORMS,   REQUIRED),
    FIELD("decay",         NUM,  CFG(decay),                       V_FORMS,   REQUIRED),
    FIELD("beta1",         NUM,  CFG(beta1),                       V_FORMS,   REQUIRED),
    FIELD("beta2",         NUM,  CFG(beta2),                       V_FORMS,   REQUIRED),
    FIELD("probe",         NUM,  CFG(probe),                       V_FORMS,   REQUIRED),
    /* absent before form=settle: far's rule of eta (the defaults) */
    FIELD("eta_base",      NUM,  CFG(eta_base),                    V_FORMS,   OPTIONAL),
    FIELD("eta_pow",       NUM,  CFG(eta_pow),                     V_FORMS,   WITH_PREVIOUS),
    /* absent before eta_npow: (8 / n)^1, the default */
    FIELD("eta_npow",      NUM,  CFG(eta_npow),                    V_FORMS,   OPTIONAL),
    /* absent (and off) in adam states from before the bias correction */
    FIELD("unbiased",      BOOL, CFG(unbiased),                    V_FORMS,   OPTIONAL),
    /* absent (and off) in states from before a probe narrowed near a bound */
    FIELD("narrow",        BOOL, CFG(narrow),                      V_FORMS,   OPTIONAL),
    FIELD("adapt",         BOOL, CFG(adapt),                       V_SCALE,   SWITCH),
    FIELD("centre",        NUM,  CFG(centre),                      V_CENTRE,  SWITCH),
    FIELD("centre_elo",    NUM,  CFG(centre_elo),                  V_CENTRE,  WITH_PREVIOUS),
    FIELD("centre_rate",   NUM,  CFG(centre_rate),                 V_CENTRE,  WITH_PREVIOUS),
    FIELD("centre_window", NUM,  CFG(centre_window),               V_CENTRE,  WITH_PREVIOUS),
    FIELD("centre_min",    NUM,  CFG(centre_min),                  V_CENTRE,  WITH_PREVIOUS),
    CHECK(switches_go_with_version),
    FIELD("adapt_rate",    NUM,  CFG(adapt_rate),                  V_SCALE,   REQUIRED),
    FIELD("adapt_bias",    NUM,  CFG(adapt_bias),                  V_SCALE,   REQUIRED),
    FIELD("adapt_window",  NUM,  CFG(adapt_window),                V_SCALE,   REQUIRED),
    FIELD("scale_min",     NUM,  CFG(scale_min),                   V_SCALE,   REQUIRED),
    FIELD("scale_max",     NUM,  CFG(scale_max),                   V_SCALE,   REQUIRED),
    FIELD("scale_start",   NUM,  CFG(scale_start),                 V_SCALE,   REQUIRED),
    CHECK(budget_in_range),
};
#undef CFG

#define PARAM(f) offsetof(SpsaParam, f)
/* Each entry of "params", into a zeroed SpsaParam. */
static const Field PARAM_FIELDS[] = {
    /*    key      kind  destination      since      rule */
    FIELD("name",  NAME, PARAM(name),     V_CLASSIC, REQUIRED),
    /* absent: an integer parameter, as in every state before floats */
    FIELD("type",  TYPE, PARAM(is_float), V_CLASSIC, OPTIONAL),
    FIELD("start", NUM,  PARAM(start),    V_CLASSIC, REQUIRED),
    FIELD("theta", NUM,  PARAM(theta),    V_CLASSIC, REQUIRED),
    FIELD("min",   NUM,  PARAM(min),      V_CLASSIC, REQUIRED),
    FIELD("max",   NUM,  PARAM(max),      V_CLASSIC, REQUIRED),
    FIELD("c_end", NUM,  PARAM(c_end),    V_CLASSIC, REQUIRED),
    FIELD("r_end", NUM,  PARAM(r_end),    V_CLASSIC, REQUIRED),
    FIELD("avg",   NUM,  PARAM(avg),      V_CLASSIC, REQUIRED),
    FIELD("m",     NUM,  PARAM(m),        V_FORMS,   REQUIRED),
    FIELD("scale", NUM,  PARAM(scale),    V_SCALE,   REQUIRED),
    FIELD("e",     NUM,  PARAM(e),        V_SCALE,   REQUIRED),
    FIELD("pm",    NUM,  PARAM(pm),       V_CENTRE,  REQUIRED),
    FIELD("cm",    NUM,  PARAM(cm),       V_CENTRE,  REQUIRED),
    FIELD("cq",    NUM,  PARAM(cq),       V_CENTRE,  REQUIRED),
};
#undef PARAM

/* The checks between the state's counters. */
static int v_not_negative(const Reader *r)
{
    const SpsaState *st = r->dest;
    if (!(st->v >= 0)) {
        errmsg(r->err, r->errlen, "spsa state: \"v\" must be >= 0");
        return -1;
    }
    return 0;
}

static int k_within_iterations(const Reader *r)
{
    const SpsaState *st = r->dest;
    if (st->k > st->cfg.iterations) {
        errmsg(r->err, r->errlen, "spsa state: \"k\" %" PRIu64 " exceeds config iterations %" PRIu64, st->k,
               st->cfg.iterations);
        return -1;
    }
    return 0;
}

#define STATE(f) offsetof(SpsaState, f)
/* The counters of the state, after "params"; "rng" and "inflight" follow. */
static const Field STATE_FIELDS[] = {
    /*    key             kind destination          since      rule */
    FIELD("centre_count", U64, STATE(centre_count), V_CENTRE,  REQUIRED),
    FIELD("v",            NUM, STATE(v),            V_FORMS,   REQUIRED),
    CHECK(v_not_negative),
    FIELD("k",            U64, STATE(k),            V_CLASSIC, REQUIRED),
    FIELD("completed",    U64, STATE(completed),    V_CLASSIC, REQUIRED),
    FIELD("wins",         U64, STATE(wins),         V_CLASSIC, REQUIRED),
    FIELD("losses",       U64, STATE(losses),       V_CLASSIC, REQUIRED),
    FIELD("draws",        U64, STATE(draws),        V_CLASSIC, REQUIRED),
    FIELD("avg_count",    U64, STATE(avg_count),    V_CLASSIC, REQUIRED),
    CHECK(k_within_iterations),
};
#undef STATE

#define NROWS(t) (sizeof t / sizeof t[0])

/* Writes the rows of a table that a state of cfg's features holds (the
 * reader's has_version; "form" always), from the struct src: what is
 * written is what is read back. */
static bool write_fields(cJSON *o, const Field *rows, size_t nrows, const void *src, const SpsaConfig *cfg)
{
    bool ok = o != NULL;
    for (size_t i = 0; ok && i < nrows; i++) {
        const Field *f = &rows[i];
        if (f->check || (f->kind != FORM && !has_version(cfg, f->since)))
            continue;
        const char *p = (const char *)src + f->offset;
        switch (f->kind) {
        case NUM:
            ok = add_num(o, f->key, *(const double *)p) != NULL;
            break;
        case U64:
            ok = add_u64(o, f->key, *(const uint64_t *)p) != NULL;
            break;
        case INT:
            ok = cJSON_AddNumberToObject(o, f->key, *(const int *)p) != NULL;
            break;
        case BOOL:
            ok = cJSON_AddBoolToObject(o, f->key, *(const bool *)p) != NULL;
            break;
        case FORM:
            ok = cJSON_AddStringToObject(o, f->key, spsa_form_name(*(const SpsaForm *)p)) != NULL;
            break;
        case NAME:
            ok = cJSON_AddStringToObject(o, f->key, p) != NULL;
            break;
        case TYPE: /* absent: an integer parameter */
            ok = !*(const bool *)p || cJSON_AddStringToObject(o, f->key, "float") != NULL;
            break;
        }
    }
    return ok;
}

cJSON *spsa_state_to_json(const SpsaState *st)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddNumberToObject(o, "version", json_version(&st->cfg)) != NULL &&
              write_fields(cJSON_AddObjectToObject(o, "config"), CONFIG_FIELDS, NROWS(CONFIG_FIELDS), &st->cfg,
                           &st->cfg);
    cJSON *params = ok ? cJSON_AddArrayToObject(o, "params") : NULL;
    ok = ok && params;
    for (size_t i = 0; ok && i < st->nparams; i++) {
        cJSON *q = cJSON_CreateObject();
        ok = q && cJSON_AddItemToArray(params, q) &&
             write_fields(q, PARAM_FIELDS, NROWS(PARAM_FIELDS), &st->params[i], &st->cfg);
        if (!q)
            ok = false;
    }
    ok = ok && write_fields(o, STATE_FIELDS, NROWS(STATE_FIELDS), st, &st->cfg);
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

static int config_from_json(SpsaConfig *cfg, const cJSON *c, double version, char *err, size_t errlen)
{
    if (!cJSON_IsObject(c)) {
        errmsg(err, errlen, "spsa state: \"config\" missing or not an object");
        return -1;
    }
    SpsaConfig d;
    spsa_config_default(&d);
    Reader r = { c, "config", &d, &d, version, err, errlen };
    if (read_fields(&r, CONFIG_FIELDS, NROWS(CONFIG_FIELDS)))
        return -1;
    *cfg = d;
    return 0;
}

static int params_from_json(SpsaParam **out, size_t *nout, const cJSON *arr, const SpsaConfig *cfg,
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
        Reader r = { q, where, &ps[i], cfg, 0, err, errlen };
        if (read_fields(&r, PARAM_FIELDS, NROWS(PARAM_FIELDS))) {
            free(ps);
            return -1;
        }
        i++;
    }
    *out = ps;
    *nout = n;
    return 0;
}

/* spsa_init checks the parameters and resets what a run starts from (start,
 * avg, m, the scale, the centre's means): the numbers the file holds are put
 * back. */
static void restore_params(SpsaState *st, const SpsaParam *ps)
{
    for (size_t i = 0; i < st->nparams; i++)
        for (size_t f = 0; f < NROWS(PARAM_FIELDS); f++) {
            const Field *row = &PARAM_FIELDS[f];
            if (row->kind == NUM && has_version(&st->cfg, row->since))
                *(double *)((char *)&st->params[i] + row->offset) =
                    *(const double *)((const char *)&ps[i] + row->offset);
        }
}

/* The bounds of what the file holds per parameter beyond what spsa_init
 * checks: the start (the values validation plays against, and export
 * -keep-noise=start writes) in [min, max]; what the scale and the centre
 * batches keep.  (item_number takes only finite numbers: avg, m and the
 * other moments are finite.) */
static int check_param_state(const SpsaState *st, char *err, size_t errlen)
{
    const SpsaConfig *cfg = &st->cfg;
    for (size_t i = 0; i < st->nparams; i++) {
        const SpsaParam *p = &st->params[i];
        if (!(p->start >= p->min && p->start <= p->max)) {
            errmsg(err, errlen, "spsa state: params[%zu] (%s): \"start\" %.17g outside [%g, %g]", i, p->name,
                   p->start, p->min, p->max);
            return -1;
        }
    }
    for (size_t i = 0; cfg->adapt && i < st->nparams; i++) {
        const SpsaParam *p = &st->params[i];
        if (!(p->scale >= cfg->scale_min && p->scale <= cfg->scale_max) || !isfinite(p->e)) {
            errmsg(err, errlen,
                   "spsa state: params[%zu] (%s): \"scale\" must be in [scale_min, scale_max] "
                   "and \"e\" finite",
                   i, p->name);
            return -1;
        }
    }
    for (size_t i = 0; cfg->centre > 0 && i < st->nparams; i++) {
        const SpsaParam *p = &st->params[i];
        if (!(p->pm >= cfg->centre_min && p->pm <= 1) || !isfinite(p->cm) || !(p->cq >= 0) ||
            !isfinite(p->cq)) {
            errmsg(err, errlen,
                   "spsa state: params[%zu] (%s): \"pm\" must be in [centre_min, 1], \"cm\" "
                   "finite and \"cq\" >= 0",
                   i, p->name);
            return -1;
        }
    }
    return 0;
}

static int rng_from_json(gsl_rng *rng, const cJSON *o, char *err, size_t errlen)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(o, "state");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, gsl_rng_name(rng))) {
        errmsg(err, errlen, "spsa state: \"rng\".\"type\" must be \"%s\"", gsl_rng_name(rng));
        return -1;
    }
    if (!cJSON_IsString(state) || rng_from_hex(rng, state->valuestring)) {
        errmsg(err, errlen, "spsa state: \"rng\".\"state\" must be %zu hex-encoded bytes", gsl_rng_size(rng));
        return -1;
    }
    return 0;
}

static int inflight_from_json(SpsaState *st, const cJSON *inflight, char *err, size_t errlen)
{
    if (!cJSON_IsArray(inflight)) {
        errmsg(err, errlen, "spsa state: \"inflight\" missing or not an array");
        return -1;
    }
    size_t idx = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, inflight)
    {
        SpsaBatch batch;
        if (batch_from_json(&batch, b, st->params, st->nparams, idx, spsa_centre_on(st), err, errlen))
            return -1;
        if (batch.k < 1 || batch.k > st->k) {
            errmsg(err, errlen, "spsa state: inflight[%zu] \"k\" %" PRIu64 " not in 1..%" PRIu64, idx, batch.k,
                   st->k);
            spsa_batch_free(&batch);
            return -1;
        }
        int rc = spsa_inflight_push(st, &batch);
        spsa_batch_free(&batch);
        if (rc) {
            errmsg(err, errlen, "spsa state: out of memory");
            return -1;
        }
        idx++;
    }
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
    if (!(version == V_CLASSIC || version == V_FORMS || version == V_SCALE || version == V_CENTRE)) {
        errmsg(err, errlen, "spsa state: unsupported \"version\" %g (this build reads %d, %d, %d and %d)",
               version, V_CLASSIC, V_FORMS, V_SCALE, V_CENTRE);
        return -1;
    }
    SpsaConfig cfg;
    SpsaParam *ps;
    size_t n;
    if (config_from_json(&cfg, cJSON_GetObjectItemCaseSensitive(json, "config"), version, err, errlen) ||
        params_from_json(&ps, &n, cJSON_GetObjectItemCaseSensitive(json, "params"), &cfg, err, errlen))
        return -1;
    int rc = spsa_init(st, ps, n, &cfg, 0, err, errlen);
    if (rc == 0)
        restore_params(st, ps);
    free(ps);
    if (rc)
        return -1;
    Reader r = { json, "", st, &st->cfg, version, err, errlen };
    if (check_param_state(st, err, errlen) || read_fields(&r, STATE_FIELDS, NROWS(STATE_FIELDS)) ||
        rng_from_json(st->rng, cJSON_GetObjectItemCaseSensitive(json, "rng"), err, errlen) ||
        inflight_from_json(st, cJSON_GetObjectItemCaseSensitive(json, "inflight"), err, errlen)) {
        spsa_free(st);
        return -1;
    }
    return 0;
}
