/* The HTML report: history.csv's one reader (columns by name, one rule for
 * numbers, the tail), history decimation (extremes kept, tails exact, the
 * same flags as `status`), charts from PLplot, pages of runs (also of older
 * builds' states and of histories with more columns) and of matches, the
 * live page of a run, `report` exit codes; and the pages of a real run of
 * bin/ratchet and of a match rendered by headless chromium: no console
 * errors, no reference outside the file, every chart there, a screenshot
 * that is not blank. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gsl/gsl_rng.h>
#include <malloc.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "histscan.h"
#include "htmlreport.h"
#include "morning.h"
#include "report_cmd.h"
#include "plot.h"
#include "report.h"
#include "hist.h"
#include "histrate.h"
#include "rd.h"
#include "state.h"

static char tmp[128];

static void setup(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/ratchet-html-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    if (tmp[0] && !getenv("RATCHET_KEEP_TMP"))
        nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(htmlreport, .init = setup, .fini = teardown, .timeout = 240);

static char *slurp_path(const char *path)
{
    char err[256];
    char *t = rd_read_file(path, NULL, err, sizeof err);
    cr_assert_not_null(t, "%s", err);
    return t;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* ---- a synthetic run: state.json and history.csv written through the run's own code ---- */

#define NP 3

/* The play time after each row of synthetic_run: 0.5 s a row unless set. */
static double (*elapsed_of)(uint64_t row);

static double half_second_rows(uint64_t r)
{
    return 0.5 * (double)r;
}

/* A run of `rows` batches of one pair: theta of P0 follows fn0(row), P1
 * climbs steadily, P2 never moves.  P1 is called "P 1": a name with a space,
 * which history.csv quotes.  Returns the state (saved in tmp). */
static void synthetic_run(RunState *rs, uint64_t rows, double (*fn0)(uint64_t))
{
    SpsaParam p[NP];
    memset(p, 0, sizeof p);
    for (int i = 0; i < NP; i++) {
        snprintf(p[i].name, sizeof p[i].name, i == 1 ? "P %d" : "P%d", i);
        p[i].theta = p[i].start = 100;
        p[i].min = 0;
        p[i].max = 1000;
        p[i].c_end = 4;
        p[i].r_end = 0.002;
    }
    runstate_init(rs);
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 2 * rows);
    char err[512];
    cr_assert_eq(spsa_init(&rs->spsa, p, NP, &cfg, 1, err, sizeof err), 0, "%s", err);
    snprintf(rs->engine, sizeof rs->engine, "Synthetic 1.0");
    snprintf(rs->tc, sizeof rs->tc, "1 nodes");
    History h;
    cr_assert_eq(hist_open(&h, tmp, &rs->spsa, 0, err, sizeof err), 0, "%s", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    for (uint64_t r = 1; r <= rows; r++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&rs->spsa, &b), 1);
        uint64_t w = r % 3 == 0, l = r % 3 == 1;
        cr_assert_eq(spsa_batch_apply_wld(&rs->spsa, &b, w, l, 2 - w - l), 0);
        rs->spsa.params[0].theta = fn0(r);
        rs->spsa.params[1].theta = 100 + 0.01 * (double)r;
        rs->spsa.params[2].theta = 100;
        rs->games += 2;
        rs->pairs_issued++;
        rs->ptnml[r % 5]++;
        HistRow row = { .row = r, .k = b.k, .games = rs->games, .wins = w, .losses = l, .draws = 2 - w - l,
                        .elapsed = (elapsed_of ? elapsed_of : half_second_rows)(r) };
        size_t n;
        char *t = hist_format_row(&row, &rs->spsa, &b, &n);
        fwrite(t, 1, n, m);
        free(t);
        spsa_batch_free(&b);
    }
    fclose(m);
    cr_assert_eq(hist_write(&h, buf, len, err, sizeof err), 0, "%s", err);
    free(buf);
    hist_close(&h);
    rs->elapsed = (elapsed_of ? elapsed_of : half_second_rows)(rows);
    rs->sessions = 1;
    cr_assert_eq(conf_set(&rs->conf, "engine", "cmd", "/opt/synthetic", "test"), 0);
    cr_assert_eq(conf_set(&rs->conf, "srand", "", "7", "test"), 0);
    cr_assert_eq(conf_set(&rs->conf, "each", "nodes", "1", "test"), 0);
    cr_assert_eq(runstate_save(rs, tmp, err, sizeof err), 0, "%s", err);
}

static double flat_with_spike(uint64_t r)
{
    return r == 5001 ? 999 : r == 7003 ? 3 : 100 + (double)(r % 7) * 0.1;
}

/* A run that played 4 s a pair for 4000 rows, then 1 s a pair, with a
 * validation point of 900 s between rows 4500 and 4501. */
static double slow_then_fast(uint64_t r)
{
    return r <= 4000 ? 4.0 * (double)r : 16000 + (double)(r - 4000) + (r > 4500 ? 900 : 0);
}

static double flat(uint64_t r)
{
    (void)r;
    return 100;
}

Test(htmlreport, the_recent_pace_is_of_the_last_hour_of_play_without_validation)
{
    RunState rs;
    elapsed_of = slow_then_fast;
    synthetic_run(&rs, 6000, flat);
    elapsed_of = NULL;
    double secs, rate = hist_rate_read(tmp, &rs.spsa, rs.spsa.completed, &secs);
    /* The last hour: rows 3825 to 6000 (the play time 15,300 to 18,900 s),
     * 175 steps of 4 s and 2000 of 1 s, the one over the validation point
     * left out: 2 x 2174 games in 700 + 1999 s.  All the play gives 12,000
     * games in 18,900 s; the hour with the validation point in it, 4350 in
     * 3600 s. */
    cr_assert_float_eq(rate, 4348.0 / 2699.0, 1e-9, "%.6f games/s", rate);
    cr_assert_float_eq(secs, 2699, 1e-9);
    runstate_free(&rs);

    synthetic_run(&rs, 1000, flat); /* 500 s of play: too little for a pace */
    rate = hist_rate_read(tmp, &rs.spsa, rs.spsa.completed, &secs);
    cr_assert(isnan(rate) && secs == 0, "%g over %g s", rate, secs);
    runstate_free(&rs);
}

