/* Settings of a tuning run from the command line and JSON; see conf.h. */
#include "conf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"
#include "rd.h"
#include "spsa.h"
#include "strlist.h"

enum { KV, KV_FILE, SCALAR };

static const struct {
    const char *name;
    int kind;
    bool match;             /* forwarded to match_parse_option */
    const char *const *keys; /* keys checked here, or NULL (checked by the match parser) */
} SECTIONS[] = {
    { "engine", KV, true, NULL },
    { "each", KV, true, NULL },
    { "openings", KV, true, NULL },
    { "draw", KV, true, NULL },
    { "resign", KV, true, NULL },
    { "pgnout", KV_FILE, true, NULL },
    { "log", KV_FILE, true, NULL },
    { "maxmoves", SCALAR, true, NULL },
    { "concurrency", SCALAR, true, NULL },
    { "srand", SCALAR, true, NULL },
    { "params", KV, false, (const char *const[]){ "file", "only", NULL } },
    { "spsa", KV, false, SPSA_KEYS },
    { "validate", KV, false, (const char *const[]){ "every", "games", "final", "holdout", "tc", "st", "nodes", "depth", "nodestime", NULL } },
    { "out", SCALAR, false, NULL },
    { "config", KV_FILE, false, (const char *const[]){ "file", NULL } },
};
#define NSECTIONS (sizeof SECTIONS / sizeof *SECTIONS)

static int section_index(const char *sec)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (strcmp(SECTIONS[i].name, sec) == 0)
            return (int)i;
    return -1;
}

void conf_field(const char *sec, const char *key, char *buf, size_t len)
{
    if (key && key[0])
        snprintf(buf, len, "%s.%s", sec, key);
    else
        snprintf(buf, len, "%s", sec);
}

/* Is key allowed in section s?  Sections checked by the match parser take any key. */
static bool key_allowed(int s, const char *key)
{
    return !SECTIONS[s].keys || str_in_list(SECTIONS[s].keys, key);
}

static void unknown_key_msg(int s, const char *key, const char *origin, char *err, size_t errlen)
{
    char known[256] = "";
    size_t n = 0;
    for (const char *const *k = SECTIONS[s].keys; *k && n < sizeof known; k++)
        n = appendf(known, sizeof known, n, "%s%s", n ? ", " : "", *k);
    errmsg(err, errlen, "%s: unknown key '%s.%s' (the keys of '%s' are %s)", origin, SECTIONS[s].name, key,
           SECTIONS[s].name, known);
}

void conf_init(RunConf *c) { memset(c, 0, sizeof *c); }

void conf_free(RunConf *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].sec);
        free(c->v[i].key);
        free(c->v[i].val);
    }
    free(c->v);
    free(c->origin_file);
    memset(c, 0, sizeof *c);
}

const ConfItem *conf_find(const RunConf *c, const char *sec, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].sec, sec) == 0 && strcmp(c->v[i].key, key ? key : "") == 0)
            return &c->v[i];
    return NULL;
}

const char *conf_get(const RunConf *c, const char *sec, const char *key)
{
    const ConfItem *it = conf_find(c, sec, key);
    return it ? it->val : NULL;
}

