/* The SPSA state (tuner/spsa/spsa.h) as JSON: the "spsa" object of a run's
 * state.json (state.h).  The format belongs to the run; the SPSA math knows
 * nothing of it.
 *
 * spsa_state_to_json returns a new object (NULL on OOM) holding the config,
 * every parameter, k, the counters, the RNG state (hex of gsl_rng_state
 * bytes) and every in-flight batch.  A float parameter has "type": "float";
 * without "type" a parameter is an integer (older states).
 * spsa_state_from_json restores a state from it exactly, also one written
 * by an older build (every version of the format, spsa_state_json.c); it
 * refuses a number that is not finite (cJSON reads 1e400 as infinity) and a
 * start outside its parameter's [min, max].  On error it returns -1 with a
 * message naming the field, and *st is left zeroed. */
#ifndef RATCHET_SPSA_STATE_JSON_H
#define RATCHET_SPSA_STATE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "spsa.h"

/* No run plays more games than this; a state that counts or plans more is
 * refused as corrupt. */
#define SPSA_STATE_MAX_GAMES 1000000000000ULL

cJSON *spsa_state_to_json(const SpsaState *st);
int spsa_state_from_json(SpsaState *st, const cJSON *json, char *err, size_t errlen);

#endif
