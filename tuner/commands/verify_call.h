/* The steps that `verify DIR` (verify.c) and `verify DIR -ablate`
 * (ablate.c) share: the run directory they play from, its two value files,
 * the options stored with the call, the match against the run's engine, the
 * out-of-sample openings.  The two commands sit
 * side by side on top of it; each is described by a VerifyKind. */
#ifndef RATCHET_VERIFY_CALL_H
#define RATCHET_VERIFY_CALL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "match.h"
#include "state.h"

/* What a call plays from: the run, its values and the match. */
typedef struct {
    char dir[PATH_MAX];
    RunState rs;
    cJSON *tuned, *base;           /* the two value files */
    char **args;                   /* the match options as given, without -concurrency and -restart */
    int nargs;
    char base_file[PATH_MAX];      /* -base: "" = the start values */
    char tuned_file[PATH_MAX];     /* -tuned: "" = the run's values (or its snapshot) */
    bool baked;                    /* the engines have the values built in (no options sent) */
    unsigned long long seed;
    MatchConfig mc;
    bool mc_init;
    char tc[96];
    char openings[40];             /* which openings: "held-out", "whole book (in sample)", "given" */
    bool claimed;                  /* the call plays a claim of its own (claims.h): */
    uint64_t claim_first, claim_count; /* held-out openings first .. first+count-1, in the seed's order */
    uint64_t sessions;
    char created[32];
    double idle_wait;              /* -idle-wait: how long to wait for a busy machine (seconds); < 0: no check */
    cJSON *machine;                /* the machine checks of the sittings (verify_check_machine), or NULL */
} VerifyRun;

/* One of the two commands, as its messages name it. */
typedef struct {
    const char *name;              /* "verify" or "ablate": the run name of the exported values */
    const char *cmdline;           /* "verify" or "verify -ablate" */
    const char *noun;              /* "a verify" or "an ablation" */
    const char *suffix;            /* "" or " -ablate", after DIR in the commands a message suggests */
    const char *file;              /* its state file in DIR: verify.json or ablation.json */
    int bare_nargs;                /* this many options given: continue with the stored ones */
    const char *stop_note;         /* printed at the first SIGINT or SIGTERM */
} VerifyKind;

/* One call: the run, the settings and what the steps hand on. */
typedef struct {
    VerifyRun *r;
    const VerifyKind *kind;
    const char *arg;               /* DIR as given */
    char file[PATH_MAX + 32];      /* DIR/kind->file */
    char err[PATH_MAX + 2048];
    int rc;                        /* the exit code when a step ends the call */
    int lockfd;
    bool restart, force, resume, limit_over;
    uint64_t want_pairs;           /* the pairs the call plays (0: as many as there are fresh openings) */
    const char *concurrency;
    RunConf over, settings;
    cJSON *old;                    /* the earlier call's file, or NULL */
    const char *cmd;               /* the run's engine.cmd */
    char state_path[PATH_MAX + 32];
    char engines[2][PATH_MAX + 64];
} VerifyCall;

/* Exit codes of both commands. */
enum { VERIFY_EXIT_DONE = 0, VERIFY_EXIT_FAILED = 1, VERIFY_EXIT_USAGE = 2 };

/* What a step of a call returns: go on, or end the call with c->rc (and
 * c->err printed when STEP_FAIL). */
enum { STEP_GO = 0, STEP_END = 1, STEP_FAIL = -1 };

/* Both commands start with verify_call_init (which also clears *r) and end
 * with verify_call_end (which prints c->err after STEP_FAIL, frees and
 * unlocks, and returns the exit code). */
void verify_call_init(VerifyCall *c, VerifyRun *r, const char *dir_arg, const VerifyKind *kind);
int verify_call_end(VerifyCall *c, int step);
/* STEP_FAIL with exit code rc; "out of memory" with exit code 1. */
int verify_fail(VerifyCall *c, int rc);
int verify_oom(VerifyCall *c);
/* -restart, -force, -concurrency and -idle-wait; every other argument is kept as a
 * match option (files made absolute, so the stored options mean the same
 * from any directory). */
