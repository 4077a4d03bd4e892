/* The evaluation's weights as the tuner sees them: the table of
 * engine/eval_weights.h (compiled in), and the header written back. */
#ifndef RATCHET_TEXEL_WEIGHTS_H
#define RATCHET_TEXEL_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>

#include "eval_trace.h"

typedef enum {
    WK_TAPERED,   /* EVAL_W: mg and eg, fitted */
    WK_REFERENCE, /* EVAL_REF: mg and eg, fixed unless freed */
    WK_FLAT,      /* EVAL_FLAT: one value, fitted */
    WK_SHAPE      /* EVAL_SHAPE: one value, never fitted */
} WeightKind;

typedef struct {
    const char *name;
    WeightKind kind;
    int mg, eg;       /* a flat or shape weight: its value in both */
    const char *what;
    int index;        /* EW_ index of a linear weight, -1 for a shape */
} WeightInfo;

/* Every entry of engine/eval_weights.h, in order. */
extern const WeightInfo texel_weights[];
extern const size_t texel_nweights;

/* The linear weight with EW_ index i. */
const WeightInfo *texel_weight(int i);

/* The header's text for the given values of the linear weights (indexed
 * by EW_; a flat weight's value is mg[i]; shapes keep their compiled
 * value) with `source` on its Source line, continued on further comment
 * lines of at most 78 columns, broken at spaces.  Returns a malloc'ed
 * string, or NULL when out of memory. */
char *texel_header_text(const int *mg, const int *eg, const char *source);

/* Writes that text to path atomically (temporary file, fsync, rename).
 * 0, or -1 with err filled. */
int texel_header_write(const char *path, const int *mg, const int *eg, const char *source, char *err,
                       size_t errlen);

#endif
