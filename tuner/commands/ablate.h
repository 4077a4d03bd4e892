/* `ratchet-tune verify DIR -ablate [groups=auto|FILE|NAME:P1,P2;NAME2:P3]`:
 * which groups of the run's moves pay, judged by one match (a random-balance
 * ablation, tuner/spsa/ablation.h).  In each game pair, engine 0 plays the
 * tuned values on a random half of the groups and the start values on the
 * rest, engine 1 the complement; both are the run's engine with the values
 * sent as UCI options before each game.  A least-squares fit of the pairs'
 * score differences on the design gives every group an Elo with a 95%
 * interval.  Openings, limit and adjudication as `verify` takes them.
 *
 * DIR/ablation.json (replaced atomically at most every 250 ms while pairs
 * finish, and when the session ends; a pair finished after the last save
 * is played again by the next session; its format is
 * tuner/tuning/ablation_record.h):
 *   { "version": 1, "status": "running"|"stopped"|"done",
 *     "groups": [{ "name", "params": [names], "elo", "elo_lo", "elo_hi",
 *                  "beta", "se", "verdict": "pays"|"costs"|"unclear" }]
 *                (the estimates once there are enough pairs),
 *     "fit": { "pairs", "intercept", "intercept_se", "sigma" },
 *     "additivity": { "whole_pairs", "sum_elo", "sum_lo", "sum_hi", "whole_elo", ..., "gap_elo",
 *                     "gap_lo", "gap_hi" (and each as "_beta", "_se" in pair score), "verdict":
 *                     "adds up"|"less than the sum"|"more than the sum" } (with whole pairs),
 *     "rounds" (pairs to play), "rounds_asked", "capped" (true when a
 *     deterministic limit capped the pairs at the fresh openings),
 *     "tc", "book", "openings": { "set", "file", "count", "book_size" },
 *     "seed" (the design's and the match's), "design": "mirrored-couples-mt19937"
 *     (+"+whole" with whole pairs), "whole_every" (a whole couple every N, 0: none),
 *     "groups_spec", "args": [options as given],
 *     "run_games", "tuned": { NAME: value }, "base": { NAME: value },
 *     "games", "ptnml": [5] (engine 0's view),
 *     "pairs": [{ "pair", "opening", "design": "+-..." (per group, '+' = engine 0
 *                 tuned), "diff" (engine 0's points minus engine 1's) }],
 *     "sessions", "created", "updated" } */
#ifndef RATCHET_ABLATE_H
#define RATCHET_ABLATE_H

#include "ablation_record.h" /* ABLATION_FILE */

/* argv as verify_main's (argv[1] = DIR), one of them -ablate.  Exit codes
 * as verify's: 0 finished (or finished before), 1 stopped by an error, 2
 * bad usage or run directory, 128 + N stopped by signal N. */
int ablate_main(int argc, char **argv);

#endif
