/* The rules library: perft counts, incremental keys, FEN, notation, draws. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "helpers.h"

static Position *pos;

static void setup(void)
{
    rules_init();
    pos = malloc(sizeof *pos);
}

static void teardown(void) { free(pos); }

static const char *data_dir(void)
{
    const char *d = getenv("RATCHET_SHARED_DATA");
    return d ? d : "../shared/data";
}

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") != 0;
}

/* Runs every "D<n> <count>" of every line of an EPD file up to a node budget. */
static void perft_file(const char *name, uint64_t budget)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/%s", data_dir(), name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    int lines = 0, checks = 0;
    while (fgets(line, sizeof line, f)) {
        char *semi = strchr(line, ';');
        if (!semi)
            continue;
        *semi = '\0';
        char err[128];
        cr_assert_eq(pos_from_fen(pos, line, err, sizeof err), 0, "%s: %s", line, err);
        lines++;
        for (char *t = strtok(semi + 1, ";"); t; t = strtok(NULL, ";")) {
            int depth;
            unsigned long long expect;
            char *c = t;
            int used;
            while (sscanf(c, " D%d %llu%n", &depth, &expect, &used) == 2) {
                c += used;
                if (expect > budget)
                    continue;
                uint64_t got = perft(pos, depth);
                cr_expect_eq(got, expect, "%s depth %d: %llu, expected %llu", line, depth,
                             (unsigned long long)got, expect);
                checks++;
            }
        }
    }
    fclose(f);
    cr_assert_gt(lines, 0, "%s has no positions", path);
    cr_assert_gt(checks, lines, "too few counts checked in %s", path);
}

static uint64_t perft_budget(void)
{
    if (env_on("RATCHET_LONG"))
        return UINT64_MAX;
    return env_on("RATCHET_SANITIZED") ? 300000 : 20000000;
}

TestSuite(rules, .init = setup, .fini = teardown);

Test(rules, perft_standard, .timeout = 600) { perft_file("perft-standard.epd", perft_budget()); }
Test(rules, perft_random, .timeout = 600) { perft_file("perft-random.epd", perft_budget()); }

/* Walks the tree checking the incremental key, gives_check (both forms)
 * and unmake. */
static void walk(int depth, uint64_t *visited)
{
    MoveList l;
    gen_legal(pos, &l, GEN_ALL);
    cr_assert_eq(pos_key(pos), pos_compute_key(pos), "incremental key differs from scratch");
    if (depth == 0)
        return;
    char before[128];
    pos_to_fen(pos, before, sizeof before);
    CheckInfo ci;
    check_info_init(pos, &ci);
    for (int i = 0; i < l.count; i++) {
        bool gc = pos_gives_check(pos, l.moves[i]), fast = pos_gives_check_fast(pos, &ci, l.moves[i]);
        pos_make(pos, l.moves[i]);
        (*visited)++;
        cr_assert_eq(gc, pos_in_check(pos), "gives_check wrong for a move in %s", before);
        cr_assert_eq(fast, gc, "gives_check_fast wrong for a move in %s", before);
        walk(depth - 1, visited);
        pos_unmake(pos);
    }
    char after[128];
    pos_to_fen(pos, after, sizeof after);
    cr_assert_str_eq(before, after, "unmake did not restore the position");
}

/* Sets pos to each position of the two perft files in turn and calls
 * visit(arg) there. */
static void each_perft_position(void (*visit)(void *), void *arg)
{
    const char *files[] = {"perft-standard.epd", "perft-random.epd"};
    for (int fi = 0; fi < 2; fi++) {
        char path[512], line[512];
        snprintf(path, sizeof path, "%s/%s", data_dir(), files[fi]);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "cannot open %s", path);
        while (fgets(line, sizeof line, f)) {
            char *semi = strchr(line, ';');
            if (semi)
                *semi = '\0';
            if (pos_from_fen(pos, line, NULL, 0) != 0)
                continue;
            visit(arg);
        }
        fclose(f);
    }
}

