/* The search and its parameters: mates found, SEE values, draw rules in the
 * search, legal moves under any clock, every parameter changing the search,
 * range checks, derived tables, the spec faces, and the bench signature. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench.h"
#include "eval.h"
#include "board.h"
#include "params.h"
#include "search.h"
#include "see.h"
#include "tt.h"
#include "engine.h"
#include "timeman.h"

static Position *pos;
static Searcher *searcher;

static void setup(void)
{
    engine_init();
    pos = malloc(sizeof *pos);
    searcher = searcher_new();
    cr_assert(pos && searcher);
}

static void teardown(void)
{
    free(pos);
    pos = NULL;
    searcher_free(searcher);
    searcher = NULL;
    tt_free();
}

static bool sanitized(void)
{
    const char *v = getenv("RATCHET_SANITIZED");
    return v && strcmp(v, "0") != 0;
}

static void load(const char *fen)
{
    char err[256];
    cr_assert_eq(pos_from_fen(pos, fen, err, sizeof err), 0, "%s: %s", fen, err);
}

/* Searches the loaded position from a clear state. */
static SearchResult search_with(const SearchLimits *lim)
{
    SearchResult r;
    tt_clear();
    searcher_clear(searcher);
    search_run(searcher, pos, lim, NULL, NULL, &r);
    return r;
}

static SearchResult search_depth(int depth)
{
    SearchLimits lim;
    search_limits_init(&lim);
    lim.depth = depth;
    return search_with(&lim);
}

static void uci_of(Move m, char *buf) { move_to_uci(m, buf); }

/* ---- Mates ---------------------------------------------------------------- */

typedef struct {
    const char *fen;
    const char *best;
    int moves; /* mate in this many moves */
} MateCase;

/* Each has a unique mating first move (checked with Stockfish). */
static const MateCase mates[] = {
    {"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", 1},
    {"3k4/8/3K4/8/8/8/8/6R1 w - - 0 1", "g1g8", 1},
    {"r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6", 2},
    {"r1bq2r1/b4pk1/p1pp1p2/1p2pP2/1P2P1PB/3P4/1PPQ2P1/R3K2R w - - 0 1", "d2h6", 2},
    {"r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", "f6a6", 3},
    {"r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5", 3},
    {"2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", "b1g6", 3},
};

TestSuite(search, .init = setup, .fini = teardown, .timeout = 120);

Test(search, finds_mates_in_one_two_and_three)
{
    for (size_t i = 0; i < sizeof mates / sizeof mates[0]; i++) {
        load(mates[i].fen);
        SearchResult r = search_depth(2 * mates[i].moves + 3);
        char mv[8];
        uci_of(r.best, mv);
        cr_expect_str_eq(mv, mates[i].best, "%s: played %s", mates[i].fen, mv);
        cr_expect_eq(r.score, SCORE_MATE - (2 * mates[i].moves - 1), "%s: score %d, expected mate in %d",
                     mates[i].fen, r.score, mates[i].moves);
    }
}

/* ---- SEE -------------------------------------------------------------------- */

typedef struct {
    const char *fen;
    const char *move;
    int value; /* with piece values P 100, N 320, B 330, R 500, Q 950 */
} SeeCase;

