/* Legal move generation with check and pin masks, perft, check detection. */
#include "board.h"

#define RANK_1 0x00000000000000FFULL
#define RANK_3 0x0000000000FF0000ULL
#define RANK_6 0x0000FF0000000000ULL
#define RANK_8 0xFF00000000000000ULL
#define FILE_A 0x0101010101010101ULL
#define FILE_H 0x8080808080808080ULL

static inline void add(MoveList *l, int from, int to, int flag)
{
    l->moves[l->count++] = move_make(from, to, flag);
}

static inline void add_promos(MoveList *l, int from, int to, int base)
{
    for (int i = 3; i >= 0; i--) /* queen first */
        add(l, from, to, base + i);
}

static inline Bitboard shift_up(Bitboard b, int us) { return us == WHITE ? b << 8 : b >> 8; }
/* Pawn captures towards the a-file and towards the h-file. */
static inline Bitboard shift_west(Bitboard b, int us) { return us == WHITE ? (b & ~FILE_A) << 7 : (b & ~FILE_A) >> 9; }
static inline Bitboard shift_east(Bitboard b, int us) { return us == WHITE ? (b & ~FILE_H) << 9 : (b & ~FILE_H) >> 7; }

/* Emit pawn moves to every square of `to`, coming from `to - delta`. */
static void add_pawn_set(MoveList *l, Bitboard to, int delta, int flag, bool promo)
{
    while (to) {
        int t = bb_pop(&to);
        if (promo)
            add_promos(l, t - delta, t, flag == MF_CAPTURE ? MF_PROMO_CAPTURE : MF_PROMO);
        else
            add(l, t - delta, t, flag);
    }
}

/* The pieces of colour `own` that alone stand between the king on ksq and
 * a slider of colour `sniper` aiming at it: pinned pieces when the king is
 * theirs too, discovered-check candidates when it is the other side's. */
static Bitboard line_blockers(const Position *p, int ksq, int sniper, int own, Bitboard occ)
{
    Bitboard blockers = 0;
    Bitboard snipers = ((attacks_rook(ksq, 0) & (p->by_type[ROOK] | p->by_type[QUEEN])) |
                        (attacks_bishop(ksq, 0) & (p->by_type[BISHOP] | p->by_type[QUEEN]))) &
                       p->by_color[sniper];
    while (snipers) {
        Bitboard b = bb_between(ksq, bb_pop(&snipers)) & occ;
        if (b && !(b & (b - 1)) && (b & p->by_color[own]))
            blockers |= b;
    }
    return blockers;
}

