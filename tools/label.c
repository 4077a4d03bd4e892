/* ratchet-label: labels quiet positions from games with a UCI engine's
 * expected score, for `ratchet-texel -e`.
 *
 * The positions come from PGN files as bin/ratchet-tune writes them: each
 * game is replayed with the engine's board code and, past the first plies,
 * one position in --every (GSL's random numbers, --seed) is kept when it is
 * quiet (not in check, with a legal move, and the quiescence search returns
 * the static eval it stands pat with: ratchet-texel's filter).  Each is
 * searched by the labelling engine from a new game (`ucinewgame`, then
 * `go nodes N`, UCI_ShowWDL on) and
 * labelled with win + draw / 2 of its last `wdl`, turned to White's view.
 * The output is an EPD, "FEN [0.734]" per line, in the order of the games,
 * written through a temporary file, fsync and rename.
 *
 * Several engines may label at once (--concurrency).  An engine that dies
 * or does not answer in time is named with the position, started again,
 * and the position is left out and counted; so is a position whose last
 * wdl is malformed (`wdl 0 0 0`, a count missing or not a number), or
 * whose bestmove comes without a wdl from an engine that reported one
 * before.  An engine that never reports a wdl stops the run, since it
 * cannot label; so do three failures in a row.  A stopped run still
 * writes the positions labelled before it stopped (and exits 1). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "cliutil.h"
#include "errmsg.h"
#include "growarray.h"
#include "board.h"
#include "engine_proc.h"
#include "pgnscan.h"
#include "rd.h"
#include "search.h"
#include "engine.h"

enum { MAX_OPTS = 32, MAX_JOBS = 64, FAILS_IN_A_ROW = 3 };

typedef struct {
    const char *out, *engine;
    EngineOption opts[MAX_OPTS];
    int nopts;
    long nodes, every, skip, jobs, timeout_ms;
    unsigned long seed;
    bool quiet;
} Options;

/* A position to label: its FEN's first four fields and, once labelled, the
 * expected score for White (-1 while unlabelled or left out). */
typedef struct {
    char fen[128];
    float label;
} Item;

typedef struct {
    Item *items;
    size_t n, cap;
    bool oom;
} Items;

/* ---- Sampling the games ------------------------------------------------- */

typedef struct {
    const Options *o;
    const char *path;
    Items *items;
    gsl_rng *rng;
    Searcher *searcher;
    Position *pos;
    PgnGame g; /* the game being read */
    long games, bad, positions;
} Reader;

static void on_tag(void *ctx, int number, const char *name, const char *value, long line)
{
    pgn_game_on_tag(&((Reader *)ctx)->g, number, name, value, line);
}

static void on_move(void *ctx, int number, const char *san, size_t len, long line)
{
    Reader *r = ctx;
    if (!pgn_game_on_move(&r->g, number, san, len, line))
        r->items->oom = true;
}

/* Keeps p when the draw picks it and it is quiet. */
static void consider(Reader *r, const Position *p)
{
    r->positions++;
    if (gsl_rng_uniform_int(r->rng, (unsigned long)r->o->every) != 0 || pos_in_check(p))
        return;
    MoveList ml;
    gen_legal(p, &ml, GEN_ALL);
    if (ml.count == 0 || search_qsearch(r->searcher, p) != search_static_eval(r->searcher, p))
        return;
    Items *it = r->items;
    if (!grow_array((void **)&it->items, &it->cap, it->n + 1, sizeof *it->items)) {
        it->oom = true;
        return;
    }
    char fen[128];
    pos_to_fen(p, fen, sizeof fen);
    /* The four fields an EPD has: placement, side, castling, en passant. */
    char *f = fen;
    for (int field = 0; field < 4 && *f; field++) {
        f = strchr(f, ' ');
        if (!f)
            break;
        if (field < 3)
            f++;
    }
    if (f)
        *f = '\0';
    Item *item = &it->items[it->n++];
    snprintf(item->fen, sizeof item->fen, "%s", fen);
    item->label = -1;
}