static void walk3(void *visited) { walk(3, visited); }

Test(rules, zobrist_incremental_depth3, .timeout = 600)
{
    uint64_t visited = 0;
    each_perft_position(walk3, &visited);
    cr_assert_gt(visited, 100000);
}

/* pos_is_legal (which generates only the moves of the piece on the move's
 * from square) accepts exactly the generator's moves: every encoding of a
 * move by a piece of the side to move, at the files' positions and one ply
 * past them. */
static int is_legal_agrees(void)
{
    MoveList l;
    gen_legal(pos, &l, GEN_ALL);
    char fen[128];
    pos_to_fen(pos, fen, sizeof fen);
    int checked = 0;
    Bitboard own = pos->by_color[pos->side];
    while (own) {
        int from = bb_pop(&own);
        for (int to = 0; to < 64; to++)
            for (int flag = 0; flag < 16; flag++) {
                Move m = move_make(from, to, flag);
                bool listed = false;
                for (int i = 0; i < l.count && !listed; i++)
                    listed = l.moves[i] == m;
                char mv[8];
                move_to_uci(m, mv);
                cr_assert_eq(pos_is_legal(pos, m), listed, "%s: %s flag %d: pos_is_legal says %d", fen, mv,
                             flag, !listed);
                checked++;
            }
    }
    return checked;
}

/* is_legal_agrees at the position and after each of its moves. */
static void is_legal_agrees_one_ply(void *checked)
{
    *(long *)checked += is_legal_agrees();
    MoveList l;
    gen_legal(pos, &l, GEN_ALL);
    for (int i = 0; i < l.count; i++) {
        pos_make(pos, l.moves[i]);
        *(long *)checked += is_legal_agrees();
        pos_unmake(pos);
    }
}

Test(rules, is_legal_matches_the_generator, .timeout = 600)
{
    long checked = 0;
    each_perft_position(is_legal_agrees_one_ply, &checked);
    cr_assert_gt(checked, 1000000);
}

Test(rules, fen_round_trip)
{
    const char *fens[] = {
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2R b K - 37 80",
    };
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++) {
        char out[128];
        cr_assert_eq(pos_from_fen(pos, fens[i], NULL, 0), 0, "%s", fens[i]);
        pos_to_fen(pos, out, sizeof out);
        cr_expect_str_eq(out, fens[i]);
    }
}

