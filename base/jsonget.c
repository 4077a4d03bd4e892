/* JSON read from files; see jsonget.h. */
#include "jsonget.h"

#include <math.h>

#include "errmsg.h"

bool json_u64_of(double d, uint64_t *out)
{
    if (!(d >= 0) || d > 9007199254740992.0 || d != floor(d))
        return false;
    *out = (uint64_t)d;
    return true;
}

bool json_count(const cJSON *v, uint64_t *out)
{
    uint64_t n;
    if (!cJSON_IsNumber(v) || !json_u64_of(v->valuedouble, &n))
        return false;
    if (out)
        *out = n;
    return true;
}

bool json_get_u64(const cJSON *o, const char *key, uint64_t *out)
{
    return json_count(cJSON_GetObjectItemCaseSensitive(o, key), out);
}

int json_get_count(const cJSON *o, const char *key, uint64_t *out, const char *what, char *err, size_t errlen)
{
    if (json_get_u64(o, key, out))
        return 0;
    return errmsg(err, errlen, "%s%s is %s", what, key,
                  cJSON_GetObjectItemCaseSensitive(o, key) ? "not a count (a non-negative integer)" : "missing");
}

double json_num_shown(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

const char *json_text_shown(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(x) ? x->valuestring : "?";
}

const char *json_get_text(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

const char *json_shown(const char *s)
{
    return s ? s : "?";
}

cJSON *json_parse_text(const char *text, const char *name, char *err, size_t errlen)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(text, &end, true);
    if (!j) {
        size_t line, col;
        text_line_col(text, end ? end : text, &line, &col);
        errmsg(err, errlen, "%s:%zu:%zu: malformed JSON", name, line, col);
    }
    return j;
}

bool json_get_counts(const cJSON *o, const char *key, uint64_t *out, int n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!json_count(cJSON_GetArrayItem(a, i), &out[i]))
            return false;
    return true;
}
