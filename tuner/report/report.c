/* The parameter table of a run; see report.h. */
#include "report.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "duration.h"

int report_drift(double recent, double prev, uint64_t prev_rows, double c_end)
{
    if (prev_rows < 10 || !(c_end > 0))
        return 0;
    double d = recent - prev;
    return d >= REPORT_DRIFT_CEND * c_end ? 1 : d <= -REPORT_DRIFT_CEND * c_end ? -1 : 0;
}

void report_param(const RunState *rs, const HistData *h, size_t p, ParamSummary *out)
{
    const SpsaState *st = &rs->spsa;
    const SpsaParam *q = &st->params[p];
    out->start = q->start;
    out->current = q->theta;
    out->lo = out->hi = q->start;
    bool moved = q->theta != q->start;
    bool rows = h && h->nrows > 0 && p < h->nparams;
    if (rows) {
        out->lo = fmin(out->lo, h->lo[p]);
        out->hi = fmax(out->hi, h->hi[p]);
        moved |= h->moved[p];
    }
    out->lo = fmin(out->lo, q->theta);
    out->hi = fmax(out->hi, q->theta);
    out->recent = rows && h->tail_rows ? h->tail_sum[p] / (double)h->tail_rows : q->theta;
    out->drifting = rows && h->prev_rows ? report_drift(out->recent, h->prev_sum[p] / (double)h->prev_rows,
                                                        h->prev_rows, q->c_end)
                                         : 0;
    uint64_t k = st->k < st->cfg.iterations ? st->k + 1 : st->cfg.iterations;
    out->c_k = spsa_probe_c_k(st, p, k ? k : 1); /* narrowed, as the next batch */
    out->never_moved = !moved;
    out->at_min = fabs(q->theta - q->min) < 1e-9;
    out->at_max = fabs(q->theta - q->max) < 1e-9;
}

/* Played at a wall clock: tc= or st= in the run's -engine or -each, and no nodestime= other than 0. */
static bool at_wall_clock(const RunState *rs)
{
    static const char *const secs[] = { "engine", "each" };
    bool clock = false, nodes = false;
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
        const char *tc = conf_get(&rs->conf, secs[i], "tc"), *nt = conf_get(&rs->conf, secs[i], "nodestime");
        clock = clock || (tc && strcmp(tc, "inf") && strcmp(tc, "infinite")) || conf_get(&rs->conf, secs[i], "st");
        nodes = nodes || (nt && strcmp(nt, "0"));
    }
    return clock && !nodes;
}

void report_table(FILE *out, const RunState *rs, const HistData *h)
{
    const SpsaState *st = &rs->spsa;
    uint64_t total = spsa_budget_games(&st->cfg);
    char el[32];
    duration_format_as(rs->elapsed, DURATION_FULL, el, sizeof el);
    fprintf(out, "engine %s, %s, %llu of %llu games (%llu of %llu iterations), %s of play in %llu session%s\n",
            rs->engine, rs->tc, (unsigned long long)rs->games, (unsigned long long)total,
            (unsigned long long)st->completed, (unsigned long long)st->cfg.iterations, el,
            (unsigned long long)rs->sessions, rs->sessions == 1 ? "" : "s");
    uint64_t g = st->wins + st->losses + st->draws;
    /* Engine 0 plays theta + c*flip with a random flip per batch, so this
     * score sits near 50% by construction: it is no measure of strength. */
    fprintf(out, "theta+c*flip vs theta-c*flip (random flip: ~50%% by construction): +%llu -%llu =%llu (%.1f%%), Ptnml(0-2) [%llu, %llu, %llu, %llu, %llu]",
            (unsigned long long)st->wins, (unsigned long long)st->losses, (unsigned long long)st->draws,
            g ? 100.0 * ((double)st->wins + 0.5 * (double)st->draws) / (double)g : 50.0,
            (unsigned long long)rs->ptnml[0], (unsigned long long)rs->ptnml[1], (unsigned long long)rs->ptnml[2],
            (unsigned long long)rs->ptnml[3], (unsigned long long)rs->ptnml[4]);
    fprintf(out, "; time losses %llu, crashes %llu, illegal moves %llu\n", (unsigned long long)rs->time_losses,
            (unsigned long long)rs->crashes, (unsigned long long)rs->illegal);
    if (at_wall_clock(rs) && time_losses_alarming(rs->time_losses, rs->games)) {
        char msg[256];
        time_losses_text(msg, sizeof msg, rs->time_losses, rs->games);
        fprintf(out, "warning: %s\n", msg);
    }
    if (st->cfg.form == SPSA_FORM_CLASSIC)
        fprintf(out, "form classic (fishtest/OpenBench gains from c_end, r_end)\n");
    else
        fprintf(out, "form %s: probe %g x c_k%s, step eta_k x c_end with eta %.4g%s, second moment of W-L %.3f\n",
                spsa_form_name(st->cfg.form), st->cfg.probe, st->cfg.narrow ? " (narrowed near a bound)" : "",
                spsa_eta(st),
                st->cfg.eta > 0 ? "" : " (from the budget)", st->v);
    if (st->cfg.average > 0)
        fprintf(out, "averaging over the last %.0f%% of the run: export writes the average (the moves table's final), "
                     "current is the last theta\n", 100 * st->cfg.average);

    int w = 9;
    for (size_t i = 0; i < st->nparams; i++)
        if ((int)strlen(st->params[i].name) > w)
            w = (int)strlen(st->params[i].name);
    fprintf(out, "\n%-*s %8s %9s %9s %9s %9s %8s  %-15s %s\n", w, "parameter", "start", "current", "last10%", "min",
            "max", "c_k", "range", "flag");
    for (size_t i = 0; i < st->nparams; i++) {
        const SpsaParam *q = &st->params[i];
        ParamSummary s;
        report_param(rs, h, i, &s);
        char range[40], flag[48] = "", start[24];
        snprintf(range, sizeof range, q->is_float ? "[%g, %g]" : "[%.0f, %.0f]", q->min, q->max);
        snprintf(start, sizeof start, q->is_float ? "%g" : "%.0f", s.start);
        if (s.never_moved)
            snprintf(flag, sizeof flag, "never moved");
        if (s.at_min || s.at_max)
            snprintf(flag + strlen(flag), sizeof flag - strlen(flag), "%sat %s", flag[0] ? ", " : "",
                     s.at_min ? "min" : "max");
        if (s.drifting)
            snprintf(flag + strlen(flag), sizeof flag - strlen(flag), "%sdrifting %s", flag[0] ? ", " : "",
                     s.drifting > 0 ? "up" : "down");
        /* A float parameter's steps can be far below 0.01: four significant digits. */
        fprintf(out,
                q->is_float ? "%-*s %8s %9.4g %9.4g %9.4g %9.4g %8.4g  %-15s %s\n"
                            : "%-*s %8s %9.2f %9.2f %9.2f %9.2f %8.2f  %-15s %s\n",
                w, q->name, start, s.current, s.recent, s.lo, s.hi, s.c_k, range, flag);
    }
    if (rs->nfixed > 0)
        fprintf(out, "(%zu more parameter%s of the spec not tuned: played and exported with the spec value)\n",
                rs->nfixed, rs->nfixed == 1 ? "" : "s");
}
