/* Time management: from the clock given by `go`, a soft limit (do not start
 * another iteration after it) and a hard limit (abort the search), both
 * leaving `overhead` ms per move for the GUI's and the pipes' latency. */
#ifndef RATCHET_TIMEMAN_H
#define RATCHET_TIMEMAN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t start;  /* ms on the monotonic clock */
    int64_t soft;   /* ms after start; < 0: no limit */
    int64_t hard;   /* ms after start; < 0: no limit */
} TimeManager;

/* Monotonic milliseconds. */
int64_t tm_now(void);

/* time_left < 0 means no clock; movetime > 0 means exactly that long (less
 * the overhead); with neither, the search has no time limit. */
void tm_init(TimeManager *tm, int64_t start, int64_t time_left, int64_t inc, int movestogo,
             int64_t movetime, int overhead);

int64_t tm_elapsed(const TimeManager *tm);
/* The soft limit's scale, percent: by `stable`, the number of iterations
 * in a row that kept the best move (0: it just changed); by best_permille,
 * the share of the search's nodes spent on the best move (< 0: unknown);
 * and by score_drop, how far the score fell (centipawns, < 0: it rose). */
int tm_scale_percent(int stable, int best_permille, int score_drop);
/* Past the soft limit scaled by `percent`: do not start another iteration.
 * Never later than the hard limit. */
bool tm_soft_done(const TimeManager *tm, int percent);
bool tm_hard_done(const TimeManager *tm);

#endif
