/* Tapered evaluation.  The piece-square tables are built from a few simple
 * shapes (centralisation, advancement, king shelter) rather than typed in. */
#include "eval.h"

#include <stdlib.h>

const int piece_value[7] = {100, 320, 330, 500, 950, 0, 0};

static const int material_mg[6] = {90, 320, 335, 470, 960, 0};
static const int material_eg[6] = {110, 290, 310, 520, 940, 0};
static const int phase_weight[6] = {0, 1, 1, 2, 4, 0};
#define PHASE_MAX 24

/* Material plus placement, from White's point of view, a1 = 0. */
static int pst_mg[6][64], pst_eg[6][64];

/* Pawn structure masks. */
static Bitboard file_mask[8], adjacent_files[8];
static Bitboard passed_span[2][64]; /* squares in front on the same and adjacent files */

static const int passed_mg[8] = {0, 5, 10, 15, 25, 40, 60, 0};
static const int passed_eg[8] = {0, 10, 15, 25, 45, 70, 110, 0};

enum { TEMPO = 12, BISHOP_PAIR_MG = 30, BISHOP_PAIR_EG = 50 };

static int center_distance(int sq) /* Manhattan distance to the four centre squares, 0..6 */
{
    return (abs(2 * sq_file(sq) - 7) + abs(2 * sq_rank(sq) - 7)) / 2 - 1;
}

static void build_pst(void)
{
    static const int pawn_rank_mg[8] = {0, 0, 0, 5, 15, 30, 55, 0};
    static const int pawn_rank_eg[8] = {0, 0, 0, 5, 15, 30, 50, 0};
    static const int king_home_mg[8] = {15, 25, 10, -5, 0, -5, 25, 15};

    for (int sq = 0; sq < 64; sq++) {
        int f = sq_file(sq), r = sq_rank(sq), md = center_distance(sq);
        bool central_file = f == 3 || f == 4, near_file = f == 2 || f == 5;
        bool diagonal = f == r || f + r == 7;

        int pm = pawn_rank_mg[r], pe = pawn_rank_eg[r];
        if ((r == 3 || r == 4) && central_file)
            pm += 15;
        else if ((r == 3 || r == 4) && near_file)
            pm += 5;
        if (r == 1 && central_file)
            pm -= 5;
        pst_mg[PAWN][sq] = pm;
        pst_eg[PAWN][sq] = pe;

        pst_mg[KNIGHT][sq] = 12 - 8 * md + (r >= 3 && r <= 5 ? 5 : 0);
        pst_eg[KNIGHT][sq] = 10 - 6 * md;

        pst_mg[BISHOP][sq] = 10 - 4 * md + (diagonal ? 8 : 0);
        pst_eg[BISHOP][sq] = 8 - 4 * md;

        pst_mg[ROOK][sq] = (r == 6 ? 20 : 0) + (central_file ? 8 : 0);
        pst_eg[ROOK][sq] = r == 6 ? 10 : 0;

        pst_mg[QUEEN][sq] = 4 - 2 * md;
        pst_eg[QUEEN][sq] = 12 - 4 * md;

        pst_mg[KING][sq] = r == 0 ? king_home_mg[f] : -15 * r - 10;
        pst_eg[KING][sq] = 30 - 10 * md;

        for (int t = PAWN; t <= KING; t++) {
            pst_mg[t][sq] += material_mg[t];
            pst_eg[t][sq] += material_eg[t];
        }
    }
}

static void build_masks(void)
{
    for (int f = 0; f < 8; f++) {
        file_mask[f] = 0x0101010101010101ULL << f;
    }
    for (int f = 0; f < 8; f++)
        adjacent_files[f] = (f > 0 ? file_mask[f - 1] : 0) | (f < 7 ? file_mask[f + 1] : 0);
    for (int sq = 0; sq < 64; sq++) {
        int f = sq_file(sq), r = sq_rank(sq);
        Bitboard span = file_mask[f] | adjacent_files[f];
        Bitboard ahead_w = 0, ahead_b = 0;
        for (int rr = r + 1; rr < 8; rr++)
            ahead_w |= 0xFFULL << (8 * rr);
        for (int rr = r - 1; rr >= 0; rr--)
            ahead_b |= 0xFFULL << (8 * rr);
        passed_span[WHITE][sq] = span & ahead_w;
        passed_span[BLACK][sq] = span & ahead_b;
    }
}

