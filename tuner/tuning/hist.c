/* history.csv of a run; see hist.h. */
#include "hist.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "errmsg.h"
#include "rd.h"
#include "readfile.h"

/* The header line without the newline (malloc'd). */
static char *header(const SpsaState *st)
{
    char *s = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&s, &n);
    if (!m)
        return NULL;
    fputs(HIST_FIXED_COLUMNS, m);
    static const char *const prefix[3] = { "", "c_k.", "R_k." };
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < st->nparams; i++) {
            fputc(',', m);
            csv_put_field2(m, prefix[c], st->params[i].name);
        }
    if (fclose(m) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Is line (the first line of the file, without its newline) the header of
 * st's parameters?  Read field by field, as any CSV reader would. */
static bool header_matches(const char *line, const SpsaState *st)
{
    size_t want = HIST_NFIXED + 3 * st->nparams;
    char *copy = strdup(line);
    char **f = malloc((want + 1) * sizeof *f);
    bool ok = copy && f && csv_split(copy, f, want + 1) == (int)want;
    static const char *const prefix[3] = { "", "c_k.", "R_k." };
    for (size_t c = 0; ok && c < 3; c++)
        for (size_t i = 0; ok && i < st->nparams; i++) {
            const char *h = f[HIST_NFIXED + c * st->nparams + i];
            size_t pl = strlen(prefix[c]);
            ok = strncmp(h, prefix[c], pl) == 0 && strcmp(h + pl, st->params[i].name) == 0;
        }
    free(f);
    free(copy);
    return ok;
}

static char *path_of(const char *dir)
{
    size_t n = strlen(dir) + sizeof HISTORY_FILE + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, HISTORY_FILE);
    return p;
}

int hist_open(History *h, const char *dir, const SpsaState *st, uint64_t rows, char *err, size_t errlen)
{
    h->f = NULL;
    h->path = path_of(dir);
    char *head = header(st);
    if (!h->path || !head) {
        free(head);
        hist_close(h);
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    if (access(h->path, F_OK) != 0) {
        if (rows > 0)
            fprintf(stderr, "warning: %s is missing; the rows of the %llu batches done so far are lost\n", h->path,
                    (unsigned long long)rows);
        int fd = rd_open_append(h->path, true, err, errlen);
        if (fd >= 0 && (ftruncate(fd, 0) < 0 || !(h->f = fdopen(fd, "ae"))))
            close(fd);
        if (!h->f || fprintf(h->f, "%s\n", head) < 0 || fflush(h->f) != 0) {
            if (fd >= 0)
                errmsg(err, errlen, "cannot write '%s': %s", h->path, strerror(errno));
            free(head);
            hist_close(h);
            return -1;
        }
        free(head);
        return 0;
    }
    size_t len;
    char *text = rd_read_file(h->path, &len, err, errlen);
    if (!text) {
        free(head);
        hist_close(h);
        return -1;
    }
    char *hend = memchr(text, '\n', len);
    if (hend)
        *hend = '\0';
    if (!hend || !header_matches(text, st)) {
        errmsg(err, errlen, "%s: the header does not match the run's parameters", h->path);
        free(text);
        free(head);
        hist_close(h);
        return -1;
    }
    /* Keep the header and the first `rows` complete lines. */
    size_t keep = (size_t)(hend - text) + 1;
    uint64_t have = 0;
    while (have < rows) {
        char *nl = memchr(text + keep, '\n', len - keep);
        if (!nl)
            break;
        keep = (size_t)(nl - text) + 1;
        have++;
    }
    free(text);
    free(head);
    if (have < rows)
        fprintf(stderr, "warning: %s has %llu rows but %llu batches are done; the missing rows are lost\n",
                h->path, (unsigned long long)have, (unsigned long long)rows);
    int fd = rd_open_append(h->path, false, err, errlen);
    if (fd < 0) {
        hist_close(h);
        return -1;
    }
    if (keep < len && ftruncate(fd, (off_t)keep) < 0) {
        errmsg(err, errlen, "cannot truncate '%s': %s", h->path, strerror(errno));
        close(fd);
        hist_close(h);
        return -1;
    }
    h->f = fdopen(fd, "ae");
    if (!h->f) {
        errmsg(err, errlen, "cannot open '%s': %s", h->path, strerror(errno));
        close(fd);
        hist_close(h);
        return -1;
    }
    return 0;
}

char *hist_format_row(const HistRow *r, const SpsaState *st, const SpsaBatch *b, size_t *len)
{
    char *s = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&s, &n);
    if (!m)
        return NULL;
    fprintf(m, "%llu,%llu,%llu,%llu,%llu,%llu,%.1f", (unsigned long long)r->row, (unsigned long long)r->k,
            (unsigned long long)r->games, (unsigned long long)r->wins, (unsigned long long)r->losses,
            (unsigned long long)r->draws, r->elapsed);
    for (size_t i = 0; i < st->nparams; i++)
        fprintf(m, ",%.10g", st->params[i].theta);
    for (size_t i = 0; i < st->nparams; i++)
        fprintf(m, ",%.6g", b->c_k[i]);
    for (size_t i = 0; i < st->nparams; i++)
        fprintf(m, ",%.6g", b->R_k[i]);
    fputc('\n', m);
    if (fclose(m) != 0) {
        free(s);
        return NULL;
    }
    if (len)
        *len = n;
    return s;
}

