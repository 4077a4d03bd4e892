/* Arrays that grow as they are filled; see growarray.h. */
#include "growarray.h"

#include <stdlib.h>

bool grow_array(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *p = realloc(*buf, c * elem);
    if (!p)
        return false;
    *buf = p;
    *cap = c;
    return true;
}
