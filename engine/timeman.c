/* Time allocation.  See timeman.h. */
#include "timeman.h"

#include <time.h>

/* A clock without moves to go is treated as this many moves to go (more
 * without an increment, which must last the whole game), plus a margin;
 * the hard limit is at most this many soft limits. */
enum { TM_MOVES_LEFT = 30, TM_MOVES_LEFT_NO_INC = 50, TM_MOVES_MARGIN = 2, TM_HARD_FACTOR = 4 };

int64_t tm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void tm_init(TimeManager *tm, const TmLimits *lim)
{
    tm->start = lim->start;
    tm->soft = tm->hard = -1;
    tm->nodes_per_ms = lim->nodes_per_ms > 0 ? min64(lim->nodes_per_ms, TM_MAX_NODES_PER_MS) : 0;
    tm->clock = NULL;
    tm->clock_ctx = NULL;

    /* From here on every time is in the clock's units. */
    int64_t unit = tm->nodes_per_ms ? tm->nodes_per_ms : 1;
    int64_t time_left = lim->time_left > 0 ? lim->time_left * unit : lim->time_left;
    int64_t inc = lim->inc * unit;
    int64_t movetime = lim->movetime * unit;
    int64_t keep = (int64_t)lim->overhead * unit;

    if (movetime > 0) {
        tm->soft = tm->hard = max64(1, movetime - keep);
        return;
    }
    if (time_left < 0)
        return;

    /* What may be spent on this move without touching the safety margin.
     * The base (the soft limit) is a share of the bank plus half the
     * increment.  An iteration started before the soft limit runs on, so
     * a move takes about 1.3 soft limits on average: a 60-move game at
     * 10+0.1 spends about nine tenths of its time, and in a longer one the
     * bank settles near nine increments.  tm_soft_done scales the soft
     * limit by the best move's stability. */
    int64_t left = max64(0, time_left - keep);
    int moves_left = inc > 0 ? TM_MOVES_LEFT : TM_MOVES_LEFT_NO_INC;
    int mtg = lim->movestogo > 0 ? (lim->movestogo < moves_left ? lim->movestogo : moves_left) : moves_left;
    if (inc > left)
        inc = left;

    int64_t base = left / (mtg + TM_MOVES_MARGIN) + inc / 2;
    int64_t hard = mtg == 1 ? left * 3 / 4 : min64(base * TM_HARD_FACTOR, left / 4);
    tm->hard = max64(1, hard);
    tm->soft = max64(1, min64(base, tm->hard));
}

/* Percent of the soft limit by the number of iterations in a row that kept
 * the best move: a new best move asks for more time, a settled one for
 * less. */
static const int stability_percent[] = {160, 125, 100, 85, 75};

/* The share of the search's nodes that went to the best move: a move that
 * took nearly all of them has no rival worth more time (the factor falls to
 * TM_NODE_MIN percent), one that took half of them has (140%).  A score that
 * fell since two iterations ago asks for more time, one that rose for a
 * little less. */
enum { TM_NODE_BASE = 240, TM_NODE_MIN = 50, TM_DROP_MIN = -20, TM_DROP_MAX = 60 };

int tm_scale_percent(int stable, int best_permille, int score_drop)
{
    int n = (int)(sizeof stability_percent / sizeof stability_percent[0]);
    int64_t pct = stability_percent[stable < 0 ? 0 : stable >= n ? n - 1 : stable];
    if (best_permille >= 0) {
        int node = TM_NODE_BASE - best_permille / 5;
        pct = pct * (node < TM_NODE_MIN ? TM_NODE_MIN : node) / 100;
    }
    int drop = score_drop < TM_DROP_MIN ? TM_DROP_MIN : score_drop > TM_DROP_MAX ? TM_DROP_MAX : score_drop;
    return (int)(pct * (100 + drop) / 100);
}

int64_t tm_reading(const TimeManager *tm, uint64_t nodes)
{
    if (tm->nodes_per_ms)
        return (int64_t)(nodes < (uint64_t)INT64_MAX ? nodes : (uint64_t)INT64_MAX);
    return tm->clock ? tm->clock(nodes, tm->clock_ctx) : tm_now();
}

/* soft * percent / 100, exactly, or `cap` when that is larger (soft in
 * [0, cap], percent > 0): soft = 100 q + r, so the product is q percent +
 * r percent / 100, and q percent is compared with cap before it is formed,
 * so it cannot overflow (a node clock's soft limit times a few hundred
 * percent passes INT64_MAX). */
static int64_t scaled_soft(int64_t soft, int percent, int64_t cap)
{
    int64_t q = soft / 100, r = soft % 100;
    if (q > cap / percent)
        return cap;
    int64_t x = q * percent, rest = r * percent / 100;
    return x > cap - rest ? cap : x + rest;
}

bool tm_soft_done(const TimeManager *tm, int percent, int64_t now)
{
    if (tm->soft < 0)
        return false;
    if (tm->soft >= tm->hard) /* go movetime, or a clock too short to scale */
        return now - tm->start >= tm->hard;
    return now - tm->start >= (percent > 0 ? scaled_soft(tm->soft, percent, tm->hard) : 0);
}

bool tm_hard_done(const TimeManager *tm, int64_t now) { return tm->hard >= 0 && now - tm->start >= tm->hard; }
