/* `ratchet-tune status DIR`; see status.h. */
#include "status.h"

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cliutil.h"
#include "morning.h"
#include "nightsteps.h"

/* A night's steps (nightsteps.h), each with its figure, and its morning
 * page, when DIR holds a night. */
static void night_steps(FILE *out, const MorningRun *m)
{
    NightSteps s;
    char err[PATH_MAX + 256];
    int rc = night_steps_read(m, &s, err, sizeof err);
    if (rc < 0)
        fprintf(out, "\nnight: %s\n", err);
    else if (rc > 0)
        night_steps_print(out, &s);
}

static const char STATUS_USAGE[] =
    "usage: ratchet-tune status DIR\n"
    "\n"
    "Prints where a tuning run stands, while it runs or after: games and iterations done, the\n"
    "score of theta+c*flip against theta-c*flip (the flip is random per batch, so this sits\n"
    "near 50% by construction and measures no strength), and a table of every tuned parameter: start value,\n"
    "current theta, mean theta over the last 10% of the completed batches (from history.csv),\n"
    "the smallest and largest theta of the run, the current perturbation c_k, the range, and\n"
    "a flag for parameters that never moved, sit at a bound of their range, or are still\n"
    "drifting (the mean of the last 10% of the batches differs from the mean of the 10%\n"
    "before them by at least half of c_end).  Then which moves are real (per parameter an\n"
    "interval for its final value, z and real or noise: see docs/morning-after.md), the\n"
    "latest and the best validation point (DIR/validation.csv).  After `ratchet-tune verify\n"
    "DIR`: its verdict, Elo and pentanomial counts (DIR/verify.json).  In a night's directory\n"
    "(`ratchet-tune night`): each step's status and the morning page.\n";

int status_main(int argc, char **argv)
{
    int pre = cli_preamble(argc, argv, STATUS_USAGE, NULL, CLI_DIR_ONLY);
    if (pre >= 0)
        return pre;
    MorningRun m;
    char err[1024];
    if (morning_load(&m, argv[1], MORNING_TABLE, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: status: %s\n", err);
        return 1;
    }
    if (m.hist_err[0])
        fprintf(stderr, "ratchet-tune: status: warning: %s\n", m.hist_err);
    morning_status(stdout, &m);
    night_steps(stdout, &m);
    morning_free(&m);
    return 0;
}
