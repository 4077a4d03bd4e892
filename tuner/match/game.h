/* One game between two running engine processes, refereed by the rules
 * library: every bestmove is checked, the clocks are kept, the game ends on
 * the rules, on adjudication, or on an engine's failure (time, stall,
 * illegal move, crash).  Starting, readying and restarting engines is the
 * caller's business; the record says which engine must be restarted. */
#ifndef RATCHET_GAME_H
#define RATCHET_GAME_H

#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "engine_proc.h"

/* The limits for one engine; several may be combined (e.g. tc and nodes). */
typedef struct {
    int64_t nodes;           /* go nodes N; 0 = none */
    int depth;               /* go depth N; 0 = none */
    int64_t movetime_ms;     /* go movetime (st=); 0 = none */
    int64_t base_ms, inc_ms; /* tc=[moves/]base+inc: a clock when either is > 0 */
    int moves;               /* moves per period, 0 = whole game */
    int64_t margin_ms;       /* timemargin: tolerated overrun of the clock or movetime */
    int64_t watchdog_ms;     /* without clock or movetime: longest wait for a move */
    int64_t nodestime;       /* > 0: the clock (tc= or st=) counts nodes, this many per ms: each move is
                              * charged the nodes of its last `info ... nodes N` divided by this; the
                              * engine's UCI option nodestime is set to it; 0 = the wall clock */
} TimeControl;

static inline bool tc_has_clock(const TimeControl *t) { return t->base_ms > 0 || t->inc_ms > 0; }
/* The limit leaves nothing to the wall clock: nodes= or depth= with no clock
 * and no movetime, or a clock that counts nodes (nodestime=).  A
 * single-threaded engine that clears its state at ucinewgame then plays the
 * same game from the same opening every time. */
static inline bool tc_deterministic(const TimeControl *t)
{
    if (t->nodestime > 0 && (tc_has_clock(t) || t->movetime_ms > 0))
        return true;
    return !tc_has_clock(t) && t->movetime_ms <= 0 && (t->nodes > 0 || t->depth > 0);
}
/* A clock or movetime on the wall clock (no nodestime=): its time losses may be the machine's load. */
static inline bool tc_is_wall_clock(const TimeControl *t)
{
    return (tc_has_clock(t) || t->movetime_ms > 0) && t->nodestime <= 0;
}
/* More time losses than TIME_LOSS_ALARM_PERCENT of the games played at a
 * wall clock: engines that keep their time do not lose on it, so the
 * machine is likely too loaded for the clock. */
#define TIME_LOSS_ALARM_PERCENT 1
bool time_losses_alarming(uint64_t losses, uint64_t games);
/* "N time losses in M games: the machine may be too loaded for this clock; use nodestime=..." */
void time_losses_text(char *buf, size_t len, uint64_t losses, uint64_t games);
/* fastchess's wording for reports: "10+0.1", "40/60", "0.5/move", "1000 nodes", "8 plies",
 * "2+0.02 nodestime=700". */
void tc_format(const TimeControl *t, char *buf, size_t len);
/* The PGN TimeControl tag value: "10+0.1", "40/60", "1/0.5" (per move), "-"; with nodestime
 * the clock's value and " nodestime=N" ("2+0.02 nodestime=700"). */
void tc_format_pgn(const TimeControl *t, char *buf, size_t len);
/* The limits the TimeControl tag cannot say, for the PGN's Limits tag:
 * "nodes=5000", "depth=8", "nodes=5000 depth=8", or "" (none). */
void tc_format_limits(const TimeControl *t, char *buf, size_t len);

typedef struct {
    bool draw;               /* -draw movenumber= movecount= score= */
    int draw_movenumber, draw_movecount, draw_score;
    bool resign;             /* -resign movecount= score= twosided= */
    int resign_movecount, resign_score;
    bool resign_twosided;
    int maxmoves;            /* -maxmoves N: draw after N moves each; 0 = off */
} Adjudication;

typedef enum {
    TERM_NONE,         /* not finished */
    TERM_CHECKMATE, TERM_STALEMATE, TERM_REPETITION, TERM_FIFTY, TERM_MATERIAL,
    TERM_ADJ_DRAW, TERM_ADJ_RESIGN, TERM_MAXMOVES,
    TERM_TIME,         /* over the clock or movetime (plus margin) */
    TERM_STALL,        /* no move within the watchdog (nodes=/depth= games) */
    TERM_ILLEGAL,      /* illegal or malformed bestmove */
    TERM_CRASH,        /* the engine died or closed its output */
    TERM_STOPPED,      /* interrupted by the stop flag: no result */
    TERM_BAD_START     /* the start position is not a legal FEN: no result */
} Termination;

