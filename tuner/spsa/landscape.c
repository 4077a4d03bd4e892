/* A user's landscape for `simulate`: the -landscape words and the JSON file
 * (format in landscape.h). */
#include "landscape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "errmsg.h"
#include "jsonget.h"

int landscape_init(SimLandscape *l, size_t n)
{
    memset(l, 0, sizeof *l);
    l->n = n;
    size_t k = n ? n : 1;
    l->opt = calloc(k, sizeof *l->opt);
    l->curv = calloc(k, sizeof *l->curv);
    l->skew = calloc(k, sizeof *l->skew);
    l->width = calloc(k, sizeof *l->width);
    l->scale = calloc(k, sizeof *l->scale);
    l->start = calloc(k, sizeof *l->start);
    l->start_at_opt = calloc(k, sizeof *l->start_at_opt);
    if (!l->opt || !l->curv || !l->skew || !l->width || !l->scale || !l->start ||
        !l->start_at_opt) {
        landscape_free(l);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        l->opt[i] = NAN;
        l->curv[i] = 1.0;
        l->scale[i] = 1.0;
        l->start[i] = NAN;
    }
    l->draw_ratio = NAN;
    l->opening_bias = NAN;
    return 0;
}

void landscape_free(SimLandscape *l)
{
    free(l->opt);
    free(l->curv);
    free(l->skew);
    free(l->width);
    free(l->scale);
    free(l->start);
    free(l->start_at_opt);
    free(l->couplings);
    memset(l, 0, sizeof *l);
}

/* ---- values ---------------------------------------------------------------- */

static bool parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* An optimum: a number, or "min"/"max" optionally followed by +Z / -Z (Z in
 * c_end, toward the inside of the range). */
static bool parse_optimum(const char *s, const SpsaParam *p, double *out)
{
    double z = 0;
    if (!strncmp(s, "min", 3) || !strncmp(s, "max", 3)) {
        bool lo = s[2] == 'n';
        const char *rest = s + 3;
        if (*rest) {
            if (*rest != (lo ? '+' : '-') || !parse_number(rest + 1, &z) || z < 0)
                return false;
        }
        *out = lo ? p->min + z * p->c_end : p->max - z * p->c_end;
        return true;
    }
    return parse_number(s, out);
}

/* Checks and stores one per-parameter value.  what: the key. */
static int set_value(SimLandscape *l, const SpsaParam *ps, size_t i, const char *what,
                     const char *text, double num, bool is_text, const char *where, char *err,
                     size_t errlen)
{
    const SpsaParam *p = &ps[i];
    if (!strcmp(what, "optimum")) {
        double v = num;
        if (is_text && !strcmp(text, "random")) {
            l->opt[i] = NAN; /* drawn by landscape_finish */
            return 0;
        }
        if (is_text && !parse_optimum(text, p, &v)) {
            errmsg(err, errlen, "%s: %s: \"optimum\" \"%s\": expected a number, min+Z, max-Z or random",
                   where, p->name, text);
            return -1;
        }
        if (!(v >= p->min && v <= p->max)) {
            errmsg(err, errlen, "%s: %s: optimum %g outside [%g, %g]", where, p->name, v, p->min,
                   p->max);
            return -1;
        }
        l->opt[i] = v;
        return 0;
    }
    if (!strcmp(what, "start")) {
        if (is_text && !strcmp(text, "optimum")) {
            l->start_at_opt[i] = true;
            return 0;
        }
        double v = num;
        if (is_text && !parse_number(text, &v)) {
            errmsg(err, errlen, "%s: %s: \"start\" \"%s\": expected a number or \"optimum\"",
                   where, p->name, text);
            return -1;
        }
        if (!(v >= p->min && v <= p->max)) {
            errmsg(err, errlen, "%s: %s: start %g outside [%g, %g]", where, p->name, v, p->min,
                   p->max);
            return -1;
        }
        l->start[i] = v;
        l->start_at_opt[i] = false;
        return 0;
    }
    double v = num;
    if (is_text && !parse_number(text, &v)) {
        errmsg(err, errlen, "%s: %s: \"%s\" \"%s\" is not a number", where, p->name, what, text);
        return -1;
    }
    if (!strcmp(what, "curvature")) {
        if (!(v >= 0 && v <= 1e6)) {
            errmsg(err, errlen, "%s: %s: curvature %g must be in [0, 1e6]", where, p->name, v);
            return -1;
        }
        l->curv[i] = v;
    } else if (!strcmp(what, "width")) {
        if (!(v >= 0 && v <= 1e6)) {
            errmsg(err, errlen, "%s: %s: width %g must be in [0, 1e6] (0 = quadratic)", where,
                   p->name, v);
            return -1;
        }
        l->width[i] = v;
    } else if (!strcmp(what, "skew")) {
        if (!(v > -1 && v < 1)) {
            errmsg(err, errlen, "%s: %s: skew %g must be in (-1, 1)", where, p->name, v);
            return -1;
        }
        l->skew[i] = v;
    } else if (!strcmp(what, "scale")) {
        if (!(v >= 1e-3 && v <= 1e3)) {
            errmsg(err, errlen, "%s: %s: scale %g must be in [0.001, 1000]", where, p->name, v);
            return -1;
        }
        l->scale[i] = v;
    } else {
        errmsg(err, errlen, "%s: %s: unknown key \"%s\"", where, p->name, what);
        return -1;
    }
    return 0;
}

