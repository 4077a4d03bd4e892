/* The shipped default book, openings/default.epd, and the generator. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board.h"
#include "book.h"
#include "helpers.h"
#include "score.h"
#include "search.h"
#include "tt.h"
#include "engine.h"

#define DEFAULT_BOOK "openings/default.epd"
/* The filter openings/README.md documents: depth 7, |score| <= 60 cp. */
#define BOOK_DEPTH 7
#define BOOK_WINDOW 60

static int file_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

Test(openings, default_book_every_line_legal_and_distinct)
{
    rules_init();
    char err[256];
    Book *b = book_load(DEFAULT_BOOK, "epd", 0, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    size_t n = book_size(b);
    /* Every line of the file became a position: none was skipped. */
    cr_assert_eq(n, (size_t)file_lines(DEFAULT_BOOK), "some lines of %s did not load", DEFAULT_BOOK);
    cr_assert_geq(n, 4000, "the default book should hold several thousand positions");

    Position *p = malloc(sizeof *p);
    uint64_t *keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(pos_from_fen(p, book_fen(b, i), err, sizeof err), 0, "line %zu: %s", i + 1, err);
        MoveList l;
        gen_legal(p, &l, GEN_ALL);
        cr_assert_gt(l.count, 0, "line %zu has no legal move", i + 1);
        cr_assert_not(pos_in_check(p), "line %zu: side to move in check", i + 1);
        keys[i] = pos_key(p);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            cr_assert_neq(keys[i], keys[j], "lines %zu and %zu are the same position", i + 1, j + 1);
    free(keys);
    free(p);
    book_free(b);
}

/* A sample is balanced by the engine's own search at the stated depth.  The
 * book was filtered with the search of its day; later search changes move
 * some scores, so the test asks for nine in ten of the sample inside the
 * window (at most one in ten outside, rounded up: one of the sanitizer
 * build's eight) and every one within twice the window. */
Test(openings, default_book_sample_is_balanced, .timeout = 300)
{
    engine_init();
    char err[256];
    Book *b = book_load(DEFAULT_BOOK, "epd", 0, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    int sample = getenv("RATCHET_SANITIZED") ? 8 : 40, inside = 0;
    size_t step = book_size(b) / (size_t)sample;
    Position *p = malloc(sizeof *p);
    Searcher *s = searcher_new();
    for (int k = 0; k < sample; k++) {
        size_t i = (size_t)k * step;
        cr_assert_eq(pos_from_fen(p, book_fen(b, i), NULL, 0), 0);
        SearchLimits lim;
        SearchResult res;
        search_limits_init(&lim);
        lim.depth = BOOK_DEPTH;
        tt_clear();
        searcher_clear(s);
        search_run(s, p, &lim, NULL, NULL, &res);
        cr_expect_not(score_is_mate(res.score), "line %zu: mate score", i + 1);
        cr_expect_leq(abs(res.score), 2 * BOOK_WINDOW, "line %zu scores %d", i + 1, res.score);
        inside += abs(res.score) <= BOOK_WINDOW;
    }
    cr_expect_leq(sample - inside, (sample + 9) / 10, "only %d of %d sampled positions within %d cp", inside,
                  sample, BOOK_WINDOW);
    searcher_free(s);
    free(p);
    book_free(b);
}

static int run(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}


Test(openings, genbook_deterministic_and_filtered, .timeout = 300)
{
    char *a, *b;
    const char *cmd = "bin/ratchet-genbook -n 12 -s 7 -d 4 -b 2 -o %s 2>/dev/null";
    char c1[256], c2[256];
    snprintf(c1, sizeof c1, cmd, "build/genbook-a.epd");
    snprintf(c2, sizeof c2, cmd, "build/genbook-b.epd");
    cr_assert_eq(run(c1), 0);
    cr_assert_eq(run(c2), 0);
    a = read_text("build/genbook-a.epd");
    b = read_text("build/genbook-b.epd");
    cr_assert(a && b);
    cr_expect_str_eq(a, b, "the same seed gave two different books");
    cr_expect_eq(file_lines("build/genbook-a.epd"), 12);

    /* Another seed gives another book. */
    snprintf(c1, sizeof c1, "bin/ratchet-genbook -n 12 -s 8 -d 4 -b 2 -o %s 2>/dev/null", "build/genbook-c.epd");
    cr_assert_eq(run(c1), 0);
    free(b);
    b = read_text("build/genbook-c.epd");
    cr_assert_not_null(b);
    cr_expect_str_neq(a, b);
    free(a);
    free(b);
}

Test(openings, genbook_bad_options_and_impossible_window, .timeout = 120)
{
    cr_expect_eq(run("bin/ratchet-genbook -n 5 2>/dev/null"), 2, "no -o");
    cr_expect_eq(run("bin/ratchet-genbook -o build/x.epd -n five 2>/dev/null"), 2);
    cr_expect_eq(run("bin/ratchet-genbook -o build/x.epd -n 5 -p 9-3 2>/dev/null"), 2);
    cr_expect_eq(run("bin/ratchet-genbook -o build/x.epd -n 5 -f /nonexistent.epd 2>/dev/null"), 2);
    /* The start position alone with no plies: kept once, then only
     * duplicates; the tool gives up, says so, and writes nothing. */
    FILE *f = fopen("build/genbook-one.epd", "w");
    cr_assert_not_null(f);
    fputs(START_FEN "\n", f);
    fclose(f);
    remove("build/genbook-none.epd");
    cr_expect_eq(run("bin/ratchet-genbook -o build/genbook-none.epd -n 2 -p 0-0 -d 3 -f build/genbook-one.epd 2>/dev/null"), 1);
    cr_expect_neq(access("build/genbook-none.epd", F_OK), 0, "a failed run left its output behind");
}
