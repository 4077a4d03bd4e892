/* What the search learns about moves as it goes: the butterfly history,
 * continuation history (a quiet move's score after the moves one and two
 * plies back), capture history (all with the gravity update, written in
 * one place), two killers per ply and the countermove table. */
#ifndef RATCHET_HISTORY_H
#define RATCHET_HISTORY_H

#include <stdint.h>

#include "board.h"
#include "score.h"

/* History values stay within +/-HIST_MAX. */
#define HIST_MAX 16384

/* A continuation table: a quiet move's score by [moving piece][to] after
 * one particular earlier move. */
typedef int16_t ContTable[12][64];

/* The continuation tables of the moves one and two plies back (the search
 * stack's), NULL where there is no such move (root, null move). */
typedef struct {
    ContTable *ply1, *ply2;
} ContTables;

/* Correction history entries (a power of two) and their resolution. */
#define CORR_SIZE 16384
#define CORR_GRAIN 128

typedef struct {
    int16_t butterfly[2][64][64];   /* [side][from][to], persists across searches */
    ContTable cont[12][64];         /* [earlier moved piece][earlier to], persists */
    int16_t capture[12][64][6];     /* [moving piece][to][captured type], persists */
    Move counter[12][64];           /* [prior moved piece][prior to], persists */
    Move killers[MAX_PLY + 2][2];   /* reset per search */
    int16_t corr[2][CORR_SIZE];     /* [side][pawn hash], CORR_GRAIN per centipawn, persists */
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

/* The quiet history score of m for the side to move: butterfly plus the
 * continuation histories (each part 0 when its switch is off). */
int history_score(const History *h, const Position *p, const ContTables *ct, Move m);
/* The capture history of a capture or promotion m (0 when disabled). */
int history_capture(const History *h, const Position *p, Move m);
/* The continuation table that follows move m (about to be played in p). */
ContTable *history_cont_table(History *h, const Position *p, Move m);
/* The countermove to the prior move, or MOVE_NONE. */
Move history_counter(const History *h, const Position *p);
/* The killers of a ply (MOVE_NONE when disabled). */
void history_killers(const History *h, int ply, Move out[2]);

/* `best` caused a beta cutoff at `depth` after the quiet moves
 * `quiets[0..nquiets)` and the noisy moves `noisy[0..nnoisy)` failed.  A
 * quiet best updates killers, countermove, butterfly and continuation
 * history (bonus for it, malus for the quiets tried); any best gives the
 * noisy moves tried a capture-history malus, and a noisy best its bonus. */
void history_on_cutoff(History *h, const Position *p, const ContTables *ct, int ply, int depth, Move best,
                       const Move *quiets, int nquiets, const Move *noisy, int nnoisy);

/* The static eval `raw` of p corrected by the correction history (raw
 * itself when the switch is off or raw is SCORE_NONE). */
int history_corrected_eval(const History *h, const Position *p, int raw);
/* A search of p to `depth` returned `best` where the raw static eval was
 * `raw`: move p's correction entry toward best - raw (a running average,
 * so the raw eval, not the corrected one), with a weight that grows with
 * depth. */
void history_correct(History *h, const Position *p, int depth, int raw, int best);

#endif
