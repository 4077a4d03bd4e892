/* bin/ratchet-tune-mpi: the same tuner, its game pairs played by the ranks
 * of an MPI job.  Every MPI call of the project is in this file (main),
 * mpi_link.c (the sends and the receiving, for every rank), mpi_coord.c
 * (rank 0) and mpi_worker.c (a worker rank), and only
 * bin/ratchet-tune-mpi is linked with them (see docs/design.md: "MPI is a transport,
 * not a new tuner").
 *
 * Rank 0 runs ratchet-tune's own command dispatcher (tuner/commands/main.c), so `run`,
 * `resume`, `match`, `status`, `export` behave and write exactly as they do
 * locally; only match_transport (match.h) is replaced by coord_play (mpi_coord.c).
 * coord_play asks the caller's hooks for pairs (next_pair), sends each to a
 * worker rank with its opening as a FEN, and hands the results back
 * (pair_done, pair_abandoned) on rank 0's main thread, one at a time, as the
 * local runner does under its lock.  Rank 0 writes every file: the state,
 * history.csv, the PGN (games arrive as text with their results).
 *
 * A worker rank (1..N-1) waits for a configuration, then runs the local
 * runner (match_play) with -concurrency threads and its own engine
 * processes, through hooks that take the pairs rank 0 sent and queue the
 * results for it.  Only the worker's main thread calls MPI
 * (MPI_THREAD_FUNNELED); nobody waits in a blocking MPI call: every rank
 * polls with MPI_Iprobe / MPI_Test and sleeps between polls, so idle ranks
 * leave the CPU to the engines.
 *
 * Messages (all MPI_BYTE, host byte order; the configuration carries a
 * layout signature, so ranks built differently refuse to work together):
 *   0 -> w  CONFIG  header + MatchConfig      start a session
 *   w -> 0  WANT    n                         engines up; room for n pairs
 *   0 -> w  JOB     seq, PairJob fields, FEN  one pair (one credit used)
 *   w -> 0  RESULT  seq, PairResult, PGN text a finished pair (one credit back)
 *   w -> 0  ABANDON seq                       a pair not finished (stop, fatal error)
 *   0 -> w  END                               no more pairs: finish and report
 *   0 -> w  STOP                              abandon the pairs in flight now
 *   w -> 0  DONE    rc, host                  match_play returned rc
 *   0 -> w  QUIT                              leave (after the command ended)
 *   w -> 0  BYE                               all sends done; finalizing
 *
 * The bytes are packed and decoded by msg.c (msg.h), which range-checks
 * every field of a message when it arrives.  Rank 0 refuses a worker's
 * message that fails, or a result or abandon for a pair that another rank
 * holds, with a message naming the rank, and the session goes on (a refused
 * result's pair is played again; a rank whose WANT or DONE is refused is
 * retired).
 *
 * Faults: engine faults on a worker are the local runner's (forfeit,
 * restart, counted per engine in the PairResult that reaches rank 0).  A
 * worker whose engine cannot be restarted is retired with a message and the
 * job goes on with the others.  A rank that dies aborts the job (Open MPI's
 * default, MPI_ERRORS_ARE_FATAL): rank 0 has then counted only finished
 * pairs and saved after each batch, so `resume` replays the batches that
 * were in flight.  A rank that stays alive but stops answering (stopped,
 * frozen, cut off) is retired by rank 0 past a per-pair deadline derived
 * from the limit and the watchdog (mpi_coord.c, check_deadlines), its pairs
 * played by the others; at the end rank 0 ends the job with MPI_Abort if
 * such a rank never left.  SIGINT/SIGTERM (mpirun sends SIGTERM to every rank, then
 * SIGKILL about a second later): rank 0 stops as locally, the workers
 * abandon their games. */
#include <mpi.h>

#include <stdio.h>

#include "match.h"
#include "mpi_coord.h"
#include "mpi_link.h"
#include "mpi_worker.h"

int ratchet_tune_main(int argc, char **argv); /* tuner/commands/main.c, compiled with -Dmain=ratchet_tune_main */

/* ---- main ---------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "ratchet-tune-mpi: MPI_Init_thread failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int hl = 0;
    MPI_Get_processor_name(g_host, &hl);
    if (provided < MPI_THREAD_FUNNELED) {
        if (g_rank == 0)
            fprintf(stderr, "ratchet-tune-mpi: this MPI library does not support MPI_THREAD_FUNNELED\n");
        MPI_Finalize();
        return 1;
    }
    if (g_rank != 0) {
        worker_main();
        MPI_Finalize();
        return 0;
    }
    /* Rank 0: the ordinary command, played by the workers.  Alone (started
     * without mpirun, or -np 1) it plays locally, like bin/ratchet-tune. */
    static char prog[1200];
    if (g_size > 1) {
        match_transport = coord_play;
        extern char *program_invocation_name;
        snprintf(prog, sizeof prog, "mpirun -np %d %s", g_size, argv[0]);
        program_invocation_name = prog; /* "resume with: mpirun -np 17 bin/ratchet-tune-mpi resume DIR" */
    }
    int rc = ratchet_tune_main(argc, argv);
    fflush(NULL);
    if (g_size > 1 && !coord_shutdown()) {
        /* A rank that does not leave would hold MPI_Finalize for ever: end the
         * job (mpirun exits with rc; the command's files are written). */
        fprintf(stderr, "ratchet-tune-mpi: ending the job with MPI_Abort (exit code %d): a worker rank did not leave\n", rc);
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
    MPI_Finalize();
    return rc;
}
