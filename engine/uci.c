/* The UCI protocol.  A search, `go perft` and `bench` run on the search
 * thread, and `isready` is answered meanwhile.  `stop` and `quit` end any
 * of them; other commands (and the end of input) stop a search but let a
 * perft or bench run to its end, and then wait for the thread, so the
 * position, options and tables are never changed under it. */
#include "uci.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bench.h"
#include "board.h"
#include "engine.h"
#include "eval.h"
#include "paramfile.h"
#include "params.h"
#include "search.h"
#include "strlist.h"
#include "timeman.h"
#include "tt.h"

#define MAX_THREADS 256
#define MAX_OVERHEAD 5000
#define DEFAULT_OVERHEAD 10

/* What the search thread runs. */
typedef enum { JOB_SEARCH, JOB_PERFT, JOB_BENCH } Job;

typedef struct {
    FILE *out;
    Position *pos;          /* the game position */
    Searcher *searcher;
    pthread_t thread;
    bool running;           /* a search thread exists and has not been joined */
    atomic_bool stop;
    Job job;
    int job_depth;          /* of a perft or bench */
    SearchLimits limits;    /* read by the search thread while it runs */
    int threads;
    int overhead;
    int64_t nodestime;      /* nodes per ms of the clock; 0: the wall clock */
} Uci;

