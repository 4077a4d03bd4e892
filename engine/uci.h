/* The UCI front: reads commands, keeps the game position, runs the search
 * in a thread of its own so that `stop` and `isready` are answered while it
 * thinks, and prints `bestmove` (always a legal move, `0000` only when the
 * position has none). */
#ifndef RATCHET_UCI_H
#define RATCHET_UCI_H

#include <stdio.h>

#define ENGINE_NAME "Ratchet"
#define ENGINE_AUTHOR "the Ratchet authors"

/* Runs the protocol on `in` until `quit` or end of input; all output goes
 * to `out` one whole line per write.  Returns 0. */
int uci_loop(FILE *in, FILE *out);

#endif
