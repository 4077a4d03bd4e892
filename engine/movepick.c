/* Staged move ordering.  See movepick.h. */
#include "movepick.h"

#include "eval.h"
#include "params.h"
#include "see.h"

enum {
    ST_TT, ST_GEN_NOISY, ST_GOOD_NOISY, ST_LBR, ST_KILLER1, ST_KILLER2, ST_COUNTER,
    ST_GEN_QUIET, ST_QUIET, ST_BAD_NOISY,
    ST_QS_TT, ST_QS_GEN, ST_QS_NOISY,
    ST_DONE
};

void mp_init(MovePicker *mp, const Position *p, Move tt_move, const History *hist, const ContTables *ct,
             const LbrStore *lbr, int ply)
{
    mp->p = p;
    mp->hist = hist;
    mp->ct = ct;
    mp->stage = ST_TT;
    mp->tt_move = tt_move != MOVE_NONE && pos_is_legal(p, tt_move) ? tt_move : MOVE_NONE;
    mp->killers[0] = mp->killers[1] = mp->counter = MOVE_NONE;
    if (hist) {
        history_killers(hist, ply, mp->killers);
        mp->counter = history_counter(hist, p);
    }
    mp->lbr = lbr ? lbr_probe(lbr, p, ply) : MOVE_NONE;
    mp->lbr_early = false;
    mp->count = mp->next = mp->bad_count = mp->bad_next = 0;
}

void mp_init_qsearch(MovePicker *mp, const Position *p, Move tt_move)
{
    mp_init(mp, p, MOVE_NONE, NULL, NULL, NULL, 0);
    mp->stage = ST_QS_TT;
    if (tt_move != MOVE_NONE && move_is_noisy(tt_move) && pos_is_legal(p, tt_move))
        mp->tt_move = tt_move;
}

/* Was m already returned as the early last best reply? */
static bool is_early_lbr(const MovePicker *mp, Move m) { return mp->lbr_early && m == mp->lbr; }

/* MVV-LVA: the most valuable victim first, the cheapest attacker among equals. */
static int noisy_score(const Position *p, Move m)
{
    int victim = move_flag(m) == MF_EP ? PAWN
               : move_is_capture(m)    ? piece_type(pos_piece_on(p, move_to(m)))
                                       : NO_TYPE;
    int score = victim == NO_TYPE ? 0 : 10 * piece_value[victim];
    if (move_promo_type(m) == QUEEN)
        score += 10 * (piece_value[QUEEN] - piece_value[PAWN]);
    return score - piece_type(pos_piece_on(p, move_from(m)));
}

static void generate(MovePicker *mp, int kind)
{
    MoveList list;
    gen_legal(mp->p, &list, kind);
    mp->count = mp->next = 0;
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        if (m == mp->tt_move)
            continue;
        int score;
        if (is_early_lbr(mp, m))
            continue;
        if (kind == GEN_NOISY) {
            score = noisy_score(mp->p, m);
            if (mp->hist)
                score += history_capture(mp->hist, mp->p, m) / HistCaptureDivisor;
        } else {
            if (m == mp->killers[0] || m == mp->killers[1] || m == mp->counter)
                continue;
            score = mp->hist ? history_score(mp->hist, mp->p, mp->ct, m) : 0;
        }
        if (m == mp->lbr)
            score += LbrBonus;
        mp->moves[mp->count] = m;
        mp->scores[mp->count++] = score;
    }
}

/* Selection step: swap the best remaining move to the front and return it. */
static Move pick_best(MovePicker *mp)
{
    int best = mp->next;
    for (int i = mp->next + 1; i < mp->count; i++)
        if (mp->scores[i] > mp->scores[best])
            best = i;
    Move m = mp->moves[best];
    int s = mp->scores[best];
    mp->moves[best] = mp->moves[mp->next];
    mp->scores[best] = mp->scores[mp->next];
    mp->moves[mp->next] = m;
    mp->scores[mp->next] = s;
    mp->next++;
    return m;
}

/* A killer or countermove is tried only if it is a legal quiet move here
 * and not already tried. */
static bool usable_quiet(const MovePicker *mp, Move m)
{
    return m != MOVE_NONE && m != mp->tt_move && !move_is_noisy(m)
           && pos_piece_on(mp->p, move_to(m)) == NO_PIECE && pos_is_legal(mp->p, m);
}

Move mp_next(MovePicker *mp)
{
    switch (mp->stage) {
    case ST_TT:
        mp->stage = ST_GEN_NOISY;
        if (mp->tt_move != MOVE_NONE)
            return mp->tt_move;
        /* fall through */
    case ST_GEN_NOISY:
        generate(mp, GEN_NOISY);
        mp->stage = ST_GOOD_NOISY;
        /* fall through */
    case ST_GOOD_NOISY:
        while (mp->next < mp->count) {
            Move m = pick_best(mp);
            int promo = move_promo_type(m);
            if ((promo != NO_TYPE && promo != QUEEN) || !see_ge(mp->p, m, 0)) {
                mp->bad[mp->bad_count++] = m;
                continue;
            }
            return m;
        }
        mp->stage = ST_LBR;
        /* fall through */
    case ST_LBR:
        /* LbrBeforeKillers: a quiet last best reply comes before the
         * killers and the countermove, instead of heading the quiet moves
         * by its bonus. */
        mp->stage = ST_KILLER1;
        if (LbrBeforeKillers && usable_quiet(mp, mp->lbr)) {
            mp->lbr_early = true;
            return mp->lbr;
        }
        /* fall through */
    case ST_KILLER1:
        mp->stage = ST_KILLER2;
        if (!is_early_lbr(mp, mp->killers[0]) && usable_quiet(mp, mp->killers[0]))
            return mp->killers[0];
        /* fall through */
    case ST_KILLER2:
        mp->stage = ST_COUNTER;
        if (mp->killers[1] != mp->killers[0] && !is_early_lbr(mp, mp->killers[1]) && usable_quiet(mp, mp->killers[1]))
            return mp->killers[1];
        /* fall through */
    case ST_COUNTER:
        mp->stage = ST_GEN_QUIET;
        if (mp->counter != mp->killers[0] && mp->counter != mp->killers[1] && !is_early_lbr(mp, mp->counter)
            && usable_quiet(mp, mp->counter))
            return mp->counter;
        /* fall through */
    case ST_GEN_QUIET:
        /* Killers and the countermove were returned above whenever they are
         * legal quiet moves here, so generate() skips them. */
        generate(mp, GEN_QUIET);
        mp->stage = ST_QUIET;
        /* fall through */
    case ST_QUIET:
        if (mp->next < mp->count)
            return pick_best(mp);
        mp->stage = ST_BAD_NOISY;
        /* fall through */
    case ST_BAD_NOISY:
        if (mp->bad_next < mp->bad_count)
            return mp->bad[mp->bad_next++];
        mp->stage = ST_DONE;
        return MOVE_NONE;

    case ST_QS_TT:
        mp->stage = ST_QS_GEN;
        if (mp->tt_move != MOVE_NONE)
            return mp->tt_move;
        /* fall through */
    case ST_QS_GEN:
        generate(mp, GEN_NOISY);
        mp->stage = ST_QS_NOISY;
        /* fall through */
    case ST_QS_NOISY:
        while (mp->next < mp->count) {
            Move m = pick_best(mp);
            int promo = move_promo_type(m);
            if (promo != NO_TYPE && promo != QUEEN)
                continue;
            return m;
        }
        mp->stage = ST_DONE;
        return MOVE_NONE;

    default:
        return MOVE_NONE;
    }
}
