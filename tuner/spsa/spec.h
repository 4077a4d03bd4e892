/* Parameter spec files: what to tune, from where, within which bounds.
 *
 * Two formats, told apart by the first non-blank character:
 *
 *   Ratchet spec JSON (`bin/ratchet params`, params/engine.json): either an
 *   array of parameter objects or an object with a "params" array.  Each
 *   object has "name" (string), "value" (integer; "default" is accepted when
 *   "value" is absent), "min", "max" (integers), "c_end", "r_end" (numbers
 *   > 0) and optionally "type": "int" or "float".  Other keys are ignored.
 *
 *   OpenBench / fishtest input lines, one parameter per line:
 *       name, int, value, min, max, c_end, r_end
 *       name, float, value, min, max, c_end, r_end
 *       name, value, min, max, c_end, r_end
 *   Blank lines and lines starting with '#' are skipped.
 *
 * A name is a UCI option name as the engine's `option name ... type` line
 * has it: it may contain spaces ("Skill Level"); runs of white space are
 * one space, and a comma, a double quote, a control character or the words
 * "value" and "type" are refused.  An int parameter has integer value, min
 * and max (a fractional one is refused); a float parameter (OpenBench's
 * `float`) is tuned without rounding.  Every problem is reported with the
 * file name and the line (text format) or parameter index and field (JSON),
 * e.g. "params/engine.json:3: min 10 > max 5".
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
