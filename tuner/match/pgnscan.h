/* Reading PGN: a scanner that splits a file's text into games and reports
 * each game's tag pairs, its moves (SAN as written) and its end, with line
 * numbers.  It understands tags, {comments}, ;comments, %escape lines,
 * (variations, skipped), NAGs ($n, !, ?), move numbers ("12.", "12...",
 * glued to the move or not) and results, and warns about what it cannot
 * read (a malformed tag, an unclosed comment or variation, a stray
 * character, a game without a result before the next game's tags) and
 * goes on.  Used by the opening books (book.c) and the evaluation tuner
 * (tools/texel/). */
#ifndef RATCHET_PGNSCAN_H
#define RATCHET_PGNSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "board.h"

/* Callbacks; any may be NULL.  `game` is the 1-based number of the game
 * the event belongs to. */
typedef struct {
    void *ctx;
    void (*tag)(void *ctx, int game, const char *name, const char *value, long line);
    void (*move)(void *ctx, int game, const char *san, size_t len, long line);
    /* The game ended: with its result token ("1-0", "0-1", "1/2-1/2", "*"),
     * or result NULL when the next game's tags or the end of the text came
     * first.  Called once for every game that had a tag or a move. */
    void (*end)(void *ctx, int game, const char *result, long line);
    /* Something was skipped; msg starts with "game N: ". */
    void (*warn)(void *ctx, long line, const char *msg);
} PgnScanEvents;

/* Scans buf[0..n) (a UTF-8 byte-order mark is skipped).  Returns the
 * number of games. */
long pgn_scan(const char *buf, size_t n, const PgnScanEvents *ev);

/* Reads a whole file into memory, NUL-terminated (read_stream, readfile.h,
 * without a size limit); NULL on a read error or when out of memory (errno
 * tells which). */
char *pgn_read_file(FILE *fp, size_t *len);

/* One game as the PGN readers that replay games collect it (the evaluation
 * tuner's dataset, bin/ratchet-label): the tags a replay needs and the
 * moves as written, with their lines.  Feed it from the scanner's
 * callbacks: pgn_game_begin first in each (it starts game `number` unless
 * that is the one being read), then pgn_game_tag / pgn_game_move. */
typedef struct {
    char san[16]; /* a longer token is kept cut, with '?' first: never legal */
    long line;
} PgnPly;

typedef struct {
    int number;  /* the game's number (0: none yet) and its first line */
    long line;
    char result[8], fen[128], termination[32];
    bool has_fen, setup0; /* a FEN tag; a SetUp "0" tag (then the FEN is ignored) */
    PgnPly *plies;
    size_t nply, cap;
} PgnGame;

void pgn_game_begin(PgnGame *g, int number, long line);
void pgn_game_tag(PgnGame *g, const char *name, const char *value);
/* false when out of memory (the move is then not kept). */
bool pgn_game_move(PgnGame *g, const char *san, size_t len, long line);
/* The scanner's tag and move events into g, for the readers' callbacks:
 * pgn_game_begin, then pgn_game_tag or pgn_game_move (false when out of
 * memory). */
void pgn_game_on_tag(PgnGame *g, int number, const char *name, const char *value, long line);
bool pgn_game_on_move(PgnGame *g, int number, const char *san, size_t len, long line);
void pgn_game_free(PgnGame *g);
/* The game's start: its FEN tag (unless SetUp is "0"), else the standard
 * start.  0, or -1 with pos_from_fen's reason in err for a bad FEN. */
int pgn_game_start(const PgnGame *g, Position *p, char *err, size_t errlen);

#endif
