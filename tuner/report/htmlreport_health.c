/* A run's page: its health, its configuration and provenance, and the
 * export, bake and verify commands; see htmlreport_impl.h. */
#include "htmlreport_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "histscan.h"
#include "plot.h"
#include "state.h"

void htmlreport_health(FILE *f, HtmlRunPage *pg)
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
    duration_format_as(rs->elapsed, DURATION_MINUTES, el, sizeof el);
    fprintf(f, "%.2f games/s over the run (%s of play in %llu session%s)</div>\n",
            rs->elapsed > 0 ? (double)rs->games / rs->elapsed : 0.0, el, (unsigned long long)rs->sessions,
            rs->sessions == 1 ? "" : "s");
    {
        PlotSeries s = { .kind = PLOT_LINE, .x = rx, .y = ry, .n = nr, .rgb = 0x00897b, .width = 1.5 };
        double lo = 0, hi = rhi > 0 ? rhi : 1;
        plot_pad_range(&lo, &hi, 0.05, 0.1);
        PlotChart c = { .xlabel = "games", .ylabel = "games/s", .width = 520, .height = 260, .xmin = 0,
                        .xmax = pg->games_max, .ymin = 0, .ymax = hi, .x_count = true, .s = &s, .ns = 1 };
        htmlreport_chart(f, &c, &pg->charts);
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
            htmlreport_range_of(y, n, &lo, &hi);
            htmlreport_range_of(ehi, n, &lo, &hi);
            htmlreport_range_of(elo, n, &lo, &hi);
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
        htmlreport_chart(f, &c, &pg->charts);
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
        htmlreport_chart(f, &c, &pg->charts);
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
    htmlreport_esc(f, k);
    fputs("</th><td class=\"mono\">", f);
    htmlreport_esc(f, v && v[0] ? v : "-");
    fputs("</td></tr>\n", f);
}

void htmlreport_config(FILE *f, const HtmlRunPage *pg, const char *dir)
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
             (unsigned long long)spsa_budget_games(sc), (unsigned long long)sc->iterations,
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

void htmlreport_commands(FILE *f, const RunState *rs, const char *dir)
{
    const char *slash = strrchr(dir, '/');
    const char *name = slash && slash[1] ? slash + 1 : dir;
    const char *cmd = conf_get(&rs->conf, "engine", "cmd");
    const char *book = conf_get(&rs->conf, "openings", "file");
    fputs("<section id=\"commands\"><h2>Export, bake, verify</h2><pre>", f);
    fprintf(f, "bin/ratchet-tune export ");
    htmlreport_esc(f, dir);
    fprintf(f, " -o params/tuned/");
    htmlreport_esc(f, name);
    fputs(".json\nmake PARAMS=params/tuned/", f);
    htmlreport_esc(f, name);
    fputs(".json BAKED_BIN=bin/ratchet-", f);
    htmlreport_esc(f, name);
    fputs("\nbin/ratchet-tune match -engine cmd=bin/ratchet-", f);
    htmlreport_esc(f, name);
    fputs(" name=tuned -engine cmd=", f);
    htmlreport_esc(f, cmd ? cmd : "bin/ratchet");
    /* the verify match at the run's own time control */
    fputs(" name=base \\\n    -each", f);
    bool each = false;
    for (size_t i = 0; i < rs->conf.n; i++)
        if (strcmp(rs->conf.v[i].sec, "each") == 0 && strncmp(rs->conf.v[i].key, "option.", 7) != 0) {
            fputc(' ', f);
            htmlreport_esc(f, rs->conf.v[i].key);
            fputc('=', f);
            htmlreport_esc(f, rs->conf.v[i].val);
            each = true;
        }
    if (!each)
        fputs(" tc=8+0.08", f);
    fputs(" -openings file=", f);
    htmlreport_esc(f, book ? book : "openings/default.epd");
    fputs(" order=random -repeat -rounds 20000 \\\n    -concurrency 2 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"
          "</pre>\n<p class=\"note\">The export writes every parameter of the spec: the tuned ones at theta "
          "rounded (the iterate average when the run averages), the others at their spec value. "
          "<code>make PARAMS=</code> bakes them into an engine as constants; the match verifies the gain "
          "with an SPRT.</p></section>\n",
          f);
}

