/* What a user asks of a run in the morning, in the text of `status` and at
 * the end of a run: the latest validation point (validate.h) and which moves
 * are real (moves.h). */
#ifndef RATCHET_MORNING_H
#define RATCHET_MORNING_H

#include <stdio.h>

#include "moves.h"
#include "runhist.h"
#include "runstate.h"

/* The verdict for tuned parameter p from the rows of history.csv (h may be
 * NULL or empty: then the start and current value only). */
void morning_judge(const RunState *rs, const HistData *h, size_t p, MoveVerdict *out);

/* The table of moves: start, final, interval, z, real or noise. */
void morning_moves(FILE *out, const RunState *rs, const HistData *h);

/* The validation points so far (the latest, the best, their count) and the
 * openings held out; nothing for a run without them. */
void morning_validation(FILE *out, const char *dir, const RunState *rs);

#endif
