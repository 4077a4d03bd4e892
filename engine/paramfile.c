/* Value files: read, check as a whole, then use (format in paramfile.h). */
#include "paramfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "errmsg.h"
#include "readfile.h"

#define MAX_FILE_BYTES (16u << 20)

/* Problems found in one file: the first one's message, and how many. */
typedef struct {
    const char *fname;
    char *err;
    size_t errlen;
    int count;
} Report;

static void problem(Report *r, const char *fmt, ...)
{
    if (r->count++ > 0 || !r->err || !r->errlen)
        return;
    int n = snprintf(r->err, r->errlen, "%s: ", r->fname);
    if (n < 0 || (size_t)n >= r->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Appends "(and N more problems)" when there were several. */
static void finish_report(Report *r)
{
    if (r->count < 2 || !r->err || !r->errlen)
        return;
    size_t n = strlen(r->err);
    snprintf(r->err + n, r->errlen - n, " (and %d more problem%s)", r->count - 1,
             r->count == 2 ? "" : "s");
}

/* "the string \"3\"", "true", "an array", "1.5": what a JSON item is, for
 * messages. */
static void describe(const cJSON *it, char *buf, size_t len)
{
    if (cJSON_IsString(it))
        snprintf(buf, len, "the string \"%.40s%s\"", it->valuestring,
                 strlen(it->valuestring) > 40 ? "..." : "");
    else if (cJSON_IsBool(it))
        snprintf(buf, len, "%s", cJSON_IsTrue(it) ? "true" : "false");
    else if (cJSON_IsNull(it))
        snprintf(buf, len, "null");
    else if (cJSON_IsArray(it))
        snprintf(buf, len, "an array");
    else if (cJSON_IsObject(it))
        snprintf(buf, len, "an object");
    else if (cJSON_IsNumber(it))
        snprintf(buf, len, "%.15g", it->valuedouble);
    else
        snprintf(buf, len, "an invalid value");
}

/* The integer value of a JSON number that is a whole number within int
 * range; false (with the reason in the report) otherwise.  `where` names
 * the member. */
static bool integer_of(Report *r, const char *where, const cJSON *it, long *out)
{
    char what[96];
    describe(it, what, sizeof what);
    if (!cJSON_IsNumber(it)) {
        problem(r, "%s: expected an integer, got %s", where, what);
        return false;
    }
    double d = it->valuedouble;
    if (!isfinite(d) || d != floor(d)) {
        problem(r, "%s: %s is not an integer", where, what);
        return false;
    }
    if (d < (double)INT_MIN || d > (double)INT_MAX) {
        problem(r, "%s: %s is outside the range of an integer", where, what);
        return false;
    }
    *out = (long)d;
    return true;
}

const char *paramfile_nearest(const char *name)
{
    const char *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; i < PARAM_COUNT; i++) {
        int d = name_distance(name, param_specs[i].name);
        if (d < best_d) {
            best_d = d;
            best = param_specs[i].name;
        }
    }
    if (!best)
        return NULL;
    size_t longer = strlen(name) > strlen(best) ? strlen(name) : strlen(best);
    /* A plausible typo changes at most about half of the name. */
    return (size_t)best_d * 2 <= longer + 1 ? best : NULL;
}

/* One name = value pair from the file, checked against the list. */
static void take(Report *r, const char *where, const char *name, const cJSON *value,
                 int *vals, bool *seen)
{
    int i = param_index(name);
    if (i < 0) {
        const char *near = paramfile_nearest(name);
        if (near)
            problem(r, "%s: unknown parameter \"%s\" (did you mean %s?)", where, name, near);
        else
            problem(r, "%s: unknown parameter \"%s\" (`bin/ratchet params` lists them)",
                    where, name);
        return;
    }
    const ParamSpec *s = &param_specs[i];
    if (seen[i]) {
        problem(r, "%s: %s is given twice", where, s->name);
        return;
    }
    seen[i] = true;
    long v;
    if (!integer_of(r, where, value, &v))
        return;
    if (v < s->min || v > s->max) {
        problem(r, "%s: %ld is outside [%d, %d]", where, v, s->min, s->max);
        return;
    }
    vals[i] = (int)v;
}

/* "params": {"Name": value, ...} */
static void take_map(Report *r, const cJSON *map, int *vals, bool *seen)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, map)
    {
        char where[96];
        snprintf(where, sizeof where, "params.%.60s", it->string);
        take(r, where, it->string, it, vals, seen);
    }
}

