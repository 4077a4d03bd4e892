/* bin/ratchet-tune-mpi, a worker rank (1..N-1): sessions of the local
 * runner for rank 0; see mpi.c. */
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
#include "growarray.h"
#include "match.h"
#include "monowait.h"
#include "msg.h"
#include "pgn.h"
#include "mpi_worker.h"
#include "mpi_link.h"

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
    if (!grow_array((void **)&s->outq, &s->capoutq, s->noutq + 1, sizeof *s->outq))
        mpi_die_oom();
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

/* A runner thread of this rank plays a pair (under s->mu). */
static bool slots_busy(const Session *s)
{
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].key)
            return true;
    return false;
}

#ifdef RATCHET_TEST_LIAR
/* TEST BUILD ONLY: build/ratchet-tune-mpi-liar (the Makefile compiles this
 * file with -DRATCHET_TEST_LIAR for it; bin/ratchet-tune-mpi has none of
 * this).  The worker rank RATCHET_TEST_LIE_RANK (default 1) misreports its
 * results as RATCHET_TEST_LIE says, for tests/test_mpi.c:
 *   one-game  a well-formed result of 1 game for the pair of 2
 *   seq       its result under a sequence number never handed out
 *   negative  a result with a negative count (time_losses = -1)
 *   steal     its result under the sequence number of a pair it was not
 *             given (rank 0 numbers the pairs of all ranks in one series,
 *             so a number below its highest that it never received was
 *             another rank's)
 * RATCHET_TEST_FREEZE (below) freezes a rank, and RATCHET_TEST_LEAVE (below)
 * makes one leave during the start-up. */
static uint64_t *g_mine;        /* the sequence numbers this rank received, under s->mu */
static size_t g_nmine, g_capmine;

static void liar_received(uint64_t seq)
{
    if (!grow_array((void **)&g_mine, &g_capmine, g_nmine + 1, sizeof *g_mine))
        mpi_die_oom();
    g_mine[g_nmine++] = seq;
}

static void liar_lie(uint64_t *seq, PairResult *res)
{
    const char *lie = getenv("RATCHET_TEST_LIE"), *who = getenv("RATCHET_TEST_LIE_RANK");
    if (!lie || g_rank != (who ? atoi(who) : 1))
        return;
    if (!strcmp(lie, "one-game")) {
        PairResult one;
        memset(&one, 0, sizeof one);
        one.games = 1;
        one.score2[0] = res->score2[0];
        one.result[0] = res->result[0];
        one.term[0] = res->term[0];
        one.plies[0] = res->plies[0];
        one.ptnml_index = -1;
        *res = one;
    } else if (!strcmp(lie, "seq")) {
        *seq += 1000000;
    } else if (!strcmp(lie, "negative")) {
        res->time_losses[0] = -1;
    } else if (!strcmp(lie, "steal")) {
        uint64_t hi = 0;
        for (size_t i = 0; i < g_nmine; i++)
            hi = g_mine[i] > hi ? g_mine[i] : hi;
        for (uint64_t k = 1; k < hi; k++) {
            bool mine = false;
            for (size_t i = 0; i < g_nmine && !mine; i++)
                mine = g_mine[i] == k;
            if (!mine) {
                *seq = k;
                return;
            }
        }
        *seq += 1000000; /* every number so far was its own: none of another rank's to take */
    }
}

/* RATCHET_TEST_FREEZE=RANK:AFTER: the worker rank RANK, once it has sent
 * AFTER results (over the job's sessions), stops answering: its main thread
 * sleeps for an hour at a time and never polls or sends again, while the
 * process stays alive (a frozen node, for tests/test_mpi.c).  Called by the
 * main thread after each message it posts. */
static void liar_maybe_freeze(int tag)
{
    static long results;
    const char *f = getenv("RATCHET_TEST_FREEZE");
    int rank = 0;
    long after = 0;
    if (!f || sscanf(f, "%d:%ld", &rank, &after) != 2 || rank != g_rank)
        return;
    if (tag == T_RESULT)
        results++;
    if (results < after)
        return;
    fprintf(stderr, "ratchet-tune: rank %d (%s): RATCHET_TEST_FREEZE: frozen after %ld results\n", g_rank, g_host,
            results);
    for (;;)
        sleep_us(3600L * 1000000L);
}

/* RATCHET_TEST_LEAVE=RANK: in the job's first session the worker rank RANK
 * stops its runner right after its WANT, so that its DONE follows during
 * rank 0's start-up; the other ranks send their first WANT a second late
 * so that the DONE comes before them.  Under s->mu. */
