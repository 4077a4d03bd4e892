/* DIR/openings.json: the held-out openings each step claimed; see claims.h. */
#include "claims.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "errmsg.h"
#include "jsonget.h"
#include "jsonput.h"
#include "rd.h"

void claims_free(OpenClaims *c)
{
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

static int copy_str(const cJSON *o, const char *key, char *dst, size_t len)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(s) || strlen(s->valuestring) >= len)
        return -1;
    snprintf(dst, len, "%s", s->valuestring);
    return 0;
}

int claims_load(const char *dir, uint64_t held_out, OpenClaims *c, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, CLAIMS_FILE);
    claims_free(c);
    c->held_out = held_out;
    if (access(path, F_OK) != 0)
        return 0;
    cJSON *j = rd_read_json(path, err, errlen);
    if (!j)
        return -1;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "claims"), *it;
    uint64_t was = 0;
    int rc = 0;
    if (!json_get_u64(j, "held_out", &was) || !cJSON_IsArray(arr))
        rc = errmsg(err, errlen, "%s: \"held_out\" or \"claims\" is missing or malformed", path);
    else if (was != held_out)
        rc = errmsg(err, errlen, "%s: written for %llu held-out openings, the run holds %llu out", path,
                    (unsigned long long)was, (unsigned long long)held_out);
    size_t n = rc == 0 ? (size_t)cJSON_GetArraySize(arr) : 0;
    if (rc == 0 && n && !(c->v = calloc(n, sizeof *c->v)))
        rc = errmsg(err, errlen, "out of memory");
    const cJSON *each = rc == 0 ? arr : NULL;
    cJSON_ArrayForEach(it, each)
    {
        OpenClaim *k = &c->v[c->n];
        if (copy_str(it, "step", k->step, sizeof k->step) < 0 || copy_str(it, "file", k->file, sizeof k->file) < 0 ||
            copy_str(it, "created", k->created, sizeof k->created) < 0 || !json_get_u64(it, "first", &k->first) ||
            !json_get_u64(it, "count", &k->count) || !json_get_u64(it, "seed", &k->seed)) {
            rc = errmsg(err, errlen, "%s: claim %zu: a field is missing or malformed (step, file, first, count, "
                        "seed, created)", path, c->n + 1);
            break;
        }
        if (k->first > held_out || k->count > held_out - k->first) {
            rc = errmsg(err, errlen, "%s: claim %zu (%s): openings %llu..%llu are beyond the %llu held out", path,
                        c->n + 1, k->file, (unsigned long long)k->first,
                        (unsigned long long)(k->first + k->count), (unsigned long long)held_out);
            break;
        }
        for (size_t i = 0; i < c->n; i++)
            if (k->first < c->v[i].first + c->v[i].count && c->v[i].first < k->first + k->count) {
                rc = errmsg(err, errlen, "%s: claim %zu (%s) overlaps claim %zu (%s)", path, c->n + 1, k->file, i + 1,
                            c->v[i].file);
                break;
            }
        if (rc < 0)
            break;
        c->n++;
    }
    cJSON_Delete(j);
    if (rc < 0)
        claims_free(c);
    return rc;
}

uint64_t claims_skip(const OpenClaims *c, uint64_t j)
{
    /* Past each claim at or below the number so far, lowest first: the
     * claims do not overlap, so one pass in the order of their starts. */
    uint64_t at = j, below = 0;
    for (;;) {
        const OpenClaim *next = NULL;
        for (size_t i = 0; i < c->n; i++)
            if (c->v[i].first >= below && c->v[i].first <= at && (!next || c->v[i].first < next->first))
                next = &c->v[i];
        if (!next)
            return at;
        at += next->count;
        below = next->first + 1;
    }
}

uint64_t claims_end(const OpenClaims *c, uint64_t reserve)
{
    uint64_t end = reserve ? claims_skip(c, reserve - 1) + 1 : 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].first + c->v[i].count > end)
            end = c->v[i].first + c->v[i].count;
    return end;
}

static int save(const char *dir, const OpenClaims *c, uint64_t reserve, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, CLAIMS_FILE);
    JsonPut w = jput_new();
    jput_num(&w, "version", 1);
    jput_num(&w, "held_out", (double)c->held_out);
    jput_num(&w, "validation", (double)reserve);
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < c->n; i++) {
        const OpenClaim *k = &c->v[i];
        JsonPut o = jput_new();
        jput_str(&o, "step", k->step);
        jput_str(&o, "file", k->file);
        jput_num(&o, "first", (double)k->first);
        jput_num(&o, "count", (double)k->count);
        jput_num(&o, "seed", (double)k->seed);
        jput_str(&o, "created", k->created);
        cJSON *item = jput_done(&o);
        if (!item || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    jput_item(&w, "claims", arr);
    cJSON *j = jput_done(&w);
    if (!j)
        return errmsg(err, errlen, "out of memory writing %s", path);
    int rc = rd_write_json(path, j, err, errlen);
    cJSON_Delete(j);
    return rc;
}

int claims_add(const char *dir, OpenClaims *c, uint64_t reserve, const OpenClaim *claim, char *err, size_t errlen)
{
    OpenClaim *v = realloc(c->v, (c->n + 1) * sizeof *v);
    if (!v)
        return errmsg(err, errlen, "out of memory");
    c->v = v;
    c->v[c->n++] = *claim;
    return save(dir, c, reserve, err, errlen);
}

int claims_shrink(const char *dir, OpenClaims *c, uint64_t reserve, const char *file, uint64_t first, uint64_t count,
                  char *err, size_t errlen)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].first == first && !strcmp(c->v[i].file, file) && count < c->v[i].count) {
            c->v[i].count = count;
            return save(dir, c, reserve, err, errlen);
        }
    return 0;
}
