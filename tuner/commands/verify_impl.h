/* `ratchet-tune verify`'s private parts, shared by verify.c (the settings,
 * the match and the command), verify_state.c (DIR/verify.json) and
 * verify_bake.c (the baked engines).  Not for other modules: see verify.h. */
#ifndef RATCHET_VERIFY_IMPL_H
#define RATCHET_VERIFY_IMPL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "match.h"
#include "runstate.h"
#include "sprt.h"

typedef struct {
    char dir[PATH_MAX];
    char path[PATH_MAX + 32];      /* DIR/verify.json */
    char sub[PATH_MAX + 32];       /* DIR/verify */
    RunState rs;
    cJSON *tuned, *base;           /* the two value files */
    /* settings */
    char **args;                   /* the match options as given, without -concurrency and -restart */
    int nargs;
    SprtSpec sprt;
    uint64_t rounds;               /* 0 = until the SPRT decides */
    int bake;
    char base_file[PATH_MAX];      /* -base: "" = the start values */
    bool baked;
    unsigned long long seed;
    MatchConfig mc;
    bool mc_init;
    char tc[96];
    char snapshot[24];             /* -snapshot: "" or last = the run's values; best or K: snapshots/K.json */
    char openings[40];             /* which openings: "held-out", "whole book (in sample)", "given" */
    /* progress */
    MatchTally tally;
    uint64_t next_round;
    uint64_t *pending;             /* rounds in flight when the last session ended: replayed first */
    size_t npending, nextpending;
    uint64_t *inflight;
    size_t ninflight, capinflight;
    int verdict;                   /* +1 H1, -1 H0, 0 not (yet) */
    SprtStop stop;                 /* the verdict as it stood when it was reached (this session) */
    uint64_t sessions;
    double elapsed0;
    int64_t t0, last_progress;
    bool tty, line_open;
    bool failed;
    char created[32];
} Verify;

/* The "params" object of a value file. */
const cJSON *params_of(const cJSON *values);

/* verify_state.c: DIR/verify.json. */
const char *verdict_name(const Verify *v);
cJSON *verify_to_json(const Verify *v, const char *status, const char *verdict);
int verify_save(Verify *v, const char *status, const char *verdict, char *err, size_t errlen);
bool get_u64_array(const cJSON *o, const char *k, uint64_t *out, int n);
/* The progress of an unfinished verify from its file. */
int verify_progress_from(Verify *v, const cJSON *j, char *err, size_t errlen);

/* verify_bake.c: the baked engines. */
/* The source tree of a Ratchet engine at ROOT/bin/ratchet, or false. */
bool ratchet_root(const RunState *rs, const char *cmd, char *root, size_t len);
/* make PARAMS=DIR/verify/{tuned,base}.json BAKED_BIN=DIR/verify/ratchet-{tuned,base}, both at once. */
int bake_engines(Verify *v, const char *root, char cmd[2][PATH_MAX + 64], char *err, size_t errlen);

#endif
