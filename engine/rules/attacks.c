/* Attack tables.  Sliding pieces use magic bitboards: for each square a mask
 * of relevant occupancy, a magic multiplier found at start-up with a fixed
 * seed (so every run builds the same tables), and a shared attack table. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "attacks.h"

/* The tables of attacks.h's inline lookups (attacks_init fills them). */
Bitboard att_pawn_table[2][64], att_knight_table[64], att_king_table[64];
Bitboard att_between_table[64][64], att_line_table[64][64];
Magic att_bishop_magic[64], att_rook_magic[64];
static Bitboard bishop_table[0x1480], rook_table[0x19000];

#include "magics.inc"

static const int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static bool on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* Ray attacks by walking: used only to build the tables. */
static Bitboard slow_attacks(int sq, Bitboard occ, const int dirs[4][2])
{
    Bitboard att = 0;
    for (int d = 0; d < 4; d++) {
        int f = sq_file(sq) + dirs[d][0], r = sq_rank(sq) + dirs[d][1];
        while (on_board(f, r)) {
            att |= bb_sq(sq_make(f, r));
            if (occ & bb_sq(sq_make(f, r)))
                break;
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return att;
}

static Bitboard edges_excluding(int sq)
{
    const Bitboard rank1 = 0xFFULL, rank8 = rank1 << 56;
    const Bitboard fileA = 0x0101010101010101ULL, fileH = fileA << 7;
    return ((rank1 | rank8) & ~(rank1 << (8 * sq_rank(sq)))) |
           ((fileA | fileH) & ~(fileA << sq_file(sq)));
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rng_next(void)
{
    /* xorshift64*: a fixed sequence, so the magics are the same every run. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* Fills the square's table with `magic`; false if two occupancies that need
 * different attacks collide. */
static bool try_magic(Magic *m, Bitboard magic, const Bitboard *occs, const Bitboard *refs, int size,
                      int *epoch, int cur_epoch)
{
    m->magic = magic;
    for (int i = 0; i < size; i++) {
        unsigned idx = (unsigned)((occs[i] * magic) >> m->shift);
        if (epoch[idx] < cur_epoch) {
            epoch[idx] = cur_epoch;
            m->table[idx] = refs[i];
        } else if (m->table[idx] != refs[i]) {
            return false;
        }
    }
    return true;
}

/* Uses the precomputed magic of each square (magics.inc, written by
 * bin/ratchet-magics); searches afresh only if one does not work. */
static void init_magics(Magic *magics, Bitboard *table, const int dirs[4][2], const Bitboard *known)
{
    static Bitboard occs[4096], refs[4096];
    static int epoch[4096];
    int cur_epoch = 0;
    Bitboard *next = table;

    memset(epoch, 0, sizeof epoch);
    for (int sq = 0; sq < 64; sq++) {
        Magic *m = &magics[sq];
        m->mask = slow_attacks(sq, 0, dirs) & ~edges_excluding(sq);
        int bits = bb_count(m->mask);
        m->shift = 64 - bits;
        m->table = next;
        int size = 0;
        Bitboard sub = 0;
        do { /* Carry-Rippler enumeration of the mask's subsets. */
            occs[size] = sub;
            refs[size] = slow_attacks(sq, sub, dirs);
            size++;
            sub = (sub - m->mask) & m->mask;
        } while (sub);

        bool ok = known[sq] && try_magic(m, known[sq], occs, refs, size, epoch, ++cur_epoch);
        while (!ok) {
            Bitboard magic;
            do
                magic = rng_next() & rng_next() & rng_next();
            while (bb_count((m->mask * magic) >> 56) < 6);
            ok = try_magic(m, magic, occs, refs, size, epoch, ++cur_epoch);
        }
        next += size;
    }
}

static void init_leapers(void)
{
    static const int kn[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int kg[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    for (int sq = 0; sq < 64; sq++) {
        int f = sq_file(sq), r = sq_rank(sq);
        for (int i = 0; i < 8; i++) {
            if (on_board(f + kn[i][0], r + kn[i][1]))
                att_knight_table[sq] |= bb_sq(sq_make(f + kn[i][0], r + kn[i][1]));
            if (on_board(f + kg[i][0], r + kg[i][1]))
                att_king_table[sq] |= bb_sq(sq_make(f + kg[i][0], r + kg[i][1]));
        }
        for (int df = -1; df <= 1; df += 2) {
            if (on_board(f + df, r + 1))
                att_pawn_table[WHITE][sq] |= bb_sq(sq_make(f + df, r + 1));
            if (on_board(f + df, r - 1))
                att_pawn_table[BLACK][sq] |= bb_sq(sq_make(f + df, r - 1));
        }
    }
}

static void init_lines(void)
{
    for (int a = 0; a < 64; a++) {
        for (int b = 0; b < 64; b++) {
            if (a == b)
                continue;
            if (slow_attacks(a, 0, rook_dirs) & bb_sq(b)) {
                att_line_table[a][b] = (slow_attacks(a, 0, rook_dirs) & slow_attacks(b, 0, rook_dirs)) | bb_sq(a) | bb_sq(b);
                att_between_table[a][b] = slow_attacks(a, bb_sq(b), rook_dirs) & slow_attacks(b, bb_sq(a), rook_dirs);
            } else if (slow_attacks(a, 0, bishop_dirs) & bb_sq(b)) {
                att_line_table[a][b] = (slow_attacks(a, 0, bishop_dirs) & slow_attacks(b, 0, bishop_dirs)) | bb_sq(a) | bb_sq(b);
                att_between_table[a][b] = slow_attacks(a, bb_sq(b), bishop_dirs) & slow_attacks(b, bb_sq(a), bishop_dirs);
            }
        }
    }
}

static void init_once(void)
{
    init_leapers();
    init_lines();
    init_magics(att_bishop_magic, bishop_table, bishop_dirs, known_bishop_magics);
    init_magics(att_rook_magic, rook_table, rook_dirs, known_rook_magics);
}

void attacks_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

void attacks_magics(Bitboard bishop[64], Bitboard rook[64])
{
    attacks_init();
    for (int sq = 0; sq < 64; sq++) {
        bishop[sq] = att_bishop_magic[sq].magic;
        rook[sq] = att_rook_magic[sq].magic;
    }
}
