/* The match runner: game pairs played on worker threads, each worker with
 * its own two engine processes kept alive from game to game (`ucinewgame` +
 * one `isready` per game), restarted after a crash or a kill.  What to play
 * comes from the caller through MatchHooks: the plain `match` command
 * (rounds, SPRT) and the SPSA tuner (per-pair option values) both drive it.
 *
 * Engine 0 and engine 1 are the two -engine specs, in command-line order.
 * A pair is two games from the same opening: engine 0 has White in the
 * first, engine 1 in the second. */
#ifndef RATCHET_MATCH_H
#define RATCHET_MATCH_H

#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "book.h"
#include "engine_proc.h"
#include "game.h"

#define MAX_ENGINE_OPTS 128
#define MAX_JOB_OPTS 128

/* One -engine spec (after match_config_finish: merged with -each). */
typedef struct {
    char name[64];
    char cmd[1024];
    char args[1024];
    char dir[1024];
    EngineOption opts[MAX_ENGINE_OPTS];
    int nopts;
    TimeControl tc;
    int64_t startup_ms;   /* deadline for uciok, and for readyok before each game */
    unsigned set;         /* which keys were given (SPEC_* in cli.c), for -each merging */
    char **argv;          /* args split into words; owned */
} EngineSpec;

typedef struct {
    EngineSpec eng[2];
    int nengines;
    EngineSpec each;              /* -each: applies where an -engine spec is silent */
    /* -openings */
    char book_path[1024];
    char book_format[8];          /* "epd", "pgn" or "" (from the file name) */
    int book_plies;
    bool book_random;
    uint64_t book_start;          /* 1-based, as fastchess */
    Book *book;                   /* loaded by match_config_finish; NULL = standard start */
    uint64_t seed;                /* -srand; set from the clock when not given */
    bool seed_set;
    int concurrency;
    bool force_concurrency;       /* -force-concurrency: no warning for more games than CPUs on the wall clock */
    Adjudication adj;
    char pgnout[1024];            /* "" = none */
    bool pgn_comments;            /* per-move {score/depth time}; -pgnout min=true turns them off */
    char log_path[1024];          /* "" = none */
    char event[128], site[128];
    atomic_int *stop;  /* checked between games and while waiting; may be NULL */
    bool finished;                /* match_config_finish succeeded */
} MatchConfig;

/* The bytes of a PairJob's Event (with its terminating NUL). */
#define PAIR_JOB_EVENT 192

typedef struct {
    uint64_t id;                  /* the caller's cookie, e.g. SPSA batch id; PGN Round is id + 1 */
    size_t opening;               /* index into cfg->book (ignored without a book) */
    int nopts[2];                 /* per-pair setoption overrides for engine 0 and engine 1 (sent before each game) */
    EngineOption opts[2][MAX_JOB_OPTS];
    int games;                    /* 2 (a pair; also when 0) or 1 (a single game) */
    bool swap;                    /* single game: engine 0 plays Black */
    char fen[128];                /* "" = from cfg->book at `opening`; else this start position
                                   * (the MPI workers have no book: rank 0 sends the FEN) */
    /* What the PGN says of the pair's games when set ("" = the defaults:
     * Round id + 1, the engines' names, the match's Event): a run's
     * validation pairs name their point and the values each side played. */
    char round[24];
    char names[2][64];
    char event[PAIR_JOB_EVENT];
    /* The limit of both engines for this pair, when has_tc (else each
     * engine's own): a run's validation pairs at the user's limit.  An
     * engine with the nodestime option is set to the limit's nodestime (0:
     * the wall clock) before the pair's games, and back to its own after;
     * one without it cannot play a limit with nodestime (the match stops). */
    bool has_tc;
    TimeControl tc;
} PairJob;

/* A job with every field at its default (a pair from the book's opening 0). */
void pair_job_clear(PairJob *j);

