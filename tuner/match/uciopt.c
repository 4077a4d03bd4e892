/* UCI option names and values; see uciopt.h. */
#include "uciopt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int uciopt_words(const char *name, char *out, size_t len)
{
    size_t n = 0;
    const char *s = name;
    while (isspace((unsigned char)*s))
        s++;
    while (*s) {
        char c = *s++;
        if (isspace((unsigned char)c)) {
            while (isspace((unsigned char)*s))
                s++;
            if (!*s)
                break;
            c = ' ';
        }
        if (n + 1 < len)
            out[n] = c;
        n++;
    }
    if (len)
        out[n < len ? n : len - 1] = '\0';
    return n < len ? 0 : -1;
}

bool uciopt_same(const char *a, const char *b)
{
    char wa[256], wb[256];
    uciopt_words(a, wa, sizeof wa);
    uciopt_words(b, wb, sizeof wb);
    return strcasecmp(wa, wb) == 0;
}

void uciopt_format(double v, bool decimal, char *buf, size_t len)
{
    if (!decimal) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    snprintf(buf, len, "%.10f", v);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf);
    while (end > dot + 2 && end[-1] == '0')
        *--end = '\0';
    if (!strcmp(buf, "-0.0"))
        memmove(buf, buf + 1, strlen(buf));
}

double uciopt_round(double x, double u, double min, double max)
{
    double v = floor(x + u), lo = ceil(min), hi = floor(max);
    return lo <= hi ? (v < lo ? lo : v > hi ? hi : v) : v;
}
