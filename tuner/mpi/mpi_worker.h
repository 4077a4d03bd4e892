/* bin/ratchet-tune-mpi, a worker rank (mpi_worker.c).  Compiled only by
 * mpicc, into bin/ratchet-tune-mpi; see mpi.c. */
#ifndef RATCHET_MPI_WORKER_H
#define RATCHET_MPI_WORKER_H

/* A worker rank's loop: sessions of the local runner for rank 0, until
 * rank 0 says QUIT. */
void worker_main(void);

#endif
