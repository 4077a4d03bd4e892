/* Parameter spec files: what to tune, from where, within which bounds.
 *
 * Two formats, told apart by the first non-blank character:
 *
 *   Ratchet spec JSON (`bin/ratchet params`, params/engine.json): either an
 *   array of parameter objects or an object with a "params" array.  Each
 *   object has "name" (string), "value" (integer; "default" is accepted when
 *   "value" is absent), "min", "max" (integers), "c_end", "r_end" (numbers
 *   > 0) and optionally "type": "int".  Other keys are ignored.
 *
 *   OpenBench / fishtest input lines, one parameter per line:
 *       name, int, value, min, max, c_end, r_end
 *       name, value, min, max, c_end, r_end
 *   Blank lines and lines starting with '#' are skipped.
 *
 * Values are integers (the engine's UCI spin options): a "float" type or a
 * fractional value/min/max is refused.  Every problem is reported with the
 * file name and the line (text format) or parameter index and field (JSON),
 * e.g. "params/x.txt:3: min 10 > max 5".
 */
#ifndef RATCHET_SPEC_H
#define RATCHET_SPEC_H

#include <stddef.h>

#include "spsa.h"

/* Parses spec text; `fname` is only used in messages.  On success returns 0
 * and a malloc'd array of *n parameters (theta = start = value, c/a/avg
 * zero) in file order; free it with free().  On error returns -1, *out is
 * NULL and err holds the message. */
int spec_parse(const char *text, const char *fname, SpsaParam **out, size_t *n, char *err,
               size_t errlen);

/* Reads the file and parses it as above. */
int spec_load(const char *path, SpsaParam **out, size_t *n, char *err, size_t errlen);

#endif
