/* The rules of chess: position, legal move generation, make/unmake, FEN,
 * Zobrist keys, repetition and fifty-move bookkeeping, on the squares,
 * bitboards and attack tables of attacks.h.  Linked by the engine, the
 * tuner's referee and the tools. */
#ifndef RATCHET_BOARD_H
#define RATCHET_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attacks.h"

/* A piece is type + 6 * colour; NO_PIECE marks an empty square. */
enum { NO_PIECE = 12 };
enum { NO_SQ = 64 };
enum { CASTLE_WK = 1, CASTLE_WQ = 2, CASTLE_BK = 4, CASTLE_BQ = 8 };

static inline int piece_make(int color, int type) { return type + 6 * color; }
static inline int piece_type(int piece) { return piece % 6; }
static inline int piece_color(int piece) { return piece / 6; }

/* A move in 16 bits: from (6), to (6), flag (4). */
typedef uint16_t Move;
enum {
    MF_QUIET = 0, MF_DOUBLE = 1, MF_CASTLE_K = 2, MF_CASTLE_Q = 3,
    MF_CAPTURE = 4, MF_EP = 5,
    MF_PROMO = 8,          /* 8..11: promotion to N, B, R, Q */
    MF_PROMO_CAPTURE = 12  /* 12..15: capturing promotion to N, B, R, Q */
};
#define MOVE_NONE ((Move)0)
#define MOVE_NULL ((Move)65) /* from b1 to b1: never a real move */
static inline Move move_make(int from, int to, int flag) { return (Move)(from | (to << 6) | (flag << 12)); }
static inline int move_from(Move m) { return m & 63; }
static inline int move_to(Move m) { return (m >> 6) & 63; }
static inline int move_flag(Move m) { return m >> 12; }
static inline bool move_is_capture(Move m) { return (move_flag(m) & MF_CAPTURE) != 0; }
static inline bool move_is_promo(Move m) { return (move_flag(m) & MF_PROMO) != 0; }
static inline bool move_is_noisy(Move m) { return (move_flag(m) & (MF_CAPTURE | MF_PROMO)) != 0; }
static inline bool move_is_castle(Move m) { int f = move_flag(m); return f == MF_CASTLE_K || f == MF_CASTLE_Q; }
/* The promotion piece type (KNIGHT..QUEEN), or NO_TYPE. */
static inline int move_promo_type(Move m) { return move_is_promo(m) ? KNIGHT + (move_flag(m) & 3) : NO_TYPE; }

#define MAX_MOVES 256
typedef struct {
    Move moves[MAX_MOVES];
    int count;
} MoveList;

/* What make_move must remember to undo a move. */
typedef struct {
    uint64_t key;
    uint8_t captured;   /* piece captured by the move that led here, or NO_PIECE */
    uint8_t castling;
    uint8_t ep;
    uint16_t halfmove;  /* plies since the last capture or pawn move */
    uint16_t pliesnull; /* plies since the last null move (repetitions never span one) */
    Move move;          /* the move that led to this state (MOVE_NONE at the root) */
    uint8_t moved;      /* the piece that made that move */
} StateInfo;

/* Game plus search history: long games and a deep search both fit. */
#define MAX_HISTORY 2304

typedef struct {
    Bitboard by_type[6];
    Bitboard by_color[2];
    uint8_t board[64];  /* piece on each square, or NO_PIECE */
    int side;           /* side to move */
    int fullmove;
    int hist;           /* index of the current state in st[] */
    int king_sq[2];
    int psq[2][2];      /* [colour][midgame, endgame]: the sum of psq_table over its pieces */
    StateInfo st[MAX_HISTORY];
} Position;

/* Material plus placement of a piece on a square ([piece][square][midgame,
 * endgame]): the position keeps Position.psq, the sums over its pieces, up
 * to date from it as pieces are put, moved and removed.  The rules only
 * hold the table; a program that evaluates fills it at start-up, after
 * rules_init() and before it sets up its first position (engine_init(),
 * engine.h).  All zero until then, and in programs that never evaluate. */
extern int psq_table[12][64][2];

/* Sets up the attack tables (attacks_init) and then the Zobrist keys and
 * castling masks; cheap and safe to call again, from any thread. */
void rules_init(void);

/* Accessors. */
static inline uint64_t pos_key(const Position *p) { return p->st[p->hist].key; }

/* Both sides' pawns mixed into 64 well-spread bits: the index of the pawn
 * tables (the eval's pawn cache, the correction history). */
