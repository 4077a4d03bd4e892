/* `ratchet-tune status DIR`; see status.h. */
#include "status.h"

#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "hist.h"
#include "morning.h"
#include "rd.h"
#include "report.h"
#include "state.h"
#include "verify.h"

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
    "DIR`: its verdict, Elo and pentanomial counts (DIR/verify.json).\n";

int status_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(STATUS_USAGE, stdout);
            return 0;
        }
    if (argc != 2 || argv[1][0] == '-') {
        fputs(STATUS_USAGE, stderr);
        return 2;
    }
    const char *dir = argv[1];
    RunState rs;
    char err[1024];
    if (runstate_load(&rs, dir, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: status: %s\n", err);
        return 1;
    }
    HistData h;
    if (hist_read(dir, &rs.spsa, rs.spsa.completed, &h, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: status: warning: %s\n", err);
        memset(&h, 0, sizeof h);
    }
    pid_t pid = rd_lock_holder(dir);
    printf("run %s: ", dir);
    if (pid > 0)
        printf("running (process %ld), %zu batch%s in flight, state saved %s\n", (long)pid, rs.spsa.ninflight,
               rs.spsa.ninflight == 1 ? "" : "es", rs.updated);
    else if (spsa_done(&rs.spsa))
        printf("complete, saved %s\n", rs.updated);
    else
        printf("stopped, saved %s; %zu batch%s to replay on resume\n", rs.updated, rs.spsa.ninflight,
               rs.spsa.ninflight == 1 ? "" : "es");
    report_table(stdout, &rs, &h);
    morning_moves(stdout, dir, &rs);
    morning_validation(stdout, dir, &rs);
    verify_print_status(stdout, dir, &rs);
    hist_data_free(&h);
    runstate_free(&rs);
    return 0;
}