void eval_init(void)
{
    build_pst();
    build_masks();
}

static Bitboard pawn_attacks_all(Bitboard pawns, int color)
{
    const Bitboard not_a = ~file_mask[0], not_h = ~file_mask[7];
    if (color == WHITE)
        return ((pawns & not_a) << 7) | ((pawns & not_h) << 9);
    return ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7);
}

static int relative_rank(int color, int sq) { return color == WHITE ? sq_rank(sq) : 7 - sq_rank(sq); }

/* What the terms of one evaluation share: the squares each side attacks
 * (by piece type and in all), the king zones and the attack units on them,
 * and the passed pawns (scored once the attacks are known). */
typedef struct {
    Bitboard attacked[2][6]; /* [colour][piece type] */
    Bitboard all[2];
    Bitboard king_zone[2];   /* the king's square and its neighbours */
    int ks_units[2];         /* attack units of [colour] on the other king's zone */
    int ks_attackers[2];     /* pieces of [colour] attacking the other king's zone */
    Bitboard passed[2];
} EvalInfo;

/* King safety: attack units per attacked king-zone square, by attacker. */
static const int ks_weight[6] = {0, 2, 2, 3, 5, 0};
enum { KS_MAX = 500 }; /* the largest king-danger penalty, centipawns */

/* Threats against one side's pieces (per piece, mg and eg). */
enum {
    THREAT_PAWN_MG = 45, THREAT_PAWN_EG = 30,   /* a piece attacked by a pawn */
    THREAT_MINOR_MG = 35, THREAT_MINOR_EG = 25, /* a rook or queen attacked by a minor */
    THREAT_ROOK_MG = 35, THREAT_ROOK_EG = 25,   /* a queen attacked by a rook */
    HANGING_MG = 30, HANGING_EG = 20            /* a piece attacked and undefended */
};

/* Passed pawns beyond their rank bonus, weighted by passed_weight[rank]:
 * the path to promotion free of pieces, free of enemy attacks, and the
 * kings' distances to the square in front. */
static const int passed_weight[8] = {0, 0, 0, 1, 3, 5, 8, 0};
enum { PASSED_FREE = 5, PASSED_SAFE = 7, PASSED_KING_THEIRS = 5, PASSED_KING_OURS = 2 };

/* Mop-up: a rook's worth of pieces ahead against a pawnless side, drive
 * the defending king to the edge and bring the other one close. */
enum { MOPUP_EDGE = 20, MOPUP_CLOSE = 8 };

static int king_distance(int a, int b)
{
    int df = abs(sq_file(a) - sq_file(b)), dr = abs(sq_rank(a) - sq_rank(b));
    return df > dr ? df : dr;
}

/* Pawn structure of one side: doubled, isolated, and passed pawns by rank
 * (the rest of the passed-pawn terms wait for the attack maps). */
static void eval_pawns(const Position *p, int us, EvalInfo *ei, int *mg, int *eg)
{
    Bitboard ours = pos_pieces(p, us, PAWN), theirs = pos_pieces(p, !us, PAWN);
    for (int f = 0; f < 8; f++) {
        int n = bb_count(ours & file_mask[f]);
        if (n > 1) {
            *mg -= 10 * (n - 1);
            *eg -= 20 * (n - 1);
        }
    }
    ei->passed[us] = 0;
    Bitboard b = ours;
    while (b) {
        int sq = bb_pop(&b);
        if (!(ours & adjacent_files[sq_file(sq)])) {
            *mg -= 10;
            *eg -= 12;
        }
        if (!(theirs & passed_span[us][sq])) {
            int rr = relative_rank(us, sq);
            *mg += passed_mg[rr];
            *eg += passed_eg[rr];
            ei->passed[us] |= bb_sq(sq);
        }
    }
}

