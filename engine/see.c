/* Static exchange evaluation: does the exchange sequence started by a move
 * on its target square win at least `threshold` centipawns?  Each side
 * recaptures with its least valuable attacker, x-rays are uncovered as
 * pieces leave, either side may stop when continuing loses; pins and
 * promotions after the first move are ignored. */
#include "see.h"

#include "eval.h"

int see_capture_gain(const Position *p, Move m)
{
    int gain = 0;
    if (move_flag(m) == MF_EP)
        gain = piece_value[PAWN];
    else if (move_is_capture(m))
        gain = piece_value[piece_type(pos_piece_on(p, move_to(m)))];
    if (move_is_promo(m))
        gain += piece_value[move_promo_type(m)] - piece_value[PAWN];
    return gain;
}

bool see_ge(const Position *p, Move m, int threshold)
{
    if (move_is_castle(m))
        return 0 >= threshold;

    int from = move_from(m), to = move_to(m);
    int swap = see_capture_gain(p, m) - threshold;
    if (swap < 0)
        return false;

    /* The piece now standing on `to`, which the opponent may take. */
    int on_target = move_is_promo(m) ? move_promo_type(m) : piece_type(pos_piece_on(p, from));
    swap = piece_value[on_target] - swap;
    if (swap <= 0)
        return true;

    Bitboard occ = pos_occ(p) ^ bb_sq(from) ^ bb_sq(to);
    if (move_flag(m) == MF_EP)
        occ ^= bb_sq(to + (p->side == WHITE ? -8 : 8));
    Bitboard attackers = pos_attackers(p, to, occ) & occ;
    Bitboard diagonal = p->by_type[BISHOP] | p->by_type[QUEEN];
    Bitboard straight = p->by_type[ROOK] | p->by_type[QUEEN];

    int stm = p->side;
    bool result = true; /* true: the side that made m is content so far */
    for (;;) {
        stm = !stm;
        attackers &= occ;
        Bitboard mine = attackers & p->by_color[stm];
        if (!mine)
            break;
        result = !result;

        int type = PAWN;
        while (!(mine & p->by_type[type]))
            type++;
        if (type == KING) /* the king may only take if nothing defends */
            return (attackers & ~p->by_color[stm]) ? !result : result;

        swap = piece_value[type] - swap;
        if (swap < (int)result)
            break;
        occ ^= bb_sq(bb_lsb(mine & p->by_type[type]));
        if (type == PAWN || type == BISHOP || type == QUEEN)
            attackers |= attacks_bishop(to, occ) & diagonal;
        if (type == ROOK || type == QUEEN)
            attackers |= attacks_rook(to, occ) & straight;
    }
    return result;
}

int see_value(const Position *p, Move m)
{
    /* The largest threshold see_ge accepts, by bisection over the range of
     * possible exchange results. */
    int lo = -2 * piece_value[QUEEN] - 100, hi = 2 * piece_value[QUEEN] + 100;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (see_ge(p, m, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
