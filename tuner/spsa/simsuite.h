/* The SPSA forms on the suite of synthetic landscapes (simsuite.c). */
#ifndef RATCHET_SIMSUITE_H
#define RATCHET_SIMSUITE_H

#include <stdbool.h>

#include "spsa.h"

/* `simulate -suite` (simsuite.c): every form on every landscape of the
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

/* The suite's defaults, measured on bin/ratchet at nodes=5000 (a 600-game
 * history.csv, docs/results/spsa-suite.md): draws, and the opening bias that gives
 * the share of win-and-loss pairs seen there. */
#define SIM_SUITE_SEEDS 25
#define SIM_SUITE_DRAW_RATIO 0.25
#define SIM_SUITE_OPENING_BIAS 80.0

int simsuite_run(const SimSuiteOptions *o);

#endif
