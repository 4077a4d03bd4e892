/* DIR/state.json: everything a run needs to continue exactly where it was:
 * the merged configuration (as a -config file would give it), the SPSA state
 * (theta, k, the RNG, every batch in flight: tuner/spsa/spsa.h), the parameters
 * of the spec that are not tuned, and the run's counters.
 *
 *   { "version": 1, "created": ISO date, "updated": ISO date,
 *     "config": { ... }, "spsa": { ... },
 *     "run": { "games", "ptnml": [5], "pairs_issued", "time_losses",
 *              "crashes", "illegal", "elapsed_s", "sessions", "engine",
 *              "tc", "spec_order": [names], "fixed": { name: value },
 *              "fixed_float": [names of the fixed float parameters],
 *              "engine_check": { "id_name", "path", "size", "mtime",
 *                                "mtime_nsec", "bench" (optional) },
 *              "per_engine": { "time_losses": [+, -], "crashes": [+, -],
 *                              "illegal": [+, -], "restarts": [+, -], "since": games },
 *              "wall_search": { "nodes", "ms" } } }
 * (a state without "fixed_float" has none; a tuned float parameter has
 * "type": "float" in the SPSA state, spsa_state_json.h.  engine_check:
 * tuner/match/engcheck.h; absent in states of older builds)
 * and "partial": [{ "k", "pairs", "wins", "losses", "draws", "ptnml": [5],
 *                   "time_losses", "crashes", "illegal",
 *                   "per_engine": { "time_losses": [+, -], "crashes": [+, -],
 *                                   "illegal": [+, -], "restarts": [+, -] } }]
 * and "validation": held-out openings and validation points (validate.h;
 * absent in states of older builds)
 * (wall_search: at a clock on the wall (tc= or st= without nodestime), the nodes the engines' moves
 * reported and those moves' wall ms, over every pair played, finished batch
 * or not: what a ms of the clock was worth in nodes; absent in states of
 * older builds and of runs at nodestime)
 * (PartialBatch; absent = none; an entry without "per_engine", written by an
 * older build, adds nothing to the per-engine counts; such an entry is
 * written back without them while its batch is unfinished).  A state without
 * "per_engine" counts them from its games on.
 *
 * Counters cover the batches already applied to theta; games of batches in
 * flight are not counted (a resume plays those batches again). */
#ifndef RATCHET_STATE_H
#define RATCHET_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engcheck.h"
#include "game.h"
#include "conf.h"
#include "spsa.h"
#include "validate.h"

#define STATE_FILE "state.json"

/* The counters of RunState.per_engine, and their names in the file. */
enum { ENG_TIME_LOSSES, ENG_CRASHES, ENG_ILLEGAL, ENG_RESTARTS, ENG_NCOUNTS };
extern const char *const runstate_engine_counts[ENG_NCOUNTS];

typedef struct {
    char name[SPSA_NAME_MAX];
    double value;           /* the spec value */
    bool is_float;          /* an OpenBench float parameter (run.fixed_float) */
} FixedParam;

/* The finished pairs of a batch still in flight (pairs-per > 1), kept when
 * a run stops so that a resume plays only the rest of the batch. */
typedef struct {
    uint64_t k;
    uint64_t pairs;
    uint64_t wins, losses, draws, ptnml[5];
    uint64_t time_losses, crashes, illegal;
    uint64_t per_engine[ENG_NCOUNTS][2]; /* as RunState.per_engine, for these pairs */
} PartialBatch;

