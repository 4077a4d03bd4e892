/* ratchet-tune: the command dispatcher. */
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "match_cmd.h"
#include "night.h"
#include "report_cmd.h"
#include "run_cmd.h"
#include "simulate_cmd.h"
#include "status.h"
#include "verify.h"

/* The commands, as git's commands[]: name, function, one line of help. */
static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} COMMANDS[] = {
    { "match", match_main, "play a match between two UCI engines (fastchess/cutechess-style options)" },
    { "simulate", simulate_main, "SPSA on a synthetic landscape, without engines" },
    { "run", run_main, "an SPSA tuning run of an engine's spin options into a run directory" },
    { "resume", resume_main, "continue (or extend) a stopped run" },
    { "status", status_main, "where a run stands: games, and every parameter's start, current, range" },
    { "export", export_main, "the value file of a run (for bin/ratchet --params and make PARAMS=)" },
    { "report", report_main, "the HTML report of a run (DIR/report.html: charts of every parameter, health)" },
    { "verify", verify_main, "export, bake and SPRT a run's values against its start values (DIR/verify.json)" },
    { "night", night_main, "the whole night: SPSA, the ablation, the export of what pays, the confirmation\n"
                           "             at your limit and the morning page, sized by the hours you give it" },
};

static void usage(FILE *out)
{
    fputs("Usage: ratchet-tune COMMAND [options]   (ratchet-tune COMMAND --help for its options)\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].help);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(cmd, COMMANDS[i].name))
            return COMMANDS[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "ratchet-tune: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
