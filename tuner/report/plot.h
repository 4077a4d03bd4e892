/* Charts as inline SVG, drawn by PLplot's svg driver: the one module that
 * calls the plotting library (docs/design.md, "The report").  A chart is a frame
 * (axes, ticks and labels by PLplot) holding lines, filled bands, horizontal
 * reference lines and bars.  The result is an <svg> element ready to be
 * pasted into an HTML page: the XML prologue is dropped, the fixed size is
 * replaced by a viewBox that scales with the page, and the element ids are
 * prefixed so that many charts can share one page.
 *
 * PLplot keeps global state and is not thread-safe; plot_svg serialises its
 * callers with a mutex of its own. */
#ifndef RATCHET_PLOT_H
#define RATCHET_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    PLOT_LINE,  /* x[i], y[i] joined */
    PLOT_BAND,  /* the area between y[i] (lower) and y2[i] (upper), filled */
    PLOT_HLINE, /* y = value from x0 to x1 (both NAN: the whole width) */
    PLOT_BARS   /* bar i at x = i, height y[i] (categories: PlotChart.xcats) */
} PlotKind;

/* Line styles: PLplot's pllsty numbers. */
enum { PLOT_SOLID = 1, PLOT_DASHED = 3, PLOT_DOTTED = 2, PLOT_LONGDASH = 4 };

typedef struct {
    PlotKind kind;
    const double *x, *y, *y2;
    size_t n;
    double value, x0, x1; /* PLOT_HLINE */
    uint32_t rgb;         /* 0xRRGGBB */
    double alpha;         /* 0 is taken as 1 (opaque) */
    double width;         /* line width; 0 is taken as 1 */
    int style;            /* PLOT_SOLID (also when 0), PLOT_DASHED, ... */
} PlotSeries;

typedef struct {
    const char *title;       /* above the frame (may be NULL) */
    const char *xlabel, *ylabel;
    int width, height;       /* in SVG units (about CSS pixels) */
    double font;             /* text size, PLplot's scale (0: 1.3, for a chart shown at about its width) */
    double xmin, xmax, ymin, ymax;
    bool x_count;            /* x tick labels as counts: 500, 20k, 1.5M */
    const char *const *xcats; /* PLOT_BARS: the name of bar i (ncats of them) */
    int ncats;
    const PlotSeries *s;
    size_t ns;
} PlotChart;

/* The chart as an <svg> element (malloc'd, NUL-terminated), its ids prefixed
 * with `id` (letters and digits).  NULL with a message when PLplot's svg
 * driver is missing or a chart cannot be drawn.  Non-finite points are left
 * out; an empty or degenerate range is widened. */
char *plot_svg(const PlotChart *c, const char *id, char *err, size_t errlen);

/* A count as a short label: 950, 12.5k, 3M. */
void plot_count_label(double v, char *buf, size_t len);

/* A "nice" axis range around [lo, hi] with a margin of `pad` of its width on
 * each side; a zero-width range is widened to at least `minwidth`. */
void plot_pad_range(double *lo, double *hi, double pad, double minwidth);

/* The palette of distinct line colours (for many series on one chart). */
#define PLOT_NCOLORS 10
extern const uint32_t plot_palette[PLOT_NCOLORS];

#endif
