/* history.csv of a run; see runhist.h. */
#include "runhist.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "errmsg.h"
#include "rundir.h"

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

void hist_data_free(HistData *h)
{
    free(h->k);
    free(h->elapsed);
    free(h->theta);
    memset(h, 0, sizeof *h);
}

int hist_read(const char *dir, const SpsaState *st, uint64_t maxrows, HistData *out, char *err, size_t errlen)
{
    /* Line by line: only the numbers are kept, never the file's text (a
     * million rows of 30 parameters are some 700 MB of CSV). */
    memset(out, 0, sizeof *out);
    char *path = path_of(dir), *line = NULL;
    size_t linecap = 0;
    int rc = -1;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) {
        if (!path)
            errmsg(err, errlen, "out of memory");
        else
            errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
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
    size_t cap = 0, n = st->nparams;
    out->nparams = n;
    /* a last line without its newline is half written: ignored */
    while (out->nrows < maxrows && (len = getline(&line, &linecap, f)) > 0 && line[len - 1] == '\n') {
        line[len - 1] = '\0';
        if (out->nrows == cap) {
            cap = cap ? cap * 2 : 256;
            uint64_t *k = realloc(out->k, cap * sizeof *k);
            if (k)
                out->k = k;
            double *e = realloc(out->elapsed, cap * sizeof *e);
            if (e)
                out->elapsed = e;
            double *t = realloc(out->theta, cap * n * sizeof *t + 1);
            if (t)
                out->theta = t;
            if (!k || !e || !t) {
                errmsg(err, errlen, "out of memory");
                goto done;
            }
        }
        char *p = line, *end;
        double v[7];
        for (int c = 0; c < 7; c++) {
            v[c] = strtod(p, &end);
            if (end == p || (*end != ',' && *end != '\0')) {
                errmsg(err, errlen, "%s:%zu: unreadable row", path, out->nrows + 2);
                goto done;
            }
            p = *end ? end + 1 : end;
        }
        out->k[out->nrows] = (uint64_t)v[1];
        out->elapsed[out->nrows] = v[6];
        for (size_t i = 0; i < n; i++) {
            double t = strtod(p, &end);
            if (end == p || (*end != ',' && *end != '\0')) {
                errmsg(err, errlen, "%s:%zu: unreadable row", path, out->nrows + 2);
                goto done;
            }
            out->theta[out->nrows * n + i] = t;
            p = *end ? end + 1 : end;
        }
        out->nrows++;
    }
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
