/* One refereed game: the rules end it, adjudication ends it, and every kind
 * of engine failure ends it against the engine that failed.  Uses the fake
 * engine build/fake/fakeuci. */
#include <stdatomic.h>
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "game.h"
#include "pgn.h"

#define FAKE "build/fake/fakeuci"

static EngineProc eng[2];
static char **argvs[2];
static GameScratch scratch;
static GameRecord *rec;
static TimeControl tcs[2];
static Adjudication adj;

static void setup(void)
{
    rules_init();
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    cr_assert_eq(game_scratch_init(&scratch), 0);
    rec = malloc(sizeof *rec);
    memset(tcs, 0, sizeof tcs);
    memset(&adj, 0, sizeof adj);
    for (int c = 0; c < 2; c++) {
        tcs[c].nodes = 100;
        tcs[c].watchdog_ms = 60000;
    }
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
}

TestSuite(game, .init = setup, .fini = teardown, .timeout = 30);

static void start(int c, const char *args)
{
    char err[256];
    argvs[c] = ep_split_args(args, err, sizeof err);
    EngineLaunch l = { .name = c == WHITE ? "white" : "black", .cmd = FAKE, .argv = argvs[c], .startup_ms = 5000 };
    ep_init(&eng[c], &l);
    cr_assert_eq(ep_start(&eng[c], err, sizeof err), 0, "%s", err);
}

static void play(const char *white, const char *black, const char *fen)
{
    start(WHITE, white);
    start(BLACK, black);
    GameSetup s = { .eng = { &eng[WHITE], &eng[BLACK] }, .tc = { &tcs[WHITE], &tcs[BLACK] }, .adj = &adj, .fen = fen };
    game_play(&s, &scratch, rec);
}

/* Replay the record from its start: every move legal; returns the final position. */
static Position *replay(void)
{
    Position *p = malloc(sizeof *p);
    cr_assert_eq(pos_from_fen(p, rec->fen, NULL, 0), 0, "record FEN %s", rec->fen);
    for (int k = 0; k < rec->nply; k++) {
        cr_assert(pos_is_legal(p, rec->moves[k]), "ply %d is not legal", k);
        pos_make(p, rec->moves[k]);
    }
    return p;
}

Test(game, random_games_end_by_the_rules_consistently)
{
    play("--seed 11", "--seed 12", NULL);
    cr_assert(rec->startpos);
    cr_assert(rec->term >= TERM_CHECKMATE && rec->term <= TERM_MATERIAL, "term %d", rec->term);
    cr_assert_eq(rec->culprit, -1);
    Position *p = replay();
    int result;
    Termination term;
    cr_assert(game_rules_end(p, &result, &term));
    cr_assert_eq(term, rec->term);
    cr_assert_eq(result, rec->result);
    /* ... and the game did not go on past an earlier end */
    pos_unmake(p);
    cr_assert_not(game_rules_end(p, &result, &term));
    free(p);
}

Test(game, threefold_repetition_is_detected)
{
    Position *p = malloc(sizeof *p);
    pos_startpos(p);
    const char *moves[] = { "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8" };
    int result;
    Termination term;
    for (int k = 0; k < 8; k++) {
        cr_assert_not(game_rules_end(p, &result, &term), "ended early at ply %d", k);
        pos_make(p, parse_uci(p, moves[k]));
    }
    cr_assert(game_rules_end(p, &result, &term));
    cr_assert_eq(term, TERM_REPETITION);
    cr_assert_eq(result, RESULT_DRAW);
    free(p);
}

