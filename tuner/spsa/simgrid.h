/* The robustness grid of the SPSA forms (simgrid.c). */
#ifndef RATCHET_SIMGRID_H
#define RATCHET_SIMGRID_H

#include <stdint.h>

#include "simsuite.h"

/* `simulate -grid` (simgrid.c): the robustness grid on landscapes drawn from
 * the seeds seed0 .. seed0 + o->seeds - 1, each run `games` games.  o->cfg
 * is the form judged; o->landscapes filters the kinds (quad, plat, asym,
 * coupled).  Exit code as simulate_main. */
int simgrid_run(const SimSuiteOptions *o, uint64_t seed0, uint64_t games);

#endif
