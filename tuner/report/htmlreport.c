/* The HTML pages of runs and matches; see htmlreport.h. */
#include "htmlreport.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"
#include "errmsg.h"
#include "histscan.h"
#include "matchreport.h"
#include "morning.h"
#include "plot.h"
#include "report.h"
#include "rd.h"
#include "runstate.h"
#include "stats.h"
#include "validate.h"

/* ---- page pieces ----------------------------------------------------------------- */

static const char CSS[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#222;"
    "background:#f4f5f7;margin:0}"
    "header{background:#263238;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px;font-weight:600}"
    "header p{margin:4px 0 0;color:#cfd8dc}"
    "nav{padding:6px 24px;background:#fff;border-bottom:1px solid #ddd}nav a{margin-right:16px;color:#1565c0;"
    "text-decoration:none}"
    "main{padding:8px 24px 24px;max-width:1500px}"
    "section{margin-top:18px}h2{font-size:17px;margin:0 0 6px}p.note{color:#555;margin:2px 0 8px;max-width:950px}"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(430px,1fr));gap:12px}"
    ".card{background:#fff;border:1px solid #dde1e5;border-radius:6px;padding:8px 10px}"
    ".card h3{font-size:14px;margin:0 0 2px;font-family:ui-monospace,'DejaVu Sans Mono',monospace}"
    ".card .sub{color:#555;font-size:12.5px;margin-bottom:2px}"
    ".wide{background:#fff;border:1px solid #dde1e5;border-radius:6px;padding:8px 10px;max-width:1100px}"
    "svg.chart{width:100%;height:auto;display:block}"
    ".flag{display:inline-block;font:600 11px/1.6 system-ui,sans-serif;padding:0 6px;border-radius:9px;"
    "margin-left:5px;vertical-align:1px}"
    ".f-still{background:#eceff1;color:#455a64}.f-bound{background:#ffebee;color:#c62828}"
    ".f-drift{background:#fff3e0;color:#e65100}"
    "table{border-collapse:collapse;background:#fff;font-size:13px}"
    "td,th{border:1px solid #dde1e5;padding:3px 8px;text-align:right}th{background:#eceff1}"
    "td.l,th.l{text-align:left;white-space:nowrap}"
    "td.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;text-align:left;overflow-wrap:anywhere}"
    ".card table{width:100%}"
    "pre{background:#263238;color:#eceff1;padding:10px 12px;border-radius:6px;overflow-x:auto;font-size:12.5px}"
    ".legend{font-size:12.5px;color:#333;margin:4px 0}.legend span{display:inline-block;margin-right:14px;"
    "white-space:nowrap}.legend svg{vertical-align:middle;margin-right:4px}"
    ".big{font-size:22px;font-weight:600}.warn{color:#b71c1c}"
    "footer{color:#777;font-size:12px;padding:8px 24px 20px}";

static void html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* a control character (an escape sequence from an engine's name) shows as U+FFFD */
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputs("&#xfffd;", f);
            else
                fputc(*s, f);
        }
    }
}

static void page_head(FILE *f, const char *title, bool live)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n",
          f);
    if (live)
        fprintf(f, "<meta http-equiv=\"refresh\" content=\"%d\">\n", REPORT_RELOAD_S);
    fputs("<title>", f);
    html_esc(f, title);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n", CSS);
}

/* A chart into the page, or a note saying why it is missing. */
static int chart(FILE *f, const PlotChart *c, int *counter)
{
    char id[16], err[256];
    snprintf(id, sizeof id, "c%d", (*counter)++);
    char *svg = plot_svg(c, id, err, sizeof err);
    if (!svg) {
        fputs("<p class=\"warn\">chart not drawn: ", f);
        html_esc(f, err);
        fputs("</p>\n", f);
        return -1;
    }
    fputs(svg, f);
    fputc('\n', f);
    free(svg);
    return 0;
}

/* A legend entry: a short line in the colour and style of a series. */
static void legend_item(FILE *f, uint32_t rgb, int style, double width, bool band, const char *label)
{
    const char *dash = style == PLOT_DASHED ? " stroke-dasharray=\"6 4\"" : style == PLOT_DOTTED ? " stroke-dasharray=\"2 3\"" : "";
    if (band)
        fprintf(f, "<span><svg width=\"26\" height=\"10\"><rect width=\"26\" height=\"10\" fill=\"#%06x\" "
                   "fill-opacity=\"0.2\"/></svg>",
                (unsigned)rgb);
    else
        fprintf(f, "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" y1=\"5\" x2=\"26\" y2=\"5\" "
                   "stroke=\"#%06x\" stroke-width=\"%.1f\"%s/></svg>",
                (unsigned)rgb, width > 0 ? width : 1.0, dash);
    html_esc(f, label);
    fputs("</span>", f);
}

static void fmt_duration(double s, char *buf, size_t len)
{
    long t = lround(s);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

static int write_page(const char *out, char *text, size_t len, char *err, size_t errlen)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", out);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        if (rd_mkdir_p(parent, err, errlen) < 0)
            return -1;
    }
    return rd_write_atomic_private(out, text, len, err, errlen);
}

/* Close the page (made from `what`), write it to out, free its text. */
static int page_end(FILE *f, char **text, size_t *len, const char *what, const char *out, char *err, size_t errlen)
{
    char now[32];
    rd_now_iso(now, sizeof now);
    fprintf(f, "</main>\n<footer>Written by ratchet-tune at %s from %s. Every chart is inline SVG drawn by PLplot; "
               "the page needs no network.</footer>\n</body></html>\n",
            now, what);
    int rc = -1;
    if (fclose(f) != 0 || !*text)
        errmsg(err, errlen, "out of memory writing the report");
    else
        rc = write_page(out, *text, *len, err, errlen);
    free(*text);
    *text = NULL;
    return rc;
}