/* The spec format: [{"name": ..., "value": ...}, ...]; `prefix` is "params"
 * or "" for a bare array. */
static void take_list(Report *r, const char *prefix, const cJSON *list, int *vals,
                      bool *seen)
{
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, list)
    {
        char where[96], what[96];
        snprintf(where, sizeof where, "%s[%d]", prefix, k++);
        if (!cJSON_IsObject(it)) {
            describe(it, what, sizeof what);
            problem(r, "%s: expected an object with \"name\" and \"value\", got %s", where,
                    what);
            continue;
        }
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (!cJSON_IsString(name)) {
            if (name) {
                describe(name, what, sizeof what);
                problem(r, "%s: \"name\" must be a string, got %s", where, what);
            } else {
                problem(r, "%s: no \"name\" member", where);
            }
            continue;
        }
        snprintf(where, sizeof where, "%s[%d] (%.60s)", prefix, k - 1, name->valuestring);
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(it, "value");
        if (!value)
            value = cJSON_GetObjectItemCaseSensitive(it, "default");
        if (!value) {
            problem(r, "%s: no \"value\" member", where);
            continue;
        }
        take(r, where, name->valuestring, value, vals, seen);
    }
}

/* Provenance next to "params": right types if present; a parameter name at
 * the top level is a misplaced parameter. */
static void check_top(Report *r, const cJSON *root)
{
    static const char *const strings[] = {"source", "date", "comment", "engine"};
    static const char *const counts[] = {"games", "iterations"};
    const cJSON *it;
    cJSON_ArrayForEach(it, root)
    {
        char what[96];
        const char *key = it->string;
        if (strcmp(key, "params") == 0)
            continue;
        for (size_t k = 0; k < sizeof strings / sizeof *strings; k++)
            if (strcmp(key, strings[k]) == 0 && !cJSON_IsString(it)) {
                describe(it, what, sizeof what);
                problem(r, "\"%s\" must be a string, got %s", key, what);
            }
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
            if (strcmp(key, counts[k]) == 0) {
                double d = cJSON_IsNumber(it) ? it->valuedouble : -1;
                if (!(d >= 0 && d == floor(d) && isfinite(d))) {
                    describe(it, what, sizeof what);
                    problem(r, "\"%s\" must be a non-negative integer, got %s", key, what);
                }
            }
        if (param_index(key) >= 0)
            problem(r, "\"%s\" is a parameter: put it inside \"params\": {...}", key);
    }
}

/* Malformed JSON: "FILE:LINE:COL: malformed JSON near '...'" (or the
 * reason given, e.g. a NUL byte). */
static void syntax_error(Report *r, const char *text, size_t len, size_t at,
                         const char *reason)
{
    if (at > len)
        at = len;
    size_t line, col;
    text_line_col(text, text + at, &line, &col);
    size_t rest = at;
    while (rest < len && isspace((unsigned char)text[rest]))
        rest++;
    /* The error's line, up to 20 characters either side of it, trimmed. */
    size_t from = at - (col - 1), to = at;
    if (at - from > 20)
        from = at - 20;
    while (to < len && text[to] != '\n' && to - at < 20)
        to++;
    while (from < to && isspace((unsigned char)text[from]))
        from++;
    while (to > from && isspace((unsigned char)text[to - 1]))
        to--;
    char near[48];
    size_t n = 0;
    for (size_t k = from; k < to; k++)
        near[n++] = isprint((unsigned char)text[k]) ? text[k] : '?';
    near[n] = '\0';
    r->count++;
    if (!r->err || !r->errlen)
        return;
    if (reason)
        snprintf(r->err, r->errlen, "%s:%zu:%zu: %s", r->fname, line, col, reason);
    else if (rest >= len)
        snprintf(r->err, r->errlen, "%s:%zu:%zu: malformed JSON: unexpected end of file",
                 r->fname, line, col);
    else
        snprintf(r->err, r->errlen, "%s:%zu:%zu: malformed JSON near '%s'", r->fname, line,
                 col, near);
}

