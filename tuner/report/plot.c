/* Charts drawn by PLplot's svg driver; see plot.h. */
#include "plot.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "errmsg.h"

/* Tableau 10: distinct, and readable on white. */
const uint32_t plot_palette[PLOT_NCOLORS] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                              0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf };

enum { COL_AXIS = 1, COL_GRID = 2, COL_SERIES = 3 };

static pthread_mutex_t plot_mu = PTHREAD_MUTEX_INITIALIZER;
static char plot_abort_msg[256];

static void on_abort(PLCHAR_VECTOR msg)
{
    snprintf(plot_abort_msg, sizeof plot_abort_msg, "%s", msg);
}

/* Is PLplot's svg driver installed?  (Asked once: plinit would otherwise
 * prompt on stdin for another device.) */
static int svg_driver_state = -1;

static bool have_svg_driver(void)
{
    if (svg_driver_state < 0) {
        PLCHAR_VECTOR *menu = NULL, *names = NULL;
        int n = 0;
        /* plgDevs fills caller-provided arrays of at least the device count. */
        menu = calloc(64, sizeof *menu);
        names = calloc(64, sizeof *names);
        n = 64;
        svg_driver_state = 0;
        if (menu && names) {
            plgDevs(&menu, &names, &n);
            for (int i = 0; i < n; i++)
                if (names[i] && strcmp(names[i], "svg") == 0)
                    svg_driver_state = 1;
        }
        free(menu);
        free(names);
    }
    return svg_driver_state == 1;
}

void plot_count_label(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (a >= 1e6)
        snprintf(buf, len, "%gM", round(v / 1e4) / 100);
    else if (a >= 1e4)
        snprintf(buf, len, "%gk", round(v / 1e2) / 10);
    else if (a >= 1e3)
        snprintf(buf, len, "%gk", round(v / 10) / 100);
    else
        snprintf(buf, len, "%g", round(v * 1000) / 1000);
}

void plot_pad_range(double *lo, double *hi, double pad, double minwidth)
{
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    }
    if (*hi - *lo < minwidth) {
        double mid = 0.5 * (*lo + *hi);
        *lo = mid - 0.5 * minwidth;
        *hi = mid + 0.5 * minwidth;
    }
    double w = *hi - *lo;
    *lo -= pad * w;
    *hi += pad * w;
}

typedef struct {
    const PlotChart *c;
} LabelCtx;

static void label_fn(PLINT axis, PLFLT value, PLCHAR_NC_VECTOR label, PLINT length, PLPointer data)
{
    const LabelCtx *lc = data;
    const PlotChart *c = lc->c;
    label[0] = '\0';
    if (axis == PL_X_AXIS && c->xcats) {
        double r = round(value);
        if (fabs(value - r) < 1e-6 && r >= 0 && r < c->ncats)
            snprintf(label, (size_t)length, "%s", c->xcats[(int)r]);
        return;
    }
    plot_count_label(value, label, (size_t)length);
}

static void set_color(int idx, uint32_t rgb, double alpha)
{
    plscol0a(idx, (PLINT)(rgb >> 16 & 0xff), (PLINT)(rgb >> 8 & 0xff), (PLINT)(rgb & 0xff),
             alpha > 0 ? alpha : 1.0);
    plcol0(idx);
}

/* plline over the finite runs of the points. */
static void draw_line(const double *x, const double *y, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && !(isfinite(x[i]) && isfinite(y[i])))
            i++;
        size_t j = i;
        while (j < n && isfinite(x[j]) && isfinite(y[j]))
            j++;
        if (j - i >= 2)
            plline((PLINT)(j - i), (PLFLT *)x + i, (PLFLT *)y + i);
        i = j;
    }
}

static void draw_band(const PlotSeries *s)
{
    double *px = malloc(2 * s->n * sizeof *px + 1), *py = malloc(2 * s->n * sizeof *py + 1);
    size_t *idx = malloc(s->n * sizeof *idx + 1);
    size_t k = 0;
    for (size_t i = 0; idx && i < s->n; i++)
        if (isfinite(s->x[i]) && isfinite(s->y[i]) && isfinite(s->y2[i]))
            idx[k++] = i;
    if (px && py && idx && k >= 2) {
        /* the upper edge forwards, the lower edge backwards */
        for (size_t j = 0; j < k; j++) {
            px[j] = px[2 * k - 1 - j] = s->x[idx[j]];
            py[j] = s->y2[idx[j]];
            py[2 * k - 1 - j] = s->y[idx[j]];
        }
        plfill((PLINT)(2 * k), px, py);
    }
    free(px);
    free(py);
    free(idx);
}

static void draw_series(const PlotChart *c, const PlotSeries *s)
{
    set_color(COL_SERIES, s->rgb, s->alpha);
    plwidth(s->width > 0 ? s->width : 1.0);
    pllsty(s->style > 0 ? s->style : PLOT_SOLID);
    switch (s->kind) {
    case PLOT_LINE:
        draw_line(s->x, s->y, s->n);
        break;
    case PLOT_BAND:
        draw_band(s);
        break;
    case PLOT_HLINE: {
        if (!isfinite(s->value))
            break;
        PLFLT x[2] = { isfinite(s->x0) ? s->x0 : c->xmin, isfinite(s->x1) ? s->x1 : c->xmax };
        PLFLT y[2] = { s->value, s->value };
        plline(2, x, y);
        break;
    }
    case PLOT_BARS:
        for (size_t i = 0; i < s->n; i++) {
            if (!isfinite(s->y[i]))
                continue;
            PLFLT x[4] = { (double)i - 0.35, (double)i + 0.35, (double)i + 0.35, (double)i - 0.35 };
            PLFLT y[4] = { 0, 0, s->y[i], s->y[i] };
            plfill(4, x, y);
        }
        break;
    }
    pllsty(PLOT_SOLID);
    plwidth(1.0);
}