static void gen_pawns(const Position *p, MoveList *l, int kind, Bitboard from_mask, Bitboard target, Bitboard pinned,
                      int ksq)
{
    int us = p->side, them = !us;
    Bitboard occ = pos_occ(p), empty = ~occ, enemy = p->by_color[them];
    Bitboard rank7 = us == WHITE ? RANK_8 >> 8 : RANK_1 << 8;
    Bitboard rank3 = us == WHITE ? RANK_3 : RANK_6;
    int up = us == WHITE ? 8 : -8, west = us == WHITE ? 7 : -9, east = us == WHITE ? 9 : -7;
    Bitboard pawns = pos_pieces(p, us, PAWN) & from_mask & ~pinned;
    Bitboard normal = pawns & ~rank7, promo = pawns & rank7;

    if (kind != GEN_NOISY) {
        Bitboard single = shift_up(normal, us) & empty;
        Bitboard dbl = shift_up(single & rank3, us) & empty;
        add_pawn_set(l, single & target, up, MF_QUIET, false);
        add_pawn_set(l, dbl & target, 2 * up, MF_DOUBLE, false);
    }
    if (kind != GEN_QUIET) {
        add_pawn_set(l, shift_west(normal, us) & enemy & target, west, MF_CAPTURE, false);
        add_pawn_set(l, shift_east(normal, us) & enemy & target, east, MF_CAPTURE, false);
        add_pawn_set(l, shift_up(promo, us) & empty & target, up, MF_QUIET, true);
        add_pawn_set(l, shift_west(promo, us) & enemy & target, west, MF_CAPTURE, true);
        add_pawn_set(l, shift_east(promo, us) & enemy & target, east, MF_CAPTURE, true);
    }

    /* Pinned pawns move only along the pin line (never when in check). */
    Bitboard pp = pos_pieces(p, us, PAWN) & from_mask & pinned;
    while (pp && target == ~0ULL) {
        int from = bb_pop(&pp);
        Bitboard line = bb_line(ksq, from), b = bb_sq(from);
        bool is_promo = (b & rank7) != 0;
        if (kind != GEN_QUIET) {
            Bitboard caps = attacks_pawn(us, from) & enemy & line;
            while (caps) {
                int to = bb_pop(&caps);
                if (is_promo)
                    add_promos(l, from, to, MF_PROMO_CAPTURE);
                else
                    add(l, from, to, MF_CAPTURE);
            }
        }
        Bitboard single = shift_up(b, us) & empty & line;
        if (single && is_promo && kind != GEN_QUIET)
            add_promos(l, from, from + up, MF_PROMO);
        if (single && !is_promo && kind != GEN_NOISY) {
            add(l, from, from + up, MF_QUIET);
            if (shift_up(single & rank3, us) & empty)
                add(l, from, from + 2 * up, MF_DOUBLE);
        }
    }

    /* En passant: checked by removing both pawns and looking at the king. */
    int ep = pos_ep(p);
    if (ep != NO_SQ && kind != GEN_QUIET) {
        int capsq = ep ^ 8;
        Bitboard cands = attacks_pawn(them, ep) & pos_pieces(p, us, PAWN) & from_mask;
        while (cands) {
            int from = bb_pop(&cands);
            Bitboard occ2 = (occ ^ bb_sq(from) ^ bb_sq(capsq)) | bb_sq(ep);
            Bitboard att = ((attacks_rook(ksq, occ2) & (p->by_type[ROOK] | p->by_type[QUEEN])) |
                            (attacks_bishop(ksq, occ2) & (p->by_type[BISHOP] | p->by_type[QUEEN])) |
                            (attacks_knight(ksq) & p->by_type[KNIGHT]) |
                            (attacks_pawn(us, ksq) & p->by_type[PAWN] & ~bb_sq(capsq))) &
                           enemy;
            if (!att)
                add(l, from, ep, MF_EP);
        }
    }
}

/* The legal moves of `kind` by the pieces on from_mask. */
static void gen_from(const Position *p, MoveList *l, int kind, Bitboard from_mask)
{
    int us = p->side, them = !us, ksq = p->king_sq[us];
    Bitboard occ = pos_occ(p), own = p->by_color[us], enemy = p->by_color[them];
    Bitboard checkers = pos_attackers(p, ksq, occ) & enemy;
    Bitboard kinds = kind == GEN_NOISY ? enemy : kind == GEN_QUIET ? ~occ : ~own;
    l->count = 0;

    /* King moves: the destination must not be attacked once the king left. */
    Bitboard occ_noking = occ ^ bb_sq(ksq);
    Bitboard kt = (from_mask & bb_sq(ksq)) ? attacks_king(ksq) & ~own & kinds : 0;
    while (kt) {
        int to = bb_pop(&kt);
        if (!(pos_attackers(p, to, occ_noking) & enemy))
            add(l, ksq, to, (enemy & bb_sq(to)) ? MF_CAPTURE : MF_QUIET);
    }
    if (checkers & (checkers - 1))
        return; /* double check: only the king moves */

    Bitboard target = checkers ? (bb_between(ksq, bb_lsb(checkers)) | checkers) : ~0ULL;
    Bitboard pinned = line_blockers(p, ksq, them, us, occ);

    gen_pawns(p, l, kind, from_mask, target, pinned, ksq);

    for (int type = KNIGHT; type <= QUEEN; type++) {
        Bitboard pieces = pos_pieces(p, us, type) & from_mask;
        if (checkers)
            pieces &= ~pinned;
        while (pieces) {
            int from = bb_pop(&pieces);
            Bitboard att = attacks_piece(type, from, occ) & kinds & target;
            if (pinned & bb_sq(from))
                att &= bb_line(ksq, from);
            while (att) {
                int to = bb_pop(&att);
                add(l, from, to, (enemy & bb_sq(to)) ? MF_CAPTURE : MF_QUIET);
            }
        }
    }

    /* Castling: not out of, through, or into check. */
    int cr = pos_castling(p);
    if (kind != GEN_NOISY && !checkers && cr && (from_mask & bb_sq(ksq))) {
        int r = us == WHITE ? 0 : 56;
        int k_right = us == WHITE ? CASTLE_WK : CASTLE_BK, q_right = us == WHITE ? CASTLE_WQ : CASTLE_BQ;
        if ((cr & k_right) && !(occ & (bb_sq(r + 5) | bb_sq(r + 6))) &&
            !pos_attacked(p, r + 5, them) && !pos_attacked(p, r + 6, them))
            add(l, r + 4, r + 6, MF_CASTLE_K);
        if ((cr & q_right) && !(occ & (bb_sq(r + 1) | bb_sq(r + 2) | bb_sq(r + 3))) &&
            !pos_attacked(p, r + 3, them) && !pos_attacked(p, r + 2, them))
            add(l, r + 4, r + 2, MF_CASTLE_Q);
    }
}

