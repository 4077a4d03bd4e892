/* The morning's texts: which moves are real, the validation points, the
 * status of a run; see morning.h. */
#include "morning.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "elotext.h"
#include "errmsg.h"
#include "report.h"
#include "validate.h"
#include "verdict.h"

/* The verdicts of the state's theta alone (no history). */
static void verdicts_of_state(const RunState *rs, MoveVerdict *out)
{
    for (size_t i = 0; i < rs->spsa.nparams; i++) {
        double theta = rs->spsa.params[i].theta;
        moves_judge(rs->spsa.params[i].start, &theta, 1, 1, &out[i]);
    }
}

static int moves_begin(void *ctx, const HistLayout *l, char *err, size_t errlen)
{
    MovesView *w = ctx;
    const SpsaState *st = &w->rs->spsa;
    if (!w->acc)
        return errmsg(err, errlen, "out of memory");
    if (l->no_theta < l->nparams)
        hist_no_column(l, st->params[l->no_theta].name, w->why, sizeof w->why);
    w->rows = l->rows;
    w->t0 = moves_tail_from((size_t)l->rows);
    for (size_t i = 0; i < st->nparams; i++)
        moves_acc_init(&w->acc[i], st->params[i].start);
    return 0;
}

static int moves_row(void *ctx, const HistLayout *l, const HistValues *v, char *err, size_t errlen)
{
    (void)l, (void)err, (void)errlen;
    MovesView *w = ctx;
    for (size_t i = 0; !w->why[0] && i < w->rs->spsa.nparams; i++)
        moves_acc_add(&w->acc[i], v->theta[i], v->i >= w->t0);
    return 0;
}

HistVisitor morning_moves_visitor(MovesView *w, const RunState *rs, MoveVerdict *out)
{
    *w = (MovesView){ .rs = rs, .out = out, .acc = calloc(rs->spsa.nparams + 1, sizeof *w->acc) };
    verdicts_of_state(rs, out);
    return (HistVisitor){ .begin = moves_begin, .row = moves_row, .ctx = w };
}

int morning_moves_end(MovesView *w, bool read, char *err, size_t errlen)
{
    int rc = 0;
    if (w->why[0])
        rc = errmsg(err, errlen, "%s", w->why);
    else if (read && w->rows > 0)
        for (size_t i = 0; i < w->rs->spsa.nparams; i++)
            moves_acc_verdict(&w->acc[i], &w->out[i]);
    free(w->acc);
    w->acc = NULL;
    return rc;
}

int morning_verdicts(const char *dir, const RunState *rs, uint64_t maxrows, MoveVerdict *out, char *err,
                     size_t errlen)
{
    MovesView w;
    HistVisitor vis = morning_moves_visitor(&w, rs, out);
    int rc = hist_scan(dir, &rs->spsa, maxrows, &vis, 1, err, errlen);
    if (rc < 0 && errno != ENOENT) {
        char why[512];
        morning_moves_end(&w, false, why, sizeof why);
        return -1; /* the verdicts of the state alone, err says why */
    }
    if (rc < 0 && errlen)
        err[0] = '\0'; /* no history.csv: the verdicts of the state alone */
    return morning_moves_end(&w, rc == 0, err, errlen);
}

size_t morning_wanderers(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < st->nparams; i++) {
        const SpsaParam *q = &st->params[i];
        if (!moves_wandered(&vs[i], q->min, q->max))
            continue;
        char one[SPSA_NAME_MAX + 64];
        snprintf(one, sizeof one, "%s%s (%.0f%% of [%g, %g])", n ? ", " : "", q->name,
                 100 * (vs[i].max - vs[i].min) / (q->max - q->min), q->min, q->max);
        n++;
        size_t k = strlen(one);
        if (used + k < len) {
            memcpy(buf + used, one, k + 1);
            used += k;
        }
    }
    return n;
}

