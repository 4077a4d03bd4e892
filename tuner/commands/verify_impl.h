/* `ratchet-tune verify`'s private parts, shared by verify.c (the settings
 * and the command), verify_play.c (the match), verify_state.c
 * (DIR/verify.json) and verify_bake.c (the baked engines).  Not for other modules: see verify.h. */
#ifndef RATCHET_VERIFY_IMPL_H
#define RATCHET_VERIFY_IMPL_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "match.h"
#include "state.h"
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
    char tuned_file[PATH_MAX];     /* -tuned: "" = the run's values (or its snapshot) */
    bool baked;
    unsigned long long seed;
    MatchConfig mc;
    bool mc_init;
    char tc[96];
    char snapshot[24];             /* -snapshot: "" or last = the run's values; best or K: snapshots/K.json */
    char openings[40];             /* which openings: "held-out", "whole book (in sample)", "given" */
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
    uint64_t sessions;
    double elapsed0;
    int64_t t0, last_progress;
    bool tty, line_open;
    bool failed;
    char created[32];
} Verify;

/* One call of `verify DIR ...` or `verify DIR -ablate ...`: the run, the
 * settings and what the steps of the call hand on.  The two commands share
 * the steps below; the strings name the command in its messages. */
typedef struct {
    Verify *v;
    const char *arg;               /* DIR as given */
    const char *name;              /* "verify" or "ablate": the run name of the exported values */
    const char *cmdline;           /* "verify" or "verify -ablate" */
    const char *noun;              /* "a verify" or "an ablation" */
    const char *suffix;            /* "" or " -ablate", after DIR in the commands a message suggests */
    int bare_nargs;                /* this many options given: continue with the stored ones */
    /* argv[i] into v->args, file names made absolute */
    int (*push_arg)(Verify *v, char **argv, int i);
    char file[PATH_MAX + 32];      /* DIR/verify.json or DIR/ablation.json */
    char err[PATH_MAX + 2048];
    int rc;                        /* the exit code when a step ends the call */
    int lockfd;
    bool restart, force, resume, limit_over;
    const char *concurrency;
    RunConf over, settings;
    cJSON *old;                    /* the earlier verify's or ablation's file, or NULL */
    const char *cmd;               /* the run's engine.cmd */
    char state_path[PATH_MAX + 32];
    char engines[2][PATH_MAX + 64];
} VerifyCall;

/* What a step of a call returns: go on, or end the call with c->rc (and
 * c->err printed when STEP_FAIL). */
enum { STEP_GO = 0, STEP_END = 1, STEP_FAIL = -1 };

/* verify.c: the steps.  Both commands start with verify_call_init (which
 * also clears *v) and end with verify_call_end (which prints c->err after
 * STEP_FAIL, frees and unlocks, and returns the exit code). */
void verify_call_init(VerifyCall *c, Verify *v, const char *dir_arg, bool ablate);
int verify_call_end(VerifyCall *c, int step);
/* STEP_FAIL with exit code rc; "out of memory" with exit code 1. */
int verify_fail(VerifyCall *c, int rc);
int verify_oom(VerifyCall *c);
/* -restart, -force and -concurrency; every other argument is kept as a match option. */
int verify_read_options(VerifyCall *c, int argc, char **argv);
/* The run directory: locked, its state loaded, its tuned and start values
 * exported; c->file = DIR/file. */
int verify_open_run(VerifyCall *c, const char *file);
/* c->file from an earlier call (unless -restart) into c->old: its options
 * are taken when none are given, and other options are refused. */
int verify_read_earlier(VerifyCall *c);
/* The progress of a continued call (resume, when c->resume) or the seed of a
 * new one; then the match settings (the run's with the options on top). */
int verify_settle_settings(VerifyCall *c, int (*resume)(VerifyCall *c));
/* c->cmd: the run's engine.cmd. */
int verify_engine_cmd(VerifyCall *c);
/* After verify_build_match: a book, the engine the run tuned (engcheck.h)
 * and the openings. */
int verify_check_match(VerifyCall *c);

