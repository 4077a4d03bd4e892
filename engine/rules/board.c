/* The position: Zobrist keys, FEN, make/unmake, attacks, draw rules. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "errmsg.h"

static uint64_t z_piece[12][64], z_castle[16], z_ep[8], z_side;
static uint8_t castle_mask[64]; /* rights kept when a move touches the square */
int psq_table[12][64][2];

/* The Zobrist keys and the castling masks. */
static void zobrist_init(void)
{
    uint64_t s = 0x2545F4914F6CDD1DULL; /* splitmix64, fixed seed */
    for (int i = 0; i < 12 * 64 + 16 + 8 + 1; i++) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        if (i < 768)
            z_piece[i / 64][i % 64] = z;
        else if (i < 784)
            z_castle[i - 768] = z;
        else if (i < 792)
            z_ep[i - 784] = z;
        else
            z_side = z;
    }
    /* z_castle[] of a set of rights is the xor of its single rights, so
     * removing one right is one xor whatever else is set. */
    for (int r = 0; r < 16; r++) {
        uint64_t k = 0;
        for (int b = 0; b < 4; b++)
            if (r & (1 << b))
                k ^= z_castle[1 << b];
        if (__builtin_popcount(r) != 1)
            z_castle[r] = k;
    }
    for (int sq = 0; sq < 64; sq++)
        castle_mask[sq] = 15;
    castle_mask[4] &= ~(CASTLE_WK | CASTLE_WQ);
    castle_mask[7] &= ~CASTLE_WK;
    castle_mask[0] &= ~CASTLE_WQ;
    castle_mask[60] &= ~(CASTLE_BK | CASTLE_BQ);
    castle_mask[63] &= ~CASTLE_BK;
    castle_mask[56] &= ~CASTLE_BQ;
}

static void init_once(void)
{
    attacks_init();
    zobrist_init();
}

void rules_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

static inline void put_piece(Position *p, int pc, int sq)
{
    p->board[sq] = (uint8_t)pc;
    p->by_type[piece_type(pc)] |= bb_sq(sq);
    p->by_color[piece_color(pc)] |= bb_sq(sq);
    p->psq[piece_color(pc)][0] += psq_table[pc][sq][0];
    p->psq[piece_color(pc)][1] += psq_table[pc][sq][1];
}

static inline void remove_piece(Position *p, int sq)
{
    int pc = p->board[sq];
    p->board[sq] = NO_PIECE;
    p->by_type[piece_type(pc)] &= ~bb_sq(sq);
    p->by_color[piece_color(pc)] &= ~bb_sq(sq);
    p->psq[piece_color(pc)][0] -= psq_table[pc][sq][0];
    p->psq[piece_color(pc)][1] -= psq_table[pc][sq][1];
}

static inline void move_piece(Position *p, int from, int to)
{
    int pc = p->board[from];
    Bitboard ft = bb_sq(from) | bb_sq(to);
    p->board[to] = (uint8_t)pc;
    p->board[from] = NO_PIECE;
    p->by_type[piece_type(pc)] ^= ft;
    p->by_color[piece_color(pc)] ^= ft;
    p->psq[piece_color(pc)][0] += psq_table[pc][to][0] - psq_table[pc][from][0];
    p->psq[piece_color(pc)][1] += psq_table[pc][to][1] - psq_table[pc][from][1];
}

uint64_t pos_compute_key(const Position *p)
{
    uint64_t k = 0;
    for (int sq = 0; sq < 64; sq++)
        if (p->board[sq] != NO_PIECE)
            k ^= z_piece[p->board[sq]][sq];
    k ^= z_castle[pos_castling(p)];
    if (pos_ep(p) != NO_SQ)
        k ^= z_ep[sq_file(pos_ep(p))];
    if (p->side == BLACK)
        k ^= z_side;
    return k;
}

