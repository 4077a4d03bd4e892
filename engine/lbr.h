/* Last best reply (Steven Edwards): at every node with a prior non-null
 * move, the node's best move is stored together with that prior move,
 * matched by from, to, moving piece, captured piece and special kind (the
 * move's flag).  At ordering time the stored reply to the same prior move
 * gets a bonus.  Variants, each a parameter switch:
 *   LbrUseTwoPrior   key on the prior move and the move before it;
 *   LbrTwoPliesBack  key on the move two plies earlier instead;
 *   LbrSkipNoisy     never store or use captures and promotions as replies;
 *   LbrPerColour     one store per colour for the whole search instead of
 *                    one store per ply. */
#ifndef RATCHET_LBR_H
#define RATCHET_LBR_H

#include <stdint.h>

#include "board.h"
#include "score.h"

#define LBR_PLY_SLOTS 256      /* per-ply store: hashed by the key */
#define LBR_COLOUR_SLOTS 8192  /* per-colour store */

typedef struct {
    uint64_t key;   /* 0 = empty */
    Move reply;
} LbrEntry;

typedef struct {
    LbrEntry per_ply[MAX_PLY + 2][LBR_PLY_SLOTS];
    LbrEntry per_colour[2][LBR_COLOUR_SLOTS];
} LbrStore;

/* Empties both stores (once per search). */
void lbr_clear(LbrStore *s);
/* The stored reply for the node at `ply` in p, or MOVE_NONE (also when LBR
 * is disabled or there is no prior non-null move).  Not checked for
 * legality: the caller only matches it against generated moves. */
Move lbr_probe(const LbrStore *s, const Position *p, int ply);
/* Records `best` as the reply at this node. */
void lbr_store(LbrStore *s, const Position *p, int ply, Move best);

#endif
