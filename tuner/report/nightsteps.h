/* A night's steps as `status` and the report show them: DIR/night.json
 * (written by `ratchet-tune night`, see night.h in tuner/commands) says
 * which step stands where; each step's figure is read from the file the
 * step wrote: the games of state.json, the groups and the additivity check
 * of ablation.json, the kept groups' prediction of night/kept.json, the
 * confirmation of verify.json. */
#ifndef RATCHET_NIGHTSTEPS_H
#define RATCHET_NIGHTSTEPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "morning.h"

#define NIGHT_STEPS_MAX 8

/* The steps of a night, in the order they play, and the night.json
 * version this build writes and reads. */
#define NIGHT_NSTEPS 5
extern const char *const NIGHT_STEP_NAMES[NIGHT_NSTEPS];
#define NIGHT_FILE_VERSION 1
/* The index of the step called name, or -1. */
int night_step_index(const char *name);

struct cJSON;
/* night.json's text j, read from path: 0 when its version is this build's
 * and "steps" lists known steps, each once, each with a status a night
 * gives (todo, running, done, stopped, failed); else -1 with a message
 * naming the file, the entry and what is wrong. */
int night_file_check(const struct cJSON *j, const char *path, char *err, size_t errlen);

typedef struct {
    char name[16];
    char status[64];    /* night.json's, "running" shown as "interrupted" when no process holds the run */
    char figure[768];   /* what the step measured, or "" when it has not played */
    double played;      /* the pairs the figure counts (the ablation's, the confirmation's), else 0 */
    double rate;        /* the confirmation's games per second of its own play, once it played a minute; else 0 */
} NightStep;

typedef struct {
    size_t n;
    NightStep steps[NIGHT_STEPS_MAX];
    char morning[PATH_MAX + 16]; /* DIR/morning.txt when written, else "" */
    char left[512];              /* the play the steps still have and how long it takes here, or "" */
} NightSteps;

/* A run's games per second of play, validation's games in them; 0 before
 * it has played. */
double night_run_rate(const RunState *rs);

/* The night of the run m has read (its directory, state and lock holder):
 * 1 with out filled, 0 when the directory holds no night.json, -1 with a
 * message when it cannot be read or fails night_file_check. */
int night_steps_read(const MorningRun *m, NightSteps *out, char *err, size_t errlen);
/* The lines `status` prints: one per step, "  spsa      done     FIGURE". */
void night_steps_print(FILE *out, const NightSteps *s);

#endif
