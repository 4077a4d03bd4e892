/* A fake UCI engine whose game results are a known linear function of its
 * spin options: for the random-balance ablation's tests (`verify -ablate`).
 *
 * Options (UCI spin, default 100, 0..200), named as a real engine's
 * techniques so that groups=auto groups them by prefix: LmrBase, LmrScale,
 * NmpDepth, RfpMargin, SeeMargin.
 *
 * How it plays: at every `go` it "collapses" with probability
 *
 *     p = 0.5 - sum_i effect_i * (option_i - 100)     (clamped to 0..1)
 *
 * reporting "score cp -1000" (a loss under -resign movecount=1 score=1000),
 * else "score cp 0"; the move is always the first legal one.  The uniform
 * number that decides is drawn from a GSL generator seeded with a hash of
 * the `position` command (and --seed): a game is a function of its opening
 * and the two engines' options, whatever process plays it.
 *
 * Under -resign movecount=1 score=1000 -maxmoves 1 a game is one move each:
 * White loses when it collapses, else Black loses when it does, else a
 * draw.  Over a pair (each engine White once) engine A's points minus engine
 * B's are then 2 (p_B - p_A) in expectation, exactly linear in the options:
 * an ablation's group effect is 2 sum over the group of effect_i * (tuned_i
 * - start_i).
 *
 *   --effect NAME=E     effect_i of option NAME (default 0 for every option)
 *   --seed N            mixed into the hash (default 1)
 *   --think MS          sleep MS before each bestmove
 *   --illegal-at NAME=V answer "bestmove 0000" (not a legal move: the game is
 *                       lost by forfeit) while option NAME is V
 */
#include "board.h"
#include "fakelib.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NOPT = 5 };
static const char *const opt_name[NOPT] = { "LmrBase", "LmrScale", "NmpDepth", "RfpMargin", "SeeMargin" };
static int opt_val[NOPT] = { 100, 100, 100, 100, 100 };
static double effect[NOPT];
static unsigned long seed = 1;
static long think_ms;
static uint64_t position_hash;
static int illegal_opt = -1, illegal_val;

static int option_index(const char *name)
{
    for (int i = 0; i < NOPT; i++)
        if (!strcmp(name, opt_name[i]))
            return i;
    return -1;
}

/* FNV-1a of the text, with the seed. */
static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)seed;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static double collapse_probability(void)
{
    double p = 0.5;
    for (int i = 0; i < NOPT; i++)
        p -= effect[i] * (opt_val[i] - 100);
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* "position ...": the hash of the command, and the position. */
static void position(Position *pos, char *cmd)
{
    position_hash = hash_text(cmd);
    fake_position(pos, cmd);
}

static void go(Position *pos, gsl_rng *rng)
{
    if (think_ms > 0)
        fake_sleep_ms(think_ms);
    MoveList list;
    gen_legal(pos, &list, GEN_ALL);
    char uci[8] = "0000";
    if (list.count > 0 && !(illegal_opt >= 0 && opt_val[illegal_opt] == illegal_val))
        move_to_uci(list.moves[0], uci);
    gsl_rng_set(rng, (unsigned long)(position_hash ^ (position_hash >> 32)));
    bool collapse = gsl_rng_uniform(rng) < collapse_probability();
    printf("info depth 1 nodes 1 score cp %d pv %s\nbestmove %s\n", collapse ? -1000 : 0, uci, uci);
}

static void setoption(char *line)
{
    char *name = line + strlen("setoption name "), *val = strstr(name, " value ");
    if (!val)
        return;
    *val = '\0';
    val += strlen(" value ");
    int i = option_index(name);
    if (i >= 0) {
        int v = atoi(val);
        opt_val[i] = v < 0 ? 0 : v > 200 ? 200 : v;
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--think") && i + 1 < argc) {
            think_ms = strtol(argv[++i], NULL, 10);
        } else if ((!strcmp(argv[i], "--effect") || !strcmp(argv[i], "--illegal-at")) && i + 1 < argc) {
            const char *flag = argv[i];
            char *eq = strchr(argv[++i], '=');
            if (eq)
                *eq = '\0';
            int k = eq ? option_index(argv[i]) : -1;
            if (k < 0) {
                fprintf(stderr, "fakeablate: %s %s: expected NAME=X with NAME one of LmrBase, LmrScale, "
                        "NmpDepth, RfpMargin, SeeMargin\n", flag, argv[i]);
                return 2;
            }
            if (!strcmp(flag, "--effect")) {
                effect[k] = strtod(eq + 1, NULL);
            } else {
                illegal_opt = k;
                illegal_val = atoi(eq + 1);
            }
        } else {
            fprintf(stderr, "fakeablate: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    rules_init();
    Position *pos = malloc(sizeof *pos);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!pos || !rng)
        return 1;
    pos_startpos(pos);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!strcmp(line, "uci")) {
            printf("id name fakeablate\nid author ratchet tests\n");
            for (int i = 0; i < NOPT; i++)
                printf("option name %s type spin default 100 min 0 max 200\n", opt_name[i]);
            printf("uciok\n");
        } else if (!strcmp(line, "isready")) {
            printf("readyok\n");
        } else if (!strncmp(line, "setoption name ", 15)) {
            setoption(line);
        } else if (!strncmp(line, "position", 8)) {
            position(pos, line);
        } else if (!strncmp(line, "go", 2)) {
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
