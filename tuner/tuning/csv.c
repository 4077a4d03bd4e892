/* CSV fields; see csv.h. */
#include "csv.h"

#include <stdlib.h>
#include <string.h>

int csv_needs_quotes(const char *s)
{
    return strpbrk(s, ",\"\r\n ") != NULL;
}

static int put(FILE *f, const char *s, int quoted)
{
    int n = 0;
    for (; *s; s++, n++) {
        if (quoted && *s == '"') {
            if (fputc('"', f) == EOF)
                return -1;
            n++;
        }
        if (fputc(*s, f) == EOF)
            return -1;
    }
    return n;
}

int csv_put_field2(FILE *f, const char *prefix, const char *s)
{
    int q = csv_needs_quotes(prefix) || csv_needs_quotes(s);
    if (q && fputc('"', f) == EOF)
        return -1;
    int a = put(f, prefix, q), b = a < 0 ? -1 : put(f, s, q);
    if (b < 0 || (q && fputc('"', f) == EOF))
        return -1;
    return a + b + 2 * q;
}

int csv_put_field(FILE *f, const char *s)
{
    return csv_put_field2(f, "", s);
}

int csv_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return -1;
        char *out = p;
        fields[n++] = out;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    return -1; /* the quoted field does not end */
                if (*p == '"') {
                    if (p[1] != '"')
                        break;
                    p++;
                }
                *out++ = *p++;
            }
            p++; /* the closing quote */
            if (*p != ',' && *p)
                return -1;
        } else {
            while (*p && *p != ',') {
                if (*p == '"')
                    return -1;
                *out++ = *p++;
            }
        }
        char sep = *p;
        *out = '\0';
        if (!sep)
            return (int)n;
        p++;
    }
}
