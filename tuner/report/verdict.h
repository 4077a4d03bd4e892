/* verify's verdict as `status` and `verify` print it, from DIR/verify.json
 * (the file verify writes: see verify.h in tuner/commands) as its record
 * holds it (verify_record.h). */
#ifndef RATCHET_VERDICT_H
#define RATCHET_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "state.h"
#include "verify_record.h"

/* The verdict of verify.json's record r: what was played against what, the
 * SPRT's outcome or how to continue, the Elo, nElo, LOS and pentanomial
 * counts (dir: the run's, for the command that continues). */
void verdict_print(FILE *out, const VerifyRecord *r, const char *dir);
/* The lines `status DIR` prints about verify: r the file's record, or NULL
 * when it could not be read (err says why); rs the run's state now, to tell
 * whether the run moved on since (NULL: not told). */
void verdict_print_status(FILE *out, const char *dir, const VerifyRecord *r, const char *err, const RunState *rs);

#endif
