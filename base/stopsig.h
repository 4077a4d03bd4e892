/* The stop of a long-running command (run, match, verify, verify -ablate)
 * on SIGINT or SIGTERM.  The first signal sets the stop flag that the match
 * reads, remembers the signal and prints the command's note; the command
 * then saves and says how to continue.  A second signal ends the process at
 * once (what is on disk is whole).  The flag set without a signal (an error
 * that ends the session, an SPRT verdict: stopsig_request) is not a first
 * signal: a Ctrl-C after it still stops cleanly. */
#ifndef RATCHET_STOPSIG_H
#define RATCHET_STOPSIG_H

#include <signal.h>
#include <stdatomic.h>

/* The stop flag: MatchConfig.stop points here while a command plays. */
extern atomic_int stopsig_flag;

/* The handlers that were there before stopsig_install. */
typedef struct {
    struct sigaction old_int, old_term;
} StopSig;

/* Clears the flag and the signal and installs the handler for SIGINT and
 * SIGTERM; note (a string that outlives the command) is written to stderr
 * at the first signal. */
void stopsig_install(StopSig *s, const char *note);
void stopsig_restore(const StopSig *s);
/* Stop without a signal. */
void stopsig_request(void);
/* The signal that stopped the command, or 0. */
int stopsig_signal(void);

#endif
