/* Which moves are real (moves.h) and the morning's note on parameters that
 * wandered (morning.h). */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "morning.h"
#include "moves.h"

/* Steps of one size: a trend (every step up) is real, a walk that comes
 * back is not. */
Test(moves, a_trend_is_real_and_a_walk_that_returns_is_noise)
{
    double up[40], walk[40];
    for (int i = 0; i < 40; i++) {
        up[i] = 100 + 2 * (i + 1);
        walk[i] = 100 + ((i / 4) % 2 ? -2 : 2) * (i % 4 + 1);
    }
    MoveVerdict v;
    moves_judge(100, up, 40, 1, &v);
    cr_assert(v.real && v.z > 6, "z %g", v.z);
    cr_assert_float_eq(v.min, 100, 1e-12);
    cr_assert_float_eq(v.max, 180, 1e-12);
    moves_judge(100, walk, 40, 1, &v);
    cr_assert(!v.real, "z %g", v.z);
    cr_assert_float_eq(v.min, 92, 1e-12);
    cr_assert_float_eq(v.max, 108, 1e-12);
}

/* A noise move that visited more than half of its range wandered; the same
 * span when the move is real, or under half of the range, did not. */
Test(moves, a_noise_move_over_most_of_the_range_wandered)
{
    MoveVerdict v = { .real = false, .min = 8, .max = 1000 };
    cr_assert(moves_wandered(&v, 0, 1000));
    cr_assert(!moves_wandered(&v, 0, 4000));
    v.real = true;
    cr_assert(!moves_wandered(&v, 0, 1000));
    v = (MoveVerdict){ .real = false, .min = 200, .max = 600 };
    cr_assert(!moves_wandered(&v, 0, 1000), "40%% of the range");
    cr_assert(!moves_wandered(&v, 5, 5), "an empty range");
}

/* The note names the parameters that wandered, with the share of their
 * range, and says nothing when none did. */
Test(moves, the_note_names_what_wandered)
{
    SpsaParam ps[3] = {
        { .name = "LmpBase", .start = 207, .min = 0, .max = 1000 },
        { .name = "FhrMargin", .start = 50, .min = 0, .max = 400 },
        { .name = "RfpMargin", .start = 65, .min = 20, .max = 200 },
    };
    SpsaState st = { .nparams = 3, .params = ps };
    st.cfg.form = SPSA_FORM_RMS;
    MoveVerdict vs[3] = {
        { .real = false, .min = 8, .max = 1000 },
        { .real = true, .min = 0, .max = 400 },
        { .real = false, .min = 60, .max = 100 },
    };
    char note[1024];
    morning_wander_note(&st, vs, note, sizeof note);
    cr_assert(strstr(note, "1 parameter wandered over more than 50% of its range"), "%s", note);
    cr_assert(strstr(note, "LmpBase (99% of [0, 1000])"), "%s", note);
    cr_assert_null(strstr(note, "FhrMargin"), "%s", note);
    cr_assert_null(strstr(note, "RfpMargin"), "%s", note);
    cr_assert(strstr(note, "try a smaller one, or -spsa adapt=1,"), "%s", note);
    st.cfg.adapt = true;
    morning_wander_note(&st, vs, note, sizeof note);
    cr_assert(strstr(note, "try a smaller one, docs/"), "a run with adapt=1 is not told to use it: %s", note);
    vs[0].max = 300;
    morning_wander_note(&st, vs, note, sizeof note);
    cr_assert_str_eq(note, "");
    char names[16];
    vs[0].max = 1000;
    vs[2] = (MoveVerdict){ .real = false, .min = 20, .max = 200 };
    cr_assert_eq(morning_wanderers(&st, vs, names, sizeof names), 2, "both counted when the text is cut");
    cr_assert(strlen(names) < sizeof names);
}

/* The threshold in numbers: steps of one size in c_end give every
 * parameter the same S (its travel / c_end), "real" is a move beyond 2 S
 * c_end, and n parameters expect n x 0.0455 false "real" calls.  Fails if
 * S is not in units of c_end, or the count is not n P(|z| > 2). */
Test(moves, the_note_gives_s_the_threshold_and_the_false_calls_expected)
{
    double a[16], b[16];
    for (int i = 0; i < 16; i++) {
        a[i] = 100 + (i % 2 ? 0 : 2); /* 16 steps of 2 = 0.5 c_end of 4 */
        b[i] = 50 + (i % 2 ? 0 : 5);  /* 16 steps of 5 = 0.5 c_end of 10 */
    }
    SpsaParam ps[2] = {
        { .name = "A", .start = 100, .min = 0, .max = 1000, .c_end = 4 },
        { .name = "B", .start = 50, .min = 0, .max = 1000, .c_end = 10 },
    };
    SpsaState st = { .nparams = 2, .params = ps };
    MoveVerdict vs[2];
    moves_judge(100, a, 16, 1, &vs[0]);
    moves_judge(50, b, 16, 1, &vs[1]);
    double s, lo, hi, expected;
    morning_travel(&st, vs, &s, &lo, &hi, &expected);
    cr_assert_float_eq(s, 2.0, 1e-9, "S = sqrt(16 x 0.5^2) = 2 c_end, got %g", s);
    cr_assert_float_eq(lo, hi, 1e-9);
    cr_assert_float_eq(expected, 2 * 0.0455003, 1e-6, "%g", expected);
    char note[1024];
    morning_travel_note(&st, vs, note, sizeof note);
    cr_assert(strstr(note, "S = 2,") && strstr(note, "moved more than 4 c_end from the start"), "%s", note);
    cr_assert(strstr(note, "about 0.1 of them (2 x P(|z| > 2.0) = 2 x 0.046)"), "%s", note);
    cr_assert(strstr(note, "not that a move gains Elo") && strstr(note, "verify -ablate"), "%s", note);
    MoveVerdict none[2] = { { .travel = 0 }, { .travel = 0 } };
    morning_travel_note(&st, none, note, sizeof note);
    cr_assert_str_eq(note, "", "nothing without steps");
}