/* A parameter by name or by 0-based index. */
static bool find_param(const SpsaParam *ps, size_t n, const char *s, size_t len, size_t *out)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(ps[i].name) == len && !strncmp(ps[i].name, s, len)) {
            *out = i;
            return true;
        }
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    unsigned long v = strtoul(buf, &end, 10);
    if (*end || errno || buf[0] == '-' || buf[0] == '+' || v >= n)
        return false;
    *out = (size_t)v;
    return true;
}

static int add_coupling(SimLandscape *l, const SpsaParam *ps, size_t a, size_t b, double k,
                        const char *where, char *err, size_t errlen)
{
    if (a == b) {
        errmsg(err, errlen, "%s: coupling of %s with itself", where, ps[a].name);
        return -1;
    }
    if (l->ncouplings >= 4 * l->n + 16) {
        errmsg(err, errlen, "%s: too many couplings (at most %zu)", where, 4 * l->n + 16);
        return -1;
    }
    SimCoupling *c = realloc(l->couplings, (l->ncouplings + 1) * sizeof *c);
    if (!c) {
        errmsg(err, errlen, "%s: out of memory", where);
        return -1;
    }
    l->couplings = c;
    c[l->ncouplings++] = (SimCoupling){a, b, k};
    return 0;
}

/* ---- the command line ------------------------------------------------------ */

static int set_couplings_cli(SimLandscape *l, const SpsaParam *ps, const char *value, char *err,
                             size_t errlen)
{
    const char *p = value;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *c1 = memchr(p, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - p)) : NULL;
        size_t a, b;
        double k;
        char num[64];
        size_t klen = c2 ? len - (size_t)(c2 + 1 - p) : 0;
        if (c2 && klen < sizeof num) {
            memcpy(num, c2 + 1, klen);
            num[klen] = '\0';
        }
        if (!c1 || !c2 || klen >= sizeof num || !parse_number(num, &k)) {
            errmsg(err, errlen, "-landscape coupling=%s: expected A:B:K[,A:B:K...]", value);
            return -1;
        }
        if (!find_param(ps, l->n, p, (size_t)(c1 - p), &a) ||
            !find_param(ps, l->n, c1 + 1, (size_t)(c2 - c1 - 1), &b)) {
            errmsg(err, errlen, "-landscape coupling=%s: \"%.*s\" names no parameter of the spec",
                   value, (int)len, p);
            return -1;
        }
        if (add_coupling(l, ps, a, b, k, "-landscape coupling", err, errlen))
            return -1;
        if (!e)
            return 0;
        p = e + 1;
    }
}

int landscape_set(SimLandscape *l, const SpsaParam *ps, const char *key, const char *value,
                  char *err, size_t errlen)
{
    static const char *const KEYS[] = {"optimum", "curvature", "width", "skew", "scale",
                                       "start"};
    if (!strcmp(key, "coupling"))
        return set_couplings_cli(l, ps, value, err, errlen);
    bool known = false;
    for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++)
        known |= !strcmp(key, KEYS[i]);
    if (!known) {
        errmsg(err, errlen, "-landscape: unknown key \"%s\"", key);
        return -1;
    }
    char where[64];
    snprintf(where, sizeof where, "-landscape %s", key);
    /* count the items: one for all, or one per parameter */
    size_t count = 1;
    for (const char *p = value; *p; p++)
        count += *p == ',';
    if (count != 1 && count != l->n) {
        errmsg(err, errlen, "-landscape %s=%s: expected one value or %zu comma-separated", key,
               value, l->n);
        return -1;
    }
    const char *p = value;
    for (size_t i = 0; i < count; i++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) {
            errmsg(err, errlen, "-landscape %s=%s: item %zu is empty or too long", key, value,
                   i + 1);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        size_t from = count == 1 ? 0 : i, to = count == 1 ? l->n : i + 1;
        for (size_t j = from; j < to; j++)
            if (set_value(l, ps, j, key, item, 0, true, where, err, errlen))
                return -1;
        p = e ? e + 1 : p + len;
    }
    return 0;
}