Test(game, start_position_already_mate)
{
    /* Fool's mate: White is mated before anyone moves. */
    play("", "", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    cr_assert_eq(rec->term, TERM_CHECKMATE);
    cr_assert_eq(rec->result, RESULT_BLACK);
    cr_assert_eq(rec->nply, 0);
    cr_assert_not(rec->startpos);
}

Test(game, fifty_move_rule)
{
    play("--first", "--first", "8/8/8/8/8/5k2/8/R3K3 w - - 99 80");
    cr_assert_eq(rec->term, TERM_FIFTY);
    cr_assert_eq(rec->result, RESULT_DRAW);
    cr_assert_eq(rec->nply, 1);
}

Test(game, insufficient_material)
{
    play("", "", "8/8/4k3/8/8/4K3/8/8 w - - 0 1");
    cr_assert_eq(rec->term, TERM_MATERIAL);
    cr_assert_eq(rec->result, RESULT_DRAW);
}

Test(game, bad_start_position_is_no_result)
{
    play("", "", "this is not a fen");
    cr_assert_eq(rec->term, TERM_BAD_START);
    cr_assert_eq(rec->result, RESULT_NONE);
    cr_assert(rec->detail[0]);
}

Test(game, illegal_move_loses)
{
    play("--seed 3", "--illegal-after 4", NULL);
    cr_assert_eq(rec->term, TERM_ILLEGAL);
    cr_assert_eq(rec->result, RESULT_WHITE);
    cr_assert_eq(rec->culprit, BLACK);
    cr_assert_eq(rec->nply, 9, "black's fifth move was the illegal one");
    cr_assert(strlen(rec->detail) == 4, "the move text is kept: '%s'", rec->detail);
    cr_assert_not(rec->dead[BLACK]);
}

Test(game, malformed_bestmove_loses)
{
    play("--malformed-bestmove", "", NULL);
    cr_assert_eq(rec->term, TERM_ILLEGAL);
    cr_assert_eq(rec->result, RESULT_BLACK);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert_eq(rec->nply, 0);
}

Test(game, crash_loses_and_is_reported)
{
    play("--crash-after 2", "", NULL);
    cr_assert_eq(rec->term, TERM_CRASH);
    cr_assert_eq(rec->result, RESULT_BLACK);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert(rec->dead[WHITE]);
    cr_assert_not(rec->dead[BLACK]);
    cr_assert(strstr(rec->detail, "signal 9"), "%s", rec->detail);
    cr_assert_not(ep_running(&eng[WHITE]));
    char why[160];
    game_describe(rec, why, sizeof why);
    cr_assert(strstr(why, "White disconnects"), "%s", why);
}

/* nodes= mode: the watchdog ends the wait, the hung engine is killed. */
Test(game, hang_in_nodes_mode_stalls_and_is_killed)
{
    tcs[BLACK].watchdog_ms = 300;
    play("", "--hang-after 3", NULL);
    cr_assert_eq(rec->term, TERM_STALL);
    cr_assert_eq(rec->result, RESULT_WHITE);
    cr_assert_eq(rec->culprit, BLACK);
    cr_assert(rec->dead[BLACK]);
    cr_assert_not(ep_running(&eng[BLACK]));
    cr_assert_eq(rec->nply, 7);
}

Test(game, hang_in_depth_mode_also_has_a_deadline)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].nodes = 0;
        tcs[c].depth = 5;
    }
    tcs[WHITE].watchdog_ms = 300;
    play("--hang-after 0", "", NULL);
    cr_assert_eq(rec->term, TERM_STALL);
    cr_assert_eq(rec->culprit, WHITE);
}

/* With a clock: a slow engine loses on time but answers `stop`, so it stays. */
Test(game, clock_overrun_loses_on_time)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].nodes = 0;
        tcs[c].margin_ms = 0;
    }
    tcs[WHITE].base_ms = 60000; /* time odds: only Black can run out */
    tcs[BLACK].base_ms = 400;
    play("", "--think 150", NULL);
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->result, RESULT_WHITE);
    cr_assert_eq(rec->culprit, BLACK);
    cr_assert_not(rec->dead[BLACK], "an engine that answers after its time is kept");
    cr_assert(ep_running(&eng[BLACK]));
}

/* Out of time against a bare king is a draw; the other way round a loss. */
Test(game, time_forfeit_against_a_bare_king_is_a_draw)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].nodes = 0;
        tcs[c].movetime_ms = 20;
        tcs[c].margin_ms = 30;
    }
    play("--think 300", "", "8/8/8/8/8/5k2/8/R3K3 w - - 0 1");
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert_eq(rec->result, RESULT_DRAW);
    char why[160];
    game_describe(rec, why, sizeof why);
    cr_assert(strstr(why, "White runs out of time"), "%s", why);
}

