/* Tapered evaluation.  The piece-square tables are built from a few simple
 * shapes (centralisation, advancement, king shelter) plus a fitted weight
 * per square, and mobility is linear plus a fitted weight per count.
 * Every weight comes from eval_weights.h (bin/ratchet-texel fits them).
 *
 * Compiled twice: as the engine's evaluate(), and with -DEVAL_TRACE as
 * eval_trace() (eval_trace.h), which also records the count each linear
 * weight is multiplied by.  Every linear term goes through TERM(), so the
 * two cannot disagree on a term. */
#include "eval.h"
#include "eval_trace.h"

#include <pthread.h>
#include <stdlib.h>

#ifndef EVAL_TRACE
const int piece_value[7] = {100, 320, 330, 500, 950, 0, 0};
#endif

/* The weights: the linear ones as tables indexed by EW_Name (constant
 * indices fold to constants), the shape constants by name. */
static const int w_val[EVAL_NWEIGHTS][2] = { /* [weight][mg, eg] */
#define EVAL_W(name, mg, eg, what) {mg, eg},
#define EVAL_REF EVAL_W
#define EVAL_FLAT(name, value, what) {value, value},
#define EVAL_SHAPE(name, value, what)
#include "eval_weights.h"
#undef EVAL_W
#undef EVAL_REF
#undef EVAL_FLAT
#undef EVAL_SHAPE
};
enum {
#define EVAL_W(name, mg, eg, what)
#define EVAL_REF EVAL_W
#define EVAL_FLAT(name, value, what)
#define EVAL_SHAPE(name, value, what) name = (value),
#include "eval_weights.h"
#undef EVAL_W
#undef EVAL_REF
#undef EVAL_FLAT
#undef EVAL_SHAPE
};

static const int phase_weight[6] = {0, 1, 1, 2, 4, 0};
#define PHASE_MAX EVAL_PHASE_MAX

typedef struct {
    int mg, eg;
} Score;

/* Where the terms of one evaluation go: a score per side and, in the
 * trace build, the counts. */
typedef struct {
    Score s[2];
#ifdef EVAL_TRACE
    EvalTrace *t; /* NULL while building tables */
#endif
} Acc;

/* Side c's score gets weight i times n. */
static inline void term(Acc *a, int c, int i, int n)
{
    a->s[c].mg += w_val[i][0] * n;
    a->s[c].eg += w_val[i][1] * n;
#ifdef EVAL_TRACE
    if (a->t)
        a->t->count[i][c] += n;
#endif
}
#define TERM(a, c, name, n) term((a), (c), EW_##name, (n))

/* A midgame term that is not linear in any weight (king danger). */
static inline void nonlinear_mg(Acc *a, int c, int v)
{
    a->s[c].mg += v;
#ifdef EVAL_TRACE
    a->t->nonlinear_mg[c] += v;
#endif
}

/* Pawn structure masks. */
static Bitboard file_mask[8], adjacent_files[8];
static Bitboard passed_span[2][64]; /* squares in front on the same and adjacent files */
static Bitboard flank_mask[8];      /* the four files of a king's flank: a-d, c-f or e-h */
static Bitboard distance_ring[64][8]; /* squares at king distance d from a square */

static const int pawn_rank_w[8] = {-1, -1, EW_PawnRank3, EW_PawnRank4, EW_PawnRank5, EW_PawnRank6, EW_PawnRank7, -1};
static const int passed_rank_w[8] = {-1, EW_PassedRank2, EW_PassedRank3, EW_PassedRank4,
                                     EW_PassedRank5, EW_PassedRank6, EW_PassedRank7, -1};
static const int storm_rank_w[8] = {-1, EW_PawnStormRank2, EW_PawnStormRank3, EW_PawnStormRank4,
                                    EW_PawnStormRank5, EW_PawnStormRank6, -1, -1};
static const int king_home_w[8] = {EW_KingHomeA, EW_KingHomeB, EW_KingHomeC, EW_KingHomeD,
                                   EW_KingHomeE, EW_KingHomeF, EW_KingHomeG, EW_KingHomeH};
/* The per-square tables (64 weights a1..h8 from the piece's side) and the
 * per-count mobility tables: fitted deviations from the shaped terms. */
static const int pst_first[6] = {EW_PstPawnA1, EW_PstKnightA1, EW_PstBishopA1,
                                 EW_PstRookA1, EW_PstQueenA1,  EW_PstKingA1};

