/* What the search learns about quiet moves as it goes: the butterfly
 * history (with the gravity update, written in one place), two killers per
 * ply and the countermove table. */
#ifndef RATCHET_HISTORY_H
#define RATCHET_HISTORY_H

#include <stdint.h>

#include "board.h"
#include "score.h"

/* History values stay within +/-HIST_MAX. */
#define HIST_MAX 16384

typedef struct {
    int16_t butterfly[2][64][64];   /* [side][from][to], persists across searches */
    Move counter[12][64];           /* [prior moved piece][prior to], persists */
    Move killers[MAX_PLY + 2][2];   /* reset per search */
} History;

/* Everything to zero (ucinewgame, bench). */
void history_clear(History *h);
/* Per-search reset (killers). */
void history_new_search(History *h);

/* The gravity update: entry += bonus - entry * |bonus| / HIST_MAX, which
 * keeps the entry within +/-HIST_MAX.  Every history write goes through it. */
static inline void history_gravity(int16_t *entry, int bonus)
{
    if (bonus > HIST_MAX)
        bonus = HIST_MAX;
    if (bonus < -HIST_MAX)
        bonus = -HIST_MAX;
    int v = *entry;
    v += bonus - v * (bonus < 0 ? -bonus : bonus) / HIST_MAX;
    *entry = (int16_t)v;
}

/* The bonus for a cutoff at `depth`: min(HistBonusMax, HistBonusScale * depth^2). */
int history_bonus(int depth);

/* The quiet history score of m for the side to move (0 when disabled). */
int history_score(const History *h, const Position *p, Move m);
/* The countermove to the prior move, or MOVE_NONE. */
Move history_counter(const History *h, const Position *p);
/* The killers of a ply (MOVE_NONE when disabled). */
void history_killers(const History *h, int ply, Move out[2]);

/* A quiet move `best` caused a beta cutoff at `depth` after the quiet moves
 * `tried[0..ntried)` failed: update killers, countermove and history. */
void history_on_cutoff(History *h, const Position *p, int ply, int depth, Move best,
                       const Move *tried, int ntried);

#endif
