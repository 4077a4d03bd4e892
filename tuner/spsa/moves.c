/* Which moves are real; see moves.h. */
#include "moves.h"

#include <math.h>

void moves_judge(double start, const double *theta, size_t n, size_t stride, MoveVerdict *out)
{
    out->final = n ? theta[(n - 1) * stride] : start;
    out->lo = out->hi = out->final;
    out->z = out->z_steps = out->z_signs = 0;
    out->real = false;
    if (n == 0)
        return;
    double prev = start, ss = 0;
    double npos = 0, nneg = 0;
    for (size_t k = 0; k < n; k++) {
        double d = theta[k * stride] - prev;
        ss += d * d;
        npos += d > 0;
        nneg += d < 0;
        prev = theta[k * stride];
    }
    out->z_steps = ss > 0 ? (out->final - start) / sqrt(ss) : 0;
    out->z_signs = npos + nneg > 0 ? (npos - nneg) / sqrt(npos + nneg) : 0;
    out->z = out->z_steps;
    out->real = fabs(out->z) > MOVES_Z;
    size_t tail = (size_t)ceil((double)n * MOVES_TAIL);
    double st = 0;
    for (size_t k = n - tail + (n == tail ? 1 : 0); k < n; k++) {
        double d = theta[k * stride] - theta[(k - 1) * stride];
        st += d * d;
    }
    out->lo = out->final - 1.96 * sqrt(st);
    out->hi = out->final + 1.96 * sqrt(st);
}