/* ---- the run ------------------------------------------------------------------------ */

/* buckets per point pair of a trajectory: 300 groups, for charts of 520
 * (a card) and 1000 pixels (the overview) */
#define TRACK_GROUP 2

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

static void range_of(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}

typedef struct {
    const RunState *rs;
    const HistScan *h;
    double games_max;    /* right end of the x axes */
    int charts;
} RunPage;

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
static void summary_of(const RunPage *pg, size_t p, ParamSummary *s)
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

static void param_card(FILE *f, RunPage *pg, size_t p)
{
    const RunState *rs = pg->rs;
    const SpsaState *st = &rs->spsa;
    const SpsaParam *q = &st->params[p];
    const HistScan *h = pg->h;
    ParamSummary s;
    summary_of(pg, p, &s);
    double value = spsa_value(st, p);
    fprintf(f, "<div class=\"card\" id=\"p-%zu\"><h3>", p); /* names may hold spaces: ids by index */
    html_esc(f, q->name);
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
    range_of(t.y, t.n, &lo, &hi);
    if (h->have_ck && t.n > 1) {
        range_of(t.lo + t.n - 1, 1, &lo, &hi);
        range_of(t.hi + t.n - 1, 1, &lo, &hi);
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
    chart(f, &c, &pg->charts);
    fputs("</div>\n", f);
    track_free(&t);
}

static void param_legend(FILE *f, const RunState *rs)
{
    fputs("<div class=\"legend\">", f);
    legend_item(f, COL_THETA, PLOT_SOLID, 1.3, false, "theta");
    legend_item(f, COL_THETA, PLOT_SOLID, 0, true, "theta \xc2\xb1 c_k (what the two engines played)");
    legend_item(f, COL_START, PLOT_SOLID, 1, false, "start");
    legend_item(f, COL_BOUND, PLOT_SOLID, 1.5, false, "bound (drawn when near)");
    legend_item(f, COL_TAIL, PLOT_SOLID, 3, false, "mean of the last 10% (status)");
    if (rs->spsa.cfg.average > 0)
        legend_item(f, COL_AVG, PLOT_SOLID, 2, false, "iterate average (what export writes)");
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

static void overview(FILE *f, RunPage *pg)
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
        range_of(t[p].y, t[p].n, &lo, &hi);
        ser[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = t[p].x, .y = t[p].y, .n = t[p].n,
                                  .rgb = series_colour(p), .width = 1.4 };
    }
    plot_pad_range(&lo, &hi, 0.05, 0.2);
    PlotChart c = { .xlabel = "games", .ylabel = "(theta - start) / c_end", .width = 1000, .height = 400, .font = 0.95,
                    .xmin = 0, .xmax = pg->games_max, .ymin = lo, .ymax = hi, .x_count = true, .s = ser, .ns = ns };
    chart(f, &c, &pg->charts);
    fputs("<div class=\"legend\">", f);
    for (size_t p = 0; p < st->nparams; p++) {
        char label[SPSA_NAME_MAX + 32];
        snprintf(label, sizeof label, "%s %+.2f", st->params[p].name,
                 (st->params[p].theta - st->params[p].start) / st->params[p].c_end);
        legend_item(f, series_colour(p), PLOT_SOLID, 1.6, false, label);
    }
    fputs("</div></div></section>\n", f);
    for (size_t p = 0; p < st->nparams; p++)
        track_free(&t[p]);
    free(t);
    free(ser);
}

