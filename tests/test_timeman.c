/* Time management: a game under an increment clock spends most of the bank
 * and never runs out, even when every move takes its hard limit; the soft
 * limit stretches after a new best move and shrinks once it has settled;
 * `go movetime` is not scaled. */
#include <criterion/criterion.h>

#include "timeman.h"

/* Plays `moves` moves on a clock of `bank` ms + `inc` ms, each taking
 * `spend(soft, hard)` ms; returns the bank left, or -1 if a move flagged. */
static int64_t play(int64_t bank, int64_t inc, int overhead, int moves, int64_t (*spend)(const TimeManager *))
{
    for (int m = 0; m < moves; m++) {
        TimeManager tm;
        tm_init(&tm, &(TmLimits){.time_left = bank, .inc = inc, .overhead = overhead});
        cr_assert(tm.soft >= 1 && tm.soft <= tm.hard, "move %d: soft %lld, hard %lld", m, (long long)tm.soft,
                  (long long)tm.hard);
        int64_t t = spend(&tm) + overhead;
        if (t >= bank)
            return -1;
        bank += inc - t;
    }
    return bank;
}

static int64_t spend_hard(const TimeManager *tm) { return tm->hard; }
/* An iteration started before the soft limit runs on: about 1.3 of it. */
static int64_t spend_typical(const TimeManager *tm) { return tm->soft * 13 / 10; }

Test(timeman, every_move_at_its_hard_limit_never_flags)
{
    cr_assert_gt(play(10000, 100, 10, 300, spend_hard), 0, "10+0.1, 300 moves at the hard limit");
    /* While the increment covers the overhead, at least. */
    cr_assert_gt(play(2000, 20, 10, 300, spend_hard), 0, "2+0.02, 300 moves at the hard limit");
}

Test(timeman, a_sixty_move_game_spends_most_of_the_bank)
{
    /* 10+0.1 over 60 moves is 16 s.  The old allocation (half of bank/40 +
     * inc/2) left more than a third of it unspent. */
    int64_t left = play(10000, 100, 10, 60, spend_typical);
    int64_t total = 10000 + 60 * 100;
    cr_assert(left > 0 && left < total / 5, "10+0.1: %lld ms of %lld left after 60 moves", (long long)left,
              (long long)total);
    /* A long game still keeps time in hand: the bank settles near nine
     * increments. */
    int64_t late = play(10000, 100, 10, 200, spend_typical);
    cr_assert(late > 500 && late < 2000, "10+0.1: %lld ms left after 200 moves", (long long)late);
    /* Sudden death: 100 moves of 60+0 leave some of the bank. */
    cr_assert_gt(play(60000, 0, 10, 100, spend_typical), 1000);
}

Test(timeman, the_soft_limit_follows_the_best_moves_stability)
{
    TimeManager tm;
    int64_t now;
    tm_init(&tm, &(TmLimits){.time_left = 10000, .inc = 100});
    int64_t soft = tm.soft;
    cr_assert(soft > 100 && tm.hard >= 2 * soft, "soft %lld hard %lld", (long long)soft, (long long)tm.hard);
    now = soft * 9 / 10; /* 90% of the soft limit has passed */
    cr_assert(tm_soft_done(&tm, tm_scale_percent(4, -1, 0), now), "a best move kept for four iterations stops before the soft limit");
    cr_assert_not(tm_soft_done(&tm, tm_scale_percent(2, -1, 0), now), "at its plain soft limit");
    now = soft * 14 / 10;
    cr_assert(tm_soft_done(&tm, tm_scale_percent(2, -1, 0), now));
    cr_assert_not(tm_soft_done(&tm, tm_scale_percent(0, -1, 0), now), "a best move that just changed gets more time");
    now = tm.hard;
    cr_assert(tm_soft_done(&tm, tm_scale_percent(0, -1, 0), now), "never past the hard limit");
    cr_assert(tm_hard_done(&tm, now));
}

