/* Parameter spec files: Ratchet JSON or OpenBench lines (format in spec.h). */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cliutil.h"
#include "errmsg.h"
#include "jsonget.h"
#include "readfile.h"
#include "uciopt.h"

static bool integral(double x)
{
    return isfinite(x) && x == floor(x) && fabs(x) < 2e9;
}

/* Checks one parsed parameter; `where` is "file:line" or "file: params[i]". */
static int check(const SpsaParam *p, const char *where, char *err, size_t errlen)
{
    if (!p->name[0]) {
        errmsg(err, errlen, "%s: empty parameter name", where);
        return -1;
    }
    if (p->is_float ? !isfinite(p->start) || !isfinite(p->min) || !isfinite(p->max)
                    : !integral(p->start) || !integral(p->min) || !integral(p->max)) {
        errmsg(err, errlen, "%s: %s: value, min and max must be %s", where, p->name,
               p->is_float ? "finite numbers" : "integers (or make it a float parameter)");
        return -1;
    }
    if (p->min > p->max) {
        errmsg(err, errlen, "%s: %s: min %g > max %g", where, p->name, p->min, p->max);
        return -1;
    }
    if (p->start < p->min || p->start > p->max) {
        errmsg(err, errlen, "%s: %s: value %g outside [min %g, max %g]", where, p->name,
               p->start, p->min, p->max);
        return -1;
    }
    if (!(p->c_end > 0) || !isfinite(p->c_end)) {
        errmsg(err, errlen, "%s: %s: c_end must be > 0 (got %g)", where, p->name, p->c_end);
        return -1;
    }
    if (!(p->r_end > 0) || !isfinite(p->r_end)) {
        errmsg(err, errlen, "%s: %s: r_end must be > 0 (got %g)", where, p->name, p->r_end);
        return -1;
    }
    return 0;
}

/* A UCI option name as the engine's `option name ... type` line gives it:
 * the words between `name` and `type`, so runs of white space count as one
 * space and the words "value" and "type" cannot be part of it.  A comma
 * cannot be either: it separates the names of only=. */
static int set_name(SpsaParam *p, const char *name, const char *where, char *err,
                    size_t errlen)
{
    char words[SPSA_NAME_MAX];
    if (uciopt_words(name, words, sizeof words) < 0) {
        errmsg(err, errlen, "%s: name \"%.20s...\" longer than %d characters", where, name,
               SPSA_NAME_MAX - 1);
        return -1;
    }
    for (const char *s = words; *s; s++)
        if (iscntrl((unsigned char)*s) || *s == ',' || *s == '"') {
            errmsg(err, errlen, "%s: name \"%s\" contains a %s", where, words,
                   *s == ',' ? "comma (only= separates names with commas)"
                   : *s == '"' ? "double quote" : "control character");
            return -1;
        }
    for (const char *w = words; *w;) {
        size_t n = strcspn(w, " ");
        if ((n == 5 && !strncmp(w, "value", 5)) || (n == 4 && !strncmp(w, "type", 4))) {
            errmsg(err, errlen, "%s: name \"%s\" contains the word \"%.*s\", which UCI cannot "
                   "tell from the end of a name", where, words, (int)n, w);
            return -1;
        }
        w += n + (w[n] == ' ');
    }
    strcpy(p->name, words);
    return 0;
}

static int check_duplicates(const SpsaParam *ps, size_t n, const char *fname, char *err,
                            size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcasecmp(ps[i].name, ps[j].name)) {
                errmsg(err, errlen, "%s: parameter %s appears twice", fname, ps[i].name);
                return -1;
            }
    return 0;
}

/* ---- JSON --------------------------------------------------------------- */

