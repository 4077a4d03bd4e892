/* Static exchange evaluation (SEE) for move ordering and pruning. */
#ifndef RATCHET_SEE_H
#define RATCHET_SEE_H

#include "board.h"

/* Does the exchange started by the legal move m gain at least `threshold`
 * centipawns for the side making it?  Values are eval.h's piece_value. */
bool see_ge(const Position *p, Move m, int threshold);

/* The exchange's value itself (the largest threshold see_ge accepts). */
int see_value(const Position *p, Move m);

/* The material the move m wins at once, before any recapture: the captured
 * piece (a pawn for en passant), plus the promotion's gain over a pawn. */
int see_capture_gain(const Position *p, Move m);

#endif