static inline uint64_t pos_pawn_hash(const Position *p)
{
    uint64_t k = p->by_type[PAWN] & p->by_color[WHITE];
    k *= 0x9E3779B97F4A7C15ULL;
    k ^= ((p->by_type[PAWN] & p->by_color[BLACK]) + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL;
    k ^= k >> 29;
    return k * 0x94D049BB133111EBULL;
}
static inline int pos_ep(const Position *p) { return p->st[p->hist].ep; }
static inline int pos_castling(const Position *p) { return p->st[p->hist].castling; }
static inline int pos_halfmove(const Position *p) { return p->st[p->hist].halfmove; }
static inline Bitboard pos_occ(const Position *p) { return p->by_color[WHITE] | p->by_color[BLACK]; }
static inline Bitboard pos_pieces(const Position *p, int color, int type) { return p->by_color[color] & p->by_type[type]; }
static inline int pos_piece_on(const Position *p, int sq) { return p->board[sq]; }
/* The last move played (MOVE_NONE at the root, MOVE_NULL after a null move)
 * and the piece that moved; `back` = 0 for the last, 1 for the one before. */
static inline Move pos_last_move(const Position *p, int back) { return p->hist >= back ? p->st[p->hist - back].move : MOVE_NONE; }
static inline int pos_last_moved(const Position *p, int back) { return p->hist >= back ? p->st[p->hist - back].moved : NO_PIECE; }
static inline int pos_last_captured(const Position *p, int back) { return p->hist >= back ? p->st[p->hist - back].captured : NO_PIECE; }

/* FEN.  pos_from_fen returns 0 and sets *p, or returns -1 with a message in
 * err (if given) and leaves *p untouched.  The history starts afresh. */
int pos_from_fen(Position *p, const char *fen, char *err, size_t errlen);
void pos_startpos(Position *p);
void pos_to_fen(const Position *p, char *buf, size_t len);
#define START_FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

/* Attacks and checks. */
Bitboard pos_attackers(const Position *p, int sq, Bitboard occ); /* both colours */
bool pos_attacked(const Position *p, int sq, int by_color);
Bitboard pos_checkers(const Position *p);
static inline bool pos_in_check(const Position *p) { return pos_checkers(p) != 0; }
/* Does the legal move m give check? */
bool pos_gives_check(const Position *p, Move m);
/* What pos_gives_check_fast needs about the enemy king, computed once per
 * position: the squares from which each piece type checks it, and our
 * pieces whose move off the line to it discovers a check by our slider. */
typedef struct {
    Bitboard squares[6];
    Bitboard discover;
    int ksq;
} CheckInfo;
void check_info_init(const Position *p, CheckInfo *ci);
/* pos_gives_check with the position's CheckInfo: the same answer. */
bool pos_gives_check_fast(const Position *p, const CheckInfo *ci, Move m);

/* Legal move generation. */
enum { GEN_ALL, GEN_NOISY, GEN_QUIET }; /* NOISY: captures and promotions; QUIET: the rest */
void gen_legal(const Position *p, MoveList *list, int kind);
/* Is m (any 16-bit value, e.g. from a hash table) a legal move here? */
bool pos_is_legal(const Position *p, Move m);

/* Make/unmake.  The caller guarantees that m is legal. */
void pos_make(Position *p, Move m);
void pos_unmake(Position *p);
void pos_make_null(Position *p);
void pos_unmake_null(Position *p);
/* Can one more move be made without overflowing the history? */
static inline bool pos_has_room(const Position *p) { return p->hist + 1 < MAX_HISTORY; }
/* Drops the oldest states of the history, keeping every state the draw
 * rules can still reach (the plies since the last capture, pawn move or
 * null move) and at least the last HISTORY_MIN_KEEP, but at most
 * HISTORY_MAX_KEEP: a longer reach means at least that many plies without
 * a capture or pawn move, a fifty-move draw whatever repeated before.  The
 * position and everything read from the history (repetitions, the last
 * moves) stay the same; the fifty-move clock and the plies since the last
 * null move are capped at HISTORY_CLOCK_CAP, so that they never wrap in a
 * game of any length.  A game longer than MAX_HISTORY plies can be played
 * by trimming when pos_has_room() fails. */
#define HISTORY_MIN_KEEP 4
#define HISTORY_MAX_KEEP 1024
#define HISTORY_CLOCK_CAP 10000
void pos_trim_history(Position *p);

/* The Zobrist key computed from scratch (the incremental one must equal it). */
uint64_t pos_compute_key(const Position *p);

/* Draw rules.  How many times the current position occurred before, looking
 * back only as far as the last irreversible move. */
int pos_repetitions(const Position *p);
/* Did the current position occur before within the last `plies` plies
 * (the engine's search-path check)? */
bool pos_repeated_within(const Position *p, int plies);
bool pos_insufficient_material(const Position *p);
static inline bool pos_fifty(const Position *p) { return pos_halfmove(p) >= 100; }

/* Notation.  move_to_uci writes e.g. "e2e4", "e7e8q", "0000"; buffer >= 6.
 * parse_uci returns the legal move matching the text, or MOVE_NONE. */
void move_to_uci(Move m, char *buf);
Move parse_uci(const Position *p, const char *text);
/* SAN: move_to_san needs a legal m and a buffer of at least 12; it includes
 * '+' or '#'.  parse_san accepts the usual variants (with or without
 * check marks, "0-0", "e8=Q" or "e8Q", surplus disambiguation) and returns
 * MOVE_NONE when the text is not a legal move here. */
void move_to_san(const Position *p, Move m, char *buf);
Move parse_san(const Position *p, const char *text);

/* Perft with bulk counting at the last ply. */
uint64_t perft(Position *p, int depth);

#endif