Test(game, bare_king_side_out_of_time_loses)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].nodes = 0;
        tcs[c].movetime_ms = 20;
        tcs[c].margin_ms = 30;
    }
    tcs[WHITE].margin_ms = 60000; /* only Black can run out */
    play("", "--think 300", "8/8/8/8/8/5k2/8/R3K3 w - - 0 1");
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->culprit, BLACK);
    cr_assert_eq(rec->result, RESULT_WHITE);
}

Test(game, movetime_overrun_loses_on_time)
{
    for (int c = 0; c < 2; c++) {
        tcs[c].nodes = 0;
        tcs[c].movetime_ms = 20;
        tcs[c].margin_ms = 30;
    }
    play("--think 400", "", NULL);
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert_eq(rec->nply, 0);
}

Test(game, hang_with_clock_is_killed_after_stop_goes_unanswered)
{
    tcs[WHITE].nodes = tcs[BLACK].nodes = 0;
    tcs[WHITE].base_ms = 300;
    tcs[BLACK].base_ms = 60000;
    play("--hang-after 1", "", NULL);
    cr_assert_eq(rec->term, TERM_TIME);
    cr_assert_eq(rec->culprit, WHITE);
    cr_assert(rec->dead[WHITE]);
    cr_assert_not(ep_running(&eng[WHITE]));
}

Test(game, garbage_is_ignored)
{
    play("--garbage --seed 5", "--garbage --seed 6", NULL);
    cr_assert(rec->term >= TERM_CHECKMATE && rec->term <= TERM_MATERIAL, "term %d", rec->term);
    free(replay());
}

Test(game, stop_flag_gives_no_result)
{
    atomic_int stop = 1;
    start(WHITE, "");
    start(BLACK, "");
    GameSetup s = { .eng = { &eng[WHITE], &eng[BLACK] }, .tc = { &tcs[WHITE], &tcs[BLACK] }, .stop = &stop };
    game_play(&s, &scratch, rec);
    cr_assert_eq(rec->term, TERM_STOPPED);
    cr_assert_eq(rec->result, RESULT_NONE);
}

/* No pawns, and the first legal move is always a king move: nothing
 * irreversible happens, so only the scores drive draw adjudication. */
#define ROOKS "r3k3/8/8/8/8/8/8/4K2R w - - 0 1"

Test(game, draw_adjudication)
{
    adj.draw = true;
    adj.draw_movenumber = 0;
    adj.draw_movecount = 3;
    adj.draw_score = 10;
    play("--first --score 5", "--first --score -8", ROOKS);
    cr_assert_eq(rec->term, TERM_ADJ_DRAW);
    cr_assert_eq(rec->result, RESULT_DRAW);
    cr_assert_eq(rec->nply, 6);
}

Test(game, draw_adjudication_waits_for_movenumber)
{
    adj.draw = true;
    adj.draw_movenumber = 5;
    adj.draw_movecount = 1;
    adj.draw_score = 10;
    play("--first --score 0", "--first --score 0", ROOKS);
    cr_assert_eq(rec->term, TERM_ADJ_DRAW);
    cr_assert_eq(rec->nply, 10);
}

Test(game, no_draw_adjudication_outside_the_score)
{
    adj.draw = true;
    adj.draw_movecount = 1;
    adj.draw_score = 10;
    adj.maxmoves = 8;
    play("--first --score 11", "--first --score 0", ROOKS);
    cr_assert_eq(rec->term, TERM_MAXMOVES);
    cr_assert_eq(rec->nply, 16);
}

/* Pawn moves and captures restart the draw count, as in fastchess. */
Test(game, draw_adjudication_restarts_after_pawn_moves)
{
    adj.draw = true;
    adj.draw_movecount = 2;
    adj.draw_score = 10;
    adj.maxmoves = 6;
    play("--first --score 0", "--first --score 0", NULL); /* from the start: a2a3, a7a6, ... */
    cr_assert_eq(rec->term, TERM_MAXMOVES);
    cr_assert_eq(rec->nply, 12);
}

