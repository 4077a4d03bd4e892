/* The robustness grid of the SPSA forms (simulate_grid.c). */
#ifndef RATCHET_SIMULATE_GRID_H
#define RATCHET_SIMULATE_GRID_H

#include <stdint.h>

#include "simulate_suite.h"

/* `simulate -grid` (simulate_grid.c): the robustness grid on landscapes drawn from
 * the seeds seed0 .. seed0 + o->seeds - 1, each run `games` games.  o->cfg
 * is the form judged; o->landscapes filters the kinds (quad, plat, asym,
 * coupled).  Exit code as simulate_main. */
int simulate_grid_run(const SimSuiteOptions *o, uint64_t seed0, uint64_t games);

#endif