static void on_end(void *ctx, int number, const char *end, long line)
{
    Reader *r = ctx;
    (void)end;
    pgn_game_begin(&r->g, number, line);
    if (r->items->oom)
        return;
    r->games++;
    Position *p = r->pos;
    char err[160];
    if (pgn_game_start(&r->g, p, err, sizeof err) != 0) {
        fprintf(stderr, "%s:%ld: game %d: bad FEN tag: %s; game skipped\n", r->path, r->g.line, number, err);
        r->bad++;
        return;
    }
    for (size_t k = 0; k < r->g.nply; k++) {
        /* A game of any length: the plies the draw rules no longer reach
         * make room. */
        if (!pos_has_room(p))
            pos_trim_history(p);
        Move m = parse_san(p, r->g.plies[k].san);
        if (m == MOVE_NONE) {
            fprintf(stderr, "%s:%ld: game %d: illegal or unreadable move '%s' at ply %zu; rest of the game skipped\n",
                    r->path, r->g.plies[k].line, number, r->g.plies[k].san, k + 1);
            r->bad++;
            return;
        }
        pos_make(p, m);
        if ((long)k + 1 >= r->o->skip)
            consider(r, p);
    }
}

static void on_warn(void *ctx, long line, const char *msg)
{
    Reader *r = ctx;
    fprintf(stderr, "%s:%ld: %s\n", r->path, line, msg);
}

/* Adds the sampled positions of one PGN file; -1 when it cannot be read. */
static int sample_file(Reader *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ratchet-label: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t len;
    char *buf = pgn_read_file(f, &len);
    int saved = errno;
    fclose(f);
    if (!buf) {
        fprintf(stderr, "ratchet-label: cannot read %s: %s\n", path, strerror(saved));
        return -1;
    }
    r->path = path;
    r->g.number = 0;
    PgnScanEvents ev = {r, on_tag, on_move, on_end, on_warn};
    pgn_scan(buf, len, &ev);
    free(buf);
    return 0;
}

/* ---- Labelling ---------------------------------------------------------- */

typedef struct {
    const Options *o;
    Items *items;
    atomic_size_t next;
    atomic_int stop;   /* a fatal error: every worker ends */
    atomic_long done, left_out;
    pthread_mutex_t mu; /* the messages and the fatal one */
    char fatal[512];
} Shared;

typedef struct {
    Shared *sh;
    int id;
    char name[32];
    char **argv;
} Worker;

static void fail(Shared *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Shared *sh, const char *fmt, ...)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->fatal[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sh->fatal, sizeof sh->fatal, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&sh->mu);
    atomic_store(&sh->stop, 1);
}

/* FAILED: the engine died, hung or could not be written to (restart it);
 * BAD_WDL: its last wdl was malformed; NO_WDL: a bestmove without any. */
typedef enum { LABEL_OK, LABEL_NO_WDL, LABEL_BAD_WDL, LABEL_FAILED } LabelResult;

/* Searches one position; *score is the side to move's expected score. */
static LabelResult label_one(EngineProc *e, const Options *o, const char *fen, double *score, char *why,
                             size_t whylen, const atomic_int *stop)
{
    /* A new game for each position: a label must not depend on what the
     * engine's hash remembers of the positions it saw before, nor on
     * which engine of several got it. */
    int64_t deadline = ep_now_ms() + o->timeout_ms;
    char cmd[192];
    if (ep_send(e, "ucinewgame") < 0 || ep_send(e, "isready") < 0) {
        errmsg(why, whylen, "could not be written to");
        return LABEL_FAILED;
    }
    EpWait ready = ep_wait_for(e, "readyok", deadline, stop);
    if (ready != EP_LINE) {
        errmsg(why, whylen, ready == EP_TIMEOUT ? "gave no readyok within %ld ms" : "died before readyok",
               o->timeout_ms);
        if (ready == EP_EOF)
            ep_kill(e);
        return LABEL_FAILED;
    }
    snprintf(cmd, sizeof cmd, "position fen %s 0 1", fen);
    if (ep_send(e, cmd) < 0 || (snprintf(cmd, sizeof cmd, "go nodes %ld", o->nodes), ep_send(e, cmd)) < 0) {
        errmsg(why, whylen, "could not be written to");
        return LABEL_FAILED;
    }
    *score = -1;
    char bad[96] = ""; /* the last malformed wdl line, when it came after the last good one */
    for (;;) {
        const char *line;
        EpWait w = ep_read_line(e, deadline, stop, &line);
        if (w == EP_TIMEOUT) {
            errmsg(why, whylen, "gave no bestmove within %ld ms", o->timeout_ms);
            return LABEL_FAILED;
        }
        if (w == EP_EOF) {
            char ex[64];
            ep_kill(e); /* reaps it, so that the exit can be told */
            ep_describe_exit(e, ex, sizeof ex);
            errmsg(why, whylen, "%s", ex);
            return LABEL_FAILED;
        }
        if (w == EP_STOPPED) {
            errmsg(why, whylen, "stopped");
            return LABEL_FAILED;
        }
        if (!strncmp(line, "info ", 5)) {
            double s;
            int got = ep_wdl_read(line, &s);
            if (got == 1) {
                *score = s;
                bad[0] = '\0';
            } else if (got < 0) {
                *score = -1;
                /* "wdl" and the (up to) three words after it. */
                const char *wdl = strstr(line, "wdl"), *end = wdl;
                for (int words = 0; end && *end && words < 4; words++) {
                    end += strspn(end, " \t");
                    end += strcspn(end, " \t");
                }
                snprintf(bad, sizeof bad, "%.*s", wdl ? (int)(end - wdl) : 0, wdl ? wdl : "");
            }
        } else if (!strncmp(line, "bestmove", 8) && (line[8] == ' ' || line[8] == '\0')) {
            if (*score >= 0)
                return LABEL_OK;
            if (bad[0]) {
                errmsg(why, whylen, "reported a malformed '%.60s'", bad);
                return LABEL_BAD_WDL;
            }
            errmsg(why, whylen, "gave a bestmove without a wdl");
            return LABEL_NO_WDL;
        }
    }
}