/* PLplot's text escape is '#': double it in user text. */
static void escape_text(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; in && *in && o + 2 < len; in++) {
        if (*in == '#')
            out[o++] = '#';
        out[o++] = *in;
    }
    out[o] = '\0';
}

/* The driver's document as an inline element: from "<svg" on, without the
 * fixed width and height, ids prefixed, indentation folded. */
static char *inline_svg(const char *doc, const char *id)
{
    const char *p = strstr(doc, "<svg");
    if (!p)
        return NULL;
    char *out = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&out, &n);
    if (!m)
        return NULL;
    bool in_root = true;
    char last = '\0';
    while (*p) {
        if (in_root && *p == '>') {
            in_root = false;
            fputs(" class=\"chart\" role=\"img\"", m);
        }
        if (in_root && (strncmp(p, "width=\"", 7) == 0 || strncmp(p, "height=\"", 8) == 0)) {
            const char *q = strchr(p, '"');
            q = q ? strchr(q + 1, '"') : NULL;
            if (q) {
                p = q + 1;
                continue;
            }
        }
        if (last == ' ' && strncmp(p, "id=\"", 4) == 0) {
            fprintf(m, "id=\"%s-", id);
            p += 4;
            last = '-';
            continue;
        }
        if (strncmp(p, "url(#", 5) == 0) {
            fprintf(m, "url(#%s-", id);
            p += 5;
            last = '-';
            continue;
        }
        if (*p == '\n' || *p == ' ') { /* indentation and line breaks fold into one space */
            while (p[1] == ' ' || p[1] == '\n')
                p++;
            p++;
            if (last != ' ' && last != '>')
                fputc(last = ' ', m);
            continue;
        }
        fputc(last = *p++, m);
    }
    if (fclose(m) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

char *plot_svg(const PlotChart *c, const char *id, char *err, size_t errlen)
{
    pthread_mutex_lock(&plot_mu);
    char *result = NULL;
    if (!have_svg_driver()) {
        errmsg(err, errlen, "PLplot's svg driver is not installed (Debian: apt-get install libplplot17)");
        goto out;
    }
    char *doc = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&doc, &n);
    if (!m) {
        errmsg(err, errlen, "out of memory drawing a chart");
        goto out;
    }
    plot_abort_msg[0] = '\0';
    plsabort(on_abort);
    plsdev("svg");
    plsfile(m); /* PLplot closes it at plend */
    plspage(0, 0, c->width > 0 ? c->width : 480, c->height > 0 ? c->height : 300, 0, 0);
    plscolbg(255, 255, 255);
    plinit();
    pladv(0);
    double font = c->font > 0 ? c->font : 1.3;
    plschr(0, font);
    double xmin = c->xmin, xmax = c->xmax, ymin = c->ymin, ymax = c->ymax;
    if (!(xmax > xmin) || !isfinite(xmin) || !isfinite(xmax))
        plot_pad_range(&xmin, &xmax, 0, 1);
    if (!(ymax > ymin) || !isfinite(ymin) || !isfinite(ymax))
        plot_pad_range(&ymin, &ymax, 0, 1);
    bool titled = c->title && c->title[0];
    /* margins in character heights (3.5 mm at scale 1; the svg driver counts 90 units an inch) */
    double ch = 3.5 * font / ((c->width > 0 ? c->width : 480) * 25.4 / 90);
    double cv = 3.5 * font / ((c->height > 0 ? c->height : 300) * 25.4 / 90);
    bool ylab = c->ylabel && c->ylabel[0];
    plvpor((ylab ? 7.0 : 4.8) * ch, 1 - 1.5 * ch, (c->xlabel && c->xlabel[0] ? 4.5 : 2.4) * cv,
           1 - (titled ? 2.2 : 1.0) * cv);
    plwind(xmin, xmax, ymin, ymax);
    PlotChart cc = *c;
    cc.xmin = xmin;
    cc.xmax = xmax;
    LabelCtx lc = { &cc };
    plslabelfunc(label_fn, &lc);
    const char *xo = c->xcats ? "bcnot" : c->x_count ? "bcnsto" : "bcnst";
    /* the grid under the data, the frame and the ticks over it */
    set_color(COL_GRID, 0xe4e4e4, 1);
    plbox(c->xcats ? "" : "g", c->xcats ? 1 : 0, 0, "g", 0, 0);
    for (size_t i = 0; i < c->ns; i++)
        draw_series(&cc, &c->s[i]);
    set_color(COL_AXIS, 0x333333, 1);
    plbox(xo, c->xcats ? 1 : 0, c->xcats ? 1 : 0, "", 0, 0);
    plbox("", 0, 0, "bcnstvo", 0, 0);
    char t[256];
    escape_text(c->xlabel, t, sizeof t);
    plmtex("b", 2.9, 0.5, 0.5, t);
    escape_text(c->ylabel, t, sizeof t);
    plmtex("l", 5.0, 0.5, 0.5, t);
    if (titled) {
        escape_text(c->title, t, sizeof t);
        plmtex("t", 1.0, 0.0, 0.0, t);
    }
    plslabelfunc(NULL, NULL);
    plend();
    if (plot_abort_msg[0]) {
        errmsg(err, errlen, "PLplot: %s", plot_abort_msg);
        free(doc);
        goto out;
    }
    result = doc ? inline_svg(doc, id) : NULL;
    if (!result)
        errmsg(err, errlen, "the svg driver wrote no chart");
    free(doc);
out:
    pthread_mutex_unlock(&plot_mu);
    return result;
}
