/* The selection bias of the highest of several estimates: independent
 * normal estimates X_i ~ N(0, s_i^2) of the same true value, 0, each with
 * its own standard error s_i; given that X_b came out highest, its expected
 * value E[X_b | X_b is the highest], which is what picking the highest adds
 * to it.  Conditioned on which estimate was highest: a noisy estimate that
 * beats a precise one is more optimistic than the precise one beating it.
 * The integrals are GSL's (qagi, over the whole line) of
 * x f_b(x) prod_{j != b} Phi(x / s_j) and of f_b(x) prod_{j != b} Phi(x / s_j),
 * with f_b the density of X_b and Phi the standard normal distribution. */
#ifndef RATCHET_SELBIAS_H
#define RATCHET_SELBIAS_H

#include <stddef.h>

/* E[X_b | X_b is the highest of X_0 .. X_{n-1}] for s[0..n) (each > 0) and
 * b < n: in the units of s.  NaN when the integration fails (an integral
 * not within its tolerance, a normalising integral that is not positive, or
 * no memory for GSL's workspace). */
double selbias_best(const double *s, size_t n, size_t b);

#endif
