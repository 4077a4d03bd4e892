/* selbias_best (tuner/match/selbias.c): the expected value of the highest
 * of independent normal estimates of 0, against closed forms. */
#include <criterion/criterion.h>
#include <math.h>

#include "selbias.h"

/* Two estimates: X_b - X_other = D ~ N(0, s_b^2 + s_o^2) and Cov(X_b, D) =
 * s_b^2, so E[X_b | D > 0] = s_b^2 / sd(D) sqrt(2 / pi). */
static double two(double sb, double so) { return sb * sb / sqrt(sb * sb + so * so) * sqrt(2 / M_PI); }

Test(selbias, two_estimates_of_unequal_error_match_the_closed_form)
{
    const double s[2] = { 1, 2 };
    cr_assert_float_eq(selbias_best(s, 2, 0), two(1, 2), 1e-6, "%.9f", selbias_best(s, 2, 0));
    cr_assert_float_eq(selbias_best(s, 2, 1), two(2, 1), 1e-6, "%.9f", selbias_best(s, 2, 1));
    /* The noisy one that comes out highest is the more optimistic. */
    cr_assert_gt(selbias_best(s, 2, 1), 3 * selbias_best(s, 2, 0));
}

/* Equal errors: E[max of n standard normals]: 1/sqrt(pi) for 2, 3/(2 sqrt(pi))
 * for 3, and 1.1629644736 for 5 (the expected largest of 5). */
Test(selbias, equal_errors_give_the_expected_maximum)
{
    const double s[5] = { 1, 1, 1, 1, 1 };
    cr_assert_float_eq(selbias_best(s, 2, 1), 1 / sqrt(M_PI), 1e-6);
    cr_assert_float_eq(selbias_best(s, 3, 2), 1.5 / sqrt(M_PI), 1e-6);
    cr_assert_float_eq(selbias_best(s, 5, 0), 1.1629644736, 1e-6);
}

Test(selbias, one_estimate_has_no_bias_and_the_bias_scales_with_the_errors)
{
    const double one[1] = { 3 };
    cr_assert_float_eq(selbias_best(one, 1, 0), 0, 1e-6);
    const double s[3] = { 1, 1.5, 0.7 }, s10[3] = { 10, 15, 7 };
    for (size_t b = 0; b < 3; b++)
        cr_assert_float_eq(selbias_best(s10, 3, b), 10 * selbias_best(s, 3, b), 1e-5, "b = %zu", b);
}
