/* The UCI front: reads commands, keeps the game position, runs the search
 * in a thread of its own so that `stop` and `isready` are answered while it
 * thinks, and prints `bestmove` (always a legal move, `0000` only when the
 * position has none). */
#ifndef RATCHET_UCI_H
#define RATCHET_UCI_H

#include <stdio.h>

#define ENGINE_NAME "Ratchet"
#define ENGINE_AUTHOR "the Ratchet authors"

/* One-time start-up, in this order: the rules' tables (rules_init), the
 * evaluation's tables with the piece-square table the positions keep their
 * sums from (eval_init), derived parameter tables, the default hash.  Call
 * it before setting up any position.  Safe to call more than once. */
void engine_init(void);

/* Runs the protocol on `in` until `quit` or end of input; all output goes
 * to `out` one whole line per write.  Returns 0. */
int uci_loop(FILE *in, FILE *out);

#endif