void morning_wander_note(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len)
{
    char names[1024];
    size_t n = morning_wanderers(st, vs, names, sizeof names);
    if (n == 0) {
        if (len)
            buf[0] = '\0';
        return;
    }
    snprintf(buf, len,
             "%zu parameter%s wandered over more than %.0f%% of %s range with no move distinguishable from noise: "
             "%s.  The games did not steer %s: %s c_end may be too large (try a smaller one%s, "
             "docs/spsa-forms.md), or the games cannot see %s at this node count.",
             n, n == 1 ? "" : "s", 100 * MOVES_WANDER, n == 1 ? "its" : "their", names, n == 1 ? "it" : "them",
             n == 1 ? "its" : "their",
             st->cfg.form != SPSA_FORM_CLASSIC && !st->cfg.adapt ? ", or -spsa adapt=1" : "",
             n == 1 ? "it" : "them");
}

void morning_travel(const SpsaState *st, const MoveVerdict *vs, double *s, double *smin, double *smax,
                    double *expected)
{
    double *x = calloc(st->nparams + 1, sizeof *x);
    size_t k = 0;
    for (size_t i = 0; x && i < st->nparams; i++)
        if (vs[i].travel > 0 && st->params[i].c_end > 0)
            x[k++] = vs[i].travel / st->params[i].c_end;
    *s = *smin = *smax = 0;
    if (k > 0) {
        gsl_sort(x, 1, k);
        *s = gsl_stats_median_from_sorted_data(x, 1, k);
        *smin = x[0];
        *smax = x[k - 1];
    }
    *expected = (double)st->nparams * 2 * gsl_cdf_ugaussian_Q(MOVES_Z);
    free(x);
}

void morning_travel_note(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len)
{
    double s, lo, hi, expected;
    morning_travel(st, vs, &s, &lo, &hi, &expected);
    if (len)
        buf[0] = '\0';
    if (s <= 0)
        return;
    char range[96] = "";
    if (hi - lo > 0.01 * s)
        snprintf(range, sizeof range, " (median over the parameters; from %.3g to %.3g)", lo, hi);
    snprintf(buf, len,
             "What |z| > %.1f tests: every step of a parameter has the same size in units of its c_end, only its "
             "sign differs, so z = move / (c_end x S), with S = %.3g%s, the root of the sum of the squared steps "
             "in c_end: \"real\" means \"moved more than %.3g c_end from the start\".  If the games ignored all "
             "%zu parameters, about %.1f of them (%zu x P(|z| > %.1f) = %zu x %.3f) would still be called real.  "
             "z measures travel beyond what noise alone would make, not that a move gains Elo: the games' "
             "judgement of a move is an ablation (verify -ablate).",
             MOVES_Z, s, range, MOVES_Z * s, st->nparams, expected, st->nparams, MOVES_Z, st->nparams,
             2 * gsl_cdf_ugaussian_Q(MOVES_Z));
}

void morning_moves(FILE *out, const MorningRun *m)
{
    const SpsaState *st = &m->rs->spsa;
    const MoveVerdict *vs = m->verdicts;
    if (!vs)
        return;
    if (m->verdicts_err[0])
        fprintf(out, "\n(which moves are real: %s)\n", m->verdicts_err);
    int w = 9;
    for (size_t i = 0; i < st->nparams; i++)
        if ((int)strlen(st->params[i].name) > w)
            w = (int)strlen(st->params[i].name);
    fprintf(out, "\nwhich moves are real (|z| > %.1f: the move exceeds what a random walk of the same steps would "
                 "make; interval: the final value +/- 1.96 x its steps over the last %.0f%% of the run)\n",
            MOVES_Z, 100 * MOVES_TAIL);
    if (st->cfg.average > 0 && st->avg_count > 0)
        fprintf(out, "(final: the value export writes, the average of the last %.0f%% of the run; the table above "
                     "shows the last theta as current)\n", 100 * st->cfg.average);
    fprintf(out, "%-*s %8s %9s  %-21s %7s  %s\n", w, "parameter", "start", "final", "interval", "z", "move");
    size_t nreal = 0;
    for (size_t i = 0; i < st->nparams; i++) {
        const SpsaParam *q = &st->params[i];
        const MoveVerdict *v = &vs[i];
        char iv[48];
        snprintf(iv, sizeof iv, q->is_float ? "[%.4g, %.4g]" : "[%.1f, %.1f]", v->lo, v->hi);
        nreal += v->real;
        fprintf(out, q->is_float ? "%-*s %8g %9.4g  %-21s %7.2f  %s\n" : "%-*s %8.0f %9.2f  %-21s %7.2f  %s\n", w,
                q->name, q->start, v->final, iv, v->z,
                v->real ? "real" : v->final == q->start ? "none" : "noise (export -keep-noise=start keeps the start)");
    }
    fprintf(out, "%zu of %zu moves distinguishable from noise\n", nreal, st->nparams);
    char travel[1024];
    morning_travel_note(st, vs, travel, sizeof travel);
    if (travel[0])
        fprintf(out, "%s\n", travel);
    char note[1536];
    morning_wander_note(st, vs, note, sizeof note);
    if (note[0])
        fprintf(out, "%s\n", note);
}

