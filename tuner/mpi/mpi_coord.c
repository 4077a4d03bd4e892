/* bin/ratchet-tune-mpi, rank 0: coord_play, the distributed runner that
 * replaces match_transport; see mpi.c. */
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

#include "growarray.h"
#include "match.h"
#include "msg.h"
#include "pgn.h"
#include "mpi_coord.h"
#include "mpi_link.h"

typedef struct {
    bool ready;                 /* WANT seen: its engines are up */
    bool ended;                 /* END sent */
    bool stopped;               /* STOP sent */
    bool done;                  /* DONE seen */
    bool retired;               /* stopped for results that cannot be counted (retire_liar),
                                 * or for silence (retire_silent) */
    int rc;
    int64_t heard_ms;           /* its last message, or the start of play (ep_now_ms) */
    int64_t end_ms;             /* when END or STOP was sent: its DONE is owed from then */
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
 * the fewest (so that an idle worker is served before another queues ahead).
 * When the hooks have no pair and none is out, END to every worker with
 * room (a worker waiting for a pair must not wait for ever); while pairs are
 * out, a result can make another due (see MatchHooks), so the workers keep
 * waiting and the hooks are asked again on the next pass.  True if anything
 * was sent. */
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
            mpi_die_oom();
        c->spare = job;
        pair_job_clear(job);
        if (!c->hooks->next_pair(c->hooks->ctx, job)) {
            if (c->nout > 0)
                return any;
            post_empty(&c->ob, w, T_END);
            any = true;
            wk->ended = true;
            wk->end_ms = ep_now_ms();
            continue;
        }
        const MatchConfig *cfg = c->cfg;
        if (!job->fen[0] && cfg->book)
            snprintf(job->fen, sizeof job->fen, "%s", book_fen(cfg->book, job->opening % book_size(cfg->book)));
        if (!grow_array((void **)&c->out, &c->capout, c->nout + 1, sizeof *c->out))
            mpi_die_oom();
        OutPair *o = &c->out[c->nout++];
        o->seq = ++c->seq;
        o->worker = w;
        o->job = job;
        o->sent_ms = ep_now_ms();
        c->spare = NULL;
        Buf b = { 0 };
        msg_pack_job(&b, o->seq, job);
        post(&c->ob, w, T_JOB, &b);
        any = true;
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
            c->w[w].end_ms = ep_now_ms();
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

/* Per rank, over the sessions of the job (a run plays several): its
 * refused results, and whether it is retired for them.  A retired rank is
 * sent STOP at the start of every later session. */
static int *g_refusals;
static bool *g_liar;

/* Rank w sent a result that cannot be tied to one of its pairs (a sequence
 * number it was not given, or one that does not decode): which pair it
 * finished is unknown, so it is sent STOP and every pair it holds is given
 * back to be played again; its DONE ends it as after any STOP.  A rank that
 * is not believed must not hold pairs for ever. */
static void retire_liar(Coord *c, int w, const char *why)
{
    Worker *wk = &c->w[w];
    size_t n = 0;
    for (size_t i = 0; i < c->nout;)
        if (c->out[i].worker == w) {
            abandon_out(c, &c->out[i]);
            n++;
        } else {
            i++;
        }
    char outcome[160];
    snprintf(outcome, sizeof outcome, "the rank is retired, its %zu pair%s played again", n, n == 1 ? "" : "s");
    refused(c, w, why, outcome);
    if (!wk->stopped && !wk->done) {
        post_empty(&c->ob, w, T_STOP);
        wk->stopped = true;
    }
    wk->retired = true;
    g_liar[w] = true;
}

enum { MAX_REFUSALS = 3 }; /* refused results of one rank before it is retired */

/* A result refused for pair i of rank w: the pair is played again, the
 * rank's credit comes back; after MAX_REFUSALS the rank is retired. */
static void refuse_result(Coord *c, int w, long i, const char *why)
{
    Worker *wk = &c->w[w];
    if (++g_refusals[w] >= MAX_REFUSALS) {
        char more[320];
        snprintf(more, sizeof more, "%s (its %d%s refused result)", why, g_refusals[w],
                 g_refusals[w] == 1 ? "st" : g_refusals[w] == 2 ? "nd" : g_refusals[w] == 3 ? "rd" : "th");
        retire_liar(c, w, more);
        return;
    }
    refused(c, w, why, "its pair is played again");
    abandon_out(c, &c->out[i]);
    wk->credit++;
}

/* Handle one message on rank 0 during a session.  A message that does not
 * decode, or a result that does not fit its pair, is refused with a
 * message and the pair played again (refuse_result); a result or abandon
 * for a pair the sender was not given retires the sender (retire_liar).
 * The session goes on. */
static void coord_msg(Coord *c, Msg *m, bool stopping)
{
    if (m->src <= 0 || m->src >= g_size)
        protocol_error(m, "coordinator");
    Worker *wk = &c->w[m->src];
    CoordMsg d;
    char why[256];
    if (msg_decode_coord(m->tag, m->p, m->len, &d, why, sizeof why) < 0) {
        if (m->tag == T_RESULT && !wk->done && !wk->stopped) {
            long i = d.has_seq ? out_find(c->out, c->nout, d.seq, m->src, NULL) : OUT_NONE;
            if (i >= 0)
                refuse_result(c, m->src, i, why); /* the worker has finished with it */
            else
                retire_liar(c, m->src, why);      /* finished with one of its pairs, but which? */
            return;
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
        if (i < 0 && (wk->done || wk->stopped))
            break; /* its worker was retired or stopped meanwhile: the pair was given back already */
        if (i == OUT_NONE) {
            snprintf(why, sizeof why, "%s for pair %llu, which it does not hold", m->tag == T_RESULT ? "a result" : "an abandon",
                     (unsigned long long)d.seq);
            retire_liar(c, m->src, why);
            break;
        }
        if (i == OUT_NOT_YOURS) {
            snprintf(why, sizeof why, "%s for pair %llu, which rank %d holds", m->tag == T_RESULT ? "a result" : "an abandon",
                     (unsigned long long)d.seq, owner);
            retire_liar(c, m->src, why);
            break;
        }
        OutPair *o = &c->out[i];
        if (m->tag == T_ABANDON) {
            abandon_out(c, o);
            break;
        }
        if (d.res.games != o->job->games) {
            /* well-formed, but not what the pair was: 2 games (a pair counts whole or not at all) */
            snprintf(why, sizeof why, "a result of %d game%s for pair %llu of %d games", d.res.games,
                     d.res.games == 1 ? "" : "s", (unsigned long long)d.seq, o->job->games);
            refuse_result(c, m->src, i, why);
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

/* Per rank, over the sessions of the job: retired for silence
 * (retire_silent).  Such a rank is not sent another session: it is counted
 * retired at the start of every later one, without waiting for it. */
static bool *g_silent;

enum {
    PLY_BOUND = 400,            /* plies of a game without -maxmoves, for its deadline */
    PAIR_SLACK_MS = 10000,      /* added to every pair's bound: messages, a loaded host */
    /* From END or STOP, or the last result after it, to DONE: each thread of
     * a worker quits its two engines (match.c), each a `quit` written within
     * 5 s and 1 s of grace (engine_proc.c), the threads at once; plus slack. */
    DONE_BOUND_MS = 2 * (5000 + 1000) + PAIR_SLACK_MS
};

/* The longest engine e can take over one game of job at a limit that the
 * worker enforces, as game.c waits for a move: under a clock on the wall,
 * all of its clock (base per period, an increment and the margin per
 * move); under a movetime, movetime and margin per move; otherwise
 * (nodes=, depth=, or a clock counted in nodes) the watchdog per move.
 * Plus uciok and readyok for a restart before the game (2 x startup). */
static int64_t engine_game_bound_ms(const MatchConfig *cfg, const PairJob *job, int e)
{
    const TimeControl *t = job->has_tc ? &job->tc : &cfg->eng[e].tc;
    int64_t plies = cfg->adj.maxmoves > 0 ? 2 * (int64_t)cfg->adj.maxmoves : PLY_BOUND;
    int64_t moves = (plies + 1) / 2, ms;
    if (t->nodestime > 0 || (!tc_has_clock(t) && t->movetime_ms <= 0))
        ms = moves * t->watchdog_ms;
    else if (tc_has_clock(t))
        ms = t->base_ms * (t->moves > 0 ? (moves + t->moves - 1) / t->moves : 1) + moves * (t->inc_ms + t->margin_ms);
    else
        ms = moves * (t->movetime_ms + t->margin_ms);
    return ms + 2 * cfg->eng[e].startup_ms;
}

/* The longest a living worker takes over pair job from the moment a thread
 * of it takes the pair to its result: its games at both engines' bounds,
 * plus PAIR_SLACK_MS. */
static int64_t pair_bound_ms(const MatchConfig *cfg, const PairJob *job)
{
    int games = job->games == 1 ? 1 : 2;
    return games * (engine_game_bound_ms(cfg, job, 0) + engine_game_bound_ms(cfg, job, 1)) + PAIR_SLACK_MS;
}

/* Rank w has not answered in time: every pair it holds is given back to be
 * played by the others, it is sent STOP (should it wake, it abandons what
 * it plays and ends its session; nothing it sends is counted: its pairs are
 * no longer out) and it counts as ended, as a rank whose engines could not
 * be restarted (worker_done), and is not waited for again. */
static void retire_silent(Coord *c, int w, int64_t silent_ms)
{
    Worker *wk = &c->w[w];
    int k = wk->held;
    fprintf(stderr,
            "ratchet-tune: worker rank %d (%s) has not answered for %lld s with %d pair%s in hand: retired, "
            "its pairs go to the other ranks\n",
            w, wk->host[0] ? wk->host : "?", (long long)(silent_ms / 1000), k, k == 1 ? "" : "s");
    if (!wk->stopped) {
        post_empty(&c->ob, w, T_STOP);
        wk->stopped = true;
    }
    outbox_forget(&c->ob, w); /* it may never receive them: the end of the session must not wait */
    wk->retired = true;
    g_silent[w] = true;
    worker_done(c, w, 1, true);
    int left = 0; /* ranks neither retired nor out of engines, this session or a later one */
    for (int i = 1; i < g_size; i++)
        left += !c->w[i].retired && c->w[i].rc <= 0;
    if (left == 0)
        fprintf(stderr, "ratchet-tune: every worker rank is retired or out of engines: the session stops here\n");
    else if (c->live > 0)
        fprintf(stderr, "ratchet-tune: %d worker%s go%s on\n", c->live, c->live == 1 ? "" : "s",
                c->live == 1 ? "es" : "");
}

/* Deadlines: a worker that holds pairs sends a result at least every
 * pair_bound_ms of its oldest pair, counted from when that pair was sent or
 * from its last message, whichever is later (its threads take the pairs in
 * the order they were sent, each as soon as it finished the one before, and
 * every finish is a message).  A worker sent END or STOP that holds no
 * pair owes its DONE within DONE_BOUND_MS of the later of that and its
 * last message.  One silent past its
 * deadline is retired (retire_silent).  True if any was. */
static bool check_deadlines(Coord *c)
{
    bool any = false;
    int64_t now = ep_now_ms();
    for (int w = 1; w < g_size; w++) {
        Worker *wk = &c->w[w];
        if (wk->done || (wk->held == 0 && !wk->ended && !wk->stopped))
            continue;
        int64_t since = wk->heard_ms, bound = 0, oldest = INT64_MAX;
        for (size_t i = 0; i < c->nout; i++)
            if (c->out[i].worker == w) {
                int64_t b = pair_bound_ms(c->cfg, c->out[i].job);
                bound = b > bound ? b : bound;
                oldest = c->out[i].sent_ms < oldest ? c->out[i].sent_ms : oldest;
            }
        if (oldest != INT64_MAX && oldest > since)
            since = oldest;
        if ((wk->ended || wk->stopped) && wk->end_ms > since)
            since = wk->end_ms;
        if (bound == 0)
            bound = DONE_BOUND_MS; /* no pair in hand, only its DONE owed */
        if (now - since > bound) {
            retire_silent(c, w, now - wk->heard_ms);
            any = true;
        }
    }
    return any;
}

/* Poll: every waiting message handled, sends progressed.  True if anything happened. */
static bool coord_poll(Coord *c, bool stopping)
{
    bool any = outbox_progress(&c->ob);
    Msg m;
    while (poll_msg(MPI_ANY_SOURCE, &m)) {
        if (m.src > 0 && m.src < g_size)
            c->w[m.src].heard_ms = ep_now_ms();
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

/* The start-up's count of the workers' answers. */
typedef struct {
    int ready;                  /* WANT accepted: its engines are up */
    int failed;                 /* DONE before WANT: it could not start its engines */
    int retired;                /* retired before play: silent in an earlier session, a liar, a WANT
                                 * refused, or left after its WANT */
} StartCount;

/* One message during the start-up: a worker's WANT (its engines are up;
 * a rank retired as a liar is sent STOP instead, one whose WANT does not
 * decode is retired), its DONE (it could not start its engines, it answers
 * such a STOP, or it left after its WANT), or a retired rank's last words;
 * anything else is a protocol error. */
static void start_msg(Coord *c, const Msg *m, StartCount *n)
{
    Worker *wk = m->src > 0 && m->src < g_size ? &c->w[m->src] : NULL;
    CoordMsg d;
    char why[256];
    bool ok = wk && msg_decode_coord(m->tag, m->p, m->len, &d, why, sizeof why) == 0;
    if (ok)
        snprintf(wk->host, sizeof wk->host, "%s", d.host);
    if (wk && m->tag == T_WANT && !wk->ready && !wk->done && g_liar[m->src]) {
        fprintf(stderr, "ratchet-tune: worker rank %d (%s) was retired for results that could not be counted: "
                        "it plays no pair\n", m->src, wk->host[0] ? wk->host : "?");
        post_empty(&c->ob, m->src, T_STOP);
        wk->stopped = wk->retired = true;
        n->retired++;
    } else if (wk && m->tag == T_WANT && !wk->ready && !wk->done) {
        if (ok) {
            wk->ready = true;
            wk->credit = d.n;
            n->ready++;
        } else {
            refused(c, m->src, why, "the rank is retired");
            post_empty(&c->ob, m->src, T_STOP);
            wk->stopped = wk->done = true;
            wk->rc = 1;
            c->live--;
            n->retired++;
        }
    } else if (wk && m->tag == T_DONE && !wk->done && wk->retired) {
        wk->done = true; /* the STOP above answered: counted as retired already */
        c->live--;
    } else if (wk && m->tag == T_DONE && !wk->done && wk->ready) {
        /* It started (its WANT came) and left before the others were up:
         * counted once, as a rank that no longer plays, not as a failed start. */
        fprintf(stderr, "ratchet-tune: worker rank %d (%s) left during the start-up (exit %d); the others play\n",
                m->src, wk->host[0] ? wk->host : "?", ok ? d.n : 1);
        worker_done(c, m->src, ok ? d.n : 1, true);
        wk->retired = true;
        n->ready--;
        n->retired++;
    } else if (wk && m->tag == T_DONE && !wk->done) {
        if (!ok)
            refused(c, m->src, why, "taken as a failed start");
        fprintf(stderr, "ratchet-tune: worker rank %d (%s) could not start its engines (its message is above)\n",
                m->src, wk->host[0] ? wk->host : "?");
        wk->done = true;
        wk->rc = ok ? d.n : 1;
        c->live--;
        n->failed++;
    } else if (wk && wk->done) {
        /* a retired rank's last words */
    } else {
        protocol_error(m, "start-up");
    }
}

/* c set up for a session, and the configuration sent to every rank not
 * retired for silence (those are counted retired in n). */
static void coord_init(Coord *c, const MatchConfig *cfg, const MatchHooks *hooks, StartCount *n)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->hooks = hooks;
    c->w = calloc((size_t)g_size, sizeof *c->w);
    if (!c->w)
        mpi_die_oom();
    c->live = g_size - 1;
    if (!g_refusals) {
        g_refusals = calloc((size_t)g_size, sizeof *g_refusals);
        g_liar = calloc((size_t)g_size, sizeof *g_liar);
        g_silent = calloc((size_t)g_size, sizeof *g_silent);
        if (!g_refusals || !g_liar || !g_silent)
            mpi_die_oom();
    }
    ConfigHead h;
    msg_config_head(&h, cfg->pgnout[0] != '\0', cfg->concurrency);
    for (int w = 1; w < g_size; w++) {
        if (g_silent[w]) {
            c->w[w].done = c->w[w].retired = true;
            c->w[w].rc = 1;
            c->live--;
            n->retired++;
            continue;
        }
        Buf b = { 0 };
        msg_put(&b, &h, sizeof h);
        msg_put(&b, cfg, sizeof *cfg);
        post(&c->ob, w, T_CONFIG, &b);
    }
}

/* The start-up of a session: coord_init, the workers' answers awaited,
 * then the PGN opened and the line that says how many games are played at
 * a time.  0, or -1 when a worker could not start its engines or the PGN
 * cannot be opened; *stopped when a signal came during the start-up
 * (nothing is played). */
static int coord_start(Coord *c, const MatchConfig *cfg, const MatchHooks *hooks, bool *stopped)
{
    StartCount n = { 0, 0, 0 };
    coord_init(c, cfg, hooks, &n);
    /* All workers' engines up, or nobody plays (as match_play does locally).
     * A worker whose WANT is refused is retired: the others play. */
    long us = POLL_MIN_US;
    while (n.ready + n.failed + n.retired < g_size - 1) {
        if (cfg->stop && *cfg->stop)
            break;
        Msg m;
        if (!poll_msg(MPI_ANY_SOURCE, &m)) {
            outbox_progress(&c->ob);
            poll_backoff(&us, POLL_MAX_US);
            continue;
        }
        us = POLL_MIN_US;
        start_msg(c, &m, &n);
        free(m.p);
    }
    int rc = 0;
    char err[512];
    *stopped = cfg->stop && *cfg->stop;
    if (n.failed > 0) {
        rc = -1;
    } else if (!*stopped && cfg->pgnout[0] && !(c->pgn = pgn_open(cfg->pgnout, err, sizeof err))) {
        fprintf(stderr, "ratchet-tune: %s\n", err);
        rc = -1;
    }
    if (rc == 0 && !*stopped) {
        printf("distributed: %d worker rank%s x concurrency %d = %d games at a time\n", n.ready,
               n.ready == 1 ? "" : "s", cfg->concurrency, n.ready * cfg->concurrency);
        fflush(stdout);
    }
    return rc;
}

/* Play: hand out while workers have room, collect, until every worker is
 * done; after a stop (`stopping` from the start, or a signal or a failed
 * PGN write during play) only until the pairs out are answered or
 * STOP_WAIT_MS has passed.  The pairs still out are then given back.  True
 * if play was stopped. */
static bool coord_run(Coord *c, bool stopping)
{
    const MatchConfig *cfg = c->cfg;
    if (stopping)
        stop_all(c);
    int64_t stop_deadline = stopping ? ep_now_ms() + STOP_WAIT_MS : 0;
    for (int w = 1; w < g_size; w++)
        c->w[w].heard_ms = ep_now_ms();
    long us = POLL_MIN_US;
    while (c->live > 0) {
        if (!stopping && ((cfg->stop && *cfg->stop) || c->pgn_failed)) {
            stopping = true;
            stop_deadline = ep_now_ms() + STOP_WAIT_MS;
            stop_all(c);
        }
        bool any = coord_poll(c, stopping);
        if (!stopping)
            any |= check_deadlines(c);
        if (!stopping)
            any |= hand_out(c);
        /* After a stop the state is whole without the workers' last words;
         * results and abandons that come in time are still counted. */
        if (stopping && (c->nout == 0 || ep_now_ms() > stop_deadline))
            break;
        if (any) {
            us = POLL_MIN_US;
        } else {
            poll_backoff(&us, POLL_MAX_US);
        }
    }
    while (c->nout > 0)
        abandon_out(c, &c->out[0]);
    return stopping;
}

/* match_transport under MPI (see the top of mpi.c).  The configuration
 * is checked by each worker's match_play, which then reports a failed start. */
int coord_play(const MatchConfig *cfg, const MatchHooks *hooks)
{
    Coord c;
    bool stopped; /* a signal during the start-up: nothing played */
    int rc = coord_start(&c, cfg, hooks, &stopped);
    bool stopping = coord_run(&c, rc < 0 || stopped);
    if (c.pgn_failed) {
        rc = 2; /* as match_play: the PGN could not take a game */
    } else if (rc == 0 && !stopping) {
        int lost = 0; /* workers that lost an engine or were retired */
        for (int w = 1; w < g_size; w++)
            lost += c.w[w].rc > 0 || c.w[w].retired;
        if (lost == g_size - 1)
            rc = 1; /* every worker lost an engine: cut short, as locally */
    }
    outbox_flush(&c.ob);
    free(c.ob.v);
    coord_free(&c);
    return rc;
}

/* After the command: every worker leaves its loop; its last messages are
 * received (and dropped) so that its sends complete before it finalizes.
 * False if some rank did not leave in time (see mpi_coord.h). */
bool coord_shutdown(void)
{
    Outbox ob = { 0 };
    for (int w = 1; w < g_size; w++)
        post_empty(&ob, w, T_QUIT);
    bool *bye = calloc((size_t)g_size, sizeof *bye);
    if (!bye)
        mpi_die_oom();
    int byes = 0;
    int64_t deadline = ep_now_ms() + BYE_WAIT_MS;
    long us = POLL_MIN_US;
    while (byes < g_size - 1 && ep_now_ms() < deadline) {
        Msg m;
        bool any = outbox_progress(&ob);
        while (poll_msg(MPI_ANY_SOURCE, &m)) {
            if (m.tag == T_BYE && m.src > 0 && m.src < g_size && !bye[m.src]) {
                bye[m.src] = true;
                byes++;
            }
            free(m.p);
            any = true;
        }
        if (any) {
            us = POLL_MIN_US;
        } else {
            poll_backoff(&us, POLL_MAX_US * 10);
        }
    }
    if (byes < g_size - 1)
        fprintf(stderr, "ratchet-tune: %d worker rank%s did not leave within %d s\n", g_size - 1 - byes,
                g_size - 1 - byes == 1 ? "" : "s", BYE_WAIT_MS / 1000);
    for (int w = 1; w < g_size; w++)
        if (!bye[w])
            outbox_forget(&ob, w); /* its QUIT may never be received */
    outbox_flush(&ob);
    free(ob.v);
    free(bye);
    return byes == g_size - 1;
}