static int center_distance(int sq) /* Manhattan distance to the four centre squares, 0..6 */
{
    return (abs(2 * sq_file(sq) - 7) + abs(2 * sq_rank(sq) - 7)) / 2 - 1;
}

/* Material and placement of a piece of type t of side c on sq, which is
 * the square from c's side (a1 = its queen's rook's corner). */
static void pst_terms(Acc *a, int c, int t, int sq)
{
    int f = sq_file(sq), r = sq_rank(sq), md = center_distance(sq);
    bool central_file = f == 3 || f == 4, near_file = f == 2 || f == 5;
    bool diagonal = f == r || f + r == 7;

    switch (t) {
    case PAWN:
        TERM(a, c, PawnValue, 1);
        if (pawn_rank_w[r] >= 0)
            term(a, c, pawn_rank_w[r], 1);
        if ((r == 3 || r == 4) && central_file)
            TERM(a, c, PawnCentre, 1);
        else if ((r == 3 || r == 4) && near_file)
            TERM(a, c, PawnNearCentre, 1);
        if (r == 1 && central_file)
            TERM(a, c, PawnCentreHome, 1);
        break;
    case KNIGHT:
        TERM(a, c, KnightValue, 1);
        TERM(a, c, KnightPstBase, 1);
        TERM(a, c, KnightCentreDistance, md);
        TERM(a, c, KnightAdvanced, r >= 3 && r <= 5);
        break;
    case BISHOP:
        TERM(a, c, BishopValue, 1);
        TERM(a, c, BishopPstBase, 1);
        TERM(a, c, BishopCentreDistance, md);
        TERM(a, c, BishopLongDiagonal, diagonal);
        break;
    case ROOK:
        TERM(a, c, RookValue, 1);
        TERM(a, c, RookSeventh, r == 6);
        TERM(a, c, RookCentralFile, central_file);
        break;
    case QUEEN:
        TERM(a, c, QueenValue, 1);
        TERM(a, c, QueenPstBase, 1);
        TERM(a, c, QueenCentreDistance, md);
        break;
    default:
        if (r == 0) {
            term(a, c, king_home_w[f], 1);
        } else {
            TERM(a, c, KingOffHome, 1);
            TERM(a, c, KingAdvance, r);
        }
        TERM(a, c, KingPstBase, 1);
        TERM(a, c, KingCentreDistance, md);
        break;
    }
    term(a, c, pst_first[t] + sq, 1);
}

#ifndef EVAL_TRACE
/* Fills the rules' psq_table (board.h): material plus placement of each
 * piece on each square, for its own side ([piece][square][midgame,
 * endgame]); the position keeps the sums as its pieces move. */
static void build_pst(void)
{
    for (int t = PAWN; t <= KING; t++)
        for (int sq = 0; sq < 64; sq++) {
            Acc a = {.s = {{0, 0}, {0, 0}}};
            pst_terms(&a, WHITE, t, sq);
            for (int c = WHITE; c <= BLACK; c++) {
                int *entry = psq_table[piece_make(c, t)][c == WHITE ? sq : sq ^ 56];
                entry[0] = a.s[WHITE].mg;
                entry[1] = a.s[WHITE].eg;
            }
        }
}

static void psq_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_pst);
}
#endif

static int king_distance(int a, int b)
{
    int df = abs(sq_file(a) - sq_file(b)), dr = abs(sq_rank(a) - sq_rank(b));
    return df > dr ? df : dr;
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
        for (int d = 0; d < 8; d++)
            distance_ring[sq][d] = 0;
        for (int to = 0; to < 64; to++)
            distance_ring[sq][king_distance(sq, to)] |= bb_sq(to);
    }
    for (int f = 0; f < 8; f++) {
        int lo = f <= 2 ? 0 : f >= 5 ? 4 : 2;
        flank_mask[f] = 0;
        for (int g = lo; g < lo + 4; g++)
            flank_mask[f] |= file_mask[g];
    }
}

#ifndef EVAL_TRACE
void eval_init(void)
{
    psq_init();
    build_masks();
}
#endif

static Bitboard pawn_attacks_all(Bitboard pawns, int color)
{
    const Bitboard not_a = ~file_mask[0], not_h = ~file_mask[7];
    if (color == WHITE)
        return ((pawns & not_a) << 7) | ((pawns & not_h) << 9);
    return ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7);
}

static int relative_rank(int color, int sq) { return color == WHITE ? sq_rank(sq) : 7 - sq_rank(sq); }

