/* What a user asks of a run in the morning, in the text of `status` and at
 * the end of a run: the latest validation point (validate.h) and which moves
 * are real (moves.h). */
#ifndef RATCHET_MORNING_H
#define RATCHET_MORNING_H

#include <stdint.h>
#include <stdio.h>

#include "moves.h"
#include "state.h"

/* The verdict for every tuned parameter (out: nparams entries, SPSA order)
 * from the first maxrows rows of DIR/history.csv, read in one streaming
 * pass.  Without history.csv (or with no row), each verdict is of the state's
 * theta alone.  0, or -1 with a message naming the file and line (out then
 * holds the verdicts without history). */
int morning_verdicts(const char *dir, const RunState *rs, uint64_t maxrows, MoveVerdict *out, char *err,
                     size_t errlen);

/* The parameters whose move wandered (moves_wandered over their range), as
 * "NAME (P% of [MIN, MAX])" joined by ", " into buf (cut to fit).  Returns
 * how many. */
size_t morning_wanderers(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len);
/* The sentence that names them and what to do, for `status` and the report
 * (buf: "" when none wandered). */
void morning_wander_note(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len);

/* The table of moves: start, final, interval, z, real or noise; then the
 * wander note. */
void morning_moves(FILE *out, const char *dir, const RunState *rs);

/* The validation points so far (the latest, the best, their count) and the
 * openings held out; nothing for a run without them. */
void morning_validation(FILE *out, const char *dir, const RunState *rs);

#endif
