/* Lists of words; see strlist.h. */
#include "strlist.h"

#include <string.h>

bool str_in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}
