/* The `simulate` command: SPSA against a synthetic match model
 * (spsa/simulate.h), or every form on the landscape suite (simulate_suite.h). */
#ifndef RATCHET_SIMULATE_CMD_H
#define RATCHET_SIMULATE_CMD_H

/* The command line: argv[0] is the command name ("simulate"), options start
 * at argv[1].  Exit code 0 on success, 2 on a usage error, 1 on failure. */
int simulate_main(int argc, char **argv);

#endif