/* ---- the JSON file --------------------------------------------------------- */

static int json_param(SimLandscape *l, const SpsaParam *ps, size_t i, const cJSON *obj,
                      const char *fname, char *err, size_t errlen)
{
    char where[SPSA_NAME_MAX + 600];
    snprintf(where, sizeof where, "%.500s: \"params\"", fname);
    if (!cJSON_IsObject(obj)) {
        errmsg(err, errlen, "%s: %s: expected an object", where, ps[i].name);
        return -1;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, obj)
    {
        if (cJSON_IsNumber(f)) {
            if (set_value(l, ps, i, f->string, NULL, f->valuedouble, false, where, err, errlen))
                return -1;
        } else if (cJSON_IsString(f) && (!strcmp(f->string, "optimum") ||
                                         !strcmp(f->string, "start"))) {
            if (set_value(l, ps, i, f->string, f->valuestring, 0, true, where, err, errlen))
                return -1;
        } else {
            errmsg(err, errlen, "%s: %s: \"%s\" must be a number%s", where, ps[i].name, f->string,
                   !strcmp(f->string, "optimum") || !strcmp(f->string, "start")
                       ? " or a string"
                       : "");
            return -1;
        }
    }
    return 0;
}

static int json_couplings(SimLandscape *l, const SpsaParam *ps, const cJSON *arr,
                          const char *fname, char *err, size_t errlen)
{
    if (!cJSON_IsArray(arr)) {
        errmsg(err, errlen, "%s: \"couplings\" must be an array", fname);
        return -1;
    }
    size_t idx = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, arr)
    {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "a");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(c, "b");
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "k");
        size_t ia, ib;
        if (!cJSON_IsObject(c) || cJSON_GetArraySize(c) != 3 || !cJSON_IsString(a) ||
            !cJSON_IsString(b) || !cJSON_IsNumber(k) || !isfinite(k->valuedouble)) {
            errmsg(err, errlen,
                   "%s: \"couplings\"[%zu]: expected {\"a\": NAME, \"b\": NAME, \"k\": number}",
                   fname, idx);
            return -1;
        }
        if (!find_param(ps, l->n, a->valuestring, strlen(a->valuestring), &ia) ||
            !find_param(ps, l->n, b->valuestring, strlen(b->valuestring), &ib)) {
            errmsg(err, errlen, "%s: \"couplings\"[%zu]: \"%s\" or \"%s\" is no parameter of the spec",
                   fname, idx, a->valuestring, b->valuestring);
            return -1;
        }
        char where[600];
        snprintf(where, sizeof where, "%.500s: \"couplings\"[%zu]", fname, idx);
        if (add_coupling(l, ps, ia, ib, k->valuedouble, where, err, errlen))
            return -1;
        idx++;
    }
    return 0;
}