static void health(FILE *f, RunPage *pg)
{
    const RunState *rs = pg->rs;
    const SpsaState *st = &rs->spsa;
    const HistScan *h = pg->h;
    fputs("<section id=\"health\"><h2>Health of the run</h2><div class=\"grid\">\n", f);

    /* games per second between bucket ends, about 80 points */
    size_t step = h->nb > 80 ? (h->nb + 79) / 80 : 1;
    size_t cap = h->nb / step + 2;
    double *rx = calloc(cap, sizeof(double)), *ry = calloc(cap, sizeof(double));
    size_t nr = 0;
    double rhi = 0;
    for (size_t b = 0; rx && ry && b + step < h->nb + step && b < h->nb; b += step) {
        size_t e = b + step < h->nb ? b + step : h->nb - 1;
        double g0 = b ? h->g_last[b - 1] : 0, e0 = b ? h->el_last[b - 1] : 0;
        double dt = h->el_last[e] - e0, dg = h->g_last[e] - g0;
        if (e <= b && b > 0)
            break;
        if (dt > 0 && isfinite(dt)) {
            rx[nr] = 0.5 * (g0 + h->g_last[e]);
            ry[nr] = dg / dt;
            rhi = fmax(rhi, ry[nr++]);
        }
    }
    fputs("<div class=\"card\"><h3>games per second</h3><div class=\"sub\">", f);
    char el[32];
    fmt_duration(rs->elapsed, el, sizeof el);
    fprintf(f, "%.2f games/s over the run (%s of play in %llu session%s)</div>\n",
            rs->elapsed > 0 ? (double)rs->games / rs->elapsed : 0.0, el, (unsigned long long)rs->sessions,
            rs->sessions == 1 ? "" : "s");
    {
        PlotSeries s = { .kind = PLOT_LINE, .x = rx, .y = ry, .n = nr, .rgb = 0x00897b, .width = 1.5 };
        double lo = 0, hi = rhi > 0 ? rhi : 1;
        plot_pad_range(&lo, &hi, 0.05, 0.1);
        PlotChart c = { .xlabel = "games", .ylabel = "games/s", .width = 520, .height = 260, .xmin = 0,
                        .xmax = pg->games_max, .ymin = 0, .ymax = hi, .x_count = true, .s = &s, .ns = 1 };
        chart(f, &c, &pg->charts);
    }
    fputs("</div>\n", f);
    free(rx);
    free(ry);

    /* the cumulative score of theta+c, with the +/- 2 sigma of equal engines */
    uint64_t g = st->wins + st->losses + st->draws;
    fputs("<div class=\"card\"><h3>cumulative score of theta+c against theta&minus;c</h3><div class=\"sub\">", f);
    fprintf(f, "of the <i>+</i> engine: %llu wins, %llu losses, %llu draws (%.1f%%); the band is "
               "&plusmn;2&sigma; if the two sides were equal</div>\n",
            (unsigned long long)st->wins, (unsigned long long)st->losses, (unsigned long long)st->draws,
            g ? 100.0 * ((double)st->wins + 0.5 * (double)st->draws) / (double)g : 50.0);
    {
        size_t n = h->nb + 1;
        double *x = calloc(n, sizeof(double)), *y = calloc(n, sizeof(double));
        double *elo = calloc(n, sizeof(double)), *ehi = calloc(n, sizeof(double));
        double var = g ? (double)(st->wins + st->losses) / (double)g : 1;
        double lo = -1, hi = 1;
        if (x && y && elo && ehi) {
            for (size_t b = 0; b < h->nb; b++) {
                x[b + 1] = h->g_last[b];
                y[b + 1] = h->score_last[b];
                ehi[b + 1] = 2 * sqrt(var * h->g_last[b]);
                elo[b + 1] = -ehi[b + 1];
            }
            range_of(y, n, &lo, &hi);
            range_of(ehi, n, &lo, &hi);
            range_of(elo, n, &lo, &hi);
        }
        plot_pad_range(&lo, &hi, 0.05, 2);
        PlotSeries s[3] = {
            { .kind = PLOT_BAND, .x = x, .y = elo, .y2 = ehi, .n = x ? n : 0, .rgb = 0x9e9e9e, .alpha = 0.18 },
            { .kind = PLOT_HLINE, .value = 0, .x0 = NAN, .x1 = NAN, .rgb = 0x9e9e9e },
            { .kind = PLOT_LINE, .x = x, .y = y, .n = x ? n : 0, .rgb = 0x5e35b1, .width = 1.5 }
        };
        PlotChart c = { .xlabel = "games", .ylabel = "wins - losses", .width = 520, .height = 260, .xmin = 0,
                        .xmax = pg->games_max, .ymin = lo, .ymax = hi, .x_count = true, .s = s,
                        .ns = h->have_wl ? 3 : 2 };
        chart(f, &c, &pg->charts);
        free(x);
        free(y);
        free(elo);
        free(ehi);
    }
    fputs("</div>\n", f);

    /* the pentanomial counts */
    static const char *const cats[5] = { "LL", "LD", "DD+WL", "WD", "WW" };
    double pv[5], top = 1;
    uint64_t pairs = 0;
    for (int i = 0; i < 5; i++) {
        pv[i] = (double)rs->ptnml[i];
        top = fmax(top, pv[i]);
        pairs += rs->ptnml[i];
    }
    fputs("<div class=\"card\"><h3>pentanomial counts</h3><div class=\"sub\">", f);
    fprintf(f, "game pairs of theta+c, from its side: Ptnml(0-2) [%llu, %llu, %llu, %llu, %llu] over %llu pairs"
               "</div>\n",
            (unsigned long long)rs->ptnml[0], (unsigned long long)rs->ptnml[1], (unsigned long long)rs->ptnml[2],
            (unsigned long long)rs->ptnml[3], (unsigned long long)rs->ptnml[4], (unsigned long long)pairs);
    {
        PlotSeries s = { .kind = PLOT_BARS, .y = pv, .n = 5, .rgb = 0x546e7a };
        PlotChart c = { .xlabel = "pair result", .ylabel = "pairs", .width = 520, .height = 260, .xmin = -0.6,
                        .xmax = 4.6, .ymin = 0, .ymax = top * 1.08, .xcats = cats, .ncats = 5, .s = &s, .ns = 1 };
        chart(f, &c, &pg->charts);
    }
    fputs("</div>\n", f);

    /* failures per engine */
    fputs("<div class=\"card\"><h3>engine failures</h3><div class=\"sub\">in applied batches; each one lost "
          "its game</div>\n<table><tr><th class=\"l\">engine</th><th>time losses</th><th>crashes</th>"
          "<th>illegal moves</th><th>restarts</th></tr>\n",
          f);
    static const char *const side[2] = { "theta + c", "theta &minus; c" };
    for (int e = 0; e < 2; e++) {
        fprintf(f, "<tr><td class=\"l\">%s</td>", side[e]);
        for (int c = 0; c < ENG_NCOUNTS; c++)
            fprintf(f, "<td>%llu</td>", (unsigned long long)rs->per_engine[c][e]);
        fputs("</tr>\n", f);
    }
    fprintf(f, "<tr><td class=\"l\">both</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td></tr></table>\n",
            (unsigned long long)rs->time_losses, (unsigned long long)rs->crashes, (unsigned long long)rs->illegal,
            (unsigned long long)(rs->per_engine[ENG_RESTARTS][0] + rs->per_engine[ENG_RESTARTS][1]));
    if (rs->per_engine_since > 0)
        fprintf(f, "<p class=\"note\">Per engine counted from game %llu on (an older build started the run); "
                   "the <i>both</i> row covers the whole run.</p>\n",
                (unsigned long long)rs->per_engine_since);
    fputs("</div>\n</div></section>\n", f);
}