const char *morning_best_text(const ValidationPoint *pts, size_t n, char *buf, size_t len)
{
    const ValidationPoint *p = &pts[validate_best(pts, n)];
    char elo[200];
    double bias = validate_selection_bias(pts, n);
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        with += elo_has_interval(pts[i].elo, pts[i].elo_err);
    if (elo_has_interval(p->elo, p->elo_err) && with < 2)
        snprintf(buf, len, "%s (the only point with an interval: nothing to correct for selection)",
                 validate_elo_text(p, elo, sizeof elo));
    else if (!elo_has_interval(p->elo, p->elo_err) || !isfinite(bias))
        snprintf(buf, len, "%s, uncorrected for selection (the best of %zu noisy estimates is optimistic)",
                 validate_elo_text(p, elo, sizeof elo), n);
    else
        snprintf(buf, len, "%+.1f Elo as measured, %+.1f corrected for selection (the best of %zu noisy estimates "
                 "is optimistic by about %.1f Elo; no interval: re-measure it with verify -snapshot %llu)",
                 elo_no_minus_zero(p->elo, 1), elo_no_minus_zero(p->elo - bias, 1), n, bias, (unsigned long long)p->point);
    return buf;
}

void morning_limit_warning(const ValidationPoint *tuned, const ValidationPoint *user, const char *tc,
                           const char *limit, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!user || !isfinite(user->elo))
        return;
    char a[200], b[200];
    bool below = elo_has_interval(user->elo, user->elo_err) && user->elo + user->elo_err < 0;
    bool disagree = tuned && isfinite(tuned->elo) && tuned->elo > 0 && user->elo < 0;
    if (!below && !disagree)
        return;
    snprintf(buf, len, "WARNING: point %llu %s: %s at %s (the tuning's limit), %s at %s (yours)%s",
             (unsigned long long)user->point,
             below && disagree ? "gains at the tuning's limit and loses significantly at yours"
             : below           ? "is significantly worse than the start values at your limit"
                               : "disagrees between the limits",
             tuned ? validate_elo_text(tuned, a, sizeof a) : "no point", tc, validate_elo_text(user, b, sizeof b),
             limit, disagree ? ": the gain does not carry over to the limit you play" : ": do not ship these values for it");
}

/* "; point P at TC[ (being played)]: K of N games (causes)" after buf[0..n) when f counts a forfeit. */
static size_t forfeit_item(char *buf, size_t len, size_t n, uint64_t point, const char *tc, bool pending,
                           const ValidationForfeits *f, uint64_t games)
{
    uint64_t k = validate_forfeits(f);
    char why[160];
    if (k)
        n = appendf(buf, len, n, "%spoint %llu at %s%s: %llu of %llu games (%s)", n ? "; " : "",
                    (unsigned long long)point, tc, pending ? " (being played)" : "", (unsigned long long)k,
                    (unsigned long long)games, validate_forfeit_text(f, why, sizeof why));
    return n;
}