enum { RESULT_NONE, RESULT_WHITE, RESULT_BLACK, RESULT_DRAW };

typedef struct {
    EngineProc *eng[2];         /* by colour: [WHITE], [BLACK] */
    const TimeControl *tc[2];   /* by colour */
    const Adjudication *adj;    /* or NULL */
    const char *fen;            /* NULL or START_FEN: the standard start */
    const atomic_int *stop;
} GameSetup;

#define GAME_MAX_PLIES (MAX_HISTORY - 8)
#define GAME_SCORE_NONE INT32_MIN
/* The plies whose nodes and wall ms a game records (GameRecord.wall_nodes):
 * the middlegame, where the depth decides games, and not the endgame's
 * small trees, however long the game. */
#define GAME_WALL_PLIES 40
/* Sums of those figures over games stay below this, so that the files that
 * keep them hold them exactly (a JSON number): wall_search_add leaves both
 * sums as they are when a figure would pass it (an engine's absurd count
 * stops the count, not the caller). */
#define WALL_SEARCH_MAX (UINT64_C(1) << 52)
static inline void wall_search_add(uint64_t *nodes, uint64_t *ms, int64_t n, int64_t t)
{
    if (n >= 0 && t >= 0 && *nodes <= WALL_SEARCH_MAX && *ms <= WALL_SEARCH_MAX &&
        (uint64_t)n <= WALL_SEARCH_MAX - *nodes && (uint64_t)t <= WALL_SEARCH_MAX - *ms) {
        *nodes += (uint64_t)n;
        *ms += (uint64_t)t;
    }
}

typedef struct {
    char fen[128];              /* start position as FEN */
    bool startpos;              /* ... and it is the standard one */
    int nply;
    Move moves[GAME_MAX_PLIES];
    int32_t score[GAME_MAX_PLIES];  /* mover's last reported score (cp, mate as +/-(32000 - n)), or GAME_SCORE_NONE */
    int16_t depth[GAME_MAX_PLIES];
    int32_t ms[GAME_MAX_PLIES];     /* thinking time: wall ms, or with nodestime the ms charged (nodes / N) */
    int result;                 /* RESULT_* */
    Termination term;
    int culprit;                /* colour that forfeited (time, stall, illegal, crash), or -1 */
    bool dead[2];               /* by colour: that engine is gone or unreliable; restart it */
    char detail[96];            /* the illegal move, how the engine died, ... */
    int unmetered[2];           /* by colour: moves under a nodestime clock without a `nodes` report,
                                 * charged their wall time instead */
    int64_t wall_nodes[2];      /* by colour, at a clock on the wall (tc_is_wall_clock): the nodes of the moves of the
                                 * first GAME_WALL_PLIES plies that reported them (their last
                                 * `info ... nodes N`) ... */
    int64_t wall_ms[2];         /* ... and those moves' wall ms: the engine's nodes per ms of the clock */
} GameRecord;

/* Per-worker buffers reused from game to game: no allocation per ply. */
typedef struct {
    Position *pos;
    char *cmd;                  /* "position ... moves ..." built incrementally, then "\ngo ...\n" */
    size_t cap;
} GameScratch;

int game_scratch_init(GameScratch *w);  /* 0 or -1 (out of memory) */
void game_scratch_free(GameScratch *w);

void game_play(const GameSetup *s, GameScratch *w, GameRecord *r);

/* "1-0", "0-1", "1/2-1/2", "*". */
const char *game_result_text(int result);

/* The runner's reading of one engine line while it searches (public for the
 * fuzz harness): an `info` line (not `info string`) updates *score (cp, or
 * mate as +/- (32000 - N)), *depth and *nodes (when it has them; nodes may
 * be NULL); a `bestmove` line returns true with *bm at what follows the
 * word. */
bool game_engine_line(const char *line, int32_t *score, int16_t *depth, int64_t *nodes, const char **bm);
/* The move of a bestmove line (*bm as game_engine_line left it; moved past
 * blanks, *mlen the token's length): legal in pos, or MOVE_NONE. */
Move game_bestmove(const Position *pos, const char **bm, size_t *mlen);
/* cutechess-style reason: "White mates", "Black loses on time", ... */
void game_describe(const GameRecord *r, char *buf, size_t len);
/* The PGN Termination tag: "normal", "adjudication", "time forfeit", ... */
const char *game_pgn_termination(Termination t);
/* If the game is over by the rules in this position, set *result / *term and return true. */
bool game_rules_end(const Position *pos, int *result, Termination *term);

#endif