static const SeeCase see_cases[] = {
    {"4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", "d1d5", 100},                       /* free pawn */
    {"4k3/8/2p5/3p4/8/8/8/3RK3 w - - 0 1", "d1d5", -400},                    /* rook for a pawn */
    {"3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100},                    /* x-ray support */
    {"4k3/8/8/3n4/8/4N3/8/4K3 w - - 0 1", "e3d5", 320},                      /* free knight */
    {"4k3/8/2p5/3n4/8/4N3/8/4K3 w - - 0 1", "e3d5", 0},                      /* knight trade */
    {"4k3/8/8/2p5/8/3N4/8/4K3 w - - 0 1", "d3b4", -320},                     /* quiet move en prise */
    {"4k3/8/8/2p5/8/3N4/8/4K3 w - - 0 1", "d3f4", 0},                        /* quiet safe move */
    {"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100},                      /* en passant */
    {"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", 850},                       /* safe promotion */
    {"r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", -100},                     /* promotion taken */
    {"r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q", 1350},                     /* capturing promotion */
    {"1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100},        /* undefended pawn */
    {"1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220}, /* long sequence */
    {"4k3/8/5p2/4p3/3P4/8/8/4K3 w - - 0 1", "d4e5", 0},                      /* pawn trade */
    {"4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "e1d2", 100},                        /* king takes */
    {"4k3/8/8/3p4/1n6/8/8/3QK3 w - - 0 1", "d1d5", -850},                    /* queen for a pawn */
    {"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1", 0},                         /* castling */
};

Test(search, see_values_on_a_table_of_positions)
{
    for (size_t i = 0; i < sizeof see_cases / sizeof see_cases[0]; i++) {
        const SeeCase *c = &see_cases[i];
        load(c->fen);
        Move m = parse_uci(pos, c->move);
        cr_assert_neq(m, MOVE_NONE, "%s: %s is not legal", c->fen, c->move);
        cr_expect_eq(see_value(pos, m), c->value, "%s %s: SEE %d, expected %d", c->fen, c->move,
                     see_value(pos, m), c->value);
        cr_expect(see_ge(pos, m, c->value), "%s %s: see_ge(%d) should hold", c->fen, c->move, c->value);
        cr_expect(!see_ge(pos, m, c->value + 1), "%s %s: see_ge(%d) should fail", c->fen, c->move, c->value + 1);
    }
}

/* ---- Draw rules in the search ----------------------------------------------- */

Test(search, takes_a_threefold_repetition_when_lost)
{
    /* Black, a queen down, can repeat the start position a third time. */
    static const char *moves[] = {"d1d2", "b8c6", "d2d1", "c6b8", "d1d2", "b8c6", "d2d1"};
    load("1n2k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        Move m = parse_uci(pos, moves[i]);
        cr_assert_neq(m, MOVE_NONE);
        pos_make(pos, m);
    }
    SearchResult r = search_depth(8);
    char mv[8];
    uci_of(r.best, mv);
    cr_expect_str_eq(mv, "c6b8", "played %s", mv);
    cr_expect_eq(r.score, 0, "score %d", r.score);
}

Test(search, fifty_move_rule_and_dead_material_score_zero)
{
    load("8/8/8/8/8/5k2/8/4K1Q1 w - - 99 80");
    cr_expect_eq(search_depth(6).score, 0);
    load("8/8/8/4k3/8/8/8/4KN2 w - - 0 1");
    cr_expect_eq(search_depth(6).score, 0);
}

Test(search, mate_on_the_hundredth_ply_beats_the_fifty_move_rule)
{
    /* Qg7 mates with the halfmove clock reaching 100: a mate, not a draw. */
    load("7k/5Q2/6K1/8/8/8/8/8 w - - 99 80");
    SearchResult r = search_depth(6);
    char mv[8];
    uci_of(r.best, mv);
    cr_expect_str_eq(mv, "f7g7", "played %s (score %d)", mv, r.score);
    cr_expect_eq(r.score, SCORE_MATE - 1, "score %d", r.score);
    /* The mated side sees it too: checkmate with the clock at 100. */
    load("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80");
    cr_expect(search_is_draw(pos, 1) == false, "a checkmate at clock 100 is no draw");
    load("7k/8/5QK1/8/8/8/8/8 b - - 100 80"); /* not mate, clock at 100 */
    cr_expect(search_is_draw(pos, 1));
}

/* Plays moves from the loaded position. */
static void play(const char *const *moves, int n)
{
    for (int i = 0; i < n; i++) {
        Move m = parse_uci(pos, moves[i]);
        cr_assert_neq(m, MOVE_NONE, "%s", moves[i]);
        pos_make(pos, m);
    }
}

Test(search, repetition_needs_the_earlier_occurrence_after_the_root)
{
    static const char *const out_and_back[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    /* The root is the start position; a line returns to it at ply 4: the
     * earlier occurrence is the root itself, so no draw yet. */
    load(START_FEN);
    play(out_and_back, 4);
    cr_expect_not(search_is_draw(pos, 4), "occurrence at the root counted as a repetition");
    cr_expect_not(search_is_draw(pos, 3), "occurrence before the root counted as a repetition");
    /* Strictly after the root (root one ply before the first occurrence). */
    cr_expect(search_is_draw(pos, 5));
    /* Twice before: a threefold repetition counts wherever the others are. */
    load(START_FEN);
    play(out_and_back, 4);
    play(out_and_back, 4);
    cr_expect(search_is_draw(pos, 1));
}

/* Best moves of two consecutive depths differ; a node budget that ends the
 * deeper iteration one node early must still play the deeper move, which
 * failed high at the root before the budget ran out. */
Test(search, a_root_fail_high_from_an_unfinished_iteration_is_played)
{
    static const struct {
        const char *fen;
        int depth;
    } cases[] = {
        {START_FEN, 6},
        {"3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1", 6},
        {"3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1", 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* The first depth from three below the case's on where the best
         * move changes (an evaluation change moves it). */
        SearchResult before, full;
        int d = cases[i].depth - 3;
        for (;; d++) {
            load(cases[i].fen);
            before = search_depth(d - 1);
            full = search_depth(d);
            if (before.best != full.best || d == cases[i].depth + 6)
                break;
        }
        cr_assert_neq(before.best, full.best, "%s: the test needs a new best move at a depth from %d to %d",
                      cases[i].fen, cases[i].depth - 3, d);
        SearchLimits lim;
        search_limits_init(&lim);
        lim.nodes = full.nodes - 1;
        SearchResult cut = search_with(&lim);
        char got[8], want[8];
        uci_of(cut.best, got);
        uci_of(full.best, want);
        cr_expect_str_eq(got, want, "%s: %llu nodes: played %s, the move of the unfinished iteration is %s",
                         cases[i].fen, (unsigned long long)lim.nodes, got, want);
    }
}

Test(search, fhr_can_skip_nodes_whose_null_move_failed)
{
    int skip = param_index("FhrSkipAfterNull");
    cr_assert_geq(skip, 0);
    char err[256];
    uint64_t fhr = 0, after_null = 0;
    cr_assert_eq(param_set(skip, 0, err, sizeof err), 0, "%s", err);
    for (int i = 0; i < 6; i++) {
        load(bench_fens[i]);
        SearchResult r = search_depth(9);
        fhr += r.fhr;
        after_null += r.fhr_after_null;
    }
    cr_expect_gt(after_null, 0, "switch off: FHR after a failed null move happens (%llu of %llu)",
                 (unsigned long long)after_null, (unsigned long long)fhr);
    cr_assert_eq(param_set(skip, 1, err, sizeof err), 0, "%s", err);
    fhr = after_null = 0;
    for (int i = 0; i < 6; i++) {
        load(bench_fens[i]);
        SearchResult r = search_depth(9);
        fhr += r.fhr;
        after_null += r.fhr_after_null;
    }
    param_set(skip, param_specs[skip].def, err, sizeof err);
    cr_expect_gt(fhr, 0, "FHR still applies elsewhere");
    cr_expect_eq(after_null, 0, "switch on: %llu FHR reductions right after a failed null move",
                 (unsigned long long)after_null);
}

/* Singular extensions end each of their four ways on the bench positions,
 * and only the ways that their switches allow. */
static void singular_counts(uint64_t out[4])
{
    memset(out, 0, 4 * sizeof out[0]);
    for (int i = 0; i < 6; i++) {
        load(bench_fens[i]);
        SearchResult r = search_depth(10);
        for (int k = 0; k < 4; k++)
            out[k] += r.singular[k];
    }
}

Test(search, singular_extensions_extend_double_cut_and_reduce)
{
    static const char *ways[4] = {"extend", "double", "multi-cut", "reduce"};
    uint64_t n[4];
    char err[256];
    cr_assert_eq(param_set(PARAM_ID_SeEnabled, 1, err, sizeof err), 0, "%s", err);
    cr_assert_eq(param_set(PARAM_ID_SeDoubleLimit, 4, err, sizeof err), 0, "%s", err);
    singular_counts(n);
    for (int k = 0; k < 4; k++)
        cr_expect_gt(n[k], 0, "SeEnabled=1: no singular test ended in '%s'", ways[k]);

    static const char *switch_of[4] = {NULL, "SeDoubleLimit", "SeMultiCut", "SeNegativeExt"};
    for (int k = 1; k < 4; k++) {
        int i = param_index(switch_of[k]);
        cr_assert_geq(i, 0);
        long before = param_get(i);
        cr_assert_eq(param_set(i, 0, err, sizeof err), 0, "%s", err);
        singular_counts(n);
        param_set(i, before, err, sizeof err);
        cr_expect_eq(n[k], 0, "%s=0: %llu tests ended in '%s'", switch_of[k], (unsigned long long)n[k], ways[k]);
        cr_expect_gt(n[0], 0, "%s=0: no singular extension left", switch_of[k]);
    }
    cr_assert_eq(param_set(PARAM_ID_SeEnabled, 0, err, sizeof err), 0, "%s", err);
    singular_counts(n);
    cr_expect_eq(n[0] + n[1] + n[2] + n[3], 0, "SeEnabled=0 still tests for singular moves");
    param_set(PARAM_ID_SeEnabled, param_specs[PARAM_ID_SeEnabled].def, err, sizeof err);
}

/* The excluded search of a singular extension test: with no other move it
 * fails low (not a mate or a draw score), the table entry of the node
 * neither cuts it short nor receives its result, and its best move is not
 * stored as the node's last best reply. */
Test(search, singular_test_without_the_only_move_fails_low_and_leaves_the_table)
{
    load("8/8/8/8/8/5k2/7p/7K w - - 0 1"); /* Kxh2 is White's only move, not in check */
    MoveList l;
    gen_legal(pos, &l, GEN_ALL);
    cr_assert_eq(l.count, 1);
    cr_assert(!pos_in_check(pos));
    const Move only = l.moves[0];
    TTHit hit;
    tt_clear();
    searcher_clear(searcher);
    int v = search_excluding(searcher, pos, only, 100, 6);
    cr_expect_eq(v, 99, "no other move: %d, not a fail low at beta - 1", v);
    cr_expect(!tt_probe(pos_key(pos), 1, &hit), "the excluded search stored its result for the node");
    /* A deep lower bound above beta in the table must not end the test. */
    tt_store(pos_key(pos), 1, only, 500, 0, 30, BOUND_LOWER);
    v = search_excluding(searcher, pos, only, 100, 6);
    cr_expect_eq(v, 99, "the table's bound cut the excluded search: %d", v);
    cr_assert(tt_probe(pos_key(pos), 1, &hit));
    cr_expect(hit.score == 500 && hit.depth == 30 && hit.bound == BOUND_LOWER,
              "the node's entry changed to score %d depth %d bound %d", hit.score, hit.depth, hit.bound);
    /* With other moves to search, the node's result is still not stored. */
    load(bench_fens[1]);
    gen_legal(pos, &l, GEN_ALL);
    tt_clear();
    search_excluding(searcher, pos, l.moves[0], 0, 6);
    cr_expect(!tt_probe(pos_key(pos), 1, &hit), "the excluded search stored its result for %s", bench_fens[1]);
    /* Nor is its best move stored as the last best reply to the prior move:
     * it is the best without the hash move, not the node's reply. */
    pos_make(pos, l.moves[0]);
    gen_legal(pos, &l, GEN_ALL);
    searcher_clear(searcher);
    const int low = -SCORE_MATE_IN_MAX + 1;
    cr_assert_geq(search_excluding(searcher, pos, l.moves[0], low, 6), low, "another move should beat a mated score");
    cr_expect_eq(search_lbr_reply(searcher, pos, 1), MOVE_NONE, "the excluded search stored a last best reply");
    /* Without exclusion the same node is searched normally: Kxh2 wins the pawn. */
    load("8/8/8/8/8/5k2/7p/7K w - - 0 1");
    tt_clear();
    cr_expect_geq(search_excluding(searcher, pos, MOVE_NONE, -100, 6), -100, "Kxh2 is not below -100");
}

/* ---- A legal move whatever the clock ---------------------------------------- */

static void expect_legal_reply(const char *fen, const SearchLimits *lim)
{
    load(fen);
    SearchResult r = search_with(lim);
    char mv[8];
    uci_of(r.best, mv);
    cr_assert(r.best != MOVE_NONE && pos_is_legal(pos, r.best), "%s: bestmove %s is not legal", fen, mv);
}

Test(search, legal_move_with_no_time_left)
{
    SearchLimits lim;
    search_limits_init(&lim);
    lim.time[WHITE] = lim.time[BLACK] = 0;
    expect_legal_reply(START_FEN, &lim);
    expect_legal_reply(bench_fens[1], &lim);
    lim.movetime = 1;
    expect_legal_reply(bench_fens[6], &lim);
}

Test(search, single_legal_move_is_played)
{
    /* White's king on h1 is checked by the rook on a1 and has one move. */
    load("8/8/8/8/8/5k2/8/r6K w - - 0 1");
    MoveList l;
    gen_legal(pos, &l, GEN_ALL);
    cr_assert_eq(l.count, 1);
    SearchLimits lim;
    search_limits_init(&lim);
    lim.time[WHITE] = lim.time[BLACK] = 1000;
    SearchResult r = search_with(&lim);
    cr_expect_eq(r.best, l.moves[0]);
    cr_expect_eq(r.depth, 1, "a forced move is answered after one iteration");
}

Test(search, avoids_stalemating_when_winning)
{
    /* Most queen moves stalemate the bare king; the engine must not. */
    static const char *fens[] = {
        "k7/8/1Q6/8/8/8/8/7K w - - 0 1",
        "7k/5Q2/8/8/8/8/8/K7 w - - 0 1",
        "8/8/8/8/8/2Q5/k7/2K5 w - - 0 1",
    };
    for (size_t i = 0; i < sizeof fens / sizeof fens[0]; i++) {
        load(fens[i]);
        SearchResult r = search_depth(6);
        cr_assert(pos_is_legal(pos, r.best));
        pos_make(pos, r.best);
        MoveList l;
        gen_legal(pos, &l, GEN_ALL);
        cr_expect(l.count > 0 || pos_in_check(pos), "%s: the reply stalemates", fens[i]);
        cr_expect(r.score > 500, "%s: score %d", fens[i], r.score);
    }
}

/* Mop-up: the engine playing both sides at a shallow fixed depth mates a
 * bare king with king and queen (or king and rook) from the middle of the
 * board within a bound close to the optimum (KQK <= 10 moves, KRK <= 16);
 * without the mop-up term the kings wander and the bound is missed. */
Test(search, mop_up_mates_a_bare_king_quickly)
{
    static const struct {
        const char *fen;
        int moves;
    } cases[] = {
        {"8/8/8/3k4/8/8/8/4K1Q1 w - - 0 1", 14},
        {"8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 24},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        load(cases[i].fen);
        int moves = 0;
        MoveList l;
        for (;;) {
            gen_legal(pos, &l, GEN_ALL);
            if (l.count == 0 || moves > cases[i].moves)
                break;
            SearchResult r = search_depth(5);
            cr_assert(pos_is_legal(pos, r.best));
            if (pos->side == WHITE)
                moves++;
            pos_make(pos, r.best);
        }
        cr_expect(l.count == 0 && pos_in_check(pos), "%s: no mate within %d moves", cases[i].fen,
                  cases[i].moves);
    }
}

Test(search, no_legal_move_gives_no_move)
{
    load("8/8/8/8/8/2k5/1r6/K7 w - - 0 1"); /* stalemate */
    SearchResult r = search_depth(4);
    cr_expect_eq(r.best, MOVE_NONE);
    cr_expect_eq(r.score, 0);
    load("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"); /* checkmated */
    r = search_depth(4);
    cr_expect_eq(r.best, MOVE_NONE);
    cr_expect_eq(r.score, -SCORE_MATE);
}

Test(search, node_limit_is_respected)
{
    load(bench_fens[1]);
    SearchLimits lim;
    search_limits_init(&lim);
    lim.nodes = 20000;
    SearchResult r = search_with(&lim);
    cr_expect_leq(r.nodes, lim.nodes + 1);
    cr_expect_geq(r.nodes, lim.nodes, "the search should use its node budget");
    cr_expect(pos_is_legal(pos, r.best));
}

/* With nodestime the search's clock counts nodes: `go movetime 1000` at 50
 * nodes per ms, less the 10 ms overhead, stops at exactly 49,500 nodes, and
 * the same search again gives the same nodes and move; a clock given with
 * wtime stops within its hard limit the same way each time. */
Test(search, a_clock_that_counts_nodes_stops_on_nodes)
{
    load(bench_fens[1]);
    SearchLimits lim;
    search_limits_init(&lim);
    lim.nodestime = 50;
    lim.overhead = 10;
    lim.movetime = 1000;
    SearchResult a = search_with(&lim);
    cr_expect_eq(a.nodes, 990 * 50, "stopped at %llu nodes", (unsigned long long)a.nodes);
    SearchResult b = search_with(&lim);
    cr_expect_eq(b.nodes, a.nodes);
    cr_expect_eq(b.best, a.best);

    search_limits_init(&lim);
    lim.nodestime = 20;
    lim.overhead = 10;
    lim.time[WHITE] = lim.time[BLACK] = 2000;
    lim.inc[WHITE] = lim.inc[BLACK] = 20;
    TimeManager tm;
    tm_init(&tm, &(TmLimits){.time_left = 2000, .inc = 20, .overhead = 10, .nodes_per_ms = 20});
    a = search_with(&lim);
    b = search_with(&lim);
    cr_expect(a.nodes > 0 && a.nodes <= (uint64_t)tm.hard, "%llu nodes, hard limit %lld",
              (unsigned long long)a.nodes, (long long)tm.hard);
    cr_expect_eq(b.nodes, a.nodes);
    cr_expect_eq(b.best, a.best);
    cr_expect_eq(b.depth, a.depth);
}

/* A machine so loaded that the engine gets 1/80 of a core: 20 nodes per ms
 * of wall time (a clock modelled on the node count).  At go movetime 50
 * with the 10 ms overhead the search must stop near 40 ms, well inside the
 * 50: it reads the clock often enough that the nodes between two readings
 * cost little even then. */
static int64_t starved_clock(uint64_t nodes, void *ctx)
{
    (void)ctx;
    return (int64_t)(nodes / 20);
}

Test(search, a_starved_engine_still_stops_inside_its_movetime)
{
    load(bench_fens[1]);
    SearchLimits lim;
    search_limits_init(&lim);
    lim.overhead = 10;
    lim.movetime = 50;
    lim.clock = starved_clock;
    SearchResult r = search_with(&lim);
    int64_t ms = starved_clock(r.nodes, NULL);
    cr_expect(ms >= 40 && ms <= 45, "stopped at %llu nodes: %lld ms on the starved clock (hard limit 40)",
              (unsigned long long)r.nodes, (long long)ms);
    cr_expect(pos_is_legal(pos, r.best));

    /* The same under a clock of 300 ms + 20: the hard limit and then at most
     * a few ms more. */
    search_limits_init(&lim);
    lim.overhead = 10;
    lim.time[WHITE] = lim.time[BLACK] = 300;
    lim.inc[WHITE] = lim.inc[BLACK] = 20;
    lim.clock = starved_clock;
    TimeManager tm;
    tm_init(&tm, &(TmLimits){.time_left = 300, .inc = 20, .overhead = 10});
    r = search_with(&lim);
    ms = starved_clock(r.nodes, NULL);
    cr_expect(ms <= tm.hard + 5, "%lld ms on the starved clock, hard limit %lld", (long long)ms, (long long)tm.hard);
}

/* ---- Parameters ---------------------------------------------------------------- */

/* Nodes of a small bench: a few varied positions at a fixed depth. */
static uint64_t bench_at(int depth)
{
    static const int picks[] = {0, 1, 5, 10, 18, 30, 41, 44};
    const char *fens[sizeof picks / sizeof picks[0]];
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++)
        fens[i] = bench_fens[picks[i]];
    BenchResult r;
    cr_assert_eq(bench_run(fens, (int)(sizeof picks / sizeof picks[0]), depth, NULL, &r), 0);
    return r.nodes;
}

static uint64_t small_bench(void) { return bench_at(8); }

/* Nodes of every bench position at a fixed depth: a sample wide enough
 * that a pruning's effect on the tree is not one position's accident. */
static uint64_t bench_all(int depth)
{
    BenchResult r;
    cr_assert_eq(bench_run(bench_fens, bench_count, depth, NULL, &r), 0);
    return r.nodes;
}

static void set_param(int i, long v)
{
    char err[256];
    cr_assert_eq(param_set(i, v, err, sizeof err), 0, "%s", err);
}

ParameterizedTestParameters(search, every_parameter_changes_the_search)
{
    static int indices[PARAM_COUNT];
    for (int i = 0; i < PARAM_COUNT; i++)
        indices[i] = i;
    return cr_make_param_array(int, indices, PARAM_COUNT);
}

/* Moving a parameter to the ends of its range changes the bench nodes. */
ParameterizedTest(int *index, search, every_parameter_changes_the_search)
{
    cr_assert(pos && searcher, "the suite's setup ran");
    int i = *index;
    /* The sanitizer build checks memory safety, not behaviour: a quarter of
     * the parameters is enough there (the optimized build runs them all). */
    if (sanitized() && i % 4 != 0)
        cr_skip_test("parameter %s: checked in the optimized build", param_specs[i].name);
    const ParamSpec *ps = &param_specs[i];
    /* A technique that is off by default is checked switched on. */
    char group[32], name[48];
    param_group(i, group, sizeof group);
    snprintf(name, sizeof name, "%sEnabled", group);
    int sw = param_index(name);
    if (sw >= 0 && sw != i && param_get(sw) == 0)
        set_param(sw, 1);
    uint64_t base = small_bench();
    set_param(i, ps->min);
    uint64_t at_min = small_bench();
    set_param(i, ps->max);
    uint64_t at_max = small_bench();
    cr_expect(at_min != base || at_max != base,
              "%s: bench nodes %llu at default %d, %llu at min %d, %llu at max %d", ps->name,
              (unsigned long long)base, ps->def, (unsigned long long)at_min, ps->min,
              (unsigned long long)at_max, ps->max);
}

Test(search, each_technique_switch_changes_the_nodes)
{
    static const char *switches[] = {"LmrEnabled", "LmpEnabled",      "IirEnabled",      "FhrEnabled", "LbrEnabled",
                                     "NmpEnabled", "RfpEnabled",      "FutilityEnabled", "SeePruneEnabled",
                                     "SeEnabled"};
    /* Every bench position at depth 9.  Where one switch is measured on
     * few positions or at one depth, noise decides: on eight positions at
     * depth 8 null moves that fail cost more than their cutoffs save (bench
     * 2101425: 51073 nodes off, 53026 on); at depth 10 futility pruning did
     * not pay on them (bench 1935233: 125882 off, 129583 on), and with bench
     * 1807022 it did not on every position at depth 9 (404188 off, 405162
     * on) or 10 (662010 off, 663475 on), while at depth 8 it did (234210
     * off, 229977 on).  With futility judged at the LMR depth (bench
     * 3234900) IIR grows the tree on every position at depth 8 (362097
     * nodes off, 374456 on) and shrinks it at depth 9 (751229 off, 661313
     * on), where every switch here shrinks it.  The sanitizer build runs
     * every switch's code at depth 6 and checks that it changes the
     * search; which way is the optimized build's check. */
    int depth = sanitized() ? 6 : 9;
    uint64_t all_on = bench_all(depth);
    for (size_t k = 0; k < sizeof switches / sizeof switches[0]; k++) {
        int i = param_index(switches[k]);
        cr_assert_geq(i, 0, "%s is not a parameter", switches[k]);
        set_param(i, 0);
        uint64_t off = bench_all(depth);
        set_param(i, 1);
        cr_expect_neq(off, all_on, "%s off: %llu nodes, the same as on", switches[k], (unsigned long long)off);
        /* Pruning and reductions shrink the tree (singular extensions grow it). */
        if (!sanitized() && strcmp(switches[k], "LbrEnabled") && strcmp(switches[k], "FhrEnabled") &&
            strcmp(switches[k], "SeEnabled"))
            cr_expect_gt(off, all_on, "%s off: %llu nodes, on: %llu", switches[k], (unsigned long long)off,
                         (unsigned long long)all_on);
    }
    cr_expect_eq(bench_all(depth), all_on, "switching back restores the search");
    /* The techniques that are off by default change the search when on. */
    static const char *off_by_default[] = {"CorrEnabled", "RazorEnabled", "ProbcutEnabled"};
    for (size_t k = 0; k < sizeof off_by_default / sizeof off_by_default[0]; k++) {
        int i = param_index(off_by_default[k]);
        cr_assert_geq(i, 0, "%s is not a parameter", off_by_default[k]);
        cr_assert_eq(param_get(i), 0, "%s is on by default", off_by_default[k]);
        set_param(i, 1);
        uint64_t on = bench_all(depth);
        set_param(i, 0);
        cr_expect_neq(on, all_on, "%s on: %llu nodes, the same as off", off_by_default[k], (unsigned long long)on);
    }
}

Test(search, out_of_range_values_are_rejected_and_kept)
{
    for (int i = 0; i < PARAM_COUNT; i++) {
        const ParamSpec *ps = &param_specs[i];
        char err[256] = "";
        cr_expect_eq(param_set(i, (long)ps->max + 1, err, sizeof err), -1, "%s accepted max+1", ps->name);
        cr_expect(strstr(err, ps->name) != NULL, "message names the parameter: %s", err);
        cr_expect_eq(param_set(i, (long)ps->min - 1, err, sizeof err), -1, "%s accepted min-1", ps->name);
        cr_expect_eq(param_get(i), ps->def, "%s changed by a rejected value", ps->name);
    }
    int values[PARAM_COUNT];
    for (int i = 0; i < PARAM_COUNT; i++)
        values[i] = param_specs[i].max;
    values[PARAM_COUNT - 1] = param_specs[PARAM_COUNT - 1].max + 1;
    char err[256];
    cr_expect_eq(params_set_all(values, err, sizeof err), -1);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(param_get(i), param_specs[i].def, "params_set_all applied part of a bad set");
}

Test(search, derived_tables_follow_their_parameters)
{
    int before = search_lmr_base(false, 10, 20);
    set_param(PARAM_ID_LmrQuietBase, LmrQuietBase + 100);
    cr_expect_eq(search_lmr_base(false, 10, 20), before + 100);
    set_param(PARAM_ID_LmrQuietDivisor, 450);
    cr_expect_lt(search_lmr_base(false, 10, 20), before + 100);

    int noisy = search_lmr_base(true, 10, 20);
    set_param(PARAM_ID_LmrNoisyBase, 0);
    cr_expect_eq(search_lmr_base(true, 10, 20), noisy - 20);

    set_param(PARAM_ID_LmpBase, 300);
    set_param(PARAM_ID_LmpScale, 100);
    cr_expect_eq(search_lmp_limit(false, 3), 12); /* (300 + 100 * 9) / 100 */
    set_param(PARAM_ID_LmpImprovingBase, 500);
    set_param(PARAM_ID_LmpImprovingScale, 50);
    cr_expect_eq(search_lmp_limit(true, 4), 13); /* (500 + 50 * 16) / 100 */
}

Test(search, names_are_unique_and_prefixed_by_technique)
{
    for (int i = 0; i < PARAM_COUNT; i++) {
        char group[32];
        param_group(i, group, sizeof group);
        cr_expect(strlen(group) >= 2 && strlen(group) < strlen(param_specs[i].name), "%s", param_specs[i].name);
        cr_expect_eq(param_index(param_specs[i].name), i, "%s is not unique", param_specs[i].name);
        cr_expect(param_specs[i].c_end >= 0.5, "%s: c_end below 0.5", param_specs[i].name);
        cr_expect(param_specs[i].r_end > 0, "%s", param_specs[i].name);
    }
    cr_expect_eq(param_index("lmrquietbase"), PARAM_ID_LmrQuietBase, "names match case-insensitively");
    cr_expect_eq(param_index("NoSuchParam"), -1);
}

Test(search, params_json_has_one_object_per_parameter)
{
    set_param(PARAM_ID_LmpBase, 250);
    char *text = params_spec_json();
    cr_assert_not_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(root);
    cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "params");
    cr_assert(cJSON_IsArray(list));
    cr_assert_eq(cJSON_GetArraySize(list), PARAM_COUNT);
    for (int i = 0; i < PARAM_COUNT; i++) {
        cJSON *o = cJSON_GetArrayItem(list, i);
        const ParamSpec *ps = &param_specs[i];
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")), ps->name);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "value")), param_get(i));
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "min")), ps->min);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "max")), ps->max);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "c_end")), ps->c_end);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "r_end")), ps->r_end);
    }
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(list, PARAM_ID_LmpBase), "value")), 250);
    cJSON_Delete(root);
}

