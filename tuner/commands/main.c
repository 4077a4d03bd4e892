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

static void usage(FILE *out)
{
    fputs("Usage: ratchet-tune COMMAND [options]   (ratchet-tune COMMAND --help for its options)\n"
          "Commands:\n"
          "  match      play a match between two UCI engines (fastchess/cutechess-style options)\n"
          "  simulate   SPSA on a synthetic landscape, without engines\n"
          "  run        an SPSA tuning run of an engine's spin options into a run directory\n"
          "  resume     continue (or extend) a stopped run\n"
          "  status     where a run stands: games, and every parameter's start, current, range\n"
          "  export     the value file of a run (for bin/ratchet --params and make PARAMS=)\n"
          "  report     the HTML report of a run (DIR/report.html: charts of every parameter, health)\n"
          "  verify     export, bake and SPRT a run's values against its start values (DIR/verify.json)\n"
          "  night      the whole night: SPSA, the ablation, the export of what pays, the confirmation\n"
          "             at your limit and the morning page, sized by the hours you give it\n",
          out);
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
    if (!strcmp(cmd, "match"))
        return match_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "simulate"))
        return simulate_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "run"))
        return run_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "resume"))
        return resume_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "status"))
        return status_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return export_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return report_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify"))
        return verify_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "night"))
        return night_main(argc - 1, argv + 1);
    fprintf(stderr, "ratchet-tune: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
