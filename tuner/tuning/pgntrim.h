/* A -pgnout file cut, when a stopped match continues, to the games its
 * record counts: the file's games split (pgn_games), and the games of one
 * verify or ablation (their Event begins with its own mark) kept only for
 * the pairs it counts, the last two games of each pair's Round, so that a
 * pair played again after a kill, or cut short, is in the file once
 * (pgn_trim_pairs).  The games of anything else in the file stay. */
#ifndef RATCHET_PGNTRIM_H
#define RATCHET_PGNTRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t start, end;            /* the game's bytes in the text */
} PgnSpan;

/* The games of text[0..n): each starts with [Event at the start of the
 * text or after a blank line.  *out is malloc'd (NULL and 0 games for an
 * empty text); -1 when out of memory. */
int pgn_games(const char *text, size_t n, PgnSpan **out, size_t *ngames);

/* The value of tag NAME in the header of game text[0..n) into buf
 * (unescaped as far as \" and \\), or false when the header has none. */
bool pgn_header_tag(const char *text, size_t n, const char *name, char *buf, size_t len);

/* The games of the file pgn whose Event begins with `mark`: a game whose
 * Round R is a whole number is kept when done(ctx, R - 1) and it is one of
 * the last two games of Round R in the file; the rest of them go, and so
 * do those with another Round.  The file is rewritten atomically when a
 * game goes (its other games as they were); *dropped counts them.  A
 * missing file, or one that is not a regular file (a symbolic link, a
 * device such as /dev/null): nothing to do.  0, or -1 with err. */
int pgn_trim_pairs(const char *pgn, const char *mark, bool (*done)(void *ctx, uint64_t pair), void *ctx,
                   uint64_t *dropped, char *err, size_t errlen);

#endif
