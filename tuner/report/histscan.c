/* history.csv, decimated for drawing; see histscan.h. */
#include "histscan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "hist.h"

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

/* The rows per bucket and the buckets of n rows. */
static void size_buckets(HistScan *h, uint64_t n, size_t buckets)
{
    h->per = n > buckets && buckets > 0 ? (n + buckets - 1) / buckets : 1;
    h->nb = (size_t)((n + h->per - 1) / h->per);
}

static int alloc_buckets(HistScan *h)
{
    size_t np = h->np, nb = h->nb ? h->nb : 1, nbp = nb * (np ? np : 1);
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
    return h->g_first && h->g_last && h->el_last && h->score_last && h->t_min && h->t_max && h->min_first &&
                   h->band_lo && h->band_hi && h->tail_sum && h->prev_sum
               ? 0
               : -1;
}

/* Before the first row (again when the pass starts over): which columns
 * the file has, the buckets for its rows, the tail. */
static int scan_begin(void *ctx, const HistLayout *l, char *err, size_t errlen)
{
    HistScanView *w = ctx;
    HistScan *h = w->h;
    if (!l->has[HIST_GAMES])
        return errmsg(err, errlen, "%s: no 'games' column in the header", l->path);
    histscan_free(h);
    h->np = l->nparams;
    h->tail_g0 = h->avg_g0 = NAN;
    h->have_theta = l->no_theta == l->nparams;
    h->have_ck = h->have_theta && l->all_ck;
    h->have_wl = l->has[HIST_WINS] && l->has[HIST_LOSSES];
    size_buckets(h, l->rows, w->buckets);
    if (alloc_buckets(h) < 0)
        return errmsg(err, errlen, "out of memory");
    w->tail = hist_tail(l->rows);
    h->tail_rows = w->tail.rows;
    h->prev_rows = w->tail.prev_rows;
    w->score = w->prev_games = 0;
    return 0;
}

/* Games, play time and score after the row, in bucket b; the games before
 * the averaging window and before the tail. */
static void add_counts(HistScanView *w, const HistValues *v, size_t b, bool first)
{
    HistScan *h = w->h;
    double games = v->fixed[HIST_GAMES];
    if (first)
        h->g_first[b] = games;
    h->g_last[b] = games;
    h->el_last[b] = v->fixed[HIST_ELAPSED];
    if (h->have_wl)
        w->score += v->fixed[HIST_WINS] - v->fixed[HIST_LOSSES];
    h->score_last[b] = w->score;
    if (isnan(h->avg_g0) && w->avg_k0 > 0 && v->fixed[HIST_K] > (double)w->avg_k0)
        h->avg_g0 = w->prev_games;
    if (v->i == w->tail.from)
        h->tail_g0 = w->prev_games;
    w->prev_games = games;
}

/* Parameter p's theta t and band t +/- c into bucket b: its extremes in
 * the order they came. */
static void add_theta(HistScan *h, size_t b, size_t p, bool first, double t, double c)
{
    size_t j = b * h->np + p;
    if (first) {
        h->t_min[j] = h->t_max[j] = t;
        h->min_first[j] = true;
        h->band_lo[j] = t - c;
        h->band_hi[j] = t + c;
        return;
    }
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

static int scan_row(void *ctx, const HistLayout *l, const HistValues *v, char *err, size_t errlen)
{
    (void)l, (void)err, (void)errlen;
    HistScanView *w = ctx;
    HistScan *h = w->h;
    size_t b = (size_t)(v->i / h->per);
    bool first = v->i % h->per == 0;
    add_counts(w, v, b, first);
    for (size_t p = 0; p < h->np && h->have_theta; p++) {
        double t = v->theta[p];
        add_theta(h, b, p, first, t, h->have_ck ? v->c_k[p] : NAN);
        if (v->i >= w->tail.from)
            h->tail_sum[p] += t;
        else if (v->i >= w->tail.prev_from)
            h->prev_sum[p] += t;
    }
    h->rows = v->i + 1;
    return 0;
}

HistVisitor histscan_visitor(HistScanView *view, size_t buckets, uint64_t avg_k0, HistScan *out)
{
    memset(out, 0, sizeof *out);
    out->tail_g0 = out->avg_g0 = NAN;
    *view = (HistScanView){ .h = out, .buckets = buckets, .avg_k0 = avg_k0 };
    return (HistVisitor){ .begin = scan_begin, .row = scan_row, .ctx = view };
}

int histscan_read(const char *dir, const SpsaState *st, uint64_t maxrows, size_t buckets, uint64_t avg_k0,
                  HistScan *h, char *err, size_t errlen)
{
    HistScanView view;
    HistVisitor vis = histscan_visitor(&view, buckets, avg_k0, h);
    h->np = st->nparams;
    if (hist_scan(dir, st, maxrows, &vis, 1, err, errlen) == 0)
        return 0;
    histscan_free(h);
    return -1;
}