Test(search, spsa_lines_follow_the_openbench_format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    params_print_spsa(f);
    fclose(f);
    int lines = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++) {
        char name[64], type[8];
        int value, lo, hi;
        double c_end, r_end;
        cr_assert_eq(sscanf(line, "%63[^,], %7[^,], %d, %d, %d, %lf, %lf", name, type, &value, &lo, &hi, &c_end,
                            &r_end),
                     7, "bad line: %s", line);
        cr_assert_lt(lines, PARAM_COUNT);
        const ParamSpec *ps = &param_specs[lines];
        cr_expect_str_eq(name, ps->name);
        cr_expect_str_eq(type, "int");
        cr_expect(value == ps->def && lo == ps->min && hi == ps->max, "%s", line);
        cr_expect(c_end == ps->c_end && r_end == ps->r_end, "%s", line);
    }
    cr_expect_eq(lines, PARAM_COUNT);
    free(buf);
}

/* ---- Evaluation ------------------------------------------------------------------ */

/* The colour-mirrored FEN: ranks reversed, colours and side swapped. */
static void mirror_fen(const char *fen, char *out, size_t cap)
{
    char board[128], side[4], castle[8], ep[4];
    int half = 0, full = 1;
    cr_assert(sscanf(fen, "%127s %3s %7s %3s %d %d", board, side, castle, ep, &half, &full) >= 4, "%s", fen);
    char *ranks[8];
    int n = 0;
    for (char *save = NULL, *r = strtok_r(board, "/", &save); r && n < 8; r = strtok_r(NULL, "/", &save))
        ranks[n++] = r;
    cr_assert_eq(n, 8);
    size_t len = 0;
    for (int i = 7; i >= 0; i--) {
        for (char *c = ranks[i]; *c; c++)
            out[len++] = isupper((unsigned char)*c) ? (char)tolower((unsigned char)*c) : (char)toupper((unsigned char)*c);
        out[len++] = i ? '/' : ' ';
    }
    char mc[8] = "";
    for (const char *c = castle; *c; c++) {
        size_t k = strlen(mc);
        mc[k] = *c == '-' ? '-' : isupper((unsigned char)*c) ? (char)tolower((unsigned char)*c) : (char)toupper((unsigned char)*c);
        mc[k + 1] = '\0';
    }
    /* Castling letters in the usual order KQkq. */
    char ordered[8] = "";
    size_t k = 0;
    for (const char *o = "KQkq"; *o; o++)
        if (strchr(mc, *o))
            ordered[k++] = *o;
    ordered[k] = '\0';
    char mep[4] = "-";
    if (ep[0] != '-')
        snprintf(mep, sizeof mep, "%c%c", ep[0], ep[1] == '3' ? '6' : '3');
    snprintf(out + len, cap - len, "%s %s %s %d %d", side[0] == 'w' ? "b" : "w", *ordered ? ordered : "-", mep,
             half, full);
}