void gen_legal(const Position *p, MoveList *l, int kind) { gen_from(p, l, kind, ~0ULL); }

bool pos_is_legal(const Position *p, Move m)
{
    if (m == MOVE_NONE || m == MOVE_NULL)
        return false;
    int pc = p->board[move_from(m)];
    if (pc == NO_PIECE || piece_color(pc) != p->side)
        return false;
    MoveList l;
    gen_from(p, &l, move_is_noisy(m) ? GEN_NOISY : GEN_QUIET, bb_sq(move_from(m)));
    for (int i = 0; i < l.count; i++)
        if (l.moves[i] == m)
            return true;
    return false;
}

bool pos_gives_check(const Position *p, Move m)
{
    int us = p->side, them = !us, ksq = p->king_sq[them];
    int from = move_from(m), to = move_to(m), flag = move_flag(m);
    int type = move_is_promo(m) ? move_promo_type(m) : piece_type(p->board[from]);
    Bitboard occ = (pos_occ(p) & ~bb_sq(from)) | bb_sq(to);
    Bitboard mine[6];
    for (int t = PAWN; t <= KING; t++)
        mine[t] = pos_pieces(p, us, t);
    mine[piece_type(p->board[from])] &= ~bb_sq(from);
    mine[type] |= bb_sq(to);
    if (flag == MF_EP)
        occ &= ~bb_sq(to ^ 8);
    if (flag == MF_CASTLE_K || flag == MF_CASTLE_Q) {
        int rfrom = flag == MF_CASTLE_K ? from + 3 : from - 4;
        int rto = flag == MF_CASTLE_K ? from + 1 : from - 1;
        occ = (occ & ~bb_sq(rfrom)) | bb_sq(rto);
        mine[ROOK] = (mine[ROOK] & ~bb_sq(rfrom)) | bb_sq(rto);
    }
    return (attacks_bishop(ksq, occ) & (mine[BISHOP] | mine[QUEEN])) ||
           (attacks_rook(ksq, occ) & (mine[ROOK] | mine[QUEEN])) ||
           (attacks_knight(ksq) & mine[KNIGHT]) ||
           (attacks_pawn(them, ksq) & mine[PAWN]);
}

void check_info_init(const Position *p, CheckInfo *ci)
{
    int us = p->side, them = !us, ksq = p->king_sq[them];
    Bitboard occ = pos_occ(p);
    ci->ksq = ksq;
    ci->squares[PAWN] = attacks_pawn(them, ksq);
    ci->squares[KNIGHT] = attacks_knight(ksq);
    ci->squares[BISHOP] = attacks_bishop(ksq, occ);
    ci->squares[ROOK] = attacks_rook(ksq, occ);
    ci->squares[QUEEN] = ci->squares[BISHOP] | ci->squares[ROOK];
    ci->squares[KING] = 0;
    ci->discover = line_blockers(p, ksq, us, us, occ);
}

bool pos_gives_check_fast(const Position *p, const CheckInfo *ci, Move m)
{
    int from = move_from(m), to = move_to(m), flag = move_flag(m);
    /* Castling, en passant and promotions change the lines otherwise. */
    if (flag == MF_EP || flag == MF_CASTLE_K || flag == MF_CASTLE_Q || move_is_promo(m))
        return pos_gives_check(p, m);
    if (ci->squares[piece_type(p->board[from])] & bb_sq(to))
        return true;
    return (ci->discover & bb_sq(from)) && !(bb_line(ci->ksq, from) & bb_sq(to));
}

uint64_t perft(Position *p, int depth)
{
    MoveList l;
    if (depth <= 0)
        return 1;
    gen_legal(p, &l, GEN_ALL);
    if (depth == 1)
        return (uint64_t)l.count;
    uint64_t n = 0;
    for (int i = 0; i < l.count; i++) {
        pos_make(p, l.moves[i]);
        n += perft(p, depth - 1);
        pos_unmake(p);
    }
    return n;
}
