/* Colours, piece types, squares and bitboards, and the attack tables of the
 * rules (magic bitboards for the sliders).  board.h builds the position on
 * them; attacks_init fills the tables before the first position is set up
 * (rules_init, board.h, calls it). */
#ifndef RATCHET_ATTACKS_H
#define RATCHET_ATTACKS_H

#include <stdint.h>

typedef uint64_t Bitboard;

enum { WHITE, BLACK };
enum { PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, NO_TYPE };

/* Squares: a1 = 0, h1 = 7, a8 = 56, h8 = 63. */
static inline int sq_file(int sq) { return sq & 7; }
static inline int sq_rank(int sq) { return sq >> 3; }
static inline int sq_make(int file, int rank) { return rank * 8 + file; }
static inline Bitboard bb_sq(int sq) { return 1ULL << sq; }
static inline int bb_lsb(Bitboard b) { return __builtin_ctzll(b); }
static inline int bb_count(Bitboard b) { return __builtin_popcountll(b); }
static inline int bb_pop(Bitboard *b) { int s = __builtin_ctzll(*b); *b &= *b - 1; return s; }

/* Fills the attack tables; cheap and safe to call again, from any thread. */
void attacks_init(void);

/* Attack tables (magic bitboards for the sliders), filled by attacks_init
 * and read inline: the lookups are on every node's hot path. */
typedef struct {
    Bitboard mask;
    Bitboard magic;
    Bitboard *table;
    unsigned shift;
} Magic;
extern Bitboard att_pawn_table[2][64], att_knight_table[64], att_king_table[64];
extern Bitboard att_between_table[64][64], att_line_table[64][64];
extern Magic att_bishop_magic[64], att_rook_magic[64];

static inline Bitboard attacks_pawn(int color, int sq) { return att_pawn_table[color][sq]; }
static inline Bitboard attacks_knight(int sq) { return att_knight_table[sq]; }
static inline Bitboard attacks_king(int sq) { return att_king_table[sq]; }
static inline Bitboard attacks_bishop(int sq, Bitboard occ)
{
    const Magic *m = &att_bishop_magic[sq];
    return m->table[((occ & m->mask) * m->magic) >> m->shift];
}
static inline Bitboard attacks_rook(int sq, Bitboard occ)
{
    const Magic *m = &att_rook_magic[sq];
    return m->table[((occ & m->mask) * m->magic) >> m->shift];
}
static inline Bitboard attacks_queen(int sq, Bitboard occ) { return attacks_bishop(sq, occ) | attacks_rook(sq, occ); }
/* Attacks of a piece type (not pawns) from sq with the given occupancy. */
static inline Bitboard attacks_piece(int type, int sq, Bitboard occ)
{
    switch (type) {
    case KNIGHT: return att_knight_table[sq];
    case BISHOP: return attacks_bishop(sq, occ);
    case ROOK: return attacks_rook(sq, occ);
    case QUEEN: return attacks_queen(sq, occ);
    case KING: return att_king_table[sq];
    default: return 0;
    }
}
/* The magic multipliers in use (for bin/ratchet-magics, which writes
 * engine/rules/magics.inc so that start-up need not search for them). */
void attacks_magics(Bitboard bishop[64], Bitboard rook[64]);
/* Squares strictly between a and b on a line, or 0. */
static inline Bitboard bb_between(int a, int b) { return att_between_table[a][b]; }
/* The whole line through a and b, or 0. */
static inline Bitboard bb_line(int a, int b) { return att_line_table[a][b]; }

#endif