/* Passed pawns of one side: free and safe path, king distances. */
static void eval_passed(const Position *p, int us, const EvalInfo *ei, int *eg)
{
    Bitboard occ = pos_occ(p), b = ei->passed[us];
    while (b) {
        int sq = bb_pop(&b), w = passed_weight[relative_rank(us, sq)];
        if (!w)
            continue;
        int block = us == WHITE ? sq + 8 : sq - 8;
        Bitboard path = file_mask[sq_file(sq)] & passed_span[us][sq];
        if (!(path & occ))
            *eg += w * PASSED_FREE;
        if (!(path & ei->all[!us]))
            *eg += w * PASSED_SAFE;
        int theirs = king_distance(p->king_sq[!us], block), ours = king_distance(p->king_sq[us], block);
        *eg += w * (PASSED_KING_THEIRS * (theirs < 5 ? theirs : 5) - PASSED_KING_OURS * (ours < 5 ? ours : 5));
    }
}

/* One piece's attacks: recorded, and counted against the enemy king zone. */
static void note_attacks(EvalInfo *ei, int us, int type, Bitboard a)
{
    ei->attacked[us][type] |= a;
    Bitboard zone = a & ei->king_zone[!us];
    if (zone) {
        ei->ks_attackers[us]++;
        ei->ks_units[us] += ks_weight[type] * bb_count(zone);
    }
}

/* Mobility, rooks on open files and the king's pawn shelter of one side;
 * records the side's attacks in ei. */
static void eval_pieces(const Position *p, int us, EvalInfo *ei, int *mg, int *eg)
{
    Bitboard occ = pos_occ(p);
    Bitboard own_pawns = pos_pieces(p, us, PAWN), their_pawns = pos_pieces(p, !us, PAWN);
    Bitboard safe = ~p->by_color[us] & ~ei->attacked[!us][PAWN];

    Bitboard b = pos_pieces(p, us, KNIGHT);
    while (b) {
        Bitboard a = attacks_knight(bb_pop(&b));
        note_attacks(ei, us, KNIGHT, a);
        int n = bb_count(a & safe);
        *mg += 4 * (n - 4);
        *eg += 4 * (n - 4);
    }
    b = pos_pieces(p, us, BISHOP);
    if (bb_count(b) >= 2) {
        *mg += BISHOP_PAIR_MG;
        *eg += BISHOP_PAIR_EG;
    }
    while (b) {
        Bitboard a = attacks_bishop(bb_pop(&b), occ);
        note_attacks(ei, us, BISHOP, a);
        int n = bb_count(a & safe);
        *mg += 5 * (n - 6);
        *eg += 5 * (n - 6);
    }
    b = pos_pieces(p, us, ROOK);
    while (b) {
        int sq = bb_pop(&b);
        Bitboard a = attacks_rook(sq, occ);
        note_attacks(ei, us, ROOK, a);
        int n = bb_count(a & safe);
        *mg += 2 * (n - 7);
        *eg += 4 * (n - 7);
        Bitboard file = file_mask[sq_file(sq)];
        if (!(file & (own_pawns | their_pawns))) {
            *mg += 25;
            *eg += 10;
        } else if (!(file & own_pawns)) {
            *mg += 12;
            *eg += 6;
        }
    }
    b = pos_pieces(p, us, QUEEN);
    while (b) {
        Bitboard a = attacks_queen(bb_pop(&b), occ);
        note_attacks(ei, us, QUEEN, a);
        int n = bb_count(a & safe);
        *mg += n - 13;
        *eg += 2 * (n - 13);
    }

    int ksq = p->king_sq[us];
    if (relative_rank(us, ksq) <= 1) {
        Bitboard shelter = (file_mask[sq_file(ksq)] | adjacent_files[sq_file(ksq)]) & passed_span[us][ksq];
        Bitboard near = us == WHITE ? 0xFFFFULL << (8 * (sq_rank(ksq) + 1)) : 0xFFFFULL << (8 * (sq_rank(ksq) >= 2 ? sq_rank(ksq) - 2 : 0));
        int n = bb_count(shelter & near & own_pawns);
        *mg += 12 * (n < 3 ? n : 3);
    }
}