Test(htmlreport, decimation_keeps_extremes_and_tails_match_status)
{
    RunState rs;
    synthetic_run(&rs, 10000, flat_with_spike);
    HistScan h;
    char err[512];
    cr_assert_eq(histscan_read(tmp, &rs.spsa, rs.spsa.completed, 600, 0, &h, err, sizeof err), 0, "%s", err);
    cr_assert_eq(h.rows, 10000u);
    cr_assert_leq(h.nb, 600u, "at most the buckets asked for");
    cr_assert_eq(h.per, 17u, "ceil(10000 / 600) rows per bucket");
    double top = -1, bottom = 1e9;
    for (size_t b = 0; b < h.nb; b++) {
        top = fmax(top, h.t_max[b * NP]);
        bottom = fmin(bottom, h.t_min[b * NP]);
    }
    cr_assert_eq(top, 999, "a one-row spike survives decimation");
    cr_assert_eq(bottom, 3, "a one-row dip survives decimation");
    cr_assert(h.have_ck && h.have_wl);
    cr_assert_eq(h.g_last[h.nb - 1], 20000, "the last bucket ends at the last row");

    /* the same numbers as `status`, which reads every row */
    HistData d;
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &d, err, sizeof err), 0, "%s", err);
    for (size_t p = 0; p < NP; p++) {
        ParamSummary s;
        report_param(&rs, &d, p, &s);
        cr_assert_eq(h.tail_rows, 1000u);
        cr_assert_float_eq(h.tail_sum[p] / (double)h.tail_rows, s.recent, 1e-9, "P%zu", p);
        int drift = report_drift(h.tail_sum[p] / (double)h.tail_rows, h.prev_sum[p] / (double)h.prev_rows,
                                 h.prev_rows, rs.spsa.params[p].c_end);
        cr_assert_eq(drift, s.drifting, "P%zu: the same drift flag as status", p);
    }
    ParamSummary s1, s2;
    report_param(&rs, &d, 1, &s1);
    report_param(&rs, &d, 2, &s2);
    cr_assert_eq(s1.drifting, 1, "P1 climbs 10 between the windows: 2.5 c_end");
    cr_assert_eq(s2.drifting, 0);
    cr_assert(s2.never_moved);
    hist_data_free(&d);
    histscan_free(&h);
    runstate_free(&rs);
}

static double climbing(uint64_t r)
{
    return 100 + 0.01 * (double)r;
}

Test(htmlreport, drift_flag)
{
    cr_assert_eq(report_drift(102, 100, 50, 4), 1, "half of c_end up");
    cr_assert_eq(report_drift(98, 100, 50, 4), -1);
    cr_assert_eq(report_drift(101.9, 100, 50, 4), 0, "less than half");
    cr_assert_eq(report_drift(110, 100, 9, 4), 0, "too few rows to tell");
    RunState rs;
    synthetic_run(&rs, 3000, climbing);
    HistData d;
    char err[512];
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &d, err, sizeof err), 0, "%s", err);
    ParamSummary s;
    report_param(&rs, &d, 0, &s);
    cr_assert_eq(s.drifting, 1, "0.01 per batch: 3 per 300 batches, 0.75 c_end");
    report_param(&rs, &d, 2, &s);
    cr_assert_eq(s.drifting, 0);
    cr_assert(s.never_moved);
    hist_data_free(&d);
    runstate_free(&rs);
}

Test(htmlreport, chart_is_inline_svg_with_its_own_ids)
{
    double x[4] = { 0, 1, 2, 3 }, y[4] = { 1, NAN, 2, 3 }, lo[4] = { 0, 0, 1, 2 }, hi[4] = { 2, 2, 3, 4 };
    PlotSeries s[3] = { { .kind = PLOT_BAND, .x = x, .y = lo, .y2 = hi, .n = 4, .rgb = 0x112233, .alpha = 0.2 },
                        { .kind = PLOT_LINE, .x = x, .y = y, .n = 4, .rgb = 0x445566 },
                        { .kind = PLOT_HLINE, .value = 1.5, .x0 = NAN, .x1 = NAN, .rgb = 0x778899 } };
    PlotChart c = { .title = "t#1", .xlabel = "games", .ylabel = "v", .width = 400, .height = 200, .xmin = 0,
                    .xmax = 3, .ymin = 0, .ymax = 4, .x_count = true, .s = s, .ns = 3 };
    char err[256];
    char *svg = plot_svg(&c, "zz9", err, sizeof err);
    cr_assert_not_null(svg, "%s", err);
    cr_assert(strncmp(svg, "<svg", 4) == 0, "no XML prologue: %.60s", svg);
    cr_assert_null(strstr(svg, "<?xml"));
    cr_assert_null(strstr(svg, "DOCTYPE"));
    cr_assert(strstr(svg, "class=\"chart\""));
    cr_assert(strstr(svg, "viewBox=\"0 0 400 200\""), "scales with the page");
    cr_assert_null(strstr(svg, "pt\""), "no fixed size in points");
    cr_assert_eq(count(svg, " id=\""), count(svg, " id=\"zz9-"), "every id prefixed");
    cr_assert_eq(count(svg, "url(#"), count(svg, "url(#zz9-"), "every reference prefixed");
    cr_assert(strstr(svg, "#112233"), "the band's colour");
    cr_assert(strstr(svg, "#445566"), "the line's colour");
    free(svg);
    char b[16];
    plot_count_label(1500000, b, sizeof b);
    cr_assert_str_eq(b, "1.5M");
    plot_count_label(20000, b, sizeof b);
    cr_assert_str_eq(b, "20k");
    plot_count_label(950, b, sizeof b);
    cr_assert_str_eq(b, "950");
}

