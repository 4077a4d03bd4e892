/* A run's page: the parameter table, a chart per parameter and the overview
 * of all of them in units of c_end; see htmlreport_impl.h. */
#include "htmlreport_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histscan.h"
#include "plot.h"
#include "report.h"
#include "state.h"

enum { COL_THETA = 0x1f77b4, COL_START = 0x757575, COL_BOUND = 0xc62828, COL_TAIL = 0xef6c00, COL_AVG = 0x8e24aa };

/* The decimated trajectory of column p: two points per group of `group`
 * consecutive buckets (the group's smallest and largest value, in the order
 * they came), one when a group holds one row.  A chart some 500 pixels wide
 * needs no more than about 300 groups: more points only make the page
 * larger. */
typedef struct {
    double *x, *y, *lo, *hi;
    size_t n;
} Track;

static void track_free(Track *t)
{
    free(t->x);
    free(t->y);
    free(t->lo);
    free(t->hi);
    memset(t, 0, sizeof *t);
}

/* theta of parameter p, (theta - start) / scale (scale 0: raw), starting at (0, start). */
static int track_param(const HistScan *h, size_t p, double start, double scale, size_t group, Track *t)
{
    if (group < 1)
        group = 1;
    size_t cap = 2 * (h->nb / group + 1) + 1;
    t->x = malloc(cap * sizeof(double));
    t->y = malloc(cap * sizeof(double));
    t->lo = malloc(cap * sizeof(double));
    t->hi = malloc(cap * sizeof(double));
    t->n = 0;
    if (!t->x || !t->y || !t->lo || !t->hi)
        return -1;
    double s = scale > 0 ? scale : 1, o = scale > 0 ? start : 0;
    t->x[0] = 0;
    t->y[0] = (start - o) / s;
    t->lo[0] = t->hi[0] = NAN;
    t->n = 1;
    for (size_t b0 = 0; b0 < h->nb; b0 += group) {
        size_t b1 = b0 + group < h->nb ? b0 + group : h->nb; /* buckets [b0, b1) */
        size_t bmin = b0, bmax = b0;
        double blo = INFINITY, bhi = -INFINITY;
        for (size_t b = b0; b < b1; b++) {
            size_t j = b * h->np + p;
            if (h->t_min[j] < h->t_min[bmin * h->np + p])
                bmin = b;
            if (h->t_max[j] > h->t_max[bmax * h->np + p])
                bmax = b;
            blo = fmin(blo, h->band_lo[j]);
            bhi = fmax(bhi, h->band_hi[j]);
        }
        double vmin = h->t_min[bmin * h->np + p], vmax = h->t_max[bmax * h->np + p];
        bool min_first = bmin != bmax ? bmin < bmax : h->min_first[bmin * h->np + p];
        double a = min_first ? vmin : vmax, z = min_first ? vmax : vmin;
        bool one = (h->per == 1 && b1 - b0 == 1) || h->g_first[b0] == h->g_last[b1 - 1];
        if (!one) {
            t->x[t->n] = h->g_first[b0];
            t->y[t->n] = (a - o) / s;
            t->lo[t->n] = (blo - o) / s;
            t->hi[t->n++] = (bhi - o) / s;
        }
        t->x[t->n] = h->g_last[b1 - 1];
        t->y[t->n] = ((one ? a : z) - o) / s;
        t->lo[t->n] = (blo - o) / s;
        t->hi[t->n++] = (bhi - o) / s;
    }
    return 0;
}


static void flags_html(FILE *f, const ParamSummary *s)
{
    if (s->never_moved)
        fputs("<span class=\"flag f-still\">never moved</span>", f);
    if (s->at_min || s->at_max)
        fprintf(f, "<span class=\"flag f-bound\">at %s</span>", s->at_min ? "min" : "max");
    if (s->drifting)
        fprintf(f, "<span class=\"flag f-drift\">drifting %s</span>", s->drifting > 0 ? "up" : "down");
}

/* The summary of parameter p from the scan (the same numbers `status` prints). */
static void summary_of(const HtmlRunPage *pg, size_t p, ParamSummary *s)
{
    const SpsaState *st = &pg->rs->spsa;
    report_param(pg->rs, NULL, p, s); /* start, current, bounds flags, c_k */
    const HistScan *h = pg->h;
    const SpsaParam *q = &st->params[p];
    if (h->have_theta && h->rows > 0) {
        bool moved = q->theta != q->start;
        for (size_t b = 0; b < h->nb; b++) {
            size_t j = b * h->np + p;
            s->lo = fmin(s->lo, h->t_min[j]);
            s->hi = fmax(s->hi, h->t_max[j]);
            moved |= h->t_min[j] != q->start || h->t_max[j] != q->start;
        }
        s->never_moved = !moved;
        if (h->tail_rows > 0) {
            s->recent = h->tail_sum[p] / (double)h->tail_rows;
            s->drifting = h->prev_rows ? report_drift(s->recent, h->prev_sum[p] / (double)h->prev_rows,
                                                      h->prev_rows, q->c_end)
                                       : 0;
        }
    }
}

