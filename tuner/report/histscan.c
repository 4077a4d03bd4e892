/* history.csv, decimated for drawing; see histscan.h. */
#include "histscan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "errmsg.h"
#include "hist.h"
#include "readfile.h"

void histscan_free(HistScan *h)
{
    free(h->g_first);
    free(h->g_last);
    free(h->el_last);
    free(h->score_last);
    free(h->t_min);
    free(h->t_max);
    free(h->min_first);
    free(h->band_lo);
    free(h->band_hi);
    free(h->tail_sum);
    free(h->prev_sum);
    memset(h, 0, sizeof *h);
}

/* Complete lines after the header. */
static uint64_t count_rows(FILE *f)
{
    char buf[1 << 16];
    uint64_t lines = 0;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (char *p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p))); p++)
            lines++;
    return lines ? lines - 1 : 0;
}

/* Column c of a row of m fields: 1 read into *v, 0 when the row has no such
 * column, -1 (with a message naming the file, line and column) when its
 * value breaks the rule of hist.h. */
static int field(char **fld, size_t m, int c, const char *name, const char *path, uint64_t line, double *v,
                 char *err, size_t errlen)
{
    if (c < 0 || (size_t)c >= m)
        return 0;
    if (hist_num_field(fld[c], v))
        return 1;
    return errmsg(err, errlen, "%s:%llu: unreadable value of %s ('%.40s'): a finite number below %g expected", path,
                  (unsigned long long)line, name, fld[c], HIST_VALUE_MAX);
}

static int find_col(char **f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i], name) == 0)
            return (int)i;
    return -1;
}