static void *worker_main(void *arg)
{
    Worker *wk = arg;
    Shared *sh = wk->sh;
    const Options *o = sh->o;
    EngineLaunch launch = {.name = wk->name, .cmd = wk->argv[0], .argv = wk->argv + 1, .opts = o->opts,
                           .nopts = o->nopts, .startup_ms = 10000};
    EngineProc e;
    ep_init(&e, &launch);
    char err[512];
    if (ep_start(&e, err, sizeof err) < 0) {
        fail(sh, "%s", err);
        ep_destroy(&e);
        return NULL;
    }
    if (!ep_has_option(&e, "UCI_ShowWDL")) {
        fail(sh, "engine '%s' (%s) has no UCI_ShowWDL option: it cannot report win/draw/loss", wk->name, o->engine);
        ep_quit(&e, 1000);
        ep_destroy(&e);
        return NULL;
    }
    int fails = 0;
    bool had_wdl = false; /* this engine has reported a good wdl before */
    while (!atomic_load(&sh->stop)) {
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->items->n)
            break;
        Item *item = &sh->items->items[i];
        double score;
        char why[160];
        LabelResult r = label_one(&e, o, item->fen, &score, why, sizeof why, &sh->stop);
        if (r == LABEL_OK) {
            fails = 0;
            had_wdl = true;
            item->label = (float)(strstr(item->fen, " w ") ? score : 1.0 - score);
            atomic_fetch_add(&sh->done, 1);
            continue;
        }
        if (r == LABEL_NO_WDL && !had_wdl) {
            fail(sh, "engine '%s' (%s) gave a bestmove without a wdl for %s: it must report wdl with UCI_ShowWDL",
                 wk->name, o->engine, item->fen);
            break;
        }
        if (atomic_load(&sh->stop))
            break;
        /* A bad answer from a live engine leaves it in step: no restart. */
        bool restart = r == LABEL_FAILED;
        atomic_fetch_add(&sh->left_out, 1);
        pthread_mutex_lock(&sh->mu);
        fprintf(stderr, "ratchet-label: engine '%s' (%s) %s on %s; position left out%s\n", wk->name, o->engine, why,
                item->fen, restart ? ", engine restarted" : "");
        pthread_mutex_unlock(&sh->mu);
        if (++fails >= FAILS_IN_A_ROW) {
            fail(sh, "engine '%s' (%s) failed on %d positions in a row (the last: %s)", wk->name, o->engine, fails,
                 why);
            break;
        }
        if (restart && ep_restart(&e, err, sizeof err) < 0) {
            fail(sh, "%s", err);
            break;
        }
    }
    ep_quit(&e, 1000);
    ep_destroy(&e);
    return NULL;
}

