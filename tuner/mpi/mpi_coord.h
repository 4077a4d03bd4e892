/* bin/ratchet-tune-mpi, rank 0: the distributed runner (mpi_coord.c).
 * Compiled only by mpicc, into bin/ratchet-tune-mpi; see mpi.c. */
#ifndef RATCHET_MPI_COORD_H
#define RATCHET_MPI_COORD_H

#include <stdbool.h>

#include "match.h"

/* match_transport under MPI (see mpi.c).  The configuration is checked by
 * each worker's match_play, which then reports a failed start. */
int coord_play(const MatchConfig *cfg, const MatchHooks *hooks);
/* After the command: every worker leaves its loop; its last messages are
 * received (and dropped) so that its sends complete before it finalizes.
 * False when some rank did not leave within BYE_WAIT_MS (a rank retired for
 * silence, still frozen): MPI_Finalize would then wait for it for ever, so
 * the caller ends the job with MPI_Abort (the command's files are written). */
bool coord_shutdown(void);

#endif