static void row(FILE *f, const char *k, const char *v)
{
    fputs("<tr><th class=\"l\">", f);
    html_esc(f, k);
    fputs("</th><td class=\"mono\">", f);
    html_esc(f, v && v[0] ? v : "-");
    fputs("</td></tr>\n", f);
}

static void config(FILE *f, const RunPage *pg, const char *dir)
{
    const RunState *rs = pg->rs;
    const SpsaConfig *sc = &rs->spsa.cfg;
    char buf[512];
    fputs("<section id=\"config\"><h2>Configuration and provenance</h2><div class=\"grid\">"
          "<div class=\"card\"><h3>provenance</h3><table>\n",
          f);
    row(f, "run directory", dir);
    row(f, "engine", rs->engine);
    row(f, "engine command", conf_get(&rs->conf, "engine", "cmd"));
    if (rs->engine_id.has_bench)
        snprintf(buf, sizeof buf, "%llu", rs->engine_id.bench);
    else
        snprintf(buf, sizeof buf, "%s", rs->engine_id.have ? "none (the engine has no bench command)"
                                                            : "not recorded (an older build started the run)");
    row(f, "bench signature", buf);
    row(f, "time control", rs->tc);
    const char *book = conf_get(&rs->conf, "openings", "file");
    snprintf(buf, sizeof buf, "%s%s%s", book ? book : "openings/default.epd (the default)",
             conf_get(&rs->conf, "openings", "order") ? ", order=" : "",
             conf_get(&rs->conf, "openings", "order") ? conf_get(&rs->conf, "openings", "order") : "");
    row(f, "openings", buf);
    row(f, "seed (-srand)", conf_get(&rs->conf, "srand", ""));
    snprintf(buf, sizeof buf, "%llu games = %llu iterations of %d pair%s; A-ratio %g, alpha %g, gamma %g%s",
             (unsigned long long)(sc->iterations * 2 * (uint64_t)sc->pairs_per), (unsigned long long)sc->iterations,
             sc->pairs_per, sc->pairs_per == 1 ? "" : "s", sc->A_ratio, sc->alpha, sc->gamma,
             sc->average > 0 ? ", averaging" : "");
    row(f, "SPSA", buf);
    row(f, "created", rs->created);
    row(f, "state saved", rs->updated);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)rs->sessions);
    row(f, "sessions", buf);
    if (rs->nfixed > 0) {
        snprintf(buf, sizeof buf, "%zu spec parameters, played and exported with their spec value", rs->nfixed);
        row(f, "not tuned", buf);
    }
    fputs("</table></div>\n<div class=\"card\"><h3>settings (as resume rebuilds the run)</h3><table>\n", f);
    for (size_t i = 0; i < rs->conf.n; i++) {
        const ConfItem *it = &rs->conf.v[i];
        snprintf(buf, sizeof buf, "%s%s%s", it->sec, it->key[0] ? "." : "", it->key);
        row(f, buf, it->val);
    }
    fputs("</table></div></div></section>\n", f);
}

static void commands(FILE *f, const RunState *rs, const char *dir)
{
    const char *slash = strrchr(dir, '/');
    const char *name = slash && slash[1] ? slash + 1 : dir;
    const char *cmd = conf_get(&rs->conf, "engine", "cmd");
    const char *book = conf_get(&rs->conf, "openings", "file");
    fputs("<section id=\"commands\"><h2>Export, bake, verify</h2><pre>", f);
    fprintf(f, "bin/ratchet-tune export ");
    html_esc(f, dir);
    fprintf(f, " -o params/tuned/");
    html_esc(f, name);
    fputs(".json\nmake PARAMS=params/tuned/", f);
    html_esc(f, name);
    fputs(".json BAKED_BIN=bin/ratchet-", f);
    html_esc(f, name);
    fputs("\nbin/ratchet-tune match -engine cmd=bin/ratchet-", f);
    html_esc(f, name);
    fputs(" name=tuned -engine cmd=", f);
    html_esc(f, cmd ? cmd : "bin/ratchet");
    /* the verify match at the run's own time control */
    fputs(" name=base \\\n    -each", f);
    bool each = false;
    for (size_t i = 0; i < rs->conf.n; i++)
        if (strcmp(rs->conf.v[i].sec, "each") == 0 && strncmp(rs->conf.v[i].key, "option.", 7) != 0) {
            fputc(' ', f);
            html_esc(f, rs->conf.v[i].key);
            fputc('=', f);
            html_esc(f, rs->conf.v[i].val);
            each = true;
        }
    if (!each)
        fputs(" tc=8+0.08", f);
    fputs(" -openings file=", f);
    html_esc(f, book ? book : "openings/default.epd");
    fputs(" order=random -repeat -rounds 20000 \\\n    -concurrency 2 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"
          "</pre>\n<p class=\"note\">The export writes every parameter of the spec: the tuned ones at theta "
          "rounded (the iterate average when the run averages), the others at their spec value. "
          "<code>make PARAMS=</code> bakes them into an engine as constants; the match verifies the gain "
          "with an SPRT.</p></section>\n",
          f);
}

