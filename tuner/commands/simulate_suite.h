/* The SPSA forms on the suite of synthetic landscapes (simulate_suite.c). */
#ifndef RATCHET_SIMULATE_SUITE_H
#define RATCHET_SIMULATE_SUITE_H

#include <stdbool.h>

#include "spsa.h"

/* `simulate -suite` (simulate_suite.c): every form on every landscape of the
 * suite, or only `cfg` (beside the classic form) when `custom`.  r_end > 0
 * replaces the spec's 0.002 (classic); landscapes: a comma list of names, or
 * NULL for all.  Exit code as simulate_main. */
typedef struct {
    SpsaConfig cfg;
    bool custom;
    double r_end;
    int seeds;
    double draw_ratio, opening_bias;
    const char *landscapes;
} SimSuiteOptions;

#define SIM_SUITE_SEEDS 25

int simulate_suite_run(const SimSuiteOptions *o);

#endif