Test(timeman, movetime_is_spent_as_given)
{
    TimeManager tm;
    int64_t now;
    tm_init(&tm, &(TmLimits){.time_left = 10000, .inc = 100, .movetime = 1000, .overhead = 20});
    cr_assert_eq(tm.soft, 980);
    cr_assert_eq(tm.hard, 980);
    now = 900;
    cr_assert_not(tm_soft_done(&tm, tm_scale_percent(4, -1, 0), now), "go movetime is not cut short by a stable best move");
    now = 980;
    cr_assert(tm_soft_done(&tm, tm_scale_percent(4, -1, 0), now));
}

Test(timeman, no_clock_no_limit)
{
    TimeManager tm;
    tm_init(&tm, &(TmLimits){.time_left = -1});
    int64_t now = 1000000;
    cr_assert_not(tm_soft_done(&tm, tm_scale_percent(4, -1, 0), now));
    cr_assert_not(tm_hard_done(&tm, now));
}

Test(timeman, the_soft_limit_follows_the_best_moves_node_share_and_the_score)
{
    const int plain = tm_scale_percent(2, -1, 0);
    cr_assert_eq(plain, 100);
    cr_assert_lt(tm_scale_percent(2, 950, 0), plain, "a best move that took 95%% of the nodes has no rival");
    cr_assert_gt(tm_scale_percent(2, 500, 0), plain, "one that took half of them has");
    cr_assert_gt(tm_scale_percent(2, 500, 0), tm_scale_percent(2, 700, 0));
    cr_assert_gt(tm_scale_percent(2, -1, 40), plain, "a falling score asks for more time");
    cr_assert_lt(tm_scale_percent(2, -1, -40), plain, "a rising one for a little less");
    cr_assert_eq(tm_scale_percent(2, -1, 10000), tm_scale_percent(2, -1, 1000), "the fall's weight is capped");
    cr_assert_geq(tm_scale_percent(4, 1000, -1000), 25, "a settled move still gets a quarter of the soft limit");
}

/* With nodestime the clock counts nodes: every ms of the clock is worth
 * nodes_per_ms nodes, the limits are node counts and the reading is the
 * search's node count, not the time. */
Test(timeman, a_clock_that_counts_nodes_sets_its_limits_in_nodes)
{
    TimeManager ms, nd;
    tm_init(&ms, &(TmLimits){.time_left = 2000, .inc = 20, .overhead = 10});
    tm_init(&nd, &(TmLimits){.time_left = 2000, .inc = 20, .overhead = 10, .nodes_per_ms = 700});
    cr_assert(nd.hard >= ms.hard * 700 && nd.hard < (ms.hard + 1) * 700, "hard %lld nodes for %lld ms",
              (long long)nd.hard, (long long)ms.hard);
    cr_assert(nd.soft >= ms.soft * 700 && nd.soft < (ms.soft + 1) * 700, "soft %lld nodes for %lld ms",
              (long long)nd.soft, (long long)ms.soft);
    cr_assert_eq(tm_reading(&nd, 12345), 12345, "the reading is the node count");
    cr_assert_not(tm_hard_done(&nd, nd.hard - 1));
    cr_assert(tm_hard_done(&nd, nd.hard), "the hard limit falls on a node count");
    cr_assert(tm_soft_done(&nd, 100, nd.hard));

    /* go movetime: (movetime - overhead) x nodes_per_ms nodes. */
    tm_init(&nd, &(TmLimits){.time_left = -1, .movetime = 1000, .overhead = 10, .nodes_per_ms = 50});
    cr_assert_eq(nd.hard, 990 * 50);
    cr_assert_eq(nd.soft, 990 * 50);
    /* Without a clock there is no limit, in nodes as in ms. */
    tm_init(&nd, &(TmLimits){.time_left = -1, .overhead = 10, .nodes_per_ms = 50});
    cr_assert_not(tm_hard_done(&nd, INT64_MAX / 2));
}

