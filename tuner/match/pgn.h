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
    const char *limits;        /* the Limits tag (tc_format_limits), none when NULL or "" */
    time_t date;               /* when the game started */
    bool comments;             /* {+0.31/12 0.105s} after each move */
} PgnTags;

/* A growable text buffer, reused from game to game. */
typedef struct { char *s; size_t len, cap; } PgnText;
void pgn_text_free(PgnText *t);

/* Append one game to out.  scratch is a Position the function may use.
 * 0, or -1 when out of memory. */
int pgn_format(const PgnTags *tags, const GameRecord *r, Position *scratch, PgnText *out);

/* A PGN file shared by worker threads: games are appended whole.  A write
 * that fails (a full disk, a file size limit) cuts the file back to its last
 * whole game, says so on stderr, and the file takes no more games.  A file
 * that ends in a partial game when it is opened (a process killed during a
 * write) is cut back to its last whole game first, with a message. */
typedef struct PgnFile PgnFile;
PgnFile *pgn_open(const char *path, char *err, size_t errlen);
int pgn_append(PgnFile *f, const PgnText *t);   /* 0 or -1 (this or an earlier write failed) */
bool pgn_failed(PgnFile *f);                     /* a write failed */
void pgn_close(PgnFile *f);

/* The length of the longest prefix of text[0..n) that ends in a whole game:
 * n when text ends in a result token (white space aside) or is empty; else
 * where its last game starts (a line starting with '[' after a result;
 * offset 0 counts only when at_start says text is the file's beginning);
 * (size_t)-1 when no such place is in text. */
size_t pgn_whole_prefix(const char *text, size_t n, bool at_start);

#endif
