/* The evaluation tuner (tools/texel/): the header round trip, the
 * evaluation as a dot product of features and weights, the extraction of
 * labelled positions from PGN and EPD, and the fit (K, and weights
 * recovered from synthetic results). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../tools/texel/dataset.h"
#include "../tools/texel/fit.h"
#include "../tools/texel/weights.h"
#include "eval.h"
#include "helpers.h"
#include "pgnscan.h"
#include "engine.h"

#define DIR "tests/data/texel/"

static Position *pos;

static void setup(void)
{
    engine_init();
    pos = malloc(sizeof *pos);
}

static void teardown(void) { free(pos); }

TestSuite(texel, .init = setup, .fini = teardown, .timeout = 60);


static void compiled_ints(int *mg, int *eg)
{
    TexelWeights w;
    texel_weights_compiled(&w);
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        mg[i] = (int)w.mg[i];
        eg[i] = (int)w.eg[i];
    }
}

/* The text of a Source comment that starts at src, up to the comment's end:
 * its lines joined, each "\n * " between them read as one space. */
static void source_text(const char *src, char *out, size_t len)
{
    size_t n = 0;
    while (*src && strncmp(src, "\n */", 4) != 0 && n + 1 < len) {
        if (strncmp(src, "\n * ", 4) == 0) {
            out[n++] = ' ';
            src += 4;
        } else {
            out[n++] = *src++;
        }
    }
    out[n] = '\0';
}

/* The committed header is exactly what the fitter writes for the values
 * compiled from it, and a changed value changes exactly its line. */
Test(texel, header_round_trip)
{
    char *committed = read_text("engine/eval_weights.h");
    cr_assert_not_null(committed, "cannot read %s", "engine/eval_weights.h");
    const char *src = strstr(committed, " * Source: ");
    cr_assert_not_null(src, "no Source line in engine/eval_weights.h");
    src += strlen(" * Source: ");
    char source[1024];
    source_text(src, source, sizeof source);

    int mg[EVAL_NWEIGHTS], eg[EVAL_NWEIGHTS];
    compiled_ints(mg, eg);
    char *text = texel_header_text(mg, eg, source);
    cr_assert_not_null(text);
    cr_expect_str_eq(text, committed, "engine/eval_weights.h is not what ratchet-texel writes for its values");
    free(text);

    /* the pawn's mg value with its last digit changed (one character, for
     * the count below, whatever the committed values are) */
    int pawn = mg[EW_PawnValue], tempo = mg[EW_Tempo];
    mg[EW_PawnValue] = pawn / 10 * 10 + (pawn % 10 + 7) % 10;
    eg[EW_Tempo] = 99; /* a flat weight has no eg: ignored */
    char path[] = "/tmp/texel-header-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    char err[256];
    cr_assert_eq(texel_header_write(path, mg, eg, "a test", err, sizeof err), 0, "%s", err);
    char *written = read_text(path);
    cr_assert_not_null(written, "cannot read %s", path);
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    cr_expect_neq(access(tmp, F_OK), 0, "the temporary file was left behind");
    unlink(path);
    char want[128];
    snprintf(want, sizeof want, "\nEVAL_W(PawnValue, %d, %d, \"material: a pawn\")\n", mg[EW_PawnValue],
             eg[EW_PawnValue]);
    cr_expect_not_null(strstr(written, want), "no line %s", want);
    snprintf(want, sizeof want, "\nEVAL_FLAT(Tempo, %d, \"the side to move\")\n", tempo);
    cr_expect_not_null(strstr(written, want), "no line %s", want);
    cr_expect_not_null(strstr(written, " * Source: a test\n */\n"));
    /* Everything else is as committed. */
    const char *a = strstr(committed, " */\n"), *b = strstr(written, " */\n");
    size_t diff = 0;
    for (; *a && *b; a++, b++)
        diff += *a != *b;
    cr_expect_eq(diff, 1, "%zu characters differ (one expected: the pawn's last digit)", diff);
    free(written);
    free(committed);
}

/* A long source is written over several comment lines of at most 78
 * columns, broken at spaces, and reads back as written; a line break in it
 * is a space, and a star-slash cannot end the comment. */
Test(texel, header_source_is_wrapped)
{
    int mg[EVAL_NWEIGHTS], eg[EVAL_NWEIGHTS];
    compiled_ints(mg, eg);
    const char *source = "the fifth refit: bin/ratchet-texel -e sfall.epd --fix 'Mopup*' --ridge 'Pst*=0.000002' "
                         "--ridge 'Mob*=0.000002' -i 8\non 798,550 positions, K 0.010497; held-out MSE 0.038389 "
                         "-> 0.037541 */ and a word longer than a line: "
                         "runs/texel/a-very-long-path-name-that-does-not-fit-on-one-comment-line/weights.h.";
    char *text = texel_header_text(mg, eg, source);
    cr_assert_not_null(text);
    const char *src = strstr(text, " * Source: ");
    cr_assert_not_null(src);
    const char *end = strstr(src, "\n */\n");
    cr_assert_not_null(end, "the comment does not end after the source");
    int lines = 0;
    for (const char *line = src; line <= end; lines++) {
        size_t n = strcspn(line, "\n");
        bool long_word = memmem(line, n, "a-very-long-path", 16) != NULL;
        cr_expect(n <= 78 || long_word, "a Source line of %zu columns: %.*s", n, (int)n, line);
        cr_expect(strncmp(line, " * ", 3) == 0, "not a comment line: %.*s", (int)n, line);
        line += n + 1;
    }
    cr_expect_geq(lines, 4, "the source is on %d lines", lines);
    cr_expect_null(strstr(src, "*/ and"), "a star-slash in the source ends the comment");
    char back[1024];
    source_text(src + strlen(" * Source: "), back, sizeof back);
    char want[1024];
    snprintf(want, sizeof want, "%s", source);
    *strchr(want, '\n') = ' ';
    char *star = strstr(want, "*/ and");
    memmove(star + 2, star + 1, strlen(star + 1) + 1);
    star[1] = ' ';
    cr_expect_str_eq(back, want);
    free(text);
}

/* White's evaluate() from the trace and the compiled weights, with the
 * engine's integer arithmetic (eval_trace.h). */
