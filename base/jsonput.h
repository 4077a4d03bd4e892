/* JSON objects built member by member, as the state files are written:
 * the first failure (out of memory) sticks, so a writer adds every member
 * and checks once at the end, and every item handed over is owned. */
#ifndef RATCHET_JSONPUT_H
#define RATCHET_JSONPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

typedef struct {
    cJSON *o; /* the object being built */
    bool ok;  /* false from the first failure on */
} JsonPut;

/* A new, empty object (ok false when it could not be made). */
JsonPut jput_new(void);
void jput_num(JsonPut *w, const char *key, double x);
void jput_str(JsonPut *w, const char *key, const char *s);
void jput_bool(JsonPut *w, const char *key, bool b);
/* The counts v[0..n) as an array of numbers (json_get_counts reads it). */
void jput_counts(JsonPut *w, const char *key, const uint64_t *v, size_t n);
/* Adds item, which w owns from here: it is deleted instead when w has
 * failed already, and a NULL item (a failed allocation) fails w. */
void jput_item(JsonPut *w, const char *key, cJSON *item);
/* The object, or NULL (and it is deleted) when anything failed. */
cJSON *jput_done(JsonPut *w);

#endif
