/* `ratchet-tune verify`'s private parts, shared by verify.c (the settings
 * and the command), verify_play.c (the match), verify_state.c
 * (DIR/verify.json) and verify_bake.c (the baked engines), on top of the
 * steps it shares with the ablation (verify_call.h).  Not for other
 * modules: see verify.h. */
#ifndef RATCHET_VERIFY_IMPL_H
#define RATCHET_VERIFY_IMPL_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "match.h"
#include "progress.h"
#include "sprt.h"
#include "state.h"
#include "verify_call.h"

typedef struct {
    VerifyRun run;                 /* the run, its values, the match (verify_call.h) */
    char path[PATH_MAX + 32];      /* DIR/verify.json */
    char sub[PATH_MAX + 32];       /* DIR/verify */
    /* settings */
    SprtSpec sprt;
    uint64_t rounds;               /* 0 = until the SPRT decides */
    int bake;
    char snapshot[24];             /* -snapshot: "" or last = the run's values; best or K: snapshots/K.json */
    uint64_t fresh;                /* pairs before an opening repeats (match_fresh_rounds) */
    bool fresh_cut;                /* the rounds were cut to them: the limit replays games */
    /* progress */
    MatchTally tally;
    uint64_t next_round;
    uint64_t *pending;             /* rounds in flight when the last session ended: replayed first */
    size_t npending, nextpending;
    uint64_t *inflight;
    size_t ninflight, capinflight;
    int verdict;                   /* +1 H1, -1 H0, 0 not (yet) */
    SprtStop stop;                 /* the verdict as it stood when it was reached (this session) */
    double elapsed0;
    int64_t t0;
    Progress progress;
    bool time_loss_warned;         /* at a wall clock, the warning that too many games were lost on time */
    bool failed;
} Verify;

/* verify_play.c: the match, tuned against base. */
/* -snapshot best|K: the tuned side plays snapshot K (DIR/snapshots/K.json)
 * instead of the run's current values. */
int verify_use_snapshot(Verify *v, char *err, size_t errlen);
/* No replayed game counted as new (match_cap_fresh): at nodes= or depth= the
 * rounds are cut to the fresh openings, with a note naming their count, and
 * a verify.json that already counts more pairs than there are fresh
 * openings (written by an older build) is refused: its figures count
 * replayed games.  0, or -1 with err. */
int verify_fresh_openings(Verify *v, char *err, size_t errlen);
void verify_progress(Verify *v, bool force);
/* The match_play hooks. */
bool verify_next(void *ctx, PairJob *job);
void verify_done(void *ctx, const PairJob *job, const PairResult *res);
/* Whether the record counts pair id: played, and not in flight when the
 * last session ended (verify_trim_pgn). */
bool verify_counted(void *ctx, uint64_t id);
/* Abandoned: it stays in flight, so the next session plays it again. */
void verify_abandoned(void *ctx, const PairJob *job);

/* verify_state.c: DIR/verify.json. */
const char *verify_verdict_name(const Verify *v);
/* The verdict of v as `status` prints it (verdict.h). */
void verify_print_verdict(FILE *out, const Verify *v, const char *status);
int verify_save(Verify *v, const char *status, const char *verdict, char *err, size_t errlen);
/* The progress of an unfinished verify from its file. */
int verify_progress_from(Verify *v, const cJSON *j, char *err, size_t errlen);

/* verify_bake.c: the baked engines. */
/* The source tree of a Ratchet engine at ROOT/bin/ratchet, or false. */
bool verify_ratchet_root(const RunState *rs, const char *cmd, char *root, size_t len);
/* make PARAMS=DIR/verify/{tuned,base}.json BAKED_BIN=DIR/verify/ratchet-{tuned,base}, both at once. */
int verify_bake_engines(Verify *v, const char *root, char cmd[2][PATH_MAX + 64], char *err, size_t errlen);

#endif
