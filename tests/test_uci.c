/* The UCI front, driven through pipes: uci_loop runs in a thread of the
 * test process, the test writes commands and reads replies with deadlines.
 * Every wait is bounded; no test asserts a time. */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "board.h"
#include "helpers.h"
#include "params.h"
#include "tt.h"
#include "uci.h"

#define WAIT_MS 20000 /* a guard against hangs, far above any expected reply time */

typedef struct {
    int to_engine;      /* write end of the engine's input */
    int from_engine;    /* read end of the engine's output */
    FILE *in, *out;     /* the engine's ends */
    pthread_t thread;
    bool running;
    char buf[1 << 16];
    size_t len;
    bool eof;
} Session;

static Session S;

static void *engine_thread(void *arg)
{
    Session *s = arg;
    uci_loop(s->in, s->out);
    fclose(s->in);
    fclose(s->out);
    return NULL;
}

static void start(void)
{
    signal(SIGPIPE, SIG_IGN);
    memset(&S, 0, sizeof S);
    int a[2], b[2];
    cr_assert_eq(pipe(a), 0);
    cr_assert_eq(pipe(b), 0);
    S.in = fdopen(a[0], "r");
    S.out = fdopen(b[1], "w");
    S.to_engine = a[1];
    S.from_engine = b[0];
    cr_assert(S.in && S.out);
    cr_assert_eq(pthread_create(&S.thread, NULL, engine_thread, &S), 0);
    S.running = true;
}

static void finish(void)
{
    if (S.running) {
        if (S.to_engine >= 0)
            close(S.to_engine);
        pthread_join(S.thread, NULL);
        S.running = false;
    }
    close(S.from_engine);
    tt_free();
}

static void send(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    line[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(S.to_engine, line + off, (size_t)(n - off));
        cr_assert(w > 0, "write to the engine failed: %s", strerror(errno));
        off += (int)w;
    }
}

/* The next line of output, waiting at most WAIT_MS; false at EOF or on
 * timeout. */
static bool next_line(char *line, size_t cap)
{
    for (;;) {
        char *nl = memchr(S.buf, '\n', S.len);
        if (nl) {
            size_t n = (size_t)(nl - S.buf);
            size_t k = n < cap - 1 ? n : cap - 1;
            memcpy(line, S.buf, k);
            line[k] = '\0';
            memmove(S.buf, nl + 1, S.len - n - 1);
            S.len -= n + 1;
            return true;
        }
        if (S.eof)
            return false;
        struct pollfd pfd = {.fd = S.from_engine, .events = POLLIN};
        int r = poll(&pfd, 1, WAIT_MS);
        if (r <= 0)
            return false;
        ssize_t got = read(S.from_engine, S.buf + S.len, sizeof S.buf - S.len);
        if (got <= 0)
            S.eof = true;
        else
            S.len += (size_t)got;
    }
}

