/* Estimates without a finite interval (every pair in one category, a score
 * of 0% or 100%, an interval that reaches one of them) as the match's
 * report, its page and verify's status show them: "n/a" with the counts
 * and the reason (elotext.h), never "inf". */
#include <criterion/criterion.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "elotext.h"
#include "helpers.h"
#include "htmlreport.h"
#include "matchreport.h"
#include "rd.h"
#include "sprt.h"
#include "stats.h"
#include "validate.h"
#include "verdict.h"
#include "verify_record.h"

static void setup(void)
{
    tmp_create("/tmp/ratchet-elotext-XXXXXX");
}

TestSuite(elotext, .init = setup, .fini = tmp_remove, .timeout = 30);

static MatchTally tally(uint64_t ll, uint64_t ld, uint64_t dd, uint64_t wd, uint64_t ww)
{
    MatchTally t = { .ptnml = { ll, ld, dd, wd, ww } };
    t.pairs = ll + ld + dd + wd + ww;
    t.games = 2 * t.pairs;
    t.wins = 2 * ww + wd;
    t.losses = 2 * ll + ld;
    t.draws = ld + 2 * dd + wd; /* DD+WL counted as two draws */
    return t;
}

/* The text report of t; its match page must show no infinity, and its
 * headline reads n/a when na. */
