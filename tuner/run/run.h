/* `ratchet-tune run` and `ratchet-tune resume`: an SPSA tuning run of any
 * UCI engine's spin options, played as concurrent game pairs by the match
 * runner (tuner/match.h), moved by tuner/spsa.h, checkpointed into a run
 * directory (tuner/runstate.h, tuner/runhist.h) after every batch.
 *
 * Engine 0 of every pair plays theta + c_k * flip, engine 1 theta - c_k *
 * flip (the batch's integer values, sent with setoption before each game).
 *
 * Exit codes: 0 the run played all its games (or was already complete);
 * 1 the run stopped on an error (engine that cannot be restarted, disk);
 * 2 a usage or configuration error (nothing was played);
 * 128 + signal number when SIGINT or SIGTERM stopped it (it can be resumed). */
#ifndef RATCHET_RUN_H
#define RATCHET_RUN_H

/* argv[0] is the subcommand name ("run", "resume"). */
int run_main(int argc, char **argv);
int resume_main(int argc, char **argv);

#endif
