/* An Elo estimate that has no interval, in words a user reads.
 *
 * A sample whose pairs all fall in one pentanomial category (or whose games
 * all had one result) has no variance, so no interval; one that scored 0%
 * or 100% has an infinite Elo; a small sample's interval can reach a score
 * of 0% or 100%, which makes its half-width infinite (stats.h).  Instead of
 * "+inf +/- inf", every display of such an estimate says "n/a" with the
 * counts and the reason, e.g.
 *
 *   n/a (all 6 pairs WW, score 100.0%: too few games for an interval)
 *   n/a (3 pairs, score 83.3%: too few games for a finite interval)
 *
 * The files that store estimates (validation.csv, verify.json) keep their
 * numbers as they are. */
#ifndef RATCHET_ELOTEXT_H
#define RATCHET_ELOTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether "elo +/- err" can be shown: both finite, and an interval of
 * width 0 only at Elo 0 (a match of draws only reads "0.00 +/- 0.00", as
 * fastchess prints it; one LD pair has no interval). */
bool elo_has_interval(double elo, double err);

/* "n/a (...)" into buf for an estimate without an interval, from the
 * counts it was made of: the pentanomial pairs ptnml[5] (LL, LD, DD+WL, WD,
 * WW) when it holds any pair, else the games (wins, losses, draws).  ptnml
 * may be NULL.  Returns buf. */
const char *elo_na_text(char *buf, size_t len, const uint64_t *ptnml, uint64_t wins, uint64_t losses,
                        uint64_t draws);

/* "12.34 +/- 5.67" (digits decimals, with the sign when plus) when the
 * estimate has an interval, else elo_na_text's "n/a (...)".  Returns buf. */
const char *elo_text(char *buf, size_t len, double elo, double err, int digits, bool plus, const uint64_t *ptnml,
                     uint64_t wins, uint64_t losses, uint64_t draws);

/* x as "%+.*f" prints it at digits decimals, except that a value that
 * rounds to zero is +0: "+0.0", never "-0.0". */
double elo_no_minus_zero(double x, int digits);

#endif
