/* What a user reads about a run: the summary and the parameter table
 * (printed at the end of a run and by `ratchet-tune status DIR`). */
#ifndef RATCHET_REPORT_H
#define RATCHET_REPORT_H

#include <stdio.h>

#include "runhist.h"
#include "runstate.h"

/* One row of the table, computed from the state and history.csv. */
typedef struct {
    double start, current;
    double recent;       /* mean theta over the last 10% of the rows (current when there are none) */
    double lo, hi;       /* smallest and largest theta of the run, start included */
    double c_k;          /* the perturbation of the next iteration */
    bool never_moved;    /* theta never left its start */
    bool at_min, at_max; /* theta sits on a bound of its range */
} ParamSummary;

void report_param(const RunState *rs, const HistData *h, size_t p, ParamSummary *out);
/* The summary lines and the table of every tuned parameter. */
void report_table(FILE *out, const RunState *rs, const HistData *h);

/* `ratchet-tune status DIR`: 0, 2 on a usage error, 1 if DIR is not readable. */
int status_main(int argc, char **argv);

#endif
