/* A small, fast UCI engine for the SPSA run tests: its strength depends on
 * its spin options, so a tuning run against it has something to find.
 *
 * Options (UCI spin): Alpha (0..100, default 50), Beta (0..100, default 50),
 * Gamma (-50..50, default 0), plus a `check` option Ponder that is not
 * tunable.  The optimum is Alpha=70 Beta=30 Gamma=10 (change with --target).
 *
 * How it plays: with probability p = exp(-d^2), where d is the distance of
 * the options from the optimum in units of 20 (--width), it plays a one-ply greedy
 * move (a mate if there is one, else the capture of the most valuable piece,
 * else a random move); otherwise a random legal move.  So an engine near the
 * optimum wins material and mates more often than one far from it.
 *
 *   --seed N            random seed (default: the process id)
 *   --seed-each-game    restart the random numbers from the seed at every
 *                       ucinewgame: a game then depends only on the options,
 *                       the opening and the moves, not on earlier games
 *   --target A,B,G      the optimum of Alpha, Beta, Gamma
 *   --clock-target A,B,G  the optimum when `go` gives a clock (wtime): an engine
 *                       whose best values depend on the limit it plays at
 *   --width W           the distance unit (default 20); a larger W gives a landscape
 *                       with a slope far from the optimum (for runs from a far start)
 *   --think MS          sleep MS before each bestmove (to keep a run busy)
 *   --no-gamma          do not advertise Gamma (a parameter the engine lacks)
 *   --flat NAME         advertise and accept option NAME (Alpha, Beta or Gamma) but
 *                       play as if it sat at its optimum: a parameter the games ignore
 *   --more-options      also advertise options as third-party engines have
 *                       them (they do not change how it plays):
 *                         option name Skill Level type spin default 5 min 0 max 20
 *                         option name Move  Overhead type spin default 10 min 0 max 5000
 *                         option name Slow Mover type string default 0.8
 *   --nodestime         also advertise `option name nodestime type spin` (a clock
 *                       counted in nodes: the engine reports 1 node a move)
 *   --nodes-per-ms R    with --think MS: report R x MS nodes a move instead of 1, an
 *                       engine that searches R nodes a ms of its thinking
 *   --option-log FILE   append "NAME=VALUE" for every setoption to FILE
 *   --crash-after N     answer N `go`, then die by SIGKILL at the next one (a
 *                       restarted engine counts again from 0)
 */
#include "board.h"
#include "fakelib.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NOPT = 3 };
static const char *const opt_name[NOPT] = { "Alpha", "Beta", "Gamma" };
static const int opt_min[NOPT] = { 0, 0, -50 };
static const int opt_max[NOPT] = { 100, 100, 50 };
static int opt_val[NOPT] = { 50, 50, 0 };
static int target[NOPT] = { 70, 30, 10 };
static int clock_target[NOPT];
static bool has_clock_target, on_clock; /* on_clock: the current `go` gave wtime */
static long think_ms, nodes_per_ms;
static double width = 20;
static bool no_gamma, more_options, has_nodestime;
static bool flat[NOPT];
static const char *option_log;
static bool seed_each_game;
static long crash_after = -1, gocount;

static double strength(void)
{
    double d2 = 0;
    for (int i = 0; i < NOPT; i++) {
        if (flat[i])
            continue;
        double d = (opt_val[i] - (has_clock_target && on_clock ? clock_target[i] : target[i])) / width;
        d2 += d * d;
    }
    return exp(-d2);
}

static bool is_mate_after(Position *pos, Move m)
{
    pos_make(pos, m);
    MoveList replies;
    gen_legal(pos, &replies, GEN_ALL);
    bool mate = replies.count == 0 && pos_in_check(pos);
    pos_unmake(pos);
    return mate;
}

static Move greedy(Position *pos, const MoveList *list, gsl_rng *rng)
{
    static const int value[6] = { 1, 3, 3, 5, 9, 0 };
    Move best = MOVE_NONE;
    int best_v = -1;
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        if (is_mate_after(pos, m))
            return m;
        if (move_is_capture(m)) {
            int victim = pos_piece_on(pos, move_to(m));
            int v = victim == NO_PIECE ? 1 : value[piece_type(victim)]; /* en passant: a pawn */
            if (v > best_v) {
                best_v = v;
                best = m;
            }
        }
    }
    return best != MOVE_NONE ? best : list->moves[gsl_rng_uniform_int(rng, (unsigned long)list->count)];
}

