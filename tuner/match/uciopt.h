/* UCI option names and values as the tuner sends them.
 *
 * Names: UCI defines an option's name as the words between `name` and
 * `type` of its `option` line, so "Skill Level" is one name and runs of
 * white space count as one space; engines compare names without case.
 *
 * Values: an integer parameter is sent as an integer ("12"); a float
 * parameter (OpenBench's `float` type) as a decimal ("0.8125", "2.0"),
 * never in exponent notation, since engines parse these with their own
 * string-to-number code.  A float sent to a `type spin` option is rounded
 * first (uciopt_round). */
#ifndef RATCHET_UCIOPT_H
#define RATCHET_UCIOPT_H

#include <stdbool.h>
#include <stddef.h>

/* The words of name joined by single spaces, without leading or trailing
 * white space, into out[len].  0, or -1 if it does not fit (out truncated). */
int uciopt_words(const char *name, char *out, size_t len);
/* Do two names denote the same option (same words, case ignored)? */
bool uciopt_same(const char *a, const char *b);

/* The value as setoption sends it: "%.0f" for an integer, else a decimal
 * with up to 10 places, trailing zeros dropped but one place kept. */
void uciopt_format(double v, bool decimal, char *buf, size_t len);

/* A float value for a spin option: floor(x + u), the shared-uniform
 * stochastic rounding SPSA uses for integers (u in [0, 1); u = 0.5 is
 * rounding to the nearest), clipped to the integers of [min, max] when
 * there are any. */
double uciopt_round(double x, double u, double min, double max);

#endif