/* ---- the morning's questions: validation points and which moves are real ---- */

/* Elo of each validation point against the tuning games, with its 95% error
 * bar; the table marks the latest and the best snapshot. */
static void validation_section(FILE *f, RunPage *pg, const char *dir)
{
    const Validation *v = &pg->rs->val;
    if (validate_points(v) == 0)
        return;
    ValidationPoint *pts = NULL;
    size_t n = 0;
    char err[512];
    fputs("<section id=\"validation\"><h2>Validation: the values export would write, against the start values</h2>\n", f);
    if (validate_read(dir, &pts, &n, err, sizeof err) < 0) {
        fputs("<p class=\"warn\">", f);
        html_esc(f, err);
        fputs("</p></section>\n", f);
        return;
    }
    if (n > v->done)
        n = (size_t)v->done;
    fprintf(f, "<p class=\"note\">Every %g of the budget, %llu games on the %llu openings the tuning never "
               "plays (validation.csv); each point's values are its snapshot (snapshots/K.json, "
               "<code>export -snapshot K</code>).  The best of several noisy points is optimistic: "
               "re-measure it with <code>verify -snapshot best</code>.</p>\n",
            v->every, (unsigned long long)v->games, (unsigned long long)v->holdout);
    if (n == 0) {
        fputs("<p>No point yet.</p></section>\n", f);
        free(pts);
        return;
    }
    size_t best = 0;
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].elo > pts[best].elo)
            best = i;
        double e = isfinite(pts[i].elo_err) ? pts[i].elo_err : 0;
        if (isfinite(pts[i].elo)) {
            lo = fmin(lo, pts[i].elo - e);
            hi = fmax(hi, pts[i].elo + e);
        }
    }
    double *x = calloc(3 * n + 1, sizeof *x), *y = calloc(3 * n + 1, sizeof *y);
    PlotSeries *s = calloc(n + 3, sizeof *s);
    if (x && y && s) {
        double *bx = x + n, *by = y + n;
        size_t ns = 0;
        s[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = 0, .x0 = NAN, .x1 = NAN, .rgb = 0x9e9e9e };
        for (size_t i = 0; i < n; i++) {
            x[i] = (double)pts[i].games;
            y[i] = pts[i].elo;
            bx[2 * i] = bx[2 * i + 1] = x[i];
            by[2 * i] = pts[i].elo - pts[i].elo_err;
            by[2 * i + 1] = pts[i].elo + pts[i].elo_err;
            s[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = bx + 2 * i, .y = by + 2 * i, .n = 2,
                                    .rgb = i == best ? 0xc62828 : 0x5e35b1, .width = 2 };
        }
        s[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = x, .y = y, .n = n, .rgb = 0x5e35b1, .width = 1.5,
                                .style = PLOT_DASHED };
        plot_pad_range(&lo, &hi, 0.08, 10);
        PlotChart c = { .xlabel = "games", .ylabel = "Elo against the start values", .width = 640, .height = 300,
                        .xmin = 0, .xmax = 1.04 * fmax(pg->games_max, x[n - 1]), .ymin = lo, .ymax = hi,
                        .x_count = true, .s = s, .ns = ns };
        chart(f, &c, &pg->charts);
    }
    free(x);
    free(y);
    free(s);
    fputs("<table><tr><th>point</th><th>games</th><th>Elo</th><th>games played</th><th>Ptnml(0-2)</th>"
          "<th>snapshot</th><th></th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const ValidationPoint *p = &pts[i];
        fprintf(f, "<tr><td>%llu</td><td>%llu</td><td>%+.1f &plusmn; %.1f</td><td>%llu</td><td>%llu, %llu, %llu, "
                   "%llu, %llu</td><td>%s/%llu.json</td><td>%s%s%s</td></tr>\n",
                (unsigned long long)p->point, (unsigned long long)p->games, p->elo, p->elo_err,
                (unsigned long long)(2 * p->pairs), (unsigned long long)p->ptnml[0], (unsigned long long)p->ptnml[1],
                (unsigned long long)p->ptnml[2], (unsigned long long)p->ptnml[3], (unsigned long long)p->ptnml[4],
                SNAPSHOT_DIR, (unsigned long long)p->point, i == n - 1 ? "<b>last</b>" : "",
                i == n - 1 && i == best ? ", " : "", i == best ? "<b>best</b> (optimistic)" : "");
    }
    fputs("</table></section>\n", f);
    free(pts);
}

/* Per parameter: the interval for its final value and whether its move is
 * distinguishable from noise (moves.h). */
static void moves_section(FILE *f, RunPage *pg, const char *dir)
{
    const RunState *rs = pg->rs;
    MoveVerdict *vs = calloc(rs->spsa.nparams + 1, sizeof *vs);
    char err[512] = "";
    if (!vs)
        return;
    morning_verdicts(dir, rs, rs->spsa.completed, vs, err, sizeof err);
    fprintf(f, "<section id=\"moves\"><h2>Which moves are real</h2>\n<p class=\"note\">A move is <i>real</i> "
               "when |z| &gt; %.1f: it exceeds what a random walk of the same steps (the noise of a parameter "
               "the games ignore) would make.  The interval is the final value &plusmn; 1.96 &times; its steps "
               "over the last %.0f%% of the run.  <code>export -keep-noise=start</code> writes the start value "
               "for the others.</p>\n<table><tr><th>parameter</th><th>start</th><th>final</th><th>interval</th>"
               "<th>z</th><th>move</th></tr>\n", MOVES_Z, 100 * MOVES_TAIL);
    for (size_t i = 0; i < rs->spsa.nparams; i++) {
        const SpsaParam *q = &rs->spsa.params[i];
        const MoveVerdict v = vs[i];
        fputs("<tr><td>", f);
        html_esc(f, q->name);
        fprintf(f, "</td><td>%g</td><td>%.2f</td><td>[%.1f, %.1f]</td><td>%.2f</td><td>%s</td></tr>\n", q->start,
                v.final, v.lo, v.hi, v.z, v.real ? "<b>real</b>" : v.final == q->start ? "none" : "noise");
    }
    fputs("</table>", f);
    if (err[0]) {
        fputs("<p class=\"warn\">", f);
        html_esc(f, err);
        fputs("</p>", f);
    }
    fputs("</section>\n", f);
    free(vs);
}

