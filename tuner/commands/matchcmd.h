/* The plain `match` command (match_cmd, declared in match.h): rounds of game
 * pairs or single games, the SPRT stop, the progress line and fastchess's
 * report.  The tally, SPRT check and report are shared with the tuner. */
#ifndef RATCHET_MATCHCMD_H
#define RATCHET_MATCHCMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "match.h"
#include "stats.h"

typedef struct {
    bool on;
    double elo0, elo1, alpha, beta;   /* normalized Elo bounds, error rates */
} SprtSpec;

/* Results so far, from engine 0's view. */
typedef struct {
    uint64_t games, wins, losses, draws;
    uint64_t plies;
    uint64_t pairs, ptnml[5];
    uint64_t penta_wl, penta_dd;   /* the two halves of ptnml[2] */
    uint64_t time_losses[2], crashes[2], illegal[2], restarts[2];
} MatchTally;

void tally_add(MatchTally *t, const PairResult *r);
/* LLR of the tally (pentanomial when it holds pairs, else trinomial) and
 * the verdict: +1 H1 accepted, -1 H0 accepted, 0 continue. */
int sprt_check(const MatchTally *t, const SprtSpec *s, double *llr, double *lower, double *upper);
/* One key=value of -sprt (elo0, elo1, alpha, beta, model=normalized) into
 * the SprtSpec ctx, for cli_key_values. */
int sprt_kv(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen);
/* Elo, nElo, LOS of the tally: pentanomial when it holds pairs, else trinomial. */
void match_estimate(const MatchTally *t, EloEstimate *e);
/* The verdict that stopped a match, as it stood when it was reached. */
typedef struct {
    int verdict;        /* +1 H1, -1 H0, 0 not decided */
    uint64_t games;     /* games counted when it was reached */
    double llr;
} SprtStop;

/* fastchess's report block, the SPRT verdict and the per-engine counts.
 * With `stop` (may be NULL) holding a verdict, that verdict is printed,
 * with the games finished after it (counted in the block) named; without,
 * the verdict is computed from the tally. */
void match_report(FILE *out, const MatchConfig *cfg, const MatchTally *t, const SprtSpec *s,
                  const SprtStop *stop);

#endif