/* ---- Command line -------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: ratchet-label [options] GAMES.pgn... -o OUT.epd\n"
        "\n"
        "Labels quiet positions from games with a UCI engine's expected score, for\n"
        "ratchet-texel -e: one position in N past the opening plies, kept when quiet\n"
        "(ratchet-texel's filter), searched with `go nodes` and UCI_ShowWDL, and\n"
        "written as \"FEN [win + draw / 2 for White]\" in the order of the games.\n"
        "\n"
        "  -o, --out FILE          the EPD to write (temporary file, fsync, rename)\n"
        "  -E, --engine CMD        the labelling engine, a command with arguments\n"
        "                          (default /usr/games/stockfish)\n"
        "  -O, --option NAME=VALUE a UCI option for it (repeatable; names may have spaces)\n"
        "  -n, --nodes N           nodes per position (default 5000)\n"
        "  -e, --every N           one position in N is drawn (default 16)\n"
        "  -s, --skip N            plies at the start of a game not used (default 8)\n"
        "  -j, --concurrency N     engines at once (default 1)\n"
        "  -S, --seed N            seed of the draw (default 1)\n"
        "  -T, --timeout MS        longest wait for one position's bestmove (default 60000)\n"
        "  -q, --quiet             no progress lines\n"
        "\n"
        "A game with a bad FEN or an illegal move is cut there, with a message\n"
        "FILE:LINE.  An engine that dies or hangs is started again and the position\n"
        "left out, with a message naming both; so is a position with a malformed\n"
        "wdl (e.g. \"wdl 0 0 0\"), or without one from an engine that reported one\n"
        "before.  Three failures in a row, an engine without UCI_ShowWDL, or one\n"
        "that never reports a wdl stop the run (exit 1); the positions labelled\n"
        "before that are written.\n");
}

static int add_option(Options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || o->nopts >= MAX_OPTS || (size_t)(eq - arg) >= sizeof o->opts[0].name
        || strlen(eq + 1) >= sizeof o->opts[0].value) {
        fprintf(stderr, "ratchet-label: --option wants NAME=VALUE (at most %d, names under %zu characters), got '%s'\n",
                MAX_OPTS, sizeof o->opts[0].name, arg);
        return -1;
    }
    EngineOption *op = &o->opts[o->nopts++];
    snprintf(op->name, sizeof op->name, "%.*s", (int)(eq - arg), arg);
    snprintf(op->value, sizeof op->value, "%s", eq + 1);
    return 0;
}

static int parse_options(int argc, char **argv, Options *o)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},     {"engine", required_argument, NULL, 'E'},
        {"option", required_argument, NULL, 'O'},  {"nodes", required_argument, NULL, 'n'},
        {"every", required_argument, NULL, 'e'},   {"skip", required_argument, NULL, 's'},
        {"concurrency", required_argument, NULL, 'j'}, {"seed", required_argument, NULL, 'S'},
        {"timeout", required_argument, NULL, 'T'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    int c;
    long v;
    while ((c = getopt_long(argc, argv, "o:E:O:n:e:s:j:S:T:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'E': o->engine = optarg; break;
        case 'O':
            if (add_option(o, optarg))
                return -1;
            break;
        case 'n':
            if (cli_long_arg("ratchet-label", "--nodes", optarg, 1, 1000000000L, &o->nodes))
                return -1;
            break;
        case 'e':
            if (cli_long_arg("ratchet-label", "--every", optarg, 1, 1000000, &o->every))
                return -1;
            break;
        case 's':
            if (cli_long_arg("ratchet-label", "--skip", optarg, 0, 1000, &o->skip))
                return -1;
            break;
        case 'j':
            if (cli_long_arg("ratchet-label", "--concurrency", optarg, 1, MAX_JOBS, &o->jobs))
                return -1;
            break;
        case 'S':
            if (cli_long_arg("ratchet-label", "--seed", optarg, 0, 2147483647L, &v))
                return -1;
            o->seed = (unsigned long)v;
            break;
        case 'T':
            if (cli_long_arg("ratchet-label", "--timeout", optarg, 100, 86400000L, &o->timeout_ms))
                return -1;
            break;
        case 'q': o->quiet = true; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (!o->out) {
        fprintf(stderr, "ratchet-label: no output file (-o OUT.epd)\n");
        return -1;
    }
    if (optind >= argc) {
        fprintf(stderr, "ratchet-label: no PGN file given\n");
        usage(stderr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Options o = {.engine = "/usr/games/stockfish", .nodes = 5000, .every = 16, .skip = 8, .jobs = 1,
                 .timeout_ms = 60000, .seed = 1};
    if (parse_options(argc, argv, &o))
        return 2;
    /* UCI_ShowWDL goes first; a user's own setting of it comes after. */
    memmove(&o.opts[1], &o.opts[0], (size_t)o.nopts * sizeof o.opts[0]);
    o.opts[0] = (EngineOption){"UCI_ShowWDL", "true"};
    o.nopts++;
    char err[256];
    char **words = ep_split_args(o.engine, err, sizeof err);
    if (!words || !words[0]) {
        fprintf(stderr, "ratchet-label: --engine '%s': %s\n", o.engine, words ? "no command" : err);
        ep_free_argv(words);
        return 2;
    }

    engine_init();
    Items items = {0};
    Reader r = {.o = &o, .items = &items, .rng = gsl_rng_alloc(gsl_rng_mt19937), .searcher = searcher_new(),
                .pos = malloc(sizeof(Position))};
    if (!r.rng || !r.searcher || !r.pos) {
        fprintf(stderr, "ratchet-label: out of memory\n");
        return 1;
    }
    gsl_rng_set(r.rng, o.seed);
    int rc = 0;
    for (int a = optind; a < argc && rc == 0; a++)
        if (sample_file(&r, argv[a]))
            rc = 1;
    if (!rc && items.oom) {
        fprintf(stderr, "ratchet-label: out of memory while reading the games\n");
        rc = 1;
    }
    if (!o.quiet && !rc)
        fprintf(stderr, "%ld games (%ld cut short), %ld positions past the first %ld plies: %zu drawn and quiet\n",
                r.games, r.bad, r.positions, o.skip, items.n);

    Shared sh = {.o = &o, .items = &items};
    pthread_mutex_init(&sh.mu, NULL);
    if (!rc && items.n > 0) {
        int jobs = (int)(o.jobs < (long)items.n ? o.jobs : (long)items.n);
        Worker wk[MAX_JOBS];
        pthread_t th[MAX_JOBS];
        int started = 0;
        for (int j = 0; j < jobs; j++) {
            wk[j] = (Worker){.sh = &sh, .id = j, .argv = words};
            snprintf(wk[j].name, sizeof wk[j].name, "labeller-%d", j + 1);
            if (pthread_create(&th[j], NULL, worker_main, &wk[j]) != 0) {
                fail(&sh, "cannot start a thread");
                break;
            }
            started++;
        }
        int64_t t0 = ep_now_ms(), last = t0;
        for (;;) {
            struct timespec ts = {0, 200 * 1000000L};
            nanosleep(&ts, NULL);
            long done = atomic_load(&sh.done), out = atomic_load(&sh.left_out);
            bool finished = (size_t)(done + out) >= items.n || atomic_load(&sh.stop);
            if (!o.quiet && (ep_now_ms() - last >= 10000 || finished)) {
                last = ep_now_ms();
                fprintf(stderr, "labelled %ld of %zu (%ld left out), %.0f s\n", done, items.n, out,
                        (last - t0) / 1000.0);
            }
            if (finished)
                break;
        }
        for (int j = 0; j < started; j++)
            pthread_join(th[j], NULL);
    }
    /* A stopped run keeps what was labelled before it stopped. */
    bool stopped = sh.fatal[0] != '\0';
    if (stopped && atomic_load(&sh.done) == 0) {
        fprintf(stderr, "ratchet-label: %s; nothing written\n", sh.fatal);
        rc = 1;
    }

    if (!rc) {
        /* the buffer holds what the rows print, measured first */
        size_t cap = 1, len = 0;
        for (size_t i = 0; i < items.n; i++)
            if (items.items[i].label >= 0)
                cap += (size_t)snprintf(NULL, 0, "%s [%.3f]\n", items.items[i].fen, items.items[i].label);
        char *text = malloc(cap);
        if (!text) {
            fprintf(stderr, "ratchet-label: out of memory\n");
            rc = 1;
        } else {
            size_t written = 0;
            for (size_t i = 0; i < items.n; i++)
                if (items.items[i].label >= 0) {
                    len = appendf(text, cap, len, "%s [%.3f]\n", items.items[i].fen, items.items[i].label);
                    written++;
                }
            if (rd_write_atomic(o.out, text, len, err, sizeof err) < 0) {
                fprintf(stderr, "ratchet-label: %s\n", err);
                rc = 1;
            } else if (stopped) {
                fprintf(stderr, "ratchet-label: %s; wrote %s with the %zu positions labelled before it\n", sh.fatal,
                        o.out, written);
                rc = 1;
            } else if (!o.quiet) {
                fprintf(stderr, "wrote %s: %zu labelled positions (%ld left out)\n", o.out, written,
                        atomic_load(&sh.left_out));
            }
            free(text);
        }
    }
    pthread_mutex_destroy(&sh.mu);
    free(items.items);
    pgn_game_free(&r.g);
    free(r.pos);
    searcher_free(r.searcher);
    gsl_rng_free(r.rng);
    ep_free_argv(words);
    return rc;
}