Test(game, resign_adjudication)
{
    adj.resign = true;
    adj.resign_movecount = 3;
    adj.resign_score = 400;
    play("--first --score -500", "--first", NULL);
    cr_assert_eq(rec->term, TERM_ADJ_RESIGN);
    cr_assert_eq(rec->result, RESULT_BLACK);
    cr_assert_eq(rec->culprit, -1, "resigning is not a misbehaviour");
    cr_assert_eq(rec->nply, 5);
}

Test(game, resign_on_mate_score)
{
    adj.resign = true;
    adj.resign_movecount = 2;
    adj.resign_score = 1000;
    play("--first", "--first --mate -3", NULL);
    cr_assert_eq(rec->term, TERM_ADJ_RESIGN);
    cr_assert_eq(rec->result, RESULT_WHITE);
    cr_assert_eq(rec->nply, 4);
}

Test(game, twosided_resign_needs_both_scores)
{
    adj.resign = true;
    adj.resign_movecount = 3;
    adj.resign_score = 400;
    adj.resign_twosided = true;
    adj.maxmoves = 10;
    play("--first --score -500", "--first --score 0", NULL);
    cr_assert_eq(rec->term, TERM_MAXMOVES);
    cr_assert_eq(rec->nply, 20);
}

Test(game, twosided_resign_when_both_agree)
{
    adj.resign = true;
    adj.resign_movecount = 3;
    adj.resign_score = 400;
    adj.resign_twosided = true;
    play("--first --score -500", "--first --score 600", NULL);
    cr_assert_eq(rec->term, TERM_ADJ_RESIGN);
    cr_assert_eq(rec->result, RESULT_BLACK);
    cr_assert_eq(rec->nply, 6);
}

Test(game, maxmoves_draw)
{
    adj.maxmoves = 5;
    play("--first", "--first", NULL);
    cr_assert_eq(rec->term, TERM_MAXMOVES);
    cr_assert_eq(rec->result, RESULT_DRAW);
    cr_assert_eq(rec->nply, 10);
}

/* The go commands an engine receives: clock, increments, movestogo, limits. */
Test(game, go_commands_carry_the_time_control)
{
    char path[] = "/tmp/ratchet-golog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    for (int c = 0; c < 2; c++) {
        tcs[c].base_ms = 10000;
        tcs[c].inc_ms = 0;
        tcs[c].moves = 2;
        tcs[c].nodes = 500;
    }
    tcs[BLACK].inc_ms = 250;
    adj.maxmoves = 3;
    char args[128];
    snprintf(args, sizeof args, "--first --option-log %s", path);
    play(args, "--first", NULL);
    cr_assert_eq(rec->term, TERM_MAXMOVES);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[256];
    long wtime[3], btime[3], winc, binc, nodes;
    int mtg[3], n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "go ", 3) != 0)
            continue;
        cr_assert(n < 3);
        cr_assert_eq(sscanf(line, "go wtime %ld btime %ld winc %ld binc %ld movestogo %d nodes %ld", &wtime[n],
                            &btime[n], &winc, &binc, &mtg[n], &nodes),
                     6, "%s", line);
        cr_assert_eq(winc, 0);
        cr_assert_eq(binc, 250);
        cr_assert_eq(nodes, 500);
        n++;
    }
    fclose(f);
    unlink(path);
    cr_assert_eq(n, 3);
    cr_assert_eq(mtg[0], 2);
    cr_assert_eq(mtg[1], 1);
    cr_assert_eq(mtg[2], 2, "a new period after two moves");
    cr_assert_eq(wtime[0], 10000);
    cr_assert(wtime[2] > 10000 && wtime[2] <= 20000, "the period's time was added: %ld", wtime[2]);
    cr_assert(btime[1] > 10000 - 5000 && btime[1] <= 10250, "black got its increment: %ld", btime[1]);
}

Test(game, describe_texts)
{
    GameRecord *r = rec;
    memset(r, 0, sizeof *r);
    char buf[160];
    r->term = TERM_TIME;
    r->result = RESULT_WHITE;
    r->culprit = BLACK;
    game_describe(r, buf, sizeof buf);
    cr_assert_str_eq(buf, "Black loses on time");
    cr_assert_str_eq(game_pgn_termination(TERM_TIME), "time forfeit");
    r->term = TERM_CHECKMATE;
    r->result = RESULT_BLACK;
    r->culprit = -1;
    game_describe(r, buf, sizeof buf);
    cr_assert_str_eq(buf, "Black mates");
    cr_assert_str_eq(game_result_text(RESULT_DRAW), "1/2-1/2");
}

