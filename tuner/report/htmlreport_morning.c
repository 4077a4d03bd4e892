/* A run's page: the morning's questions, its validation points and which
 * moves are real; see htmlreport_impl.h. */
#include "htmlreport_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elotext.h"
#include "morning.h"
#include "moves.h"
#include "nightsteps.h"
#include "plot.h"
#include "state.h"
#include "validate.h"

/* ---- the morning's questions: validation points and which moves are real ---- */

/* Elo of each validation point against the tuning games, with its 95% error
 * bar (a point without a finite interval is named under the chart instead);
 * the table marks the latest and the best snapshot; a warning above names
 * the points whose games ended by forfeit. */
void htmlreport_validation_section(FILE *f, HtmlRunPage *pg)
{
    const MorningRun *m = pg->m;
    const Validation *v = &pg->rs->val;
    const SpsaState *st = &pg->rs->spsa;
    uint64_t total = spsa_budget_games(&st->cfg);
    if (validate_points(v, total) == 0)
        return;
    fputs("<section id=\"validation\"><h2>Validation: the values export would write, against the start values</h2>\n", f);
    if (m->val_rc < 0) {
        fputs("<p class=\"warn\">", f);
        htmlreport_esc(f, m->val_err);
        fputs("</p></section>\n", f);
        return;
    }
    const ValidationPoint *pts = m->pts;
    size_t n = m->npts;
    char plan[256], where[96];
    if (v->holdout)
        snprintf(where, sizeof where, "the %llu openings the tuning never plays", (unsigned long long)v->holdout);
    else
        snprintf(where, sizeof where, "the tuning's own openings (none held out: in sample)");
    fprintf(f, "<p class=\"note\">Validation: %s, on %s (validation.csv); each point's values are its snapshot "
               "(snapshots/K.json, <code>export -snapshot K</code>).</p>\n",
            validate_plan_text(v, total, plan, sizeof plan), where);
    char forfeits[1400];
    morning_forfeit_warning(m, forfeits, sizeof forfeits);
    if (forfeits[0]) {
        fputs("<p class=\"warn\">", f);
        htmlreport_esc(f, forfeits);
        fputs("</p>\n", f);
    }
    char pending[160], lost[256];
    morning_validation_state(v, n, pending, sizeof pending, lost, sizeof lost);
    /* status prints it after a label; here it is a sentence of its own ("lost" may begin with a file name) */
    pending[0] = (char)toupper((unsigned char)pending[0]);
    if (lost[0]) {
        fputs("<p class=\"warn\">", f);
        htmlreport_esc(f, lost);
        fputs("</p>\n", f);
    }
    if (pending[0]) {
        fputs("<p>", f);
        htmlreport_esc(f, pending);
        fputs(".</p>\n", f);
    }
    if (n == 0) {
        if (!lost[0])
            fputs("<p>No point yet.</p>\n", f);
        fputs("</section>\n", f);
        return;
    }
    size_t best = validate_best(pts, n), drawn = 0;
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (elo_has_interval(pts[i].elo, pts[i].elo_err)) {
            lo = fmin(lo, pts[i].elo - pts[i].elo_err);
            hi = fmax(hi, pts[i].elo + pts[i].elo_err);
            drawn++;
        }
    }
    /* the points with an interval, joined in order; a point without one has
     * no place on the Elo axis and is named under the chart instead */
    double *x = calloc(3 * n + 1, sizeof *x), *y = calloc(3 * n + 1, sizeof *y);
    PlotSeries *s = calloc(n + 3, sizeof *s);
    if (x && y && s) {
        double *bx = x + n, *by = y + n;
        size_t ns = 0, nb = 0;
        s[ns++] = (PlotSeries){ .kind = PLOT_HLINE, .value = 0, .x0 = NAN, .x1 = NAN, .rgb = 0x9e9e9e };
        for (size_t i = 0; i < n; i++) {
            if (!elo_has_interval(pts[i].elo, pts[i].elo_err))
                continue;
            x[nb] = (double)pts[i].games;
            y[nb] = pts[i].elo;
            bx[2 * nb] = bx[2 * nb + 1] = x[nb];
            by[2 * nb] = pts[i].elo - pts[i].elo_err;
            by[2 * nb + 1] = pts[i].elo + pts[i].elo_err;
            s[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = bx + 2 * nb, .y = by + 2 * nb, .n = 2,
                                    .rgb = i == best ? 0xc62828 : 0x5e35b1, .width = 2 };
            nb++;
        }
        s[ns++] = (PlotSeries){ .kind = PLOT_LINE, .x = x, .y = y, .n = nb, .rgb = 0x5e35b1, .width = 1.5,
                                .style = PLOT_DASHED };
        plot_pad_range(&lo, &hi, 0.08, 10);
        PlotChart c = { .xlabel = "games", .ylabel = "Elo against the start values", .width = 640, .height = 300,
                        .xmin = 0, .xmax = 1.04 * fmax(pg->games_max, (double)pts[n - 1].games), .ymin = lo,
                        .ymax = hi, .x_count = true, .s = s, .ns = ns };
        htmlreport_chart(f, &c, &pg->charts);
    }
    free(x);
    free(y);
    free(s);
    if (drawn < n) {
        fputs("<p class=\"note\">Not drawn: point", f);
        for (size_t i = 0, k = 0; i < n; i++)
            if (!elo_has_interval(pts[i].elo, pts[i].elo_err))
                fprintf(f, "%s %llu", k++ ? "," : n - drawn > 1 ? "s" : "", (unsigned long long)pts[i].point);
        fprintf(f, " %s too few games for an interval (Elo n/a in the table).</p>\n", n - drawn > 1 ? "have" : "has");
    }
    if (n > 1) {
        char btext[600];
        fprintf(f, "<p>Best: point %llu at %llu games: ", (unsigned long long)pts[best].point,
                (unsigned long long)pts[best].games);
        htmlreport_esc(f, morning_best_text(pts, n, btext, sizeof btext));
        fputs("</p>\n", f);
    }
    if (v->has_limit) {
        const ValidationPoint *lp = m->limit_pts;
        size_t ln = m->nlimit;
        char warn[1024], elo[200];
        fputs("<p>At your limit, ", f);
        htmlreport_esc(f, v->limit_text);
        fputs(" (the tuning's: ", f);
        htmlreport_esc(f, pg->rs->tc);
        fputs("), on the same openings (validation-limit.csv):", f);
        if (m->limit_rc < 0) {
            fputs(" ", f);
            htmlreport_esc(f, m->limit_err);
        }
        const ValidationPoint *u = NULL;
        for (size_t i = 0; i < ln; i++) {
            if (lp[i].point > v->done)
                break;
            fprintf(f, "%s point %llu: ", i ? ";" : "", (unsigned long long)lp[i].point);
            htmlreport_esc(f, validate_elo_text(&lp[i], elo, sizeof elo));
            if (lp[i].point == pts[n - 1].point)
                u = &lp[i];
        }
        fputs(ln ? "</p>\n" : " no point yet.</p>\n", f);
        morning_limit_warning(&pts[n - 1], u, pg->rs->tc, v->limit_text, warn, sizeof warn);
        if (warn[0]) {
            fputs("<p class=\"warn\">", f);
            htmlreport_esc(f, warn);
            fputs("</p>\n", f);
        }
    }
    if (!validate_final_taken(v, total) && spsa_done(st))
        fputs("<p class=\"warn\">The final values (export's default) were not validated: <code>resume</code> "
              "plays their point.</p>\n", f);
    fputs("<table><tr><th>point</th><th>games</th><th>Elo</th><th>games played</th><th>Ptnml(0-2)</th>"
          "<th>snapshot</th><th></th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const ValidationPoint *p = &pts[i];
        char elo[200];
        fprintf(f, "<tr><td>%llu</td><td>%llu</td><td>", (unsigned long long)p->point, (unsigned long long)p->games);
        if (elo_has_interval(p->elo, p->elo_err))
            fprintf(f, "%+.1f &plusmn; %.1f", elo_no_minus_zero(p->elo, 1), p->elo_err);
        else
            htmlreport_esc(f, elo_na_text(elo, sizeof elo, p->ptnml, p->wins, p->losses, p->draws));
        fprintf(f, "</td><td>%llu</td><td>%llu, %llu, %llu, %llu, %llu</td><td>%s/%llu.json</td><td>%s%s%s</td></tr>\n",
                (unsigned long long)(2 * p->pairs), (unsigned long long)p->ptnml[0], (unsigned long long)p->ptnml[1],
                (unsigned long long)p->ptnml[2], (unsigned long long)p->ptnml[3], (unsigned long long)p->ptnml[4],
                SNAPSHOT_DIR, (unsigned long long)p->point, i == n - 1 ? "<b>last</b>" : "",
                i == n - 1 && i == best ? ", " : "", i == best ? "<b>best</b> (optimistic: corrected above)" : "");
    }
    fputs("</table></section>\n", f);
}

