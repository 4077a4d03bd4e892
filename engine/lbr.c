/* Last best reply stores.  See lbr.h. */
#include "lbr.h"

#include <string.h>

#include "params.h"

void lbr_clear(LbrStore *s) { memset(s, 0, sizeof *s); }

/* A move of the game or search path as matched by LBR: the move (from, to
 * and flag, i.e. the special kind), the moving and the captured piece.
 * 0 when there is no such move or it was a null move. */
static uint32_t move_signature(const Position *p, int back)
{
    Move m = pos_last_move(p, back);
    if (m == MOVE_NONE || m == MOVE_NULL)
        return 0;
    return (uint32_t)m | (uint32_t)pos_last_moved(p, back) << 16
           | (uint32_t)pos_last_captured(p, back) << 20 | 1u << 24;
}

/* The key of the node per the variant switches; false if there is none. */
static bool node_key(const Position *p, uint64_t *key)
{
    int back = LbrTwoPliesBack ? 1 : 0;
    uint32_t first = move_signature(p, back);
    if (!first)
        return false;
    *key = first;
    if (LbrUseTwoPrior)
        *key |= (uint64_t)move_signature(p, back + 1) << 32;
    return true;
}

static const LbrEntry *entry_of(const LbrStore *s, const Position *p, int ply, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    if (LbrPerColour)
        return &s->per_colour[p->side][h >> 51];        /* 13 bits: LBR_COLOUR_SLOTS */
    return &s->per_ply[ply][h >> 56];                   /* 8 bits: LBR_PLY_SLOTS */
}

_Static_assert(LBR_COLOUR_SLOTS == 1 << 13 && LBR_PLY_SLOTS == 1 << 8, "slot counts match the hash shifts");

Move lbr_probe(const LbrStore *s, const Position *p, int ply)
{
    uint64_t key;
    if (!LbrEnabled || !node_key(p, &key))
        return MOVE_NONE;
    const LbrEntry *e = entry_of(s, p, ply, key);
    if (e->key != key)
        return MOVE_NONE;
    if (LbrSkipNoisy && move_is_noisy(e->reply))
        return MOVE_NONE;
    return e->reply;
}

void lbr_store(LbrStore *s, const Position *p, int ply, Move best)
{
    uint64_t key;
    if (!LbrEnabled || best == MOVE_NONE || !node_key(p, &key))
        return;
    if (LbrSkipNoisy && move_is_noisy(best))
        return;
    LbrEntry *e = (LbrEntry *)entry_of(s, p, ply, key);
    e->key = key;
    e->reply = best;
}