static void copy_line(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    n = n < cap - 1 ? n : cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Reads lines until one starts with `prefix` (copied to `found`); the lines
 * before it are appended to `seen` when given. */
static void expect_prefix(const char *prefix, char *found, size_t cap, char *seen, size_t seen_cap)
{
    char line[1024];
    while (next_line(line, sizeof line)) {
        if (!strncmp(line, prefix, strlen(prefix))) {
            if (found)
                copy_line(found, cap, line);
            return;
        }
        if (seen) {
            size_t l = strlen(seen);
            snprintf(seen + l, seen_cap - l, "%s\n", line);
        }
    }
    cr_assert_fail("no line starting with '%s' from the engine", prefix);
}

/* Waits for `readyok`, i.e. every earlier command has been handled. */
static void sync_engine(char *seen, size_t cap)
{
    send("isready");
    expect_prefix("readyok", NULL, 0, seen, cap);
}

/* The bestmove of the current search, checked to be legal in fen+moves. */
static Move expect_bestmove(const Position *p)
{
    char line[256], mv[16] = "";
    expect_prefix("bestmove ", line, sizeof line, NULL, 0);
    sscanf(line, "bestmove %15s", mv);
    Move m = parse_uci(p, mv);
    cr_assert_neq(m, MOVE_NONE, "bestmove '%s' is not legal", mv);
    return m;
}

static Position *make_pos(const char *fen)
{
    static Position p;
    rules_init();
    char err[256];
    cr_assert_eq(pos_from_fen(&p, fen, err, sizeof err), 0, "%s", err);
    return &p;
}

TestSuite(uci, .init = start, .fini = finish, .timeout = 120);

Test(uci, handshake_lists_every_parameter_as_a_spin_option)
{
    static char seen[1 << 15];
    seen[0] = '\0';
    send("uci");
    expect_prefix("uciok", NULL, 0, seen, sizeof seen);
    cr_expect(strstr(seen, "id name Ratchet") != NULL, "%s", seen);
    cr_expect(strstr(seen, "id author ") != NULL);
    cr_expect(strstr(seen, "option name Hash type spin default 16 min 1 max") != NULL);
    cr_expect(strstr(seen, "option name Threads type spin default 1 min 1 max") != NULL);
    for (int i = 0; i < PARAM_COUNT; i++) {
        char want[256];
        const ParamSpec *ps = &param_specs[i];
        snprintf(want, sizeof want, "option name %s type spin default %d min %d max %d\n", ps->name, ps->def,
                 ps->min, ps->max);
        cr_expect(strstr(seen, want) != NULL, "missing: %s", want);
    }
    sync_engine(NULL, 0);
}

/* Reads a `go perft` reply: the split lines, a blank line, the total. */
static unsigned long long read_perft(int *moves, unsigned long long *sum, char *split, size_t cap)
{
    regex_t re;
    cr_assert_eq(regcomp(&re, "^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$", REG_EXTENDED), 0);
    char line[256];
    *moves = 0;
    *sum = 0;
    split[0] = '\0';
    bool blank = false;
    unsigned long long total = 0;
    while (next_line(line, sizeof line)) {
        if (!strncmp(line, "Nodes searched: ", 16)) {
            cr_expect(blank, "no blank line before the total");
            total = strtoull(line + 16, NULL, 10);
            regfree(&re);
            return total;
        }
        if (line[0] == '\0') {
            blank = true;
            continue;
        }
        cr_expect(!blank, "a line after the blank line: %s", line);
        cr_expect_eq(regexec(&re, line, 0, NULL, 0), 0, "not a split line: '%s'", line);
        (*moves)++;
        *sum += strtoull(strchr(line, ':') + 2, NULL, 10);
        size_t l = strlen(split);
        snprintf(split + l, cap - l, "%s\n", line);
    }
    regfree(&re);
    cr_assert_fail("no 'Nodes searched' line");
    return 0;
}

Test(uci, go_perft_prints_stockfish_split_format)
{
    static char split[1 << 14];
    int moves;
    unsigned long long sum;
    send("position startpos");
    send("go perft 3");
    cr_expect_eq(read_perft(&moves, &sum, split, sizeof split), 8902);
    cr_expect_eq(moves, 20);
    cr_expect_eq(sum, 8902);
    cr_expect(strstr(split, "e2e4: 600\n") && strstr(split, "d2d4: 560\n") && strstr(split, "g1f3: 440\n"), "%s",
              split);

    send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    send("go perft 2");
    cr_expect_eq(read_perft(&moves, &sum, split, sizeof split), 2039);
    cr_expect_eq(moves, 48);
    cr_expect(strstr(split, "e1g1: 43\n") && strstr(split, "e5f7: 44\n"), "%s", split);

    send("go perft 1");
    cr_expect_eq(read_perft(&moves, &sum, split, sizeof split), 48);
}

Test(uci, illegal_move_keeps_the_previous_position)
{
    static char split[1 << 14];
    char line[512];
    int moves;
    unsigned long long sum;
    send("position startpos moves e2e4");
    /* d2d4 e7e5 are legal, e1e3 is not: nothing of this command applies. */
    send("position startpos moves d2d4 e7e5 e1e3");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect(strstr(line, "e1e3") != NULL, "%s", line);
    send("position startpos moves e2e4 e7e9");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect(strstr(line, "e7e9") != NULL, "%s", line);
    send("position fen 8/8/8 w - - 0 1");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    send("position startpos e2e4");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    send("position");
    expect_prefix("info string", line, sizeof line, NULL, 0);

    /* Still the position after 1. e4: Black to move. */
    send("go perft 1");
    cr_expect_eq(read_perft(&moves, &sum, split, sizeof split), 20);
    cr_expect(strstr(split, "e7e6: 1\n") != NULL, "not Black to move after 1. e4:\n%s", split);
}

Test(uci, unknown_command_is_reported_and_ignored)
{
    char line[512];
    send("foo bar");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect_str_eq(line, "info string unknown command: foo bar");
    send("go perft x");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    sync_engine(NULL, 0);
}

Test(uci, setoption_validates_and_applies_parameters)
{
    char line[512];
    send("setoption name LmrQuietBase value 9999");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect(strstr(line, "LmrQuietBase") && strstr(line, "9999"), "%s", line);
    sync_engine(NULL, 0);
    cr_expect_eq(LmrQuietBase, param_specs[PARAM_ID_LmrQuietBase].def, "an out-of-range value was applied");

    send("setoption name LmrQuietBase value -1");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    send("setoption name LmrQuietBase value abc");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    send("setoption name LmrQuietBase");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    send("setoption name NoSuchOption value 3");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect_str_eq(line, "info string unknown option: NoSuchOption");

    send("setoption name lmrquietbase value 120");
    send("setoption name LmpEnabled value 0");
    static char seen[1 << 14];
    seen[0] = '\0';
    sync_engine(seen, sizeof seen);
    cr_expect_eq(seen[0], '\0', "unexpected output: %s", seen);
    cr_expect_eq(LmrQuietBase, 120);
    cr_expect_eq(LmpEnabled, 0);
}

Test(uci, setoption_changes_what_the_search_does)
{
    char on[512], off[512];
    send("bench 6");
    char line[512];
    do
        cr_assert(next_line(line, sizeof line));
    while (!strstr(line, " nodes ") || !strstr(line, " nps"));
    copy_line(on, sizeof on, line);
    send("setoption name LmrEnabled value 0");
    send("bench 6");
    do
        cr_assert(next_line(line, sizeof line));
    while (!strstr(line, " nodes ") || !strstr(line, " nps"));
    copy_line(off, sizeof off, line);
    unsigned long long n_on = strtoull(on, NULL, 10), n_off = strtoull(off, NULL, 10);
    cr_expect_gt(n_off, n_on, "LMR off: %s, on: %s", off, on);

    BenchResult r;
    cr_assert_eq(bench_run(bench_fens, bench_count, 6, NULL, &r), 0);
    cr_expect_eq(r.nodes, n_off, "the UCI bench and bench_run disagree");
}

Test(uci, hash_and_threads_options)
{
    char line[512];
    send("setoption name Hash value 32");
    sync_engine(NULL, 0);
    cr_expect_eq(tt_size_mb(), 32);
    send("setoption name Hash value 0");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect(strstr(line, "Hash") != NULL, "%s", line);
    sync_engine(NULL, 0);
    cr_expect_eq(tt_size_mb(), 32);
    send("setoption name Threads value 4");
    expect_prefix("info string", line, sizeof line, NULL, 0);
    cr_expect(strstr(line, "Threads") != NULL, "%s", line);
    send("setoption name Clear Hash");
    send("setoption name MoveOverhead value 50");
    static char seen[4096];
    seen[0] = '\0';
    sync_engine(seen, sizeof seen);
    cr_expect_eq(seen[0], '\0', "unexpected output: %s", seen);
}

Test(uci, bestmove_is_legal_with_no_time_left)
{
    send("ucinewgame");
    send("position startpos moves e2e4 c7c5");
    send("go wtime 0 btime 0");
    Position *p = make_pos(START_FEN);
    pos_make(p, parse_uci(p, "e2e4"));
    pos_make(p, parse_uci(p, "c7c5"));
    expect_bestmove(p);
    send("go wtime -20 btime 100 winc 0 binc 0");
    expect_bestmove(p);
}

Test(uci, single_legal_move_and_no_legal_move)
{
    const char *fen = "8/8/8/8/8/5k2/8/r6K w - - 0 1";
    send("position fen %s", fen);
    send("go wtime 5000 btime 5000");
    Move m = expect_bestmove(make_pos(fen));
    char mv[8];
    move_to_uci(m, mv);
    cr_expect_str_eq(mv, "h1h2");

    char line[256];
    send("position fen 8/8/8/8/8/2k5/1r6/K7 w - - 0 1"); /* stalemate */
    send("go depth 3");
    expect_prefix("bestmove", line, sizeof line, NULL, 0);
    cr_expect_str_eq(line, "bestmove 0000");
}

Test(uci, stop_ends_an_infinite_search)
{
    char line[512];
    send("position startpos");
    send("go infinite");
    expect_prefix("info depth", line, sizeof line, NULL, 0);
    /* isready is answered while the search runs. */
    static char seen[1 << 16];
    seen[0] = '\0';
    sync_engine(seen, sizeof seen);
    cr_expect(strstr(seen, "bestmove") == NULL, "bestmove before stop: %s", seen);
    send("stop");
    expect_bestmove(make_pos(START_FEN));
    sync_engine(NULL, 0);
}

Test(uci, infinite_search_waits_for_stop_even_when_done)
{
    /* A mate in one: the search runs out of depth at once, yet the
     * bestmove must wait for `stop`. */
    const char *fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    send("position fen %s", fen);
    send("go infinite");
    usleep(200 * 1000);
    static char seen[1 << 16];
    seen[0] = '\0';
    sync_engine(seen, sizeof seen);
    cr_expect(strstr(seen, "bestmove") == NULL, "bestmove before stop: %s", seen);
    send("stop");
    Move m = expect_bestmove(make_pos(fen));
    char mv[8];
    move_to_uci(m, mv);
    cr_expect_str_eq(mv, "d1d8");
}

Test(uci, go_with_movetime_nodes_depth_and_clock)
{
    Position *p = make_pos(START_FEN);
    send("position startpos");
    send("go movetime 50");
    expect_bestmove(p);
    send("go nodes 5000");
    expect_bestmove(p);
    send("go depth 5");
    char line[512];
    expect_prefix("info depth 5 ", line, sizeof line, NULL, 0);
    cr_expect(strstr(line, " score ") && strstr(line, " pv ") && strstr(line, " nodes ") && strstr(line, " nps ")
                  && strstr(line, " time ") && strstr(line, " hashfull ") && strstr(line, " seldepth "),
              "%s", line);
    expect_bestmove(p);
    send("go wtime 1000 btime 1000 winc 10 binc 10 movestogo 20");
    expect_bestmove(p);
}

Test(uci, zero_limits_still_give_a_move)
{
    Position *p = make_pos(START_FEN);
    send("position startpos");
    send("go depth 0");
    expect_bestmove(p);
    send("go nodes 0");
    expect_bestmove(p);
    send("go movetime 0");
    expect_bestmove(p);
}

Test(uci, long_move_lists_are_read_whole)
{
    /* 1200 plies of knight moves: back to the start position, White to move. */
    static const char *cycle[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    static char cmd[16384];
    int n = snprintf(cmd, sizeof cmd, "position startpos moves");
    for (int i = 0; i < 1200; i++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " %s", cycle[i % 4]);
    cmd[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(S.to_engine, cmd + off, (size_t)(n - off));
        cr_assert(w > 0);
        off += (int)w;
    }
    send("position startpos moves g1f3 g8f6 f3g1 f6g8 g1f3"); /* then the long one again */
    for (int off = 0; off < n;) {
        ssize_t w = write(S.to_engine, cmd + off, (size_t)(n - off));
        cr_assert(w > 0);
        off += (int)w;
    }
    static char split[1 << 14];
    int moves;
    unsigned long long sum;
    send("go perft 1");
    cr_expect_eq(read_perft(&moves, &sum, split, sizeof split), 20);
    cr_expect(strstr(split, "e2e4: 1\n") != NULL, "not White to move:\n%s", split);
}

/* A game longer than the engine's history (2717 plies): the position is
 * the one sent, and the move is legal there. */
Test(uci, a_game_longer_than_the_history_is_played_on)
{
    static char cmd[LONG_GAME_PLIES * 6 + 64];
    int n = snprintf(cmd, sizeof cmd, "position startpos moves");
    for (int i = 0; i < LONG_GAME_PLIES; i++) {
        char mv[8];
        long_game_move(i, mv);
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " %s", mv);
    }
    cmd[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(S.to_engine, cmd + off, (size_t)(n - off));
        cr_assert(w > 0);
        off += (int)w;
    }
    static char seen[1 << 14];
    char line[512];
    seen[0] = '\0';
    send("d");
    expect_prefix("info string fen ", line, sizeof line, seen, sizeof seen);
    cr_expect_str_eq(line, "info string fen " LONG_GAME_FEN, "before it: %s", seen);
    send("go depth 4");
    expect_bestmove(make_pos(LONG_GAME_FEN));
}

/* Reads lines until one starts with `prefix`; fails if one starting with
 * `never` comes first. */
static void expect_before(const char *prefix, const char *never, char *found, size_t cap)
{
    char line[1024];
    while (next_line(line, sizeof line)) {
        cr_assert(strncmp(line, never, strlen(never)), "'%s' came before '%s'", line, prefix);
        if (!strncmp(line, prefix, strlen(prefix))) {
            if (found)
                copy_line(found, cap, line);
            return;
        }
    }
    cr_assert_fail("no line starting with '%s' from the engine", prefix);
}

/* go perft and bench run like a search: isready is answered meanwhile,
 * stop ends them with their closing lines, quit ends them and the loop. */
Test(uci, perft_and_bench_answer_isready_and_end_at_stop)
{
    char line[1024];
    send("position startpos");
    send("go perft 9"); /* 2.4e12 leaves: hours */
    send("isready");
    expect_before("readyok", "Nodes searched", NULL, 0);
    send("stop");
    expect_before("info string go perft: stopped after ", "Nodes searched", NULL, 0);
    expect_prefix("Nodes searched: ", NULL, 0, NULL, 0);
    /* The engine is in step: a full perft after it. */
    send("go perft 2");
    expect_prefix("Nodes searched: ", line, sizeof line, NULL, 0);
    cr_expect_str_eq(line, "Nodes searched: 400");

    send("bench 100");
    send("isready");
    expect_before("readyok", "info string bench", NULL, 0);
    send("stop");
    expect_prefix("info string bench: stopped after ", NULL, 0, NULL, 0);
    expect_prefix("", line, sizeof line, NULL, 0);
    regex_t re;
    cr_assert_eq(regcomp(&re, "^[0-9]+ nodes [0-9]+ nps$", REG_EXTENDED | REG_NOSUB), 0);
    cr_expect_eq(regexec(&re, line, 0, NULL, 0), 0, "last bench line: '%s'", line);
    regfree(&re);
    sync_engine(NULL, 0);

    send("go perft 9");
    send("quit");
    expect_prefix("Nodes searched: ", NULL, 0, NULL, 0);
    pthread_join(S.thread, NULL);
    S.running = false;
}

Test(uci, quit_during_a_search_ends_the_loop)
{
    send("position startpos");
    send("go infinite");
    char line[512];
    expect_prefix("info depth", line, sizeof line, NULL, 0);
    send("quit");
    /* The loop stops the search (which reports its move) and returns. */
    expect_bestmove(make_pos(START_FEN));
    pthread_join(S.thread, NULL);
    S.running = false;
}

Test(uci, end_of_input_ends_the_loop)
{
    send("isready");
    expect_prefix("readyok", NULL, 0, NULL, 0);
    close(S.to_engine);
    S.to_engine = -1;
    pthread_join(S.thread, NULL);
    S.running = false;
    char line[64];
    cr_expect(!next_line(line, sizeof line), "output after EOF: %s", line);
}

/* The bestmove as text, after waiting for it. */
static void read_bestmove(char *mv, size_t cap, char *seen, size_t seen_cap)
{
    char line[256];
    expect_prefix("bestmove ", line, sizeof line, seen, seen_cap);
    const char *m = line + strlen("bestmove ");
    size_t n = strcspn(m, " ");
    n = n < cap - 1 ? n : cap - 1;
    memcpy(mv, m, n);
    mv[n] = '\0';
}

Test(uci, searchmoves_restricts_the_root)
{
    char mv[16];
    static char seen[1 << 16];
    send("position startpos");
    send("go wtime 1000 btime 1000 searchmoves a2a3");
    read_bestmove(mv, sizeof mv, NULL, 0);
    cr_expect_str_eq(mv, "a2a3");

    /* The move list ends at the next go keyword: the clocks still count
     * (else this search would never end without `stop`). */
    send("go searchmoves b2b3 h2h3 wtime 300 btime 300");
    read_bestmove(mv, sizeof mv, NULL, 0);
    cr_expect(!strcmp(mv, "b2b3") || !strcmp(mv, "h2h3"), "played %s", mv);

    /* Every info line's PV starts with a listed move. */
    seen[0] = '\0';
    send("go depth 6 searchmoves g2g4");
    read_bestmove(mv, sizeof mv, seen, sizeof seen);
    cr_expect_str_eq(mv, "g2g4");
    for (char *l = strstr(seen, " pv "); l; l = strstr(l + 1, " pv "))
        cr_expect(!strncmp(l, " pv g2g4", 8), "PV outside searchmoves: %.40s", l);

    /* An illegal move in the list is reported and left out. */
    seen[0] = '\0';
    send("go depth 3 searchmoves e2e5 d2d3");
    read_bestmove(mv, sizeof mv, seen, sizeof seen);
    cr_expect_str_eq(mv, "d2d3");
    cr_expect(strstr(seen, "info string") && strstr(seen, "e2e5"), "%s", seen);
}

/* Every go ends in a bestmove: a malformed or missing value is named in an
 * info string and left out; if no limit is left, a short search stands in
 * for it (a GUI that expects a move sends no stop). */
Test(uci, a_malformed_limit_is_named_and_a_move_still_comes)
{
    static const char *bad[] = {"go depth", "go movetime x", "go mate 1.5", "go wtime 100 btime",
                                "go depth - wtime 50 btime 50", "go nodes wtime 50 btime 50",
                                "go nodes 0x10 wtime 50 btime 50"};
    Position *p = make_pos(START_FEN);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static char seen[1 << 16];
        char line[256], mv[16] = "";
        seen[0] = '\0';
        send("position startpos");
        send("%s", bad[i]);
        expect_prefix("bestmove ", line, sizeof line, seen, sizeof seen);
        sscanf(line, "bestmove %15s", mv);
        cr_expect_neq(parse_uci(p, mv), MOVE_NONE, "'%s': bestmove '%s' is not legal", bad[i], mv);
        cr_expect(strstr(seen, "info string go:") != NULL, "'%s': no message: %s", bad[i], seen);
    }
    /* A good go afterwards still searches. */
    send("go depth 2");
    expect_bestmove(p);
}