int conf_set(RunConf *c, const char *sec, const char *key, const char *val, const char *origin)
{
    if (!key)
        key = "";
    ConfItem *it = (ConfItem *)conf_find(c, sec, key);
    if (it) {
        char *v = strdup(val);
        if (!v)
            return -1;
        free(it->val);
        it->val = v;
        it->origin = origin;
        return 0;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        ConfItem *nv = realloc(c->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        c->v = nv;
        c->cap = cap;
    }
    ConfItem n = { strdup(sec), strdup(key), strdup(val), origin };
    if (!n.sec || !n.key || !n.val) {
        free(n.sec);
        free(n.key);
        free(n.val);
        return -1;
    }
    c->v[c->n++] = n;
    return 0;
}

void conf_unset(RunConf *c, const char *sec, const char *key)
{
    ConfItem *it = (ConfItem *)conf_find(c, sec, key);
    if (!it)
        return;
    free(it->sec);
    free(it->key);
    free(it->val);
    size_t i = (size_t)(it - c->v);
    memmove(c->v + i, c->v + i + 1, (c->n - i - 1) * sizeof *c->v);
    c->n--;
}

int conf_merge(RunConf *c, const RunConf *over)
{
    for (size_t i = 0; i < over->n; i++)
        if (conf_set(c, over->v[i].sec, over->v[i].key, over->v[i].val, over->v[i].origin) < 0)
            return -1;
    return 0;
}

/* ---- command line --------------------------------------------------------- */

int conf_parse_args(RunConf *c, int argc, char **argv, const char *const *allowed, char *err,
                    size_t errlen)
{
    static const char *const ORIGIN = "command line";
    int i = 0;
    while (i < argc) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            errmsg(err, errlen, "unexpected argument '%s' (options start with '-')", a);
            return -1;
        }
        const char *sec = a + (a[1] == '-' ? 2 : 1);
        if (strcmp(sec, "repeat") == 0) { /* a run always plays pairs */
            i++;
            continue;
        }
        if (strcmp(sec, "games") == 0 || strcmp(sec, "rounds") == 0) {
            errmsg(err, errlen, "option '%s': the length of a tuning run is set with -spsa games=N", a);
            return -1;
        }
        int s = section_index(sec);
        if (s < 0 || (allowed && !str_in_list(allowed, sec))) {
            errmsg(err, errlen, "unknown option '%s' (see --help)", a);
            return -1;
        }
        i++;
        if (SECTIONS[s].kind == SCALAR) {
            if (i >= argc || (argv[i][0] == '-' && argv[i][1] != '\0' && !strchr("0123456789", argv[i][1]))) {
                errmsg(err, errlen, "option '%s' needs a value", a);
                return -1;
            }
            if (conf_set(c, sec, "", argv[i++], ORIGIN) < 0)
                goto oom;
            continue;
        }
        int n = 0;
        bool off = false;
        for (; i < argc && argv[i][0] != '-'; i++, n++) {
            const char *w = argv[i];
            const char *eq = strchr(w, '=');
            char key[128];
            const char *val;
            if (!eq && n == 0 && !strcmp(SECTIONS[s].name, "validate") && !strcmp(w, "off")) {
                snprintf(key, sizeof key, "games"); /* -validate off: no validation points */
                val = "0";
                off = true;
            } else if (!eq && n == 0 && SECTIONS[s].kind == KV_FILE) {
                snprintf(key, sizeof key, "file");
                val = w;
            } else if (!eq || eq == w || (size_t)(eq - w) >= sizeof key) {
                errmsg(err, errlen, "option '%s': expected key=value, got '%s'", a, w);
                return -1;
            } else {
                memcpy(key, w, (size_t)(eq - w));
                key[eq - w] = '\0';
                val = eq + 1;
            }
            if (strcmp(key, "proto") == 0 && SECTIONS[s].match) {
                if (strcmp(val, "uci") != 0) {
                    errmsg(err, errlen, "option '%s': proto=%s: UCI is the only protocol", a, val);
                    return -1;
                }
                continue;
            }
            if (!key_allowed(s, key)) {
                unknown_key_msg(s, key, ORIGIN, err, errlen);
                return -1;
            }
            if (off && n > 0 && strcmp(key, "holdout") != 0) {
                errmsg(err, errlen, "option '%s': off plays no validation point, so '%s' contradicts it (holdout= is "
                       "the one setting that goes with off)", a, w);
                return -1;
            }
            if (conf_set(c, sec, key, val, ORIGIN) < 0)
                goto oom;
        }
        if (n == 0) {
            errmsg(err, errlen, "option '%s' needs key=value settings", a);
            return -1;
        }
    }
    return 0;
oom:
    errmsg(err, errlen, "out of memory");
    return -1;
}

/* ---- JSON ------------------------------------------------------------------ */