static void param_table(FILE *f, RunPage *pg)
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
        html_esc(f, q->name);
        fprintf(f, "</a></td><td>%g</td><td>%.2f</td><td>%.2f</td><td>%g</td><td>%+.2f</td><td>[%g, %g]</td>"
                   "<td class=\"l\">",
                q->start, q->theta, s.recent, spsa_value(st, p), (q->theta - q->start) / q->c_end, q->min, q->max);
        flags_html(f, &s);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

int htmlreport_run(const char *dir, const char *out, HtmlRunMode mode, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, STATE_FILE);
    cJSON *raw = rd_read_json(path, err, errlen);
    if (!raw)
        return -1;
    RunState rs;
    if (runstate_from_json(&rs, raw, path, err, errlen) < 0) {
        cJSON_Delete(raw);
        return -1;
    }
    const SpsaState *st = &rs.spsa;
    uint64_t avg_k0 = st->cfg.average > 0 ? (uint64_t)floor((1 - st->cfg.average) * (double)st->cfg.iterations) : 0;
    HistScan h;
    char herr[512] = "";
    if (histscan_read(dir, st, st->completed, HISTSCAN_BUCKETS, avg_k0, &h, herr, sizeof herr) < 0)
        memset(&h, 0, sizeof h), h.np = st->nparams;
    pid_t holder = rd_lock_holder(dir);
    bool live = mode == HTML_RUN_LIVE || (mode == HTML_RUN_AUTO && holder > 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        histscan_free(&h);
        runstate_free(&rs);
        cJSON_Delete(raw);
        return errmsg(err, errlen, "out of memory");
    }
    char abs[PATH_MAX];
    rd_abs_path(dir, abs, sizeof abs);
    size_t al = strlen(abs);
    while (al > 1 && abs[al - 1] == '/')
        abs[--al] = '\0';
    const char *slash = strrchr(abs, '/');
    const char *name = slash && slash[1] ? slash + 1 : abs;
    char title[PATH_MAX + 32];
    snprintf(title, sizeof title, "%s: SPSA run", name);
    page_head(f, title, live);

    uint64_t total = st->cfg.iterations * 2 * (uint64_t)st->cfg.pairs_per;
    RunPage pg = { .rs = &rs, .h = &h };
    pg.games_max = (double)(rs.games > 0 ? rs.games : 1);
    if (h.nb > 0)
        pg.games_max = fmax(pg.games_max, h.g_last[h.nb - 1]);
    char el[32];
    fmt_duration(rs.elapsed, el, sizeof el);
    fputs("<header><h1>", f);
    html_esc(f, name);
    fputs(" &mdash; SPSA run of ", f);
    html_esc(f, rs.engine);
    fputs("</h1><p>", f);
    if (live)
        fprintf(f, "<b>running</b>%s (this page reloads every %d s)", holder > 0 ? "" : "", REPORT_RELOAD_S);
    else if (spsa_done(st))
        fputs("<b>complete</b>", f);
    else
        fputs("<b>stopped</b> (resume continues it)", f);
    fprintf(f, " &middot; %llu of %llu games (%.0f%%) &middot; iteration %llu of %llu &middot; %s of play &middot; ",
            (unsigned long long)rs.games, (unsigned long long)total,
            total ? 100.0 * (double)rs.games / (double)total : 0.0, (unsigned long long)st->completed,
            (unsigned long long)st->cfg.iterations, el);
    html_esc(f, rs.tc);
    fputs(" &middot; state saved ", f);
    html_esc(f, rs.updated);
    fputs("</p></header>\n<nav><a href=\"#params\">Parameters</a><a href=\"#overview\">Overview</a><a href=\"#charts\">Each parameter</a>"
          "<a href=\"#validation\">Validation</a><a href=\"#moves\">Real moves</a><a href=\"#health\">Health</a><a href=\"#config\">Configuration</a><a href=\"#commands\">Export</a></nav>"
          "\n<main>\n",
          f);
    if (herr[0]) {
        fputs("<p class=\"warn\">history.csv could not be read, so there are no trajectories: ", f);
        html_esc(f, herr);
        fputs("</p>\n", f);
    } else if (h.rows > (h.nb + TRACK_GROUP - 1) / TRACK_GROUP) {
        fprintf(f, "<p class=\"note\">%llu batches drawn as %zu groups of %llu: each group shows its "
                   "smallest and largest value, so no excursion is hidden. history.csv keeps every row.</p>\n",
                (unsigned long long)h.rows, (h.nb + TRACK_GROUP - 1) / TRACK_GROUP,
                (unsigned long long)h.per * TRACK_GROUP);
    }
    fputs("<section id=\"params\"><h2>Parameters</h2>\n<p class=\"note\">Flags as <code>ratchet-tune status</code>: "
          "<i>never moved</i>, <i>at min/max</i> (theta sits on a bound), <i>drifting up/down</i> (the mean of "
          "the last 10% of the batches differs from the 10% before by at least half of c_end).</p>\n",
          f);
    param_table(f, &pg);
    fputs("</section>\n", f);
    validation_section(f, &pg, dir);
    moves_section(f, &pg, dir);
    overview(f, &pg);
    fputs("<section id=\"charts\"><h2>Each parameter</h2>\n<p class=\"note\">theta against games in its "
          "own units, inside the band of the values the two engines played; the overview above shows the "
          "same moves scaled to c_end.</p>\n",
          f);
    param_legend(f, &rs);
    fputs("<div class=\"grid\">\n", f);
    for (size_t p = 0; p < st->nparams; p++)
        param_card(f, &pg, p);
    fputs("</div></section>\n", f);
    health(f, &pg);
    config(f, &pg, abs);
    commands(f, &rs, abs);
    int rc = page_end(f, &text, &len, "state.json and history.csv", out, err, errlen);
    histscan_free(&h);
    runstate_free(&rs);
    cJSON_Delete(raw);
    return rc;
}

