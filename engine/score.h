/* The score scale shared by evaluation, search and transposition table:
 * centipawns from the side to move's point of view, mate scores near
 * +/-SCORE_MATE counting plies from the root. */
#ifndef RATCHET_SCORE_H
#define RATCHET_SCORE_H

#define MAX_PLY 128

enum {
    SCORE_DRAW = 0,
    SCORE_MATE = 32000,
    SCORE_MATE_IN_MAX = SCORE_MATE - MAX_PLY, /* |score| >= this: a mate score */
    SCORE_INF = 32001,
    SCORE_NONE = 32002                        /* "no value" (e.g. eval in check) */
};

static inline int score_mated_in(int ply) { return -SCORE_MATE + ply; }
static inline int score_mate_in(int ply) { return SCORE_MATE - ply; }
static inline int score_is_mate(int s) { return s >= SCORE_MATE_IN_MAX || s <= -SCORE_MATE_IN_MAX; }

#endif