static void format_number(double d, char *buf, size_t len)
{
    if (d == floor(d) && fabs(d) < 1e15) {
        snprintf(buf, len, "%.0f", d);
        return;
    }
    snprintf(buf, len, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, len, "%.17g", d);
}

/* A scalar or an array of scalars as a string; -1 if it is neither. */
static int value_string(const cJSON *v, char *buf, size_t len)
{
    if (cJSON_IsString(v)) {
        snprintf(buf, len, "%s", v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        format_number(v->valuedouble, buf, len);
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsArray(v)) {
        size_t n = 0;
        buf[0] = '\0';
        const cJSON *e;
        cJSON_ArrayForEach(e, v)
        {
            char one[256];
            if (cJSON_IsArray(e) || cJSON_IsObject(e) || value_string(e, one, sizeof one) < 0)
                return -1;
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "", one);
        }
        if (n >= len)
            return -1;
    } else {
        return -1;
    }
    return 0;
}

static int add_object(RunConf *c, int s, const char *prefix, const cJSON *obj, const char *origin, char *err,
                      size_t errlen)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, obj)
    {
        char key[256];
        snprintf(key, sizeof key, "%s%s", prefix, m->string);
        if (cJSON_IsObject(m)) {
            char p[258];
            snprintf(p, sizeof p, "%s.", key);
            if (add_object(c, s, p, m, origin, err, errlen) < 0)
                return -1;
            continue;
        }
        if (strcmp(key, "proto") == 0 && SECTIONS[s].match)
            continue;
        if (!key_allowed(s, key)) {
            unknown_key_msg(s, key, origin, err, errlen);
            return -1;
        }
        char val[4096];
        if (value_string(m, val, sizeof val) < 0) {
            errmsg(err, errlen, "%s: '%s.%s' must be a string, a number, true/false or a list of those", origin,
                   SECTIONS[s].name, key);
            return -1;
        }
        if (conf_set(c, SECTIONS[s].name, key, val, origin) < 0) {
            errmsg(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

int conf_from_json(RunConf *c, const cJSON *obj, const char *origin, char *err, size_t errlen)
{
    if (!cJSON_IsObject(obj)) {
        errmsg(err, errlen, "%s: the configuration must be a JSON object", origin);
        return -1;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, obj)
    {
        int s = section_index(m->string);
        if (s < 0 || strcmp(m->string, "config") == 0) {
            errmsg(err, errlen, "%s: unknown key '%s'", origin, m->string);
            return -1;
        }
        if (cJSON_IsObject(m)) {
            if (SECTIONS[s].kind == SCALAR) {
                errmsg(err, errlen, "%s: '%s' takes a single value, not an object", origin, m->string);
                return -1;
            }
            if (add_object(c, s, "", m, origin, err, errlen) < 0)
                return -1;
            continue;
        }
        char val[4096];
        if (value_string(m, val, sizeof val) < 0 || SECTIONS[s].kind == KV) {
            errmsg(err, errlen, "%s: '%s' must be %s", origin, m->string,
                   SECTIONS[s].kind == KV ? "an object of settings" : "a string or a number");
            return -1;
        }
        if (conf_set(c, m->string, SECTIONS[s].kind == KV_FILE ? "file" : "", val, origin) < 0) {
            errmsg(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

int conf_load_file(RunConf *c, const char *path, char *err, size_t errlen)
{
    char why[PATH_MAX + 256];
    char *text = rd_read_file(path, NULL, why, sizeof why);
    if (!text)
        return errmsg(err, errlen, "config.file: %s", why);
    cJSON *j = json_parse_text(text, path, err, errlen);
    free(text);
    if (!j)
        return -1;
    free(c->origin_file);
    c->origin_file = strdup(path);
    int rc = conf_from_json(c, j, c->origin_file ? c->origin_file : "config file", err, errlen);
    cJSON_Delete(j);
    return rc;
}

/* The value as a JSON number when that prints back to the same text. */
static cJSON *json_value(const char *s)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (s[0] && *end == '\0' && errno == 0 && isfinite(d) && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        char back[64];
        format_number(d, back, sizeof back);
        if (strcmp(back, s) == 0)
            return cJSON_CreateNumber(d);
    }
    return cJSON_CreateString(s);
}

cJSON *conf_to_json(const RunConf *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    for (size_t i = 0; i < c->n; i++) {
        const ConfItem *it = &c->v[i];
        cJSON *v = json_value(it->val);
        if (!v)
            goto oom;
        if (it->key[0] == '\0') {
            cJSON_DeleteItemFromObjectCaseSensitive(o, it->sec);
            cJSON_AddItemToObject(o, it->sec, v);
            continue;
        }
        cJSON *s = cJSON_GetObjectItemCaseSensitive(o, it->sec);
        if (!s && !(s = cJSON_AddObjectToObject(o, it->sec))) {
            cJSON_Delete(v);
            goto oom;
        }
        cJSON_AddItemToObject(s, it->key, v);
    }
    return o;
oom:
    cJSON_Delete(o);
    return NULL;
}

/* ---- match argv ------------------------------------------------------------ */

int conf_argv_push(int *argc, char ***argv, const char *s)
{
    char **nv = realloc(*argv, (size_t)(*argc + 2) * sizeof *nv);
    if (!nv)
        return -1;
    *argv = nv;
    if (!(nv[*argc] = strdup(s)))
        return -1;
    nv[++*argc] = NULL;
    return 0;
}

int conf_section_argv(const RunConf *c, const char *sec, const char *name, int *argc, char ***argv)
{
    int count = 0;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].sec, sec) == 0 && !(name && strcmp(c->v[i].key, "name") == 0))
            count++;
    if (count == 0 && !name)
        return 0;
    char opt[64];
    snprintf(opt, sizeof opt, "-%s", sec);
    if (conf_argv_push(argc, argv, opt) < 0)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        const ConfItem *it = &c->v[i];
        if (strcmp(it->sec, sec) != 0 || (name && strcmp(it->key, "name") == 0))
            continue;
        if (it->key[0] == '\0') {
            if (conf_argv_push(argc, argv, it->val) < 0)
                return -1;
            continue;
        }
        size_t len = strlen(it->key) + strlen(it->val) + 2;
        char *kv = malloc(len);
        if (!kv)
            return -1;
        snprintf(kv, len, "%s=%s", it->key, it->val);
        int rc = conf_argv_push(argc, argv, kv);
        free(kv);
        if (rc < 0)
            return -1;
    }
    if (name) {
        size_t len = strlen(name) + 6;
        char *kv = malloc(len);
        if (!kv)
            return -1;
        snprintf(kv, len, "name=%s", name);
        int rc = conf_argv_push(argc, argv, kv);
        free(kv);
        if (rc < 0)
            return -1;
    }
    return count;
}

void conf_free_argv(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

/* ---- typed getters --------------------------------------------------------- */

int conf_get_u64(const RunConf *c, const char *sec, const char *key, unsigned long long lo,
                 unsigned long long hi, unsigned long long *out, char *err, size_t errlen)
{
    const ConfItem *it = conf_find(c, sec, key);
    if (!it)
        return 0;
    char f[160];
    conf_field(sec, key, f, sizeof f);
    const char *s = it->val;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!(s[0] >= '0' && s[0] <= '9') || *end != '\0' || errno != 0 || v < lo || v > hi) {
        errmsg(err, errlen, "%s: %s = '%s': expected an integer from %llu to %llu", it->origin, f, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int conf_get_double(const RunConf *c, const char *sec, const char *key, double lo, double hi,
                    double *out, char *err, size_t errlen)
{
    const ConfItem *it = conf_find(c, sec, key);
    if (!it)
        return 0;
    char f[160];
    conf_field(sec, key, f, sizeof f);
    char *end;
    errno = 0;
    double v = strtod(it->val, &end);
    if (it->val[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < lo || v > hi) {
        errmsg(err, errlen, "%s: %s = '%s': expected a number from %g to %g", it->origin, f, it->val, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}