typedef struct {
    int games;                    /* games played: 1 or 2 */
    int score2[2];                /* engine 0's score in game 1 and game 2, in half points 0/1/2 */
    int ptnml_index;              /* 0..4: LL, LD, DD+WL, WD, WW from engine 0's view; -1 for a single game */
    int result[2];                /* RESULT_* of each game (colours: see PairJob) */
    Termination term[2];
    int plies[2];
    /* per engine (index 0/1), what happened during this pair */
    int time_losses[2];           /* lost on time or by a stall */
    int crashes[2];               /* lost because the engine died or could not be made ready */
    int illegal[2];               /* lost by an illegal or malformed move */
    int restarts[2];              /* processes started again before or during this pair */
    /* per engine, at a clock on the wall: the nodes its moves reported
     * and their wall ms (GameRecord.wall_nodes, wall_ms), so that a caller
     * can say how many nodes a ms of this machine's clock is worth */
    int64_t wall_nodes[2], wall_ms[2];
} PairResult;

typedef struct {
    /* Fill job and return true, or false for "no pair now".  Called from
     * worker threads under the runner's lock.  While other pairs are in
     * flight a false is not the end: the worker waits until one of them is
     * done or abandoned (or the stop flag is set) and calls again, because
     * a result can make another pair due.  The match ends when it says
     * false with no pair in flight; it may be called again after a false. */
    bool (*next_pair)(void *ctx, PairJob *job);
    /* A finished pair; called under the same lock. */
    void (*pair_done)(void *ctx, const PairJob *job, const PairResult *res);
    /* Optional (may be NULL): a pair handed out but not finished (stop flag, fatal error). */
    void (*pair_abandoned)(void *ctx, const PairJob *job);
    /* Optional: each finished game's PGN text, from the thread that played it, without the
     * lock (job is that thread's own); then the PGN is formatted even without -pgnout. */
    void (*game_pgn)(void *ctx, const PairJob *job, const char *text, size_t len);
    void *ctx;
} MatchHooks;

/* Start concurrency x 2 engines, then play pairs until next_pair says no
 * with none in flight, *cfg->stop is set, or an engine cannot be restarted.
 * Returns 0 when the match ran, 1 when it was cut short by an engine that
 * could not be restarted (message on stderr), 2 when it was cut short
 * because the PGN file could not take a game (a full disk: the file holds
 * the games before; the pair is abandoned), -1 on a setup error (an engine
 * does not start or does not answer `uci`, the PGN or log file cannot be
 * opened; message on stderr, no game played).  Like ep_start, sets SIGPIPE to
 * SIG_IGN if it was SIG_DFL: a write to an engine that just died must not
 * end the process. */
int match_play(const MatchConfig *cfg, const MatchHooks *hooks);

/* Fresh openings.  At a limit where both engines are deterministic
 * (tc_deterministic), a game is a function of its opening and its engines:
 * a pair played again from the same opening replays the same two games, and
 * counting it again shrinks the interval without adding evidence.
 *
 * match_fresh_rounds: how many rounds of `games` games (2: a pair, 1: a
 * single game, colours alternating by round) a match plays before a round
 * repeats an earlier one's opening and colours: the openings book_pick
 * cycles through (one, the start position, without a book), twice that for
 * single games when the count is odd.
 *
 * match_cap_fresh: for *rounds (0: unbounded, as an SPRT until it decides)
 * beyond the fresh rounds.  At a deterministic limit with `cut`, *rounds
 * becomes the fresh count, with a note on `note` naming it; without `cut`, a
 * warning says from which round on the games are replays.  At a clock the
 * rounds stay as asked and a note says from which round on an opening
 * repeats (a new game, but less evidence than a new opening).  Rounds
 * within the fresh ones: nothing.  `who` starts the note.  Returns true
 * when *rounds was cut. */
bool match_deterministic(const MatchConfig *cfg);
uint64_t match_fresh_rounds(const MatchConfig *cfg, int games);
bool match_cap_fresh(const MatchConfig *cfg, int games, uint64_t *rounds, bool cut, const char *who, FILE *note);

/* What `run`, `resume` and `match` play through: match_play, unless the MPI
 * build (tuner/mpi/mpi.c) has put its distributed runner here, which hands the
 * pairs to worker ranks and has the same contract. */
extern int (*match_transport)(const MatchConfig *cfg, const MatchHooks *hooks);

#endif
