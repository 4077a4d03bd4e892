/* CSV as RFC 4180 has it, for the files a run writes (history.csv) and
 * whoever reads them back (status, resume, the report).
 *
 * Writing: a field that contains a comma, a double quote, a line break or
 * a space is enclosed in double quotes, with every double quote doubled:
 *     Skill Level      ->  "Skill Level"
 *     c_k.Skill Level  ->  "c_k.Skill Level"
 *     Hash             ->  Hash            (most fields: written as they are)
 * (RFC 4180 only requires quotes for the first three; a quoted space keeps
 * readers that trim unquoted fields from changing a name.)
 *
 * Reading: one record of a line at a time; quoted and unquoted fields,
 * doubled quotes inside quoted ones.  A record does not span lines (no
 * field the tuner writes holds a line break). */
#ifndef RATCHET_CSV_H
#define RATCHET_CSV_H

#include <stddef.h>
#include <stdio.h>

/* Does s need quotes? */
int csv_needs_quotes(const char *s);
/* Writes s as one field (quoted when needed, no separator).  The number of
 * bytes written, or -1 on a write error. */
int csv_put_field(FILE *f, const char *s);
/* The same, with prefix and s as one field ("c_k." and a name). */
int csv_put_field2(FILE *f, const char *prefix, const char *s);

/* Splits one record (line, without its newline) in place: fields[i]
 * points into line, unquoted and NUL-terminated.  Returns the number of
 * fields (at most max; more fields are an error), or -1 if the record is
 * malformed (a quote inside an unquoted field, text after a closing quote,
 * a quoted field that does not end) or has more than max fields. */
int csv_split(char *line, char **fields, size_t max);

#endif
