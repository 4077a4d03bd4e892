/* JSON read from files: the parse that names the line and column of an
 * error, and the counts that the state files, the run's state and
 * verify's file share. */
#ifndef RATCHET_JSONGET_H
#define RATCHET_JSONGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* d as a count: true, with *out, when d is a non-negative integer of at
 * most 2^53 (every such integer is exact in the double a JSON number is
 * read into); false otherwise (NaN included). */
bool json_u64_of(double d, uint64_t *out);
/* The item v as a count (json_u64_of): true, with *out unless out is
 * NULL, when v is a number that is a count; false when v is NULL, not a
 * number or not a count (*out unchanged). */
bool json_count(const cJSON *v, uint64_t *out);
/* The number o[key] as a count (json_count); false when it is missing,
 * not a number or not a count. */
bool json_get_u64(const cJSON *o, const char *key, uint64_t *out);
/* The same, or -1 with "WHATKEY is missing" or "WHATKEY is not a count (a
 * non-negative integer)" in err (what: "state.json: run.", say): the one
 * way the state readers name it. */
int json_get_count(const cJSON *o, const char *key, uint64_t *out, const char *what, char *err, size_t errlen);
/* The array o[key] of exactly n counts (json_count) into out; false when
 * it is missing, not an array of n or an element is not a count. */
bool json_get_counts(const cJSON *o, const char *key, uint64_t *out, int n);

/* For the texts shown from a file already checked (or shown as they are):
 * o[key] as a number, NAN when it is missing or not one; o[key] as a
 * string, "?" when it is missing or not one. */
double json_num_shown(const cJSON *o, const char *key);
const char *json_text_shown(const cJSON *o, const char *key);
/* o[key] as a string, NULL when it is missing or not one (the records of
 * the state files keep "not there" apart); and such a string as shown:
 * "?" for NULL. */
const char *json_get_text(const cJSON *o, const char *key);
const char *json_shown(const char *s);

/* Parses text read from the file `name` (named in messages): the whole
 * text must be one JSON value.  NULL, with "NAME:LINE:COL: malformed JSON"
 * in err, when it is not. */
cJSON *json_parse_text(const char *text, const char *name, char *err, size_t errlen);

#endif