Bitboard pos_attackers(const Position *p, int sq, Bitboard occ)
{
    return (attacks_pawn(BLACK, sq) & pos_pieces(p, WHITE, PAWN)) |
           (attacks_pawn(WHITE, sq) & pos_pieces(p, BLACK, PAWN)) |
           (attacks_knight(sq) & p->by_type[KNIGHT]) |
           (attacks_bishop(sq, occ) & (p->by_type[BISHOP] | p->by_type[QUEEN])) |
           (attacks_rook(sq, occ) & (p->by_type[ROOK] | p->by_type[QUEEN])) |
           (attacks_king(sq) & p->by_type[KING]);
}

bool pos_attacked(const Position *p, int sq, int by)
{
    return (pos_attackers(p, sq, pos_occ(p)) & p->by_color[by]) != 0;
}

Bitboard pos_checkers(const Position *p)
{
    return pos_attackers(p, p->king_sq[p->side], pos_occ(p)) & p->by_color[!p->side];
}

/* ---- FEN ---------------------------------------------------------------- */

static const char piece_chars[] = "PNBRQKpnbrqk";

/* Parses into a scratch position and copies it out only when all is valid. */
int pos_from_fen(Position *out, const char *fen, char *err, size_t errlen)
{
    if (!fen)
        return errmsg(err, errlen, "no FEN given");
    char buf[256];
    if (strlen(fen) >= sizeof buf)
        return errmsg(err, errlen, "FEN too long (%zu characters)", strlen(fen));
    strcpy(buf, fen);
    char *fields[7];
    int nf = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nf == 7)
            break;
        fields[nf++] = t;
    }
    if (nf != 4 && nf != 6)
        return errmsg(err, errlen, "FEN has %s%d fields; expected 6 (or 4 without the move counters)",
                      nf == 7 ? "more than " : "", nf == 7 ? 6 : nf);

    Position *p = malloc(sizeof *p);
    if (!p)
        return errmsg(err, errlen, "out of memory");
    memset(p, 0, sizeof *p);
    for (int sq = 0; sq < 64; sq++)
        p->board[sq] = NO_PIECE;
    int rc = -1;

    /* Piece placement, from rank 8 down. */
    int rank = 7, file = 0;
    for (const char *c = fields[0]; *c; c++) {
        if (*c == '/') {
            if (file != 8) {
                errmsg(err, errlen, "rank %d has %d squares, expected 8", rank + 1, file);
                goto out;
            }
            if (--rank < 0) {
                errmsg(err, errlen, "more than 8 ranks in the piece placement");
                goto out;
            }
            file = 0;
        } else if (*c >= '1' && *c <= '9') {
            file += *c - '0';
            if (file > 8) {
                errmsg(err, errlen, "rank %d has more than 8 squares", rank + 1);
                goto out;
            }
        } else {
            const char *pc = strchr(piece_chars, *c);
            if (!pc || !*c) {
                errmsg(err, errlen, "bad piece letter '%c' in the piece placement", *c);
                goto out;
            }
            if (file >= 8) {
                errmsg(err, errlen, "rank %d has more than 8 squares", rank + 1);
                goto out;
            }
            put_piece(p, (int)(pc - piece_chars), sq_make(file, rank));
            file++;
        }
    }
    if (rank != 0 || file != 8) {
        errmsg(err, errlen, rank != 0 ? "the piece placement has %d ranks, expected 8" : "rank 1 has %d squares, expected 8",
               rank != 0 ? 8 - rank : file);
        goto out;
    }
    for (int c = WHITE; c <= BLACK; c++) {
        int n = bb_count(pos_pieces(p, c, KING));
        if (n != 1) {
            errmsg(err, errlen, "%s has %d kings, expected 1", c == WHITE ? "White" : "Black", n);
            goto out;
        }
        p->king_sq[c] = bb_lsb(pos_pieces(p, c, KING));
    }
    if (p->by_type[PAWN] & 0xFF000000000000FFULL) {
        errmsg(err, errlen, "a pawn stands on the first or eighth rank");
        goto out;
    }

    /* Side to move. */
    if (strcmp(fields[1], "w") && strcmp(fields[1], "b")) {
        errmsg(err, errlen, "side to move is '%s', expected 'w' or 'b'", fields[1]);
        goto out;
    }
    p->side = fields[1][0] == 'w' ? WHITE : BLACK;

    /* Castling rights: each needs its king and rook on their home squares. */
    StateInfo *st = &p->st[0];
    st->castling = 0;
    if (strcmp(fields[2], "-")) {
        for (const char *c = fields[2]; *c; c++) {
            static const char rights[] = "KQkq";
            static const int king_home[4] = {4, 4, 60, 60}, rook_home[4] = {7, 0, 63, 56};
            const char *r = strchr(rights, *c);
            if (!r || !*c) {
                errmsg(err, errlen, "bad castling field '%s'", fields[2]);
                goto out;
            }
            int i = (int)(r - rights), color = i / 2;
            if (st->castling & (1 << i)) {
                errmsg(err, errlen, "castling right '%c' given twice", *c);
                goto out;
            }
            if (p->board[king_home[i]] != piece_make(color, KING) ||
                p->board[rook_home[i]] != piece_make(color, ROOK)) {
                errmsg(err, errlen, "castling right '%c' without the %s on its home square", *c,
                       p->board[king_home[i]] != piece_make(color, KING) ? "king" : "rook");
                goto out;
            }
            st->castling |= (uint8_t)(1 << i);
        }
    }

    /* En passant: only right after a double push by the side not to move. */
    st->ep = NO_SQ;
    if (strcmp(fields[3], "-")) {
        const char *e = fields[3];
        if (strlen(e) != 2 || e[0] < 'a' || e[0] > 'h' || (e[1] != '3' && e[1] != '6')) {
            errmsg(err, errlen, "bad en passant square '%s'", e);
            goto out;
        }
        int ep = sq_make(e[0] - 'a', e[1] - '1');
        int them = !p->side;
        int expect_rank = p->side == WHITE ? 5 : 2;
        int pawn_sq = p->side == WHITE ? ep - 8 : ep + 8;
        int origin = p->side == WHITE ? ep + 8 : ep - 8;
        if (sq_rank(ep) != expect_rank || p->board[pawn_sq] != piece_make(them, PAWN) ||
            p->board[ep] != NO_PIECE || p->board[origin] != NO_PIECE) {
            errmsg(err, errlen, "en passant square %s is impossible: no pawn can have just moved two squares past it", e);
            goto out;
        }
        /* Recorded only when a pawn could capture there, like after a move. */
        if (attacks_pawn(them, ep) & pos_pieces(p, p->side, PAWN))
            st->ep = (uint8_t)ep;
    }

    /* Move counters. */
    long half = 0, full = 1;
    if (nf == 6) {
        char *end;
        half = strtol(fields[4], &end, 10);
        if (*end || half < 0 || half > 10000) {
            errmsg(err, errlen, "bad halfmove clock '%s'", fields[4]);
            goto out;
        }
        full = strtol(fields[5], &end, 10);
        if (*end || full < 0 || full > 100000) {
            errmsg(err, errlen, "bad fullmove number '%s'", fields[5]);
            goto out;
        }
        if (full == 0)
            full = 1;
    }
    st->halfmove = (uint16_t)half;
    st->pliesnull = 0;
    st->move = MOVE_NONE;
    st->moved = NO_PIECE;
    st->captured = NO_PIECE;
    p->fullmove = (int)full;
    p->hist = 0;

    /* The side that just moved cannot have left its king in check. */
    if (pos_attacked(p, p->king_sq[!p->side], p->side)) {
        errmsg(err, errlen, "the side not to move (%s) is in check", p->side == WHITE ? "Black" : "White");
        goto out;
    }
    st->key = pos_compute_key(p);

    /* Copy only the used part of the history. */
    memcpy(out, p, offsetof(Position, st) + sizeof(StateInfo));
    rc = 0;
