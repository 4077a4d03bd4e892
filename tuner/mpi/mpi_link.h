/* bin/ratchet-tune-mpi's link between ranks, used by rank 0 (mpi_coord.c)
 * and the workers (mpi_worker.c): sends that never block (an outbox of
 * MPI_Isend requests), the polled receive, and what a rank says when it
 * must abort the job.  main (mpi.c) fills g_rank, g_size and g_host after
 * MPI_Init_thread.  Compiled only by mpicc, into bin/ratchet-tune-mpi. */
#ifndef RATCHET_MPI_LINK_H
#define RATCHET_MPI_LINK_H

#include <mpi.h>

#include <stdbool.h>
#include <stddef.h>

#include "msg.h"

enum {
    POLL_MIN_US = 50,
    POLL_MAX_US = 2000,         /* rank 0's longest sleep between polls */
    WORKER_POLL_MAX_US = 10000, /* a worker's (its threads have pairs queued ahead; a result
                                 * is sent at once, without waiting for the poll) */
    IDLE_POLL_US = 20000,       /* a worker between sessions */
    STOP_WAIT_MS = 3000,        /* rank 0 after a stop: results and abandons still arriving */
    BYE_WAIT_MS = 10000
};

typedef struct {
    MPI_Request req;
    char *buf;
    int dest;
} Pending;

typedef struct {
    Pending *v;
    size_t n, cap;
} Outbox;

typedef struct {
    int src, tag;
    char *p;
    size_t len;
} Msg;

/* This rank, the job's size, this host's name. */
extern int g_rank, g_size;
extern char g_host[MPI_MAX_PROCESSOR_NAME];

void sleep_us(long us);
/* A poll that found nothing: sleep *us microseconds, then double *us, up to max. */
void poll_backoff(long *us, long max);

/* Says this rank is out of memory and aborts the job. */
void mpi_die_oom(void);

/* Sends that never block. */
/* Send b's bytes to dest; b is emptied (the outbox owns the bytes now). */
void post(Outbox *o, int dest, int tag, Buf *b);
void post_empty(Outbox *o, int dest, int tag);
/* Free the sends that completed; true if any did. */
bool outbox_progress(Outbox *o);
/* Wait until every sent message left (the other ranks keep receiving). */
void outbox_flush(Outbox *o);
/* Give up the sends to dest that have not completed (a rank that no longer
 * receives): their requests are freed, their bytes left allocated for good
 * (MPI may still read them), so that outbox_flush does not wait for them. */
void outbox_forget(Outbox *o, int dest);

/* Receiving. */
/* The next message from src (or any), if one is there: true with m filled. */
bool poll_msg(int src, Msg *m);
/* A message this rank cannot take at all: says so and aborts the job. */
void protocol_error(const Msg *m, const char *what);

#endif