Test(search, evaluation_is_colour_symmetric)
{
    Position *mirror = malloc(sizeof *mirror);
    cr_assert_not_null(mirror);
    for (int i = 0; i < bench_count; i++) {
        char fen[256], err[256];
        mirror_fen(bench_fens[i], fen, sizeof fen);
        load(bench_fens[i]);
        cr_assert_eq(pos_from_fen(mirror, fen, err, sizeof err), 0, "%s: %s", fen, err);
        cr_expect_eq(evaluate(pos), evaluate(mirror), "%s: %d, mirrored %s: %d", bench_fens[i], evaluate(pos), fen,
                     evaluate(mirror));
        cr_expect_eq(eval_threat(pos), eval_threat(mirror), "%s: threat", bench_fens[i]);
    }
    free(mirror);
}

/* Threat terms: the same knight, once attacked by a pawn and undefended,
 * once not; the pawn's square scores the same in the tables, and the
 * knight's mobility favours the attacked case by one square. */
Test(search, evaluation_counts_a_piece_attacked_by_a_pawn)
{
    load("4k3/2p5/8/3N4/8/8/3P4/4K3 w - - 0 1");
    int safe = evaluate(pos);
    load("4k3/8/2p5/3N4/8/8/3P4/4K3 w - - 0 1");
    int attacked = evaluate(pos);
    cr_expect_gt(safe - attacked, 30, "knight safe %d, attacked by a pawn %d", safe, attacked);
}