/* Per parameter: the interval for its final value and whether its move is
 * distinguishable from noise (moves.h). */
void htmlreport_moves_section(FILE *f, HtmlRunPage *pg)
{
    const RunState *rs = pg->rs;
    const MoveVerdict *vs = pg->m->verdicts;
    const char *err = pg->m->verdicts_err;
    if (!vs)
        return;
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
        htmlreport_esc(f, q->name);
        fprintf(f, "</td><td>%g</td><td>%.2f</td><td>[%.1f, %.1f]</td><td>%.2f</td><td>%s</td></tr>\n", q->start,
                v.final, v.lo, v.hi, v.z, v.real ? "<b>real</b>" : v.final == q->start ? "none" : "noise");
    }
    fputs("</table>", f);
    char travel[1024];
    morning_travel_note(&rs->spsa, vs, travel, sizeof travel);
    if (travel[0]) {
        fputs("<p class=\"note\">", f);
        htmlreport_esc(f, travel);
        fputs("</p>", f);
    }
    char note[1536];
    morning_wander_note(&rs->spsa, vs, note, sizeof note);
    if (note[0]) {
        fputs("<p class=\"warn\">", f);
        htmlreport_esc(f, note);
        fputs("</p>", f);
    }
    if (err[0]) {
        fputs("<p class=\"warn\">", f);
        htmlreport_esc(f, err);
        fputs("</p>", f);
    }
    fputs("</section>\n", f);
}


