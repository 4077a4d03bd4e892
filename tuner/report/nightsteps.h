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

typedef struct {
    char name[16];
    char status[64];    /* night.json's, "running" shown as "interrupted" when no process holds the run */
    char figure[768];   /* what the step measured, or "" when it has not played */
} NightStep;

typedef struct {
    size_t n;
    NightStep steps[NIGHT_STEPS_MAX];
    char morning[PATH_MAX + 16]; /* DIR/morning.txt when written, else "" */
} NightSteps;

/* The night of the run m has read (its directory, state and lock holder):
 * 1 with out filled, 0 when the directory holds no night.json, -1 with a
 * message when it cannot be read. */
int night_steps_read(const MorningRun *m, NightSteps *out, char *err, size_t errlen);
/* The lines `status` prints: one per step, "  spsa      done     FIGURE". */
void night_steps_print(FILE *out, const NightSteps *s);

#endif