/* Values too large for the limit's type are clamped, negative ones read as
 * 0, and the search answers like any other. */
Test(uci, huge_and_negative_limits_are_clamped)
{
    static const char *bounded[] = {
        "go nodes 18446744073709551615 depth 2",
        "go nodes 99999999999999999999999999 depth 2",
        "go depth 99999999999999999999 nodes 2000",
        "go depth 9223372036854775807 nodes 2000",
        "go mate 9223372036854775807 nodes 2000",
        "go movetime 18446744073709551615 depth 2",
        ("go wtime 18446744073709551615 btime 18446744073709551615 winc 18446744073709551615 "
         "binc 18446744073709551615 movestogo 18446744073709551615 depth 2"),
        "go wtime -18446744073709551615 btime -5 winc -1 binc -1 movestogo -3",
        "go depth -99999999999999999999 nodes -1 movetime -7",
    };
    Position *p = make_pos(START_FEN);
    send("position startpos");
    for (size_t i = 0; i < sizeof bounded / sizeof bounded[0]; i++) {
        send("%s", bounded[i]);
        expect_bestmove(p);
    }
    /* 2^64 - 1 nodes alone: effectively unlimited, so it ends at stop. */
    char line[512];
    send("go nodes 18446744073709551615");
    expect_prefix("info depth", line, sizeof line, NULL, 0);
    send("stop");
    expect_bestmove(p);
    send("go movetime 18446744073709551615");
    expect_prefix("info depth", line, sizeof line, NULL, 0);
    send("stop");
    expect_bestmove(p);
}

