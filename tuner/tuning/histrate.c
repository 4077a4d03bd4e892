/* A run's recent pace from history.csv: see histrate.h. */
#include "histrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "errmsg.h"

static int rate_begin(void *ctx, const HistLayout *l, char *err, size_t errlen)
{
    HistRate *r = ctx;
    if (!l->has[HIST_GAMES])
        return hist_no_column(l, "games", err, errlen);
    if (!l->has[HIST_ELAPSED])
        return hist_no_column(l, "elapsed_s", err, errlen);
    hist_rate_free(r); /* a pass that starts over */
    r->from = l->rows > HISTRATE_ROWS ? l->rows - HISTRATE_ROWS : 0;
    size_t keep = (size_t)(l->rows - r->from);
    r->games = malloc((keep ? keep : 1) * sizeof *r->games);
    r->el = malloc((keep ? keep : 1) * sizeof *r->el);
    if (!r->games || !r->el)
        return errmsg(err, errlen, "out of memory");
    return 0;
}

static int rate_row(void *ctx, const HistLayout *l, const HistValues *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    HistRate *r = ctx;
    if (v->i < r->from || r->n >= l->rows - r->from)
        return 0;
    r->games[r->n] = v->fixed[HIST_GAMES];
    r->el[r->n] = v->fixed[HIST_ELAPSED];
    r->n++;
    return 0;
}

HistVisitor hist_rate_visitor(HistRate *r)
{
    memset(r, 0, sizeof *r);
    return (HistVisitor){ .begin = rate_begin, .row = rate_row, .ctx = r };
}

void hist_rate_free(HistRate *r)
{
    free(r->games);
    free(r->el);
    r->games = r->el = NULL;
    r->n = 0;
}

double hist_rate(const HistRate *r, double *secs)
{
    *secs = 0;
    if (r->n < 2)
        return NAN;
    size_t last = (size_t)r->n - 1, first = last;
    while (first > 0 && r->el[last] - r->el[first - 1] <= HISTRATE_SPAN)
        first--;
    size_t n = last - first;
    if (n == 0)
        return NAN;
    double *dt = malloc(n * sizeof *dt);
    if (!dt)
        return NAN;
    for (size_t i = 0; i < n; i++)
        dt[i] = r->el[first + i + 1] - r->el[first + i];
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) {
        free(dt);
        return NAN;
    }
    memcpy(sorted, dt, n * sizeof *sorted);
    gsl_sort(sorted, 1, n);
    double median = gsl_stats_median_from_sorted_data(sorted, 1, n);
    free(sorted);
    double games = 0, t = 0;
    for (size_t i = 0; i < n; i++) {
        double dg = r->games[first + i + 1] - r->games[first + i];
        if (!(dt[i] >= 0) || !(dg >= 0) || (median > 0 && dt[i] > HISTRATE_GAP * median))
            continue; /* a gap, or rows out of order (a file edited by hand) */
        t += dt[i];
        games += dg;
    }
    free(dt);
    if (t < HISTRATE_MIN || !(games > 0))
        return NAN;
    *secs = t;
    return games / t;
}

double hist_rate_read(const char *dir, const SpsaState *st, uint64_t maxrows, double *secs)
{
    HistRate r;
    HistVisitor vis = hist_rate_visitor(&r);
    char err[512];
    double rate = NAN;
    *secs = 0;
    if (hist_scan(dir, st, maxrows, &vis, 1, err, sizeof err) == 0)
        rate = hist_rate(&r, secs);
    hist_rate_free(&r);
    return rate;
}