void htmlreport_param_card(FILE *f, HtmlRunPage *pg, size_t p)
{
    const RunState *rs = pg->rs;
    const SpsaState *st = &rs->spsa;
    const SpsaParam *q = &st->params[p];
    const HistScan *h = pg->h;
    ParamSummary s;
    summary_of(pg, p, &s);
    double value = spsa_value(st, p);
    fprintf(f, "<div class=\"card\" id=\"p-%zu\"><h3>", p); /* names may hold spaces: ids by index */
    htmlreport_esc(f, q->name);
    flags_html(f, &s);
    fprintf(f, "</h3><div class=\"sub\">start %g &rarr; now %.2f &middot; last 10%% %.2f &middot; export %g "
               "&middot; range [%g, %g] &middot; c_k %.2f (c_end %g)</div>\n",
            q->start, q->theta, s.recent, value, q->min, q->max, s.c_k, q->c_end);

    Track t = { 0 };
    if (!h->have_theta || track_param(h, p, q->start, 0, TRACK_GROUP, &t) < 0) {
        fputs("<p class=\"warn\">no trajectory: history.csv has no column for this parameter</p></div>\n", f);
        track_free(&t);
        return;
    }
    /* theta, the start and the band as it is now; the wider band of the
     * early iterations is cut at the frame rather than flattening theta */
    double lo = fmin(q->start, q->theta), hi = fmax(q->start, q->theta);
    htmlreport_range_of(t.y, t.n, &lo, &hi);
    if (h->have_ck && t.n > 1) {
        htmlreport_range_of(t.lo + t.n - 1, 1, &lo, &hi);
        htmlreport_range_of(t.hi + t.n - 1, 1, &lo, &hi);
    }
    double w0 = hi - lo;
    if (w0 < 2 * q->c_end)
        w0 = 2 * q->c_end;
    /* the bounds when they are near the data, so that "at a bound" shows */
    bool show_min = q->min >= lo - 0.3 * w0, show_max = q->max <= hi + 0.3 * w0;
    if (show_min)
        lo = fmin(lo, q->min);
    if (show_max)
        hi = fmax(hi, q->max);
    plot_pad_range(&lo, &hi, 0.05, 2 * q->c_end);
    PlotSeries ser[8];
    size_t ns = 0;
    if (h->have_ck)
        ser[ns++] = (PlotSeries){ .kind = PLOT_BAND, .x = t.x + 1, .y = t.lo + 1, .y2 = t.hi + 1, .n = t.n - 1,
                                  .rgb = COL_THETA, .alpha = 0.18 };
    /* solid: PLplot draws a dashed line as one SVG element per dash */
    ser[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = q->start, .x0 = NAN, .x1 = NAN, .rgb = COL_START };
    if (show_min)
        ser[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = q->min, .x0 = NAN, .x1 = NAN, .rgb = COL_BOUND,
                                  .width = 1.5 };
    if (show_max)
        ser[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = q->max, .x0 = NAN, .x1 = NAN, .rgb = COL_BOUND,
                                  .width = 1.5 };
    ser[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = t.x, .y = t.y, .n = t.n, .rgb = COL_THETA, .width = 1.3 };
    if (h->tail_rows > 0 && isfinite(h->tail_g0))
        ser[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = s.recent, .x0 = h->tail_g0, .x1 = pg->games_max,
                                  .rgb = COL_TAIL, .width = 3 };
    if (st->cfg.average > 0 && isfinite(h->avg_g0))
        ser[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = q->avg, .x0 = h->avg_g0, .x1 = pg->games_max,
                                  .rgb = COL_AVG, .width = 2 };
    PlotChart c = { .xlabel = "games", .width = 520, .height = 260, .xmin = 0,
                    .xmax = pg->games_max, .ymin = lo, .ymax = hi, .x_count = true, .s = ser, .ns = ns };
    htmlreport_chart(f, &c, &pg->charts);
    fputs("</div>\n", f);
    track_free(&t);
}

void htmlreport_param_legend(FILE *f, const RunState *rs)
{
    fputs("<div class=\"legend\">", f);
    htmlreport_legend_item(f, COL_THETA, PLOT_SOLID, 1.3, false, "theta");
    htmlreport_legend_item(f, COL_THETA, PLOT_SOLID, 0, true, "theta \xc2\xb1 c_k (what the two engines played)");
    htmlreport_legend_item(f, COL_START, PLOT_SOLID, 1, false, "start");
    htmlreport_legend_item(f, COL_BOUND, PLOT_SOLID, 1.5, false, "bound (drawn when near)");
    htmlreport_legend_item(f, COL_TAIL, PLOT_SOLID, 3, false, "mean of the last 10% (status)");
    if (rs->spsa.cfg.average > 0)
        htmlreport_legend_item(f, COL_AVG, PLOT_SOLID, 2, false, "iterate average (what export writes)");
    fputs("</div>\n", f);
}

