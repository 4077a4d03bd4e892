/* The plain `match` command (match_cmd, declared in match.h): rounds of game
 * pairs or single games, the SPRT stop, the progress line and fastchess's
 * report.  The tally and SPRT check (sprt.h) and the report block
 * (matchreport.h) are shared with the tuner. */
#ifndef RATCHET_MATCHCMD_H
#define RATCHET_MATCHCMD_H

#include "match.h"
#include "matchreport.h"
#include "sprt.h"

#endif