int paramfile_parse(const char *text, size_t len, const char *fname,
                    int values[PARAM_COUNT], bool given[PARAM_COUNT], char *err,
                    size_t errlen)
{
    Report r = {fname, err, errlen, 0};
    size_t k = 0;
    while (k < len && isspace((unsigned char)text[k]))
        k++;
    if (k == len) {
        problem(&r, "empty file (expected a JSON object with a \"params\" member)");
        return -1;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        syntax_error(&r, text, len, (size_t)(nul - text), "a NUL byte: not a JSON text file");
        return -1;
    }
    /* The NUL after the text is part of the buffer so that cJSON can check
     * that nothing follows the value. */
    char *copy = malloc(len + 1);
    if (!copy) {
        problem(&r, "out of memory");
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
    if (!root) {
        syntax_error(&r, copy, len, end ? (size_t)(end - copy) : len, NULL);
        free(copy);
        return -1;
    }
    free(copy);

    int vals[PARAM_COUNT];
    bool seen[PARAM_COUNT] = {false};
    for (int i = 0; i < PARAM_COUNT; i++)
        vals[i] = param_specs[i].def;

    char what[96];
    if (cJSON_IsArray(root)) {
        take_list(&r, "", root, vals, seen);
    } else if (cJSON_IsObject(root)) {
        check_top(&r, root);
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
        if (cJSON_IsObject(params)) {
            take_map(&r, params, vals, seen);
        } else if (cJSON_IsArray(params)) {
            take_list(&r, "params", params, vals, seen);
        } else if (params) {
            describe(params, what, sizeof what);
            problem(&r,
                    "\"params\" must be an object of \"Name\": integer members or an array "
                    "of parameter objects, got %s",
                    what);
        } else {
            problem(&r, "no \"params\" member (expected {\"params\": {\"Name\": value, ...}})");
        }
    } else {
        describe(root, what, sizeof what);
        problem(&r, "expected a JSON object with a \"params\" member, got %s", what);
    }
    cJSON_Delete(root);

    if (r.count > 0) {
        finish_report(&r);
        return -1;
    }
    int named = 0;
    for (int i = 0; i < PARAM_COUNT; i++) {
        values[i] = vals[i];
        if (given)
            given[i] = seen[i];
        named += seen[i];
    }
    return named;
}

int paramfile_read(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rbe");
    if (!f)
        return errmsg(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    size_t n = 0;
    char *buf = read_stream(f, MAX_FILE_BYTES, &n);
    int e = errno;
    fclose(f);
    if (!buf) {
        if (e == EFBIG)
            errmsg(err, errlen, "%s: larger than %u bytes: not a value file", path, MAX_FILE_BYTES);
        else
            errmsg(err, errlen, "%s: cannot read: %s", path, e == ENOMEM ? "out of memory" : strerror(e));
        return -1;
    }
    *text = buf;
    *len = n;
    return 0;
}

int paramfile_load(const char *path, int values[PARAM_COUNT], bool given[PARAM_COUNT],
                   char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (paramfile_read(path, &text, &len, err, errlen) < 0)
        return -1;
    int named = paramfile_parse(text, len, path, values, given, err, errlen);
    free(text);
    return named;
}

int paramfile_apply(const char *path, char *err, size_t errlen)
{
    if (params_baked())
        return errmsg(err, errlen,
                      "%s: not loaded: the parameters are baked into this build (%s); "
                      "rebuild without PARAMS to load value files",
                      path, params_baked_tag());
    int values[PARAM_COUNT];
    int named = paramfile_load(path, values, NULL, err, errlen);
    if (named < 0)
        return -1;
    char why[256];
    if (params_set_all(values, why, sizeof why) < 0)
        return errmsg(err, errlen, "%s: %s", path, why);
    return named;
}

void paramfile_tag(const char *text, size_t len, char tag[PARAMFILE_TAG_LEN])
{
    uint64_t h = 14695981039346656037ull;
    for (size_t k = 0; k < len; k++) {
        h ^= (unsigned char)text[k];
        h *= 1099511628211ull;
    }
    snprintf(tag, PARAMFILE_TAG_LEN, "%08x", (unsigned)(h >> 32));
}
