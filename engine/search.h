/* The search: iterative deepening with aspiration windows over a
 * principal-variation alpha-beta search with quiescence, and the
 * selectivity of the seeds (LMR, LMP, IIR, FHR, LBR ordering) plus the usual
 * companions (null move, reverse futility, futility, SEE pruning), each
 * governed by the parameters of params.def. */
#ifndef RATCHET_SEARCH_H
#define RATCHET_SEARCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "score.h"
#include "timeman.h"

typedef struct {
    int depth;            /* 0: no depth limit */
    uint64_t nodes;       /* 0: no node limit */
    int64_t movetime;     /* ms; 0: none */
    int64_t time[2];      /* ms on the clocks; < 0: not given */
    int64_t inc[2];
    int movestogo;        /* 0: not given */
    bool infinite;
    int overhead;         /* ms kept back per move for latency */
    int64_t nodestime;    /* > 0: the clock counts nodes, this many per ms (see timeman.h); 0: wall clock */
    int64_t start;        /* tm_now() when the `go` was read (the clock runs from then); 0: the search's start */
    TmClock clock;        /* a test's clock in place of tm_now() (timeman.h); NULL: tm_now() */
    void *clock_ctx;
    int nsearchmoves;     /* go searchmoves: only these root moves; 0 (or none
                             of them legal): all */
    Move searchmoves[MAX_MOVES];
} SearchLimits;

/* A limits struct with nothing set (searches until stopped). */
void search_limits_init(SearchLimits *lim);

typedef struct {
    Move best;            /* always a legal move, or MOVE_NONE if there is none */
    Move ponder;          /* the expected reply, or MOVE_NONE */
    int score;
    int depth;            /* last completed iteration */
    uint64_t nodes;
    int64_t time_ms;
    uint64_t fhr;            /* fail-high reductions applied */
    uint64_t fhr_after_null; /* ... of which right after a failed null move */
    uint64_t singular[4];    /* singular extension tests ending: [0] extend, [1] double, [2] multi-cut, [3] reduce */
} SearchResult;

typedef struct Searcher Searcher;

/* One search thread's state: its own position copy, its stack, and the
 * move-ordering memory that persists between searches. */
Searcher *searcher_new(void);
void searcher_free(Searcher *s);
/* Forget everything learned (ucinewgame; bench per position). */
void searcher_clear(Searcher *s);

/* Searches `root` within `lim`.  `stop` (may be NULL) is polled; when set
 * the search ends after the current node.  Info lines go to `out` when
 * it is not NULL.  The first iteration always completes, so the result's
 * best move is legal whenever the position has a legal move. */
void search_run(Searcher *s, const Position *root, const SearchLimits *lim,
                atomic_bool *stop, FILE *out, SearchResult *res);

/* The quiescence search's value of p with a full window, for the side to
 * move, without limits (the evaluation tuner keeps positions where it
 * equals search_static_eval: no capture changes the score). */
int search_qsearch(Searcher *s, const Position *p);

/* The static eval the search stands pat with in p (side to move, not in
 * check): evaluate() corrected by the correction history and damped by the
 * fifty-move count. */
int search_static_eval(Searcher *s, const Position *p);

/* A singular extension test's search as the search runs it: the
 * null-window (beta - 1, beta) value of p at `depth` without the move
 * `excluded`, as a node one ply below the root.  Below beta means every
 * other move fails low, beta - 1 when there is no other move.  It neither
 * takes a cutoff from nor stores into the table or the last-best-reply
 * store at p itself. */
int search_excluding(Searcher *s, const Position *p, Move excluded, int beta, int depth);
/* The last best reply s has stored for p at `ply` (MOVE_NONE if none). */
Move search_lbr_reply(const Searcher *s, const Position *p, int ply);

/* Is the position at `ply` plies from the root a draw for the search
 * (fifty moves without mate, dead material, a repetition)? */
bool search_is_draw(const Position *p, int ply);

/* The LMR base reduction in centi-plies and the LMP move limit, as the
 * tables hold them (for tests and the curious). */
int search_lmr_base(bool noisy, int depth, int moves);
int search_lmp_limit(bool improving, int depth);

#endif
