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

/* What |z| > MOVES_Z tests, in numbers (buf: "" without steps): every
 * step of a parameter has the same size in units of its c_end, only its
 * sign differs, so z = move / (c_end S) with one S for the run (the root of
 * its squared steps in c_end: its median and range over the parameters);
 * "real" means "moved more than MOVES_Z S c_end", and n parameters that
 * the games all ignored would still give n P(|z| > MOVES_Z) "real" calls.
 * It measures travel beyond what noise would make, not that a move gains
 * Elo: the games' judgement is an ablation. */
void morning_travel_note(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len);
/* Its figures: S (median over the parameters with steps; 0 without),
 * its range, the threshold in c_end and the expected false "real" calls. */
void morning_travel(const SpsaState *st, const MoveVerdict *vs, double *s, double *smin, double *smax,
                    double *expected);

/* The table of moves: start, final, interval, z, real or noise; then the
 * wander note. */
void morning_moves(FILE *out, const char *dir, const RunState *rs);

/* The Elo of the best of pts[0..n) (validate_best, n > 0) as every display
 * shows it: "+X Elo as measured, +Y corrected for selection (...)" with no
 * interval (the raw one is optimistic; validate_selection_bias), or the
 * point's Elo text said to be uncorrected when it has no interval.
 * Returns buf. */
const char *morning_best_text(const ValidationPoint *pts, size_t n, char *buf, size_t len);

/* With validation at the user's limit (validate.h): the warning when the
 * latest point at that limit disagrees with the one at the tuning limit
 * `tc` (positive there, negative at the user's) or is significantly below
 * zero; buf "" when neither. */
void morning_limit_warning(const ValidationPoint *tuned, const ValidationPoint *user, const char *tc,
                           const char *limit, char *buf, size_t len);

/* The validation points so far (the latest, the best, their count) and the
 * openings held out; nothing for a run without them. */
void morning_validation(FILE *out, const char *dir, const RunState *rs);

#endif
