/* The plain `match` command: rounds of game pairs or single games, the
 * SPRT stop, the progress line and fastchess's report.  The tally and SPRT
 * check (sprt.h) and the report block (matchreport.h) are shared with the
 * tuner. */
#ifndef RATCHET_MATCHCMD_H
#define RATCHET_MATCHCMD_H

#include "match.h"
#include "matchreport.h"
#include "sprt.h"

/* `ratchet-tune match ...`: exit code 0 when the match ran, 1 when it stopped
 * because the PGN file could not be written, 2 on a usage error. */
int match_main(int argc, char **argv);

#endif