/* The hard limit plus the overhead stays within go movetime, and within
 * the clock whenever the clock holds more than the overhead, at every size
 * of bank, increment and moves to go. */
Test(timeman, the_hard_limit_leaves_the_overhead_inside_the_movetime_and_the_clock)
{
    TimeManager tm;
    for (int64_t mt = 1; mt <= 2000; mt += 7) {
        tm_init(&tm, &(TmLimits){.time_left = -1, .movetime = mt, .overhead = 10});
        cr_assert(tm.hard >= 1 && (mt <= 10 || tm.hard + 10 <= mt), "movetime %lld: hard %lld", (long long)mt,
                  (long long)tm.hard);
    }
    static const int64_t incs[] = { 0, 10, 20, 100, 1000 };
    static const int mtgs[] = { 0, 1, 2, 5, 40 };
    for (int64_t bank = 11; bank <= 20000; bank += bank / 10 + 1)
        for (size_t i = 0; i < sizeof incs / sizeof incs[0]; i++)
            for (size_t j = 0; j < sizeof mtgs / sizeof mtgs[0]; j++) {
                tm_init(&tm, &(TmLimits){.time_left = bank, .inc = incs[i], .movestogo = mtgs[j], .overhead = 10});
                cr_assert(tm.hard >= 1 && tm.hard + 10 <= bank && tm.soft <= tm.hard,
                          "bank %lld inc %lld movestogo %d: soft %lld hard %lld", (long long)bank,
                          (long long)incs[i], mtgs[j], (long long)tm.soft, (long long)tm.hard);
            }
}

/* The largest clock go keeps (10^12 ms) under the largest nodestime
 * (TM_MAX_NODES_PER_MS) with one move to go: a soft limit of 3.3e16 nodes,
 * which times a scale of 300 percent passes INT64_MAX.  The scaled limit
 * falls where the exact product says (or on the hard limit) at every scale
 * tm_scale_percent can give and beyond.  Fails if the product overflows:
 * the limit wrapped to a negative count and the search stopped after its
 * first iterations. */
Test(timeman, the_scaled_soft_limit_does_not_overflow_on_the_largest_node_clock)
{
    static const int64_t GO_MAX = 1000000000000LL; /* engine/uci.c's GO_MAX_MS */
    static const int mtgs[] = { 0, 1, 2 };
    static const int64_t incs[] = { 0, GO_MAX };
    for (size_t i = 0; i < sizeof mtgs / sizeof mtgs[0]; i++)
        for (size_t j = 0; j < sizeof incs / sizeof incs[0]; j++) {
            TimeManager tm;
            tm_init(&tm, &(TmLimits){.time_left = GO_MAX, .inc = incs[j], .movestogo = mtgs[i], .overhead = 10,
                                      .nodes_per_ms = TM_MAX_NODES_PER_MS});
            cr_assert(tm.soft >= 1 && tm.soft <= tm.hard, "soft %lld hard %lld", (long long)tm.soft,
                      (long long)tm.hard);
            for (int pct = 1; pct <= 1000; pct++) {
                /* a soft limit at the hard one (a clock too short to scale) is not scaled */
                __int128 exact = (__int128)tm.soft * pct / 100;
                int64_t limit = tm.soft < tm.hard && exact < tm.hard ? (int64_t)exact : tm.hard;
                cr_assert_not(tm_soft_done(&tm, pct, limit - 1),
                              "movestogo %d inc %lld, %d%%: done at %lld nodes, before the limit %lld", mtgs[i],
                              (long long)incs[j], pct, (long long)(limit - 1), (long long)limit);
                cr_assert(tm_soft_done(&tm, pct, limit), "movestogo %d inc %lld, %d%%: not done at the limit %lld",
                          mtgs[i], (long long)incs[j], pct, (long long)limit);
            }
        }
}
