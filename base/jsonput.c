/* Objects built member by member; see jsonput.h. */
#include "jsonput.h"

JsonPut jput_new(void)
{
    JsonPut w = { cJSON_CreateObject(), false };
    w.ok = w.o != NULL;
    return w;
}

void jput_num(JsonPut *w, const char *key, double x)
{
    w->ok = w->ok && cJSON_AddNumberToObject(w->o, key, x) != NULL;
}

void jput_str(JsonPut *w, const char *key, const char *s)
{
    w->ok = w->ok && cJSON_AddStringToObject(w->o, key, s) != NULL;
}

void jput_bool(JsonPut *w, const char *key, bool b)
{
    w->ok = w->ok && cJSON_AddBoolToObject(w->o, key, b) != NULL;
}

void jput_counts(JsonPut *w, const char *key, const uint64_t *v, size_t n)
{
    cJSON *a = w->ok ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; a && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]))) {
            cJSON_Delete(a);
            a = NULL;
        }
    jput_item(w, key, a);
}

void jput_item(JsonPut *w, const char *key, cJSON *item)
{
    if (w->ok && item && cJSON_AddItemToObject(w->o, key, item))
        return;
    cJSON_Delete(item);
    w->ok = false;
}

cJSON *jput_done(JsonPut *w)
{
    if (w->ok)
        return w->o;
    cJSON_Delete(w->o);
    w->o = NULL;
    return NULL;
}