/* ---- the match ------------------------------------------------------------------------ */

void match_series_add(MatchSeries *s, const MatchTally *t, const SprtSpec *sprt)
{
    if (!s->p) {
        s->p = calloc(MATCH_SERIES_MAX, sizeof *s->p);
        s->every = 1;
        if (!s->p)
            return;
    }
    if (++s->seen % s->every != 0)
        return;
    if (s->n == MATCH_SERIES_MAX) {
        for (size_t i = 1; i < MATCH_SERIES_MAX / 2; i++)
            s->p[i] = s->p[2 * i + 1];
        s->n = MATCH_SERIES_MAX / 2;
        s->every *= 2;
        if (s->seen % s->every != 0)
            return;
    }
    EloEstimate e;
    match_estimate(t, &e);
    MatchPoint *p = &s->p[s->n++];
    p->games = (double)t->games;
    /* no point while there is no finite interval (too few games, or every pair alike) */
    bool interval = e.elo_err > 0 && isfinite(e.elo_err);
    p->elo = interval ? e.elo : NAN;
    p->lo = interval ? e.elo - e.elo_err : NAN;
    p->hi = interval ? e.elo + e.elo_err : NAN;
    p->llr = NAN;
    if (sprt && sprt->on) {
        double lo, up;
        sprt_check(t, sprt, &p->llr, &lo, &up);
    }
}

void match_series_free(MatchSeries *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}

