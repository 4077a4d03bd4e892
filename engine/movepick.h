/* Staged move ordering: hash move; captures and promotions by MVV-LVA,
 * plus capture history, winning or equal ones by SEE first; two killers;
 * the countermove; quiet moves by butterfly plus continuation history (the
 * last best reply gets LbrBonus on top, or with LbrBeforeKillers comes
 * before the killers when it is quiet); losing
 * captures last.  The quiescence variant yields the hash move and the
 * captures and queen promotions only. */
#ifndef RATCHET_MOVEPICK_H
#define RATCHET_MOVEPICK_H

#include "board.h"
#include "history.h"
#include "lbr.h"

typedef struct {
    const Position *p;
    const History *hist;         /* NULL: no history scores */
    const ContTables *ct;        /* continuation tables, or NULL */
    int stage;
    Move tt_move, killers[2], counter, lbr;
    bool lbr_early;              /* lbr was returned before the killers */
    Move moves[MAX_MOVES];
    int scores[MAX_MOVES];
    int count, next;
    Move bad[MAX_MOVES];         /* losing captures and underpromotions, in order */
    int bad_count, bad_next;
} MovePicker;

/* Main search.  hist, ct and lbr may be NULL (no killers, counter,
 * histories, LBR). */
void mp_init(MovePicker *mp, const Position *p, Move tt_move, const History *hist, const ContTables *ct,
             const LbrStore *lbr, int ply);
/* Quiescence search, not in check: captures and queen promotions only. */
void mp_init_qsearch(MovePicker *mp, const Position *p, Move tt_move);
/* The next move (legal), or MOVE_NONE when done. */
Move mp_next(MovePicker *mp);

/* Is m one of the picker's killers or its countermove? */
static inline bool mp_is_refutation(const MovePicker *mp, Move m)
{
    return m != MOVE_NONE && (m == mp->killers[0] || m == mp->killers[1] || m == mp->counter);
}

#endif
