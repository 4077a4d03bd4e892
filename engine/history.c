/* Move history (butterfly, continuation, capture), killers and countermoves. */
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

int history_score(const History *h, const Position *p, const ContTables *ct, Move m)
{
    int score = HistEnabled ? h->butterfly[p->side][move_from(m)][move_to(m)] : 0;
    if (HistContEnabled && ct) {
        int pc = pos_piece_on(p, move_from(m)), to = move_to(m);
        if (ct->ply1)
            score += (*ct->ply1)[pc][to];
        if (ct->ply2)
            score += (*ct->ply2)[pc][to];
    }
    return score;
}

/* The captured piece type of a noisy move; KING (never captured) for a
 * promotion that captures nothing. */
static int captured_type(const Position *p, Move m)
{
    if (move_flag(m) == MF_EP)
        return PAWN;
    return move_is_capture(m) ? piece_type(pos_piece_on(p, move_to(m))) : KING;
}

static int16_t *capture_entry(History *h, const Position *p, Move m)
{
    return &h->capture[pos_piece_on(p, move_from(m))][move_to(m)][captured_type(p, m)];
}

int history_capture(const History *h, const Position *p, Move m)
{
    if (!HistCaptureEnabled)
        return 0;
    return h->capture[pos_piece_on(p, move_from(m))][move_to(m)][captured_type(p, m)];
}

ContTable *history_cont_table(History *h, const Position *p, Move m)
{
    return &h->cont[pos_piece_on(p, move_from(m))][move_to(m)];
}

/* Bonus (or, negative, malus) for a quiet move: butterfly and continuation
 * entries, each through the one gravity update. */
static void quiet_update(History *h, const Position *p, const ContTables *ct, Move m, int bonus)
{
    if (HistEnabled)
        history_gravity(&h->butterfly[p->side][move_from(m)][move_to(m)], bonus);
    if (HistContEnabled && ct) {
        int pc = pos_piece_on(p, move_from(m)), to = move_to(m);
        if (ct->ply1)
            history_gravity(&(*ct->ply1)[pc][to], bonus);
        if (ct->ply2)
            history_gravity(&(*ct->ply2)[pc][to], bonus);
    }
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

void history_on_cutoff(History *h, const Position *p, const ContTables *ct, int ply, int depth, Move best,
                       const Move *quiets, int nquiets, const Move *noisy, int nnoisy)
{
    int bonus = history_bonus(depth);
    if (!move_is_noisy(best)) {
        if (KillerEnabled && h->killers[ply][0] != best) {
            h->killers[ply][1] = h->killers[ply][0];
            h->killers[ply][0] = best;
        }
        Move prior;
        int piece;
        if (CounterEnabled && prior_move(p, &prior, &piece))
            h->counter[piece][move_to(prior)] = best;
        quiet_update(h, p, ct, best, bonus);
        for (int i = 0; i < nquiets; i++)
            if (quiets[i] != best)
                quiet_update(h, p, ct, quiets[i], -bonus);
    } else if (HistCaptureEnabled) {
        history_gravity(capture_entry(h, p, best), bonus);
    }
    if (HistCaptureEnabled)
        for (int i = 0; i < nnoisy; i++)
            if (noisy[i] != best)
                history_gravity(capture_entry(h, p, noisy[i]), -bonus);
}

/* The pawn structure's entry: both sides' pawns mixed into an index. */
static size_t corr_index(const Position *p)
{
    return (size_t)(pos_pawn_hash(p) >> 32) & (CORR_SIZE - 1);
}

int history_corrected_eval(const History *h, const Position *p, int raw)
{
    if (!CorrEnabled || raw == SCORE_NONE)
        return raw;
    int c = h->corr[p->side][corr_index(p)];
    int v = raw + c * CorrScale / (100 * CORR_GRAIN);
    return v > SCORE_MATE_IN_MAX - 1 ? SCORE_MATE_IN_MAX - 1 : v < -SCORE_MATE_IN_MAX + 1 ? -SCORE_MATE_IN_MAX + 1 : v;
}

void history_correct(History *h, const Position *p, int depth, int raw, int best)
{
    if (!CorrEnabled)
        return;
    int16_t *e = &h->corr[p->side][corr_index(p)];
    int w = depth + 1 < CorrWeightMax ? depth + 1 : CorrWeightMax, lim = CorrMax * CORR_GRAIN;
    /* One result moves the entry at most w/256 of the cap: a tactic the
     * eval cannot see says little about the pawns. */
    int diff = best - raw;
    diff = diff > CorrMax ? CorrMax : diff < -CorrMax ? -CorrMax : diff;
    int v = (*e * (256 - w) + diff * CORR_GRAIN * w) / 256;
    *e = (int16_t)(v > lim ? lim : v < -lim ? -lim : v);
}