Test(uci, go_ponder_is_refused_and_the_search_ends_by_itself)
{
    static char seen[1 << 16];
    seen[0] = '\0';
    send("uci");
    expect_prefix("uciok", NULL, 0, seen, sizeof seen);
    cr_expect(strstr(seen, "option name Ponder") == NULL, "Ponder is advertised but not implemented");
    seen[0] = '\0';
    send("position startpos moves e2e4");
    send("go ponder wtime 300 btime 300");
    Position *p = make_pos(START_FEN);
    pos_make(p, parse_uci(p, "e2e4"));
    char line[256];
    expect_prefix("bestmove ", line, sizeof line, seen, sizeof seen);
    cr_expect(strstr(seen, "info string go: ponder") != NULL, "%s", seen);
    send("ponderhit"); /* harmless after the search */
    sync_engine(NULL, 0);
}

Test(uci, a_mated_or_stalemated_root_prints_an_info_line)
{
    static const struct {
        const char *fen, *go, *info;
    } cases[] = {
        { "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", "go depth 3", "info depth 0 score mate 0\n" }, /* checkmated */
        { "8/8/8/8/8/2k5/1r6/K7 w - - 0 1", "go wtime 1000 btime 1000", "info depth 0 score cp 0\n" }, /* stalemate */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static char seen[1 << 12];
        char line[256];
        seen[0] = '\0';
        send("position fen %s", cases[i].fen);
        send("%s", cases[i].go);
        expect_prefix("bestmove", line, sizeof line, seen, sizeof seen);
        cr_expect_str_eq(line, "bestmove 0000");
        cr_expect(strstr(seen, cases[i].info) != NULL, "%s", seen);
    }
}

