/* Opening books: EPD and PGN loading, warnings for bad input, the order of
 * use.  Fixtures are in tests/data/book/; the expected FENs below were worked
 * out by hand from the moves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "board.h"
#include "book.h"
#include "helpers.h"

#define DIR "tests/data/book/"

static void setup(void) { rules_init(); }

TestSuite(book, .init = setup, .timeout = 30);

/* book_load with stderr captured into out[]. */
static Book *load_capture(const char *path, const char *format, int plies, char *err, size_t errlen, char *out,
                          size_t outlen)
{
    StderrCapture c;
    stderr_capture_begin(&c);
    Book *b = book_load(path, format, plies, err, errlen);
    stderr_capture_end(&c, out, outlen);
    return b;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Asserts that the captured warnings hold exactly the given "FILE:LINE: "
 * prefixes, one warning each, and that each mentions `words[i]`. */
static void expect_warnings(const char *out, const char *file, const int *lines, const char *const *words, int n)
{
    cr_assert_eq(count_lines(out), n, "expected %d warnings, got:\n%s", n, out);
    for (int i = 0; i < n; i++) {
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%s:%d: ", file, lines[i]);
        const char *at = strstr(out, prefix);
        cr_assert_not_null(at, "no warning for %s in:\n%s", prefix, out);
        const char *eol = strchr(at, '\n');
        char msg[512];
        snprintf(msg, sizeof msg, "%.*s", (int)(eol - at), at);
        cr_assert_not_null(strstr(msg, words[i]), "warning '%s' should mention '%s'", msg, words[i]);
    }
}

static void expect_fens(const Book *b, const char *const *fens, size_t n)
{
    cr_assert_eq(book_size(b), n, "book has %zu positions, expected %zu", book_size(b), n);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(book_fen(b, i), fens[i], "position %zu", i);
}

static const char *const E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
static const char *const D4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
static const char *const E4E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

Test(book, epd_variants)
{
    static const char *const want[] = {
        START_FEN,
        E4, /* four fields; e3 cannot be taken, so no en passant square */
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1", /* c0 "..;.." id */
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", /* ; D1 .. */
        "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",   /* hmvc, fmvn */
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 5 20",
        START_FEN, /* duplicates are kept */
        D4,        /* CRLF line end */
    };
    char err[256], out[4096];
    Book *b = load_capture(DIR "valid.epd", "epd", 0, err, sizeof err, out, sizeof out);
    cr_assert_not_null(b, "%s", err);
    cr_assert_str_empty(out, "no warnings expected, got:\n%s", out);
    expect_fens(b, want, sizeof want / sizeof *want);
    book_free(b);
}

Test(book, epd_bad_lines_are_reported_and_skipped)
{
    static const char *const want[] = {START_FEN, E4, "8/8/8/4k3/8/8/8/4K3 w - - 0 1"};
    static const int lines[] = {3, 4, 5, 6, 7, 9, 10, 11};
    static const char *const words[] = {"ranks", "piece letter", "side to move", "found 2 fields",
                                        "kings",  "checkmate",    "stalemate",    "en passant"};
    char err[256], out[4096];
    Book *b = load_capture(DIR "broken.epd", "epd", 0, err, sizeof err, out, sizeof out);
    cr_assert_not_null(b, "%s", err);
    expect_fens(b, want, 3);
    expect_warnings(out, DIR "broken.epd", lines, words, 8);
    book_free(b);
}

Test(book, empty_and_missing_files)
{
    char err[256], out[4096];
    Book *b = load_capture(DIR "empty.epd", "epd", 0, err, sizeof err, out, sizeof out);
    cr_assert_null(b);
    cr_assert_not_null(strstr(err, DIR "empty.epd"), "%s", err);
    cr_assert_not_null(strstr(err, "no usable opening"), "%s", err);

    b = load_capture(DIR "no-such-file.epd", "epd", 0, err, sizeof err, out, sizeof out);
    cr_assert_null(b);
    cr_assert_not_null(strstr(err, DIR "no-such-file.epd: cannot open"), "%s", err);

    b = load_capture(DIR "no-such-file.pgn", "pgn", 0, err, sizeof err, out, sizeof out);
    cr_assert_null(b);
    cr_assert_not_null(strstr(err, "no-such-file.pgn"), "%s", err);

    /* An EPD read as PGN: every "move" is unreadable, nothing is usable. */
    b = load_capture(DIR "broken.epd", "pgn", 0, err, sizeof err, out, sizeof out);
    cr_assert_null(b);
    cr_assert_not_null(strstr(err, "no usable opening"), "%s", err);
}

Test(book, bad_arguments)
{
    char err[256];
    cr_assert_null(book_load(DIR "valid.epd", "fen", 0, err, sizeof err));
    cr_assert_not_null(strstr(err, "unknown openings format 'fen'"), "%s", err);
    cr_assert_null(book_load(DIR "openings.pgn", "pgn", -1, err, sizeof err));
    cr_assert_not_null(strstr(err, "plies"), "%s", err);
}

static const char *const OPENINGS[] = {
    /* 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 */
    "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4",
    /* 1. d4 d5 2. c4 e6 3. Nc3 Nf6 (comments, variations, NAGs skipped) */
    "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    /* from r3k2r/8/8/8/8/8/8/R3K2R: 1. 0-0 O-O-O 2. Rfe1 */
    "2kr3r/8/8/8/8/8/8/R3R1K1 b - - 3 2",
    /* from 1. e4: 1... c5 2. Nf3 d6 */
    "rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3",
    /* 1.e4 Nf6 2.e5! d5!?: d6 can be taken en passant */
    "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
};

Test(book, pgn_movetext_features)
{
    char err[256], out[4096];
    Book *b = load_capture(DIR "openings.pgn", "pgn", 0, err, sizeof err, out, sizeof out);
    cr_assert_not_null(b, "%s", err);
    cr_assert_str_empty(out, "no warnings expected, got:\n%s", out);
    expect_fens(b, OPENINGS, 5);
    book_free(b);
}

Test(book, pgn_and_epd_of_the_same_openings_agree)
{
    char err[256];
    Book *p = book_load(DIR "openings.pgn", NULL, 0, err, sizeof err); /* format from the name */
    cr_assert_not_null(p, "%s", err);
    Book *e = book_load(DIR "openings.epd", NULL, 0, err, sizeof err);
    cr_assert_not_null(e, "%s", err);
    cr_assert_eq(book_size(p), book_size(e));
    for (size_t i = 0; i < book_size(p); i++)
        cr_assert_str_eq(book_fen(p, i), book_fen(e, i), "opening %zu", i);
    book_free(p);
    book_free(e);
}

Test(book, pgn_plies_limit)
{
    static const char *const want[] = {
        E4E5,
        "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
        "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2",
    };
    char err[256];
    Book *b = book_load(DIR "openings.pgn", "pgn", 2, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    expect_fens(b, want, 5);
    book_free(b);

    /* More plies than the games have: the whole game. */
    b = book_load(DIR "openings.pgn", "pgn", 40, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    expect_fens(b, OPENINGS, 5);
    book_free(b);
}

Test(book, pgn_bad_games)
{
    static const char *const want[] = {
        E4E5, "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1", D4};
    static const int lines[] = {4, 9, 13, 18, 26, 28};
    static const char *const words[] = {"'Ke3' at ply 3; keeping the position before it",
                                        "'e5' at its first ply; game skipped",
                                        "bad FEN tag",
                                        "checkmate",
                                        "variation never closed",
                                        "no result before the next game's tags"};
    char err[256], out[4096];
    Book *b = load_capture(DIR "broken.pgn", "pgn", 0, err, sizeof err, out, sizeof out);
    cr_assert_not_null(b, "%s", err);
    expect_fens(b, want, 3);
    expect_warnings(out, DIR "broken.pgn", lines, words, 6);
    book_free(b);
}

Test(book, pgn_setup_tags_and_game_boundaries)
{
    static const char *const want[] = {
        "4k3/8/8/8/8/8/3KP3/8 b - - 1 1",                                    /* FEN without SetUp */
        E4,                                                                 /* SetUp "0" */
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",                                    /* tags only */
        "rnbqkbnr/pp1ppppp/8/2p5/2P5/8/PP1PPPPP/RNBQKBNR w KQkq - 0 2",     /* no result */
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1",       /* at end of file */
    };
    static const int lines[] = {20};
    static const char *const words[] = {"no result"};
    char err[256], out[4096];
    Book *b = load_capture(DIR "setup.pgn", "pgn", 0, err, sizeof err, out, sizeof out);
    cr_assert_not_null(b, "%s", err);
    expect_fens(b, want, 5);
    expect_warnings(out, DIR "setup.pgn", lines, words, 1);
    book_free(b);
}

static void order_of(const Book *b, size_t *out, size_t n)
{
    for (size_t k = 0; k < n; k++)
        out[k] = book_pick(b, k);
}

Test(book, sequential_order_and_start)
{
    char err[256];
    Book *b = book_load(DIR "first-moves.epd", "epd", 0, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    cr_assert_eq(book_size(b), 20);
    for (uint64_t k = 0; k < 45; k++)
        cr_assert_eq(book_pick(b, k), k % 20, "default order is the file's");
    book_set_order(b, false, 0, 3);
    cr_assert_eq(book_pick(b, 0), 3);
    cr_assert_eq(book_pick(b, 16), 19);
    cr_assert_eq(book_pick(b, 17), 0, "wraps around");
    book_set_order(b, false, 0, 43); /* start beyond the end wraps too */
    cr_assert_eq(book_pick(b, 0), 3);
    cr_assert_eq(book_pick(b, UINT64_MAX), (size_t)((UINT64_MAX % 20 + 3) % 20));
    book_free(b);
}

Test(book, random_order_is_a_reproducible_permutation)
{
    char err[256];
    Book *b = book_load(DIR "first-moves.epd", "epd", 0, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    size_t n = book_size(b), a[20], c[20], d[20];

    book_set_order(b, true, 42, 0);
    order_of(b, a, n);
    bool seen[20] = {false}, identity = true;
    for (size_t k = 0; k < n; k++) {
        cr_assert(a[k] < n);
        cr_assert(!seen[a[k]], "index %zu drawn twice", a[k]);
        seen[a[k]] = true;
        identity &= a[k] == k;
        cr_assert_eq(book_pick(b, k + n), a[k], "wraps around");
    }
    cr_assert(!identity, "a shuffle of 20 is not the identity for this seed");

    /* Same seed, fresh book: same order.  Another seed: another order. */
    Book *b2 = book_load(DIR "first-moves.epd", "epd", 0, err, sizeof err);
    book_set_order(b2, true, 42, 0);
    order_of(b2, c, n);
    cr_assert_arr_eq(a, c, sizeof a);
    book_set_order(b2, true, 43, 0);
    order_of(b2, d, n);
    cr_assert_arr_neq(a, d, sizeof a);

    /* start skips the first entries of the same permutation. */
    book_set_order(b, true, 42, 5);
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(book_pick(b, k), a[(k + 5) % n]);

    /* Back to sequential. */
    book_set_order(b, false, 42, 0);
    cr_assert_eq(book_pick(b, 7), 7);
    book_free(b);
    book_free(b2);
}

Test(book, picks_address_the_right_positions)
{
    char err[256];
    Book *b = book_load(DIR "first-moves.epd", "epd", 0, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    book_set_order(b, true, 7, 0);
    /* Every FEN is one ply from the start position, Black to move, and the
     * twenty picks cover the twenty different positions. */
    for (size_t k = 0; k < 20; k++) {
        const char *f = book_fen(b, book_pick(b, k));
        cr_assert_not_null(strstr(f, " b KQkq - "), "%s", f);
        for (size_t j = 0; j < k; j++)
            cr_assert_str_neq(f, book_fen(b, book_pick(b, j)));
    }
    cr_assert_null(book_fen(b, 20));
    book_free(b);
}

/* Damaged files: random bytes overwritten, inserted or cut in the fixtures.
 * Whatever survives must load without a crash (ASan watches in the
 * sanitizer build), and every position the book holds must be a valid FEN. */
Test(book, damaged_files_are_survived)
{
    static const char *const files[] = {"openings.pgn", "broken.pgn", "setup.pgn", "valid.epd", "broken.epd"};
    static const char noise[] = "[]{}()\";%$.!?*-/01258aehxKQNBRO+#=\n \t\r";
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2024);
    Position *pos = malloc(sizeof *pos);
    int loaded = 0, rounds = getenv("RATCHET_SANITIZED") ? 60 : 200;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[256], tmpl[] = "/tmp/ratchet-book-XXXXXX";
        snprintf(path, sizeof path, DIR "%s", files[f]);
        FILE *in = fopen(path, "rb");
        cr_assert_not_null(in, "%s", path);
        char orig[8192];
        size_t n = fread(orig, 1, sizeof orig, in);
        fclose(in);
        int fd = mkstemp(tmpl);
        cr_assert(fd >= 0);
        close(fd);
        for (int round = 0; round < rounds; round++) {
            char buf[8192 + 64];
            size_t len = n;
            memcpy(buf, orig, n);
            int edits = 1 + (int)gsl_rng_uniform_int(r, 8);
            for (int e = 0; e < edits && len > 0; e++) {
                size_t at = gsl_rng_uniform_int(r, len);
                char ch = noise[gsl_rng_uniform_int(r, sizeof noise - 1)];
                switch (gsl_rng_uniform_int(r, 3)) {
                case 0: buf[at] = ch; break;
                case 1: if (len < sizeof buf) { memmove(buf + at + 1, buf + at, len - at); buf[at] = ch; len++; } break;
                default: len = at; break;
                }
            }
            FILE *out = fopen(tmpl, "wb");
            fwrite(buf, 1, len, out);
            fclose(out);
            char err[256], warnings[1 << 14];
            const char *fmt = strstr(files[f], ".pgn") ? "pgn" : "epd";
            Book *b = load_capture(tmpl, fmt, (int)gsl_rng_uniform_int(r, 4), err, sizeof err, warnings,
                                   sizeof warnings);
            if (!b) {
                cr_assert_not_null(strstr(err, tmpl), "%s", err);
                continue;
            }
            loaded++;
            for (size_t i = 0; i < book_size(b); i++)
                cr_assert_eq(pos_from_fen(pos, book_fen(b, i), err, sizeof err), 0, "%s: %s", book_fen(b, i), err);
            book_free(b);
        }
        unlink(tmpl);
    }
    cr_assert(loaded > 0);
    free(pos);
    gsl_rng_free(r);
}