int hist_write(History *h, const char *text, size_t len, char *err, size_t errlen)
{
    if (fwrite(text, 1, len, h->f) != len || fflush(h->f) != 0 || fdatasync(fileno(h->f)) < 0) {
        errmsg(err, errlen, "cannot write '%s': %s", h->path, strerror(errno));
        return -1;
    }
    return 0;
}

int hist_append(History *h, const HistRow *r, const SpsaState *st, const SpsaBatch *b, char *err,
                size_t errlen)
{
    size_t len;
    char *row = hist_format_row(r, st, b, &len);
    if (!row) {
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    int rc = hist_write(h, row, len, err, errlen);
    free(row);
    return rc;
}

void hist_close(History *h)
{
    if (h->f)
        fclose(h->f);
    free(h->path);
    h->f = NULL;
    h->path = NULL;
}

const char *hist_parse_num(const char *s, double *v)
{
    const char *p = s;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
        return NULL; /* no nan, inf, hex or empty field */
    /* Up to 19 digits in an integer and a power of ten: exact when the
     * digits fit in 53 bits and the power is at most 22 (both are then exact
     * doubles, and one multiplication or division rounds correctly);
     * otherwise strtod reads the same text. */
    uint64_t m = 0;
    int digits = 0, e10 = 0;
    bool exact = true;
    for (; *p >= '0' && *p <= '9'; p++)
        if (digits < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            digits += m > 0;
        } else {
            exact = false;
        }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                digits += m > 0;
                e10--;
            } else {
                exact = false;
            }
        }
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        bool eneg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return NULL;
        int x = 0;
        for (; *q >= '0' && *q <= '9'; q++)
            if (x < 10000)
                x = x * 10 + (*q - '0');
        e10 += eneg ? -x : x;
        p = q;
    }
    static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    double x;
    if (exact && m < (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        x = e10 >= 0 ? (double)m * pow10[e10] : (double)m / pow10[-e10];
        if (neg)
            x = -x;
    } else {
        char *end;
        x = strtod(s, &end);
        if (end != p)
            return NULL;
    }
    if (!isfinite(x) || fabs(x) >= HIST_VALUE_MAX)
        return NULL;
    *v = x;
    return p;
}

bool hist_num_field(const char *s, double *v)
{
    const char *end = hist_parse_num(s, v);
    return end && *end == '\0';
}

void hist_data_free(HistData *h)
{
    free(h->k);
    free(h->lo);
    free(h->hi);
    free(h->last);
    free(h->moved);
    free(h->tail_sum);
    free(h->prev_sum);
    memset(h, 0, sizeof *h);
}

/* Complete lines from where f stands (after the header), at most max. */
static uint64_t count_rows(FILE *f, uint64_t max)
{
    char buf[1 << 16];
    uint64_t lines = 0;
    size_t n;
    while (lines < max && (n = fread(buf, 1, sizeof buf, f)) > 0)
        for (char *p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p))); p++)
            lines++;
    return lines < max ? lines : max;
}

/* One pass over the first n rows into out (its arrays allocated); the rows
 * read, or -1 with a message. */