static int from_trace(const EvalTrace *t, const int *mg, const int *eg, int side)
{
    int m = t->nonlinear_mg[WHITE] - t->nonlinear_mg[BLACK], e = 0, flat = 0;
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        int f = t->count[i][WHITE] - t->count[i][BLACK];
        if (texel_weight(i)->kind == WK_FLAT) {
            flat += f * mg[i];
        } else {
            m += f * mg[i];
            e += f * eg[i];
        }
    }
    m = m * t->mg_scale / EVAL_SCALE_NORMAL;
    e = e * t->eg_scale / EVAL_SCALE_NORMAL;
    int white = (m * t->phase + e * (EVAL_PHASE_MAX - t->phase)) / EVAL_PHASE_MAX + flat;
    return side == WHITE ? white : -white;
}

typedef struct {
    int positions;
    double worst_gap;
    bool seen[EVAL_NWEIGHTS]; /* weights with a nonzero feature somewhere */
} DotStats;

static void check_dot_product(const char *where, DotStats *st)
{
    int mg[EVAL_NWEIGHTS], eg[EVAL_NWEIGHTS];
    compiled_ints(mg, eg);
    EvalTrace t;
    eval_trace(pos, &t);
    int v = evaluate(pos);
    cr_assert_eq(t.eval, v, "%s: eval_trace says %d, evaluate %d", where, t.eval, v);
    /* Again, now surely with the pawn terms from the pawn cache. */
    int again = evaluate(pos);
    cr_assert_eq(again, v, "%s: evaluate says %d, then %d from its pawn cache", where, v, again);
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        st->seen[i] |= t.count[i][WHITE] != t.count[i][BLACK];
    int dot = from_trace(&t, mg, eg, pos->side);
    cr_assert_eq(dot, v, "%s: the features times the weights give %d, evaluate %d", where, dot, v);

    /* The real-valued form the fitter uses is within the two truncations. */
    Dataset d = {0};
    cr_assert_eq(dataset_add(&d, pos, 0.5, 0), 0);
    TexelWeights w;
    texel_weights_compiled(&w);
    double real = texel_eval(&d, 0, &w), gap = fabs(real - (pos->side == WHITE ? v : -v));
    cr_assert_lt(gap, 2.0, "%s: real-valued %f, evaluate %d for White", where, real, pos->side == WHITE ? v : -v);
    if (gap > st->worst_gap)
        st->worst_gap = gap;
    dataset_free(&d);
    st->positions++;
}

static void dot_product_over_epd(const char *path, int limit, DotStats *st)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < limit) {
        char fen[256], err[256];
        /* The first four fields (perft lines carry ";D1 20" operations). */
        char a[100], b[8], c[8], e[8];
        if (sscanf(line, "%99s %7s %7s %7s", a, b, c, e) != 4)
            continue;
        snprintf(fen, sizeof fen, "%s %s %s %s 0 1", a, b, c, e);
        cr_assert_eq(pos_from_fen(pos, fen, err, sizeof err), 0, "%s: %s", fen, err);
        check_dot_product(fen, st);
        n++;
    }
    fclose(f);
    cr_assert_gt(n, 0, "%s: no position", path);
}

static const char *shared_data(void)
{
    const char *d = getenv("RATCHET_SHARED_DATA");
    return d ? d : "../shared/data";
}

/* evaluate() reads the material and placement the moves keep up to date
 * (Position.psq); eval_trace() adds them up piece by piece.  Every legal
 * move of the perft positions (castling, en passant, promotions, captures)
 * and its undo must leave the two equal. */
Test(texel, incremental_placement_follows_every_move_and_undo)
{
    const char *files[] = {"perft-standard.epd", "perft-random.epd"};
    int children = 0;
    for (int i = 0; i < 2; i++) {
        char path[512], line[512];
        snprintf(path, sizeof path, "%s/%s", shared_data(), files[i]);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "cannot open %s", path);
        for (int n = 0; n < 200 && fgets(line, sizeof line, f);) {
            char fen[256], err[256], a[100], b[8], c[8], e[8];
            if (sscanf(line, "%99s %7s %7s %7s", a, b, c, e) != 4)
                continue;
            snprintf(fen, sizeof fen, "%s %s %s %s 0 1", a, b, c, e);
            cr_assert_eq(pos_from_fen(pos, fen, err, sizeof err), 0, "%s: %s", fen, err);
            int before[2][2];
            memcpy(before, pos->psq, sizeof before);
            MoveList ml;
            gen_legal(pos, &ml, GEN_ALL);
            for (int k = 0; k < ml.count; k++) {
                char uci[8];
                move_to_uci(ml.moves[k], uci);
                pos_make(pos, ml.moves[k]);
                EvalTrace t;
                eval_trace(pos, &t);
                cr_assert_eq(evaluate(pos), t.eval, "%s, after %s: evaluate %d, eval_trace %d", fen, uci, evaluate(pos), t.eval);
                pos_unmake(pos);
                cr_assert(!memcmp(before, pos->psq, sizeof before), "%s: %s and its undo changed the placement sums", fen, uci);
                children++;
            }
            n++;
        }
        fclose(f);
    }
    cr_assert_gt(children, 1000);
}

/* Replays games, checking every position. */
typedef struct {
    DotStats *st;
    int moves;
} Replay;

static void replay_tag(void *ctx, int game, const char *name, const char *value, long line)
{
    (void)game;
    if (!strcmp(name, "FEN")) {
        char err[128];
        cr_assert_eq(pos_from_fen(pos, value, err, sizeof err), 0, "line %ld: %s", line, err);
        check_dot_product(value, ((Replay *)ctx)->st);
    }
}

static void replay_move(void *ctx, int game, const char *san, size_t len, long line)
{
    Replay *rp = ctx;
    char text[16], where[64];
    snprintf(text, sizeof text, "%.*s", (int)len, san);
    Move m = parse_san(pos, text);
    cr_assert_neq(m, MOVE_NONE, "game %d line %ld: %s", game, line, text);
    pos_make(pos, m);
    snprintf(where, sizeof where, "game %d line %ld after %s", game, line, text);
    check_dot_product(where, rp->st);
    rp->moves++;
}

/* evaluate() is the dot product of eval_trace()'s features and the weights
 * of engine/eval_weights.h (plus the king danger it reports), in the
 * engine's integers, on the perft positions, the book and the positions of
 * whole games (every ply of tests/data/texel/games.pgn). */