/* ---- a night's steps ---- */

bool htmlreport_has_night(const MorningRun *m, NightSteps *s)
{
    char err[PATH_MAX + 256];
    int rc = night_steps_read(m, s, err, sizeof err);
    if (rc < 0) {
        memset(s, 0, sizeof *s);
        s->n = 1;
        snprintf(s->steps[0].name, sizeof s->steps[0].name, "night");
        snprintf(s->steps[0].status, sizeof s->steps[0].status, "unreadable");
        snprintf(s->steps[0].figure, sizeof s->steps[0].figure, "%.700s", err);
    }
    return rc != 0;
}

/* The night's steps, each with its status and figure (nightsteps.h). */
void htmlreport_night_section(FILE *f, const NightSteps *s)
{
    fputs("<section id=\"night\"><h2>The night</h2>\n<p class=\"note\">The steps of <code>ratchet-tune "
          "night</code> (night.json), each with what it measured.</p>\n<table><tr><th>step</th><th>status</th>"
          "<th>figure</th></tr>\n",
          f);
    for (size_t i = 0; i < s->n; i++) {
        fputs("<tr><td>", f);
        htmlreport_esc(f, s->steps[i].name);
        fputs("</td><td>", f);
        htmlreport_esc(f, s->steps[i].status);
        fputs("</td><td>", f);
        htmlreport_esc(f, s->steps[i].figure);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (s->left[0]) {
        fputs("<p>Left to play: ", f);
        htmlreport_esc(f, s->left);
        fputs("</p>\n", f);
    }
    if (s->morning[0]) {
        fputs("<p>The morning page: <code>", f);
        htmlreport_esc(f, s->morning);
        fputs("</code></p>\n", f);
    }
    fputs("</section>\n", f);
}
