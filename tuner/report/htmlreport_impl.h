/* The private pieces of the HTML pages, shared by htmlreport.c (the run's
 * and the match's page), htmlreport_page.c (escaping, head, footer, charts),
 * htmlreport_params.c (the parameter table and charts), htmlreport_health.c
 * (health, configuration, commands) and htmlreport_morning.c (validation
 * points, real moves).  Not for other modules: see htmlreport.h, which
 * its users include first. */
#ifndef RATCHET_HTMLREPORT_IMPL_H
#define RATCHET_HTMLREPORT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "histscan.h"
#include "morning.h"
#include "nightsteps.h"
#include "plot.h"
#include "state.h"

/* buckets per point pair of a trajectory: 300 groups, for charts of 520
 * (a card) and 1000 pixels (the overview) */
#define TRACK_GROUP 2

/* What the sections of a run's page read, and the count of its charts (for
 * their ids). */
typedef struct {
    const RunState *rs;
    const HistScan *h;
    const MorningRun *m; /* what was read of the run directory (rs and h are its) */
    double games_max;    /* right end of the x axes */
    int charts;
} HtmlRunPage;

/* ---- htmlreport_page.c ---- */

/* s with <, >, &, " and ' escaped, a control character as U+FFFD. */
void htmlreport_esc(FILE *f, const char *s);
/* The doctype, the title and the stylesheet; live: the page reloads itself. */
void htmlreport_page_head(FILE *f, const char *title, bool live);
/* Chart c with the next id of *counter, or a note saying why it is missing;
 * 0, or -1 when it was not drawn. */
int htmlreport_chart(FILE *f, const PlotChart *c, int *counter);
void htmlreport_legend_item(FILE *f, uint32_t rgb, int style, double width, bool band, const char *label);
int htmlreport_page_end(FILE *f, char **text, size_t *len, const char *what, const char *out, char *err,
                        size_t errlen);
/* Widen [*lo, *hi] to the finite values of v[0..n). */
void htmlreport_range_of(const double *v, size_t n, double *lo, double *hi);

/* ---- htmlreport_params.c ---- */

void htmlreport_param_table(FILE *f, HtmlRunPage *pg);
void htmlreport_param_card(FILE *f, HtmlRunPage *pg, size_t p);
void htmlreport_param_legend(FILE *f, const RunState *rs);
void htmlreport_overview(FILE *f, HtmlRunPage *pg);

/* ---- htmlreport_health.c ---- */

void htmlreport_health(FILE *f, HtmlRunPage *pg);
void htmlreport_config(FILE *f, const HtmlRunPage *pg, const char *dir);
void htmlreport_commands(FILE *f, const RunState *rs, const char *dir);

/* ---- htmlreport_morning.c ---- */

void htmlreport_validation_section(FILE *f, HtmlRunPage *pg);
void htmlreport_moves_section(FILE *f, HtmlRunPage *pg);

/* ---- htmlreport_morning.c: a night's steps ---- */

/* Whether the run m read holds a night (s filled; an unreadable night.json
 * is one row saying why). */
bool htmlreport_has_night(const MorningRun *m, NightSteps *s);
void htmlreport_night_section(FILE *f, const NightSteps *s);

#endif
