/* Static evaluation: tapered (midgame/endgame) material and piece-square
 * tables plus cheap terms: mobility, pawn structure, bishop pair, rooks on
 * open files, king shelter, king danger (attack units on the king zone),
 * threats (pieces attacked by cheaper ones, hanging pieces), passed pawns
 * by rank, free and safe path and king distances, and mop-up in won
 * pawnless endings.  Scores are centipawns from the side to move's point
 * of view.  The search is the subject of this engine; the evaluation only
 * has to be sound. */
#ifndef RATCHET_EVAL_H
#define RATCHET_EVAL_H

#include "board.h"

/* Fills the rules' psq_table (board.h) and the evaluation's masks: after
 * rules_init(), before the first position that will be evaluated is set
 * up.  Safe to call again. */
void eval_init(void);

int evaluate(const Position *p);

/* Static threat against the side to move, for fail-high reductions: the
 * value of the most valuable of its pieces that is attacked by a cheaper
 * piece or attacked and undefended (0 if none). */
int eval_threat(const Position *p);

/* Material values (midgame) used by move ordering and SEE; KING is 0. */
extern const int piece_value[7];

/* Does the side have a piece other than pawns and king (null-move guard)? */
bool has_non_pawn_material(const Position *p, int side);

#endif
