/* Which engine a run was started with, so that `resume` can refuse a
 * different one: its `id name`, the program file's path, size and
 * modification time, and its bench signature when it has one (the node
 * count of the UCI command `bench`, OpenBench's "N nodes M nps" line).
 * Stored in state.json as run.engine_check; states written before it
 * existed lack it and still resume (with a note). */
#ifndef RATCHET_ENGCHECK_H
#define RATCHET_ENGCHECK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "match.h"

typedef struct {
    bool have;                /* recorded (false: an older state) */
    char id_name[64];
    char path[PATH_MAX];      /* the program file, resolved */
    long long size;
    long long mtime_ns;       /* modification time, ns since the epoch */
    bool has_bench;
    unsigned long long bench; /* bench signature (nodes) */
} EngineId;

/* Identifies the engine of `spec`: stats its program file and starts it
 * once to read `id name` and try `bench`.  -1 with a message on error. */
int engcheck_measure(const EngineSpec *spec, EngineId *out, char *err, size_t errlen);

/* What differs between the recorded and the current engine, as text
 * ("size 123 -> 124, ..."); 0 when they are the same, else the number of
 * differences. */
int engcheck_compare(const EngineId *was, const EngineId *now, char *diff, size_t len);

/* For resume: measures the engine of `spec` and compares it with the
 * recorded one.  None recorded (an older state): a note on stderr.  A
 * difference: refused with a message saying what changed, unless `force`
 * (then a warning).  `moved`: the user named the program anew (resume
 * -engine cmd=), so its path and mtime may differ (a copy); its id name,
 * size and bench signature must still match.  On success *recorded becomes
 * the current engine. */
int engcheck_resume(EngineId *recorded, const EngineSpec *spec, bool force, bool moved, char *err, size_t errlen);

/* For verify: the same check of the engine the run plays (spec), without
 * recording it (verify does not change the run's state). */
int engcheck_verify(const EngineId *recorded, const EngineSpec *spec, bool force, char *err, size_t errlen);

cJSON *engcheck_to_json(const EngineId *id);
/* Absent (NULL) leaves id->have false; a malformed record is an error. */
int engcheck_from_json(EngineId *id, const cJSON *j, const char *origin, char *err, size_t errlen);

/* The bench signature in a line of engine output: "N nodes M nps"
 * (OpenBench) or "Nodes searched: N" (Stockfish); false otherwise. */
bool engcheck_parse_bench(const char *line, unsigned long long *nodes);

#endif