/* The colour of the i-th line of the overview: the ten colours of the
 * palette, then the same darker, then lighter, all drawn solid (a dashed
 * line of a thousand points is thousands of separate segments in SVG). */
static uint32_t series_colour(size_t i)
{
    uint32_t c = plot_palette[i % PLOT_NCOLORS], out = 0;
    size_t shade = i / PLOT_NCOLORS % 3;
    for (int sh = 0; sh < 24; sh += 8) {
        unsigned v = c >> sh & 0xff;
        v = shade == 1 ? v * 3 / 5 : shade == 2 ? v + (255 - v) * 9 / 20 : v;
        out |= (uint32_t)v << sh;
    }
    return out;
}

void htmlreport_overview(FILE *f, HtmlRunPage *pg)
{
    const SpsaState *st = &pg->rs->spsa;
    const HistScan *h = pg->h;
    fputs("<section id=\"overview\"><h2>All parameters in units of their c_end</h2>\n"
          "<p class=\"note\">(theta &minus; start) / c_end for every tuned parameter, as fishtest's "
          "&ldquo;%c&rdquo; chart: a line that keeps climbing or falling is still moving; lines that flatten "
          "out have settled. One c_end is the size of the final perturbation.</p>\n<div class=\"wide\">",
          f);
    if (!h->have_theta || st->nparams == 0) {
        fputs("<p class=\"warn\">no history to draw</p></div></section>\n", f);
        return;
    }
    Track *t = calloc(st->nparams, sizeof *t);
    PlotSeries *ser = calloc(st->nparams + 1, sizeof *ser);
    if (!t || !ser) {
        free(t);
        free(ser);
        fputs("</div></section>\n", f);
        return;
    }
    double lo = 0, hi = 0;
    size_t ns = 0;
    ser[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = 0, .x0 = NAN, .x1 = NAN, .rgb = 0x9e9e9e };
    for (size_t p = 0; p < st->nparams; p++) {
        if (track_param(h, p, st->params[p].start, st->params[p].c_end, TRACK_GROUP, &t[p]) < 0)
            continue;
        htmlreport_range_of(t[p].y, t[p].n, &lo, &hi);
        ser[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = t[p].x, .y = t[p].y, .n = t[p].n,
                                  .rgb = series_colour(p), .width = 1.4 };
    }
    plot_pad_range(&lo, &hi, 0.05, 0.2);
    PlotChart c = { .xlabel = "games", .ylabel = "(theta - start) / c_end", .width = 1000, .height = 400, .font = 0.95,
                    .xmin = 0, .xmax = pg->games_max, .ymin = lo, .ymax = hi, .x_count = true, .s = ser, .ns = ns };
    htmlreport_chart(f, &c, &pg->charts);
    fputs("<div class=\"legend\">", f);
    for (size_t p = 0; p < st->nparams; p++) {
        char label[SPSA_NAME_MAX + 32];
        snprintf(label, sizeof label, "%s %+.2f", st->params[p].name,
                 (st->params[p].theta - st->params[p].start) / st->params[p].c_end);
        htmlreport_legend_item(f, series_colour(p), PLOT_SOLID, 1.6, false, label);
    }
    fputs("</div></div></section>\n", f);
    for (size_t p = 0; p < st->nparams; p++)
        track_free(&t[p]);
    free(t);
    free(ser);
}

void htmlreport_param_table(FILE *f, HtmlRunPage *pg)
{
    const SpsaState *st = &pg->rs->spsa;
    fputs("<table><tr><th class=\"l\">parameter</th><th>start</th><th>now</th><th>last 10%</th><th>export</th>"
          "<th>moved / c_end</th><th>range</th><th class=\"l\">flags</th></tr>\n",
          f);
    for (size_t p = 0; p < st->nparams; p++) {
        const SpsaParam *q = &st->params[p];
        ParamSummary s;
        summary_of(pg, p, &s);
        fprintf(f, "<tr><td class=\"mono\"><a href=\"#p-%zu\">", p);
        htmlreport_esc(f, q->name);
        fprintf(f, "</a></td><td>%g</td><td>%.2f</td><td>%.2f</td><td>%g</td><td>%+.2f</td><td>[%g, %g]</td>"
                   "<td class=\"l\">",
                q->start, q->theta, s.recent, spsa_value(st, p), (q->theta - q->start) / q->c_end, q->min, q->max);
        flags_html(f, &s);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