static int json_num(const cJSON *o, const char *key, const char *alt, double *out,
                    const char *where, const char *name, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && alt)
        v = cJSON_GetObjectItemCaseSensitive(o, alt);
    if (!cJSON_IsNumber(v)) {
        errmsg(err, errlen, "%s: %s: \"%s\" %s", where, name, key,
               v ? "is not a number" : "is missing");
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

static int parse_json(const char *text, const char *fname, SpsaParam **out, size_t *nout,
                      char *err, size_t errlen)
{
    cJSON *root = json_parse_text(text, fname, err, errlen);
    if (!root)
        return -1;
    const cJSON *arr = root;
    if (cJSON_IsObject(root)) {
        arr = cJSON_GetObjectItemCaseSensitive(root, "params");
        if (!cJSON_IsArray(arr)) {
            errmsg(err, errlen, "%s: unknown format: a JSON object without a \"params\" array",
                   fname);
            cJSON_Delete(root);
            return -1;
        }
    } else if (!cJSON_IsArray(root)) {
        errmsg(err, errlen, "%s: unknown format: JSON that is neither an array nor an object",
               fname);
        cJSON_Delete(root);
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0) {
        errmsg(err, errlen, "%s: no parameters", fname);
        cJSON_Delete(root);
        return -1;
    }
    SpsaParam *ps = calloc(n, sizeof *ps);
    if (!ps) {
        errmsg(err, errlen, "%s: out of memory", fname);
        cJSON_Delete(root);
        return -1;
    }
    size_t i = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, arr)
    {
        char where[512];
        snprintf(where, sizeof where, "%s: params[%zu]", fname, i);
        SpsaParam *p = &ps[i];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(q, "name");
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(q, "type");
        if (!cJSON_IsObject(q)) {
            errmsg(err, errlen, "%s: not an object", where);
            goto fail;
        }
        if (!cJSON_IsString(name)) {
            errmsg(err, errlen, "%s: \"name\" missing or not a string", where);
            goto fail;
        }
        if (set_name(p, name->valuestring, where, err, errlen))
            goto fail;
        if (type && (!cJSON_IsString(type) || (strcasecmp(type->valuestring, "int") &&
                                               strcasecmp(type->valuestring, "float")))) {
            errmsg(err, errlen, "%s: %s: \"type\" must be \"int\" or \"float\"", where, p->name);
            goto fail;
        }
        p->is_float = type && !strcasecmp(type->valuestring, "float");
        if (json_num(q, "value", "default", &p->start, where, p->name, err, errlen) ||
            json_num(q, "min", NULL, &p->min, where, p->name, err, errlen) ||
            json_num(q, "max", NULL, &p->max, where, p->name, err, errlen) ||
            json_num(q, "c_end", NULL, &p->c_end, where, p->name, err, errlen) ||
            json_num(q, "r_end", NULL, &p->r_end, where, p->name, err, errlen))
            goto fail;
        p->theta = p->start;
        if (check(p, where, err, errlen))
            goto fail;
        i++;
    }
    cJSON_Delete(root);
    if (check_duplicates(ps, n, fname, err, errlen)) {
        free(ps);
        return -1;
    }
    *out = ps;
    *nout = n;
    return 0;
fail:
    cJSON_Delete(root);
    free(ps);
    return -1;
}

/* ---- OpenBench lines ---------------------------------------------------- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

#define LINE_FIELDS_MAX 8
static const char *const FIELD_NAMES[] = {"value", "min", "max", "c_end", "r_end"};

/* Parses one data line into p.  Returns 0, or -1 with a message; sets
 * *shape_ok when the line had the shape of a spec line (right field count). */
