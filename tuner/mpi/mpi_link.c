/* bin/ratchet-tune-mpi's link between ranks: sends that never block, the
 * polled receive; see mpi_link.h. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "growarray.h"
#include "msg.h"
#include "mpi_link.h"

int g_rank, g_size;
char g_host[MPI_MAX_PROCESSOR_NAME];

void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

void poll_backoff(long *us, long max)
{
    sleep_us(*us);
    *us = *us * 2 > max ? max : *us * 2;
}

void mpi_die_oom(void)
{
    fprintf(stderr, "ratchet-tune: rank %d (%s): out of memory\n", g_rank, g_host);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- sends that never block: MPI_Isend, the buffer kept until MPI_Test says done ---- */

/* Send b's bytes to dest; b is emptied (the outbox owns the bytes now). */
void post(Outbox *o, int dest, int tag, Buf *b)
{
    if (b->oom)
        mpi_die_oom();
    if (!grow_array((void **)&o->v, &o->cap, o->n + 1, sizeof *o->v))
        mpi_die_oom();
    Pending *p = &o->v[o->n++];
    p->buf = b->p;
    p->dest = dest;
    MPI_Isend(b->p ? b->p : "", (int)b->len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &p->req);
    memset(b, 0, sizeof *b);
}

void post_empty(Outbox *o, int dest, int tag)
{
    Buf b = { 0 };
    post(o, dest, tag, &b);
}

/* Free the sends that completed; true if any did. */
bool outbox_progress(Outbox *o)
{
    size_t k = 0;
    bool any = false;
    for (size_t i = 0; i < o->n; i++) {
        int flag = 0;
        MPI_Test(&o->v[i].req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            free(o->v[i].buf);
            any = true;
        } else {
            o->v[k++] = o->v[i];
        }
    }
    o->n = k;
    return any;
}

/* Wait until every sent message left (the other ranks keep receiving). */
void outbox_flush(Outbox *o)
{
    long us = POLL_MIN_US;
    while (o->n > 0) {
        if (!outbox_progress(o)) {
            poll_backoff(&us, POLL_MAX_US);
        }
    }
}

/* Give up the sends to dest that have not completed (see mpi_link.h). */
void outbox_forget(Outbox *o, int dest)
{
    outbox_progress(o);
    size_t k = 0;
    for (size_t i = 0; i < o->n; i++) {
        if (o->v[i].dest == dest)
            MPI_Request_free(&o->v[i].req); /* o->v[i].buf is not freed: the send may still read it */
        else
            o->v[k++] = o->v[i];
    }
    o->n = k;
}

/* ---- receiving --------------------------------------------------------------------- */

/* The next message from src (or any), if one is there: true with m filled. */
bool poll_msg(int src, Msg *m)
{
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (!flag)
        return false;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    m->src = st.MPI_SOURCE;
    m->tag = st.MPI_TAG;
    m->len = (size_t)n;
    m->p = malloc(m->len + 1);
    if (!m->p)
        mpi_die_oom();
    MPI_Recv(m->p, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    m->p[m->len] = '\0';
    return true;
}

void protocol_error(const Msg *m, const char *what)
{
    fprintf(stderr, "ratchet-tune: rank %d (%s): bad %s message (tag %d, %zu bytes) from rank %d; aborting the job\n",
            g_rank, g_host, what, m->tag, m->len, m->src);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