typedef struct {
    RunConf conf;
    SpsaState spsa;
    FixedParam *fixed;      /* spec parameters not tuned (only=): both engines play the spec value */
    size_t nfixed;
    char (*order)[SPSA_NAME_MAX]; /* every spec parameter, in spec order */
    size_t norder;
    uint64_t games;         /* games of applied batches */
    uint64_t ptnml[5];      /* pentanomial counts of applied batches, from the `+` engine's view */
    uint64_t pairs_issued;  /* pairs handed out so far: the position in the opening order */
    uint64_t time_losses, crashes, illegal; /* engine failures in applied batches, both sides */
    /* Per engine (0 = the `+` engine, 1 = the `-` engine): time losses,
     * crashes, illegal moves, restarts in applied batches, counted since
     * per_engine_since games (not 0 when an older build, which did not
     * count them, started the run).  run.per_engine in the file. */
    uint64_t per_engine[ENG_NCOUNTS][2];
    uint64_t per_engine_since;
    uint64_t wall_nodes, wall_ms; /* run.wall_search: nodes reported at a clock on the wall, their wall ms
                                   * (each at most WALL_SEARCH_MAX, game.h) */
    double elapsed;         /* seconds of play over all sessions */
    uint64_t sessions;
    char engine[128];       /* the engine's `id name` */
    char tc[64];            /* the time control, as text */
    char created[32], updated[32];
    bool *to_spin;          /* not saved: per tuned parameter, a float sent rounded to a spin option (setup_check_engine) */
    EngineId engine_id;     /* run.engine_check: the engine the run was started with */
    PartialBatch *partial;  /* run.partial: finished pairs of batches in flight */
    size_t npartial;
    Validation val;         /* run.validation: held-out openings, validation points (validate.h) */
} RunState;

void runstate_init(RunState *rs);
void runstate_free(RunState *rs);

cJSON *runstate_to_json(const RunState *rs);
/* origin names the file in messages. */
int runstate_from_json(RunState *rs, const cJSON *j, const char *origin, char *err, size_t errlen);

/* What a loaded state takes from its directory and settings: the last
 * validation point's games of an older build's state (validation.csv) and
 * the user's validation limit (validate.h).  runstate_load calls it; a
 * reader of runstate_from_json calls it after.  0, or -1 with a message. */
int runstate_resolve(RunState *rs, const char *dir, char *err, size_t errlen);

/* Read and write DIR/state.json (the write is atomic and stamps `updated`).
 * A state that runstate_from_json would refuse is never written: the save
 * fails with the reader's reason and the file on disk stays as it was. */
int runstate_load(RunState *rs, const char *dir, char *err, size_t errlen);
int runstate_save(RunState *rs, const char *dir, char *err, size_t errlen);
/* The text runstate_save writes (stamps `updated`); malloc'd, NULL on OOM. */
char *runstate_text(RunState *rs);
/* 0 when text loads with runstate_from_json; else -1 with a message naming
 * path and the reader's reason. */
int runstate_check_text(const char *text, const char *path, char *err, size_t errlen);
/* Replace path with a state's text atomically, once runstate_check_text
 * accepts it. */
int runstate_write_text(const char *path, const char *text, char *err, size_t errlen);

/* The value of a spec parameter for export: tuned (spsa_value) or fixed;
 * *is_float (if not NULL) says whether it is a float parameter.  -1 if the
 * name is unknown. */
int runstate_value(const RunState *rs, const char *name, double *value, bool *is_float);
/* Whether v may be played as the run's parameter name: a finite number, an
 * integer for an integer parameter, inside the parameter's range (a tuned
 * parameter's own; for one the run holds fixed, the range its params file
 * gives; the value the run plays now is always in it).  Returns 0, or -1
 * with why ("Gamma = 1e+06 is outside its range
 * [-50, 50]"). */
int runstate_check_value(const RunState *rs, const char *name, double v, char *why, size_t len);
/* Every spec parameter's value (runstate_value), in the spec's order, as
 * the JSON object {"NAME": value, ...} that a value file's "params" holds;
 * NULL when out of memory. */
cJSON *runstate_values_json(const RunState *rs);
/* How many tuned parameters the run plays (and export writes) at another
 * value than their start (an integer's start rounded as export rounds it);
 * -1 when out of memory. */
int runstate_moved(const RunState *rs);

#endif