/* With nodestime the search stops on its node count: `go movetime 100` at
 * 100 nodes per ms, less the 10 ms MoveOverhead, is 9,000 nodes, and the
 * last info line before bestmove counts them all (a referee charges that
 * count), also when the last iteration was cut short. */
Test(uci, nodestime_stops_on_nodes_and_reports_them_all)
{
    Position *p = make_pos(START_FEN);
    char seen[1 << 14] = "";
    send("uci");
    expect_prefix("option name nodestime type spin default 0 min 0 max ", NULL, 0, NULL, 0);
    send("setoption name nodestime value -3");
    expect_prefix("info string nodestime: value '-3' is not an integer", NULL, 0, NULL, 0);
    send("setoption name nodestime value 100");
    send("setoption name MoveOverhead value 10");
    send("position startpos");
    for (int round = 0; round < 2; round++) {
        seen[0] = '\0';
        send("go movetime 100");
        char line[256];
        expect_prefix("bestmove ", line, sizeof line, seen, sizeof seen);
        char mv[16] = "";
        sscanf(line, "bestmove %15s", mv);
        cr_assert_neq(parse_uci(p, mv), MOVE_NONE, "%s", line);
        const char *last = NULL;
        for (const char *q = strstr(seen, " nodes "); q; q = strstr(q + 1, " nodes "))
            last = q;
        cr_assert_not_null(last, "%s", seen);
        cr_assert_eq(strtoll(last + 7, NULL, 10), 9000, "the last nodes reported:\n%s", seen);
    }
}