int verify_read_options(VerifyCall *c, int argc, char **argv);
/* The run directory: locked, its state loaded, its tuned and start values
 * exported; c->file = DIR/kind->file. */
int verify_open_run(VerifyCall *c);
/* c->file from an earlier call (unless -restart) into c->old: its options
 * are taken when none are given, and other options are refused. */
int verify_read_earlier(VerifyCall *c);
/* The progress of a continued call (resume, when c->resume) or the seed of a
 * new one; then the match settings (the run's with the options on top). */
int verify_settle_settings(VerifyCall *c, int (*resume)(VerifyCall *c));
/* c->cmd: the run's engine.cmd. */
int verify_engine_cmd(VerifyCall *c);
/* The match configuration of c->engines, engine 0 with values[0] and engine
 * 1 with values[1] (sent as options unless r->baked), at the limit the call
 * plays (r->tc): the run's, or the options' -each over it.  Nothing is
 * checked or played. */
int verify_build_match(VerifyCall *c, const cJSON *values[2]);
/* verify_build_match; then a book, the engine the run tuned (engcheck.h)
 * and the openings. */
int verify_make_match(VerifyCall *c, const cJSON *values[2]);

/* A finished call that played `pairs` of its claim: the claim shrunk to
 * them in DIR/openings.json, so the next step takes the rest.  0, or -1
 * with err. */
int verify_claim_played(VerifyRun *r, const char *file, uint64_t pairs, char *err, size_t errlen);

/* The games of the call in its -pgnout file: their Event begins with
 * "ratchet-tune KIND created CREATED" (verify_pgn_mark), so that, before a
 * continued call plays (a later session), the file can be cut to the games of the pairs its
 * record counts (done(ctx, pair)), each pair once (pgntrim.h), the games of
 * anything else in it untouched; the cut says how many games went.  0, or
 * -1 with err. */
void verify_pgn_mark(const VerifyRun *r, const char *kind, char *buf, size_t len);
int verify_trim_pgn(const VerifyRun *r, const char *kind, bool (*done)(void *ctx, uint64_t pair), void *ctx,
                    char *err, size_t errlen);

/* Before a sitting on the wall clock, load_check_before (loadcheck.h) with
 * r->idle_wait (< 0: no check); each check is appended to r->machine, which
 * the state file keeps: {"at", "cpus", "busy_cpus", "concurrency",
 * "waited_s", "idle"}.  who names the command in its messages. */
void verify_check_machine(VerifyRun *r, const char *who);
/* The sittings' checks of an earlier record j, kept for the next (when
 * continuing it), and written back into a record out. */
int verify_machine_from(VerifyRun *r, const cJSON *j);
bool verify_machine_to(const VerifyRun *r, cJSON *out);
/* -idle-wait's D into *seconds: seconds, or with a unit (90s, 30m, 1h);
 * "off" is -1 (no check).  0, or -1 when D is none of these. */
int verify_parse_idle_wait(const char *d, double *seconds);

/* The sections of the match options both commands take. */
extern const char *const VERIFY_SECTIONS[];
/* The keys that set an engine's limit: one given replaces all the run's. */
extern const char *const VERIFY_LIMIT_KEYS[];

/* The "params" object of a value file. */
const cJSON *verify_params_of(const cJSON *values);
bool verify_same_params(const cJSON *a, const cJSON *b);
/* What -base and -tuned take (base_file, tuned_file), for "-base needs ...". */
#define VERIFY_VALUE_FILE "a value file (FILE.json)"
/* The value files over the start values: -tuned's into tuned, -base's into
 * base; a name the run lacks, a value that is not a number of the
 * parameter's kind or out of its range is refused. */
int verify_use_value_files(VerifyRun *r, char *err, size_t errlen);
bool verify_same_args(const cJSON *stored, const VerifyRun *r);

#endif
