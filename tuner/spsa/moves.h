/* Which moves are real: per parameter, from the sequence of its values
 * after each completed batch (history.csv's theta column, or a simulation),
 *
 *   - an interval for its final value: the final value +/- 1.96 times the
 *     root of the sum of its squared steps over the tail (the last MOVES_TAIL
 *     of the rows): how far the steps of that stretch of the run moved it
 *     about.  (Batch means of theta over the tail, and the tail's mean +/- 2
 *     standard deviations of its values, were measured too: SPSA's iterates
 *     are correlated over hundreds of batches, and both intervals were far
 *     too narrow: started at the optimum, 10k games, they cover it in 17%
 *     and 44% of the cases, this one in 76%);
 *   - whether the move from the start is distinguishable from noise: the
 *     signed steps d_k = theta_k - theta_(k-1) of a parameter the games do
 *     not see are symmetric (its flip is independent of the outcome), so
 *     z = (theta_end - start) / sqrt(sum d_k^2) is about standard normal for
 *     it; the move is called real when |z| > MOVES_Z (about 1 in 20 of the
 *     parameters the games ignore is still called real).  This is the sign
 *     consistency of its gradient estimates, each weighted by its step; the
 *     plain sign count (z_signs) measured the same on the simulator.
 *
 *   - whether it wandered: a move that is noise while the value visited more
 *     than MOVES_WANDER of the parameter's range (its lowest to its highest
 *     value, the start included).  The steps were then large against the
 *     range and the games did not steer them: the sign of a c_end too large
 *     for the parameter (with c_end 3x what `bin/ratchet spsa` prints,
 *     LmpBase visited 8..1000 of [0, 1000] in 10,000 games and none of
 *     the 8 moves was real: docs/results/spsa-scale.md).
 *
 * The statistic, the threshold and the interval were chosen by measurement
 * on the simulator (tools/movesbench.c; docs/results/morning-after.md). */
#ifndef RATCHET_MOVES_H
#define RATCHET_MOVES_H

#include <stdbool.h>
#include <stddef.h>

#define MOVES_Z 2.0
#define MOVES_TAIL 0.25
#define MOVES_WANDER 0.5

typedef struct {
    double final;     /* the last value */
    double lo, hi;    /* the interval for the final value (lo == hi == final without steps in the tail) */
    double z;         /* the move's sign-consistency statistic (z_steps); 0 without steps */
    double z_steps;   /* (final - start) / sqrt(sum of squared steps) */
    double z_signs;   /* (steps up - steps down) / sqrt(steps) */
    double travel;    /* sqrt(sum of squared steps): the spread of a pure random walk of these steps,
                       * so z = (final - start) / travel */
    bool real;        /* |z| > MOVES_Z */
    double min, max;  /* the lowest and the highest value, the start included */
} MoveVerdict;

/* The sums a verdict needs, gathered one value at a time (history.csv is
 * read in one streaming pass): add every value in order, in_tail for the
 * last MOVES_TAIL of them (moves_tail_from gives the first row of the tail). */
typedef struct {
    double start, prev;
    double ss, tail_ss;   /* sums of squared steps: all, the tail's */
    double up, down;      /* steps up and down */
    double min, max;      /* the lowest and the highest value, the start included */
    size_t n;
} MoveAcc;
void moves_acc_init(MoveAcc *a, double start);
void moves_acc_add(MoveAcc *a, double theta, bool in_tail);
void moves_acc_verdict(const MoveAcc *a, MoveVerdict *out);
/* The index of the first row of the tail of n rows. */
size_t moves_tail_from(size_t n);

/* Whether a verdict's move wandered: noise, over more than MOVES_WANDER of
 * the range [lo, hi] (false for an empty range). */
bool moves_wandered(const MoveVerdict *v, double lo, double hi);

/* The verdict re-centred on value, the one that ships (under an averaging
 * form export writes the average of the run's last part, not its last
 * theta): final, z, real and the interval move with it; the travel and the
 * range stay. */
void moves_verdict_at(MoveVerdict *v, double start, double value);

/* The same over an array: n values, stride apart (row-major: stride = parameters). */
void moves_judge(double start, const double *theta, size_t n, size_t stride, MoveVerdict *out);

#endif
