/* The pieces every page is made of: the stylesheet, HTML escaping, the
 * head and the footer, charts and legends; see htmlreport_impl.h. */
#include "htmlreport.h"
#include "htmlreport_impl.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "plot.h"
#include "rd.h"

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

void htmlreport_esc(FILE *f, const char *s)
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

void htmlreport_page_head(FILE *f, const char *title, bool live)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n",
          f);
    if (live)
        fprintf(f, "<meta http-equiv=\"refresh\" content=\"%d\">\n", REPORT_RELOAD_S);
    fputs("<title>", f);
    htmlreport_esc(f, title);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n", CSS);
}

/* A chart into the page, or a note saying why it is missing. */
int htmlreport_chart(FILE *f, const PlotChart *c, int *counter)
{
    char id[16], err[256];
    snprintf(id, sizeof id, "c%d", (*counter)++);
    char *svg = plot_svg(c, id, err, sizeof err);
    if (!svg) {
        fputs("<p class=\"warn\">chart not drawn: ", f);
        htmlreport_esc(f, err);
        fputs("</p>\n", f);
        return -1;
    }
    fputs(svg, f);
    fputc('\n', f);
    free(svg);
    return 0;
}

/* A legend entry: a short line in the colour and style of a series. */
void htmlreport_legend_item(FILE *f, uint32_t rgb, int style, double width, bool band, const char *label)
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
    htmlreport_esc(f, label);
    fputs("</span>", f);
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
int htmlreport_page_end(FILE *f, char **text, size_t *len, const char *what, const char *out, char *err, size_t errlen)
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

void htmlreport_range_of(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}
