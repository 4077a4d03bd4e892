/* A clock that counts nodes (-each nodestime=N): each move is charged the
 * nodes the engine reported divided by N, so a side that reports more nodes
 * than its clock holds loses on time however fast it answered, and one that
 * takes long on the wall clock but reports few nodes does not; the engine is
 * sent the clock's remaining ms; games between two bin/ratchet engines on
 * such a clock are the same game every time.  The runner refuses an engine
 * without the nodestime option and charges a move without a nodes report its
 * wall time.  Uses build/fake/fakeuci and bin/ratchet. */
#include <stdatomic.h>
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "game.h"
#include "helpers.h"
#include "match.h"

#define FAKE "build/fake/fakeuci"
#define ENGINE "bin/ratchet"

static EngineProc eng[2];
static char **argvs[2];
static GameScratch scratch;
static GameRecord *rec;
static TimeControl tcs[2];
static Adjudication adj;
static char optlog[64];

static void setup(void)
{
    rules_init();
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    cr_assert_eq(game_scratch_init(&scratch), 0);
    rec = malloc(sizeof *rec);
    memset(tcs, 0, sizeof tcs);
    memset(&adj, 0, sizeof adj);
    for (int c = 0; c < 2; c++)
        tcs[c].watchdog_ms = 60000;
    snprintf(optlog, sizeof optlog, "/tmp/ratchet-nodestime-XXXXXX");
    close(mkstemp(optlog));
}

static void teardown(void)
{
    for (int c = 0; c < 2; c++) {
        ep_destroy(&eng[c]);
        ep_free_argv(argvs[c]);
        argvs[c] = NULL;
    }
    game_scratch_free(&scratch);
    free(rec);
    unlink(optlog);
}

TestSuite(nodestime, .init = setup, .fini = teardown, .timeout = 60);

static void start(int c, const char *cmd, const char *args, const EngineOption *opts, int nopts)
{
    char err[256];
    argvs[c] = ep_split_args(args, err, sizeof err);
    EngineLaunch l = { .name = c == WHITE ? "white" : "black", .cmd = cmd, .argv = argvs[c], .opts = opts,
                       .nopts = nopts, .startup_ms = 5000 };
    ep_init(&eng[c], &l);
    cr_assert_eq(ep_start(&eng[c], err, sizeof err), 0, "%s", err);
}

static void play_game(void)
{
    GameSetup s = { .eng = { &eng[WHITE], &eng[BLACK] }, .tc = { &tcs[WHITE], &tcs[BLACK] }, .adj = &adj };
    game_play(&s, &scratch, rec);
}

/* 1 s at 100 nodes per ms is 100,000 nodes.  White reports 30,000 nodes a
 * move and answers at once: its fourth move overspends.  Black reports 100
 * nodes and takes 400 ms of wall time a move: on the wall clock it would
 * flag at its third move, on the node clock never. */
Test(nodestime, a_side_that_reports_more_nodes_than_its_clock_holds_loses_on_time)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].base_ms = 1000;
        tcs[c].nodestime = 100;
    }
    char args[128];
    snprintf(args, sizeof args, "--first --nodes 30000 --option-log %s", optlog);
    start(WHITE, FAKE, args, NULL, 0);
    start(BLACK, FAKE, "--first --nodes 100 --think 400", NULL, 0);
    play_game();
    cr_assert_eq(rec->term, TERM_TIME, "term %d after %d plies", (int)rec->term, rec->nply);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert_eq(rec->result, RESULT_BLACK);
    cr_assert_eq(rec->nply, 6, "White flags at its fourth move, not earlier or later: %d plies", rec->nply);
    cr_assert_eq(rec->ms[0], 300, "a move is charged nodes / nodestime ms: %d", (int)rec->ms[0]);
    cr_assert_eq(rec->ms[1], 1, "%d", (int)rec->ms[1]);
    cr_assert_eq(rec->unmetered[WHITE] + rec->unmetered[BLACK], 0);

    /* The engine is sent its clock's remaining ms: 1000, 700, 400, 100. */
    FILE *f = fopen(optlog, "r");
    cr_assert_not_null(f);
    char line[256];
    long want[] = { 1000, 700, 400, 100 };
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        long wt = -1;
        if (sscanf(line, "go wtime %ld", &wt) != 1)
            continue;
        cr_assert(n < 4, "more go commands than moves: %s", line);
        cr_expect_eq(wt, want[n], "go %d: wtime %ld, expected %ld", n, wt, want[n]);
        n++;
    }
    fclose(f);
    cr_assert_eq(n, 4);
}

