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

HistTail hist_tail(uint64_t n)
{
    HistTail t;
    t.rows = (n + 9) / 10;
    t.prev_rows = n - t.rows < t.rows ? n - t.rows : t.rows;
    t.from = n - t.rows;
    t.prev_from = t.from - t.prev_rows;
    return t;
}

int hist_no_column(const HistLayout *l, const char *name, char *err, size_t errlen)
{
    return errmsg(err, errlen, "%s: the header does not match the run's parameters: it has no column '%s'", l->path,
                  name);
}

/* ---- the reader ---- */

/* Where a value of a row goes: vals[slot], slots in this order. */
#define SLOT_THETA(i) (HIST_NFIXED + (i))
#define SLOT_CK(np, i) (HIST_NFIXED + (np) + (i))

/* One open history.csv: its header, split once, and the buffers of a row. */
typedef struct {
    char *path;
    FILE *f;
    bool missing;      /* there is no such file */
    char *head;        /* the header line, split in place into name[0..nf) */
    char **name;
    size_t nf;
    int *slot;         /* per column: its slot in vals, or -1 for a column not read */
    double *vals;      /* HIST_NFIXED + 2 * nparams */
    char *line;        /* the current row, split in place into fld[0..nf) */
    size_t cap;
    char **fld;
    long body;         /* where the first row starts */
} Reader;

static void reader_close(Reader *r)
{
    if (r->f)
        fclose(r->f);
    free(r->path);
    free(r->head);
    free(r->name);
    free(r->slot);
    free(r->vals);
    free(r->line);
    free(r->fld);
}

static int reader_open(Reader *r, const char *dir, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->path = path_of(dir);
    if (!r->path)
        return errmsg(err, errlen, "out of memory");
    const char *why = "";
    r->f = fopen_regular(r->path, "r", &why);
    if (!r->f) {
        r->missing = errno == ENOENT;
        return errmsg(err, errlen, "cannot read '%s': %s", r->path, why);
    }
    return 0;
}

/* The first column not taken yet whose name is prefix followed by name, or -1. */
static int claim(Reader *r, const char *prefix, const char *name, int slot)
{
    size_t pl = strlen(prefix);
    for (size_t c = 0; c < r->nf; c++)
        if (r->slot[c] < 0 && strncmp(r->name[c], prefix, pl) == 0 && strcmp(r->name[c] + pl, name) == 0) {
            r->slot[c] = slot;
            return (int)c;
        }
    return -1;
}

/* Read and split the header, and find the columns of the fixed values and
 * of st's parameters by name, in the order the run writes them (so a
 * parameter called like a fixed column, or like another's c_k column,
 * still gets its own). */
static int reader_header(Reader *r, const SpsaState *st, HistLayout *l, char *err, size_t errlen)
{
    size_t cap = 0;
    ssize_t len = getline(&r->head, &cap, r->f);
    if (len <= 0 || r->head[len - 1] != '\n')
        return errmsg(err, errlen, "%s: no header line", r->path);
    r->head[len - 1] = '\0';
    size_t maxf = 1, np = st->nparams;
    for (const char *p = r->head; *p; p++)
        maxf += *p == ',';
    r->name = malloc(maxf * sizeof *r->name);
    r->fld = malloc((maxf + 1) * sizeof *r->fld);
    r->slot = malloc(maxf * sizeof *r->slot);
    r->vals = malloc((HIST_NFIXED + 2 * np) * sizeof *r->vals);
    if (!r->name || !r->fld || !r->slot || !r->vals)
        return errmsg(err, errlen, "out of memory");
    int nf = csv_split(r->head, r->name, maxf);
    if (nf < 0)
        return errmsg(err, errlen, "%s:1: malformed header", r->path);
    r->nf = (size_t)nf;
    for (size_t c = 0; c < r->nf; c++)
        r->slot[c] = -1;
    static const char *const fixed[HIST_NFIXED] = { "row", "k", "games", "wins", "losses", "draws", "elapsed_s" };
    memset(l, 0, sizeof *l);
    l->path = r->path;
    l->nparams = np;
    l->no_theta = np;
    l->all_ck = true;
    for (int s = 0; s < HIST_NFIXED; s++)
        l->has[s] = claim(r, "", fixed[s], s) >= 0;
    for (size_t i = 0; i < np; i++)
        if (claim(r, "", st->params[i].name, (int)SLOT_THETA(i)) < 0 && l->no_theta == np)
            l->no_theta = i;
    for (size_t i = 0; i < np; i++)
        l->all_ck &= claim(r, "c_k.", st->params[i].name, (int)SLOT_CK(np, i)) >= 0;
    r->body = ftell(r->f);
    return 0;
}