/* King danger of side us: the enemy's attack units on its king zone, once
 * at least two pieces take part (or the queen does), growing with their
 * square; midgame only. */
static void eval_king_danger(const Position *p, int us, const EvalInfo *ei, int *mg)
{
    int them = !us, units = ei->ks_units[them];
    if (ei->ks_attackers[them] < 2 && !(ei->attacked[them][QUEEN] & ei->king_zone[us]))
        return;
    /* Zone squares the enemy attacks that only our king defends. */
    Bitboard ours = ei->all[us] & ~ei->attacked[us][KING];
    units += bb_count(ei->king_zone[us] & ei->all[them] & ~ours);
    if (!pos_pieces(p, them, QUEEN))
        units /= 2;
    int danger = units * units / 2;
    *mg -= danger < KS_MAX ? danger : KS_MAX;
}

/* Threats against side us's pieces: attacked by a cheaper piece, or
 * attacked and undefended. */
static void eval_threats(const Position *p, int us, const EvalInfo *ei, int *mg, int *eg)
{
    int them = !us;
    Bitboard minors = pos_pieces(p, us, KNIGHT) | pos_pieces(p, us, BISHOP);
    Bitboard majors = pos_pieces(p, us, ROOK) | pos_pieces(p, us, QUEEN);
    Bitboard pieces = minors | majors;
    int n = bb_count(pieces & ei->attacked[them][PAWN]);
    *mg -= n * THREAT_PAWN_MG;
    *eg -= n * THREAT_PAWN_EG;
    n = bb_count(majors & (ei->attacked[them][KNIGHT] | ei->attacked[them][BISHOP]));
    *mg -= n * THREAT_MINOR_MG;
    *eg -= n * THREAT_MINOR_EG;
    n = bb_count(pos_pieces(p, us, QUEEN) & ei->attacked[them][ROOK]);
    *mg -= n * THREAT_ROOK_MG;
    *eg -= n * THREAT_ROOK_EG;
    n = bb_count(pieces & ei->all[them] & ~ei->all[us]);
    *mg -= n * HANGING_MG;
    *eg -= n * HANGING_EG;
}

/* Mop-up for the side `strong` that has at least a rook's worth more
 * pieces against a pawnless side: the defending king to the edge, the
 * attacking king close to it.  The endgame part only. */
static int mop_up(const Position *p, int strong)
{
    int weak_king = p->king_sq[!strong];
    return MOPUP_EDGE * center_distance(weak_king)
           + MOPUP_CLOSE * (7 - king_distance(p->king_sq[strong], weak_king));
}