static char *report_of(const MatchTally *t, bool na)
{
    MatchConfig cfg;
    match_config_init(&cfg);
    snprintf(cfg.eng[0].name, sizeof cfg.eng[0].name, "new");
    snprintf(cfg.eng[1].name, sizeof cfg.eng[1].name, "base");
    SprtSpec sp = { .on = true, .elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05 };
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cr_assert_not_null(m);
    match_report(m, &cfg, t, &sp, NULL);
    fclose(m);
    char out[300], err[512];
    snprintf(out, sizeof out, "%s/m.html", tmp);
    cr_assert_eq(htmlreport_match(out, &cfg, t, &sp, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    /* the page before its copy of the text report (whose PairsRatio is
     * fastchess's "inf" when no pair was lost) */
    char *page = slurp("m.html");
    char *rep = strstr(page, "<h2>Report</h2>");
    cr_assert_not_null(rep);
    *rep = '\0';
    const char *inf = an_infinity(page);
    cr_assert_null(inf, "the match page shows an infinity: %.160s", inf && inf - page > 80 ? inf - 80 : page);
    cr_assert(!na || strstr(page, "<span class=\"big\">Elo n/a ("), "%s", page);
    free(page);
    return text;
}

/* The report's "Elo: ..." line, cut at its end (in place). */
static const char *elo_line(char *r)
{
    char *l = strstr(r, "\nElo: ");
    cr_assert_not_null(l, "%s", r);
    char *e = strchr(l + 1, '\n');
    if (e)
        *e = '\0';
    return l + 1;
}

/* Six pairs all won twice: the Elo is infinite and there is no interval
 * (before: "Elo: inf +/- 0.00, nElo: inf +/- 0.00"). */
Test(elotext, a_match_that_won_every_pair)
{
    MatchTally t = tally(0, 0, 0, 0, 6);
    char *r = report_of(&t, true);
    cr_assert(strstr(r, "Elo: n/a (all 6 pairs WW, score 100.0%: too few games for an interval), nElo: n/a\n"), "%s",
              r);
    cr_assert_null(an_infinity(elo_line(r)), "%s", r);
    free(r);
}

/* Three pairs in two categories: a finite Elo whose interval reaches a
 * score of 100% (before: "+/- inf"). */
Test(elotext, a_match_whose_interval_reaches_a_full_score)
{
    MatchTally t = tally(0, 0, 0, 1, 2);
    EloEstimate e;
    stats_from_ptnml(t.ptnml, &e);
    cr_assert(isfinite(e.elo) && !isfinite(e.elo_err), "the case: %g +/- %g", e.elo, e.elo_err);
    char *r = report_of(&t, true);
    cr_assert(strstr(r, "Elo: n/a (3 pairs, score 91.7%: too few games for a finite interval), nElo: "), "%s", r);
    cr_assert_null(an_infinity(elo_line(r)), "%s", r);
    free(r);
}

/* Every pair drawn: Elo 0 +/- 0 as fastchess prints it; the nElo that has
 * no finite value reads n/a. */
Test(elotext, a_match_of_draws_only)
{
    MatchTally t = tally(0, 0, 4, 0, 0);
    char *r = report_of(&t, false);
    cr_assert(strstr(r, "Elo: 0.00 +/- 0.00, nElo: "), "%s", r);
    cr_assert_null(an_infinity(elo_line(r)), "%s", r);
    free(r);
}

/* One pair, LD: a finite Elo with a zero half-width, the sample of no
 * variance that match's progress line showed as "-190.8 +/- 0.0". */
Test(elotext, one_pair_in_one_category_has_no_interval)
{
    MatchTally t = tally(0, 1, 0, 0, 0);
    EloEstimate e;
    stats_from_ptnml(t.ptnml, &e);
    cr_assert(isfinite(e.elo) && e.elo < 0 && e.elo_err == 0, "the case: %g +/- %g", e.elo, e.elo_err);
    char *r = report_of(&t, true);
    cr_assert(strstr(r, "Elo: n/a (1 pair, LD, score 25.0%: too few games for an interval)"), "%s", r);
    cr_assert_null(strstr(r, "+/- 0.0"), "%s", r);
    free(r);
    char buf[200];
    cr_assert_not(elo_has_interval(-190.8, 0));
    cr_assert(elo_has_interval(0, 0));
    cr_assert(elo_has_interval(-190.8, 1e-9));
    cr_assert_str_eq(elo_text(buf, sizeof buf, -190.8, 0, 1, true, t.ptnml, 0, 0, 0),
                     "n/a (1 pair, LD, score 25.0%: too few games for an interval)");
}

/* Games that were never paired: the counts are games. */
Test(elotext, unpaired_games_are_counted_as_games)
{
    char buf[200];
    cr_assert_str_eq(elo_na_text(buf, sizeof buf, NULL, 3, 0, 0),
                     "n/a (all 3 games won, score 100.0%: too few games for an interval)");
    cr_assert_str_eq(elo_na_text(buf, sizeof buf, NULL, 0, 1, 0),
                     "n/a (1 game, lost, score 0.0%: too few games for an interval)");
    cr_assert_str_eq(elo_na_text(buf, sizeof buf, NULL, 2, 1, 1),
                     "n/a (4 games, score 62.5%: too few games for a finite interval)");
    cr_assert_str_eq(elo_na_text(buf, sizeof buf, NULL, 0, 0, 0), "n/a (no games yet)");
    cr_assert_str_eq(elo_text(buf, sizeof buf, 12.345, 6.789, 1, true, NULL, 0, 0, 0), "+12.3 +/- 6.8");
    cr_assert_str_eq(elo_text(buf, sizeof buf, -2.5, 1, 2, false, NULL, 0, 0, 0), "-2.50 +/- 1.00");
}

/* verify's status of a verification that won every pair. */
Test(elotext, verify_status_of_a_lopsided_verification)
{
    write_file("verify.json", "{\"verdict\": \"H1\", \"status\": \"done\", \"games\": 10, \"run_games\": 100,"
                              " \"ptnml\": [0, 0, 0, 0, 5], \"tc\": \"nodes=1\"}");
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, VERIFY_FILE);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cr_assert_not_null(m);
    VerifyRecord r;
    verify_record_from_json(&r, j, false, NULL, NULL, 0);
    verdict_print_status(m, tmp, &r, err, NULL);
    fclose(m);
    verify_record_free(&r);
    cJSON_Delete(j);
    cr_assert(strstr(text, "10 games, Elo n/a (all 5 pairs WW, score 100.0%: too few games for an interval), "
                           "nElo n/a, LOS"),
              "%s", text);
    cr_assert_null(an_infinity(text), "%s", text);
    free(text);
}

/* An estimate that rounds to zero reads "+0.0", never "-0.0": the sign
 * would claim a direction the figure does not have. */
Test(elotext, an_estimate_that_rounds_to_zero_has_no_minus_sign)
{
    char buf[128];
    ValidationPoint p = { .elo = -0.04, .elo_err = 10.2 };
    cr_expect_str_eq(validate_elo_text(&p, buf, sizeof buf), "+0.0 +/- 10.2 Elo");
    p.elo = -0.06;
    cr_expect_str_eq(validate_elo_text(&p, buf, sizeof buf), "-0.1 +/- 10.2 Elo", "a value that rounds away keeps it");
    cr_expect_str_eq(elo_text(buf, sizeof buf, -0.004, 5.0, 2, true, NULL, 0, 0, 0), "+0.00 +/- 5.00");
    cr_expect_str_eq(elo_text(buf, sizeof buf, -0.006, 5.0, 2, true, NULL, 0, 0, 0), "-0.01 +/- 5.00");
    snprintf(buf, sizeof buf, "%+.1f", elo_no_minus_zero(-0.0, 1));
    cr_expect_str_eq(buf, "+0.0", "negative zero itself");
    cr_expect(isnan(elo_no_minus_zero(NAN, 1)), "NaN stays NaN");
}