Test(game, time_control_texts)
{
    TimeControl t = { 0 };
    char buf[64];
    t.base_ms = 10000;
    t.inc_ms = 100;
    tc_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "10+0.1");
    tc_format_pgn(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "10+0.1");
    t.moves = 40;
    t.inc_ms = 0;
    t.base_ms = 60000;
    tc_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "40/60");
    memset(&t, 0, sizeof t);
    t.nodes = 5000;
    tc_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "5000 nodes");
    tc_format_pgn(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "-");
    t.nodes = 0;
    t.movetime_ms = 500;
    tc_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "0.5/move");
    tc_format_pgn(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "1/0.5");
}

/* Found by fuzz_engine_output: `score mate 2147483648` overflowed the
 * mate-score arithmetic (undefined behaviour; a wrapped, negative score in
 * practice), and a huge cp wrapped around.  Out-of-range numbers are
 * clamped to the mate range, keeping their sign. */
Test(game, info_scores_out_of_range_are_clamped)
{
    static const struct {
        const char *line;
        int sign;
    } cases[] = {
        { "info depth 1 score mate 2147483648", 1 },
        { "info depth 1 score mate 99999999999999999999", 1 },
        { "info depth 1 score mate -2147483649", -1 },
        { "info depth 1 score cp 4294967295", 1 },
        { "info depth 1 score cp -4294967297", -1 },
        { "info depth 99999 score cp 5", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t score = 0;
        int16_t depth = 0;
        const char *bm;
        cr_assert_not(game_engine_line(cases[i].line, &score, &depth, NULL, &bm));
        cr_expect(cases[i].sign > 0 ? score > 0 : score < 0, "%s: score %d", cases[i].line, (int)score);
        cr_expect(score >= -32000 && score <= 32000, "%s: score %d", cases[i].line, (int)score);
        cr_expect_geq(depth, 1, "%s: depth %d", cases[i].line, (int)depth);
    }
}

/* A tag is one line of printable text: a line break or an escape sequence in
 * an engine's name (or the event) cannot start a tag of its own. */
Test(game, pgn_tags_hold_no_control_characters)
{
    GameRecord *r = rec;
    memset(r, 0, sizeof *r);
    snprintf(r->fen, sizeof r->fen, "%s", START_FEN);
    r->startpos = true;
    r->result = RESULT_DRAW;
    r->term = TERM_ADJ_DRAW;
    r->culprit = -1;
    PgnTags t = { .event = "ev\nent", .site = "s\"i\\te", .round = "1", .white = "W\x1b[31mhite\r\n[Result \"1-0\"]",
                  .black = "B\x7f", .timecontrol = "-" };
    Position *pos = malloc(sizeof *pos);
    PgnText out = { 0 };
    cr_assert_eq(pgn_format(&t, r, pos, &out), 0);
    cr_assert_not_null(out.s);
    cr_assert(strstr(out.s, "[Event \"ev?ent\"]\n"), "%s", out.s);
    cr_assert(strstr(out.s, "[Site \"s\\\"i\\\\te\"]\n"), "quotes and backslashes escaped:\n%s", out.s);
    cr_assert(strstr(out.s, "[White \"W?[31mhite??[Result \\\"1-0\\\"]\"]\n"), "%s", out.s);
    cr_assert(strstr(out.s, "[Black \"B?\"]\n"), "%s", out.s);
    cr_assert_null(strchr(out.s, '\x1b'));
    cr_assert_null(strchr(out.s, '\r'));
    /* every line of the tag section is a whole tag */
    for (const char *l = out.s; *l == '['; l = strchr(l, '\n') + 1)
        cr_assert(strstr(l, "\"]\n") && strstr(l, "\"]\n") < strchr(l, '\n') + 1, "a tag split over lines:\n%s",
                  out.s);
    pgn_text_free(&out);
    free(pos);
}
