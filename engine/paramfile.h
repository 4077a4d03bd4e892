/* Value files: parameter values as JSON, validated as a whole.
 *
 * A value file is an object whose "params" member maps parameter names to
 * integers, with optional provenance next to it:
 *
 *     { "source": "runs/lmr", "games": 40000, "date": "2024-05-01",
 *       "params": { "LmrQuietBase": 121, "LmpBase": 180 } }
 *
 * The spec format (what `bin/ratchet params` prints, params/engine.json) is
 * accepted as a value file too: an array of objects with "name" and "value"
 * ("default" when "value" is absent), bare or as the "params" member of an
 * object.  Other members of those objects (min, max, c_end, desc, ...) are
 * ignored: the engine's own ranges are the ones checked.
 *
 * A file may name a subset of the parameters: the others take their
 * defaults from the list (not whatever was set before), so a file means the
 * same engine whether it is loaded at run time, in a UCI session or baked in
 * at build time.  Names match case-insensitively, as UCI option names do.
 *
 * Provenance members, when present, must have the right type: "source",
 * "date", "comment", "engine" are strings, "games" and "iterations"
 * non-negative integers.  Other top-level members are ignored, except one
 * named like a parameter (it belongs inside "params").
 *
 * Every problem is reported as "FILE: problem" ("FILE:LINE:COL: ..." for
 * malformed JSON): a missing or empty file, a member of the wrong type, a
 * non-integer value (1.5, "3", true), a value outside [min, max], an unknown
 * name (with the nearest known name when one is close), a name given twice.
 * The whole file is checked before anything is used; when there are several
 * problems the message gives the first and the count of the others. */
#ifndef RATCHET_PARAMFILE_H
#define RATCHET_PARAMFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "params.h"

/* Length of a value file's tag (8 hex digits) plus the terminating NUL. */
#define PARAMFILE_TAG_LEN 9

/* Checks the value file text[0..len) and fills values[PARAM_COUNT]: the
 * file's values for the parameters it names, the defaults for the others;
 * given[i] (when given is not NULL) tells which came from the file.  fname
 * names the text in messages.  Returns the number of parameters the file
 * names (>= 0), or -1 with the message in err and values/given untouched. */
int paramfile_parse(const char *text, size_t len, const char *fname,
                    int values[PARAM_COUNT], bool given[PARAM_COUNT], char *err,
                    size_t errlen);

/* Reads the whole file into a NUL-terminated malloc'd buffer (*len bytes
 * without the NUL).  Returns 0, or -1 with "PATH: cannot open: ..." in err. */
int paramfile_read(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* paramfile_read + paramfile_parse. */
int paramfile_load(const char *path, int values[PARAM_COUNT], bool given[PARAM_COUNT],
                   char *err, size_t errlen);

/* Loads the file and sets every parameter from it at once (params_set_all):
 * on any error nothing changes and err holds the message.  Returns the
 * number of parameters the file names, or -1. */
int paramfile_apply(const char *path, char *err, size_t errlen);

/* The tag a baked build reports for a value file: the first 8 hex digits
 * of the 64-bit FNV-1a hash of its bytes. */
void paramfile_tag(const char *text, size_t len, char tag[PARAMFILE_TAG_LEN]);

/* The known parameter nearest to name by edit distance (case-insensitive),
 * or NULL when none is close enough to be a plausible typo. */
const char *paramfile_nearest(const char *name);

#endif
