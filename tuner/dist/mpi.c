/* bin/ratchet-tune-mpi: the same tuner, its game pairs played by the ranks
 * of an MPI job.  Every MPI call of the project is in this file, and only
 * bin/ratchet-tune-mpi is linked with it (see docs/design.md: "MPI is a transport,
 * not a new tuner").
 *
 * Rank 0 runs ratchet-tune's own command dispatcher (tuner/main.c), so `run`,
 * `resume`, `match`, `status`, `export` behave and write exactly as they do
 * locally; only match_transport (match.h) is replaced by coord_play below.
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
 * were in flight.  SIGINT/SIGTERM (mpirun sends SIGTERM to every rank, then
 * SIGKILL about a second later): rank 0 stops as locally, the workers
 * abandon their games. */
#include <mpi.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "cli.h"
#include "match.h"
#include "msg.h"
#include "pgn.h"

int ratchet_tune_main(int argc, char **argv); /* tuner/main.c, compiled with -Dmain=ratchet_tune_main */

enum {
    POLL_MIN_US = 50,
    POLL_MAX_US = 2000,         /* rank 0's longest sleep between polls */
    WORKER_POLL_MAX_US = 10000, /* a worker's (its threads have pairs queued ahead; a result
                                 * is sent at once, without waiting for the poll) */
    IDLE_POLL_US = 20000,       /* a worker between sessions */
    STOP_WAIT_MS = 3000,        /* rank 0 after a stop: results and abandons still arriving */
    BYE_WAIT_MS = 10000
};

static int g_rank, g_size;
static char g_host[MPI_MAX_PROCESSOR_NAME];

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* ---- sends that never block: MPI_Isend, the buffer kept until MPI_Test says done ---- */

typedef struct {
    MPI_Request req;
    char *buf;
} Pending;

typedef struct {
    Pending *v;
    size_t n, cap;
} Outbox;

