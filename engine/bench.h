/* The bench: fixed positions at a fixed depth; its node count is the
 * build's signature (see bench.c). */
#ifndef RATCHET_BENCH_H
#define RATCHET_BENCH_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_DEFAULT_DEPTH 12
#define BENCH_HASH_MB 16

extern const char *const bench_fens[];
extern const int bench_count;

typedef struct {
    uint64_t nodes;
    uint64_t nps;
    int64_t ms;
} BenchResult;

/* Searches fens[0..count) to `depth` with the current parameters; prints a
 * line per position and the final `N nodes M nps` to out (if not NULL).
 * Returns 0, or -1 with a message on out (bad FEN, no memory). */
int bench_run(const char *const *fens, int count, int depth, FILE *out, BenchResult *res);
/* The same, ending early once *stop is set (polled by the search, and
 * before each position): the lines and totals then cover the positions
 * searched so far, with an `info string` saying so before the last line.
 * stop may be NULL. */
int bench_run_until(const char *const *fens, int count, int depth, FILE *out, atomic_bool *stop,
                    BenchResult *res);

#endif