/* Under a node clock a move is waited for as long as the clock could take
 * on the wall (4 x its ms), not only the watchdog: Black's 300 ms moves of
 * 100 nodes are legal on a 5 s clock whatever a 200 ms watchdog says, and
 * White, reporting 100,000 nodes a move of its 500,000, flags at its sixth.
 * Before, Black's first move was a stall. */
Test(nodestime, a_long_node_clock_is_waited_for_past_the_watchdog)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].base_ms = 5000;
        tcs[c].nodestime = 100;
        tcs[c].watchdog_ms = 200;
    }
    start(WHITE, FAKE, "--first --nodes 100000", NULL, 0);
    start(BLACK, FAKE, "--first --nodes 100 --think 300", NULL, 0);
    play_game();
    cr_assert_eq(rec->term, TERM_TIME, "term %d after %d plies", (int)rec->term, rec->nply);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert_eq(rec->nply, 10, "White flags at its sixth move: %d plies", rec->nply);
}

/* The same with st=: a move may cost movetime x nodestime nodes. */
Test(nodestime, a_move_over_its_movetime_in_nodes_loses_on_time)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].movetime_ms = 50;
        tcs[c].nodestime = 100;
    }
    start(WHITE, FAKE, "--first --nodes 5000 --think 200", NULL, 0);
    start(BLACK, FAKE, "--first --nodes 5001", NULL, 0);
    play_game();
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->culprit, BLACK, "5000 nodes is the whole 50 ms, 5001 one too many");
    cr_assert_eq(rec->nply, 1);
}

/* A move without a nodes report is charged its wall time, and counted. */
Test(nodestime, a_move_without_nodes_is_charged_its_wall_time)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].base_ms = 1100;
        tcs[c].nodestime = 100;
    }
    start(WHITE, FAKE, "--first --nodes 10", NULL, 0);
    start(BLACK, FAKE, "--first --think 300", NULL, 0);
    play_game();
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->culprit, BLACK);
    /* Its fourth move passes 1100 ms of wall time (its third, on a machine
     * busy enough to add 200 ms). */
    cr_assert(rec->nply == 7 || rec->nply == 5, "%d plies", rec->nply);
    cr_assert_eq(rec->unmetered[BLACK], (rec->nply + 1) / 2, "every move of Black's, the last one too");
    cr_assert_eq(rec->unmetered[WHITE], 0);
    cr_assert_geq(rec->ms[1], 300);
}

/* Two games of bin/ratchet against itself at 1+0.01 with 100 nodes per ms
 * (100,000 nodes and 1,000 a move): the same moves, depths and scores. */