int htmlreport_match(const char *out, const MatchConfig *cfg, const MatchTally *t, const SprtSpec *sprt,
                     const SprtStop *stop, const MatchSeries *ser, bool live, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return errmsg(err, errlen, "out of memory");
    char title[200];
    snprintf(title, sizeof title, "%s vs %s", cfg->eng[0].name, cfg->eng[1].name);
    page_head(f, title, live);
    EloEstimate e;
    match_estimate(t, &e);
    if (fabs(e.elo) < 0.005) /* no "-0.00" */
        e.elo = 0;
    if (fabs(e.nelo) < 0.005)
        e.nelo = 0;
    char tc[96];
    tc_format(&cfg->eng[0].tc, tc, sizeof tc);
    fputs("<header><h1>", f);
    html_esc(f, title);
    fputs("</h1><p>", f);
    fprintf(f, "%s &middot; %llu games &middot; ", live ? "<b>running</b> (this page reloads every minute)" : "<b>finished</b>",
            (unsigned long long)t->games);
    html_esc(f, tc);
    if (cfg->book_path[0]) {
        fputs(" &middot; ", f);
        html_esc(f, cfg->book_path);
    }
    fputs("</p></header>\n<main>\n", f);

    int verdict = 0;
    double llr = 0, lower = 0, upper = 0;
    if (sprt && sprt->on)
        verdict = sprt_check(t, sprt, &llr, &lower, &upper);
    if (stop && stop->verdict) /* the verdict that stopped the match, as the text report says */
        verdict = stop->verdict;
    fprintf(f, "<section><div class=\"wide\"><span class=\"big\">Elo %+.2f &plusmn; %.2f</span> &nbsp; nElo %+.2f "
               "&plusmn; %.2f &middot; LOS %.2f%% &middot; +%llu &minus;%llu =%llu",
            e.elo, e.elo_err, e.nelo, e.nelo_err, 100 * e.los, (unsigned long long)t->wins,
            (unsigned long long)t->losses, (unsigned long long)t->draws);
    if (sprt && sprt->on)
        fprintf(f, "<br>SPRT [%.2f, %.2f] nElo, &alpha; %.2f, &beta; %.2f: LLR %.2f in (%.2f, %.2f): <b>%s</b>",
                sprt->elo0, sprt->elo1, sprt->alpha, sprt->beta, llr, lower, upper,
                verdict > 0 ? "H1 accepted" : verdict < 0 ? "H0 accepted" : "not decided");
    fputs("</div></section>\n<section><div class=\"grid\">\n", f);

    int charts = 0;
    size_t n = ser ? ser->n : 0;
    double *x = calloc(n + 1, sizeof(double)), *y = calloc(n + 1, sizeof(double));
    double *lo = calloc(n + 1, sizeof(double)), *hi = calloc(n + 1, sizeof(double));
    double *l = calloc(n + 1, sizeof(double));
    double gmax = (double)(t->games ? t->games : 1);
    if (x && y && lo && hi && l) {
        for (size_t i = 0; i < n; i++) {
            x[i] = ser->p[i].games;
            y[i] = ser->p[i].elo;
            lo[i] = ser->p[i].lo;
            hi[i] = ser->p[i].hi;
            l[i] = ser->p[i].llr;
        }
    } else {
        n = 0;
    }
    /* the Elo range from the second half of the match, where the interval is readable */
    double ylo = isfinite(e.elo) ? e.elo : 0, yhi = ylo;
    for (size_t i = n / 2; i < n; i++) {
        if (isfinite(lo[i]))
            ylo = fmin(ylo, lo[i]);
        if (isfinite(hi[i]))
            yhi = fmax(yhi, hi[i]);
    }
    ylo = fmin(ylo, 0);
    yhi = fmax(yhi, 0);
    plot_pad_range(&ylo, &yhi, 0.15, 10);
    fputs("<div class=\"card\"><h3>Elo with its 95% interval</h3><div class=\"sub\">the estimate after each "
          "number of games; the band narrows as games come in</div>\n",
          f);
    {
        PlotSeries s[3] = { { .kind = PLOT_BAND, .x = x, .y = lo, .y2 = hi, .n = n, .rgb = 0x1565c0, .alpha = 0.18 },
                            { .kind = PLOT_HLINE, .value = 0, .x0 = NAN, .x1 = NAN, .rgb = 0x757575,
                              .style = PLOT_DASHED },
                            { .kind = PLOT_LINE, .x = x, .y = y, .n = n, .rgb = 0x1565c0, .width = 1.5 } };
        PlotChart c = { .xlabel = "games", .ylabel = "Elo", .width = 520, .height = 280, .xmin = 0, .xmax = gmax,
                        .ymin = ylo, .ymax = yhi, .x_count = true, .s = s, .ns = 3 };
        chart(f, &c, &charts);
    }
    fputs("</div>\n", f);
    if (sprt && sprt->on) {
        double a = fmin(lower, 0), b = fmax(upper, 0);
        range_of(l, n, &a, &b);
        plot_pad_range(&a, &b, 0.08, 1);
        fprintf(f, "<div class=\"card\"><h3>SPRT log-likelihood ratio</h3><div class=\"sub\">H0 nElo %.2f against "
                   "H1 nElo %.2f; the test stops when the LLR leaves (%.2f, %.2f)</div>\n",
                sprt->elo0, sprt->elo1, lower, upper);
        PlotSeries s[4] = { { .kind = PLOT_HLINE, .value = upper, .x0 = NAN, .x1 = NAN, .rgb = 0x2e7d32, .width = 1.5 },
                            { .kind = PLOT_HLINE, .value = lower, .x0 = NAN, .x1 = NAN, .rgb = 0xc62828, .width = 1.5 },
                            { .kind = PLOT_HLINE, .value = 0, .x0 = NAN, .x1 = NAN, .rgb = 0x9e9e9e },
                            { .kind = PLOT_LINE, .x = x, .y = l, .n = n, .rgb = 0x37474f, .width = 1.5 } };
        PlotChart c = { .xlabel = "games", .ylabel = "LLR", .width = 520, .height = 280, .xmin = 0, .xmax = gmax,
                        .ymin = a, .ymax = b, .x_count = true, .s = s, .ns = 4 };
        chart(f, &c, &charts);
        fputs("<div class=\"legend\">", f);
        legend_item(f, 0x2e7d32, PLOT_SOLID, 1.5, false, "upper bound: H1 accepted");
        legend_item(f, 0xc62828, PLOT_SOLID, 1.5, false, "lower bound: H0 accepted");
        fputs("</div></div>\n", f);
    }
    free(x);
    free(y);
    free(lo);
    free(hi);
    free(l);

    static const char *const cats[5] = { "LL", "LD", "DD+WL", "WD", "WW" };
    double pv[5], top = 1;
    for (int i = 0; i < 5; i++) {
        pv[i] = (double)t->ptnml[i];
        top = fmax(top, pv[i]);
    }
    fputs("<div class=\"card\"><h3>pentanomial counts</h3><div class=\"sub\">game pairs from ", f);
    html_esc(f, cfg->eng[0].name);
    fprintf(f, "'s side: Ptnml(0-2) [%llu, %llu, %llu, %llu, %llu]</div>\n", (unsigned long long)t->ptnml[0], (unsigned long long)t->ptnml[1],
            (unsigned long long)t->ptnml[2], (unsigned long long)t->ptnml[3], (unsigned long long)t->ptnml[4]);
    {
        PlotSeries s = { .kind = PLOT_BARS, .y = pv, .n = 5, .rgb = 0x546e7a };
        PlotChart c = { .xlabel = "pair result", .ylabel = "pairs", .width = 520, .height = 280, .xmin = -0.6,
                        .xmax = 4.6, .ymin = 0, .ymax = top * 1.08, .xcats = cats, .ncats = 5, .s = &s, .ns = 1 };
        chart(f, &c, &charts);
    }
    fputs("</div>\n</div></section>\n", f);

    /* the text report, as the terminal shows it */
    char *rep = NULL;
    size_t rl = 0;
    FILE *m = open_memstream(&rep, &rl);
    if (m) {
        match_report(m, cfg, t, sprt, stop);
        fclose(m);
        fputs("<section><h2>Report</h2><pre>", f);
        html_esc(f, rep);
        fputs("</pre></section>\n", f);
    }
    free(rep);
    return page_end(f, &text, &len, "the match's results", out, err, errlen);
}
