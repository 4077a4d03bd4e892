/* Error messages into a caller's buffer (see errmsg.h). */
#include "errmsg.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

size_t appendf(char *buf, size_t cap, size_t n, const char *fmt, ...)
{
    if (!buf || cap == 0)
        return n;
    if (n + 1 >= cap) {
        buf[cap - 1] = '\0'; /* full: terminated all the same */
        return n;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
    if (w < 0) {
        buf[n] = '\0';
        return n;
    }
    return (size_t)w < cap - n ? n + (size_t)w : cap - 1;
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

int name_distance(const char *a, const char *b)
{
    enum { MAXN = 64 };
    size_t la = strnlen(a, MAXN - 1), lb = strnlen(b, MAXN - 1);
    int row[MAXN], prev[MAXN];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = prev[j - 1] + !same;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
        }
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb];
}