Test(nodestime, the_same_game_twice_is_the_same_game)
{
    cr_assert(access(ENGINE, X_OK) == 0, "%s is missing: run `make` first", ENGINE);
    static const EngineOption opts[] = { { "nodestime", "100" }, { "Hash", "4" } };
    for (int c = 0; c < 2; c++) {
        tcs[c].base_ms = 1000;
        tcs[c].inc_ms = 10;
        tcs[c].nodestime = 100;
    }
    adj.maxmoves = 60;
    GameRecord *first = malloc(sizeof *first);
    for (int round = 0; round < 2; round++) {
        start(WHITE, ENGINE, "", opts, 2);
        start(BLACK, ENGINE, "", opts, 2);
        play_game();
        cr_assert(rec->term != TERM_TIME && rec->term != TERM_STALL && rec->term != TERM_CRASH,
                  "round %d: term %d after %d plies", round, (int)rec->term, rec->nply);
        cr_assert_geq(rec->nply, 20, "round %d: a real game: %d plies", round, rec->nply);
        cr_assert_eq(rec->unmetered[WHITE] + rec->unmetered[BLACK], 0, "bin/ratchet reports its nodes");
        for (int c = 0; c < 2; c++) {
            ep_destroy(&eng[c]);
            ep_free_argv(argvs[c]);
            argvs[c] = NULL;
        }
        if (round == 0) {
            memcpy(first, rec, sizeof *first);
            continue;
        }
        cr_assert_eq(rec->nply, first->nply);
        for (int k = 0; k < rec->nply; k++) {
            cr_assert_eq(rec->moves[k], first->moves[k], "ply %d differs", k);
            cr_assert_eq(rec->depth[k], first->depth[k], "ply %d: depth %d, then %d", k, first->depth[k],
                         rec->depth[k]);
            cr_assert_eq(rec->score[k], first->score[k], "ply %d", k);
            cr_assert_eq(rec->ms[k], first->ms[k], "ply %d: the same charge", k);
        }
        cr_assert_eq(rec->result, first->result);
    }
    free(first);
}

/* ---- configuration ------------------------------------------------------- */

static int configure(MatchConfig *cfg, const char *line, char *err, size_t errlen)
{
    Args a = { .n = 0 };
    add_line(&a, "%s", line);
    int rc = 0;
    for (int i = 0; i < a.n && rc == 0;) {
        int r = match_parse_option(cfg, a.n, a.v, &i, err, errlen);
        if (r != 1)
            rc = -1;
    }
    args_free(&a);
    return rc < 0 ? -1 : match_config_finish(cfg, err, errlen);
}

