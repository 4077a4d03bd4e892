/* Error messages into a caller's buffer: the convention every
 * "char *err, size_t errlen" parameter in the project follows. */
#ifndef RATCHET_ERRMSG_H
#define RATCHET_ERRMSG_H

#include <stddef.h>

/* Formats the message into err (truncated to errlen bytes, NUL-terminated);
 * does nothing when err is NULL or errlen is 0.  Always returns -1, so a
 * failing function can end with `return errmsg(err, errlen, ...);`. */
int errmsg(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append formatted text at buf[n] in a buffer of cap bytes, never past it:
 * the new length, which is at most cap - 1 (the text is cut short and
 * terminated when it does not fit; n itself when n >= cap - 1).  The safe
 * form of `n += snprintf(buf + n, cap - n, ...)`, whose n grows by what
 * snprintf wanted to write, so that cap - n wraps and the next call writes
 * past the buffer. */
size_t appendf(char *buf, size_t cap, size_t n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The 1-based line and column of the character at `at` in text (at may be
 * text + strlen(text), just past the end): a newline ends a line, every
 * other byte is one column. */
void text_line_col(const char *text, const char *at, size_t *line, size_t *col);

/* Edit distance (Levenshtein) between two names, ignoring case; names are
 * compared up to their first 63 characters.  For "did you mean" messages. */
int name_distance(const char *a, const char *b);

#endif