/* verify.c: the settings and the command. */
/* The sections of the match options verify takes. */
extern const char *const VERIFY_SECTIONS[];
/* The keys that set an engine's limit: one given to verify replaces all the run's. */
extern const char *const VERIFY_LIMIT_KEYS[];
/* The match's stop flag (match_play reads it): set by SIGINT/SIGTERM or an
 * error that ends the session. */
extern atomic_int verify_g_stop;
/* The "params" object of a value file. */
const cJSON *verify_params_of(const cJSON *values);
bool verify_same_params(const cJSON *a, const cJSON *b);
/* The run's start values as a value file (tuned parameters at their start,
 * the others at their spec value); NULL on OOM. */
cJSON *verify_start_values(const RunState *rs);
/* -base FILE / -tuned FILE (args[i] is the option): the file's path into
 * base_file or tuned_file. */
int verify_value_file_arg(Verify *v, int i, char *err, size_t errlen);
/* The value files over the start values: -tuned's into tuned (refused with
 * -snapshot), -base's into base; a name the run lacks, a value that is not a
 * number of the parameter's kind or out of its range is refused. */
int verify_use_value_files(Verify *v, char *err, size_t errlen);
/* The match settings: the run's (the sections verify inherits) with `over`
 * on top; a limit in `over` replaces every limit of the run. */
int verify_merge_settings(const RunState *rs, const RunConf *over, RunConf *out, bool *limit_over);

/* verify_play.c: the match; cmd[0] and cmd[1] are the two engines. */
int verify_build_match(Verify *v, const RunConf *settings, bool limit_over, char (*cmd)[PATH_MAX + 64], char *err,
                size_t errlen);
/* -snapshot best|K: the tuned side plays snapshot K (DIR/snapshots/K.json)
 * instead of the run's current values. */
int verify_use_snapshot(Verify *v, char *err, size_t errlen);
/* Out of sample by default: the positions the run held out of its tuning;
 * see verify_play.c. */
int verify_pick_openings(Verify *v, const RunConf *over, char *err, size_t errlen);
/* No replayed game counted as new (match_cap_fresh): at nodes= or depth= the
 * rounds are cut to the fresh openings, with a note naming their count, and
 * a verify.json that already counts more pairs than there are fresh
 * openings (written by an older build) is refused: its figures count
 * replayed games.  0, or -1 with err. */
int verify_fresh_openings(Verify *v, char *err, size_t errlen);

/* ablate.c: `verify DIR -ablate ...`, which verify_main hands its arguments
 * to (declared here, with verify's family, so that verify.c and ablate.c
 * do not include each other). */
int ablate_main(int argc, char **argv);

/* verify.c, shared with ablate.c: the stop on SIGINT or SIGTERM (the first
 * sets verify_g_stop and verify_g_signal and writes verify_stop_note; a
 * second ends the process), and the stored options (v->args). */
extern atomic_int verify_g_signal;
extern const char *verify_stop_note;
void verify_on_signal(int sig);
int verify_push_arg(Verify *v, const char *s);
void verify_free_args(Verify *v);
bool verify_same_args(const cJSON *stored, const Verify *v);
void verify_progress(Verify *v, bool force);
/* The match_play hooks. */
bool verify_next(void *ctx, PairJob *job);
void verify_done(void *ctx, const PairJob *job, const PairResult *res);
/* Abandoned: it stays in flight, so the next session plays it again. */
void verify_abandoned(void *ctx, const PairJob *job);

/* verify_state.c: DIR/verify.json. */
const char *verify_verdict_name(const Verify *v);
cJSON *verify_to_json(const Verify *v, const char *status, const char *verdict);
int verify_save(Verify *v, const char *status, const char *verdict, char *err, size_t errlen);
/* The progress of an unfinished verify from its file. */
int verify_progress_from(Verify *v, const cJSON *j, char *err, size_t errlen);

/* verify_bake.c: the baked engines. */
/* The source tree of a Ratchet engine at ROOT/bin/ratchet, or false. */
bool verify_ratchet_root(const RunState *rs, const char *cmd, char *root, size_t len);
/* make PARAMS=DIR/verify/{tuned,base}.json BAKED_BIN=DIR/verify/ratchet-{tuned,base}, both at once. */
int verify_bake_engines(Verify *v, const char *root, char cmd[2][PATH_MAX + 64], char *err, size_t errlen);

#endif