/* One protocol line, written at once (stdio locks the stream per call). */
static void say(Uci *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(Uci *u, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(u->out, "%s\n", buf);
    fflush(u->out);
}

/* ---- The search thread --------------------------------------------------- */

static void run_search(Uci *u)
{
    SearchResult res;
    search_run(u->searcher, u->pos, &u->limits, &u->stop, u->out, &res);

    /* After `go infinite` the bestmove waits for `stop`. */
    while (u->limits.infinite && !atomic_load(&u->stop)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    char best[8], ponder[8];
    move_to_uci(res.best, best);
    if (res.ponder != MOVE_NONE) {
        move_to_uci(res.ponder, ponder);
        say(u, "bestmove %s ponder %s", best, ponder);
    } else {
        say(u, "bestmove %s", best);
    }
}

/* Perft that polls `stop` above the last PERFT_POLL_DEPTH plies (where the
 * rules' bulk-counting perft runs, a millisecond or so at most). */
#define PERFT_POLL_DEPTH 3
static uint64_t perft_until(Position *p, int depth, atomic_bool *stop)
{
    if (depth <= PERFT_POLL_DEPTH)
        return perft(p, depth);
    if (atomic_load_explicit(stop, memory_order_relaxed))
        return 0;
    MoveList list;
    gen_legal(p, &list, GEN_ALL);
    uint64_t n = 0;
    for (int i = 0; i < list.count; i++) {
        pos_make(p, list.moves[i]);
        n += perft_until(p, depth - 1, stop);
        pos_unmake(p);
    }
    return n;
}

/* go perft N: the move: count split, then the total (Stockfish's format).
 * After `stop`, the moves counted whole so far and their total. */
static void run_perft(Uci *u)
{
    Position *p = malloc(sizeof *p);
    if (!p) {
        say(u, "info string go perft: out of memory");
        return;
    }
    memcpy(p, u->pos, offsetof(Position, st) + (size_t)(u->pos->hist + 1) * sizeof p->st[0]);
    int depth = u->job_depth;
    MoveList list;
    gen_legal(p, &list, GEN_ALL);
    uint64_t total = 0;
    int counted = 0;
    for (int i = 0; i < list.count; i++) {
        char mv[8];
        pos_make(p, list.moves[i]);
        uint64_t n = depth > 1 ? perft_until(p, depth - 1, &u->stop) : 1;
        pos_unmake(p);
        if (atomic_load(&u->stop))
            break;
        move_to_uci(list.moves[i], mv);
        say(u, "%s: %" PRIu64, mv, n);
        total += n;
        counted++;
    }
    if (counted < list.count)
        say(u, "info string go perft: stopped after %d of %d moves; the total counts those", counted, list.count);
    say(u, "%s", "");
    say(u, "Nodes searched: %" PRIu64, total);
    free(p);
}

static void *search_thread(void *arg)
{
    Uci *u = arg;
    if (u->job == JOB_PERFT) {
        run_perft(u);
    } else if (u->job == JOB_BENCH) {
        BenchResult r;
        bench_run_until(bench_fens, bench_count, u->job_depth, u->out, &u->stop, &r);
    } else {
        run_search(u);
    }
    return NULL;
}

/* Runs a job on the search thread (or, if no thread can be started, here:
 * a search then answers from depth 1). */
static void start_job(Uci *u, Job job)
{
    u->job = job;
    atomic_store(&u->stop, false);
    if (pthread_create(&u->thread, NULL, search_thread, u) == 0) {
        u->running = true;
        return;
    }
    if (job == JOB_SEARCH) {
        say(u, "info string go: cannot start the search thread; answering from depth 1");
        u->limits.infinite = false;
        u->limits.depth = 1;
    } else {
        say(u, "info string cannot start the search thread; running here (stop is not read meanwhile)");
    }
    search_thread(u);
}

/* Stops a running search (it prints its bestmove), or lets a perft or
 * bench finish, and waits for the thread. */
static void finish_search(Uci *u)
{
    if (!u->running)
        return;
    if (u->job == JOB_SEARCH)
        atomic_store(&u->stop, true);
    pthread_join(u->thread, NULL);
    u->running = false;
}

/* `stop` and `quit`: whatever runs ends now. */
static void stop_job(Uci *u)
{
    atomic_store(&u->stop, true);
    finish_search(u);
}

/* ---- Helpers ------------------------------------------------------------- */

/* A whole decimal integer in [lo, hi]. */
static bool parse_long(const char *text, long lo, long hi, long *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Splits a line into whitespace-separated tokens (in place). */
static int tokenize(char *line, char **tok, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
        tok[n++] = t;
    return n;
}

/* ---- Commands ------------------------------------------------------------ */

static void cmd_uci(Uci *u)
{
    if (params_baked())
        say(u, "id name %s (baked %s)", ENGINE_NAME, params_baked_tag());
    else
        say(u, "id name %s", ENGINE_NAME);
    say(u, "id author %s", ENGINE_AUTHOR);
    say(u, "option name Hash type spin default %d min 1 max %d", TT_DEFAULT_MB, TT_MAX_MB);
    say(u, "option name Threads type spin default 1 min 1 max %d", MAX_THREADS);
    say(u, "option name MoveOverhead type spin default %d min 0 max %d", DEFAULT_OVERHEAD, MAX_OVERHEAD);
    say(u, "option name nodestime type spin default 0 min 0 max %d", TM_MAX_NODES_PER_MS);
    say(u, "option name Clear Hash type button");
    if (!params_baked())
        say(u, "option name ParamsFile type string default <empty>");
    params_print_uci(u->out);
    say(u, "uciok");
}

static void cmd_setoption(Uci *u, char **tok, int n)
{
    /* setoption name <words...> [value <words...>] */
    char name[256] = "", value[256] = "";
    int i = 1;
    if (i < n && !strcmp(tok[i], "name"))
        i++;
    for (; i < n && strcmp(tok[i], "value"); i++)
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s%s", *name ? " " : "", tok[i]);
    bool has_value = i < n;
    for (i++; i < n; i++)
        snprintf(value + strlen(value), sizeof value - strlen(value), "%s%s", *value ? " " : "", tok[i]);

    long v;
    if (!*name) {
        say(u, "info string setoption: missing option name");
    } else if (!strcasecmp(name, "Clear Hash")) {
        tt_clear();
    } else if (!strcasecmp(name, "Hash")) {
        if (!parse_long(value, 1, TT_MAX_MB, &v))
            say(u, "info string Hash: value '%s' is not an integer in [1, %d]; kept %zu", value, TT_MAX_MB,
                tt_size_mb());
        else if (tt_resize((size_t)v) != 0)
            say(u, "info string Hash: cannot allocate %ld MB; kept %zu", v, tt_size_mb());
    } else if (!strcasecmp(name, "Threads")) {
        if (!parse_long(value, 1, MAX_THREADS, &v))
            say(u, "info string Threads: value '%s' is not an integer in [1, %d]; kept %d", value, MAX_THREADS,
                u->threads);
        else {
            u->threads = (int)v;
            if (v > 1)
                say(u, "info string Threads %ld accepted; this engine searches with one thread", v);
        }
    } else if (!strcasecmp(name, "MoveOverhead") || !strcasecmp(name, "Move Overhead")) {
        if (!parse_long(value, 0, MAX_OVERHEAD, &v))
            say(u, "info string MoveOverhead: value '%s' is not an integer in [0, %d]; kept %d", value,
                MAX_OVERHEAD, u->overhead);
        else
            u->overhead = (int)v;
    } else if (!strcasecmp(name, "nodestime")) {
        if (!parse_long(value, 0, TM_MAX_NODES_PER_MS, &v))
            say(u, "info string nodestime: value '%s' is not an integer in [0, %d]; kept %" PRId64, value,
                TM_MAX_NODES_PER_MS, u->nodestime);
        else
            u->nodestime = v;
    } else if (!strcasecmp(name, "ParamsFile")) {
        char err[1024];
        int named = *value ? paramfile_apply(value, err, sizeof err) : -1;
        if (!*value)
            say(u, "info string ParamsFile: no file given; parameters unchanged");
        else if (named < 0)
            say(u, "info string %s; parameters unchanged", err);
        else
            say(u, "info string ParamsFile: %d parameters from %s, the others at their defaults", named, value);
    } else {
        int idx = param_index(name);
        char err[256];
        if (idx < 0)
            say(u, "info string unknown option: %s", name);
        else if (!has_value || !parse_long(value, INT_MIN, INT_MAX, &v))
            say(u, "info string %s: value '%s' is not an integer; kept %d", param_specs[idx].name, value,
                param_get(idx));
        else if (param_set(idx, v, err, sizeof err) != 0)
            say(u, "info string %s; kept %d", err, param_get(idx));
    }
}

/* position startpos|fen <FEN> [moves m1 m2 ...]: all or nothing. */
static void cmd_position(Uci *u, char **tok, int n)
{
    Position *next = malloc(sizeof *next);
    if (!next) {
        say(u, "info string position: out of memory; position unchanged");
        return;
    }
    int i = 1;
    char err[256];
    if (i < n && !strcmp(tok[i], "startpos")) {
        pos_startpos(next);
        i++;
    } else if (i < n && !strcmp(tok[i], "fen")) {
        char fen[512] = "";
        for (i++; i < n && strcmp(tok[i], "moves"); i++)
            snprintf(fen + strlen(fen), sizeof fen - strlen(fen), "%s%s", *fen ? " " : "", tok[i]);
        if (pos_from_fen(next, fen, err, sizeof err) != 0) {
            say(u, "info string position: bad FEN '%s': %s; position unchanged", fen, err);
            free(next);
            return;
        }
    } else {
        say(u, "info string position: expected 'startpos' or 'fen'; position unchanged");
        free(next);
        return;
    }

    if (i < n && strcmp(tok[i], "moves")) {
        say(u, "info string position: unexpected '%s' (expected 'moves'); position unchanged", tok[i]);
        free(next);
        return;
    }
    for (i++; i < n; i++) {
        Move m = parse_uci(next, tok[i]);
        if (m == MOVE_NONE) {
            say(u, "info string position: illegal or malformed move '%s'; position unchanged", tok[i]);
            free(next);
            return;
        }
        /* A game of any length: the plies the draw rules no longer
         * reach make room. */
        if (!pos_has_room(next))
            pos_trim_history(next);
        pos_make(next, m);
    }
    /* Room for the search's own plies. */
    if (next->hist + MAX_PLY + 1 >= MAX_HISTORY)
        pos_trim_history(next);
    memcpy(u->pos, next, sizeof *next);
    free(next);
}

/* go perft N: checked here, counted on the search thread. */
static void cmd_perft(Uci *u, const char *arg)
{
    long depth;
    if (!parse_long(arg, 1, 64, &depth)) {
        say(u, "info string go perft: depth '%s' is not an integer in [1, 64]", arg ? arg : "");
        return;
    }
    u->job_depth = (int)depth;
    start_job(u, JOB_PERFT);
}

/* The go parameters that take a value, and all of its keywords. */
static const char *const go_valued[] = {"wtime", "btime", "winc", "binc", "movestogo",
                                        "depth", "nodes", "movetime", "mate", NULL};
static const char *const go_flags[] = {"searchmoves", "ponder", "infinite", "perft", NULL};

static bool is_go_keyword(const char *word)
{
    return str_in_list(go_valued, word) || str_in_list(go_flags, word);
}

/* go searchmoves m1 m2 ...: the list ends at the next go keyword (so
 * clocks written after it still count); illegal moves are reported and
 * left out.  Returns the index of the last token read. */
static int read_searchmoves(Uci *u, char **tok, int n, int i, SearchLimits *lim)
{
    for (; i + 1 < n && !is_go_keyword(tok[i + 1]); i++) {
        Move m = parse_uci(u->pos, tok[i + 1]);
        if (m == MOVE_NONE)
            say(u, "info string go: searchmoves: '%s' is not a legal move here; left out", tok[i + 1]);
        else if (lim->nsearchmoves < MAX_MOVES)
            lim->searchmoves[lim->nsearchmoves++] = m;
    }
    if (lim->nsearchmoves == 0)
        say(u, "info string go: searchmoves lists no legal move; searching all moves");
    return i;
}

/* The largest time a go limit keeps (ms, about 31 years): larger clocks,
 * increments and move times mean "no hurry", and the time manager's
 * arithmetic stays far from overflow. */
#define GO_MAX_MS 1000000000000LL
/* A go whose only limits were malformed searches this long rather than
 * until a `stop` that the GUI, expecting a move, will not send. */
#define GO_FALLBACK_MS 1000

/* A go limit's value: a whole decimal integer, clamped to [0, INT64_MAX]
 * (a GUI may send a negative clock after flagging, or 2^64 - 1 for "no
 * limit"); false when the text is missing or not an integer. */
static bool parse_go_value(const char *text, int64_t *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end)
        return false;
    if (errno == ERANGE)
        v = v < 0 ? 0 : LLONG_MAX;
    *out = v < 0 ? 0 : (int64_t)v;
    return true;
}

/* read_at: tm_now() when the line was read; the clock runs from then. */
static void cmd_go(Uci *u, char **tok, int n, int64_t read_at)
{
    SearchLimits *lim = &u->limits;
    search_limits_init(lim);
    lim->start = read_at;
    lim->overhead = u->overhead;
    lim->nodestime = u->nodestime;
    bool malformed = false;
    for (int i = 1; i < n; i++) {
        const char *key = tok[i];
        if (!strcmp(key, "perft")) {
            cmd_perft(u, i + 1 < n ? tok[i + 1] : NULL);
            return;
        }
        if (!strcmp(key, "infinite")) {
            lim->infinite = true;
            continue;
        }
        if (!strcmp(key, "ponder")) {
            say(u, "info string go: ponder is not supported (no Ponder option); searching this position now");
            continue;
        }
        if (!strcmp(key, "searchmoves")) {
            i = read_searchmoves(u, tok, n, i, lim);
            continue;
        }
        if (!str_in_list(go_valued, key)) {
            say(u, "info string go: unknown parameter '%s'; ignored", key);
            continue;
        }
        /* The value; a keyword in its place means it is missing (and the
         * keyword is read as one). */
        const char *val = i + 1 < n && !is_go_keyword(tok[i + 1]) ? tok[++i] : NULL;
        int64_t v;
        if (!parse_go_value(val, &v)) {
            say(u, "info string go: %s needs an integer value, got '%s'; %s ignored", key, val ? val : "", key);
            malformed = true;
            continue;
        }
        /* depth, nodes and movetime of 0 still ask for a move: the least search. */
        if (v == 0 && strcmp(key, "wtime") && strcmp(key, "btime") && strcmp(key, "winc") && strcmp(key, "binc")
            && strcmp(key, "movestogo"))
            v = 1;
        int64_t ms = v < GO_MAX_MS ? v : GO_MAX_MS;
        if (!strcmp(key, "wtime"))
            lim->time[WHITE] = ms;
        else if (!strcmp(key, "btime"))
            lim->time[BLACK] = ms;
        else if (!strcmp(key, "winc"))
            lim->inc[WHITE] = ms;
        else if (!strcmp(key, "binc"))
            lim->inc[BLACK] = ms;
        else if (!strcmp(key, "movestogo"))
            lim->movestogo = (int)(v < INT_MAX ? v : INT_MAX);
        else if (!strcmp(key, "depth"))
            lim->depth = (int)(v < MAX_PLY ? v : MAX_PLY);
        else if (!strcmp(key, "mate"))
            lim->depth = (int)(v < MAX_PLY / 2 ? 2 * v : MAX_PLY);
        else if (!strcmp(key, "nodes"))
            lim->nodes = (uint64_t)v;
        else if (!strcmp(key, "movetime"))
            lim->movetime = ms;
    }
    /* Malformed limits and nothing else: a short search, so a move comes. */
    if (malformed && !lim->infinite && !lim->depth && !lim->nodes && !lim->movetime && lim->time[WHITE] < 0
        && lim->time[BLACK] < 0) {
        say(u, "info string go: no valid limit left; searching for %d ms", GO_FALLBACK_MS);
        lim->movetime = GO_FALLBACK_MS;
    }
    /* Plain `go` with no limit at all searches until `stop`. */
    if (!lim->depth && !lim->nodes && !lim->movetime && lim->time[WHITE] < 0 && lim->time[BLACK] < 0)
        lim->infinite = true;
    /* A clock for the other side only: treat ours as zero, not as absent. */
    if (lim->time[u->pos->side] < 0 && lim->time[!u->pos->side] >= 0)
        lim->time[u->pos->side] = 0;

    start_job(u, JOB_SEARCH);
}

static void cmd_bench(Uci *u, char **tok, int n)
{
    long depth = BENCH_DEFAULT_DEPTH;
    if (n > 1 && !parse_long(tok[1], 1, MAX_PLY - 1, &depth)) {
        say(u, "info string bench: depth '%s' is not an integer in [1, %d]", tok[1], MAX_PLY - 1);
        return;
    }
    u->job_depth = (int)depth;
    start_job(u, JOB_BENCH);
}

/* `d`: the position as FEN (a debugging aid, as in Stockfish). */
static void cmd_display(Uci *u)
{
    char fen[128];
    pos_to_fen(u->pos, fen, sizeof fen);
    say(u, "info string fen %s", fen);
    say(u, "info string key %016" PRIx64 " eval %d", pos_key(u->pos), evaluate(u->pos));
}

/* ---- The loop ------------------------------------------------------------ */

int uci_loop(FILE *in, FILE *out)
{
    Uci u = {.out = out, .threads = 1, .overhead = DEFAULT_OVERHEAD};
    atomic_init(&u.stop, false);
    u.pos = malloc(sizeof *u.pos);
    u.searcher = searcher_new();
    if (!u.pos || !u.searcher) {
        fprintf(out, "info string out of memory\n");
        fflush(out);
        free(u.pos);
        searcher_free(u.searcher);
        return 1;
    }
    engine_init();
    pos_startpos(u.pos);

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) >= 0) {
        const int64_t read_at = tm_now();
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        /* A line of len characters has at most len / 2 + 1 tokens. */
        int max_tok = (int)(len / 2 + 1);
        char *copy = strdup(line);
        char **tok = malloc((size_t)max_tok * sizeof *tok);
        if (!copy || !tok) {
            free(copy);
            free(tok);
            say(&u, "info string out of memory reading a command; ignored");
            continue;
        }
        int n = tokenize(copy, tok, max_tok);
        if (n == 0) {
            free(copy);
            free(tok);
            continue;
        }
        const char *cmd = tok[0];
        bool quit = false;

        if (!strcmp(cmd, "isready")) {
            say(&u, "readyok");
        } else if (!strcmp(cmd, "stop")) {
            stop_job(&u);
        } else if (!strcmp(cmd, "quit")) {
            stop_job(&u);
            quit = true;
        } else if (!strcmp(cmd, "ponderhit")) {
            /* `go ponder` searches as a normal go (no Ponder option): nothing to do. */
        } else if (!strcmp(cmd, "uci")) {
            cmd_uci(&u);
        } else if (!strcmp(cmd, "ucinewgame")) {
            finish_search(&u);
            tt_clear();
            searcher_clear(u.searcher);
        } else if (!strcmp(cmd, "setoption")) {
            finish_search(&u);
            cmd_setoption(&u, tok, n);
        } else if (!strcmp(cmd, "position")) {
            finish_search(&u);
            cmd_position(&u, tok, n);
        } else if (!strcmp(cmd, "go")) {
            finish_search(&u);
            cmd_go(&u, tok, n, read_at);
        } else if (!strcmp(cmd, "bench")) {
            finish_search(&u);
            cmd_bench(&u, tok, n);
        } else if (!strcmp(cmd, "d")) {
            finish_search(&u);
            cmd_display(&u);
        } else {
            say(&u, "info string unknown command: %s", line);
        }
        free(copy);
        free(tok);
        if (quit)
            break;
    }
    finish_search(&u);
    free(line);
    free(u.pos);
    searcher_free(u.searcher);
    return 0;
}
