/* fastchess's report block of a match, as the match command, the tuner's
 * verification and the match's HTML page print it. */
#ifndef RATCHET_MATCHREPORT_H
#define RATCHET_MATCHREPORT_H

#include <stdio.h>

#include "match.h"
#include "sprt.h"

/* fastchess's report block, the SPRT verdict and the per-engine counts.
 * With `stop` (may be NULL) holding a verdict, that verdict is printed,
 * with the games finished after it (counted in the block) named; without,
 * the verdict is computed from the tally. */
void match_report(FILE *out, const MatchConfig *cfg, const MatchTally *t, const SprtSpec *s,
                  const SprtStop *stop);

#endif