static void die_oom(void)
{
    fprintf(stderr, "ratchet-tune: rank %d (%s): out of memory\n", g_rank, g_host);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* v (n elements used of *cap, each elem bytes) with room for one more. */
static void *grow(void *v, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? *cap * 2 : 16;
    void *nv = realloc(v, c * elem);
    if (!nv)
        die_oom();
    *cap = c;
    return nv;
}

/* Send b's bytes to dest; b is emptied (the outbox owns the bytes now). */
static void post(Outbox *o, int dest, int tag, Buf *b)
{
    if (b->oom)
        die_oom();
    o->v = grow(o->v, o->n, &o->cap, sizeof *o->v);
    Pending *p = &o->v[o->n++];
    p->buf = b->p;
    MPI_Isend(b->p ? b->p : "", (int)b->len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &p->req);
    memset(b, 0, sizeof *b);
}

static void post_empty(Outbox *o, int dest, int tag)
{
    Buf b = { 0 };
    post(o, dest, tag, &b);
}

/* Free the sends that completed; true if any did. */
static bool outbox_progress(Outbox *o)
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

/* ---- receiving --------------------------------------------------------------------- */

typedef struct {
    int src, tag;
    char *p;
    size_t len;
} Msg;

/* The next message from src (or any), if one is there: true with m filled. */
static bool poll_msg(int src, Msg *m)
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
        die_oom();
    MPI_Recv(m->p, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    m->p[m->len] = '\0';
    return true;
}

static void protocol_error(const Msg *m, const char *what)
{
    fprintf(stderr, "ratchet-tune: rank %d (%s): bad %s message (tag %d, %zu bytes) from rank %d; aborting the job\n",
            g_rank, g_host, what, m->tag, m->len, m->src);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Credits a worker asks for: its threads plus a few pairs queued ahead, so a
 * thread that finishes a pair finds the next one without a round trip. */
static int worker_credit(int concurrency)
{
    return concurrency + 1 + concurrency / 4;
}

/* ---- rank 0: the distributed runner ------------------------------------------------- */

typedef struct {
    bool ready;                 /* WANT seen: its engines are up */
    bool ended;                 /* END sent */
    bool stopped;               /* STOP sent */
    bool done;                  /* DONE seen */
    int rc;
    int credit;                 /* pairs it has room for */
    int held;                   /* pairs it has (playing or queued) */
    char host[MPI_MAX_PROCESSOR_NAME];
} Worker;

typedef struct {
    const MatchConfig *cfg;
    const MatchHooks *hooks;
    Worker *w;                  /* by rank; [0] unused */
    OutPair *out;               /* pairs at the workers */
    size_t nout, capout;
    PairJob *spare;             /* one PairJob kept for the next hand-out */
    uint64_t seq;
    Outbox ob;
    PgnFile *pgn;
    bool pgn_failed;            /* a write to the PGN failed: the session stops */
    int live;                   /* workers neither done nor retired */
} Coord;

static void drop_out(Coord *c, OutPair *o)
{
    c->w[o->worker].held--;
    free(o->job);
    *o = c->out[--c->nout];
}

static void abandon_out(Coord *c, OutPair *o)
{
    if (c->hooks->pair_abandoned)
        c->hooks->pair_abandoned(c->hooks->ctx, o->job);
    drop_out(c, o);
}

static bool wants_pairs(const Worker *wk)
{
    return wk->ready && wk->credit > 0 && !wk->ended && !wk->stopped && !wk->done;
}

/* Give pairs to the workers with room, one at a time to the one that holds
 * the fewest (so that an idle worker is served before another queues ahead);
 * END to a worker with room when the hooks have no pair (a worker waiting
 * for a pair must not wait for ever: its runner holds its lock meanwhile).
 * True if anything was sent. */
static bool hand_out(Coord *c)
{
    bool any = false;
    for (;;) {
        int w = 0;
        for (int i = 1; i < g_size; i++)
            if (wants_pairs(&c->w[i]) && (w == 0 || c->w[i].held < c->w[w].held))
                w = i;
        if (w == 0)
            return any;
        Worker *wk = &c->w[w];
        PairJob *job = c->spare ? c->spare : malloc(sizeof *job);
        if (!job)
            die_oom();
        c->spare = job;
        job->id = 0;
        job->opening = 0;
        job->nopts[0] = job->nopts[1] = 0;
        job->games = 0;
        job->swap = false;
        job->fen[0] = '\0';
        any = true;
        if (!c->hooks->next_pair(c->hooks->ctx, job)) {
            post_empty(&c->ob, w, T_END);
            wk->ended = true;
            continue;
        }
        const MatchConfig *cfg = c->cfg;
        if (!job->fen[0] && cfg->book)
            snprintf(job->fen, sizeof job->fen, "%s", book_fen(cfg->book, job->opening % book_size(cfg->book)));
        c->out = grow(c->out, c->nout, &c->capout, sizeof *c->out);
        OutPair *o = &c->out[c->nout++];
        o->seq = ++c->seq;
        o->worker = w;
        o->job = job;
        c->spare = NULL;
        Buf b = { 0 };
        msg_pack_job(&b, o->seq, job);
        post(&c->ob, w, T_JOB, &b);
        wk->credit--;
        wk->held++;
    }
}

static void stop_all(Coord *c)
{
    for (int w = 1; w < g_size; w++)
        if (!c->w[w].done && !c->w[w].stopped) {
            post_empty(&c->ob, w, T_STOP);
            c->w[w].stopped = true;
        }
}

/* A worker's session ended.  Unexpected (not after END or STOP): retire it. */
static void worker_done(Coord *c, int w, int rc, bool stopping)
{
    Worker *wk = &c->w[w];
    wk->done = true;
    wk->rc = rc;
    c->live--;
    for (size_t i = 0; i < c->nout;)
        if (c->out[i].worker == w)
            abandon_out(c, &c->out[i]);
        else
            i++;
    if (rc > 0 && !stopping)
        fprintf(stderr,
                "ratchet-tune: worker rank %d (%s) stopped: an engine could not be restarted (its message is above); "
                "%d worker%s go%s on\n",
                w, wk->host, c->live, c->live == 1 ? "" : "s", c->live == 1 ? "es" : "");
}

/* A message from rank src refused: say so, naming the rank and its host. */
static void refused(const Coord *c, int src, const char *why, const char *outcome)
{
    fprintf(stderr, "ratchet-tune: refused a message from worker rank %d (%s): %s; %s\n", src,
            c->w[src].host[0] ? c->w[src].host : "?", why, outcome);
}

/* Handle one message on rank 0 during a session.  A message that does not
 * decode, or a result or abandon for a pair the sender was not given, is
 * refused with a message; the session goes on. */
static void coord_msg(Coord *c, Msg *m, bool stopping)
{
    if (m->src <= 0 || m->src >= g_size)
        protocol_error(m, "coordinator");
    Worker *wk = &c->w[m->src];
    CoordMsg d;
    char why[256];
    if (msg_decode_coord(m->tag, m->p, m->len, &d, why, sizeof why) < 0) {
        if (m->tag == T_RESULT && d.has_seq) {
            long i = out_find(c->out, c->nout, d.seq, m->src, NULL);
            if (i >= 0) {
                /* The worker has finished with it: its credit comes back, the pair is played again. */
                refused(c, m->src, why, "its pair is played again");
                abandon_out(c, &c->out[i]);
                wk->credit++;
                return;
            }
        }
        if (m->tag == T_DONE && !wk->done) {
            refused(c, m->src, why, "the rank is retired");
            worker_done(c, m->src, 1, true);
            return;
        }
        refused(c, m->src, why, "ignored");
        return;
    }
    switch (m->tag) {
    case T_WANT:
        wk->ready = true;
        wk->credit += d.n;
        break;
    case T_RESULT:
    case T_ABANDON: {
        int owner = 0;
        long i = out_find(c->out, c->nout, d.seq, m->src, &owner);
        if (i == OUT_NONE)
            break; /* its worker was retired meanwhile: the pair was given back already */
        if (i == OUT_NOT_YOURS) {
            snprintf(why, sizeof why, "%s for pair %llu, which rank %d holds", m->tag == T_RESULT ? "a result" : "an abandon",
                     (unsigned long long)d.seq, owner);
            refused(c, m->src, why, "ignored");
            break;
        }
        OutPair *o = &c->out[i];
        if (m->tag == T_ABANDON) {
            abandon_out(c, o);
            break;
        }
        wk->credit++;
        if (c->pgn && d.textlen > 0) {
            PgnText t = { (char *)d.text, d.textlen, d.textlen };
            if (pgn_append(c->pgn, &t) < 0) {
                /* Not counted: the PGN would miss its games.  The session stops. */
                if (!c->pgn_failed)
                    fprintf(stderr, "ratchet-tune: the PGN file could not take a game; stopping\n");
                c->pgn_failed = true;
                abandon_out(c, o);
                break;
            }
        }
        c->hooks->pair_done(c->hooks->ctx, o->job, &d.res);
        drop_out(c, o);
        break;
    }
    case T_DONE:
        if (!wk->done)
            worker_done(c, m->src, d.n, stopping || wk->stopped);
        break;
    default:
        refused(c, m->src, "not a message of a session", "ignored");
    }
}

/* Poll: every waiting message handled, sends progressed.  True if anything happened. */
static bool coord_poll(Coord *c, bool stopping)
{
    bool any = outbox_progress(&c->ob);
    Msg m;
    while (poll_msg(MPI_ANY_SOURCE, &m)) {
        coord_msg(c, &m, stopping);
        free(m.p);
        any = true;
    }
    return any;
}

static void coord_free(Coord *c)
{
    for (size_t i = 0; i < c->nout; i++)
        free(c->out[i].job);
    free(c->out);
    free(c->spare);
    free(c->w);
    if (c->pgn)
        pgn_close(c->pgn);
}

/* Wait until every sent message left (the workers keep receiving). */
static void outbox_flush(Outbox *o)
{
    long us = POLL_MIN_US;
    while (o->n > 0) {
        if (!outbox_progress(o)) {
            sleep_us(us);
            us = us * 2 > POLL_MAX_US ? POLL_MAX_US : us * 2;
        }
    }
}

/* match_transport under MPI (see the top of the file).  The configuration
 * is checked by each worker's match_play, which then reports a failed start. */
static int coord_play(const MatchConfig *cfg, const MatchHooks *hooks)
{
    Coord c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.hooks = hooks;
    c.w = calloc((size_t)g_size, sizeof *c.w);
    if (!c.w)
        die_oom();
    c.live = g_size - 1;

    ConfigHead h;
    msg_config_head(&h, cfg->pgnout[0] != '\0', cfg->concurrency);
    for (int w = 1; w < g_size; w++) {
        Buf b = { 0 };
        msg_put(&b, &h, sizeof h);
        msg_put(&b, cfg, sizeof *cfg);
        post(&c.ob, w, T_CONFIG, &b);
    }

    /* All workers' engines up, or nobody plays (as match_play does locally).
     * A worker whose WANT is refused is retired: the others play. */
    int ready = 0, failed = 0, retired = 0;
    long us = POLL_MIN_US;
    while (ready + failed + retired < g_size - 1) {
        if (cfg->stop && *cfg->stop)
            break;
        Msg m;
        if (!poll_msg(MPI_ANY_SOURCE, &m)) {
            outbox_progress(&c.ob);
            sleep_us(us);
            us = us * 2 > POLL_MAX_US ? POLL_MAX_US : us * 2;
            continue;
        }
        us = POLL_MIN_US;
        Worker *wk = m.src > 0 && m.src < g_size ? &c.w[m.src] : NULL;
        CoordMsg d;
        char why[256];
        bool ok = wk && msg_decode_coord(m.tag, m.p, m.len, &d, why, sizeof why) == 0;
        if (ok)
            snprintf(wk->host, sizeof wk->host, "%s", d.host);
        if (wk && m.tag == T_WANT && !wk->ready && !wk->done) {
            if (ok) {
                wk->ready = true;
                wk->credit = d.n;
                ready++;
            } else {
                refused(&c, m.src, why, "the rank is retired");
                post_empty(&c.ob, m.src, T_STOP);
                wk->stopped = wk->done = true;
                wk->rc = 1;
                c.live--;
                retired++;
            }
        } else if (wk && m.tag == T_DONE && !wk->done) {
            if (!ok)
                refused(&c, m.src, why, "taken as a failed start");
            fprintf(stderr, "ratchet-tune: worker rank %d (%s) could not start its engines (its message is above)\n",
                    m.src, wk->host[0] ? wk->host : "?");
            wk->done = true;
            wk->rc = ok ? d.n : 1;
            c.live--;
            failed++;
        } else if (wk && wk->done) {
            /* a retired rank's last words */
        } else {
            protocol_error(&m, "start-up");
        }
        free(m.p);
    }
    int rc = 0;
    char err[512];
    bool stopped = cfg->stop && *cfg->stop; /* a signal during the start-up: nothing played */
    if (failed > 0) {
        rc = -1;
    } else if (!stopped && cfg->pgnout[0] && !(c.pgn = pgn_open(cfg->pgnout, err, sizeof err))) {
        fprintf(stderr, "ratchet-tune: %s\n", err);
        rc = -1;
    }
    if (rc == 0 && !stopped) {
        printf("distributed: %d worker rank%s x concurrency %d = %d games at a time\n", g_size - 1,
               g_size == 2 ? "" : "s", cfg->concurrency, (g_size - 1) * cfg->concurrency);
        fflush(stdout);
    }

    /* Play: hand out while workers have room, collect, until every worker is done. */
    bool stopping = rc < 0 || stopped;
    if (stopping)
        stop_all(&c);
    int64_t stop_deadline = stopping ? ep_now_ms() + STOP_WAIT_MS : 0;
    us = POLL_MIN_US;
    while (c.live > 0) {
        if (!stopping && ((cfg->stop && *cfg->stop) || c.pgn_failed)) {
            stopping = true;
            stop_deadline = ep_now_ms() + STOP_WAIT_MS;
            stop_all(&c);
        }
        bool any = coord_poll(&c, stopping);
        if (!stopping)
            any |= hand_out(&c);
        /* After a stop the state is whole without the workers' last words;
         * results and abandons that come in time are still counted. */
        if (stopping && (c.nout == 0 || ep_now_ms() > stop_deadline))
            break;
        if (any) {
            us = POLL_MIN_US;
        } else {
            sleep_us(us);
            us = us * 2 > POLL_MAX_US ? POLL_MAX_US : us * 2;
        }
    }
    while (c.nout > 0)
        abandon_out(&c, &c.out[0]);
    if (c.pgn_failed) {
        rc = 2; /* as match_play: the PGN could not take a game */
    } else if (rc == 0 && !stopping) {
        int retired = 0;
        for (int w = 1; w < g_size; w++)
            retired += c.w[w].rc > 0;
        if (retired == g_size - 1)
            rc = 1; /* every worker lost an engine: cut short, as locally */
    }
    outbox_flush(&c.ob);
    free(c.ob.v);
    coord_free(&c);
    return rc;
}

/* After the command: every worker leaves its loop; its last messages are
 * received (and dropped) so that its sends complete before it finalizes. */
static void coord_shutdown(void)
{
    Outbox ob = { 0 };
    for (int w = 1; w < g_size; w++)
        post_empty(&ob, w, T_QUIT);
    int byes = 0;
    int64_t deadline = ep_now_ms() + BYE_WAIT_MS;
    long us = POLL_MIN_US;
    while (byes < g_size - 1 && ep_now_ms() < deadline) {
        Msg m;
        bool any = outbox_progress(&ob);
        while (poll_msg(MPI_ANY_SOURCE, &m)) {
            byes += m.tag == T_BYE;
            free(m.p);
            any = true;
        }
        if (any) {
            us = POLL_MIN_US;
        } else {
            sleep_us(us);
            us = us * 2 > POLL_MAX_US * 10 ? POLL_MAX_US * 10 : us * 2;
        }
    }
    if (byes < g_size - 1)
        fprintf(stderr, "ratchet-tune: %d worker rank%s did not leave within %d s\n", g_size - 1 - byes,
                g_size - 1 - byes == 1 ? "" : "s", BYE_WAIT_MS / 1000);
    outbox_flush(&ob);
    free(ob.v);
}

/* ---- a worker rank ------------------------------------------------------------------ */

typedef struct {
    uint64_t seq;
    PairJob *job;
} QJob;

typedef struct {
    int tag;
    Buf b;
} QMsg;

typedef struct {
    const PairJob *key;         /* the runner thread's job, while it plays it */
    uint64_t seq;
    PgnText pgn;
} Slot;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t jobs_cv;     /* runner threads wait for a pair */
    pthread_cond_t main_cv;     /* the main thread waits for something to send */
    QJob *q;                    /* pairs from rank 0: q[qhead .. qend) */
    size_t qhead, qend, qcap;
    Slot *slots;
    int nslots;
    QMsg *outq;                 /* packed messages for rank 0 */
    size_t noutq, capoutq;
    bool started, end, match_done;
    int match_rc;
    const MatchConfig *cfg;
    MatchHooks hooks;
} Session;

static atomic_int g_wstop;      /* the runner's stop flag: STOP, or a signal */
static atomic_int g_wsignal;

static void worker_on_signal(int sig)
{
    (void)sig;
    g_wsignal = 1;
    g_wstop = 1;
}

/* Queue a message for the main thread to send (under s->mu). */
static void enqueue(Session *s, int tag, Buf *b)
{
    s->outq = grow(s->outq, s->noutq, &s->capoutq, sizeof *s->outq);
    s->outq[s->noutq++] = (QMsg){ tag, *b };
    memset(b, 0, sizeof *b);
    pthread_cond_signal(&s->main_cv);
}

static Slot *slot_of(Session *s, const PairJob *job)
{
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].key == job)
            return &s->slots[i];
    return NULL;
}