static void write_text(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    char err[256];
    cr_assert_eq(rd_write_atomic(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

Test(htmlreport, run_page_has_a_chart_per_parameter_and_reads_old_states)
{
    RunState rs;
    synthetic_run(&rs, 300, climbing);
    runstate_free(&rs);
    char out[256], err[512];
    snprintf(out, sizeof out, "%s/r.html", tmp);
    cr_assert_eq(htmlreport_run(tmp, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    char *page = slurp_path(out);
    cr_assert_eq(count(page, "class=\"chart\""), NP + HTML_RUN_EXTRA_CHARTS, "charts: %zu",
                 count(page, "class=\"chart\""));
    cr_assert_null(strstr(page, "http-equiv=\"refresh\""), "a finished run's page does not reload");
    cr_assert(strstr(page, "id=\"p-0\"") && strstr(page, "id=\"p-2\"") && strstr(page, "href=\"#p-2\""));
    cr_assert(strstr(page, "<h3>P 1"), "the quoted name's card");
    cr_assert(strstr(page, "drifting up"), "P0 and P1 climb");
    cr_assert(strstr(page, "never moved"), "P2 stays");
    cr_assert(strstr(page, "Synthetic 1.0"), "the engine");
    cr_assert(strstr(page, "export "), "the export command");
    cr_assert(strstr(page, "make PARAMS="), "the bake command");
    cr_assert(strstr(page, "-each nodes=1 "), "the verify match at the run's own -each settings");
    cr_assert(strstr(page, "id=\"overview\"") < strstr(page, "id=\"p-0\""), "the overview before the cards");
    cr_assert(strstr(page, "href=\"#charts\""), "the cards have their place in the menu");
    cr_assert_null(strstr(page, "chart not drawn"));
    free(page);

    /* A live page reloads itself. */
    cr_assert_eq(htmlreport_run(tmp, out, HTML_RUN_LIVE, err, sizeof err), 0, "%s", err);
    page = slurp_path(out);
    cr_assert(strstr(page, "http-equiv=\"refresh\""));
    free(page);

    /* A state from an older build (no per-engine counters) and a history with a
     * column more (a newer build) both still give the page. */
    char path[256];
    snprintf(path, sizeof path, "%s/state.json", tmp);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "run"), "per_engine");
    cr_assert_eq(rd_write_json(path, j, err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
    snprintf(path, sizeof path, "%s/history.csv", tmp);
    char *hist = slurp_path(path);
    char *nl = strchr(hist, '\n');
    *nl = '\0';
    char *more = NULL;
    size_t ml = 0;
    FILE *m = open_memstream(&more, &ml);
    fprintf(m, "%s,extra\n", hist);
    for (char *line = nl + 1; *line;) {
        char *e = strchr(line, '\n');
        *e = '\0';
        fprintf(m, "%s,42\n", line);
        line = e + 1;
    }
    fclose(m);
    write_text("history.csv", more);
    free(more);
    free(hist);
    cr_assert_eq(htmlreport_run(tmp, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    page = slurp_path(out);
    cr_assert_eq(count(page, "class=\"chart\""), NP + HTML_RUN_EXTRA_CHARTS);
    cr_assert(strstr(page, "Per engine counted from game 600"), "the older state's counters are explained");
    free(page);

    /* history.csv gone: the page says so, the parameters are still listed. */
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(htmlreport_run(tmp, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    page = slurp_path(out);
    cr_assert(strstr(page, "history.csv could not be read"));
    cr_assert(strstr(page, "P 1"));
    free(page);
}

Test(htmlreport, report_command_exit_codes)
{
    char *argv_help[] = { "report", "--help", NULL };
    cr_assert_eq(report_main(2, argv_help), 0);
    char *argv_none[] = { "report", NULL };
    cr_assert_eq(report_main(1, argv_none), 2);
    char *argv_bad[] = { "report", tmp, "-x", NULL };
    cr_assert_eq(report_main(3, argv_bad), 2);
    char *argv_empty[] = { "report", tmp, NULL };
    cr_assert_eq(report_main(2, argv_empty), 1, "no state.json: not a run");
    RunState rs;
    synthetic_run(&rs, 50, climbing);
    runstate_free(&rs);
    cr_assert_eq(report_main(2, argv_empty), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/report.html", tmp);
    cr_assert_eq(access(path, F_OK), 0, "DIR/report.html by default");
    char out[256];
    snprintf(out, sizeof out, "%s/sub/dir/page.html", tmp);
    char *argv_o[] = { "report", tmp, "-o", out, NULL };
    cr_assert_eq(report_main(4, argv_o), 0);
    cr_assert_eq(access(out, F_OK), 0, "-o FILE, its directory created");
}

Test(htmlreport, match_series_stays_bounded)
{
    MatchSeries s = { 0 };
    MatchTally t = { 0 };
    SprtSpec sp = { .on = true, .elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05 };
    for (int i = 0; i < 100000; i++) {
        t.pairs++;
        t.games += 2;
        t.ptnml[i % 5]++;
        t.wins += i % 5 >= 3;
        t.losses += i % 5 <= 1;
        t.draws += 2 - (i % 5 >= 3) - (i % 5 <= 1);
        match_series_add(&s, &t, &sp);
    }
    cr_assert_leq(s.n, (size_t)MATCH_SERIES_MAX);
    cr_assert_geq(s.n, (size_t)MATCH_SERIES_MAX / 2);
    for (size_t i = 1; i < s.n; i++)
        cr_assert_gt(s.p[i].games, s.p[i - 1].games, "in order of games");
    cr_assert_eq(s.p[0].games, 2, "the first pair is kept");
    cr_assert_geq(s.p[s.n - 1].games, 200000 - 2.0 * (double)s.every, "the last point is recent");
    cr_assert(isfinite(s.p[s.n - 1].llr));
    match_series_free(&s);
}

/* ---- history.csv read back: one rule, streamed -------------------------------------- */

Test(htmlreport, history_numbers_read_exactly_as_strtod)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    static const char *const fmts[] = { "%.10g", "%.6g", "%.1f", "%.17g", "%.3e", "%.0f" };
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        double x = (gsl_rng_uniform(r) - 0.5) * pow(10, gsl_rng_uniform_int(r, 20) - 6.0);
        snprintf(buf, sizeof buf, fmts[i % 6], x);
        double want = strtod(buf, NULL), got = NAN;
        cr_assert(hist_num_field(buf, &got), "'%s' refused", buf);
        cr_assert(memcmp(&want, &got, sizeof got) == 0, "'%s': %.17g, strtod %.17g", buf, got, want);
    }
    gsl_rng_free(r);
    static const char *const bad[] = { "nan", "NaN", "inf", "-inf", "1e308", "1e15", "-2e15", "0x10", "", "-",
                                       "1e", ".", "1.5x", "infinity" };
    double v;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_not(hist_num_field(bad[i], &v), "'%s' accepted", bad[i]);
    static const char *const good[] = { "0", "-0", "99999999999999", "+3.5", ".5", "1e14", "1234567890123.4567890123" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        cr_assert(hist_num_field(good[i], &v), "'%s' refused", good[i]);
}

/* status (hist_read) and the report (histscan_read) take and refuse the same values. */
Test(htmlreport, status_and_report_share_one_rule)
{
    RunState rs;
    synthetic_run(&rs, 50, climbing);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/history.csv", tmp);
    char *orig = slurp_path(path);
    static const char *const vals[] = { "nan", "inf", "-inf", "1e308", "-1e16", "0x1p4", "1e14", "-7.25" };
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        /* the value of "P 1" (the second parameter) on line 8 */
        char *t = strdup(orig), *out = NULL;
        size_t ol = 0;
        FILE *m = open_memstream(&out, &ol);
        int line = 1;
        for (char *l = t, *e; *l; l = e + 1) {
            e = strchr(l, '\n');
            *e = '\0';
            if (line == 8) {
                char *f[64];
                int nf = csv_split(l, f, 64);
                cr_assert_gt(nf, 9);
                for (int c = 0; c < nf; c++)
                    fprintf(m, "%s%s", c ? "," : "", c == HIST_NFIXED + 1 ? vals[i] : f[c]);
                fputc('\n', m);
            } else {
                fprintf(m, "%s\n", l);
            }
            line++;
        }
        fclose(m);
        write_text("history.csv", out);
        free(out);
        free(t);
        bool ok = i >= 6;
        HistData d;
        int a = hist_read(tmp, &rs.spsa, rs.spsa.completed, &d, err, sizeof err);
        cr_assert_eq(a, ok ? 0 : -1, "status, '%s': %s", vals[i], a ? err : "accepted");
        if (!ok)
            cr_assert(strstr(err, "history.csv:8:"), "status names the line: %s", err);
        hist_data_free(&d);
        HistScan h;
        int b = histscan_read(tmp, &rs.spsa, rs.spsa.completed, 10, 0, &h, err, sizeof err);
        cr_assert_eq(b, ok ? 0 : -1, "report, '%s': %s", vals[i], b ? err : "accepted");
        if (!ok)
            cr_assert(strstr(err, "history.csv:8:") && strstr(err, "P 1"), "report names line and column: %s",
                      err);
        histscan_free(&h);
    }
    free(orig);
    runstate_free(&rs);
}

/* status keeps a few numbers per parameter, not the history: the memory
 * hist_read holds grows by one iteration number a row. */
Test(htmlreport, status_streams_the_history)
{
    enum { P = 30, ROWS = 20000 };
    SpsaParam p[P];
    memset(p, 0, sizeof p);
    for (int i = 0; i < P; i++) {
        snprintf(p[i].name, sizeof p[i].name, "Q%d", i);
        p[i].theta = p[i].start = 100;
        p[i].max = 1000;
        p[i].c_end = 4;
        p[i].r_end = 0.002;
    }
    SpsaState st;
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 2 * ROWS);
    char err[512];
    cr_assert_eq(spsa_init(&st, p, P, &cfg, 1, err, sizeof err), 0, "%s", err);
    History h;
    cr_assert_eq(hist_open(&h, tmp, &st, 0, err, sizeof err), 0, "%s", err);
    for (int r = 1; r <= ROWS; r++) {
        fprintf(h.f, "%d,%d,%d,1,0,1,%.1f", r, r, 2 * r, 0.5 * r);
        for (int i = 0; i < P; i++)
            fprintf(h.f, ",%.10g", 100 + (i == 3 ? 0.01 * r : i == 4 && r == 777 ? 500 : 0));
        for (int i = 0; i < 2 * P; i++)
            fputs(",4", h.f);
        fputc('\n', h.f);
    }
    hist_close(&h);
    struct mallinfo2 before = mallinfo2();
    HistData d;
    cr_assert_eq(hist_read(tmp, &st, ROWS, &d, err, sizeof err), 0, "%s", err);
    struct mallinfo2 after = mallinfo2();
    size_t b0 = before.uordblks + before.hblkhd, b1 = after.uordblks + after.hblkhd; /* heap and mmap'd */
    size_t held = b1 > b0 ? b1 - b0 : 0;
    cr_assert_lt(held, (size_t)ROWS * 8 + 65536, "hist_read holds %zu bytes for %d rows of %d parameters", held,
                 ROWS, P);
    cr_assert_eq(d.nrows, (size_t)ROWS);
    cr_assert_eq(d.k[ROWS - 1], (uint64_t)ROWS);
    cr_assert_float_eq(d.last[3], 100 + 0.01 * ROWS, 1e-9);
    cr_assert_eq(d.hi[4], 600, "a one-row spike is the largest value");
    cr_assert(d.moved[4] && !d.moved[5]);
    cr_assert_eq(d.tail_rows, (size_t)ROWS / 10);
    cr_assert_float_eq(d.tail_sum[3] / (double)d.tail_rows, 100 + 0.01 * (ROWS - (ROWS / 10 - 1) / 2.0), 1e-6);
    hist_data_free(&d);
    spsa_free(&st);
}

/* history.csv with the columns keep[0..n) of orig (by index, in that order)
 * and, when extra is set, one more column of that name holding "x". */
static void rewrite_columns(const char *orig, const int *keep, size_t n, const char *extra)
{
    char *t = strdup(orig), *out = NULL;
    size_t ol = 0;
    FILE *m = open_memstream(&out, &ol);
    bool head = true;
    for (char *l = t, *e; *l; l = e + 1, head = false) {
        e = strchr(l, '\n');
        *e = '\0';
        char *f[64];
        int nf = csv_split(l, f, 64);
        cr_assert_gt(nf, 0);
        for (size_t c = 0; c < n; c++) {
            cr_assert_lt(keep[c], nf);
            if (c)
                fputc(',', m);
            csv_put_field(m, f[keep[c]]);
        }
        if (extra)
            fprintf(m, ",%s", head ? extra : "x");
        fputc('\n', m);
    }
    fclose(m);
    write_text("history.csv", out);
    free(out);
    free(t);
}

/* One reader (hist_scan) finds the columns by name: status's numbers, the
 * report's buckets and which moves are real are the same from a file with
 * its columns in another order and one more column of text; a layout
 * without the c_k and R_k columns still reads; a missing theta column is
 * named. */
Test(htmlreport, history_columns_are_found_by_name)
{
    RunState rs;
    synthetic_run(&rs, 200, climbing);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/history.csv", tmp);
    char *orig = slurp_path(path);
    HistData a, b;
    HistScan ha, hb;
    MoveVerdict va[NP], vb[NP];
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(histscan_read(tmp, &rs.spsa, rs.spsa.completed, 20, 0, &ha, err, sizeof err), 0, "%s", err);
    cr_assert_eq(morning_verdicts(tmp, &rs, rs.spsa.completed, va, err, sizeof err), 0, "%s", err);

    int reversed[HIST_NFIXED + 3 * NP];
    for (int c = 0; c < HIST_NFIXED + 3 * NP; c++)
        reversed[c] = HIST_NFIXED + 3 * NP - 1 - c;
    rewrite_columns(orig, reversed, HIST_NFIXED + 3 * NP, "note");
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(histscan_read(tmp, &rs.spsa, rs.spsa.completed, 20, 0, &hb, err, sizeof err), 0, "%s", err);
    cr_assert_eq(morning_verdicts(tmp, &rs, rs.spsa.completed, vb, err, sizeof err), 0, "%s", err);
    cr_assert_eq(b.nrows, a.nrows);
    cr_assert_eq(memcmp(b.k, a.k, a.nrows * sizeof *a.k), 0);
    cr_assert(hb.have_ck && hb.have_wl);
    cr_assert_eq(hb.nb, ha.nb);
    for (size_t p = 0; p < NP; p++) {
        cr_assert(b.lo[p] == a.lo[p] && b.hi[p] == a.hi[p] && b.last[p] == a.last[p], "P%zu", p);
        cr_assert(b.tail_sum[p] == a.tail_sum[p] && b.prev_sum[p] == a.prev_sum[p], "P%zu", p);
        cr_assert(hb.tail_sum[p] == ha.tail_sum[p], "P%zu", p);
        cr_assert(vb[p].final == va[p].final && vb[p].z == va[p].z && vb[p].lo == va[p].lo, "P%zu", p);
        for (size_t k = 0; k < ha.nb; k++) {
            size_t j = k * NP + p;
            cr_assert(hb.t_min[j] == ha.t_min[j] && hb.t_max[j] == ha.t_max[j] && hb.band_hi[j] == ha.band_hi[j]);
        }
    }
    hist_data_free(&b);
    histscan_free(&hb);

    /* the fixed columns and theta only: no c_k and R_k columns */
    int fixed_theta[HIST_NFIXED + NP];
    for (int c = 0; c < HIST_NFIXED + NP; c++)
        fixed_theta[c] = c;
    rewrite_columns(orig, fixed_theta, HIST_NFIXED + NP, NULL);
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &b, err, sizeof err), 0, "%s", err);
    cr_assert(b.tail_sum[1] == a.tail_sum[1]);
    cr_assert_eq(histscan_read(tmp, &rs.spsa, rs.spsa.completed, 20, 0, &hb, err, sizeof err), 0, "%s", err);
    cr_assert(hb.have_theta && !hb.have_ck, "the band needs c_k");
    hist_data_free(&b);
    histscan_free(&hb);

    /* no column of "P 1": status and the verdicts name it, the charts of games still draw */
    int no_p1[HIST_NFIXED + 3 * NP - 1];
    for (int c = 0, i = 0; c < HIST_NFIXED + 3 * NP; c++)
        if (c != HIST_NFIXED + 1)
            no_p1[i++] = c;
    rewrite_columns(orig, no_p1, HIST_NFIXED + 3 * NP - 1, NULL);
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &b, err, sizeof err), -1);
    cr_assert(strstr(err, "history.csv") && strstr(err, "no column 'P 1'"), "%s", err);
    cr_assert_eq(morning_verdicts(tmp, &rs, rs.spsa.completed, vb, err, sizeof err), -1);
    cr_assert(strstr(err, "no column 'P 1'"), "%s", err);
    cr_assert_eq(histscan_read(tmp, &rs.spsa, rs.spsa.completed, 20, 0, &hb, err, sizeof err), 0, "%s", err);
    cr_assert(!hb.have_theta && hb.rows == 200);
    histscan_free(&hb);

    /* a short row is named with its line */
    char *cut = strdup(orig);
    char *third = strchr(strchr(strchr(cut, '\n') + 1, '\n') + 1, '\n') + 1; /* line 4 */
    memcpy(third, "3,3\n", 4);
    memmove(third + 4, strchr(third + 4, '\n') + 1, strlen(strchr(third + 4, '\n') + 1) + 1);
    write_text("history.csv", cut);
    cr_assert_eq(hist_read(tmp, &rs.spsa, rs.spsa.completed, &b, err, sizeof err), -1);
    cr_assert(strstr(err, "history.csv:4: unreadable row: 2 fields where the header has 16"), "%s", err);
    free(cut);

    hist_data_free(&a);
    histscan_free(&ha);
    free(orig);
    runstate_free(&rs);
}

Test(htmlreport, the_tail_is_the_last_tenth)
{
    HistTail t = hist_tail(0);
    cr_assert(t.rows == 0 && t.prev_rows == 0 && t.from == 0);
    t = hist_tail(5);
    cr_assert(t.rows == 1 && t.from == 4 && t.prev_rows == 1 && t.prev_from == 3, "ceil(5/10) = 1");
    t = hist_tail(1);
    cr_assert(t.rows == 1 && t.from == 0 && t.prev_rows == 0, "no row before the only one");
    t = hist_tail(1000);
    cr_assert(t.rows == 100 && t.from == 900 && t.prev_rows == 100 && t.prev_from == 800);
}

/* The page of a run of 30 parameters with a long, noisy history: every chart
 * at its full number of points, the page stays small. */
Test(htmlreport, a_page_of_30_parameters_stays_small)
{
    enum { P = 30, ROWS = 6000 }; /* 600 buckets of 10 rows: as many points as any longer run */
    SpsaParam p[P];
    memset(p, 0, sizeof p);
    for (int i = 0; i < P; i++) {
        snprintf(p[i].name, sizeof p[i].name, "Param%02d", i);
        p[i].theta = p[i].start = 100;
        p[i].max = 1000;
        p[i].c_end = 4;
        p[i].r_end = 0.002;
    }
    RunState rs;
    runstate_init(&rs);
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 2 * ROWS);
    char err[512];
    cr_assert_eq(spsa_init(&rs.spsa, p, P, &cfg, 1, err, sizeof err), 0, "%s", err);
    History h;
    cr_assert_eq(hist_open(&h, tmp, &rs.spsa, 0, err, sizeof err), 0, "%s", err);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    double theta[P];
    for (int i = 0; i < P; i++)
        theta[i] = 100;
    for (int row = 1; row <= ROWS; row++) {
        fprintf(h.f, "%d,%d,%d,1,0,1,%.1f", row, row, 2 * row, 0.5 * row);
        for (int i = 0; i < P; i++) {
            theta[i] += gsl_rng_uniform(r) - 0.5 + 0.002 * i;
            fprintf(h.f, ",%.10g", theta[i]);
        }
        for (int i = 0; i < 2 * P; i++)
            fputs(",4", h.f);
        fputc('\n', h.f);
    }
    hist_close(&h);
    gsl_rng_free(r);
    for (int i = 0; i < P; i++)
        rs.spsa.params[i].theta = theta[i];
    rs.spsa.completed = rs.spsa.k = ROWS;
    rs.games = 2 * ROWS;
    rs.pairs_issued = ROWS;
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    runstate_free(&rs);
    char out[256];
    snprintf(out, sizeof out, "%s/r.html", tmp);
    cr_assert_eq(htmlreport_run(tmp, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    char *page = slurp_path(out);
    cr_assert_eq(count(page, "class=\"chart\""), P + HTML_RUN_EXTRA_CHARTS);
    cr_assert_null(strstr(page, "no trajectory"));
    cr_assert(strstr(page, "6000 batches drawn as 300 groups of 20"), "the whole history is drawn");
    size_t len = strlen(page);
    cr_assert_lt(len, (size_t)2000000, "the page of 30 parameters is %zu bytes", len);
    free(page);
}

/* ---- every string a user controls is escaped -------------------------------------- */

/* Markup that must never reach a page as markup: a tag, an attribute quote, an entity. */
#define INJ "<x-inj a=\"1\">&amp;'"
#define INJ_RAW "<x-inj"

/* Replace every "from" in the file at path by "to". */
static void replace_in(const char *path, const char *from, const char *to)
{
    char *t = slurp_path(path);
    char *out = NULL;
    size_t ol = 0;
    FILE *m = open_memstream(&out, &ol);
    for (char *p = t, *q; *p; p = q + strlen(from)) {
        if (!(q = strstr(p, from))) {
            fputs(p, m);
            break;
        }
        fwrite(p, 1, (size_t)(q - p), m);
        fputs(to, m);
    }
    fclose(m);
    char err[256];
    cr_assert_eq(rd_write_atomic(path, out, ol, err, sizeof err), 0, "%s", err);
    free(out);
    free(t);
}

Test(htmlreport, no_user_string_reaches_a_page_as_markup)
{
    /* The run page: the run directory's name, the engine's `id name`, the time
     * control, a parameter's name, every setting (engine command, openings
     * file, option values, -each keys and values). */
    char base[sizeof tmp];
    snprintf(base, sizeof base, "%s", tmp);
    static const char sub[] = "/" INJ_RAW " q=\"1\">";
    cr_assert_lt(strlen(base) + sizeof sub, sizeof tmp);
    memcpy(tmp + strlen(base), sub, sizeof sub);
    cr_assert_eq(mkdir(tmp, 0700), 0, "%s", strerror(errno));
    RunState rs;
    synthetic_run(&rs, 100, climbing);
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/history.csv", tmp);
    replace_in(path, ",P0,", ",p" INJ_RAW ">,");
    replace_in(path, ",c_k.P0,", ",c_k.p" INJ_RAW ">,");
    replace_in(path, ",R_k.P0,", ",R_k.p" INJ_RAW ">,");
    snprintf(rs.spsa.params[0].name, sizeof rs.spsa.params[0].name, "p" INJ_RAW ">");
    snprintf(rs.engine, sizeof rs.engine, "eng " INJ "\x1b[31m");
    snprintf(rs.tc, sizeof rs.tc, "tc " INJ);
    cr_assert_eq(conf_set(&rs.conf, "engine", "cmd", "/opt/" INJ, "test"), 0);
    cr_assert_eq(conf_set(&rs.conf, "engine", "option.Hash", INJ, "test"), 0);
    cr_assert_eq(conf_set(&rs.conf, "openings", "file", "book" INJ ".epd", "test"), 0);
    cr_assert_eq(conf_set(&rs.conf, "openings", "order", INJ, "test"), 0);
    cr_assert_eq(conf_set(&rs.conf, "each", "x" INJ_RAW ">", INJ, "test"), 0);
    cr_assert_eq(conf_set(&rs.conf, "each", "option." INJ_RAW ">", INJ, "test"), 0);
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    runstate_free(&rs);
    char out[512];
    snprintf(out, sizeof out, "%s/r.html", tmp);
    cr_assert_eq(htmlreport_run(tmp, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    char *page = slurp_path(out);
    cr_assert_null(strstr(page, "no trajectory"), "the renamed parameter keeps its column");
    const char *raw = strstr(page, INJ_RAW);
    cr_assert_null(raw, "markup on the run page: %.120s", raw ? (raw > page + 60 ? raw - 60 : page) : "");
    /* each string is there, escaped: header, title, table, cards, legend, provenance, settings, commands */
    cr_assert_geq(count(page, "&lt;x-inj"), 15u, "%zu escaped", count(page, "&lt;x-inj"));
    cr_assert(strstr(page, "eng &lt;x-inj a=&quot;1&quot;&gt;&amp;amp;&#39;"), "the engine's name, escaped");
    cr_assert(strstr(page, " x&lt;x-inj&gt;=&lt;x-inj"), "an -each key and value in the verify command");
    cr_assert_null(strchr(page, '\x1b'), "no escape sequence on the page");
    cr_assert(strstr(page, "&#39;&#xfffd;[31m"), "a control character shows as U+FFFD");
    free(page);
    snprintf(tmp, sizeof tmp, "%s", base);

    /* The match page: the engines' names, an option value, the openings file. */
    MatchConfig cfg;
    match_config_init(&cfg);
    snprintf(cfg.eng[0].name, sizeof cfg.eng[0].name, "a" INJ);
    snprintf(cfg.eng[1].name, sizeof cfg.eng[1].name, "b" INJ);
    snprintf(cfg.eng[0].opts[0].name, sizeof cfg.eng[0].opts[0].name, "Hash");
    snprintf(cfg.eng[0].opts[0].value, sizeof cfg.eng[0].opts[0].value, INJ);
    cfg.eng[0].nopts = 1;
    snprintf(cfg.book_path, sizeof cfg.book_path, "/b/" INJ ".epd");
    snprintf(cfg.pgnout, sizeof cfg.pgnout, "/b/" INJ ".pgn");
    snprintf(cfg.event, sizeof cfg.event, INJ);
    snprintf(cfg.site, sizeof cfg.site, INJ);
    MatchTally t = { .games = 4, .pairs = 2, .wins = 2, .losses = 1, .draws = 1, .ptnml = { 0, 1, 0, 1, 0 } };
    SprtSpec sp = { .on = true, .elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05 };
    snprintf(out, sizeof out, "%s/m.html", tmp);
    cr_assert_eq(htmlreport_match(out, &cfg, &t, &sp, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    page = slurp_path(out);
    raw = strstr(page, INJ_RAW);
    cr_assert_null(raw, "markup on the match page: %.120s", raw ? (raw > page + 60 ? raw - 60 : page) : "");
    cr_assert(strstr(page, "game pairs from a&lt;x-inj"), "the pentanomial card names engine 0, escaped");
    cr_assert_geq(count(page, "&lt;x-inj"), 6u, "%zu escaped", count(page, "&lt;x-inj"));
    free(page);
    match_config_free(&cfg);
}

/* ---- in a real browser ------------------------------------------------------------ */

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 1000;
}

typedef struct {
    size_t width, height;
    size_t distinct;   /* distinct colours among sampled pixels (capped) */
    double nonwhite;   /* share of pixels neither white nor the colour of the top-left one */
} PngStats;

static void png_stats(const char *path, PngStats *st)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&img, path), "%s: %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    size_t n = PNG_IMAGE_SIZE(img);
    unsigned char *px = malloc(n);
    cr_assert(png_image_finish_read(&img, NULL, px, 0, NULL), "%s: %s", path, img.message);
    st->width = img.width;
    st->height = img.height;
    uint32_t seen[256];
    size_t ns = 0, other = 0, total = (size_t)img.width * img.height;
    uint32_t bg = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
    for (size_t i = 0; i < total; i++) {
        uint32_t c = (uint32_t)px[3 * i] << 16 | (uint32_t)px[3 * i + 1] << 8 | px[3 * i + 2];
        other += c != bg && c != 0xffffff;
        bool found = false;
        for (size_t k = 0; k < ns && !found; k++)
            found = seen[k] == c;
        if (!found && ns < 256)
            seen[ns++] = c;
    }
    st->distinct = ns;
    st->nonwhite = (double)other / (double)total;
    free(px);
}

/* Render page in headless chromium: the DOM as parsed, the console, a screenshot. */
static void render(const char *page, const char *tag, char **dom, char **console, PngStats *shot)
{
    cr_assert_eq(sh("command -v chromium >/dev/null 2>&1"), 0,
                 "chromium is not installed: `make test` installs it (tools/deps.sh), or apt-get install chromium");
    static const char *const flags =
        "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
        "--disable-component-update --disable-sync --host-resolver-rules='MAP * ~NOTFOUND' "
        "--enable-logging=stderr --v=0";
    char cmd[2048], what[512];
    /* the DOM as parsed (and the console on stderr), then a screenshot, each with a fresh profile */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            snprintf(what, sizeof what, "--dump-dom --virtual-time-budget=2000 file://%s > %s.dom 2> %s.console",
                     page, tag, tag);
        else
            snprintf(what, sizeof what, "--hide-scrollbars --window-size=1280,1600 --screenshot=%s/%s.png file://%s "
                     "> /dev/null 2> %s.shot.log", tmp, tag, page, tag);
        snprintf(cmd, sizeof cmd, "cd %s && rm -rf prof-%s && timeout 90 chromium %s --user-data-dir=%s/prof-%s %s",
                 tmp, tag, flags, tmp, tag, what);
        cr_assert_eq(sh(cmd), 0, "chromium failed: %s (see %s)", cmd, tmp);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/%s.dom", tmp, tag);
    *dom = slurp_path(path);
    snprintf(path, sizeof path, "%s/%s.console", tmp, tag);
    *console = slurp_path(path);
    snprintf(path, sizeof path, "%s/%s.png", tmp, tag);
    png_stats(path, shot);
    /* the screenshot also goes next to the build, for a person to look at */
    snprintf(cmd, sizeof cmd, "mkdir -p build/report-shots && cp %s/%s.png build/report-shots/%s.png", tmp, tag, tag);
    sh(cmd);
}

/* What a page in the browser must show. */
static void check_rendered(const char *tag, const char *dom, const char *console, const PngStats *shot,
                           size_t charts)
{
    cr_assert_null(strstr(console, "CONSOLE"), "%s: the page wrote to the console:\n%s", tag, console);
    cr_assert(strstr(dom, "</html>"), "%s: no DOM", tag);
    cr_assert_eq(count(dom, "class=\"chart\""), charts, "%s: %zu charts in the DOM, %zu expected", tag,
                 count(dom, "class=\"chart\""), charts);
    /* nothing from outside the file: no src or href but in-page anchors */
    for (const char *p = dom; (p = strstr(p, "src=")); p++)
        cr_assert_fail("%s: the page loads something: %.80s", tag, p);
    for (const char *p = dom; (p = strstr(p, "href=\"")); p++)
        cr_assert(p[6] == '#', "%s: a link out of the page: %.80s", tag, p);
    cr_assert_null(strstr(dom, "@import"));
    cr_assert_null(strstr(dom, "url(http"));
    cr_assert_eq(shot->width, 1280u);
    cr_assert_gt(shot->distinct, 20u, "%s: the screenshot has %zu colours: blank", tag, shot->distinct);
    cr_assert_gt(shot->nonwhite, 0.05, "%s: the screenshot is %.1f%% background: blank", tag,
                 100 * (1 - shot->nonwhite));
}

Test(htmlreport, a_real_run_and_match_in_chromium, .timeout = 600)
{
    cr_assert(access("bin/ratchet", X_OK) == 0 && access("bin/ratchet-tune", X_OK) == 0,
              "bin/ratchet and bin/ratchet-tune are needed: run make first");
    char cmd[2048];
    /* A short real run: 4 parameters of bin/ratchet, 60 games at 1000 nodes. */
    snprintf(cmd, sizeof cmd,
             "bin/ratchet-tune run -engine cmd=bin/ratchet -params file=params/engine.json "
             "only=LmrQuietBase,LmpBase,FhrMargin,RfpMargin -each nodes=1000 "
             "-openings file=openings/default.epd order=random -spsa games=60 -concurrency 2 -srand 3 "
             "-out %s/run > %s/run.log 2>&1",
             tmp, tmp);
    cr_assert_eq(sh(cmd), 0, "the run failed: see %s/run.log", tmp);
    char page[256];
    snprintf(page, sizeof page, "%s/run/report.html", tmp);
    cr_assert_eq(access(page, F_OK), 0, "the run wrote its report.html");
    char *text = slurp_path(page);
    cr_assert_null(strstr(text, "http-equiv=\"refresh\""), "the finished run's page stops reloading");
    cr_assert(strstr(text, "<b>complete</b>"));
    free(text);

    snprintf(cmd, sizeof cmd,
             "bin/ratchet-tune match -engine cmd=bin/ratchet name=a -engine cmd=bin/ratchet name=b "
             "option.LmpBase=150 -each nodes=1000 -openings file=openings/default.epd order=random "
             "-repeat -rounds 12 -concurrency 2 -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 "
             "-report %s/match.html > %s/match.log 2>&1",
             tmp, tmp);
    cr_assert_eq(sh(cmd), 0, "the match failed: see %s/match.log", tmp);
    char mpage[256];
    snprintf(mpage, sizeof mpage, "%s/match.html", tmp);
    cr_assert_eq(access(mpage, F_OK), 0, "-report wrote the page");

    if (getenv("RATCHET_SANITIZED")) /* the pages were written under ASan; the browser is the other build's job */
        return;
    char *dom, *console;
    PngStats shot;
    render(page, "run", &dom, &console, &shot);
    check_rendered("run", dom, console, &shot, 4 + HTML_RUN_EXTRA_CHARTS + 1 /* validation (validate.h) */);
    free(dom);
    free(console);
    render(mpage, "match", &dom, &console, &shot);
    check_rendered("match", dom, console, &shot, 3);
    free(dom);
    free(console);
}

/* ---- the live page of a run ---------------------------------------------------------- */

static pid_t start_tuner(char *const argv[], const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

Test(htmlreport, a_run_keeps_its_page_live_then_final)
{
    cr_assert(access("build/fake/fakespsa", X_OK) == 0 && access("bin/ratchet-tune", X_OK) == 0,
              "bin/ratchet-tune and build/fake/fakespsa are needed");
    char spec[256], book[256], out[256], log[256], page[256];
    snprintf(spec, sizeof spec, "file=%s/spec.txt", tmp);
    snprintf(book, sizeof book, "file=%s/book.epd", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    snprintf(log, sizeof log, "%s/run.log", tmp);
    snprintf(page, sizeof page, "%s/r/report.html", tmp);
    write_text("spec.txt", "Alpha, int, 50, 0, 100, 5, 0.002\nBeta, int, 50, 0, 100, 5, 0.002\n");
    write_text("book.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n");
    char *argv[] = { "bin/ratchet-tune", "run", "-engine", "cmd=build/fake/fakespsa", "args=--think 20", "-params",
                     spec, "-each", "nodes=1", "-openings", book, "-maxmoves", "30", "-spsa", "games=400",
                     "-concurrency", "2", "-srand", "5", "-out", out, NULL };
    pid_t pid = start_tuner(argv, log);
    char *text = NULL;
    for (int i = 0; i < 200 && !text; i++) {
        usleep(50000);
        if (access(page, F_OK) == 0)
            text = slurp_path(page);
    }
    cr_assert_not_null(text, "no report.html within 10 s of the start");
    cr_assert(strstr(text, "http-equiv=\"refresh\""), "the page of a run in play reloads itself");
    cr_assert(strstr(text, "<b>running</b>"));
    free(text);
    kill(pid, SIGTERM);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "stopped by SIGTERM: status %d", st);
    text = slurp_path(page);
    cr_assert_null(strstr(text, "http-equiv=\"refresh\""), "the page of a stopped run stays");
    cr_assert(strstr(text, "<b>stopped</b>"), "the final page says the run stopped");
    free(text);
}