out:
    free(p);
    return rc;
}

void pos_startpos(Position *p)
{
    rules_init();
    int rc = pos_from_fen(p, START_FEN, NULL, 0);
    (void)rc;
}

void pos_to_fen(const Position *p, char *buf, size_t len)
{
    char tmp[128];
    int n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            int pc = p->board[sq_make(file, rank)];
            if (pc == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                tmp[n++] = (char)('0' + empty);
            empty = 0;
            tmp[n++] = piece_chars[pc];
        }
        if (empty)
            tmp[n++] = (char)('0' + empty);
        if (rank)
            tmp[n++] = '/';
    }
    tmp[n++] = ' ';
    tmp[n++] = p->side == WHITE ? 'w' : 'b';
    tmp[n++] = ' ';
    int cr = pos_castling(p);
    if (!cr)
        tmp[n++] = '-';
    for (int i = 0; i < 4; i++)
        if (cr & (1 << i))
            tmp[n++] = "KQkq"[i];
    tmp[n++] = ' ';
    if (pos_ep(p) == NO_SQ) {
        tmp[n++] = '-';
    } else {
        tmp[n++] = (char)('a' + sq_file(pos_ep(p)));
        tmp[n++] = (char)('1' + sq_rank(pos_ep(p)));
    }
    snprintf(tmp + n, sizeof tmp - (size_t)n, " %d %d", pos_halfmove(p), p->fullmove);
    snprintf(buf, len, "%s", tmp);
}