void morning_forfeit_warning(const MorningRun *m, char *buf, size_t len)
{
    const RunState *rs = m->rs;
    const Validation *v = &rs->val;
    char items[1024];
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    const ValidationPoint *lp = v->has_limit && m->limit_rc >= 0 ? m->limit_pts : NULL;
    size_t ln = lp ? m->nlimit : 0, j = 0;
    for (size_t i = 0; m->val_rc >= 0 && i < m->npts; i++) {
        const ValidationPoint *p = &m->pts[i];
        n = forfeit_item(items, sizeof items, n, p->point, rs->tc, false, &p->forfeits, 2 * p->pairs);
        for (; j < ln && lp[j].point <= p->point; j++)
            if (lp[j].point == p->point)
                n = forfeit_item(items, sizeof items, n, p->point, v->limit_text, false, &lp[j].forfeits,
                                 2 * lp[j].pairs);
    }
    if (v->pending) {
        n = forfeit_item(items, sizeof items, n, v->done + 1, rs->tc, true, &v->forfeits, 2 * v->pairs);
        if (v->has_limit)
            n = forfeit_item(items, sizeof items, n, v->done + 1, v->limit_text, true, &v->lim.forfeits,
                             2 * v->lim.pairs);
    }
    if (n)
        snprintf(buf, len, "WARNING: validation games ended by forfeit, not over the board: %s; a forfeit is a loss "
                 "of the side at fault, so such a point scores the forfeits, not the values", items);
}

void morning_validation_state(const Validation *v, size_t n, char *pending, size_t plen, char *lost, size_t llen)
{
    pending[0] = lost[0] = '\0';
    if (v->pending)
        snprintf(pending, plen, "point %llu being played: %llu of %llu games%s", (unsigned long long)(v->done + 1),
                 (unsigned long long)(2 * v->pairs), (unsigned long long)v->size,
                 v->has_limit ? " at the tuning's limit" : "");
    if (n == 0 && v->done > 0)
        snprintf(lost, llen, "no point in validation.csv, but the state counts %llu finished (the file was emptied "
                 "or cut since: those points' figures are lost)", (unsigned long long)v->done);
    else if (n < v->done)
        snprintf(lost, llen, "validation.csv holds %zu of the %llu finished points the state counts (the file was "
                 "cut since: the other points' figures are lost)", n, (unsigned long long)v->done);
}

/* Whether the last recorded point is of the final values. */
static bool l_is_final(const ValidationPoint *pts, size_t n, uint64_t total)
{
    return n > 0 && pts[n - 1].games >= total;
}

