/* PGN export of refereed games: the seven-tag roster plus FEN/SetUp,
 * TimeControl, PlyCount and Termination, the moves in SAN with the engines'
 * score/depth and time as comments, and the reason the game ended. */
#ifndef RATCHET_PGN_H
#define RATCHET_PGN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "board.h"
#include "game.h"

typedef struct {
    const char *event, *site, *round, *white, *black;
    const char *timecontrol;   /* PGN form, see tc_format_pgn */
    time_t date;               /* when the game started */
    bool comments;             /* {+0.31/12 0.105s} after each move */
} PgnTags;

/* A growable text buffer, reused from game to game. */
typedef struct { char *s; size_t len, cap; } PgnText;
void pgn_text_free(PgnText *t);

/* Append one game to out.  scratch is a Position the function may use.
 * 0, or -1 when out of memory. */
int pgn_format(const PgnTags *tags, const GameRecord *r, Position *scratch, PgnText *out);

/* A PGN file shared by worker threads: games are appended whole. */
typedef struct PgnFile PgnFile;
PgnFile *pgn_open(const char *path, char *err, size_t errlen);
int pgn_append(PgnFile *f, const PgnText *t);   /* 0 or -1 (write error, reported once on stderr) */
void pgn_close(PgnFile *f);

#endif
