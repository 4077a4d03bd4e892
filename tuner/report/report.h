/* What a user reads about a run: the summary and the parameter table
 * (printed at the end of a run and by `ratchet-tune status DIR`). */
#ifndef RATCHET_REPORT_H
#define RATCHET_REPORT_H

#include <stdio.h>

#include "hist.h"
#include "state.h"

/* One row of the table, computed from the state and history.csv. */
typedef struct {
    double start, current;
    double recent;       /* mean theta over the last 10% of the rows (current when there are none) */
    double lo, hi;       /* smallest and largest theta of the run, start included */
    double c_k;          /* the perturbation of the next iteration */
    bool never_moved;    /* theta never left its start */
    bool at_min, at_max; /* theta sits on a bound of its range */
    int drifting;        /* +1 / -1: still moving up / down (report_drift), else 0 */
} ParamSummary;

/* The "still drifting" flag: the mean theta of the last 10% of the rows
 * (recent) against the mean of the 10% before them (prev, over prev_rows
 * rows): +1 or -1 when it moved by at least REPORT_DRIFT_CEND * c_end (half
 * the final perturbation within a tenth of the run is a trend: the random
 * walk of a parameter without a gradient, 30 of them over 100k batches,
 * crosses a quarter of c_end several times but half of it rarely), 0
 * otherwise or with fewer than 10 rows in either window. */
#define REPORT_DRIFT_CEND 0.5
int report_drift(double recent, double prev, uint64_t prev_rows, double c_end);

void report_param(const RunState *rs, const HistData *h, size_t p, ParamSummary *out);
/* The summary lines and the table of every tuned parameter. */
void report_table(FILE *out, const RunState *rs, const HistData *h);

#endif