Test(nodestime, each_key_sets_the_clock_the_option_and_the_names)
{
    MatchConfig cfg;
    char err[512];
    match_config_init(&cfg);
    cr_assert_eq(configure(&cfg, "-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B nodestime=50 "
                                 "-each tc=2+0.02 nodestime=700", err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.eng[0].tc.nodestime, 700);
    cr_assert_eq(cfg.eng[1].tc.nodestime, 50, "-engine wins over -each");
    cr_assert_eq(cfg.eng[0].nopts, 1);
    cr_assert_str_eq(cfg.eng[0].opts[0].name, "nodestime");
    cr_assert_str_eq(cfg.eng[0].opts[0].value, "700");
    char buf[64];
    tc_format(&cfg.eng[0].tc, buf, sizeof buf);
    cr_assert_str_eq(buf, "2+0.02 nodestime=700");
    tc_format_pgn(&cfg.eng[0].tc, buf, sizeof buf);
    cr_assert_str_eq(buf, "2+0.02 nodestime=700");
    match_config_free(&cfg);

    static const struct { const char *args, *msg; } bad[] = {
        { "-each nodes=100 nodestime=700", "needs a clock" },
        { "-each tc=1+0.01 nodestime=fast", "bad nodestime='fast'" },
        { "-each tc=1+0.01 nodestime=700 option.nodestime=5", "contradicts nodestime=700" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char line[256];
        snprintf(line, sizeof line, "-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B %s", bad[k].args);
        match_config_init(&cfg);
        cr_assert_eq(configure(&cfg, line, err, sizeof err), -1, "%s", line);
        cr_assert(strstr(err, bad[k].msg), "%s: %s", line, err);
        match_config_free(&cfg);
    }
}

static bool never(void *ctx, PairJob *job)
{
    (void)ctx;
    (void)job;
    return false;
}
static void done(void *ctx, const PairJob *job, const PairResult *res)
{
    (void)ctx;
    (void)job;
    (void)res;
}

/* An engine that does not advertise nodestime cannot play on such a clock:
 * the match does not start, and says which engine. */
Test(nodestime, an_engine_without_the_option_is_refused_at_start)
{
    MatchConfig cfg;
    char err[512];
    MatchHooks h = { .next_pair = never, .pair_done = done };
    match_config_init(&cfg);
    cr_assert_eq(configure(&cfg, "-engine cmd=" FAKE " name=Has args=--nodestime-option -engine cmd=" FAKE
                                 " name=Lacks -each tc=1+0.01 nodestime=100", err, sizeof err), 0, "%s", err);
    StderrCapture cap;
    char msg[2048];
    stderr_capture_begin(&cap);
    int rc = match_play(&cfg, &h);
    stderr_capture_end(&cap, msg, sizeof msg);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(msg, "engine 'Lacks' has no UCI option 'nodestime'"), "%s", msg);
    cr_assert_null(strstr(msg, "'Has'"), "%s", msg);
    match_config_free(&cfg);

    match_config_init(&cfg);
    cr_assert_eq(configure(&cfg, "-engine cmd=" FAKE " name=A -engine cmd=" FAKE
                                 " name=B -each tc=1+0.01 nodestime=100 args=--nodestime-option", err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(match_play(&cfg, &h), 0);
    match_config_free(&cfg);
}

/* ---- too many time losses at a wall clock ----------------------------------- */

#define TUNE "bin/ratchet-tune"
#define FAKESPSA "build/fake/fakespsa"

static void command_setup(void)
{
    tmp_create("/tmp/ratchet-timeloss-XXXXXX");
    command_fixture();
}

/* B takes 60 ms a move at st=0.02: it loses every game on time (A, at
 * st=5, cannot lose first on a busy machine), and the match says the
 * machine may be too loaded for the clock, on stderr while it plays and in
 * its report. */
Test(timeloss, a_match_at_a_wall_clock_says_when_time_losses_are_too_many, .init = command_setup,
     .fini = tmp_remove, .timeout = 60)
{
    int rc = shell(TUNE " match -engine cmd=" FAKE " name=A st=5 -engine cmd=" FAKE " name=B args=\"--think 60\" "
                        "-each st=0.02 -rounds 2");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Player: B\n  Time losses: 4"), "%s", out);
    cr_assert(strstr(out, "Warning: 4 time losses in 4 games: the machine may be too loaded for this clock; use "
                          "nodestime="), "%s", out);
    /* stderr (here mixed into out): once, after the first pair. */
    const char *w = strstr(out, "ratchet-tune: warning: 2 time losses in 2 games: the machine may be too loaded");
    cr_assert_not_null(w, "%s", out);
    cr_assert_null(strstr(w + 1, "ratchet-tune: warning:"), "said once:\n%s", out);

    /* At a node clock a time loss is an engine's overspending, not the load: no warning. */
    rc = shell(TUNE " match -engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B "
                    "args=\"--nodes 99999 --nodestime-option\" -each tc=1 nodestime=10 args=--nodestime-option "
                    "-rounds 2");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Player: B\n  Time losses: 4"), "%s", out);
    cr_assert_null(strstr(out, "too loaded"), "%s", out);
}

/* A tuning run whose engine overruns st=: the run warns on stderr, and
 * `status` shows it. */
Test(timeloss, a_run_and_its_status_say_when_time_losses_are_too_many, .init = command_setup, .fini = tmp_remove,
     .timeout = 90)
{
    int rc = shell(TUNE " run -engine cmd=" FAKESPSA " args=\"--think 40\" -params file=%s/spec2.txt -each st=0.02 "
                        "-openings file=%s/book.epd -maxmoves 20 -spsa games=4 -srand 3 -out %s/r",
                   tmp, tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "ratchet-tune: warning: ") && strstr(out, "time losses in")
                  && strstr(out, "the machine may be too loaded for this clock; use nodestime="), "%s", out);
    rc = shell(TUNE " status %s/r", tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "warning: 4 time losses in 4 games: the machine may be too loaded"), "%s", out);

    /* The same engine well within its time (it answers at once): no warning. */
    rc = shell(TUNE " run -engine cmd=" FAKESPSA " -params file=%s/spec2.txt -each st=5 -openings file=%s/book.epd "
                    "-maxmoves 20 -spsa games=4 -srand 3 -out %s/q",
               tmp, tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_null(strstr(out, "too loaded"), "%s", out);
    rc = shell(TUNE " status %s/q", tmp);
    cr_assert_null(strstr(out, "too loaded"), "%s", out);
}
