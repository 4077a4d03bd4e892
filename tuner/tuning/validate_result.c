/* The results of finished validation points (ValidationPoint, a row of
 * validation.csv) as the displays read them: a point's Elo in words
 * (validate_elo_text), the point that scored best (validate_best) and the
 * selection bias of that best point (validate_selection_bias: the points'
 * errors handed to the integral of selbias.h).  See validate.h. */
#include "validate.h"

#include <math.h>
#include <stdlib.h>

#include "elotext.h"
#include "selbias.h"

const char *validate_elo_text(const ValidationPoint *p, char *buf, size_t len)
{
    if (elo_has_interval(p->elo, p->elo_err)) {
        snprintf(buf, len, "%+.1f +/- %.1f Elo", elo_no_minus_zero(p->elo, 1), p->elo_err);
    } else {
        char na[160];
        snprintf(buf, len, "Elo %s", elo_na_text(na, sizeof na, p->ptnml, p->wins, p->losses, p->draws));
    }
    return buf;
}

/* A point's rank for validate_best: with an interval above without one,
 * then the Elo; a non-finite Elo ranks last. */
static int best_class(const ValidationPoint *p)
{
    return elo_has_interval(p->elo, p->elo_err) ? 2 : isfinite(p->elo) ? 1 : 0;
}

size_t validate_best(const ValidationPoint *pts, size_t n)
{
    size_t b = n - 1;
    for (size_t i = 0; i < n; i++) {
        int ci = best_class(&pts[i]), cb = best_class(&pts[b]);
        if (ci > cb || (ci == cb && ci > 0 && pts[i].elo > pts[b].elo))
            b = i;
    }
    return b;
}

double validate_selection_bias(const ValidationPoint *pts, size_t n)
{
    if (n == 0)
        return 0;
    size_t best = validate_best(pts, n);
    double *s = malloc((n + 1) * sizeof *s);
    size_t k = 0, b = n;
    for (size_t i = 0; s && i < n; i++)
        if (elo_has_interval(pts[i].elo, pts[i].elo_err) && pts[i].elo_err > 0) {
            if (i == best)
                b = k;
            s[k++] = pts[i].elo_err / 1.959963984540054;
        }
    double bias = 0;
    if (!s)
        bias = NAN;
    else if (k >= 2 && b == n)
        bias = NAN; /* the best point has no interval: nothing to condition on */
    else if (k >= 2)
        bias = selbias_best(s, k, b);
    free(s);
    return bias;
}
