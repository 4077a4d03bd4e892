/* Error messages into a caller's buffer (see errmsg.h). */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int errmsg(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void text_line_col(const char *text, const char *at, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (const char *p = text; p < at; p++) {
        if (*p == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}
