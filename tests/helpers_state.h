/* The helper of the tests that read a run's state (test_run.c,
 * test_mpi.c), apart from helpers.h so that the tests of the engine's own
 * headers need not see the tuner's. */
#ifndef RATCHET_TEST_HELPERS_STATE_H
#define RATCHET_TEST_HELPERS_STATE_H

#include "state.h"

/* The state of the run directory tmp/dir into rs; fails the test if it
 * cannot be loaded. */
void load_state(const char *dir, RunState *rs);

#endif
