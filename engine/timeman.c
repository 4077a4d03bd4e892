/* Time allocation.  See timeman.h. */
#include "timeman.h"

#include <time.h>

int64_t tm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void tm_init(TimeManager *tm, int64_t start, int64_t time_left, int64_t inc, int movestogo,
             int64_t movetime, int overhead)
{
    tm->start = start;
    tm->soft = tm->hard = -1;

    if (movetime > 0) {
        tm->soft = tm->hard = max64(1, movetime - overhead);
        return;
    }
    if (time_left < 0)
        return;

    /* What may be spent on this move without touching the safety margin.
     * The target spends a share of the bank and half the increment, so in
     * increment games the clock settles near 20 increments instead of
     * running down to the margin. */
    int64_t left = max64(0, time_left - overhead);
    int mtg = movestogo > 0 ? (movestogo < 40 ? movestogo : 40) : 40;
    if (inc > left)
        inc = left;

    int64_t target = left / mtg + inc / 2;
    int64_t hard = mtg == 1 ? left * 3 / 4 : min64(target * 3, left / 4);
    tm->hard = max64(1, hard);
    /* No new iteration after half the target: it would likely overrun. */
    tm->soft = max64(1, min64(target / 2, tm->hard));
}

int64_t tm_elapsed(const TimeManager *tm) { return tm_now() - tm->start; }

bool tm_soft_done(const TimeManager *tm) { return tm->soft >= 0 && tm_elapsed(tm) >= tm->soft; }

bool tm_hard_done(const TimeManager *tm) { return tm->hard >= 0 && tm_elapsed(tm) >= tm->hard; }
