/* Which moves are real; see moves.h. */
#include "moves.h"

#include <math.h>

void moves_acc_init(MoveAcc *a, double start)
{
    *a = (MoveAcc){ .start = start, .prev = start, .min = start, .max = start };
}

void moves_acc_add(MoveAcc *a, double theta, bool in_tail)
{
    double d = theta - a->prev;
    a->ss += d * d;
    /* The first step of the tail starts at the row before it. */
    if (in_tail)
        a->tail_ss += d * d;
    a->up += d > 0;
    a->down += d < 0;
    a->prev = theta;
    a->min = fmin(a->min, theta);
    a->max = fmax(a->max, theta);
    a->n++;
}

size_t moves_tail_from(size_t n)
{
    size_t tail = (size_t)ceil((double)n * MOVES_TAIL);
    /* The tail's steps need the row before it: at least one step. */
    return n - tail + (tail == n && n > 0 ? 1 : 0);
}

void moves_acc_verdict(const MoveAcc *a, MoveVerdict *out)
{
    out->final = a->n ? a->prev : a->start;
    out->travel = sqrt(a->ss);
    out->z_steps = a->ss > 0 ? (out->final - a->start) / out->travel : 0;
    out->z_signs = a->up + a->down > 0 ? (a->up - a->down) / sqrt(a->up + a->down) : 0;
    out->z = out->z_steps;
    out->real = fabs(out->z) > MOVES_Z;
    out->lo = out->final - 1.96 * sqrt(a->tail_ss);
    out->hi = out->final + 1.96 * sqrt(a->tail_ss);
    out->min = a->min;
    out->max = a->max;
}

void moves_verdict_at(MoveVerdict *v, double start, double value)
{
    double half = (v->hi - v->lo) / 2;
    v->final = value;
    v->lo = value - half;
    v->hi = value + half;
    v->z_steps = v->travel > 0 ? (value - start) / v->travel : 0;
    v->z = v->z_steps;
    v->real = fabs(v->z) > MOVES_Z;
}

bool moves_wandered(const MoveVerdict *v, double lo, double hi)
{
    return !v->real && hi > lo && v->max - v->min > MOVES_WANDER * (hi - lo);
}

void moves_judge(double start, const double *theta, size_t n, size_t stride, MoveVerdict *out)
{
    MoveAcc a;
    moves_acc_init(&a, start);
    size_t t0 = moves_tail_from(n);
    for (size_t k = 0; k < n; k++)
        moves_acc_add(&a, theta[k * stride], k >= t0);
    moves_acc_verdict(&a, out);
}
