/* bin/ratchet-tune-mpi's private parts, shared by mpi.c (the sends, the
 * receiving and main), mpi_coord.c (rank 0) and mpi_worker.c (a worker
 * rank).  Compiled only by mpicc, into bin/ratchet-tune-mpi; see mpi.c. */
#ifndef RATCHET_MPI_IMPL_H
#define RATCHET_MPI_IMPL_H

#include <mpi.h>

#include <stdbool.h>
#include <stddef.h>

#include "match.h"
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

extern int g_rank, g_size;
extern char g_host[MPI_MAX_PROCESSOR_NAME];

void sleep_us(long us);

/* mpi.c: sends that never block. */
void mpi_die_oom(void);
/* v (n elements used of *cap, each elem bytes) with room for one more. */
void *grow(void *v, size_t n, size_t *cap, size_t elem);
/* Send b's bytes to dest; b is emptied (the outbox owns the bytes now). */
void post(Outbox *o, int dest, int tag, Buf *b);
void post_empty(Outbox *o, int dest, int tag);
/* Free the sends that completed; true if any did. */
bool outbox_progress(Outbox *o);

/* mpi.c: receiving. */
/* The next message from src (or any), if one is there: true with m filled. */
bool poll_msg(int src, Msg *m);
void protocol_error(const Msg *m, const char *what);
/* Credits a worker asks for: its threads plus a few pairs queued ahead, so a
 * thread that finishes a pair finds the next one without a round trip. */
int worker_credit(int concurrency);

/* mpi_coord.c: rank 0. */
/* Wait until every sent message left (the workers keep receiving). */
void outbox_flush(Outbox *o);
/* match_transport under MPI (see mpi.c).  The configuration is checked by
 * each worker's match_play, which then reports a failed start. */
int coord_play(const MatchConfig *cfg, const MatchHooks *hooks);
/* After the command: every worker leaves its loop; its last messages are
 * received (and dropped) so that its sends complete before it finalizes. */
void coord_shutdown(void);

/* mpi_worker.c: a worker rank's loop. */
void worker_main(void);

#endif