int histscan_read(const char *dir, const SpsaState *st, uint64_t maxrows, size_t buckets, uint64_t avg_k0,
                  HistScan *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->np = st->nparams;
    h->tail_g0 = h->avg_g0 = NAN;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, HISTORY_FILE);
    const char *why;
    FILE *f = fopen_regular(path, "r", &why);
    if (!f)
        return errmsg(err, errlen, "cannot open '%s': %s", path, why);
    char *line = NULL;
    size_t cap = 0;
    char **fld = NULL;
    int *col = NULL;
    int rc = -1;
    size_t np = st->nparams, maxf = 0;
    uint64_t n = count_rows(f);
    if (n > maxrows)
        n = maxrows;
    rewind(f);
    ssize_t len = getline(&line, &cap, f);
    if (len <= 0 || line[len - 1] != '\n') {
        errmsg(err, errlen, "%s: no header line", path);
        goto done;
    }
    line[len - 1] = '\0';
    for (char *p = line; *p; p++)
        maxf += *p == ',';
    maxf += 1;
    fld = malloc(maxf * sizeof *fld);
    col = malloc((2 * np + 6) * sizeof *col);
    if (!fld || !col) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    int nfi = csv_split(line, fld, maxf);
    if (nfi < 0) {
        errmsg(err, errlen, "%s:1: malformed header", path);
        goto done;
    }
    size_t nf = (size_t)nfi;
    /* col: k, games, wins, losses, elapsed_s, theta of each parameter, c_k of each */
    col[0] = find_col(fld, nf, "k");
    col[1] = find_col(fld, nf, "games");
    col[2] = find_col(fld, nf, "wins");
    col[3] = find_col(fld, nf, "losses");
    col[4] = find_col(fld, nf, "elapsed_s");
    h->have_theta = h->have_ck = true;
    for (size_t p = 0; p < np; p++) {
        char name[SPSA_NAME_MAX + 8];
        col[5 + p] = find_col(fld, nf, st->params[p].name);
        snprintf(name, sizeof name, "c_k.%s", st->params[p].name);
        col[5 + np + p] = find_col(fld, nf, name);
        h->have_theta &= col[5 + p] >= 0;
        h->have_ck &= col[5 + np + p] >= 0;
    }
    h->have_ck &= h->have_theta;
    h->have_wl = col[2] >= 0 && col[3] >= 0;
    if (col[1] < 0) {
        errmsg(err, errlen, "%s: no 'games' column in the header", path);
        goto done;
    }
    h->per = n > buckets && buckets > 0 ? (n + buckets - 1) / buckets : 1;
    h->nb = (size_t)((n + h->per - 1) / h->per);
    size_t nb = h->nb ? h->nb : 1, nbp = nb * (np ? np : 1);
    h->g_first = calloc(nb, sizeof(double));
    h->g_last = calloc(nb, sizeof(double));
    h->el_last = calloc(nb, sizeof(double));
    h->score_last = calloc(nb, sizeof(double));
    h->t_min = calloc(nbp, sizeof(double));
    h->t_max = calloc(nbp, sizeof(double));
    h->min_first = calloc(nbp, sizeof(bool));
    h->band_lo = calloc(nbp, sizeof(double));
    h->band_hi = calloc(nbp, sizeof(double));
    h->tail_sum = calloc(np + 1, sizeof(double));
    h->prev_sum = calloc(np + 1, sizeof(double));
    if (!h->g_first || !h->g_last || !h->el_last || !h->score_last || !h->t_min || !h->t_max || !h->min_first ||
        !h->band_lo || !h->band_hi || !h->tail_sum || !h->prev_sum) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    uint64_t tail = n ? (n + 9) / 10 : 0;
    h->tail_rows = tail;
    h->prev_rows = n - tail < tail ? n - tail : tail;
    double score = 0, prev_games = 0;
    for (uint64_t i = 0; i < n; i++) {
        len = getline(&line, &cap, f);
        if (len <= 0 || line[len - 1] != '\n')
            break; /* a half-written last line */
        line[len - 1] = '\0';
        int mi = csv_split(line, fld, maxf);
        if (mi < 0) {
            errmsg(err, errlen, "%s:%llu: malformed row", path, (unsigned long long)i + 2);
            goto done;
        }
        size_t m = (size_t)mi;
        uint64_t ln = i + 2;
        double games, v, w, l, k;
        int rg = field(fld, m, col[1], "games", path, ln, &games, err, errlen);
        int re = field(fld, m, col[4], "elapsed_s", path, ln, &v, err, errlen);
        int rw = field(fld, m, col[2], "wins", path, ln, &w, err, errlen);
        int rl = field(fld, m, col[3], "losses", path, ln, &l, err, errlen);
        int rk = field(fld, m, col[0], "k", path, ln, &k, err, errlen);
        if (rg < 0 || re < 0 || rw < 0 || rl < 0 || rk < 0)
            goto done;
        if (rg == 0) {
            errmsg(err, errlen, "%s:%llu: unreadable row", path, (unsigned long long)ln);
            goto done;
        }
        size_t b = (size_t)(i / h->per);
        bool first = i % h->per == 0;
        if (first)
            h->g_first[b] = games;
        h->g_last[b] = games;
        h->el_last[b] = re > 0 ? v : NAN;
        if (h->have_wl && rw > 0 && rl > 0)
            score += w - l;
        h->score_last[b] = score;
        if (isnan(h->avg_g0) && avg_k0 > 0 && rk > 0 && k > (double)avg_k0)
            h->avg_g0 = prev_games;
        if (i == n - tail)
            h->tail_g0 = prev_games;
        for (size_t p = 0; p < np && h->have_theta; p++) {
            double t, c = NAN;
            int rt = field(fld, m, col[5 + p], st->params[p].name, path, ln, &t, err, errlen);
            if (rt == 0)
                errmsg(err, errlen, "%s:%llu: unreadable value of %s", path, (unsigned long long)ln,
                       st->params[p].name);
            if (rt <= 0)
                goto done;
            if (h->have_ck && field(fld, m, col[5 + np + p], "c_k", path, ln, &c, err, errlen) < 0)
                goto done;
            size_t j = b * np + p;
            if (first) {
                h->t_min[j] = h->t_max[j] = t;
                h->min_first[j] = true;
                h->band_lo[j] = t - c;
                h->band_hi[j] = t + c;
            } else {
                if (t < h->t_min[j]) {
                    h->t_min[j] = t;
                    h->min_first[j] = false;
                }
                if (t > h->t_max[j]) {
                    h->t_max[j] = t;
                    h->min_first[j] = true;
                }
                h->band_lo[j] = fmin(h->band_lo[j], t - c);
                h->band_hi[j] = fmax(h->band_hi[j], t + c);
            }
            if (i >= n - tail)
                h->tail_sum[p] += t;
            else if (i >= n - tail - h->prev_rows)
                h->prev_sum[p] += t;
        }
        prev_games = games;
        h->rows = i + 1;
    }
    /* Fewer rows than counted (the file shrank): keep the buckets that were filled. */
    h->nb = h->rows ? (size_t)((h->rows + h->per - 1) / h->per) : 0;
    if (h->rows < n) {
        h->tail_rows = h->prev_rows = 0;
        h->tail_g0 = NAN;
    }
    rc = 0;
done:
    if (rc < 0)
        histscan_free(h);
    free(line);
    free(fld);
    free(col);
    fclose(f);
    return rc;
}
