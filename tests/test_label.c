/* bin/ratchet-label: labels from a UCI engine's wdl, turned to White's view,
 * the same file at any concurrency, and the engines that die, hang or
 * report no wdl.  The labelling engine is build/fake/fakeuci --wdl: W = 10
 * per man of the side to move, D = 50, L = 10 per man of the other side. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "helpers.h"

#define LABEL "bin/ratchet-label"
#define FAKE "build/fake/fakeuci"
#define GAMES "tests/data/texel/games.pgn"

static void setup(void)
{
    rules_init();
    tmp_create("/tmp/ratchet-label-XXXXXX");
    cr_assert(access(LABEL, X_OK) == 0, "%s is missing: run make first", LABEL);
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
}

TestSuite(label, .init = setup, .fini = tmp_remove, .timeout = 120);

/* Runs bin/ratchet-label on the fixture's games into tmp/out.epd with the
 * engine command and extra options; output in tmp/log; the exit code. */
static int label(const char *engine, const char *extra)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s -q -o %s/out.epd --engine '%s' %s > %s/log 2>&1", LABEL, GAMES, tmp, engine,
             extra, tmp);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* White's expected score under the fake's rule. */
static double fake_label(const char *fen)
{
    char buf[160], err[128];
    snprintf(buf, sizeof buf, "%s 0 1", fen);
    Position p;
    cr_assert_eq(pos_from_fen(&p, buf, err, sizeof err), 0, "%s: %s", fen, err);
    double us = 10.0 * bb_count(p.by_color[p.side]), them = 10.0 * bb_count(p.by_color[!p.side]);
    double s = (us + 25.0) / (us + 50.0 + them);
    return p.side == WHITE ? s : 1.0 - s;
}

/* Checks every line of tmp/out.epd against the fake's rule; the count. */
static int check_labels(void)
{
    char *text = slurp("out.epd");
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *br = strrchr(line, '[');
        cr_assert_not_null(br, "no label: %s", line);
        double got = strtod(br + 1, NULL);
        br[-1] = '\0';
        double want = fake_label(line);
        cr_expect(fabs(got - want) < 0.0006, "%s: label %.3f, want %.4f", line, got, want);
        n++;
    }
    free(text);
    return n;
}

Test(label, labels_are_the_engines_wdl_for_white_and_do_not_depend_on_concurrency)
{
    cr_assert_eq(label(FAKE " --wdl", "--every 1"), 0, "%s", slurp("log"));
    int n = check_labels();
    /* Both colours to move, so a missing turn to White's view would show. */
    char *one = slurp("out.epd");
    cr_expect(strstr(one, " w ") && strstr(one, " b "), "%s", one);
    cr_expect_gt(n, 30, "%d positions", n);
    cr_assert_eq(label(FAKE " --wdl", "--every 1 --concurrency 3"), 0, "%s", slurp("log"));
    char *three = slurp("out.epd");
    cr_expect_str_eq(one, three, "three engines wrote another file than one");
    free(one);
    free(three);
    /* One in four: fewer positions, the same labels. */
    cr_assert_eq(label(FAKE " --wdl", "--every 4 --seed 7"), 0, "%s", slurp("log"));
    int quarter = check_labels();
    cr_expect(quarter > 0 && quarter < n / 2, "every 4: %d of %d", quarter, n);
}

Test(label, an_engine_that_dies_or_hangs_is_named_restarted_and_its_position_left_out)
{
    cr_assert_eq(label(FAKE " --wdl", "--every 3"), 0, "%s", slurp("log"));
    int all = check_labels();

    /* Each process answers four positions, then dies at the fifth. */
    cr_assert_eq(label(FAKE " --wdl --crash-after 4", "--every 3"), 0, "%s", slurp("log"));
    char *log = slurp("log");
    cr_expect_not_null(strstr(log, "engine 'labeller-1' (" FAKE " --wdl --crash-after 4) killed by signal 9 (Killed) on "),
                       "%s", log);
    cr_expect_not_null(strstr(log, "position left out, engine restarted"), "%s", log);
    free(log);
    int kept = check_labels();
    cr_expect(kept >= all * 4 / 5 - 1 && kept < all, "%d of %d labelled", kept, all);

    cr_assert_eq(label(FAKE " --wdl --hang-after 4", "--every 3 --timeout 300"), 0, "%s", slurp("log"));
    log = slurp("log");
    cr_expect_not_null(strstr(log, "gave no bestmove within 300 ms on "), "%s", log);
    free(log);
    kept = check_labels();
    cr_expect(kept >= all * 4 / 5 - 1 && kept < all, "%d of %d labelled", kept, all);
}

Test(label, an_engine_without_wdl_stops_the_run_and_nothing_is_written)
{
    cr_expect_eq(label(FAKE, "--every 2"), 1);
    char *log = slurp("log");
    cr_expect_not_null(strstr(log, "has no UCI_ShowWDL option"), "%s", log);
    free(log);
    char path[256];
    snprintf(path, sizeof path, "%s/out.epd", tmp);
    cr_expect_neq(access(path, F_OK), 0, "an EPD was written");

    cr_expect_eq(label(FAKE " --wdl-option-only", "--every 2"), 1);
    log = slurp("log");
    cr_expect_not_null(strstr(log, "gave a bestmove without a wdl for "), "%s", log);
    cr_expect_not_null(strstr(log, "nothing written"), "%s", log);
    free(log);
    cr_expect_neq(access(path, F_OK), 0, "an EPD was written");

    /* Three failures in a row: an engine that dies at every position. */
    cr_expect_eq(label(FAKE " --wdl --crash-after 0", "--every 2"), 1);
    log = slurp("log");
    cr_expect_not_null(strstr(log, "failed on 3 positions in a row"), "%s", log);
    free(log);
}

