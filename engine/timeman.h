/* Time management: from the clock given by `go`, a soft limit (do not start
 * another iteration after it) and a hard limit (abort the search), both
 * leaving `overhead` ms per move for the GUI's and the pipes' latency.
 *
 * The clock is the wall clock (monotonic milliseconds), or with the
 * nodestime option (Stockfish's name) the search's own node count: every
 * millisecond given by `go` is worth nodes_per_ms nodes, and the limits are
 * node counts.  Then the same position with the same clock stops at the same
 * node, whatever the machine's load.  The caller reads the clock
 * (tm_reading) and passes the reading in, so the limits can be tested
 * without a real clock. */
#ifndef RATCHET_TIMEMAN_H
#define RATCHET_TIMEMAN_H

#include <stdbool.h>
#include <stdint.h>

/* A clock in ms in place of tm_now(), as a function of the nodes searched
 * (a test's model of a machine's speed). */
typedef int64_t (*TmClock)(uint64_t nodes, void *ctx);

/* A wall clock is read at least every TM_POLL_NODES nodes (a power of
 * two).  The search may overrun its hard limit by that many nodes: 64 us
 * at a million nodes a second, 3.2 ms for an engine starved to 20,000
 * nodes a second (1/80 of a core) by a loaded machine. */
#define TM_POLL_NODES 64

typedef struct {
    int64_t start;        /* the clock's reading at the start of the search */
    int64_t soft;         /* clock units after start; < 0: no limit */
    int64_t hard;         /* clock units after start; < 0: no limit */
    int64_t nodes_per_ms; /* 0: the clock is in ms; > 0: it counts nodes, this many per ms */
    TmClock clock;        /* with nodes_per_ms 0: the clock to read; NULL: tm_now() */
    void *clock_ctx;
} TimeManager;

/* The largest nodes_per_ms (the nodestime option's maximum): with a clock of
 * at most 10^12 ms the node budgets stay far from overflow. */
#define TM_MAX_NODES_PER_MS 100000

/* Monotonic milliseconds. */
int64_t tm_now(void);

/* What tm_init allocates from: the side to move's clock as `go` gives it.
 * All times are in ms; with nodes_per_ms > 0 they become node budgets.
 * time_left < 0 means no clock (0 is a clock that has run out); movetime
 * > 0 means exactly that long (less the overhead); with neither, the search
 * has no time limit. */
typedef struct {
    int64_t start;        /* the clock's reading at the start; with nodes_per_ms > 0 the node count, normally 0 */
    int64_t time_left;    /* ms on the clock; < 0: no clock */
    int64_t inc;          /* ms added per move */
    int movestogo;        /* moves to the next time control; 0: not given */
    int64_t movetime;     /* ms for this move; 0: none */
    int overhead;         /* ms kept back per move for latency */
    int64_t nodes_per_ms; /* > 0: the clock counts nodes, this many per ms (at most TM_MAX_NODES_PER_MS); 0: ms */
} TmLimits;

/* Sets the limits for a search from *lim.  The clock is tm_now() (set
 * tm->clock after this for another).  The hard limit plus the overhead
 * never passes the movetime, nor the clock when the clock holds more than
 * the overhead. */
void tm_init(TimeManager *tm, const TmLimits *lim);

/* The clock's reading now: `nodes` (the search's node count) when the clock
 * counts nodes, else tm->clock or tm_now(). */
int64_t tm_reading(const TimeManager *tm, uint64_t nodes);

/* The soft limit's scale, percent: by `stable`, the number of iterations
 * in a row that kept the best move (0: it just changed); by best_permille,
 * the share of the search's nodes spent on the best move (< 0: unknown);
 * and by score_drop, how far the score fell (centipawns, < 0: it rose). */
int tm_scale_percent(int stable, int best_permille, int score_drop);
/* At the clock reading `now`: past the soft limit scaled by `percent`, do
 * not start another iteration.  Never later than the hard limit. */
bool tm_soft_done(const TimeManager *tm, int percent, int64_t now);
/* At the clock reading `now`: past the hard limit, abort the search. */
bool tm_hard_done(const TimeManager *tm, int64_t now);

#endif