/* Passed pawn terms: a pawn on the sixth with the defending king far away
 * (free, safe path) against the king in front of it; the king's square
 * table alone favours the blockade by 30 cp. */
Test(search, evaluation_rewards_a_free_passed_pawn_far_from_the_king)
{
    load("k7/8/4P3/8/8/8/8/4K3 w - - 0 1");
    int free_path = evaluate(pos);
    load("4k3/8/4P3/8/8/8/8/4K3 w - - 0 1");
    int blockaded = evaluate(pos);
    cr_expect_gt(free_path - blockaded, 60, "free path %d, blockaded %d", free_path, blockaded);
}

/* Endings that material calls won but that are drawn: each against a
 * won twin that differs in the one thing the scaling looks at.  The
 * middlegame share stays unscaled (each minor piece is 1/24 of the phase:
 * two knights keep about 75 cp of it). */
Test(search, drawish_endings_are_scaled_down)
{
    static const struct {
        const char *drawn, *won, *what;
    } cases[] = {
        {"k7/P7/1BK5/8/8/8/8/8 w - - 0 1", "k7/P7/2K5/3B4/8/8/8/8 w - - 0 1", "rook pawn and the wrong bishop"},
        {"7k/8/7P/8/8/8/8/K7 w - - 0 1", "8/8/7P/8/8/8/8/K1k5 w - - 0 1", "rook pawn, the king in front"},
        {"8/8/8/4k3/8/8/8/KNN5 w - - 0 1", "8/8/8/4k3/8/8/8/KBN5 w - - 0 1", "two knights"},
        {"8/8/4k3/8/8/8/8/KRb5 w - - 0 1", "8/8/4k3/7p/8/8/8/KR6 w - - 0 1", "a rook against a bishop"},
        {"8/3k1p2/8/8/2B5/8/4PPP1/K3b3 w - - 0 1", "8/3k1p2/8/8/2B5/8/4PPP1/K2b4 w - - 0 1",
         "opposite-coloured bishops"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        load(cases[i].drawn);
        int drawn = evaluate(pos);
        load(cases[i].won);
        int won = evaluate(pos);
        cr_expect_lt(drawn, 100, "%s: %d (%s)", cases[i].what, drawn, cases[i].drawn);
        cr_expect_gt(won - drawn, 60, "%s: drawn %d, won twin %d (%s)", cases[i].what, drawn, won, cases[i].won);
    }
}

/* The fifty-move damping: a quiet position (no capture for the
 * quiescence search to try) is worth its static eval, shrunk by the count
 * as Rule50Plies says; switched off, the count changes nothing.  The
 * count is not in the hash key: the table is cleared between probes. */
Test(search, static_eval_is_damped_by_the_fifty_move_count)
{
    load("8/8/4k3/8/8/8/3PP3/4K3 w - - 0 1");
    int fresh = search_qsearch(searcher, pos);
    cr_assert_gt(fresh, 100);
    load("8/8/4k3/8/8/8/3PP3/4K3 w - - 80 1");
    tt_clear();
    int late = search_qsearch(searcher, pos);
    cr_expect_eq(late, fresh * (Rule50Plies - 80) / Rule50Plies, "count 0: %d, count 80: %d", fresh, late);
    int i = param_index("Rule50Enabled");
    cr_assert_geq(i, 0);
    set_param(i, 0);
    tt_clear();
    int undamped = search_qsearch(searcher, pos);
    set_param(i, 1);
    cr_expect_eq(undamped, fresh);
}

Test(search, threat_is_the_most_valuable_piece_in_danger)
{
    load("4k3/8/8/3q4/4P3/8/8/4K3 b - - 0 1"); /* a pawn attacks Black's queen */
    cr_expect_eq(eval_threat(pos), piece_value[QUEEN]);
    load("4k3/8/8/3n4/8/8/8/3RK3 b - - 0 1"); /* an undefended knight attacked by a rook */
    cr_expect_eq(eval_threat(pos), piece_value[KNIGHT]);
    load("4k3/8/4p3/3n4/8/8/8/3RK3 b - - 0 1"); /* defended, attacked by a dearer piece */
    cr_expect_eq(eval_threat(pos), 0);
    load(START_FEN);
    cr_expect_eq(eval_threat(pos), 0);
}

/* ---- Bench ---------------------------------------------------------------------- */

/* The pinned signature: tests/bench_signature.txt holds the node count of
 * `bench` at the default depth with the default parameters. */
static uint64_t pinned_signature(void)
{
    FILE *f = fopen("tests/bench_signature.txt", "r");
    cr_assert_not_null(f, "tests/bench_signature.txt is missing");
    char line[256];
    unsigned long long sig = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        if (line[0] != '#')
            found = sscanf(line, "%llu", &sig) == 1;
    fclose(f);
    cr_assert(found, "no number in tests/bench_signature.txt");
    return sig;
}

Test(search, bench_signature_is_pinned)
{
    BenchResult r;
    cr_assert_eq(bench_run(bench_fens, bench_count, BENCH_DEFAULT_DEPTH, NULL, &r), 0);
    cr_expect_eq(r.nodes, pinned_signature(),
                 "bench signature %llu differs from the pinned %llu: if the search change is intended, "
                 "update tests/bench_signature.txt in a commit that says why",
                 (unsigned long long)r.nodes, (unsigned long long)pinned_signature());
}

Test(search, bench_is_deterministic)
{
    static const char *const two[] = {START_FEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"};
    BenchResult a, b;
    cr_assert_eq(bench_run(two, 2, 8, NULL, &a), 0);
    /* Search something else in between: bench must not depend on it. */
    load(bench_fens[20]);
    search_depth(7);
    cr_assert_eq(bench_run(two, 2, 8, NULL, &b), 0);
    cr_expect_eq(a.nodes, b.nodes);
}

Test(search, bench_rejects_a_bad_position)
{
    static const char *const bad[] = {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"};
    BenchResult r;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_expect_eq(bench_run(bad, 1, 3, f, &r), -1);
    fclose(f);
    cr_expect(strstr(buf, "position 1") != NULL, "message names the position: %s", buf);
    free(buf);
}

/* ---- Transposition table ------------------------------------------------------------ */

Test(search, tt_adjusts_mate_scores_to_the_probing_ply)
{
    cr_assert_eq(tt_resize(1), 0);
    uint64_t key = 0x123456789abcdefULL;
    TTHit hit;
    cr_expect(!tt_probe(key, 0, &hit), "an empty table has no entry");
    /* Mate in 10 plies from the root, found at ply 4: 6 plies from the node. */
    tt_store(key, 4, MOVE_NONE, SCORE_MATE - 10, 15, 7, BOUND_EXACT);
    cr_assert(tt_probe(key, 2, &hit));
    cr_expect_eq(hit.score, SCORE_MATE - 8, "reached at ply 2 it is a mate in 8 from the root");
    cr_expect_eq(hit.eval, 15);
    cr_expect_eq(hit.depth, 7);
    cr_expect_eq(hit.bound, BOUND_EXACT);
    tt_store(key, 3, MOVE_NONE, -SCORE_MATE + 9, 15, 7, BOUND_UPPER);
    cr_assert(tt_probe(key, 5, &hit));
    cr_expect_eq(hit.score, -SCORE_MATE + 11);
    tt_store(key, 3, MOVE_NONE, 42, 15, 7, BOUND_LOWER);
    cr_assert(tt_probe(key, 9, &hit));
    cr_expect_eq(hit.score, 42, "ordinary scores are not adjusted");
}

Test(search, tt_keeps_the_move_and_deeper_results)
{
    cr_assert_eq(tt_resize(1), 0);
    load(START_FEN);
    Move e4 = parse_uci(pos, "e2e4");
    uint64_t key = pos_key(pos);
    TTHit hit;
    tt_store(key, 0, e4, 20, 10, 12, BOUND_LOWER);
    tt_store(key, 0, MOVE_NONE, 5, 10, 3, BOUND_UPPER);
    cr_assert(tt_probe(key, 0, &hit));
    cr_expect_eq(hit.move, e4, "a result without a move keeps the stored move");
    cr_expect_eq(hit.depth, 12, "a much shallower bound does not replace a deeper result");
    tt_store(key, 0, MOVE_NONE, 7, 10, 4, BOUND_EXACT);
    cr_assert(tt_probe(key, 0, &hit));
    cr_expect(hit.depth == 4 && hit.score == 7 && hit.move == e4, "an exact result replaces it");

    cr_expect_leq(tt_hashfull(), 1, "one entry is at most one permille");
    for (uint64_t k = 1; k < 200000; k++)
        tt_store(k * 0x9E3779B97F4A7C15ULL, 0, MOVE_NONE, 0, 0, 1, BOUND_EXACT);
    cr_expect_gt(tt_hashfull(), 500, "hashfull %d after filling the table", tt_hashfull());
    tt_clear();
    cr_expect_eq(tt_hashfull(), 0);
    cr_expect(!tt_probe(key, 0, &hit));
}