/* One bad answer from a live engine (a degenerate or malformed wdl, or no
 * wdl after good ones) leaves that position out, named, and the run goes
 * on; the same answer three times in a row stops it, and what was labelled
 * before is written. */
Test(label, a_malformed_wdl_leaves_its_position_out_and_the_run_goes_on)
{
    cr_assert_eq(label(FAKE " --wdl", "--every 3"), 0, "%s", slurp("log"));
    int all = check_labels();
    cr_assert_gt(all, 12);
    static const char *const texts[] = {"0 0 0", "5 x 3", "1 2", "99999999999 0 1", "-1 500 501"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char engine[160], want[160];
        snprintf(engine, sizeof engine, FAKE " --wdl --bad-wdl-at 12 --bad-wdl-text \"%s\"", texts[i]);
        cr_assert_eq(label(engine, "--every 3"), 0, "wdl %s: %s", texts[i], slurp("log"));
        char *log = slurp("log");
        snprintf(want, sizeof want, "reported a malformed 'wdl %s", texts[i]);
        cr_expect_not_null(strstr(log, want), "wdl %s: %s", texts[i], log);
        cr_expect_not_null(strstr(log, "; position left out\n"), "%s", log);
        free(log);
        cr_expect_eq(check_labels(), all - 1, "wdl %s", texts[i]);
    }

    cr_assert_eq(label(FAKE " --wdl --no-wdl-at 12", "--every 3"), 0, "%s", slurp("log"));
    char *log = slurp("log");
    cr_expect_not_null(strstr(log, "gave a bestmove without a wdl on "), "%s", log);
    free(log);
    cr_expect_eq(check_labels(), all - 1);

    cr_expect_eq(label(FAKE " --wdl --bad-wdl-at 12 --bad-wdl-count 1000", "--every 3"), 1);
    log = slurp("log");
    cr_expect_not_null(strstr(log, "failed on 3 positions in a row"), "%s", log);
    cr_expect_not_null(strstr(log, "with the 11 positions labelled before it"), "%s", log);
    free(log);
    cr_expect_eq(check_labels(), 11);
}

/* A game longer than a Position's history is read to its end. */
Test(label, a_game_longer_than_the_history_is_read_whole)
{
    static char pgn[LONG_GAME_PLIES * 12 + 128];
    int n = snprintf(pgn, sizeof pgn, "[Event \"long\"]\n[Result \"*\"]\n\n");
    Position p;
    pos_startpos(&p);
    for (int i = 0; i < LONG_GAME_PLIES; i++) {
        char uci[8], san[16];
        long_game_move(i, uci);
        if (!pos_has_room(&p))
            pos_trim_history(&p);
        Move m = parse_uci(&p, uci);
        move_to_san(&p, m, san);
        if (i % 2 == 0)
            n += snprintf(pgn + n, sizeof pgn - (size_t)n, "%d. ", i / 2 + 1);
        n += snprintf(pgn + n, sizeof pgn - (size_t)n, "%s%s", san, i % 8 == 7 ? "\n" : " ");
        pos_make(&p, m);
    }
    snprintf(pgn + n, sizeof pgn - (size_t)n, " *\n");
    write_file("long.pgn", pgn);
    /* Every position is counted, none drawn (one in 10^6). */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s/long.pgn --every 1000000 --skip 0 -o %s/out.epd --engine '%s' > %s/log 2>&1",
             LABEL, tmp, tmp, FAKE " --wdl", tmp);
    int status = system(cmd);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", slurp("log"));
    char *log = slurp("log");
    cr_expect_null(strstr(log, "long.pgn"), "%s", log);
    char want[128];
    snprintf(want, sizeof want, "1 games (0 cut short), %d positions past the first 0 plies", LONG_GAME_PLIES);
    cr_expect_not_null(strstr(log, want), "%s", log);
    free(log);
}

Test(label, bad_arguments_and_files_are_refused_with_a_reason)
{
    cr_expect_eq(label(FAKE " --wdl", "--nodes 0"), 2);
    char *log = slurp("log");
    cr_expect_not_null(strstr(log, "--nodes wants an integer from 1"), "%s", log);
    free(log);
    cr_expect_eq(label(FAKE " --wdl", "--option NoEquals"), 2);
    log = slurp("log");
    cr_expect_not_null(strstr(log, "--option wants NAME=VALUE"), "%s", log);
    free(log);
    cr_expect_eq(label(FAKE " --wdl", "tests/data/no-such.pgn"), 1);
    log = slurp("log");
    cr_expect_not_null(strstr(log, "cannot open tests/data/no-such.pgn"), "%s", log);
    free(log);
    /* A game with an illegal move is cut there, named by file and line. */
    write_file("bad.pgn", "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. Ke3 1-0\n");
    char extra[300];
    snprintf(extra, sizeof extra, "--every 1 --skip 2 %s/bad.pgn", tmp);
    cr_expect_eq(label(FAKE " --wdl", extra), 0);
    log = slurp("log");
    cr_expect_not_null(strstr(log, "bad.pgn:4: game 1: illegal or unreadable move 'Ke3' at ply 9"), "%s", log);
    free(log);
}
