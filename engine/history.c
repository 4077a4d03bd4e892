/* Quiet move history, killers and countermoves. */
#include "history.h"

#include <string.h>

#include "params.h"

void history_clear(History *h) { memset(h, 0, sizeof *h); }

void history_new_search(History *h) { memset(h->killers, 0, sizeof h->killers); }

int history_bonus(int depth)
{
    int b = HistBonusScale * depth * depth;
    return b < HistBonusMax ? b : HistBonusMax;
}

int history_score(const History *h, const Position *p, Move m)
{
    if (!HistEnabled)
        return 0;
    return h->butterfly[p->side][move_from(m)][move_to(m)];
}

/* The prior move, if it was a real move (not the root, not a null move). */
static bool prior_move(const Position *p, Move *m, int *piece)
{
    *m = pos_last_move(p, 0);
    *piece = pos_last_moved(p, 0);
    return *m != MOVE_NONE && *m != MOVE_NULL && *piece != NO_PIECE;
}

Move history_counter(const History *h, const Position *p)
{
    Move prior;
    int piece;
    if (!CounterEnabled || !prior_move(p, &prior, &piece))
        return MOVE_NONE;
    return h->counter[piece][move_to(prior)];
}

void history_killers(const History *h, int ply, Move out[2])
{
    out[0] = KillerEnabled ? h->killers[ply][0] : MOVE_NONE;
    out[1] = KillerEnabled ? h->killers[ply][1] : MOVE_NONE;
}

void history_on_cutoff(History *h, const Position *p, int ply, int depth, Move best,
                       const Move *tried, int ntried)
{
    if (KillerEnabled && h->killers[ply][0] != best) {
        h->killers[ply][1] = h->killers[ply][0];
        h->killers[ply][0] = best;
    }
    Move prior;
    int piece;
    if (CounterEnabled && prior_move(p, &prior, &piece))
        h->counter[piece][move_to(prior)] = best;
    if (HistEnabled) {
        int bonus = history_bonus(depth), us = p->side;
        history_gravity(&h->butterfly[us][move_from(best)][move_to(best)], bonus);
        for (int i = 0; i < ntried; i++)
            if (tried[i] != best)
                history_gravity(&h->butterfly[us][move_from(tried[i])][move_to(tried[i])], -bonus);
    }
}