Test(texel, evaluation_is_the_dot_product_of_features_and_weights)
{
    DotStats st = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/perft-standard.epd", shared_data());
    dot_product_over_epd(path, 1000, &st);
    snprintf(path, sizeof path, "%s/perft-random.epd", shared_data());
    dot_product_over_epd(path, 1000, &st);
    dot_product_over_epd("openings/default.epd", 1000, &st);

    /* Mop-up (KQ against K, the king on a1), the drawish scaling (a lone
     * bishop, two knights, a rook pawn with the wrong bishop, opposite
     * bishops with and without rooks), a pawn still on e2 against one
     * that left e7. */
    static const char *const extra[] = {"8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "8/8/8/4k3/8/8/8/KB6 b - - 0 1",
                                        "8/8/8/4k3/8/8/8/KNN5 w - - 0 1", "k7/P7/1BK5/8/8/8/8/8 w - - 0 1",
                                        "8/3k1p2/8/8/2B5/8/4PPP1/K3b3 w - - 0 1",
                                        "3r4/3k1p2/8/8/2B5/8/4PPP1/K3b2R b - - 0 1",
                                        "rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        char err[128];
        cr_assert_eq(pos_from_fen(pos, extra[i], err, sizeof err), 0, "%s", err);
        check_dot_product(extra[i], &st);
    }

    /* Game positions reach the endgame terms (passed pawns, threats, the
     * drawish scaling) that openings do not. */
    Replay rp = {&st, 0};
    PgnScanEvents ev = {&rp, replay_tag, replay_move, NULL, NULL};
    size_t len;
    FILE *f = fopen(DIR "games.pgn", "r");
    cr_assert_not_null(f);
    char *buf = pgn_read_file(f, &len);
    fclose(f);
    cr_assert_eq(pgn_scan(buf, len, &ev), 3);
    free(buf);
    cr_expect_eq(rp.moves, 93 + 185 + 88);
    /* Every weight, except the entries of the square, mobility and king
     * danger tables that these positions cannot reach or where both sides
     * cancel (a pawn on its first or last rank never; a king on the eighth
     * rank, a queen with 27 squares or 40 attack units rarely): of those,
     * three in four.  The next test reaches every square of every table. */
    int table = 0, table_seen = 0;
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        const char *name = texel_weight(i)->name;
        bool pawn_edge = !strncmp(name, "PstPawn", 7) && (name[8] == '1' || name[8] == '8');
        if (!strncmp(name, "Pst", 3) || !strncmp(name, "Mob", 3) || !strncmp(name, "KingDanger", 10)) {
            table += !pawn_edge;
            table_seen += st.seen[i];
            cr_expect(!(pawn_edge && st.seen[i]), "%s is reached", name);
        } else if (!st.seen[i] && texel_weight(i)->kind != WK_REFERENCE) {
            cr_expect_fail("no position reaches %s", name);
        }
    }
    cr_expect_gt(table_seen * 4, table * 3, "%d of %d table entries reached", table_seen, table);
    cr_expect_gt(st.positions, 1400);
}

/* The trace of a FEN. */
static void trace_fen(const char *fen, EvalTrace *t)
{
    char err[128];
    cr_assert_eq(pos_from_fen(pos, fen, err, sizeof err), 0, "%s: %s", fen, err);
    eval_trace(pos, t);
}