/* The next row into v: 1, 0 at the end of the complete rows, or -1 with a
 * message naming the line and the column. */
static int reader_row(Reader *r, HistValues *v, char *err, size_t errlen)
{
    ssize_t len = getline(&r->line, &r->cap, r->f);
    if (len <= 0 || r->line[len - 1] != '\n')
        return 0; /* the end, or a half-written last line */
    r->line[len - 1] = '\0';
    unsigned long long ln = (unsigned long long)v->line;
    int m = csv_split(r->line, r->fld, r->nf + 1);
    if (m < 0)
        return errmsg(err, errlen, "%s:%llu: unreadable row: malformed, or more fields than the header's %zu", r->path,
                      ln, r->nf);
    if ((size_t)m < r->nf)
        return errmsg(err, errlen, "%s:%llu: unreadable row: %d field%s where the header has %zu", r->path, ln, m,
                      m == 1 ? "" : "s", r->nf);
    for (size_t c = 0; c < r->nf; c++) {
        int s = r->slot[c];
        if (s < 0)
            continue;
        if (!hist_num_field(r->fld[c], &r->vals[s]))
            return errmsg(err, errlen, "%s:%llu: unreadable row: the %s column ('%.40s') does not hold a finite "
                          "number below %g", r->path, ln, r->name[c], r->fld[c], HIST_VALUE_MAX);
        if (s == HIST_K && (r->vals[s] < 0 || r->vals[s] != floor(r->vals[s])))
            return errmsg(err, errlen, "%s:%llu: unreadable row: k is %g", r->path, ln, r->vals[s]);
    }
    return 1;
}

/* One pass from the first row: begin, then every row, for every visitor;
 * *got: the rows read. */
static int reader_pass(Reader *r, const HistLayout *l, const HistVisitor *vis, size_t n, uint64_t *got, char *err,
                       size_t errlen)
{
    *got = 0;
    if (fseek(r->f, r->body, SEEK_SET) != 0)
        return errmsg(err, errlen, "cannot read %s: %s", r->path, strerror(errno));
    for (size_t j = 0; j < n; j++)
        if (vis[j].begin(vis[j].ctx, l, err, errlen) < 0)
            return -1;
    size_t np = l->nparams;
    for (size_t s = 0; s < HIST_NFIXED + 2 * np; s++)
        r->vals[s] = NAN; /* the columns the header does not have */
    HistValues v = { .theta = r->vals + SLOT_THETA(0), .c_k = r->vals + SLOT_CK(np, 0) };
    while (*got < l->rows) {
        v.i = *got;
        v.line = *got + 2;
        int rc = reader_row(r, &v, err, errlen);
        if (rc <= 0)
            return rc;
        memcpy(v.fixed, r->vals, sizeof v.fixed);
        for (size_t j = 0; j < n; j++)
            if (vis[j].row(vis[j].ctx, l, &v, err, errlen) < 0)
                return -1;
        (*got)++;
    }
    return 0;
}

