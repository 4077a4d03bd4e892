/* What the fake UCI engines of tests/fake/ share: a sleep that survives
 * signals and the "position" command on the rules library. */
#ifndef RATCHET_FAKELIB_H
#define RATCHET_FAKELIB_H

#include "board.h"

/* Sleeps MS milliseconds, resuming after a signal. */
void fake_sleep_ms(long ms);

/* "position startpos|fen F [moves ...]" (CMD, modified in place): POS set up
 * from scratch; a bad FEN gives the start position and an illegal move ends
 * the list, each with an "info string" line. */
void fake_position(Position *pos, char *cmd);

#endif