int evaluate(const Position *p)
{
    int mg[2] = {0, 0}, eg[2] = {0, 0}, phase = 0;
    int nonpawn[2] = {0, 0};
    EvalInfo ei;

    for (int c = WHITE; c <= BLACK; c++) {
        int ksq = p->king_sq[c];
        for (int t = PAWN; t <= QUEEN; t++)
            ei.attacked[c][t] = 0;
        ei.attacked[c][PAWN] = pawn_attacks_all(pos_pieces(p, c, PAWN), c);
        ei.attacked[c][KING] = attacks_king(ksq);
        ei.king_zone[c] = ei.attacked[c][KING] | bb_sq(ksq);
        ei.ks_units[c] = ei.ks_attackers[c] = 0;
    }
    for (int c = WHITE; c <= BLACK; c++) {
        for (int t = PAWN; t <= KING; t++) {
            Bitboard b = pos_pieces(p, c, t);
            while (b) {
                int sq = bb_pop(&b);
                int idx = c == WHITE ? sq : sq ^ 56;
                mg[c] += pst_mg[t][idx];
                eg[c] += pst_eg[t][idx];
                phase += phase_weight[t];
                if (t != PAWN && t != KING)
                    nonpawn[c] += piece_value[t];
            }
        }
        eval_pawns(p, c, &ei, &mg[c], &eg[c]);
        eval_pieces(p, c, &ei, &mg[c], &eg[c]);
    }
    for (int c = WHITE; c <= BLACK; c++) {
        ei.all[c] = 0;
        for (int t = PAWN; t <= KING; t++)
            ei.all[c] |= ei.attacked[c][t];
    }
    for (int c = WHITE; c <= BLACK; c++) {
        eval_passed(p, c, &ei, &eg[c]);
        eval_king_danger(p, c, &ei, &mg[c]);
        eval_threats(p, c, &ei, &mg[c], &eg[c]);
    }

    if (phase > PHASE_MAX)
        phase = PHASE_MAX;
    int mgs = mg[WHITE] - mg[BLACK], egs = eg[WHITE] - eg[BLACK];

    /* A side without pawns and at most a minor piece ahead rarely wins. */
    int strong = egs >= 0 ? WHITE : BLACK;
    if (!pos_pieces(p, strong, PAWN) && nonpawn[strong] - nonpawn[!strong] <= piece_value[BISHOP])
        egs /= 4;
    /* A won pawnless ending: mop up. */
    else if (!pos_pieces(p, !strong, PAWN) && nonpawn[strong] - nonpawn[!strong] >= piece_value[ROOK])
        egs += strong == WHITE ? mop_up(p, WHITE) : -mop_up(p, BLACK);

    int score = (mgs * phase + egs * (PHASE_MAX - phase)) / PHASE_MAX;
    return (p->side == WHITE ? score : -score) + TEMPO;
}

bool has_non_pawn_material(const Position *p, int side)
{
    return (p->by_color[side] & ~(p->by_type[PAWN] | p->by_type[KING])) != 0;
}

/* All squares attacked by one side, and the ones attacked by its pawns,
 * minor pieces and rooks. */
typedef struct {
    Bitboard pawns, minors, rooks, all;
} AttackMap;

static void attack_map(const Position *p, int c, AttackMap *a)
{
    Bitboard occ = pos_occ(p), b;
    a->pawns = pawn_attacks_all(pos_pieces(p, c, PAWN), c);
    a->minors = 0;
    for (b = pos_pieces(p, c, KNIGHT); b;)
        a->minors |= attacks_knight(bb_pop(&b));
    for (b = pos_pieces(p, c, BISHOP); b;)
        a->minors |= attacks_bishop(bb_pop(&b), occ);
    a->rooks = 0;
    for (b = pos_pieces(p, c, ROOK); b;)
        a->rooks |= attacks_rook(bb_pop(&b), occ);
    a->all = a->pawns | a->minors | a->rooks | attacks_king(p->king_sq[c]);
    for (b = pos_pieces(p, c, QUEEN); b;)
        a->all |= attacks_queen(bb_pop(&b), occ);
}

int eval_threat(const Position *p)
{
    int us = p->side;
    AttackMap them, ours;
    attack_map(p, !us, &them);
    attack_map(p, us, &ours);

    Bitboard minors = pos_pieces(p, us, KNIGHT) | pos_pieces(p, us, BISHOP);
    Bitboard rooks = pos_pieces(p, us, ROOK), queens = pos_pieces(p, us, QUEEN);
    Bitboard hanging = (p->by_color[us] & ~p->by_type[KING]) & them.all & ~ours.all;

    if ((queens & (them.pawns | them.minors | them.rooks)) || (queens & hanging))
        return piece_value[QUEEN];
    if ((rooks & (them.pawns | them.minors)) || (rooks & hanging))
        return piece_value[ROOK];
    if ((minors & them.pawns) || (minors & hanging)) {
        Bitboard hit = minors & (them.pawns | hanging);
        return (hit & p->by_type[BISHOP]) ? piece_value[BISHOP] : piece_value[KNIGHT];
    }
    if (pos_pieces(p, us, PAWN) & hanging)
        return piece_value[PAWN];
    return 0;
}