static bool w_next(void *ctx, PairJob *job)
{
    Session *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (!s->started) {
        s->started = true;
        pthread_cond_signal(&s->main_cv);
    }
    while (s->qhead == s->qend && !s->end && !g_wstop)
        pthread_cond_wait(&s->jobs_cv, &s->mu);
    bool got = s->qhead < s->qend && !g_wstop;
    if (got) {
        QJob *qj = &s->q[s->qhead++];
        PairJob *j = qj->job;
        job->id = j->id;
        job->opening = j->opening;
        job->games = j->games;
        job->swap = j->swap;
        memcpy(job->fen, j->fen, sizeof job->fen);
        for (int e = 0; e < 2; e++) {
            job->nopts[e] = j->nopts[e];
            memcpy(job->opts[e], j->opts[e], (size_t)j->nopts[e] * sizeof j->opts[e][0]);
        }
        Slot *sl = slot_of(s, NULL);
        if (!sl)
            die_oom(); /* more pairs in play than threads: cannot happen */
        sl->key = job;
        sl->seq = qj->seq;
        sl->pgn.len = 0;
        free(j);
    }
    pthread_mutex_unlock(&s->mu);
    return got;
}

static void w_pgn(void *ctx, const PairJob *job, const char *text, size_t len)
{
    Session *s = ctx;
    pthread_mutex_lock(&s->mu);
    Slot *sl = slot_of(s, job);
    if (sl) {
        Buf b = { sl->pgn.s, sl->pgn.len, sl->pgn.cap, false };
        msg_put(&b, text, len);
        if (b.oom)
            die_oom();
        sl->pgn.s = b.p;
        sl->pgn.len = b.len;
        sl->pgn.cap = b.cap;
    }
    pthread_mutex_unlock(&s->mu);
}

