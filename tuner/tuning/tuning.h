/* A tuning run in play: an SPSA tuning run of any UCI engine's spin
 * options, played as concurrent game pairs by the match runner (match.h),
 * moved by spsa.h, checkpointed into a run directory (state.h,
 * hist.h) after every batch.  The `run` and `resume` commands
 * (commands/run_cmd.c) set a Run up and play it.
 *
 * Engine 0 of every pair plays theta + c_k * flip, engine 1 theta - c_k *
 * flip (the batch's integer values, sent with setoption before each game). */
#ifndef RATCHET_TUNING_H
#define RATCHET_TUNING_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "progress.h"
#include "match.h"
#include "claims.h"
#include "hist.h"
#include "state.h"
#include "saver.h"
#include "spsa.h"

#define RUN_RECENT 32 /* batches in the progress line's recent score */

typedef struct {
    SpsaBatch b;
    int handed, done;           /* pairs handed out / finished */
    uint64_t w, l, d;
    uint64_t ptnml[5];
    uint64_t time_losses, crashes, illegal;
    uint64_t per_engine[ENG_NCOUNTS][2];
} Active;

typedef struct {
    RunState rs;
    char dir[PATH_MAX];
    MatchConfig *mc;
    History hist;
    OpenClaims claims;          /* the held-out openings later steps claimed (claims.h): validation plays past them */
    Saver *saver;               /* writes the checkpoints (saver.h) */
    int lockfd;
    Active *act;
    size_t nact, capact;
    SpsaBatch *reissue;         /* batches in flight when the previous session ended */
    size_t nreissue, nextreissue;
    int64_t t0;                 /* session start, ms */
    int64_t tplay;              /* the first pair handed out in this session, ms (0 = none yet) */
    double elapsed0;            /* rs.elapsed at the session start */
    uint64_t games0;
    uint64_t val_games;         /* validation games finished in this session, both legs */
    uint64_t recent[RUN_RECENT][3]; /* W, L, D of the last batches (ring) */
    uint64_t nrecent;
    Progress progress;
    uint64_t last_progress_k;   /* completed batches at the last progress line */
    uint64_t last_progress_v;   /* and val_games then */
    bool time_loss_warned;      /* this session said the time losses are too many for the clock */
    bool failed;
} Run;

/* What the command adds to a session of play; each is called with ctx, and
 * any may be NULL. */
typedef struct {
    void (*started)(void *ctx, Run *r);  /* the state is saved and the saver runs: the first pair is next */
    void (*stopped)(void *ctx, Run *r);  /* the play has stopped and the final state is saved */
    void (*complete)(void *ctx, Run *r); /* all the games are played: before the closing lines */
    void *ctx;
} RunObserver;

/* Play r (its state loaded or set up, its directory locked, its match
 * configured) until the schedule is done or a signal stops it; save.
 * The exit code of `run` and `resume` (run_cmd.h). */
int run_play(Run *r, const RunObserver *obs);
/* Free what r holds and release its directory's lock. */
void run_free(Run *r);
/* "ratchet-tune: " and the message on stderr. */
void run_msg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
