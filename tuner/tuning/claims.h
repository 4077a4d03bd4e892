/* DIR/openings.json: which of the run's held-out openings each step after
 * the tuning took, so that no step replays an opening another step played.
 *
 * The held-out openings are the last `holdout` of the run's book order
 * (validate.h), numbered 0 .. holdout-1 here.  Validation plays the first
 * of them (as many pairs as its points plan: validate_pairs_planned); each
 * later step (verify, verify -ablate) claims a range of its own past them
 * and past every earlier claim, and plays it in an order its seed sets.
 * Points a longer budget adds later play the openings past the claims
 * (claims_skip).
 *
 *   { "version": 1, "held_out": H, "validation": V,
 *     "claims": [{ "step": "verify"|"verify -ablate", "file": "verify.json"|...,
 *                  "first": F, "count": N, "seed": S, "created": ISO time }] }
 *
 * Ranges never overlap; a claim whose step finished with fewer pairs than
 * it claimed is shrunk to them (claims_shrink). */
#ifndef RATCHET_CLAIMS_H
#define RATCHET_CLAIMS_H

#include <stddef.h>
#include <stdint.h>

#define CLAIMS_FILE "openings.json"

typedef struct {
    char step[32];
    char file[64];
    uint64_t first, count, seed;
    char created[32];
} OpenClaim;

typedef struct {
    OpenClaim *v;
    size_t n;
    uint64_t held_out;   /* as read (0: no file) */
} OpenClaims;

/* DIR/openings.json into *c (none when the file is absent).  A claim out of
 * [0, held_out) or overlapping another is refused, naming the file and the
 * claim.  0, or -1 with err. */
int claims_load(const char *dir, uint64_t held_out, OpenClaims *c, char *err, size_t errlen);
/* Validation's j-th held-out opening: the j-th number that no claim holds.
 * A claim starts past the validation openings planned when it was made, so
 * the openings validation played keep their numbers, and a budget extended
 * after a claim plays its new points past it. */
uint64_t claims_skip(const OpenClaims *c, uint64_t j);
/* The first held-out opening past validation's `reserve` pairs (placed by
 * claims_skip) and every claim. */
uint64_t claims_end(const OpenClaims *c, uint64_t reserve);
/* Adds a claim and rewrites DIR/openings.json atomically. */
int claims_add(const char *dir, OpenClaims *c, uint64_t reserve, const OpenClaim *claim, char *err, size_t errlen);
/* The claim of `file` that starts at `first` down to `count` openings (a
 * step that finished with fewer pairs); DIR/openings.json rewritten.  No
 * such claim: nothing changes. */
int claims_shrink(const char *dir, OpenClaims *c, uint64_t reserve, const char *file, uint64_t first, uint64_t count,
                  char *err, size_t errlen);
void claims_free(OpenClaims *c);

#endif
