/* SPSA's private helpers, shared by spsa.c (the math and the state) and
 * spsa_json.c (the state as JSON).  Not for other modules: see spsa.h. */
#ifndef RATCHET_SPSA_IMPL_H
#define RATCHET_SPSA_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "spsa.h"

/* Whether the state's form plays centre batches (cfg.centre > 0, not classic). */
bool spsa_centre_on(const SpsaState *st);
bool spsa_is_integer(double x);
/* b zeroed, with room for n parameters; 0, or -1 out of memory. */
int spsa_batch_alloc(SpsaBatch *b, size_t n);
/* A copy of b appended to the batches in flight; 0, or -1 out of memory. */
int spsa_inflight_push(SpsaState *st, const SpsaBatch *b);

#endif
