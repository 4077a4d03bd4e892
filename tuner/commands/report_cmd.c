/* `ratchet-tune report DIR [-o FILE]`: the HTML page of a run
 * (htmlreport.h); see report_cmd.h. */
#include "report_cmd.h"

#include <limits.h>
#include <stdio.h>

#include "cliutil.h"
#include "htmlreport.h"

static const char REPORT_USAGE[] =
    "usage: ratchet-tune report DIR [-o FILE]\n"
    "\n"
    "Writes the HTML report of the run in DIR to DIR/report.html (or FILE): a chart of every\n"
    "tuned parameter against games (start, bounds, theta +/- c_k, the mean of the last 10%,\n"
    "the status flags), all parameters in units of c_end, games/s, the cumulative score of\n"
    "theta+c against theta-c, the pentanomial counts, failures per engine, the configuration\n"
    "and the export and bake commands.  One self-contained file: charts are inline SVG, it\n"
    "opens from disk with no network.  A run keeps DIR/report.html current by itself; this\n"
    "command is for finished runs, runs of older builds, and snapshots.\n";

int report_main(int argc, char **argv)
{
    const char *dir, *outfile;
    int rc0 = cli_dir_output(argc, argv, REPORT_USAGE, &dir, &outfile);
    if (rc0 >= 0)
        return rc0;
    char out[PATH_MAX], err[1024];
    if (outfile)
        snprintf(out, sizeof out, "%s", outfile);
    else
        snprintf(out, sizeof out, "%s/%s", dir, REPORT_FILE);
    if (htmlreport_run(dir, out, outfile ? HTML_RUN_FINAL : HTML_RUN_AUTO, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: report: %s\n", err);
        return 1;
    }
    fprintf(stderr, "wrote %s\n", out);
    return 0;
}
