/* Counts read from JSON: the check that the state files, the run's state
 * and verify's file share. */
#ifndef RATCHET_JSONGET_H
#define RATCHET_JSONGET_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* d as a count: true, with *out, when d is a non-negative integer of at
 * most 2^53 (every such integer is exact in the double a JSON number is
 * read into); false otherwise (NaN included). */
bool json_u64_of(double d, uint64_t *out);
/* The number o[key] as a count (json_u64_of); false when it is missing,
 * not a number or not a count. */
bool json_get_u64(const cJSON *o, const char *key, uint64_t *out);

#endif