int landscape_parse_json(SimLandscape *l, const SpsaParam *ps, const char *text,
                         const char *fname, char *err, size_t errlen)
{
    cJSON *root = json_parse_text(text, fname, err, errlen);
    if (!root)
        return -1;
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        errmsg(err, errlen, "%s: expected a JSON object", fname);
        goto done;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, root)
    {
        const char *key = f->string;
        if (!strcmp(key, "draw_ratio") || !strcmp(key, "opening_bias")) {
            bool draw = key[0] == 'd';
            double hi = draw ? 1.0 : 10000.0;
            if (!cJSON_IsNumber(f) || !(f->valuedouble >= 0 && f->valuedouble <= hi)) {
                errmsg(err, errlen, "%s: \"%s\" must be a number in [0, %g]", fname, key, hi);
                goto done;
            }
            *(draw ? &l->draw_ratio : &l->opening_bias) = f->valuedouble;
        } else if (!strcmp(key, "params")) {
            if (!cJSON_IsObject(f)) {
                errmsg(err, errlen, "%s: \"params\" must be an object of parameter names", fname);
                goto done;
            }
            const cJSON *q;
            cJSON_ArrayForEach(q, f)
            {
                size_t i;
                if (!find_param(ps, l->n, q->string, strlen(q->string), &i) ||
                    strcmp(ps[i].name, q->string)) {
                    errmsg(err, errlen, "%s: \"params\": \"%s\" is no parameter of the spec",
                           fname, q->string);
                    goto done;
                }
                if (json_param(l, ps, i, q, fname, err, errlen))
                    goto done;
            }
        } else if (!strcmp(key, "couplings")) {
            if (json_couplings(l, ps, f, fname, err, errlen))
                goto done;
        } else {
            errmsg(err, errlen, "%s: unknown key \"%s\" (draw_ratio, opening_bias, params, couplings)",
                   fname, key);
            goto done;
        }
    }
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

int landscape_load(SimLandscape *l, const SpsaParam *ps, const char *path, char *err,
                   size_t errlen)
{
    FILE *f = fopen(path, "rbe");
    if (!f) {
        errmsg(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1 || cap > ((size_t)64 << 20))
            break;
        cap *= 2;
        char *grown = realloc(buf, cap);
        if (!grown)
            free(buf);
        buf = grown;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (!buf || rd_err || len >= cap - 1) {
        errmsg(err, errlen, "%s: %s", path,
               !buf ? "out of memory" : rd_err ? "read error" : "larger than 64 MB");
        free(buf);
        return -1;
    }
    buf[len] = '\0';
    int rc = memchr(buf, '\0', len) ? (errmsg(err, errlen, "%s: contains a NUL byte", path), -1)
                                    : landscape_parse_json(l, ps, buf, path, err, errlen);
    free(buf);
    return rc;
}

/* ---- the whole -------------------------------------------------------------- */

int landscape_finish(SimLandscape *l, SpsaParam *ps, uint64_t seed, char *err, size_t errlen)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        errmsg(err, errlen, "simulate: out of memory");
        return -1;
    }
    gsl_rng_set(r, (unsigned long)seed);
    for (size_t i = 0; i < l->n; i++) {
        /* one draw per parameter whether it is used or not: the optimum of a
         * parameter does not depend on which others were given */
        double x = ps[i].start + ps[i].c_end * gsl_ran_flat(r, -3.0, 3.0);
        if (isnan(l->opt[i]))
            l->opt[i] = spsa_clip(floor(x + 0.5), ps[i].min, ps[i].max);
    }
    gsl_rng_free(r);
    for (size_t i = 0; i < l->n; i++) {
        double s = l->start_at_opt[i] ? l->opt[i] : l->start[i];
        if (!isnan(s)) {
            if (!ps[i].is_float)
                s = floor(s + 0.5);
            ps[i].start = ps[i].theta = spsa_clip(s, ps[i].min, ps[i].max);
        }
    }
    for (size_t j = 0; j < l->ncouplings; j++) {
        const SimCoupling *c = &l->couplings[j];
        double lim = 2.0 * sqrt(l->curv[c->a] * (1.0 - fabs(l->skew[c->a])) * l->curv[c->b] *
                                (1.0 - fabs(l->skew[c->b])));
        if (!(fabs(c->k) < lim)) {
            errmsg(err, errlen,
                   "landscape: coupling %zu (%s, %s, k %g): |k| must be below 2 sqrt(curv_a curv_b) "
                   "on the flatter sides, %g, or the optimum is not a minimum of the loss",
                   j + 1, ps[c->a].name, ps[c->b].name, c->k, lim);
            return -1;
        }
        if (l->width[c->a] > 0 || l->width[c->b] > 0) {
            errmsg(err, errlen,
                   "landscape: coupling %zu (%s, %s): a coupled parameter cannot have a plateau "
                   "(width): far away the cross term would outgrow the saturated loss",
                   j + 1, ps[c->a].name, ps[c->b].name);
            return -1;
        }
    }
    return 0;
}

SimModel landscape_model(const SimLandscape *l, double draw_ratio, double opening_bias,
                         int concurrency)
{
    SimModel m = {l->n, l->opt, l->curv, draw_ratio, opening_bias, concurrency,
                  l->ncouplings, l->couplings, l->skew, l->width, l->scale};
    return m;
}