static int liar_leaver(void)
{
    const char *f = getenv("RATCHET_TEST_LEAVE");
    return f ? atoi(f) : 0;
}

static void liar_maybe_leave(Session *s)
{
    static bool once;
    (void)s;
    if (liar_leaver() > 0 && liar_leaver() != g_rank && !once) {
        once = true;
        sleep_us(1000000L);
    }
}

static void liar_left(Session *s)
{
    static bool once;
    if (liar_leaver() == g_rank && !once) {
        once = true;
        fprintf(stderr, "ratchet-tune: rank %d (%s): RATCHET_TEST_LEAVE: leaving after its WANT\n", g_rank, g_host);
        g_wstop = 1;
        pthread_cond_broadcast(&s->jobs_cv);
    }
}
#endif

/* Credits a worker asks for: its threads plus a few pairs queued ahead, so a
 * thread that finishes a pair finds the next one without a round trip. */
static int worker_credit(int concurrency)
{
    return concurrency + 1 + concurrency / 4;
}

static bool w_next(void *ctx, PairJob *job)
{
    Session *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (!s->started) {
        s->started = true;
        pthread_cond_signal(&s->main_cv);
    }
    /* The runner's lock is held here, and with it the results of this
     * rank's other threads: with a pair of this rank in flight, "none now"
     * (the runner asks again when that pair is done); with none, wait for
     * rank 0's next pair or its END. */
    while (s->qhead == s->qend && !s->end && !g_wstop && !slots_busy(s))
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
        memcpy(job->round, j->round, sizeof job->round);
        memcpy(job->names, j->names, sizeof job->names);
        memcpy(job->event, j->event, sizeof job->event);
        job->has_tc = j->has_tc;
        job->tc = j->tc;
        for (int e = 0; e < 2; e++) {
            job->nopts[e] = j->nopts[e];
            memcpy(job->opts[e], j->opts[e], (size_t)j->nopts[e] * sizeof j->opts[e][0]);
        }
        Slot *sl = slot_of(s, NULL);
        if (!sl)
            mpi_die_oom(); /* more pairs in play than threads: cannot happen */
        sl->key = job;
        sl->seq = qj->seq;
#ifdef RATCHET_TEST_LIAR
        liar_received(qj->seq);
#endif
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
            mpi_die_oom();
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
#ifdef RATCHET_TEST_LIAR
        uint64_t lseq = sl->seq;
        PairResult lres = *res;
        liar_lie(&lseq, &lres);
        msg_pack_result(&b, lseq, &lres, sl->pgn.s, sl->pgn.len);
#else
        msg_pack_result(&b, sl->seq, res, sl->pgn.s, sl->pgn.len);
#endif
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
    if (!grow_array((void **)&s->q, &s->qcap, s->qend + 1, sizeof *s->q))
        mpi_die_oom();
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
        mpi_die_oom();
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
            mpi_die_oom(); /* rank 0 split the same string */
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
    mono_cond_init(&s.main_cv);
    s.cfg = cfg;
    s.nslots = cfg->concurrency > 0 ? cfg->concurrency : 1;
    s.slots = calloc((size_t)s.nslots, sizeof *s.slots);
    if (!s.slots)
        mpi_die_oom();
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
#ifdef RATCHET_TEST_LIAR
            liar_maybe_leave(&s);
#endif
            Buf b = { 0 };
            msg_put_i32(&b, worker_credit(s.nslots));
            msg_put_str(&b, g_host);
            enqueue(&s, T_WANT, &b);
            sent_want = true;
#ifdef RATCHET_TEST_LIAR
            liar_left(&s);
#endif
        }
        size_t n = s.noutq;
        QMsg *q = s.outq;
        s.outq = NULL;
        s.noutq = s.capoutq = 0;
        done = s.match_done;
        pthread_mutex_unlock(&s.mu);
        bool any = n > 0;
        for (size_t i = 0; i < n; i++) {
#ifdef RATCHET_TEST_LIAR
            int tag = q[i].tag;
            post(&ob, 0, q[i].tag, &q[i].b);
            liar_maybe_freeze(tag);
#else
            post(&ob, 0, q[i].tag, &q[i].b);
#endif
        }
        free(q);
        any |= outbox_progress(&ob);
        Msg m;
        while (poll_msg(0, &m)) {
            any = true;
            if (m.tag == T_JOB) {
                PairJob *job = malloc(sizeof *job);
                if (!job)
                    mpi_die_oom();
                uint64_t seq;
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
        if (s.noutq == 0 && !s.match_done && !(s.started && !sent_want))
            mono_cond_wait_us(&s.main_cv, &s.mu, us);
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

void worker_main(void)
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
