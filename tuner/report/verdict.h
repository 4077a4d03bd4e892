/* verify's verdict as `status` and `verify` print it, from DIR/verify.json
 * (the file verify writes: see verify.h in tuner/commands). */
#ifndef RATCHET_VERDICT_H
#define RATCHET_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "state.h"

#define VERIFY_FILE "verify.json"

/* The verdict of verify.json's object j: what was played against what, the
 * SPRT's outcome or how to continue, the Elo, nElo, LOS and pentanomial
 * counts (dir: the run's, for the command that continues). */
void verdict_print(FILE *out, const cJSON *j, const char *dir);
/* The lines `status DIR` prints about verify: j the file's object, or NULL
 * when it could not be read (err says why); rs the run's state now, to tell
 * whether the run moved on since (NULL: not told). */
void verdict_print_status(FILE *out, const char *dir, const cJSON *j, const char *err, const RunState *rs);

#endif
