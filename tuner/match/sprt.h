/* A match's results so far and what they say: the tally (games, W/D/L,
 * pentanomial pairs, failures per engine), the Elo estimate, the SPRT
 * check and its -sprt option.  Shared by the match command, the tuner's
 * verification and the reports. */
#ifndef RATCHET_SPRT_H
#define RATCHET_SPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    uint64_t wall_nodes, wall_ms;  /* both engines' PairResult.wall_nodes, wall_ms (wall_search_add) */
} MatchTally;

void tally_add(MatchTally *t, const PairResult *r);
/* Whether a tally read back from a file could have been counted by
 * tally_add: W+D+L is the games, the pentanomial pairs add up to the pairs
 * and hold no more points than the games, a failure count is at most the
 * games.  Returns 0, or -1 with the first disagreement in why. */
int tally_check(const MatchTally *t, char *why, size_t len);
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

#endif