Test(rules, fen_without_counters_and_useless_ep)
{
    char out[128];
    cr_assert_eq(pos_from_fen(pos, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3", NULL, 0), 0);
    pos_to_fen(pos, out, sizeof out);
    /* No black pawn can take on e3, so the square is not kept (nor hashed). */
    cr_expect_str_eq(out, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

Test(rules, fen_rejections_leave_position_untouched)
{
    static const struct { const char *fen, *needle; } bad[] = {
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "bad piece letter 'X'"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 squares"},
        {"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 squares"},
        {"rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 squares"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "White has 2 kings"},
        {"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "Black has 0 kings"},
        {"rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"},
        {"4k3/8/8/8/8/8/8/4K2R w KQ - 0 1", "castling right 'Q' without the rook"},
        {"4k3/8/8/8/8/8/8/3K3R w K - 0 1", "castling right 'K' without the king"},
        {"4k3/8/8/8/8/8/8/4K2R w KK - 0 1", "given twice"},
        {"4k3/8/8/8/8/8/8/4K2R w Kx - 0 1", "bad castling field"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en passant square e6 is impossible"},
        {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1", "impossible"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "bad en passant square"},
        {"4k3/8/8/8/8/8/8/4K2R w - - 0 1 ", NULL}, /* valid: trailing space */
        {"4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "the side not to move (Black) is in check"},
        {"4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or eighth rank"},
        {"4k3/8/8/8/8/8/8/4K3 w - - -1 1", "halfmove"},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 z", "fullmove"},
        {"", "0 fields"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[160] = "";
        pos_startpos(pos);
        int rc = pos_from_fen(pos, bad[i].fen, err, sizeof err);
        if (!bad[i].needle) {
            cr_expect_eq(rc, 0, "'%s' rejected: %s", bad[i].fen, err);
            continue;
        }
        cr_expect_eq(rc, -1, "'%s' accepted", bad[i].fen);
        cr_expect(strstr(err, bad[i].needle) != NULL, "'%s': message '%s' lacks '%s'", bad[i].fen, err, bad[i].needle);
        char fen[128];
        pos_to_fen(pos, fen, sizeof fen);
        cr_expect_str_eq(fen, START_FEN, "a rejected FEN changed the position");
    }
}

Test(rules, en_passant_discovered_check_on_rank)
{
    /* Taking en passant would expose the king on the fifth rank to the rook. */
    cr_assert_eq(pos_from_fen(pos, "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", NULL, 0), 0);
    cr_expect_eq(parse_uci(pos, "e5d6"), MOVE_NONE);
    cr_assert_eq(pos_from_fen(pos, "8/8/8/K2pP3/8/8/8/7k w - d6 0 1", NULL, 0), 0);
    cr_expect_neq(parse_uci(pos, "e5d6"), MOVE_NONE);
}

Test(rules, castling_through_check)
{
    /* The black rook on f8 covers f1: no short castling; long is fine. */
    cr_assert_eq(pos_from_fen(pos, "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", NULL, 0), 0);
    cr_expect_eq(parse_uci(pos, "e1g1"), MOVE_NONE);
    cr_expect_neq(parse_uci(pos, "e1c1"), MOVE_NONE);
    /* b1 attacked does not stop long castling; d1 does. */
    cr_assert_eq(pos_from_fen(pos, "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", NULL, 0), 0);
    cr_expect_neq(parse_uci(pos, "e1c1"), MOVE_NONE);
    cr_assert_eq(pos_from_fen(pos, "3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1", NULL, 0), 0);
    cr_expect_eq(parse_uci(pos, "e1c1"), MOVE_NONE);
}

Test(rules, promotions_to_all_four)
{
    cr_assert_eq(pos_from_fen(pos, "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", NULL, 0), 0);
    const char *ok[] = {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"};
    for (size_t i = 0; i < 6; i++)
        cr_expect_neq(parse_uci(pos, ok[i]), MOVE_NONE, "%s", ok[i]);
    cr_expect_eq(parse_uci(pos, "a7a8"), MOVE_NONE, "promotion without a piece");
    cr_expect_eq(parse_uci(pos, "a7a8k"), MOVE_NONE);
}

Test(rules, san_round_trip_over_a_tree)
{
    cr_assert_eq(pos_from_fen(pos, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", NULL, 0), 0);
    MoveList l;
    gen_legal(pos, &l, GEN_ALL);
    for (int i = 0; i < l.count; i++) {
        char san[16];
        move_to_san(pos, l.moves[i], san);
        cr_expect_eq(parse_san(pos, san), l.moves[i], "SAN %s does not parse back", san);
        pos_make(pos, l.moves[i]);
        MoveList r;
        gen_legal(pos, &r, GEN_ALL);
        for (int j = 0; j < r.count; j++) {
            move_to_san(pos, r.moves[j], san);
            cr_expect_eq(parse_san(pos, san), r.moves[j], "SAN %s does not parse back", san);
        }
        pos_unmake(pos);
    }
}

Test(rules, san_forms)
{
    pos_startpos(pos);
    char san[16];
    Move m = parse_san(pos, "Nf3");
    cr_assert_neq(m, MOVE_NONE);
    move_to_san(pos, m, san);
    cr_expect_str_eq(san, "Nf3");
    cr_expect_eq(parse_san(pos, "Ng1f3"), m, "long form");
    cr_expect_eq(parse_san(pos, "Ng1-f3"), m, "long form with dash");
    cr_expect_eq(parse_san(pos, "Nf6"), MOVE_NONE, "not a legal square");
    cr_expect_eq(parse_san(pos, "e5"), MOVE_NONE);
    cr_expect_eq(parse_san(pos, "Zz9"), MOVE_NONE);

    /* Disambiguation by file and by rank, checks and mate. */
    cr_assert_eq(pos_from_fen(pos, "k7/8/8/1R6/8/8/8/KR6 w - - 0 1", NULL, 0), 0);
    move_to_san(pos, parse_uci(pos, "b1b3"), san);
    cr_expect_str_eq(san, "R1b3");
    cr_assert_eq(pos_from_fen(pos, "7k/8/8/8/8/8/8/R5RK w - - 0 1", NULL, 0), 0);
    move_to_san(pos, parse_uci(pos, "a1d1"), san);
    cr_expect_str_eq(san, "Rad1");
    cr_assert_eq(pos_from_fen(pos, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", NULL, 0), 0);
    move_to_san(pos, parse_uci(pos, "a1a8"), san);
    cr_expect_str_eq(san, "Ra8#");
    cr_expect_eq(parse_san(pos, "Ra8"), parse_uci(pos, "a1a8"));
    cr_assert_eq(pos_from_fen(pos, "r3k3/8/8/8/8/8/8/4K3 b q - 0 1", NULL, 0), 0);
    move_to_san(pos, parse_uci(pos, "e8c8"), san);
    cr_expect_str_eq(san, "O-O-O");
    cr_expect_eq(parse_san(pos, "0-0-0"), parse_uci(pos, "e8c8"));
    cr_assert_eq(pos_from_fen(pos, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", NULL, 0), 0);
    move_to_san(pos, parse_uci(pos, "b7b8q"), san);
    cr_expect_str_eq(san, "b8=Q+");
    cr_expect_eq(parse_san(pos, "b8Q"), parse_uci(pos, "b7b8q"));
    cr_expect_eq(parse_san(pos, "b8=N"), parse_uci(pos, "b7b8n"));
}

static void play(const char *uci)
{
    Move m = parse_uci(pos, uci);
    cr_assert_neq(m, MOVE_NONE, "illegal %s", uci);
    pos_make(pos, m);
}

Test(rules, threefold_and_fifty)
{
    pos_startpos(pos);
    const char *shuffle[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 4; i++)
            play(shuffle[i]);
    cr_expect_eq(pos_repetitions(pos), 2, "start position seen twice before");
    cr_expect(pos_repeated_within(pos, 4));
    cr_expect_not(pos_repeated_within(pos, 3));
    play("e2e4"); /* irreversible: the window closes */
    cr_expect_eq(pos_repetitions(pos), 0);

    cr_assert_eq(pos_from_fen(pos, "4k3/8/8/8/8/8/8/R3K3 w - - 99 80", NULL, 0), 0);
    cr_expect_not(pos_fifty(pos));
    play("a1a2");
    cr_expect(pos_fifty(pos));
    pos_unmake(pos);
    play("e1d2");
    cr_expect(pos_fifty(pos));
}

/* A game longer than the history, trimmed whenever it is full (and, in a
 * second copy, after every move): the key, the repetition count and the
 * search-path check agree at every ply with a count over all the game's
 * keys within the fifty-move window. */
Test(rules, trimmed_history_keeps_what_the_draw_rules_read)
{
    static uint64_t keys[LONG_GAME_PLIES + 1];
    static Position every;
    pos_startpos(pos);
    pos_startpos(&every);
    keys[0] = pos_key(pos);
    int trims = 0;
    for (int ply = 1; ply <= LONG_GAME_PLIES; ply++) {
        char mv[8];
        long_game_move(ply - 1, mv);
        if (!pos_has_room(pos)) {
            pos_trim_history(pos);
            trims++;
        }
        Move m = parse_uci(pos, mv);
        cr_assert_neq(m, MOVE_NONE, "ply %d: %s is not legal", ply, mv);
        pos_make(pos, m);
        pos_make(&every, parse_uci(&every, mv));
        pos_trim_history(&every);
        keys[ply] = pos_key(pos);
        cr_assert_eq(pos_key(pos), pos_compute_key(pos), "ply %d", ply);
        cr_assert_eq(pos_key(&every), keys[ply], "ply %d", ply);
        int want = 0;
        bool within = false;
        for (int back = 4; back <= pos_halfmove(pos) && back <= ply; back += 2)
            if (keys[ply - back] == keys[ply]) {
                want++;
                within |= back <= 9;
            }
        cr_assert_eq(pos_repetitions(pos), want, "ply %d (%s): repetitions", ply, mv);
        cr_assert_eq(pos_repetitions(&every), want, "ply %d (%s): repetitions, trimmed each ply", ply, mv);
        cr_assert_eq(pos_repeated_within(pos, 9), within, "ply %d", ply);
        cr_assert_eq(pos_repeated_within(&every, 9), within, "ply %d, trimmed each ply", ply);
        cr_assert_eq(pos_last_move(&every, 2), pos_last_move(pos, 2), "ply %d", ply);
    }
    cr_expect_gt(trims, 0, "the game never filled the history");
    char fen[128];
    pos_to_fen(pos, fen, sizeof fen);
    cr_expect_str_eq(fen, LONG_GAME_FEN);

    /* A clock past the cap is held there and never wraps. */
    cr_assert_eq(pos_from_fen(pos, "4k3/8/8/8/8/8/8/R3K3 w - - 9990 80", NULL, 0), 0);
    static const char *const rook[4] = {"a1a2", "e8d8", "a2a1", "d8e8"};
    for (int i = 0; i < 70000; i++) {
        if (!pos_has_room(pos))
            pos_trim_history(pos);
        pos_make(pos, parse_uci(pos, rook[i % 4]));
        cr_assert_geq(pos_halfmove(pos), 100, "move %d: the fifty-move clock wrapped to %d", i, pos_halfmove(pos));
    }
    cr_expect(pos_fifty(pos));
    cr_expect_geq(pos_repetitions(pos), HISTORY_MAX_KEEP / 4 - 1);
}

Test(rules, null_move_breaks_repetition)
{
    pos_startpos(pos);
    play("g1f3");
    pos_make_null(pos);
    play("f3g1");
    pos_make_null(pos);
    cr_expect_eq(pos_key(pos), pos_compute_key(pos));
    cr_expect_eq(pos_repetitions(pos), 0);
    pos_unmake_null(pos);
    pos_unmake(pos);
    pos_unmake_null(pos);
    pos_unmake(pos);
    cr_expect_eq(pos_key(pos), pos_compute_key(pos));
}

Test(rules, insufficient_material)
{
    static const struct { const char *fen; bool dead; } cases[] = {
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true},
        {"4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", true},   /* both bishops on dark squares */
        {"4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", false}, /* opposite colours */
        {"4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/4K2R w - - 0 1", false},
        {"4k3/p7/8/8/8/8/8/4K3 w - - 0 1", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(pos_from_fen(pos, cases[i].fen, NULL, 0), 0, "%s", cases[i].fen);
        cr_expect_eq(pos_insufficient_material(pos), cases[i].dead, "%s", cases[i].fen);
    }
}

#include "magics.inc"

/* Start-up uses the committed magics as they are: none had to be searched
 * again (which would cost a third of a second at every engine start). */
Test(rules, committed_magics_are_valid)
{
    Bitboard bishop[64], rook[64];
    attacks_magics(bishop, rook);
    for (int sq = 0; sq < 64; sq++) {
        cr_expect_eq(bishop[sq], known_bishop_magics[sq], "bishop magic of square %d was searched again", sq);
        cr_expect_eq(rook[sq], known_rook_magics[sq], "rook magic of square %d was searched again", sq);
    }
}
