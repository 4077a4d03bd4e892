/* Opening books: the start positions of a match, read from EPD or PGN, and
 * the order in which a match uses them.
 *
 * EPD: one position a line: the four FEN fields, then optionally the two
 * move counters, then optionally EPD operations (`c0 "x"; id "y";`,
 * `; D1 20`, `hmvc 3; fmvn 12;`).  Blank lines and lines starting with '#'
 * are ignored.
 *
 * PGN: one position a game: the game's start ([FEN] tag when present, unless
 * [SetUp "0"]; the standard start otherwise) after its first `plies` plies of
 * SAN movetext (0 = the whole game).  Tags, {comments}, ;comments, %escape
 * lines, (variations), NAGs ($n, !, ?), move numbers and results are
 * understood.  An illegal or unreadable move ends the game's moves there:
 * the position before it is kept, unless it was the game's first move, in
 * which case the game is skipped.
 *
 * Every position is checked with the rules library and stored as the full
 * FEN it prints (pos_to_fen), so an EPD and a PGN of the same openings give
 * identical strings.  A position with no legal moves is of no use as an
 * opening and is skipped.  Anything skipped gets a warning on stderr
 * "FILE:LINE: reason".  Duplicates are kept as given. */
#ifndef RATCHET_BOOK_H
#define RATCHET_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Book Book;

/* format "epd" or "pgn" (NULL or "": from the file name, ".pgn" -> pgn,
 * anything else -> epd); plies: for PGN, moves to take from each game
 * (0 = all).  Returns NULL with err filled (naming the file) if the file is
 * missing or unreadable, has no usable position, or the arguments are bad. */
Book *book_load(const char *path, const char *format, int plies, char *err, size_t errlen);
size_t book_size(const Book *b);
const char *book_fen(const Book *b, size_t i);       /* the opening position as a full FEN */
/* The order in which a match uses the openings: random (a permutation drawn
 * with GSL's MT19937 seeded by seed; the same seed gives the same order) or
 * sequential (file order), skipping the first `start` of that order.  The
 * default after loading is sequential from 0. */
void book_set_order(Book *b, bool random, uint64_t seed, size_t start);
/* Index k (any k >= 0, wraps around) -> opening index.  Thread-safe (reads only). */
size_t book_pick(const Book *b, uint64_t k);
/* Keep only the openings book_pick gives for first .. first+count-1: from
 * then on book_pick(k) cycles through those, in that order (book_size still
 * counts every position).  0, or -1 (count 0, an empty book, out of memory). */
int book_keep(Book *b, uint64_t first, size_t count);
/* After book_keep: the kept openings in an order drawn with GSL's MT19937
 * seeded by seed (the same seed, the same order).  0, or -1 (no kept
 * openings, out of memory). */
int book_shuffle_picks(Book *b, uint64_t seed);
/* How many openings book_pick cycles through: book_size, or the count kept. */
size_t book_picks(const Book *b);
void book_free(Book *b);

#endif