/* What the terms of one evaluation share: the scores, the squares each
 * side attacks (by piece type and in all), the king zones and the attack
 * units on them, and the passed pawns (scored once the attacks are known). */
typedef struct {
    Acc acc;
    Bitboard attacked[2][6]; /* [colour][piece type] */
    Bitboard all[2];
    Bitboard king_zone[2];   /* the king's square and its neighbours */
    int ks_units[2];         /* attack units of [colour] on the other king's zone */
    int ks_attackers[2];     /* pieces of [colour] attacking the other king's zone */
    Bitboard passed[2];
} EvalInfo;

/* King safety: attack units per attacked king-zone square, by attacker. */
static const int ks_weight[6] = {0, KingAttackKnight, KingAttackBishop, KingAttackRook, KingAttackQueen, 0};

/* Passed pawns beyond their rank bonus: the path and king terms are
 * weighted by passed_scale[rank]. */
static const int passed_scale[8] = {0, 0, 0, PassedScaleRank4, PassedScaleRank5, PassedScaleRank6, PassedScaleRank7, 0};

/* Pawn structure of one side: doubled, isolated, and passed pawns by rank
 * (the rest of the passed-pawn terms wait for the attack maps). */
static void eval_pawns(const Position *p, int us, EvalInfo *ei)
{
    Bitboard ours = pos_pieces(p, us, PAWN), theirs = pos_pieces(p, !us, PAWN);
    for (int f = 0; f < 8; f++) {
        int n = bb_count(ours & file_mask[f]);
        if (n > 1)
            TERM(&ei->acc, us, DoubledPawn, n - 1);
    }
    ei->passed[us] = 0;
    Bitboard b = ours;
    TERM(&ei->acc, us, PawnSupported, bb_count(ours & ei->attacked[us][PAWN]));
    while (b) {
        int sq = bb_pop(&b);
        Bitboard beside = adjacent_files[sq_file(sq)] & (0xFFULL << (8 * sq_rank(sq)));
        int stop = us == WHITE ? sq + 8 : sq - 8;
        if (ours & beside)
            TERM(&ei->acc, us, PawnPhalanx, 1);
        if (!(ours & adjacent_files[sq_file(sq)]))
            TERM(&ei->acc, us, IsolatedPawn, 1);
        /* Backward: no own pawn beside or behind on the adjacent files, and
         * an enemy pawn guards the stop square. */
        else if (!(ours & adjacent_files[sq_file(sq)] & ~passed_span[us][sq]) &&
                 (bb_sq(stop) & ei->attacked[!us][PAWN]))
            TERM(&ei->acc, us, PawnBackward, 1);
        if (!(theirs & passed_span[us][sq])) {
            term(&ei->acc, us, passed_rank_w[relative_rank(us, sq)], 1);
            ei->passed[us] |= bb_sq(sq);
        }
    }
}

/* The pawn terms depend on the pawns alone, and most positions a search
 * visits share their pawns with one seen a moment before: a table per
 * thread keeps each structure's scores and passed pawns.  An entry holds
 * both pawn sets, so a hit is never a different structure.  Not in the
 * trace build, whose counts must come from the terms themselves. */
#ifndef EVAL_TRACE
enum { PAWN_CACHE_BITS = 12 };
typedef struct {
    Bitboard pawns[2]; /* [colour]; both empty: an unused entry */
    Bitboard passed[2];
    Score s[2];
} PawnEntry;
static _Thread_local PawnEntry pawn_cache[1 << PAWN_CACHE_BITS];

static void eval_pawns_cached(const Position *p, EvalInfo *ei)
{
    const Bitboard w = pos_pieces(p, WHITE, PAWN), b = pos_pieces(p, BLACK, PAWN);
    PawnEntry *e = &pawn_cache[pos_pawn_hash(p) >> (64 - PAWN_CACHE_BITS)];
    if (!(e->pawns[WHITE] == w && e->pawns[BLACK] == b && (w | b))) {
        /* Score the structure on its own, then store it. */
        EvalInfo fresh = *ei;
        fresh.acc.s[WHITE] = fresh.acc.s[BLACK] = (Score){0, 0};
        eval_pawns(p, WHITE, &fresh);
        eval_pawns(p, BLACK, &fresh);
        *e = (PawnEntry){{w, b}, {fresh.passed[WHITE], fresh.passed[BLACK]}, {fresh.acc.s[WHITE], fresh.acc.s[BLACK]}};
    }
    for (int c = WHITE; c <= BLACK; c++) {
        ei->acc.s[c].mg += e->s[c].mg;
        ei->acc.s[c].eg += e->s[c].eg;
        ei->passed[c] = e->passed[c];
    }
}
#endif