static void w_done(void *ctx, const PairJob *job, const PairResult *res)
{
    Session *s = ctx;
    pthread_mutex_lock(&s->mu);
    Slot *sl = slot_of(s, job);
    if (sl) {
        Buf b = { 0 };
        msg_pack_result(&b, sl->seq, res, sl->pgn.s, sl->pgn.len);
        enqueue(s, T_RESULT, &b);
        sl->key = NULL;
    }
    pthread_mutex_unlock(&s->mu);
}

static void abandon_seq(Session *s, uint64_t seq)
{
    Buf b = { 0 };
    msg_put_u64(&b, seq);
    enqueue(s, T_ABANDON, &b);
}

static void w_abandoned(void *ctx, const PairJob *job)
{
    Session *s = ctx;
    pthread_mutex_lock(&s->mu);
    Slot *sl = slot_of(s, job);
    if (sl) {
        abandon_seq(s, sl->seq);
        sl->key = NULL;
    }
    pthread_mutex_unlock(&s->mu);
}

static void *w_runner(void *arg)
{
    Session *s = arg;
    int rc = match_play(s->cfg, &s->hooks);
    pthread_mutex_lock(&s->mu);
    s->match_done = true;
    s->match_rc = rc;
    pthread_cond_broadcast(&s->jobs_cv);
    pthread_cond_signal(&s->main_cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void push_job(Session *s, uint64_t seq, PairJob *job)
{
    pthread_mutex_lock(&s->mu);
    if (s->qhead > 0 && s->qend == s->qcap) {
        memmove(s->q, s->q + s->qhead, (s->qend - s->qhead) * sizeof *s->q);
        s->qend -= s->qhead;
        s->qhead = 0;
    }
    s->q = grow(s->q, s->qend, &s->qcap, sizeof *s->q);
    s->q[s->qend++] = (QJob){ seq, job };
    pthread_cond_signal(&s->jobs_cv);
    pthread_mutex_unlock(&s->mu);
}

/* The worker's copy of rank 0's configuration: no book (openings come as
 * FENs), no PGN file (games go back as text), its own stop flag; -log goes
 * to FILE.rankN on this host. */
static MatchConfig *worker_config(const Msg *m, ConfigHead *h, char *why, size_t whylen)
{
    MatchConfig *cfg = malloc(sizeof *cfg);
    if (!cfg)
        die_oom();
    if (msg_decode_config(m->p, m->len, h, cfg, why, whylen) < 0) {
        free(cfg);
        return NULL;
    }
    cfg->book = NULL;
    cfg->pgnout[0] = '\0';
    cfg->stop = &g_wstop;
    cfg->each.argv = NULL;
    for (int e = 0; e < 2; e++) {
        char err[256];
        cfg->eng[e].argv = ep_split_args(cfg->eng[e].args, err, sizeof err);
        if (!cfg->eng[e].argv)
            die_oom(); /* rank 0 split the same string */
    }
    if (cfg->log_path[0]) {
        size_t n = strlen(cfg->log_path);
        snprintf(cfg->log_path + n, sizeof cfg->log_path - n, ".rank%d", g_rank);
    }
    return cfg;
}

/* One session: run the local runner on rank 0's pairs until it returns.
 * *quit is set when rank 0 already said QUIT. */
static void worker_session(const Msg *cm, bool *quit)
{
    ConfigHead h;
    char why[256];
    MatchConfig *cfg = worker_config(cm, &h, why, sizeof why);
    Outbox ob = { 0 };
    if (!cfg) {
        fprintf(stderr,
                "ratchet-tune: rank %d (%s): the configuration from rank 0 does not fit this build of "
                "ratchet-tune-mpi (every host must run the same build): %s\n",
                g_rank, g_host, why);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    Session s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.jobs_cv, NULL);
    pthread_cond_init(&s.main_cv, NULL);
    s.cfg = cfg;
    s.nslots = cfg->concurrency > 0 ? cfg->concurrency : 1;
    s.slots = calloc((size_t)s.nslots, sizeof *s.slots);
    if (!s.slots)
        die_oom();
    s.hooks = (MatchHooks){ .next_pair = w_next, .pair_done = w_done, .pair_abandoned = w_abandoned,
                            .game_pgn = h.want_pgn ? w_pgn : NULL, .ctx = &s };
    g_wstop = g_wsignal;
    pthread_t th;
    if (pthread_create(&th, NULL, w_runner, &s) != 0) {
        fprintf(stderr, "ratchet-tune: rank %d (%s): cannot create a thread\n", g_rank, g_host);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    bool sent_want = false, done = false;
    long us = POLL_MIN_US;
    while (!done) {
        pthread_mutex_lock(&s.mu);
        if (s.started && !sent_want && !s.match_done) {
            Buf b = { 0 };
            msg_put_i32(&b, worker_credit(s.nslots));
            msg_put_str(&b, g_host);
            enqueue(&s, T_WANT, &b);
            sent_want = true;
        }
        size_t n = s.noutq;
        QMsg *q = s.outq;
        s.outq = NULL;
        s.noutq = s.capoutq = 0;
        done = s.match_done;
        pthread_mutex_unlock(&s.mu);
        bool any = n > 0;
        for (size_t i = 0; i < n; i++)
            post(&ob, 0, q[i].tag, &q[i].b);
        free(q);
        any |= outbox_progress(&ob);
        Msg m;
        while (poll_msg(0, &m)) {
            any = true;
            if (m.tag == T_JOB) {
                PairJob *job = malloc(sizeof *job);
                if (!job)
                    die_oom();
                uint64_t seq;
                char why[256];
                if (msg_decode_job(m.p, m.len, &seq, job, why, sizeof why) < 0) {
                    fprintf(stderr, "ratchet-tune: rank %d (%s): %s\n", g_rank, g_host, why);
                    protocol_error(&m, "JOB");
                }
                push_job(&s, seq, job);
            } else if (m.tag == T_END || m.tag == T_STOP || m.tag == T_QUIT) {
                pthread_mutex_lock(&s.mu);
                if (m.tag == T_END)
                    s.end = true;
                else
                    g_wstop = 1;
                pthread_cond_broadcast(&s.jobs_cv);
                pthread_mutex_unlock(&s.mu);
                *quit |= m.tag == T_QUIT;
            } else {
                protocol_error(&m, "worker session");
            }
            free(m.p);
        }
        if (done || any) {
            us = POLL_MIN_US;
            continue;
        }
        /* Wake for something to send at once; for rank 0's messages after a short sleep. */
        pthread_mutex_lock(&s.mu);
        if (s.noutq == 0 && !s.match_done && !(s.started && !sent_want)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += us * 1000;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&s.main_cv, &s.mu, &ts);
        }
        pthread_mutex_unlock(&s.mu);
        us = us * 2 > WORKER_POLL_MAX_US ? WORKER_POLL_MAX_US : us * 2;
    }
    pthread_join(th, NULL);

    /* Whatever was still queued was not played; then the session's end. */
    Buf b = { 0 };
    for (; s.qhead < s.qend; s.qhead++) {
        msg_put_u64(&b, s.q[s.qhead].seq);
        post(&ob, 0, T_ABANDON, &b);
        free(s.q[s.qhead].job);
    }
    for (size_t i = 0; i < s.noutq; i++)
        post(&ob, 0, s.outq[i].tag, &s.outq[i].b);
    msg_put_i32(&b, s.match_rc);
    msg_put_str(&b, g_host);
    post(&ob, 0, T_DONE, &b);
    outbox_flush(&ob);
    free(ob.v);

    for (int i = 0; i < s.nslots; i++)
        pgn_text_free(&s.slots[i].pgn);
    free(s.slots);
    free(s.q);
    free(s.outq);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.jobs_cv);
    pthread_cond_destroy(&s.main_cv);
    match_config_free(cfg);
    free(cfg);
}

static void worker_main(void)
{
    rules_init(); /* the referee's attack tables */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = worker_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    bool quit = false;
    while (!quit) {
        Msg m;
        if (!poll_msg(0, &m)) {
            sleep_us(IDLE_POLL_US);
            continue;
        }
        if (m.tag == T_CONFIG)
            worker_session(&m, &quit);
        else if (m.tag == T_QUIT)
            quit = true;
        /* a STOP or END after the session ended on its own: nothing to do */
        else if (m.tag != T_STOP && m.tag != T_END)
            protocol_error(&m, "idle worker");
        free(m.p);
    }
    Outbox ob = { 0 };
    post_empty(&ob, 0, T_BYE);
    outbox_flush(&ob);
    free(ob.v);
}

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
    if (g_size > 1)
        coord_shutdown();
    MPI_Finalize();
    return rc;
}
