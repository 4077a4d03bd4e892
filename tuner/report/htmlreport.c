/* The HTML pages of runs and matches; see htmlreport.h. */
#include "htmlreport.h"
#include "htmlreport_impl.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "duration.h"
#include "elotext.h"
#include "errmsg.h"
#include "matchreport.h"
#include "morning.h"
#include "plot.h"
#include "rd.h"
#include "state.h"
#include "stats.h"

/* ---- the run ------------------------------------------------------------------------ */

int htmlreport_run(const char *dir, const char *out, HtmlRunMode mode, char *err, size_t errlen)
{
    MorningRun m;
    if (morning_load(&m, dir, MORNING_CHARTS, err, errlen) < 0)
        return -1;
    const RunState *rs = m.rs;
    const SpsaState *st = &rs->spsa;
    const HistScan *h = &m.hist;
    const char *herr = m.hist_err;
    /* the page says so too; the live page of a run only there */
    if (herr[0] && mode != HTML_RUN_LIVE)
        fprintf(stderr, "ratchet-tune: report: warning: %s: the page has no history charts\n", herr);
    pid_t holder = m.holder;
    bool live = mode == HTML_RUN_LIVE || (mode == HTML_RUN_AUTO && holder > 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        morning_free(&m);
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
    htmlreport_page_head(f, title, live);

    uint64_t total = spsa_budget_games(&st->cfg);
    HtmlRunPage pg = { .rs = rs, .h = h, .m = &m };
    pg.games_max = (double)(rs->games > 0 ? rs->games : 1);
    if (h->nb > 0)
        pg.games_max = fmax(pg.games_max, h->g_last[h->nb - 1]);
    char el[32];
    duration_format_as(rs->elapsed, DURATION_MINUTES, el, sizeof el);
    fputs("<header><h1>", f);
    htmlreport_esc(f, name);

    fputs(" &mdash; SPSA run of ", f);
    htmlreport_esc(f, rs->engine);
    fputs("</h1><p>", f);
    if (live)
        fprintf(f, "<b>running</b>%s (this page reloads every %d s)", holder > 0 ? "" : "", REPORT_RELOAD_S);
    else if (spsa_done(st))
        fputs("<b>complete</b>", f);
    else
        fputs("<b>stopped</b> (resume continues it)", f);
    fprintf(f, " &middot; %llu of %llu games (%.0f%%) &middot; iteration %llu of %llu &middot; %s of play &middot; ",
            (unsigned long long)rs->games, (unsigned long long)total,
            total ? 100.0 * (double)rs->games / (double)total : 0.0, (unsigned long long)st->completed,
            (unsigned long long)st->cfg.iterations, el);
    htmlreport_esc(f, rs->tc);
    fputs(" &middot; state saved ", f);
    htmlreport_esc(f, rs->updated);
    NightSteps night;
    bool has_night = htmlreport_has_night(&m, &night);
    fputs("</p></header>\n<nav>", f);
    if (has_night)
        fputs("<a href=\"#night\">Night</a>", f);
    fputs("<a href=\"#params\">Parameters</a><a href=\"#overview\">Overview</a><a href=\"#charts\">Each parameter</a>"
          "<a href=\"#validation\">Validation</a><a href=\"#moves\">Real moves</a><a href=\"#health\">Health</a><a href=\"#config\">Configuration</a><a href=\"#commands\">Export</a></nav>"
          "\n<main>\n",
          f);
    if (herr[0]) {
        fputs("<p class=\"warn\">history.csv could not be read, so there are no trajectories: ", f);
        htmlreport_esc(f, herr);
        fputs("</p>\n", f);
    } else if (h->rows > (h->nb + TRACK_GROUP - 1) / TRACK_GROUP) {
        fprintf(f, "<p class=\"note\">%llu batches drawn as %zu groups of %llu: each group shows its "
                   "smallest and largest value, so no excursion is hidden. history.csv keeps every row.</p>\n",
                (unsigned long long)h->rows, (h->nb + TRACK_GROUP - 1) / TRACK_GROUP,
                (unsigned long long)h->per * TRACK_GROUP);
    }
    if (has_night)
        htmlreport_night_section(f, &night);
    fputs("<section id=\"params\"><h2>Parameters</h2>\n<p class=\"note\">Flags as <code>ratchet-tune status</code>: "
          "<i>never moved</i>, <i>at min/max</i> (theta sits on a bound), <i>drifting up/down</i> (the mean of "
          "the last 10% of the batches differs from the 10% before by at least half of c_end).</p>\n",
          f);
    htmlreport_param_table(f, &pg);
    fputs("</section>\n", f);
    htmlreport_validation_section(f, &pg);
    htmlreport_moves_section(f, &pg);
    htmlreport_overview(f, &pg);
    fputs("<section id=\"charts\"><h2>Each parameter</h2>\n<p class=\"note\">theta against games in its "
          "own units, inside the band of the values the two engines played; the overview above shows the "
          "same moves scaled to c_end.</p>\n",
          f);
    htmlreport_param_legend(f, rs);
    fputs("<div class=\"grid\">\n", f);
    for (size_t p = 0; p < st->nparams; p++)
        htmlreport_param_card(f, &pg, p);
    fputs("</div></section>\n", f);
    htmlreport_health(f, &pg);
    htmlreport_config(f, &pg, abs);
    htmlreport_commands(f, rs, abs);
    int rc = htmlreport_page_end(f, &text, &len, "state.json and history.csv", out, err, errlen);
    morning_free(&m);
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
    htmlreport_page_head(f, title, live);
    EloEstimate e;
    match_estimate(t, &e);
    if (fabs(e.elo) < 0.005) /* no "-0.00" */
        e.elo = 0;
    if (fabs(e.nelo) < 0.005)
        e.nelo = 0;
    char tc[96];
    tc_format(&cfg->eng[0].tc, tc, sizeof tc);
    fputs("<header><h1>", f);
    htmlreport_esc(f, title);
    fputs("</h1><p>", f);
    fprintf(f, "%s &middot; %llu games &middot; ", live ? "<b>running</b> (this page reloads every minute)" : "<b>finished</b>",
            (unsigned long long)t->games);
    htmlreport_esc(f, tc);
    if (cfg->book_path[0]) {
        fputs(" &middot; ", f);
        htmlreport_esc(f, cfg->book_path);
    }
    fputs("</p></header>\n<main>\n", f);

    int verdict = 0;
    double llr = 0, lower = 0, upper = 0;
    if (sprt && sprt->on)
        verdict = sprt_check(t, sprt, &llr, &lower, &upper);
    if (stop && stop->verdict) /* the verdict that stopped the match, as the text report says */
        verdict = stop->verdict;
    fputs("<section><div class=\"wide\"><span class=\"big\">Elo ", f);
    if (elo_has_interval(e.elo, e.elo_err)) {
        fprintf(f, "%+.2f &plusmn; %.2f", e.elo, e.elo_err);
    } else {
        char na[160];
        htmlreport_esc(f, elo_na_text(na, sizeof na, t->ptnml, t->wins, t->losses, t->draws));
    }
    fputs("</span> &nbsp; nElo ", f);
    if (elo_has_interval(e.nelo, e.nelo_err))
        fprintf(f, "%+.2f &plusmn; %.2f", e.nelo, e.nelo_err);
    else
        fputs("n/a", f);
    fprintf(f, " &middot; LOS %.2f%% &middot; +%llu &minus;%llu =%llu", 100 * e.los, (unsigned long long)t->wins,
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
        htmlreport_chart(f, &c, &charts);
    }
    fputs("</div>\n", f);
    if (sprt && sprt->on) {
        double a = fmin(lower, 0), b = fmax(upper, 0);
        htmlreport_range_of(l, n, &a, &b);
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
        htmlreport_chart(f, &c, &charts);
        fputs("<div class=\"legend\">", f);
        htmlreport_legend_item(f, 0x2e7d32, PLOT_SOLID, 1.5, false, "upper bound: H1 accepted");
        htmlreport_legend_item(f, 0xc62828, PLOT_SOLID, 1.5, false, "lower bound: H0 accepted");
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
    htmlreport_esc(f, cfg->eng[0].name);
    fprintf(f, "'s side: Ptnml(0-2) [%llu, %llu, %llu, %llu, %llu]</div>\n", (unsigned long long)t->ptnml[0], (unsigned long long)t->ptnml[1],
            (unsigned long long)t->ptnml[2], (unsigned long long)t->ptnml[3], (unsigned long long)t->ptnml[4]);
    {
        PlotSeries s = { .kind = PLOT_BARS, .y = pv, .n = 5, .rgb = 0x546e7a };
        PlotChart c = { .xlabel = "pair result", .ylabel = "pairs", .width = 520, .height = 280, .xmin = -0.6,
                        .xmax = 4.6, .ymin = 0, .ymax = top * 1.08, .xcats = cats, .ncats = 5, .s = &s, .ns = 1 };
        htmlreport_chart(f, &c, &charts);
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
        htmlreport_esc(f, rep);
        fputs("</pre></section>\n", f);
    }
    free(rep);
    return htmlreport_page_end(f, &text, &len, "the match's results", out, err, errlen);
}