/* ---- make / unmake ------------------------------------------------------ */

void pos_make(Position *p, Move m)
{
    const StateInfo *prev = &p->st[p->hist];
    StateInfo *st = &p->st[p->hist + 1];
    int us = p->side, them = !us;
    int from = move_from(m), to = move_to(m), flag = move_flag(m);
    int pc = p->board[from];
    uint64_t key = prev->key ^ z_side;

    if (prev->ep != NO_SQ)
        key ^= z_ep[sq_file(prev->ep)];
    st->ep = NO_SQ;
    st->halfmove = (uint16_t)(prev->halfmove + 1);
    st->pliesnull = (uint16_t)(prev->pliesnull + 1);
    st->move = m;
    st->moved = (uint8_t)pc;
    st->captured = NO_PIECE;

    if (flag & MF_CAPTURE) {
        int capsq = flag == MF_EP ? (to ^ 8) : to;
        int cap = p->board[capsq];
        st->captured = (uint8_t)cap;
        key ^= z_piece[cap][capsq];
        remove_piece(p, capsq);
        st->halfmove = 0;
    }
    key ^= z_piece[pc][from] ^ z_piece[pc][to];
    move_piece(p, from, to);

    if (piece_type(pc) == PAWN) {
        st->halfmove = 0;
        if (flag == MF_DOUBLE) {
            int ep = to ^ 8;
            if (attacks_pawn(us, ep) & pos_pieces(p, them, PAWN)) {
                st->ep = (uint8_t)ep;
                key ^= z_ep[sq_file(ep)];
            }
        } else if (flag & MF_PROMO) {
            int promo = piece_make(us, move_promo_type(m));
            remove_piece(p, to);
            put_piece(p, promo, to);
            key ^= z_piece[pc][to] ^ z_piece[promo][to];
        }
    } else if (piece_type(pc) == KING) {
        p->king_sq[us] = to;
        if (flag == MF_CASTLE_K || flag == MF_CASTLE_Q) {
            int rfrom = flag == MF_CASTLE_K ? from + 3 : from - 4;
            int rto = flag == MF_CASTLE_K ? from + 1 : from - 1;
            int rook = p->board[rfrom];
            key ^= z_piece[rook][rfrom] ^ z_piece[rook][rto];
            move_piece(p, rfrom, rto);
        }
    }

    st->castling = prev->castling & castle_mask[from] & castle_mask[to];
    key ^= z_castle[prev->castling] ^ z_castle[st->castling];
    st->key = key;
    if (us == BLACK)
        p->fullmove++;
    p->side = them;
    p->hist++;
}

