/* `ratchet-tune run` and `ratchet-tune resume`: start a tuning run or
 * continue one (the run in play: tuning/tuning.h).
 *
 * Exit codes: 0 the run played all its games (or was already complete);
 * 1 the run stopped on an error (engine that cannot be restarted, disk);
 * 2 a usage or configuration error (nothing was played);
 * 128 + signal number when SIGINT or SIGTERM stopped it (it can be resumed). */
#ifndef RATCHET_RUN_CMD_H
#define RATCHET_RUN_CMD_H

/* argv[0] is the subcommand name ("run", "resume"). */
int run_main(int argc, char **argv);
int resume_main(int argc, char **argv);

#endif