void morning_validation(FILE *out, const MorningRun *m)
{
    const RunState *rs = m->rs;
    const Validation *v = &rs->val;
    if (v->holdout == 0 && v->every <= 0)
        return;
    if (m->val_rc < 0) {
        fprintf(out, "\nvalidation: %s\n", m->val_err);
        return;
    }
    const ValidationPoint *pts = m->pts;
    size_t n = m->npts;
    uint64_t total = spsa_budget_games(&rs->spsa.cfg);
    uint64_t npoints = validate_points(v, total);
    char plan[256], pending[160], lost[256];
    morning_validation_state(v, n, pending, sizeof pending, lost, sizeof lost);
    if (v->holdout)
        fprintf(out, "\nvalidation (snapshot against the start values, on the %llu held-out openings): ",
                (unsigned long long)v->holdout);
    else
        fprintf(out, "\nvalidation (snapshot against the start values, on the tuning's own openings: none held "
                     "out, so in sample): ");
    if (npoints == 0 && n == 0)
        fprintf(out, "off\n");
    else if (n == 0 && lost[0])
        fprintf(out, "%s\n", lost);
    else if (n == 0)
        fprintf(out, "no point yet (%s)\n", validate_plan_text(v, total, plan, sizeof plan));
    else {
        const ValidationPoint *l = &pts[n - 1];
        char elo[200], best[600];
        fprintf(out, "%zu of %llu points\n  latest: point %llu at %llu games: %s (%llu games, "
                     "Ptnml(0-2) [%llu, %llu, %llu, %llu, %llu]), snapshot %s/%llu.json\n",
                n, (unsigned long long)npoints, (unsigned long long)l->point,
                (unsigned long long)l->games, validate_elo_text(l, elo, sizeof elo), (unsigned long long)(2 * l->pairs),
                (unsigned long long)l->ptnml[0], (unsigned long long)l->ptnml[1], (unsigned long long)l->ptnml[2],
                (unsigned long long)l->ptnml[3], (unsigned long long)l->ptnml[4], SNAPSHOT_DIR,
                (unsigned long long)l->point);
        if (n > 1) {
            const ValidationPoint *b = &pts[validate_best(pts, n)];
            fprintf(out, "  best:   point %llu at %llu games: %s\n", (unsigned long long)b->point,
                    (unsigned long long)b->games, morning_best_text(pts, n, best, sizeof best));
        }
        if (v->has_limit) {
            const ValidationPoint *lp = m->limit_pts;
            size_t ln = m->nlimit;
            char warn[1024];
            if (m->limit_rc < 0) {
                fprintf(out, "  at %s: %s\n", v->limit_text, m->limit_err);
            } else {
                const ValidationPoint *u = NULL;
                for (size_t i = 0; i < ln; i++)
                    if (lp[i].point == l->point)
                        u = &lp[i];
                if (u)
                    fprintf(out, "  at %s (your limit; the tuning's: %s): point %llu: %s (%llu games)\n", v->limit_text,
                            rs->tc, (unsigned long long)u->point, validate_elo_text(u, elo, sizeof elo),
                            (unsigned long long)(2 * u->pairs));
                else
                    fprintf(out, "  at %s (your limit): no point %llu\n", v->limit_text, (unsigned long long)l->point);
                morning_limit_warning(l, u, rs->tc, v->limit_text, warn, sizeof warn);
                if (warn[0])
                    fprintf(out, "  %s\n", warn);
            }
        }
        if (lost[0])
            fprintf(out, "  %s\n", lost);
    }
    if (pending[0])
        fprintf(out, "  %s\n", pending);
    char forfeits[1400];
    morning_forfeit_warning(m, forfeits, sizeof forfeits);
    if (forfeits[0])
        fprintf(out, "  %s\n", forfeits);
    /* what export writes by default: the final values, validated or not */
    if (npoints > 0 || n > 0) {
        if (validate_final_taken(v, total)) {
            if (!v->pending && n > 0 && l_is_final(pts, n, total))
                fprintf(out, "  the final values (export's default) are point %llu's snapshot\n",
                        (unsigned long long)pts[n - 1].point);
        } else if (spsa_done(&rs->spsa))
            fprintf(out, "  the final values (export's default) were NOT validated: `resume` plays their point\n");
        else
            fprintf(out, "  the final values (export's default) get their point at %llu games\n",
                    (unsigned long long)total);
    }
}

void morning_summary(FILE *out, const MorningRun *m)
{
    report_table(out, m->rs, &m->table);
    morning_moves(out, m);
    morning_validation(out, m);
}

void morning_status(FILE *out, const MorningRun *m)
{
    const SpsaState *st = &m->rs->spsa;
    fprintf(out, "run %s: ", m->dir);
    if (m->holder > 0)
        fprintf(out, "running (process %ld), %zu batch%s in flight, state saved %s\n", (long)m->holder,
                st->ninflight, st->ninflight == 1 ? "" : "es", m->rs->updated);
    else if (spsa_done(st))
        fprintf(out, "complete, saved %s\n", m->rs->updated);
    else
        fprintf(out, "stopped, saved %s; %zu batch%s to replay on resume\n", m->rs->updated, st->ninflight,
                st->ninflight == 1 ? "" : "es");
    morning_summary(out, m);
    if (m->has_verify)
        verdict_print_status(out, m->dir, m->verify ? &m->verify_record : NULL, m->verify_err, m->rs);
}