/* One weight's count for one side, with what it should have counted. */
#define EXPECT_COUNT(t, name, side, n, what) \
    cr_expect_eq((t).count[EW_##name][side], (n), "%s: %s counts %d, want %d", (what), #name, \
                 (t).count[EW_##name][side], (n))

/* Safe checks count the squares from which each enemy piece could check
 * the king, that it reaches, that it does not occupy itself and that the
 * king's side does not defend; the king danger table is indexed by the
 * attack units. */
Test(texel, king_safety_terms_count_what_they_say)
{
    EvalTrace t;
    /* White king g1 behind f2 g2 h2.  The black knight on d4 reaches e2
     * and f3, both checking squares: e2 is safe, f3 is defended by the g2
     * pawn.  The rook on a3 checks from a1, which nothing defends.  The
     * bishop on b7 reaches no checking square: f2 and h2 hold pawns, and
     * the king defends them. */
    trace_fen("4k3/1b6/8/8/3n4/r7/5PPP/6K1 w - - 0 1", &t);
    EXPECT_COUNT(t, SafeCheckKnight, WHITE, 1, "knight: e2");
    EXPECT_COUNT(t, SafeCheckRook, WHITE, 1, "rook: a1");
    EXPECT_COUNT(t, SafeCheckBishop, WHITE, 0, "bishop: none");
    cr_expect_eq(t.count[EW_SafeCheckKnight][BLACK] + t.count[EW_SafeCheckRook][BLACK]
                     + t.count[EW_SafeCheckBishop][BLACK] + t.count[EW_SafeCheckQueen][BLACK], 0,
                 "White has no pieces to check with");
    /* A white bishop on c3 defends a1: the rook check is no longer safe. */
    trace_fen("4k3/1b6/8/8/3n4/r1B5/5PPP/6K1 w - - 0 1", &t);
    EXPECT_COUNT(t, SafeCheckRook, WHITE, 0, "a1 is defended by the bishop on c3");
    EXPECT_COUNT(t, SafeCheckKnight, WHITE, 1, "e2 still");

    /* The king's files: Black's g3 and h4 pawns storm a king on g1 (our
     * third and fourth ranks), the h-file has no White pawn (semi-open),
     * and g3 attacks f2 and h2, which no White pawn or piece defends. */
    trace_fen("4k3/8/8/8/7p/6p1/5PP1/6K1 w - - 0 1", &t);
    EXPECT_COUNT(t, PawnStormRank3, WHITE, 1, "g3");
    EXPECT_COUNT(t, PawnStormRank4, WHITE, 1, "h4");
    EXPECT_COUNT(t, KingFileSemiOpen, WHITE, 1, "h-file");
    EXPECT_COUNT(t, KingFileOpen, WHITE, 0, "no open file");
    EXPECT_COUNT(t, KingZoneWeak, WHITE, 2, "f2 and h2");
    /* Without the h4 pawn the h-file is open; a White rook on h1 defends h2. */
    trace_fen("4k3/8/8/8/8/6p1/5PP1/6KR w - - 0 1", &t);
    EXPECT_COUNT(t, KingFileOpen, WHITE, 1, "h-file open");
    EXPECT_COUNT(t, KingFileSemiOpen, WHITE, 0, "h-file open, not semi-open");
    EXPECT_COUNT(t, KingZoneWeak, WHITE, 1, "f2 only: the rook defends h2");

    /* King danger: two attackers (a queen on h4 and a knight on g4) on the
     * zone of a king on g1 without pawns.  One table entry counts, once. */
    trace_fen("4k3/8/8/8/6nq/8/8/6K1 w - - 0 1", &t);
    int entries = 0;
    for (int i = EW_KingDanger0; i <= EW_KingDanger40; i++)
        entries += t.count[i][WHITE];
    cr_expect_eq(entries, 1, "one king danger entry for White's king");
    cr_expect_eq(t.count[EW_KingDanger0][WHITE], 0, "the queen and the knight are not 0 units");
}

/* Bad bishops, minors behind pawns, pawn-push threats, space, the king's
 * distance to the pawns, weak pawns, pawnless flanks, the enemy queen and
 * rooks near the king, rooks behind passed pawns. */
Test(texel, extra_terms_count_what_they_say)
{
    EvalTrace t;
    /* The c1 bishop shares its dark squares with b2 and d2; the e3 knight
     * stands behind e4; b3 and d3 are safe pushes that attack the c4
     * knight; of c2-f4 the pawns hold d2 and e4 and the d5 pawn attacks c4;
     * the g1 king is three squares from d2 and e4. */
    trace_fen("4k3/8/8/3p4/2n1P3/4N3/1P1P4/2B3K1 w - - 0 1", &t);
    EXPECT_COUNT(t, BishopPawnsSameColour, WHITE, 2, "b2 and d2 beside the c1 bishop");
    EXPECT_COUNT(t, MinorBehindPawn, WHITE, 1, "the e3 knight");
    EXPECT_COUNT(t, MinorBehindPawn, BLACK, 0, "nothing on c3");
    EXPECT_COUNT(t, ThreatPawnPush, WHITE, 1, "b3 and d3 hit c4");
    EXPECT_COUNT(t, Space, WHITE, 9, "c2-f4 less d2, e4, c4");
    EXPECT_COUNT(t, KingPawnDistance, WHITE, 3, "g1 to d2 or e4");
    EXPECT_COUNT(t, KingPawnDistance, BLACK, 3, "e8 to d5");
    /* A black pawn on a4 makes b3 unsafe, but d3 still attacks c4. */
    trace_fen("4k3/8/8/3p4/p1n1P3/4N3/1P1P4/2B3K1 w - - 0 1", &t);
    EXPECT_COUNT(t, ThreatPawnPush, WHITE, 1, "d3 hits c4");
    /* Without the d2 pawn only b3 is left, and the a4 pawn attacks it: not
     * safe, even defended by the d1 bishop. */
    trace_fen("4k3/8/8/3p4/p1n1P3/4N3/1P6/2BB2K1 w - - 0 1", &t);
    EXPECT_COUNT(t, ThreatPawnPush, WHITE, 0, "b3 is attacked by a4");

    /* d5 is attacked by c6 and undefended (a4 and g2 are defended); the
     * queen on g4 is three squares from the g1 king, and it and the g8
     * rook stand on the king's file; the a1 rook is behind the passed a4
     * pawn; g2 keeps the king's flank (e-h) from being pawnless. */
    trace_fen("1k4r1/8/2p5/3P4/P5q1/8/6P1/R5K1 w - - 0 1", &t);
    EXPECT_COUNT(t, WeakPawnAttacked, WHITE, 1, "d5");
    EXPECT_COUNT(t, QueenNearKing, WHITE, 4, "g4 to g1 is 3");
    EXPECT_COUNT(t, QueenNearKing, BLACK, 0, "White has no queen");
    EXPECT_COUNT(t, RookOnKingFile, WHITE, 2, "g8 and g4");
    EXPECT_COUNT(t, RookBehindPassed, WHITE, 1, "a1 behind a4");
    EXPECT_COUNT(t, PawnlessFlank, WHITE, 0, "g2");
    /* Pawns only on a2 and b2: the g1 king's flank (e-h) and the e8 king's
     * (c-f) have none. */
    trace_fen("4k3/8/8/8/8/8/PP6/6K1 w - - 0 1", &t);
    EXPECT_COUNT(t, PawnlessFlank, WHITE, 1, "e-h");
    EXPECT_COUNT(t, PawnlessFlank, BLACK, 1, "c-f");
    /* A rook in front of its passed pawn is not behind it. */
    trace_fen("4k3/8/8/R7/P7/8/8/6K1 w - - 0 1", &t);
    EXPECT_COUNT(t, RookBehindPassed, WHITE, 0, "a5 is in front of a4");
}

/* A shape constant's compiled value, by name. */
static int shape_value(const char *name)
{
    for (size_t i = 0; i < texel_nweights; i++)
        if (texel_weights[i].kind == WK_SHAPE && !strcmp(texel_weights[i].name, name))
            return texel_weights[i].mg;
    cr_assert_fail("no shape constant %s in eval_weights.h", name);
    return 0;
}

/* Outside the special drawish endings the endgame scale counts the pawns
 * of the side ahead (ScalePawnlessBase + ScalePerPawn per pawn, up to 64), but
 * not when it has a rook's worth more pieces (a mop-up, never scaled); a
 * held rook ending and a lone queen have their own. */
Test(texel, endgame_scale_counts_the_pawns_of_the_side_ahead)
{
    const int base = shape_value("ScalePawnlessBase"), per = shape_value("ScalePerPawn");
    EvalTrace t;
    trace_fen("r5k1/6pp/8/8/8/8/5PPP/R5K1 w - - 0 1", &t);
    cr_expect_eq(t.eg_scale, shape_value("ScaleRookFlank"), "rook ending on one flank: %d", t.eg_scale);
    cr_expect_eq(t.mg_scale, EVAL_SCALE_NORMAL, "the rook-flank rule leaves the midgame part alone: %d", t.mg_scale);
    trace_fen("r5k1/6pp/8/8/8/8/P4PPP/R5K1 w - - 0 1", &t); /* a pawn on the other flank */
    cr_expect_eq(t.eg_scale, base + 4 * per, "rook ending on two flanks: %d", t.eg_scale);
    trace_fen("r5k1/8/6pp/8/8/8/5PPP/R5K1 w - - 0 1", &t); /* the king away from its pawns */
    cr_expect_eq(t.eg_scale, base + 3 * per, "rook ending, king away: %d", t.eg_scale);
    trace_fen("4k3/pp6/8/8/3n4/8/PP6/r2QK3 w - - 0 1", &t);
    cr_expect_eq(t.eg_scale, shape_value("ScaleOneQueenBase") + shape_value("ScaleOneQueenPerMinor"),
                 "queen against rook and knight: %d", t.eg_scale);
    cr_expect_eq(t.mg_scale, EVAL_SCALE_NORMAL, "the lone-queen rule leaves the midgame part alone: %d", t.mg_scale);
    /* One pawn against none with the same pieces: the defending king in
     * front of it, or a rook's pawn in a rook ending. */
    static const char *const held[] = {
        "4k2r/8/8/8/8/4P3/8/R3K3 w - - 0 1",   /* KRP v KR, the king on the pawn's file */
        "8/3k3r/8/8/8/4P3/8/R3K3 b - - 0 1",   /* on the file beside it */
        "4k2r/4p3/8/8/8/8/8/R3K3 w - - 0 1",   /* KR v KRP, Black ahead */
        "r7/8/8/8/8/P7/8/R3K2k w - - 0 1",     /* a rook's pawn, the king far away */
        "4k3/8/8/2b5/8/4P3/8/2B1K3 w - - 0 1", /* bishops of one colour, the king in front */
    };
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        trace_fen(held[i], &t);
        cr_expect_eq(t.eg_scale, shape_value("ScaleOnePawnHeld"), "%s: eg_scale %d", held[i], t.eg_scale);
        cr_expect_eq(t.mg_scale, t.eg_scale, "%s: a drawn ending scales the midgame part too (%d)", held[i], t.mg_scale);
    }
    static const struct {
        const char *fen, *what;
        int pawns; /* of the side ahead; -1: not scaled */
    } cases[] = {
        {"1k5r/8/8/8/8/4P3/8/R3K3 w - - 0 1", "KRP v KR, the king aside", 1},
        {"1k5r/8/8/8/8/4P3/8/R3K3 b - - 0 1", "KRP v KR, the king aside, Black to move", 1},
        {"4k2r/4p3/8/8/8/8/8/R6K w - - 0 1", "KR v KRP (Black ahead), the king aside", 1},
        {"4k2r/pp6/8/8/8/PPP5/8/R3K3 w - - 0 1", "KR and 3 pawns v KR and 2", 3},
        {"4k2r/ppp5/8/8/8/PPPP4/8/R3K3 w - - 0 1", "KR and 4 pawns v KR and 3", 4},
        {"r3k3/8/8/8/8/8/8/1NBBK3 w - - 0 1", "two bishops and a knight v rook (no pawn ahead)", 0},
        {"4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "KR v K (mop-up)", -1},
        {"4k3/8/8/8/8/4P3/8/Q3K3 w - - 0 1", "KQP v K (mop-up)", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_fen(cases[i].fen, &t);
        int want = EVAL_SCALE_NORMAL;
        if (cases[i].pawns >= 0 && base + per * cases[i].pawns < want)
            want = base + per * cases[i].pawns;
        cr_expect_eq(t.eg_scale, want, "%s: eg_scale %d, want %d (%s)", cases[i].what, t.eg_scale, want,
                     cases[i].fen);
    }
}

/* Every square of every piece table: a white piece on the square, and a
 * black one on its mirror, count once each for the square's weight, named
 * as the square is from the piece's side. */
Test(texel, square_tables_index_by_the_square_from_the_pieces_side)
{
    static const char pieces[] = "PNBRQK";
    static const char *const names[] = {"Pawn", "Knight", "Bishop", "Rook", "Queen", "King"};
    int checked = 0;
    for (int t = 0; t < 6; t++)
        for (int sq = 0; sq < 64; sq++) {
            int r = sq / 8, f = sq % 8;
            if (t == 0 && (r == 0 || r == 7))
                continue;
            char want[32];
            snprintf(want, sizeof want, "Pst%s%c%d", names[t], 'A' + f, r + 1);
            int w = -1;
            for (int i = 0; i < EVAL_NWEIGHTS; i++)
                if (!strcmp(texel_weight(i)->name, want))
                    w = i;
            cr_assert_geq(w, 0, "no weight %s", want);
            int here = 0;
            for (int colour = 0; colour < 2; colour++) {
                /* The piece of `colour` on sq from its side, the kings out of
                 * its way (a king piece is its side's king; the other king
                 * then stands in the far corner). */
                /* King squares to try (own, other), until the position is
                 * legal: the other king not in check. */
                static const int kings[][2] = {{24, 39}, {31, 32}, {0, 63}, {7, 56}, {2, 61}, {58, 5}, {17, 46}};
                int at = colour == 0 ? sq : sq ^ 56, own = -1, other = -1;
                char fen[128], err[128];
                bool legal = false;
                for (size_t k = 0; k < sizeof kings / sizeof kings[0] && !legal; k++) {
                    char board[64];
                    memset(board, 0, sizeof board);
                    if (t == 5) {
                        own = at;
                        other = (at % 8 < 4 ? 7 : 0) + (at / 8 < 4 ? 56 : 0);
                    } else {
                        own = kings[k][0], other = kings[k][1];
                        if (at == own || at == other)
                            continue;
                        board[at] = colour == 0 ? pieces[t] : (char)(pieces[t] + 32);
                    }
                    board[own] = colour == 0 ? 'K' : 'k';
                    board[other] = colour == 0 ? 'k' : 'K';
                    int n = 0;
                    for (int rr = 7; rr >= 0; rr--) {
                        for (int ff = 0, empty = 0; ff < 8; ff++) {
                            char c = board[rr * 8 + ff];
                            if (!c)
                                empty++;
                            if ((c || ff == 7) && empty)
                                fen[n++] = (char)('0' + empty), empty = 0;
                            if (c)
                                fen[n++] = c;
                        }
                        fen[n++] = rr ? '/' : ' ';
                    }
                    snprintf(fen + n, sizeof fen - (size_t)n, "%c - - 0 1", colour == 0 ? 'w' : 'b');
                    legal = pos_from_fen(pos, fen, err, sizeof err) == 0;
                }
                if (!legal)
                    continue;
                EvalTrace tr;
                eval_trace(pos, &tr);
                int other_rel = colour == 0 ? other ^ 56 : other; /* the other king from its side */
                cr_expect_eq(tr.count[w][colour], 1, "%s: %s counts %d", fen, want, tr.count[w][colour]);
                cr_expect_eq(tr.count[w][!colour], t == 5 && other_rel == sq, "%s: %s for the other side", fen,
                             want);
                checked++, here++;
            }
            cr_expect_gt(here, 0, "%s: both placements refused", want);
        }
    cr_expect_gt(checked, 2 * (64 * 5 + 48) * 3 / 4, "%d placements checked", checked);
}

/* The positions of three games from a tuning run (0-1 adjudicated, a
 * draw, 1-0 adjudicated): counts by reason, labels by game. */
Test(texel, pgn_positions_counted_labelled_and_skipped)
{
    static const int plies[3] = {93, 185, 88};
    static const bool adjudicated[3] = {true, false, true};
    static const float result[3] = {0.0f, 0.5f, 1.0f};
    int all = 0;
    for (int g = 0; g < 3; g++)
        all += plies[g] + 1;

    ExtractOptions o = EXTRACT_DEFAULTS;
    Dataset d = {0};
    ExtractStats st = {0};
    char err[256];
    cr_assert_eq(dataset_add_pgn(&d, DIR "games.pgn", &o, &st, err, sizeof err), 0, "%s", err);
    cr_expect_eq(st.games, 3);
    cr_expect_eq(st.used, 3);
    cr_expect_eq(st.no_result + st.bad, 0);
    cr_expect_eq(st.positions, all);
    cr_expect_eq(st.opening, 3 * o.skip_plies);
    cr_expect_eq(st.adjudicated, 2 * o.adj_tail);
    cr_expect_eq(st.opening + st.adjudicated + st.in_check + st.not_quiet + st.kept, st.positions);
    cr_expect_gt(st.not_quiet, 0);
    cr_expect_eq((size_t)st.kept, d.n);
    size_t per_game[3] = {0};
    for (size_t j = 0; j < d.n; j++) {
        cr_assert_lt(d.pos[j].game, 3);
        per_game[d.pos[j].game]++;
        cr_expect_eq(d.pos[j].label, result[d.pos[j].game], "position %zu of game %u", j, d.pos[j].game);
    }
    for (int g = 0; g < 3; g++) {
        int usable = plies[g] + 1 - o.skip_plies - (adjudicated[g] ? o.adj_tail : 0);
        cr_expect(per_game[g] > 0 && per_game[g] <= (size_t)usable, "game %d: %zu of %d", g + 1, per_game[g], usable);
    }
    dataset_free(&d);

    /* Every position, nothing skipped but checks and mates. */
    o.skip_plies = o.adj_tail = 0;
    o.all_positions = true;
    memset(&st, 0, sizeof st);
    cr_assert_eq(dataset_add_pgn(&d, DIR "games.pgn", &o, &st, err, sizeof err), 0, "%s", err);
    cr_expect_eq(st.opening + st.adjudicated + st.not_quiet, 0);
    cr_expect_eq(st.kept + st.in_check, all);
    cr_expect_eq(d.games, 3);
    dataset_free(&d);

    /* At most two games. */
    o.max_games = 2;
    memset(&st, 0, sizeof st);
    cr_assert_eq(dataset_add_pgn(&d, DIR "games.pgn", &o, &st, err, sizeof err), 0, "%s", err);
    cr_expect_eq(st.games, 2);
    cr_expect_eq(st.kept + st.in_check, plies[0] + plies[1] + 2);
    dataset_free(&d);
}

/* Reads a file with its messages captured. */
static int add_capture(Dataset *d, const char *path, bool pgn, const ExtractOptions *o, ExtractStats *st,
                       char *out, size_t outlen)
{
    char err[256];
    StderrCapture c;
    stderr_capture_begin(&c);
    int rc = pgn ? dataset_add_pgn(d, path, o, st, err, sizeof err) : dataset_add_epd(d, path, o, st, err, sizeof err);
    stderr_capture_end(&c, out, outlen);
    return rc;
}

/* Bad games are skipped and counted, each with FILE:LINE and the reason. */
Test(texel, bad_games_are_skipped_with_file_and_line)
{
    ExtractOptions o = EXTRACT_DEFAULTS;
    o.skip_plies = o.adj_tail = 0;
    o.all_positions = true;
    Dataset d = {0};
    ExtractStats st = {0};
    char out[4096];
    cr_assert_eq(add_capture(&d, DIR "broken.pgn", true, &o, &st, out, sizeof out), 0);
    cr_expect_eq(st.games, 6);
    cr_expect_eq(st.used, 2);
    cr_expect_eq(st.no_result, 2);
    cr_expect_eq(st.bad, 2);
    cr_expect_eq(st.positions, 8 + 5);
    cr_expect_eq(st.in_check, 1); /* the mate */
    cr_expect_eq(st.kept, 12);
    static const char *const want[] = {
        DIR "broken.pgn:7: game 2: no result",
        DIR "broken.pgn:15: game 3: illegal or unreadable move 'Ke3' at ply 3; game skipped",
        DIR "broken.pgn:20: game 4: the movetext ends with 0-1 but the Result tag says 1-0",
        DIR "broken.pgn:22: game 5: bad FEN tag",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_not_null(strstr(out, want[i]), "missing \"%s\" in:\n%s", want[i], out);
    for (size_t j = 0; j < d.n; j++)
        cr_expect_eq(d.pos[j].label, j < 7 ? 1.0f : 0.5f, "position %zu", j);
    dataset_free(&d);

    /* A missing file is an error that names it. */
    char err[256];
    cr_expect_eq(dataset_add_pgn(&d, DIR "no-such.pgn", &o, &st, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "no-such.pgn"), "%s", err);
}

Test(texel, epd_with_results)
{
    char path[] = "/tmp/texel-epd-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char text[] = "# a comment\n"
                        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n"
                        "4k3/8/8/8/8/8/4P3/4K3 w - - [0.5]\n"
                        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 0-1\n"
                        "4k3/8/8/8/8/8/4P3/4K3 w - - no result here\n"
                        "4k3/8/8/8/8/8/8/4K2K w - - 1/2-1/2\n"
                        "4k3/8/8/8/8/8/4P3/4K3 w - - [0.734]\n"
                        "4k3/8/8/8/8/8/4P3/4K3 w - - [1.5]\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    ExtractOptions o = EXTRACT_DEFAULTS;
    Dataset d = {0};
    ExtractStats st = {0};
    char out[2048];
    cr_assert_eq(add_capture(&d, path, false, &o, &st, out, sizeof out), 0);
    unlink(path);
    cr_expect_eq(st.games, 7);
    cr_expect_eq(st.kept, 4);
    cr_expect_eq(st.no_result, 2);
    cr_expect_eq(st.bad, 1);
    cr_assert_eq(d.n, 4);
    cr_expect_eq(d.pos[0].label, 1.0f);
    cr_expect_eq(d.pos[1].label, 0.5f);
    cr_expect_eq(d.pos[2].label, 0.0f);
    cr_expect_eq(d.pos[3].label, 0.734f, "an expected score: %g", d.pos[3].label);
    cr_expect_not_null(strstr(out, ":5: no result"), "%s", out);
    cr_expect_not_null(strstr(out, ":6: bad position"), "%s", out);
    cr_expect_not_null(strstr(out, ":8: the label in brackets is not an expected score"), "%s", out);
    dataset_free(&d);
}

/* Positions with many kinds of material: random games from the book. */
static void random_positions(Dataset *d, gsl_rng *r, int openings, int plies)
{
    FILE *f = fopen("openings/default.epd", "r");
    cr_assert_not_null(f);
    char line[256];
    for (int n = 0; n < openings && fgets(line, sizeof line, f); n++) {
        char err[128];
        line[strcspn(line, "\n")] = '\0';
        cr_assert_eq(pos_from_fen(pos, line, err, sizeof err), 0, "%s: %s", line, err);
        for (int k = 0; k < plies; k++) {
            MoveList ml;
            gen_legal(pos, &ml, GEN_ALL);
            if (ml.count == 0 || !pos_has_room(pos))
                break;
            pos_make(pos, ml.moves[gsl_rng_uniform_int(r, (unsigned long)ml.count)]);
            if (k % 2 == 0 && !pos_in_check(pos))
                cr_assert_eq(dataset_add(d, pos, 0.5, (uint32_t)d->n), 0);
        }
    }
    fclose(f);
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* The weights that the synthetic tests move. */
static const int moved[] = {EW_PawnValue, EW_KnightValue, EW_BishopValue, EW_RookValue, EW_QueenValue,
                            EW_KnightMobility, EW_BishopMobility, EW_RookMobility, EW_BishopPair, EW_DoubledPawn,
                            EW_Tempo};
enum { NMOVED = sizeof moved / sizeof moved[0] };

/* A known weight vector: the compiled one with the first n moved weights
 * off by up to 30% (GSL's RNG) and free. */
static void known_weights(gsl_rng *r, int n, TexelWeights *truth, TexelFree *fr)
{
    texel_weights_compiled(truth);
    memset(fr, 0, sizeof *fr);
    for (int k = 0; k < n; k++) {
        int i = moved[k];
        truth->mg[i] *= 1 + gsl_ran_flat(r, -0.3, 0.3);
        fr->mg[i] = true;
        if (texel_weight(i)->kind != WK_FLAT) {
            truth->eg[i] *= 1 + gsl_ran_flat(r, -0.3, 0.3);
            fr->eg[i] = true;
        }
    }
}

/* Labels that are the expected score under the known weights: the fit from
 * the compiled weights must find them exactly. */
/* A synthetic problem: random positions from `openings` book lines, and a
 * known weight vector with the first `moved` weights moved and free. */
typedef struct {
    gsl_rng *r;
    Dataset d;
    TexelWeights truth;
    TexelFree fr;
} Synthetic;

static const double K = 0.006;

static void synthetic(Synthetic *sy, unsigned long seed, int openings, int moved)
{
    sy->r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(sy->r, seed);
    sy->d = (Dataset){0};
    random_positions(&sy->d, sy->r, openings, 80);
    known_weights(sy->r, moved, &sy->truth, &sy->fr);
}

static void synthetic_free(Synthetic *sy)
{
    dataset_free(&sy->d);
    gsl_rng_free(sy->r);
}

Test(texel, fit_recovers_known_weights_from_expected_scores)
{
    Synthetic sy;
    synthetic(&sy, 14, 300, NMOVED);
    Dataset d = sy.d;
    TexelWeights truth = sy.truth, w;
    TexelFree fr = sy.fr;
    for (size_t j = 0; j < d.n; j++)
        d.pos[j].label = (float)sigmoid(K * texel_eval(&d, j, &truth));

    texel_weights_compiled(&w);
    TexelFitReport rep;
    cr_assert_eq(texel_fit(&d, K, &fr, &w, 100, NULL, &rep), 0, "%s", rep.stop);
    cr_expect_eq(rep.free_params, 2 * NMOVED - 1);
    for (int k = 0; k < NMOVED; k++) {
        int i = moved[k];
        cr_expect(fabs(w.mg[i] - truth.mg[i]) < 0.5, "%s mg: fitted %.2f, truth %.2f", texel_weight(i)->name,
                  w.mg[i], truth.mg[i]);
        if (fr.eg[i])
            cr_expect(fabs(w.eg[i] - truth.eg[i]) < 0.5, "%s eg: fitted %.2f, truth %.2f", texel_weight(i)->name,
                      w.eg[i], truth.eg[i]);
    }
    /* The weights that were not free did not move. */
    TexelWeights c;
    texel_weights_compiled(&c);
    cr_expect_eq(w.mg[EW_Hanging], c.mg[EW_Hanging]);
    cr_expect_eq(w.eg[EW_PassedRank6], c.eg[EW_PassedRank6]);
    cr_expect_lt(texel_mse(&d, SLICE_ALL, &w, K, NULL), 1e-8);
    synthetic_free(&sy);
}

/* Results drawn with GSL's RNG: the score of 8 games from each position,
 * each won with probability sigmoid(K * eval) under known weights (else
 * lost), with the values of pawns, minor pieces and rooks moved and free.
 * The fit gets them back within the noise (10% each; the mg/eg split of a
 * queen would need far more positions), far closer than it started, and K
 * comes back too. */
Test(texel, fit_recovers_known_weights_from_drawn_results)
{
    enum { N = 4, GAMES = 8 };
    Synthetic sy;
    synthetic(&sy, 7, 2000, N);
    Dataset d = sy.d;
    TexelWeights truth = sy.truth, w;
    TexelFree fr = sy.fr;
    for (size_t j = 0; j < d.n; j++)
        d.pos[j].label = (float)gsl_ran_binomial(sy.r, sigmoid(K * texel_eval(&d, j, &truth)), GAMES) / GAMES;

    /* K with the true weights. */
    double k_fit = texel_fit_k(&d, &truth);
    cr_expect(fabs(k_fit / K - 1) < 0.05, "K fitted %.5f, truth %.5f", k_fit, K);

    texel_weights_compiled(&w);
    double start = 0, end = 0;
    for (int k = 0; k < N; k++)
        start += fabs(w.mg[moved[k]] - truth.mg[moved[k]]) + fabs(w.eg[moved[k]] - truth.eg[moved[k]]);
    TexelFitReport rep;
    cr_assert_eq(texel_fit(&d, K, &fr, &w, 100, NULL, &rep), 0, "%s", rep.stop);
    for (int k = 0; k < N; k++) {
        int i = moved[k];
        end += fabs(w.mg[i] - truth.mg[i]) + fabs(w.eg[i] - truth.eg[i]);
        cr_expect(fabs(w.mg[i] / truth.mg[i] - 1) < 0.1 && fabs(w.eg[i] / truth.eg[i] - 1) < 0.1,
                  "%s: fitted %.1f/%.1f, truth %.1f/%.1f", texel_weight(i)->name, w.mg[i], w.eg[i], truth.mg[i],
                  truth.eg[i]);
    }
    cr_expect_lt(end, start / 3, "material off by %.1f in all after the fit, %.1f before", end, start);
    cr_expect_lt(texel_mse(&d, SLICE_HELDOUT, &w, K, NULL), texel_mse(&d, SLICE_HELDOUT, &(TexelWeights){0}, K, NULL));
    synthetic_free(&sy);
}

/* The ridge: the fit minimises MSE + lambda * (w / 100)^2 per phase, so at
 * its optimum the MSE's slope in a ridged weight is -2 lambda w / 100^2
 * (checked by finite differences), the weight sits between 0 and its true
 * value, and a huge lambda holds it at 0. */
Test(texel, ridge_shrinks_a_weight_by_its_penalty)
{
    Synthetic sy;
    synthetic(&sy, 14, 300, NMOVED);
    Dataset d = sy.d;
    TexelWeights truth = sy.truth;
    for (size_t j = 0; j < d.n; j++)
        d.pos[j].label = (float)sigmoid(K * texel_eval(&d, j, &truth));
    const int i = EW_BishopPair;
    const double lambdas[] = {0.0005, 1000};
    for (int l = 0; l < 2; l++) {
        TexelFree fr = sy.fr;
        fr.ridge[i] = lambdas[l];
        TexelWeights w;
        texel_weights_compiled(&w);
        TexelFitReport rep;
        cr_assert_eq(texel_fit(&d, K, &fr, &w, 200, NULL, &rep), 0, "%s", rep.stop);
        if (l == 1) {
            cr_expect(fabs(w.mg[i]) < 1 && fabs(w.eg[i]) < 1, "lambda %g: bishop pair %.2f/%.2f", lambdas[l],
                      w.mg[i], w.eg[i]);
            break;
        }
        cr_expect(w.mg[i] > 0.5 && w.mg[i] < truth.mg[i] - 0.5, "mg %.2f, truth %.2f", w.mg[i], truth.mg[i]);
        cr_expect(w.eg[i] > 0.5 && w.eg[i] < truth.eg[i] - 0.5, "eg %.2f, truth %.2f", w.eg[i], truth.eg[i]);
        for (int ph = 0; ph < 2; ph++) {
            double *x = ph ? &w.eg[i] : &w.mg[i], x0 = *x, h = 0.25;
            *x = x0 + h;
            double up = texel_mse(&d, SLICE_TRAIN, &w, K, NULL);
            *x = x0 - h;
            double down = texel_mse(&d, SLICE_TRAIN, &w, K, NULL);
            *x = x0;
            double slope = (up - down) / (2 * h), want = -2 * lambdas[l] * x0 / 1e4;
            cr_expect(fabs(slope / want - 1) < 0.1, "phase %d: MSE slope %.3g, want %.3g", ph, slope, want);
        }
    }
    synthetic_free(&sy);
}

/* Runs a command; its exit code, and its output (both streams) into out. */
static int run(const char *cmd, char *out, size_t outlen)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    char rest[4096]; /* the rest unread, or the command dies of SIGPIPE */
    while (fread(rest, 1, sizeof rest, p) > 0)
        ;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The command: a fit of the fixture's games written as a header that has
 * the form of the committed one; bad options are refused with a reason. */
Test(texel, command_line)
{
    char out[16384], cmd[512], path[] = "/tmp/texel-cli-XXXXXX";
    cr_assert_not_null(mkdtemp(path));
    /* A few hundred positions for about a thousand weights: the ridge holds
     * the tables. */
    snprintf(cmd, sizeof cmd,
             "bin/ratchet-texel " DIR "games.pgn -q --ridge 'Pst*=0.01' --ridge 'Mob*=0.01' -o %s/w.h -t %s/w.csv 2>&1",
             path, path);
    cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
    cr_expect_not_null(strstr(out, "held out (every tenth game)"), "%s", out);
    cr_expect_not_null(strstr(out, "after, rounded"), "%s", out);
    char file[600];
    snprintf(file, sizeof file, "%s/w.h", path);
    char *h = read_text(file);
    cr_assert_not_null(h, "cannot read %s", file);
    cr_expect_not_null(strstr(h, " * Source: ratchet-texel fit on "), "%s", h);
    cr_expect_not_null(strstr(h, "\nEVAL_SHAPE(KingDangerMax, 500, "), "%s", h);
    free(h);
    snprintf(file, sizeof file, "%s/w.csv", path);
    char *csv = read_text(file);
    cr_assert_not_null(csv, "cannot read %s", file);
    int mg[EVAL_NWEIGHTS], eg[EVAL_NWEIGHTS];
    compiled_ints(mg, eg);
    char want[64];
    snprintf(want, sizeof want, "\nPawnValue,tapered,%d,", mg[EW_PawnValue]); /* the value before the fit */
    cr_expect_not_null(strstr(csv, want), "%s", csv);
    free(csv);
    snprintf(cmd, sizeof cmd, "rm -rf %s", path);
    cr_expect_eq(system(cmd), 0);

    cr_expect_eq(run("bin/ratchet-texel --fix NoSuchWeight " DIR "games.pgn 2>&1", out, sizeof out), 2);
    cr_expect_not_null(strstr(out, "no weight matches 'NoSuchWeight'"), "%s", out);
    cr_expect_eq(run("bin/ratchet-texel --free KingDangerMax " DIR "games.pgn 2>&1", out, sizeof out), 2);
    cr_expect_not_null(strstr(out, "shape constant"), "%s", out);
    cr_expect_eq(run("bin/ratchet-texel " DIR "games.pgn 2>&1", out, sizeof out), 1);
    cr_expect_not_null(strstr(out, "fewer training positions than free weights"), "%s", out);
    cr_expect_eq(run("bin/ratchet-texel --ridge 'Pst*' " DIR "games.pgn 2>&1", out, sizeof out), 2);
    cr_expect_not_null(strstr(out, "want PATTERN=LAMBDA"), "%s", out);
    cr_expect_eq(run("bin/ratchet-texel " DIR "no-such.pgn 2>&1", out, sizeof out), 1);
    cr_expect_not_null(strstr(out, "no-such.pgn: cannot open"), "%s", out);
}