int hist_scan(const char *dir, const SpsaState *st, uint64_t maxrows, const HistVisitor *vis, size_t n, char *err,
              size_t errlen)
{
    /* Streamed: one count of the lines (the views' tails need it), then one
     * pass for all the views. */
    Reader r;
    HistLayout l;
    int rc = reader_open(&r, dir, err, errlen);
    if (rc == 0)
        rc = reader_header(&r, st, &l, err, errlen);
    if (rc == 0)
        l.rows = count_rows(r.f, maxrows);
    /* A run that resumes meanwhile may cut the file back: read again what is there. */
    for (int tries = 0; rc == 0; tries++) {
        uint64_t got;
        rc = reader_pass(&r, &l, vis, n, &got, err, errlen);
        if (rc < 0 || got == l.rows)
            break;
        if (tries == 2)
            rc = errmsg(err, errlen, "%s: the file keeps shrinking while it is read", r.path);
        l.rows = got;
    }
    bool missing = r.missing;
    reader_close(&r);
    if (rc < 0)
        errno = missing ? ENOENT : EINVAL;
    return rc;
}

/* ---- what `status` needs ---- */

static int data_begin(void *ctx, const HistLayout *l, char *err, size_t errlen)
{
    HistDataView *w = ctx;
    HistData *out = w->out;
    const SpsaState *st = w->st;
    if (!l->has[HIST_K])
        return hist_no_column(l, "k", err, errlen);
    if (l->no_theta < l->nparams)
        return hist_no_column(l, st->params[l->no_theta].name, err, errlen);
    hist_data_free(out); /* a pass that starts over */
    size_t np = st->nparams, na = np ? np : 1;
    out->nparams = np;
    out->nrows = (size_t)l->rows;
    out->k = malloc((l->rows ? l->rows : 1) * sizeof *out->k);
    out->lo = malloc(na * sizeof(double));
    out->hi = malloc(na * sizeof(double));
    out->last = malloc(na * sizeof(double));
    out->moved = malloc(na * sizeof(bool));
    out->tail_sum = malloc(na * sizeof(double));
    out->prev_sum = malloc(na * sizeof(double));
    if (!out->k || !out->lo || !out->hi || !out->last || !out->moved || !out->tail_sum || !out->prev_sum)
        return errmsg(err, errlen, "out of memory");
    w->tail = hist_tail(l->rows);
    out->tail_rows = (size_t)w->tail.rows;
    out->prev_rows = (size_t)w->tail.prev_rows;
    for (size_t i = 0; i < np; i++) {
        out->lo[i] = out->hi[i] = out->last[i] = st->params[i].start;
        out->moved[i] = false;
        out->tail_sum[i] = out->prev_sum[i] = 0;
    }
    return 0;
}

static int data_row(void *ctx, const HistLayout *l, const HistValues *v, char *err, size_t errlen)
{
    (void)l, (void)err, (void)errlen;
    HistDataView *w = ctx;
    HistData *out = w->out;
    out->k[v->i] = (uint64_t)v->fixed[HIST_K];
    for (size_t i = 0; i < out->nparams; i++) {
        double t = v->theta[i];
        out->lo[i] = fmin(out->lo[i], t);
        out->hi[i] = fmax(out->hi[i], t);
        out->moved[i] |= t != w->st->params[i].start;
        out->last[i] = t;
        if (v->i >= w->tail.from)
            out->tail_sum[i] += t;
        else if (v->i >= w->tail.prev_from)
            out->prev_sum[i] += t;
    }
    return 0;
}

HistVisitor hist_data_visitor(HistDataView *view, const SpsaState *st, HistData *out)
{
    memset(out, 0, sizeof *out);
    *view = (HistDataView){ .st = st, .out = out };
    return (HistVisitor){ .begin = data_begin, .row = data_row, .ctx = view };
}

int hist_read(const char *dir, const SpsaState *st, uint64_t maxrows, HistData *out, char *err, size_t errlen)
{
    HistDataView view;
    HistVisitor vis = hist_data_visitor(&view, st, out);
    if (hist_scan(dir, st, maxrows, &vis, 1, err, errlen) == 0)
        return 0;
    hist_data_free(out);
    return -1;
}