static int64_t read_rows(FILE *f, const char *path, const SpsaState *st, uint64_t n, HistData *out, char *err,
                         size_t errlen)
{
    static const char *const fixed[HIST_NFIXED] = { "row", "k", "games", "wins", "losses", "draws", "elapsed_s" };
    size_t np = st->nparams;
    size_t tail = n ? (size_t)((n + 9) / 10) : 0;
    size_t prev = n - tail < tail ? n - tail : tail;
    out->tail_rows = tail;
    out->prev_rows = prev;
    for (size_t i = 0; i < np; i++) {
        out->lo[i] = out->hi[i] = out->last[i] = st->params[i].start;
        out->moved[i] = false;
        out->tail_sum[i] = out->prev_sum[i] = 0;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint64_t r = 0;
    int64_t rc = -1;
    /* a last line without its newline is half written: ignored */
    while (r < n && (len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
        line[len - 1] = '\0';
        unsigned long long lineno = (unsigned long long)r + 2;
        const char *p = line, *end;
        double v;
        for (size_t c = 0; c < HIST_NFIXED + np; c++) {
            end = hist_parse_num(p, &v);
            if (!end || (*end != ',' && *end != '\0') || (*end == '\0' && c + 1 < HIST_NFIXED + np)) {
                const char *name = c < HIST_NFIXED ? fixed[c] : st->params[c - HIST_NFIXED].name;
                errmsg(err, errlen, "%s:%llu: unreadable row: the %s column does not hold a finite number "
                                    "below %g",
                       path, lineno, name, HIST_VALUE_MAX);
                goto done;
            }
            p = *end ? end + 1 : end;
            if (c == 1) {
                if (v < 0 || v != floor(v)) {
                    errmsg(err, errlen, "%s:%llu: unreadable row: k is %g", path, lineno, v);
                    goto done;
                }
                out->k[r] = (uint64_t)v;
            } else if (c >= HIST_NFIXED) {
                size_t i = c - HIST_NFIXED;
                out->lo[i] = fmin(out->lo[i], v);
                out->hi[i] = fmax(out->hi[i], v);
                out->moved[i] |= v != st->params[i].start;
                out->last[i] = v;
                if (r >= n - tail)
                    out->tail_sum[i] += v;
                else if (r >= n - tail - prev)
                    out->prev_sum[i] += v;
            }
        }
        r++;
    }
    rc = (int64_t)r;
done:
    free(line);
    return rc;
}

int hist_read(const char *dir, const SpsaState *st, uint64_t maxrows, HistData *out, char *err, size_t errlen)
{
    /* Streamed: one count of the lines (for the tail windows), then one
     * pass that keeps per parameter its range and the tail sums. */
    memset(out, 0, sizeof *out);
    char *path = path_of(dir), *line = NULL;
    size_t linecap = 0;
    int rc = -1;
    const char *why = "";
    FILE *f = path ? fopen_regular(path, "r", &why) : NULL;
    if (!f) {
        if (!path)
            errmsg(err, errlen, "out of memory");
        else
            errmsg(err, errlen, "cannot read '%s': %s", path, why);
        goto done;
    }
    ssize_t len = getline(&line, &linecap, f);
    if (len <= 0 || line[len - 1] != '\n') {
        errmsg(err, errlen, "%s: no header line", path);
        goto done;
    }
    line[len - 1] = '\0';
    if (!header_matches(line, st)) {
        errmsg(err, errlen, "%s: the header does not match the run's parameters", path);
        goto done;
    }
    long body = ftell(f);
    uint64_t n = count_rows(f, maxrows);
    size_t np = st->nparams, na = np ? np : 1;
    out->nparams = np;
    out->k = malloc((n ? n : 1) * sizeof *out->k);
    out->lo = malloc(na * sizeof(double));
    out->hi = malloc(na * sizeof(double));
    out->last = malloc(na * sizeof(double));
    out->moved = malloc(na * sizeof(bool));
    out->tail_sum = malloc(na * sizeof(double));
    out->prev_sum = malloc(na * sizeof(double));
    if (!out->k || !out->lo || !out->hi || !out->last || !out->moved || !out->tail_sum || !out->prev_sum) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    /* A run that resumes meanwhile may cut the file back: read again what is there. */
    for (int tries = 0;; tries++) {
        if (fseek(f, body, SEEK_SET) != 0) {
            errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
            goto done;
        }
        int64_t got = read_rows(f, path, st, n, out, err, errlen);
        if (got < 0)
            goto done;
        if ((uint64_t)got == n)
            break;
        if (tries == 2) {
            errmsg(err, errlen, "%s: the file keeps shrinking while it is read", path);
            goto done;
        }
        n = (uint64_t)got;
    }
    out->nrows = (size_t)n;
    rc = 0;
done:
    if (rc < 0)
        hist_data_free(out);
    if (f)
        fclose(f);
    free(line);
    free(path);
    return rc;
}
