/* The helpers of the tests that read a run's state (test_run.c, test_verify.c,
 * test_mpi.c), apart from helpers.h so that the tests of the engine's own
 * headers need not see the tuner's. */
#ifndef RATCHET_TEST_HELPERS_STATE_H
#define RATCHET_TEST_HELPERS_STATE_H

#include "state.h"

/* The state of the run directory tmp/dir into rs; fails the test if it
 * cannot be loaded. */
void load_state(const char *dir, RunState *rs);

/* The direction of the whole loop: engine 0 plays theta + c*flip, a win of
 * engine 0 pushes theta along +flip.  From a far start (8 c_end from the
 * optimum of the fake engine, whose landscape has a slope there with
 * --width 60), every parameter must close a good part of its distance to the
 * optimum.  Swapping the plus and minus values, or wins and losses, anywhere
 * between the batch and the update sends every parameter the other way. */
void assert_moves_toward_the_optimum(const char *form);

#endif