static int parse_line(char *line, SpsaParam *p, const char *where, bool *shape_ok, char *err,
                      size_t errlen)
{
    char *fields[LINE_FIELDS_MAX];
    int nf = 0;
    char *s = line;
    for (;;) {
        char *comma = strchr(s, ',');
        if (nf == LINE_FIELDS_MAX) {
            nf++;
            break;
        }
        if (comma)
            *comma = '\0';
        fields[nf++] = trim(s);
        if (!comma)
            break;
        s = comma + 1;
    }
    *shape_ok = false;
    int first = 1;
    if (nf == 7) {
        p->is_float = !strcasecmp(fields[1], "float");
        if (strcasecmp(fields[1], "int") && !p->is_float) {
            errmsg(err, errlen, "%s: bad line: the second of 7 fields must be \"int\" or \"float\" (got \"%s\")",
                   where, fields[1]);
            return -1;
        }
        first = 2;
    } else if (nf != 6) {
        errmsg(err, errlen,
               "%s: bad line: expected \"name, int|float, value, min, max, c_end, r_end\" or "
               "\"name, value, min, max, c_end, r_end\" (got %d field%s)",
               where, nf > LINE_FIELDS_MAX ? LINE_FIELDS_MAX + 1 : nf, nf == 1 ? "" : "s");
        return -1;
    }
    double v[5];
    for (int i = 0; i < 5; i++)
        if (!cli_parse_double(fields[first + i], -HUGE_VAL, HUGE_VAL, &v[i])) {
            errmsg(err, errlen, "%s: bad line: %s \"%s\" is not a number", where, FIELD_NAMES[i],
                   fields[first + i]);
            return -1;
        }
    *shape_ok = true;
    if (set_name(p, fields[0], where, err, errlen))
        return -1;
    p->start = p->theta = v[0];
    p->min = v[1];
    p->max = v[2];
    p->c_end = v[3];
    p->r_end = v[4];
    return check(p, where, err, errlen);
}

static int parse_lines(const char *text, const char *fname, SpsaParam **out, size_t *nout,
                       char *err, size_t errlen)
{
    char *copy = strdup(text);
    SpsaParam *ps = NULL;
    size_t n = 0, cap = 0, lineno = 0;
    if (!copy) {
        errmsg(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    char *save = copy;
    while (save) {
        char *line = save;
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
            save = nl + 1;
        } else {
            save = NULL;
        }
        lineno++;
        char *t = trim(line);
        if (!*t || *t == '#')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            SpsaParam *grown = realloc(ps, cap * sizeof *ps);
            if (!grown) {
                errmsg(err, errlen, "%s: out of memory", fname);
                goto fail;
            }
            ps = grown;
        }
        memset(&ps[n], 0, sizeof ps[n]);
        char where[512];
        snprintf(where, sizeof where, "%s:%zu", fname, lineno);
        bool shape_ok;
        if (parse_line(t, &ps[n], where, &shape_ok, err, errlen)) {
            if (n == 0 && !shape_ok) {
                /* The first data line does not even look like a spec line. */
                char msg[512];
                snprintf(msg, sizeof msg, "%s", err);
                errmsg(err, errlen,
                       "%s: unknown format: neither a Ratchet spec JSON (an array or "
                       "{\"params\": [...]}) nor OpenBench lines (%s)",
                       fname, msg);
            }
            goto fail;
        }
        n++;
    }
    if (n == 0) {
        errmsg(err, errlen, "%s: no parameters", fname);
        goto fail;
    }
    if (check_duplicates(ps, n, fname, err, errlen))
        goto fail;
    free(copy);
    *out = ps;
    *nout = n;
    return 0;
fail:
    free(copy);
    free(ps);
    return -1;
}

int spec_parse(const char *text, const char *fname, SpsaParam **out, size_t *n, char *err,
               size_t errlen)
{
    *out = NULL;
    *n = 0;
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '[' || *s == '{')
        return parse_json(text, fname, out, n, err, errlen);
    return parse_lines(text, fname, out, n, err, errlen);
}

int spec_load(const char *path, SpsaParam **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "rbe");
    if (!f) {
        errmsg(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0;
    char *buf = read_stream(f, 0, &len);
    int e = errno;
    fclose(f);
    if (!buf) {
        errmsg(err, errlen, "%s: %s", path, e == ENOMEM ? "out of memory" : "read error");
        return -1;
    }
    if (memchr(buf, '\0', len)) {
        free(buf);
        errmsg(err, errlen, "%s: unknown format: binary data", path);
        return -1;
    }
    int rc = spec_parse(buf, path, out, n, err, errlen);
    free(buf);
    return rc;
}
