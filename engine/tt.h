/* The transposition table: buckets of four 16-byte entries (one cache
 * line), indexed by the Zobrist key, sized by the UCI Hash option in MB.
 * Replacement: the entry of the same position if present, else the one
 * whose depth, discounted by its age in searches, is lowest.  Mate scores
 * are stored relative to the node, not the root. */
#ifndef RATCHET_TT_H
#define RATCHET_TT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

typedef struct {
    Move move;
    int score;   /* already adjusted to the probing node's ply */
    int eval;    /* static eval, or SCORE_NONE */
    int depth;
    int bound;
} TTHit;

#define TT_DEFAULT_MB 16
#define TT_MAX_MB 65536

/* (Re)allocates the table with `mb` megabytes (1..TT_MAX_MB) and clears it.
 * Returns 0, or -1 if the memory could not be had (the old table is kept). */
int tt_resize(size_t mb);
size_t tt_size_mb(void);
/* Clears every entry and the age; for ucinewgame and bench. */
void tt_clear(void);
/* Marks the start of a new search (entries of older searches age). */
void tt_new_search(void);
/* Looks up `key`; on a hit fills *hit (score adjusted for `ply`). */
bool tt_probe(uint64_t key, int ply, TTHit *hit);
/* Starts loading key's bucket into the cache (after a move, before the
 * child's probe). */
void tt_prefetch(uint64_t key);
/* Stores a result; `score` is relative to the root at `ply`. */
void tt_store(uint64_t key, int ply, Move move, int score, int eval, int depth, int bound);
/* Permille of sampled entries used by the current search (UCI hashfull). */
int tt_hashfull(void);
/* Frees the table (for leak-free shutdown). */
void tt_free(void);

/* Scores within this distance of SCORE_MATE are mate scores. */
int tt_score_to(int score, int ply);
int tt_score_from(int score, int ply);

#endif