/* Passed pawns of one side: free and safe path, king distances. */
static void eval_passed(const Position *p, int us, EvalInfo *ei)
{
    Bitboard occ = pos_occ(p), b = ei->passed[us];
    while (b) {
        int sq = bb_pop(&b), w = passed_scale[relative_rank(us, sq)];
        if (!w)
            continue;
        int block = us == WHITE ? sq + 8 : sq - 8;
        Bitboard path = file_mask[sq_file(sq)] & passed_span[us][sq];
        if (!(path & occ))
            TERM(&ei->acc, us, PassedFreePath, w);
        if (!(path & ei->all[!us]))
            TERM(&ei->acc, us, PassedSafePath, w);
        int theirs = king_distance(p->king_sq[!us], block), ours = king_distance(p->king_sq[us], block);
        TERM(&ei->acc, us, PassedKingTheirs, w * (theirs < 5 ? theirs : 5));
        TERM(&ei->acc, us, PassedKingOurs, w * (ours < 5 ? ours : 5));
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

/* Mobility of one piece with n safe squares: linear around the centre,
 * plus the table's weight for n. */
static inline void mobility(Acc *a, int us, int linear, int table, int n, int centre)
{
    term(a, us, linear, n - centre);
    term(a, us, table + n, 1);
}

/* Outposts: a knight or bishop on its fourth to sixth rank, defended by
 * an own pawn, where no enemy pawn can ever attack it. */
static int outposts(const Position *p, int us, Bitboard pieces, const EvalInfo *ei)
{
    Bitboard theirs = pos_pieces(p, !us, PAWN);
    int n = 0;
    pieces &= ei->attacked[us][PAWN];
    while (pieces) {
        int sq = bb_pop(&pieces), r = relative_rank(us, sq);
        if (r >= 3 && r <= 5 && !(theirs & passed_span[us][sq] & adjacent_files[sq_file(sq)]))
            n++;
    }
    return n;
}

/* Mobility, rooks on open files and the king's pawn shelter of one side;
 * records the side's attacks in ei. */
static void eval_pieces(const Position *p, int us, EvalInfo *ei)
{
    Bitboard occ = pos_occ(p);
    Bitboard own_pawns = pos_pieces(p, us, PAWN), their_pawns = pos_pieces(p, !us, PAWN);
    Bitboard safe = ~p->by_color[us] & ~ei->attacked[!us][PAWN];
    Acc *acc = &ei->acc;

    TERM(acc, us, KnightOutpost, outposts(p, us, pos_pieces(p, us, KNIGHT), ei));
    TERM(acc, us, BishopOutpost, outposts(p, us, pos_pieces(p, us, BISHOP), ei));
    Bitboard b = pos_pieces(p, us, KNIGHT);
    while (b) {
        Bitboard a = attacks_knight(bb_pop(&b));
        note_attacks(ei, us, KNIGHT, a);
        mobility(acc, us, EW_KnightMobility, EW_MobKnight0, bb_count(a & safe), KnightMobilityCentre);
    }
    b = pos_pieces(p, us, BISHOP);
    if (bb_count(b) >= 2)
        TERM(acc, us, BishopPair, 1);
    while (b) {
        Bitboard a = attacks_bishop(bb_pop(&b), occ);
        note_attacks(ei, us, BISHOP, a);
        mobility(acc, us, EW_BishopMobility, EW_MobBishop0, bb_count(a & safe), BishopMobilityCentre);
    }
    b = pos_pieces(p, us, ROOK);
    while (b) {
        int sq = bb_pop(&b);
        Bitboard a = attacks_rook(sq, occ);
        note_attacks(ei, us, ROOK, a);
        mobility(acc, us, EW_RookMobility, EW_MobRook0, bb_count(a & safe), RookMobilityCentre);
        Bitboard file = file_mask[sq_file(sq)];
        if (!(file & (own_pawns | their_pawns)))
            TERM(acc, us, RookOpenFile, 1);
        else if (!(file & own_pawns))
            TERM(acc, us, RookSemiOpenFile, 1);
    }
    b = pos_pieces(p, us, QUEEN);
    while (b) {
        Bitboard a = attacks_queen(bb_pop(&b), occ);
        note_attacks(ei, us, QUEEN, a);
        mobility(acc, us, EW_QueenMobility, EW_MobQueen0, bb_count(a & safe), QueenMobilityCentre);
    }

    int ksq = p->king_sq[us];
    if (relative_rank(us, ksq) <= 1) {
        Bitboard shelter = (file_mask[sq_file(ksq)] | adjacent_files[sq_file(ksq)]) & passed_span[us][ksq];
        Bitboard near = us == WHITE ? 0xFFFFULL << (8 * (sq_rank(ksq) + 1)) : 0xFFFFULL << (8 * (sq_rank(ksq) >= 2 ? sq_rank(ksq) - 2 : 0));
        int n = bb_count(shelter & near & own_pawns);
        TERM(acc, us, KingShelter, n < 3 ? n : 3);
    }
}

/* King danger of side us: the enemy's attack units on its king zone, once
 * at least two pieces take part (or the queen does), growing with their
 * square; midgame only. */
static void eval_king_danger(const Position *p, int us, EvalInfo *ei)
{
    int them = !us, units = ei->ks_units[them];
    /* Safe checks: squares where an enemy piece would check our king, that
     * it reaches, that hold none of its pieces and that we do not defend. */
    Bitboard occ = pos_occ(p), safe = ~(ei->all[us] | p->by_color[them]);
    int ksq = p->king_sq[us];
    Bitboard diag = attacks_bishop(ksq, occ) & safe, line = attacks_rook(ksq, occ) & safe;
    TERM(&ei->acc, us, SafeCheckKnight, bb_count(attacks_knight(ksq) & ei->attacked[them][KNIGHT] & safe));
    TERM(&ei->acc, us, SafeCheckBishop, bb_count(diag & ei->attacked[them][BISHOP]));
    TERM(&ei->acc, us, SafeCheckRook, bb_count(line & ei->attacked[them][ROOK]));
    TERM(&ei->acc, us, SafeCheckQueen, bb_count((diag | line) & ei->attacked[them][QUEEN]));
    /* The king's files: their pawns storming, and files without pawns. */
    Bitboard own_pawns = pos_pieces(p, us, PAWN), their_pawns = pos_pieces(p, them, PAWN);
    int kf = sq_file(ksq);
    for (int f = kf > 0 ? kf - 1 : 0; f <= kf + 1 && f < 8; f++) {
        Bitboard storm = file_mask[f] & their_pawns;
        while (storm) {
            int r = relative_rank(us, bb_pop(&storm));
            if (r >= 1 && r <= 5)
                term(&ei->acc, us, storm_rank_w[r], 1);
        }
        if (!(file_mask[f] & own_pawns))
            term(&ei->acc, us, file_mask[f] & their_pawns ? EW_KingFileSemiOpen : EW_KingFileOpen, 1);
    }
    /* Zone squares they attack that only our king or queen defends. */
    Bitboard guards = ei->attacked[us][PAWN] | ei->attacked[us][KNIGHT] | ei->attacked[us][BISHOP] | ei->attacked[us][ROOK];
    TERM(&ei->acc, us, KingZoneWeak, bb_count(ei->king_zone[us] & ei->all[them] & ~guards));
    if (ei->ks_attackers[them] < 2 && !(ei->attacked[them][QUEEN] & ei->king_zone[us]))
        return;
    /* Zone squares the enemy attacks that only our king defends. */
    Bitboard ours = ei->all[us] & ~ei->attacked[us][KING];
    units += bb_count(ei->king_zone[us] & ei->all[them] & ~ours);
    if (!pos_pieces(p, them, QUEEN))
        units /= 2;
    int danger = units * units / 2;
    nonlinear_mg(&ei->acc, us, -(danger < KingDangerMax ? danger : KingDangerMax));
    /* The fitted table by units (the last entry for 40 and more). */
    term(&ei->acc, us, EW_KingDanger0 + (units < 40 ? units : 40), 1);
}

/* Threats against side us's pieces: attacked by a cheaper piece, or
 * attacked and undefended. */
static void eval_threats(const Position *p, int us, EvalInfo *ei)
{
    int them = !us;
    Bitboard minors = pos_pieces(p, us, KNIGHT) | pos_pieces(p, us, BISHOP);
    Bitboard majors = pos_pieces(p, us, ROOK) | pos_pieces(p, us, QUEEN);
    Bitboard pieces = minors | majors;
    TERM(&ei->acc, us, ThreatByPawn, bb_count(pieces & ei->attacked[them][PAWN]));
    TERM(&ei->acc, us, ThreatByMinor, bb_count(majors & (ei->attacked[them][KNIGHT] | ei->attacked[them][BISHOP])));
    TERM(&ei->acc, us, ThreatByRook, bb_count(pos_pieces(p, us, QUEEN) & ei->attacked[them][ROOK]));
    TERM(&ei->acc, us, Hanging, bb_count(pieces & ei->all[them] & ~ei->all[us]));
}

/* Bad bishops, minors behind pawns, pawn-push threats, space, the king's
 * distance to the pawns, weak pawns under attack, a pawnless flank, the
 * enemy queen's and rooks' approach to the king and rooks behind passed
 * pawns, of side us. */
static void eval_extras(const Position *p, int us, EvalInfo *ei)
{
    int them = !us;
    const Bitboard light = 0x55AA55AA55AA55AAULL;
    Bitboard own_pawns = pos_pieces(p, us, PAWN), pawns = own_pawns | pos_pieces(p, them, PAWN);
    Bitboard b = pos_pieces(p, us, BISHOP);
    while (b) {
        Bitboard colour = bb_sq(bb_pop(&b)) & light ? light : ~light;
        TERM(&ei->acc, us, BishopPawnsSameColour, bb_count(own_pawns & colour));
    }
    Bitboard minors = pos_pieces(p, us, KNIGHT) | pos_pieces(p, us, BISHOP);
    TERM(&ei->acc, us, MinorBehindPawn, bb_count((us == WHITE ? minors << 8 : minors >> 8) & pawns));
    Bitboard pushed = (us == WHITE ? own_pawns << 8 : own_pawns >> 8) & ~pos_occ(p);
    pushed &= ~ei->attacked[them][PAWN] & (ei->all[us] | ~ei->all[them]);
    Bitboard targets = p->by_color[them] & ~pos_pieces(p, them, PAWN) & ~pos_pieces(p, them, KING);
    TERM(&ei->acc, us, ThreatPawnPush, bb_count(pawn_attacks_all(pushed, us) & targets));
    const Bitboard centre_files = 0x3C3C3C3C3C3C3C3CULL;
    Bitboard ranks = us == WHITE ? 0x00000000FFFFFF00ULL : 0x00FFFFFF00000000ULL;
    TERM(&ei->acc, us, Space, bb_count(centre_files & ranks & ~own_pawns & ~ei->attacked[them][PAWN]));
    if (pawns) {
        int nearest = 0;
        while (!(distance_ring[p->king_sq[us]][nearest] & pawns))
            nearest++;
        TERM(&ei->acc, us, KingPawnDistance, nearest);
    }

    TERM(&ei->acc, us, WeakPawnAttacked, bb_count(own_pawns & ei->all[them] & ~ei->all[us]));
    int ksq = p->king_sq[us], kf = sq_file(ksq);
    if (!(flank_mask[kf] & pawns))
        TERM(&ei->acc, us, PawnlessFlank, 1);
    for (Bitboard q = pos_pieces(p, them, QUEEN); q;)
        TERM(&ei->acc, us, QueenNearKing, 7 - king_distance(bb_pop(&q), ksq));
    TERM(&ei->acc, us, RookOnKingFile,
         bb_count(file_mask[kf] & (pos_pieces(p, them, ROOK) | pos_pieces(p, them, QUEEN))));
    for (Bitboard r = pos_pieces(p, us, ROOK); r;) {
        int sq = bb_pop(&r);
        /* A passed pawn of ours in front of the rook on its file. */
        if (file_mask[sq_file(sq)] & passed_span[us][sq] & ei->passed[us])
            TERM(&ei->acc, us, RookBehindPassed, 1);
    }
}

/* Mop-up for the side `strong` that has at least a rook's worth more
 * pieces against a pawnless side: the defending king to the edge, the
 * attacking king close to it. */
static void mop_up(const Position *p, int strong, Acc *a)
{
    int weak_king = p->king_sq[!strong];
    TERM(a, strong, MopupEdge, center_distance(weak_king));
    TERM(a, strong, MopupKingsClose, 7 - king_distance(p->king_sq[strong], weak_king));
}

/* How much of the endgame score the side ahead (strong) can hope to keep,
 * in 64ths (EVAL_SCALE_NORMAL: all of it), in endings that material alone
 * calls won but that are drawn or nearly: the linear terms cannot see
 * them, and a search that trusts them trades into them.  *mg_scale is the
 * same for the endings that are drawn whatever the phase says (no pawns
 * ahead, a rook's pawn, bishops of opposite colours alone, one pawn held):
 * the phase is linear in the pieces, so a rook ending still gives the
 * midgame weights a sixth of the score.  The broad rules (few pawns, a rook
 * ending on one flank, a lone queen) also apply with more pieces on the
 * board, and leave the midgame part alone (*mg_scale EVAL_SCALE_NORMAL). */
static const Bitboard dark_squares = 0xAA55AA55AA55AA55ULL;

static int endgame_scale(const Position *p, int strong, const int nonpawn[2], int *mg_scale)
{
    *mg_scale = EVAL_SCALE_NORMAL;
    const int weak = !strong;
    const Bitboard sp = pos_pieces(p, strong, PAWN), wp = pos_pieces(p, weak, PAWN);
    const int ns = nonpawn[strong], nw = nonpawn[weak];
    const Bitboard sb = pos_pieces(p, strong, BISHOP), wb = pos_pieces(p, weak, BISHOP);

    if (!sp) {
        /* No pawns and at most a minor piece ahead: a lone minor cannot
         * mate, a rook or more against a minor or a rook rarely wins. */
        if (ns - nw <= piece_value[BISHOP])
            return *mg_scale = ns < piece_value[ROOK] ? 0 : nw <= piece_value[BISHOP] ? 4 : 14;
        /* Two knights cannot force mate. */
        if (ns == 2 * piece_value[KNIGHT] && bb_count(pos_pieces(p, strong, KNIGHT)) == 2)
            return *mg_scale = wp ? 16 : 0;
    }

    /* Pawns on one rook file only, with no piece or with the bishop that
     * does not cover the queening square, against a king on or beside
     * that square: the king cannot be driven out. */
    const Bitboard file_a = 0x0101010101010101ULL, file_h = file_a << 7;
    if (sp && !wp && (!(sp & ~file_a) || !(sp & ~file_h))) {
        const int queening = sq_make(sq_file(bb_lsb(sp)), strong == WHITE ? 7 : 0);
        const bool wrong_bishop = ns == piece_value[BISHOP] && bb_count(sb) == 1
                                  && !(sb & dark_squares) != !(bb_sq(queening) & dark_squares);
        if ((ns == 0 || wrong_bishop) && king_distance(p->king_sq[weak], queening) <= 1)
            return *mg_scale = 0;
    }

    /* Opposite-coloured bishops: with nothing else the extra pawns rarely
     * win unless they are passed and far apart; with other pieces less so. */
    if (bb_count(sb) == 1 && bb_count(wb) == 1 && !(sb & dark_squares) != !(wb & dark_squares)) {
        if (ns == piece_value[BISHOP] && nw == piece_value[BISHOP]) {
            int passed = 0;
            for (Bitboard b = sp; b;)
                passed += !(passed_span[strong][bb_pop(&b)] & wp);
            return *mg_scale = 18 + 4 * passed;
        }
        return 22 + 3 * bb_count(p->by_color[strong]);
    }

    /* One pawn against none with the same pieces (a rook each, a bishop
     * each, ...): usually held when the defending king is in front of it,
     * and a rook's pawn in a rook ending nearly always. */
    if (bb_count(sp) == 1 && !wp && ns == nw && ns > 0
        && ((passed_span[strong][bb_lsb(sp)] & bb_sq(p->king_sq[weak]))
            || (ns == piece_value[ROOK] && (sp & (file_a | file_h)))))
        return *mg_scale = ScaleOnePawnHeld;

    /* Otherwise, unless the side ahead has a rook's worth more pieces (a
     * mop-up): */
    if (ns - nw < piece_value[ROOK]) {
        /* a rook each, at most a pawn more, all of them on one flank, and
         * the defending king beside its own pawns: usually held; */
        const Bitboard kingside = 0xF0F0F0F0F0F0F0F0ULL;
        if (ns == piece_value[ROOK] && nw == piece_value[ROOK] && bb_count(sp) - bb_count(wp) <= 1
            && !(sp & kingside) != !(sp & ~kingside) && (attacks_king(p->king_sq[weak]) & wp))
            return ScaleRookFlank;
        /* a single queen against other pieces: less decisive than the
         * material says, the less so the more minor pieces the side
         * without it has (Stockfish's rule and constants); */
        const Bitboard queens = p->by_type[QUEEN];
        int k;
        if (bb_count(queens) == 1) {
            const int other = (queens & p->by_color[WHITE]) ? BLACK : WHITE;
            k = ScaleOneQueenBase + ScaleOneQueenPerMinor * bb_count(pos_pieces(p, other, KNIGHT) | pos_pieces(p, other, BISHOP));
        } else {
            /* else each pawn the side ahead has left is a chance to win:
             * with few the ending is harder to win, and trading them away
             * is worth less than the material says. */
            k = ScalePawnlessBase + ScalePerPawn * bb_count(sp);
        }
        return k < EVAL_SCALE_NORMAL ? k : EVAL_SCALE_NORMAL;
    }
    return EVAL_SCALE_NORMAL;
}

/* The evaluation of both builds; tr is the trace (trace build only). */
static int eval_common(const Position *p, EvalTrace *tr)
{
    int phase = 0;
    int nonpawn[2] = {0, 0};
    EvalInfo ei;
    ei.acc.s[WHITE] = ei.acc.s[BLACK] = (Score){0, 0};
#ifdef EVAL_TRACE
    ei.acc.t = tr;
#else
    (void)tr;
#endif

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
#ifdef EVAL_TRACE
        for (int t = PAWN; t <= KING; t++)
            for (Bitboard b = pos_pieces(p, c, t); b;) {
                int sq = bb_pop(&b);
                pst_terms(&ei.acc, c, t, c == WHITE ? sq : sq ^ 56);
            }
        eval_pawns(p, c, &ei);
#else
        ei.acc.s[c].mg += p->psq[c][0];
        ei.acc.s[c].eg += p->psq[c][1];
#endif
        for (int t = KNIGHT; t <= QUEEN; t++) {
            int n = bb_count(pos_pieces(p, c, t));
            phase += phase_weight[t] * n;
            nonpawn[c] += piece_value[t] * n;
        }
        eval_pieces(p, c, &ei);
    }
#ifndef EVAL_TRACE
    eval_pawns_cached(p, &ei);
#endif
    for (int c = WHITE; c <= BLACK; c++) {
        ei.all[c] = 0;
        for (int t = PAWN; t <= KING; t++)
            ei.all[c] |= ei.attacked[c][t];
    }
    for (int c = WHITE; c <= BLACK; c++) {
        eval_passed(p, c, &ei);
        eval_king_danger(p, c, &ei);
        eval_threats(p, c, &ei);
        eval_extras(p, c, &ei);
    }

    if (phase > PHASE_MAX)
        phase = PHASE_MAX;
    const Score *s = ei.acc.s;
    int mgs = s[WHITE].mg - s[BLACK].mg, egs = s[WHITE].eg - s[BLACK].eg;

    /* Drawish endings scale the endgame score down, and the drawn ones
     * the midgame part too; a won pawnless one gets the mop-up terms. */
    int strong = egs >= 0 ? WHITE : BLACK, mg_scale;
    int eg_scale = endgame_scale(p, strong, nonpawn, &mg_scale);
    if (eg_scale < EVAL_SCALE_NORMAL) {
        mgs = mgs * mg_scale / EVAL_SCALE_NORMAL;
        egs = egs * eg_scale / EVAL_SCALE_NORMAL;
    } else if (!pos_pieces(p, !strong, PAWN) && nonpawn[strong] - nonpawn[!strong] >= piece_value[ROOK]) {
        mop_up(p, strong, &ei.acc);
        mgs = s[WHITE].mg - s[BLACK].mg;
        egs = s[WHITE].eg - s[BLACK].eg;
    }

    int score = (mgs * phase + egs * (PHASE_MAX - phase)) / PHASE_MAX;
    TERM(&ei.acc, p->side, Tempo, 1);
    int v = (p->side == WHITE ? score : -score) + w_val[EW_Tempo][0];
#ifdef EVAL_TRACE
    tr->phase = phase;
    tr->eg_scale = eg_scale;
    tr->mg_scale = mg_scale;
    tr->eval = v;
#endif
    return v;
}

#ifdef EVAL_TRACE
void eval_trace(const Position *p, EvalTrace *t)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_masks);
    *t = (EvalTrace){0};
    eval_common(p, t);
}
#else
int evaluate(const Position *p) { return eval_common(p, NULL); }

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
#endif