void pos_unmake(Position *p)
{
    const StateInfo *st = &p->st[p->hist];
    Move m = st->move;
    int from = move_from(m), to = move_to(m), flag = move_flag(m);
    p->side = !p->side;
    int us = p->side;
    if (us == BLACK)
        p->fullmove--;

    if (flag & MF_PROMO) {
        remove_piece(p, to);
        put_piece(p, piece_make(us, PAWN), to);
    }
    move_piece(p, to, from);
    if (piece_type(p->board[from]) == KING) {
        p->king_sq[us] = from;
        if (flag == MF_CASTLE_K || flag == MF_CASTLE_Q) {
            int rfrom = flag == MF_CASTLE_K ? from + 3 : from - 4;
            int rto = flag == MF_CASTLE_K ? from + 1 : from - 1;
            move_piece(p, rto, rfrom);
        }
    }
    if (st->captured != NO_PIECE)
        put_piece(p, st->captured, flag == MF_EP ? (to ^ 8) : to);
    p->hist--;
}

void pos_make_null(Position *p)
{
    const StateInfo *prev = &p->st[p->hist];
    StateInfo *st = &p->st[p->hist + 1];
    uint64_t key = prev->key ^ z_side;
    if (prev->ep != NO_SQ)
        key ^= z_ep[sq_file(prev->ep)];
    st->key = key;
    st->ep = NO_SQ;
    st->castling = prev->castling;
    st->halfmove = (uint16_t)(prev->halfmove + 1);
    st->pliesnull = 0;
    st->move = MOVE_NULL;
    st->moved = NO_PIECE;
    st->captured = NO_PIECE;
    p->side = !p->side;
    p->hist++;
}

void pos_unmake_null(Position *p)
{
    p->side = !p->side;
    p->hist--;
}

void pos_trim_history(Position *p)
{
    const StateInfo *cur = &p->st[p->hist];
    int keep = cur->halfmove < cur->pliesnull ? cur->halfmove : cur->pliesnull;
    keep = keep < HISTORY_MIN_KEEP ? HISTORY_MIN_KEEP : keep > HISTORY_MAX_KEEP ? HISTORY_MAX_KEEP : keep;
    if (keep < p->hist) {
        memmove(&p->st[0], &p->st[p->hist - keep], (size_t)(keep + 1) * sizeof p->st[0]);
        p->hist = keep;
    }
    for (int i = 0; i <= p->hist; i++) {
        StateInfo *st = &p->st[i];
        if (st->halfmove > HISTORY_CLOCK_CAP)
            st->halfmove = HISTORY_CLOCK_CAP;
        if (st->pliesnull > HISTORY_CLOCK_CAP)
            st->pliesnull = HISTORY_CLOCK_CAP;
    }
}

/* ---- draw rules --------------------------------------------------------- */

static int repetition_window(const Position *p)
{
    const StateInfo *st = &p->st[p->hist];
    int lim = st->halfmove < st->pliesnull ? st->halfmove : st->pliesnull;
    return lim < p->hist ? lim : p->hist;
}

int pos_repetitions(const Position *p)
{
    uint64_t key = pos_key(p);
    int n = 0, lim = repetition_window(p);
    for (int i = 4; i <= lim; i += 2)
        n += p->st[p->hist - i].key == key;
    return n;
}

bool pos_repeated_within(const Position *p, int plies)
{
    uint64_t key = pos_key(p);
    int lim = repetition_window(p);
    if (plies < lim)
        lim = plies;
    for (int i = 4; i <= lim; i += 2)
        if (p->st[p->hist - i].key == key)
            return true;
    return false;
}

bool pos_insufficient_material(const Position *p)
{
    if (p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN])
        return false;
    Bitboard minors = p->by_type[KNIGHT] | p->by_type[BISHOP];
    if (bb_count(minors) <= 1)
        return true;
    /* Only bishops, all on squares of one colour: no mate is possible. */
    const Bitboard dark = 0xAA55AA55AA55AA55ULL;
    if (p->by_type[KNIGHT])
        return false;
    return (p->by_type[BISHOP] & dark) == 0 || (p->by_type[BISHOP] & ~dark) == 0;
}
