/* `ratchet-tune verify DIR [match options]`: the morning's work in one
 * command.  It exports the run's values, bakes them into an engine of their
 * own (bin/ratchet; any other engine gets them as UCI options), plays an
 * SPRT match of the tuned values against the run's start values with the
 * run's time control and book (unless told otherwise), and writes the
 * verdict, the Elo and the pentanomial counts to DIR/verify.json, which
 * `status` shows.  A verify that is stopped (Ctrl-C, SIGTERM, SIGKILL)
 * continues where it was when it is started again.
 *
 * DIR/verify/ holds what it makes: tuned.json and base.json (value files:
 * the tuned values and the start values), the baked engines ratchet-tuned
 * and ratchet-base with their build directories, and bake-*.log.
 *
 * DIR/verify.json (replaced atomically after every finished pair; its
 * format is tuner/tuning/verify_record.h):
 *   { "version": 1, "status": "running"|"stopped"|"done",
 *     "verdict": "H1"|"H0"|"undecided"|"none"|"identical",
 *     "games", "wins", "losses", "draws", "pairs", "ptnml": [5],
 *     "elo", "elo_err", "nelo", "nelo_err", "los",
 *     "sprt": { "elo0", "elo1", "alpha", "beta", "llr", "lower", "upper" } (absent without SPRT),
 *     "rounds" (pairs to play, 0 = until the SPRT decides), "tc", "book", "seed",
 *     "engines": { "mode": "baked"|"options", "tuned": cmd, "base": cmd },
 *     "run_games", "base_file" (-base, "" = the start values),
 *     "tuned_file" (-tuned, "" = the run's values), "tuned": { NAME: value },
 *     "base": { NAME: value },
 *     "args": [the match options verify was given], "next_round", "pending": [rounds to replay],
 *     "penta_wl", "penta_dd", "plies", "time_losses": [2], "crashes": [2], "illegal": [2],
 *     "restarts": [2], "wall_search": { "nodes", "ms" } (on the wall clock: the nodes the engines
 *     reported and those moves' wall ms, game.h; absent otherwise), "sessions", "elapsed_s",
 *     "created", "updated" }
 * Engine 0 is the tuned engine: wins, Elo and the pentanomial counts are
 * from its side. */
#ifndef RATCHET_VERIFY_H
#define RATCHET_VERIFY_H

#include <stdio.h>

#include "state.h"
#include "verdict.h"

/* Exit codes: 0 the verify finished (whatever its verdict) or had finished
 * already; 1 stopped by an error (a bake that failed, an engine that cannot
 * be restarted, the disk); 2 bad usage, a bad or missing run directory, or
 * settings that differ from an unfinished verify (nothing played);
 * 128 + N stopped by signal N (run it again to continue). */
int verify_main(int argc, char **argv);

#endif
