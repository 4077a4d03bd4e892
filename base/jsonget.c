/* Counts read from JSON; see jsonget.h. */
#include "jsonget.h"

#include <math.h>

bool json_u64_of(double d, uint64_t *out)
{
    if (!(d >= 0) || d > 9007199254740992.0 || d != floor(d))
        return false;
    *out = (uint64_t)d;
    return true;
}

bool json_get_u64(const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && json_u64_of(v->valuedouble, out);
}