static void go(Position *pos, gsl_rng *rng)
{
    if (think_ms > 0)
        fake_sleep_ms(think_ms);
    MoveList list;
    gen_legal(pos, &list, GEN_ALL);
    char uci[8] = "0000";
    if (list.count > 0) {
        Move m = gsl_rng_uniform(rng) < strength() ? greedy(pos, &list, rng)
                                                   : list.moves[gsl_rng_uniform_int(rng, (unsigned long)list.count)];
        move_to_uci(m, uci);
    }
    printf("info depth 1 nodes %ld score cp 0 pv %s\nbestmove %s\n", nodes_per_ms > 0 ? nodes_per_ms * think_ms : 1,
           uci, uci);
}

static void setoption(char *line)
{
    char *name = line + strlen("setoption name "), *val = strstr(name, " value ");
    if (!val)
        return;
    *val = '\0';
    val += strlen(" value ");
    if (option_log) {
        FILE *f = fopen(option_log, "a");
        if (f) {
            fprintf(f, "%s=%s\n", name, val);
            fclose(f);
        }
    }
    for (int i = 0; i < NOPT; i++)
        if (strcmp(name, opt_name[i]) == 0 && !(i == 2 && no_gamma)) {
            int v = atoi(val);
            opt_val[i] = v < opt_min[i] ? opt_min[i] : v > opt_max[i] ? opt_max[i] : v;
        }
}

int main(int argc, char **argv)
{
    unsigned long seed = (unsigned long)getpid();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--target") && i + 1 < argc)
            sscanf(argv[++i], "%d,%d,%d", &target[0], &target[1], &target[2]);
        else if (!strcmp(argv[i], "--clock-target") && i + 1 < argc)
            has_clock_target =
                sscanf(argv[++i], "%d,%d,%d", &clock_target[0], &clock_target[1], &clock_target[2]) == 3;
        else if (!strcmp(argv[i], "--width") && i + 1 < argc && (width = strtod(argv[i + 1], NULL)) > 0)
            i++;
        else if (!strcmp(argv[i], "--think") && i + 1 < argc)
            think_ms = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--nodes-per-ms") && i + 1 < argc)
            nodes_per_ms = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--no-gamma"))
            no_gamma = true;
        else if (!strcmp(argv[i], "--flat") && i + 1 < argc) {
            i++;
            int k = 0;
            while (k < NOPT && strcmp(argv[i], opt_name[k]) != 0)
                k++;
            if (k == NOPT) {
                fprintf(stderr, "fakespsa: --flat %s: not an option (Alpha, Beta, Gamma)\n", argv[i]);
                return 2;
            }
            flat[k] = true;
        }
        else if (!strcmp(argv[i], "--more-options"))
            more_options = true;
        else if (!strcmp(argv[i], "--nodestime"))
            has_nodestime = true;
        else if (!strcmp(argv[i], "--option-log") && i + 1 < argc)
            option_log = argv[++i];
        else if (!strcmp(argv[i], "--seed-each-game"))
            seed_each_game = true;
        else if (!strcmp(argv[i], "--crash-after") && i + 1 < argc)
            crash_after = strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "fakespsa: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    rules_init();
    Position *pos = malloc(sizeof *pos);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!pos || !rng)
        return 1;
    gsl_rng_set(rng, seed);
    pos_startpos(pos);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!strcmp(line, "uci")) {
            printf("id name fakespsa\nid author ratchet tests\n");
            for (int i = 0; i < NOPT; i++)
                if (!(i == 2 && no_gamma))
                    printf("option name %s type spin default %d min %d max %d\n", opt_name[i], opt_val[i],
                           opt_min[i], opt_max[i]);
            if (more_options)
                printf("option name Skill Level type spin default 5 min 0 max 20\n"
                       "option name Move  Overhead type spin default 10 min 0 max 5000\n"
                       "option name Slow Mover type string default 0.8\n");
            if (has_nodestime)
                printf("option name nodestime type spin default 0 min 0 max 10000\n");
            printf("option name Ponder type check default false\nuciok\n");
        } else if (!strcmp(line, "ucinewgame")) {
            if (seed_each_game)
                gsl_rng_set(rng, seed);
        } else if (!strcmp(line, "isready")) {
            printf("readyok\n");
        } else if (!strncmp(line, "setoption name ", 15)) {
            setoption(line);
        } else if (!strncmp(line, "position", 8)) {
            fake_position(pos, line);
        } else if (!strncmp(line, "go", 2)) {
            if (crash_after >= 0 && ++gocount > crash_after)
                kill(getpid(), SIGKILL);
            on_clock = strstr(line, " wtime ") != NULL;
            go(pos, rng);
        } else if (!strcmp(line, "quit")) {
            break;
        }
        fflush(stdout);
    }
    free(line);
    free(pos);
    gsl_rng_free(rng);
    return 0;
}
