/* The evaluation tuner's positions: read from PGN games (labelled with the
 * game's result) or from an EPD with results, filtered to quiet positions,
 * and stored as the evaluation's features (eval_trace.h). */
#ifndef RATCHET_TEXEL_DATASET_H
#define RATCHET_TEXEL_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "eval_trace.h"

typedef struct {
    uint32_t first;   /* its features: idx[first .. first + nf), val[...] */
    uint16_t nf;
    uint8_t phase;    /* 0..EVAL_PHASE_MAX */
    uint8_t eg_scale; /* 64ths of the endgame score kept (eval_trace.h) */
    uint8_t mg_scale; /* 64ths of the midgame score kept (eval_trace.h) */
    int16_t nonlinear_mg; /* White's minus Black's */
    float label;      /* the game's result for White: 1, 0.5, 0 */
    uint32_t game;    /* 0-based over everything read; held out when game % 10 == 9 */
} TexelPos;

typedef struct {
    TexelPos *pos;
    size_t n, cap;
    uint16_t *idx;    /* EW_ index of the weight */
    int16_t *val;     /* count[WHITE] - count[BLACK], never 0 */
    size_t nnz, nnz_cap;
    uint32_t games;   /* games (or EPD lines) numbered so far */
} Dataset;

typedef struct {
    int skip_plies;      /* positions before this ply of a game are not used */
    int adj_tail;        /* the last plies of an adjudicated game are not used */
    bool all_positions;  /* keep positions that are not quiet too */
    long max_games;      /* stop after this many games in all (0: no limit) */
    int max_messages;    /* messages about bad games printed per file */
} ExtractOptions;

#define EXTRACT_DEFAULTS {.skip_plies = 8, .adj_tail = 8, .all_positions = false, .max_games = 0, .max_messages = 20}

typedef struct {
    long games;          /* games read */
    long used;           /* ... that gave positions */
    long no_result;      /* skipped: no result, "*" or a Result tag that contradicts the movetext's */
    long bad;            /* skipped: illegal or unreadable move, bad FEN */
    long positions;      /* positions looked at */
    long opening;        /* ... before skip_plies */
    long adjudicated;    /* ... in the tail of an adjudicated game */
    long in_check;       /* ... in check or without legal moves */
    long not_quiet;      /* ... where the quiescence search changes the evaluation */
    long kept;
} ExtractStats;

/* The dataset's held-out slice: every 10th game. */
static inline bool texel_held_out(const TexelPos *t) { return t->game % 10 == 9; }

void dataset_free(Dataset *d);

/* Adds p, labelled `label` (White's result), as part of game `game`.  0, or
 * -1 when out of memory. */
int dataset_add(Dataset *d, const Position *p, double label, uint32_t game);

/* Adds the positions of the PGN file's games.  A game without a result, or
 * with an illegal move, is skipped and counted, with a message on stderr
 * "FILE:LINE: game N: ...".  -1 (err filled, naming the file) if the file
 * cannot be read or memory runs out; stats accumulate. */
int dataset_add_pgn(Dataset *d, const char *path, const ExtractOptions *o, ExtractStats *st, char *err,
                    size_t errlen);

/* Adds the positions of an EPD file with results: the four FEN fields and
 * a result anywhere after them, as a token 1-0, 0-1, 1/2-1/2 (quoted or
 * not, e.g. c9 "1-0";) or [1.0], [0.5], [0.0].  A line without a result or
 * with a bad FEN is skipped with a message "FILE:LINE: ...".  Each line is
 * its own "game" for the held-out slice.  The quiet filter applies unless
 * o->all_positions. */
int dataset_add_epd(Dataset *d, const char *path, const ExtractOptions *o, ExtractStats *st, char *err,
                    size_t errlen);

#endif
