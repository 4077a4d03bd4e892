/* The match runner: worker threads, each with two engine processes, playing
 * the pairs the hooks hand out.  See match.h. */
#include "errmsg.h"
#include "match.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "monowait.h"
#include "pgn.h"

enum {
    QUIT_GRACE_MS = 1000,
    MAX_START_FAILURES = 3   /* consecutive failed restarts of one engine: the match stops */
};

#define NEXT_WAIT_US 100000L /* a worker without a pair looks at the stop flag this often */

typedef struct Runner Runner;

typedef struct {
    Runner *run;
    int index;
    pthread_t thread;
    EngineProc eng[2];          /* by engine index */
    bool fresh[2];              /* just started: no ucinewgame needed */
    char nodestime[2][24];      /* the nodestime option sent since the engine started ("" = none) */
    int start_failures[2];
    GameScratch scratch;
    GameRecord *rec;
    PgnText pgn;
    char *msg;                  /* the per-game setoption/isready message */
    size_t msgcap;
    PairJob job;
    char err[512];
    bool failed;
} Worker;

struct Runner {
    const MatchConfig *cfg;
    const MatchHooks *hooks;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int nready, nfailed;
    int inflight;               /* pairs handed out and not yet done or abandoned */
    bool go, abort, done;
    PgnFile *pgn;
    EpLog log;
    bool logging;
    bool unmetered_warned[2];   /* by engine: told that it reported no nodes under nodestime */
    Worker *workers;
};

static void count_loss(PairResult *res, int engine, Termination t)
{
    if (t == TERM_TIME || t == TERM_STALL)
        res->time_losses[engine]++;
    else if (t == TERM_CRASH)
        res->crashes[engine]++;
    else if (t == TERM_ILLEGAL)
        res->illegal[engine]++;
}

static void fatal(Worker *w, const char *fmt, const char *a, const char *b)
{
    Runner *R = w->run;
    pthread_mutex_lock(&R->mu);
    if (!R->abort) {
        fprintf(stderr, "ratchet-tune: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "; stopping the match\n");
    }
    R->abort = true;
    pthread_mutex_unlock(&R->mu);
}

enum { READY, READY_FAILED_EOF, READY_FAILED_TIMEOUT, READY_STOPPED, READY_FATAL };

/* The value of the nodestime option that engine idx's spec sends at start
 * (nodestime=, or option.nodestime=), or NULL. */
static const char *spec_nodestime(const EngineSpec *s)
{
    for (int k = 0; k < s->nopts; k++)
        if (!strcasecmp(s->opts[k].name, "nodestime"))
            return s->opts[k].value;
    return NULL;
}

/* The nodestime option engine idx is to be sent before the job's game, or
 * NULL: its clock must count as the runner charges it.  A pair at a limit of
 * its own (has_tc) gets the limit's nodestime (0: the wall clock); the next
 * pair at the engine's own limit sets back what its spec sent at start (0
 * when it sent none).  Nothing when the engine holds that value already, nor
 * to an engine without the option. */
static const char *nodestime_to_send(const Worker *w, int idx, const PairJob *job, char *buf, size_t len)
{
    if (!ep_has_option(&w->eng[idx], "nodestime"))
        return NULL;
    const char *own = spec_nodestime(&w->run->cfg->eng[idx]);
    const char *now = w->nodestime[idx][0] ? w->nodestime[idx] : own; /* NULL: the engine's default */
    const char *want;
    if (job->has_tc) {
        snprintf(buf, len, "%lld", (long long)job->tc.nodestime);
        want = buf;
    } else if (w->nodestime[idx][0]) {
        want = own ? own : "0";
    } else {
        return NULL;
    }
    return now && !strcmp(now, want) ? NULL : want;
}

/* Make engine `idx` ready for a new game with the job's options: start it if
 * it is not running, `ucinewgame` (unless fresh), the options, `isready`.
 * One more try with a new process if that fails. */
static int make_ready(Worker *w, int idx, const PairJob *job, PairResult *res, char *why, size_t whylen)
{
    const MatchConfig *cfg = w->run->cfg;
    EngineProc *e = &w->eng[idx];
    int outcome = READY_FAILED_EOF;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!ep_running(e)) {
            char err[512];
            if (ep_start(e, err, sizeof err) < 0) {
                errmsg(why, whylen, "restart failed");
                if (++w->start_failures[idx] >= MAX_START_FAILURES) {
                    char times[16];
                    snprintf(times, sizeof times, "%d", MAX_START_FAILURES);
                    fatal(w, "%s (%s failed starts in a row)", err, times);
                    return READY_FATAL;
                }
                fprintf(stderr, "ratchet-tune: warning: %s\n", err);
                continue;
            }
            w->start_failures[idx] = 0;
            res->restarts[idx]++;
            w->fresh[idx] = true;
            w->nodestime[idx][0] = '\0';
        }
        if (job->has_tc && job->tc.nodestime > 0 && !ep_has_option(e, "nodestime")) {
            char tc[96];
            tc_format(&job->tc, tc, sizeof tc);
            fatal(w, "engine '%s' has no UCI option 'nodestime', so it cannot play a pair at %s (a clock "
                     "charged in nodes)", cfg->eng[idx].name, tc);
            return READY_FATAL;
        }
        char ntbuf[24];
        const char *nt = nodestime_to_send(w, idx, job, ntbuf, sizeof ntbuf);
        size_t n = 0;
        if (!w->fresh[idx])
            n = appendf(w->msg, w->msgcap, n, "ucinewgame\n");
        for (int k = 0; k < job->nopts[idx] && k < MAX_JOB_OPTS; k++)
            n = appendf(w->msg, w->msgcap, n, "setoption name %s value %s\n", job->opts[idx][k].name,
                                  job->opts[idx][k].value);
        if (nt)
            n = appendf(w->msg, w->msgcap, n, "setoption name nodestime value %s\n", nt);
        n = appendf(w->msg, w->msgcap, n, "isready\n");
        int64_t deadline = ep_now_ms() + cfg->eng[idx].startup_ms;
        EpWait wt = ep_write(e, w->msg, n, deadline) == 0 ? ep_wait_for(e, "readyok", deadline, cfg->stop) : EP_EOF;
        w->fresh[idx] = false;
        if (wt == EP_LINE) {
            if (nt)
                snprintf(w->nodestime[idx], sizeof w->nodestime[idx], "%s", nt);
            return READY;
        }
        if (wt == EP_STOPPED)
            return READY_STOPPED;
        ep_kill(e);
        if (wt == EP_TIMEOUT) {
            errmsg(why, whylen, "no readyok within %.1f s", (double)cfg->eng[idx].startup_ms / 1000.0);
            outcome = READY_FAILED_TIMEOUT;
        } else {
            ep_describe_exit(e, why, whylen);
            outcome = READY_FAILED_EOF;
        }
    }
    return outcome;
}

bool match_deterministic(const MatchConfig *cfg)
{
    return tc_deterministic(&cfg->eng[0].tc) && tc_deterministic(&cfg->eng[1].tc);
}

uint64_t match_fresh_rounds(const MatchConfig *cfg, int games)
{
    uint64_t n = cfg->book ? book_picks(cfg->book) : 1;
    return games == 1 && n % 2 == 1 ? 2 * n : n;
}

bool match_cap_fresh(const MatchConfig *cfg, int games, uint64_t *rounds, bool cut, const char *who, FILE *note)
{
    uint64_t fresh = match_fresh_rounds(cfg, games);
    if (*rounds != 0 && *rounds <= fresh)
        return false;
    const char *unit = games == 1 ? "games" : "pairs";
    char tc[96];
    tc_format(&cfg->eng[0].tc, tc, sizeof tc);
    char asked[48] = "an SPRT with no round limit";
    if (*rounds)
        snprintf(asked, sizeof asked, "%llu %s", (unsigned long long)*rounds, unit);
    char book[1100];
    if (cfg->book)
        snprintf(book, sizeof book, "%zu openings of %s", book_picks(cfg->book), cfg->book_path);
    else
        snprintf(book, sizeof book, "the start position alone (no -openings)");
    const char *bigger = "a bigger book: bin/ratchet-genbook";
    if (!match_deterministic(cfg)) {
        fprintf(note,
                "%s: note: %s on %s: from %s %llu on, an opening is played again; at %s that is a new game, "
                "but it adds less evidence than a new opening (%s)\n",
                who, asked, book, games == 1 ? "game" : "pair", (unsigned long long)fresh + 1, tc, bigger);
        return false;
    }
    if (!cut) {
        fprintf(note,
                "%s: warning: %s on %s: at %s a game is a function of its opening, so %s %llu on replay games "
                "already played: they add no evidence, yet the interval counts them as new (%s)\n",
                who, asked, book, tc, unit, (unsigned long long)fresh + 1, bigger);
        return false;
    }
    fprintf(note,
            "%s: %s cut to %llu %s, one for each of the %s: at %s a game is a function of its opening, "
            "so a replayed opening replays its games and adds no evidence (%s)\n",
            who, asked, (unsigned long long)fresh, unit, book, tc, bigger);
    *rounds = fresh;
    return true;
}

void pair_job_clear(PairJob *j)
{
    j->id = 0;
    j->opening = 0;
    j->nopts[0] = j->nopts[1] = 0;
    j->games = 0;
    j->swap = false;
    j->fen[0] = '\0';
    j->round[0] = j->names[0][0] = j->names[1][0] = j->event[0] = '\0';
    j->has_tc = false;
    memset(&j->tc, 0, sizeof j->tc);
}

/* 0, or -1 when the PGN file could not take the game (the match stops). */
static int write_pgn(Worker *w, const PairJob *job, int white, const GameRecord *rec, time_t start)
{
    const MatchConfig *cfg = w->run->cfg;
    char round[32], tc[64], limits[64];
    if (job->round[0])
        snprintf(round, sizeof round, "%s", job->round);
    else
        snprintf(round, sizeof round, "%llu", (unsigned long long)job->id + 1);
    tc_format_pgn(job->has_tc ? &job->tc : &cfg->eng[white].tc, tc, sizeof tc);
    tc_format_limits(job->has_tc ? &job->tc : &cfg->eng[white].tc, limits, sizeof limits);
    PgnTags tags = { .event = job->event[0] ? job->event : cfg->event[0] ? cfg->event : "ratchet-tune match",
                     .site = cfg->site[0] ? cfg->site : "?",
                     .round = round,
                     .white = job->names[white][0] ? job->names[white] : cfg->eng[white].name,
                     .black = job->names[!white][0] ? job->names[!white] : cfg->eng[!white].name,
                     .timecontrol = tc,
                     .limits = limits,
                     .date = start,
                     .comments = cfg->pgn_comments };
    w->pgn.len = 0;
    if (pgn_format(&tags, rec, w->scratch.pos, &w->pgn) < 0)
        return 0;
    if (w->run->pgn && pgn_append(w->run->pgn, &w->pgn) < 0) {
        fatal(w, "%s%s", "the PGN file could not take a game", "");
        return -1;
    }
    if (w->run->hooks->game_pgn)
        w->run->hooks->game_pgn(w->run->hooks->ctx, job, w->pgn.s, w->pgn.len);
    return 0;
}

/* Once per engine: moves under a nodestime clock that reported no nodes
 * were charged their wall time. */
static void warn_unmetered(Worker *w, const GameRecord *rec, int white)
{
    Runner *R = w->run;
    for (int c = 0; c < 2; c++) {
        int idx = c == WHITE ? white : !white;
        if (!rec->unmetered[c])
            continue;
        pthread_mutex_lock(&R->mu);
        if (!R->unmetered_warned[idx])
            fprintf(stderr, "ratchet-tune: warning: engine '%s' reported no nodes (info ... nodes N) for %d move%s "
                            "under nodestime=%lld; such moves are charged their wall time, so its games are not "
                            "deterministic\n", R->cfg->eng[idx].name, rec->unmetered[c], rec->unmetered[c] == 1 ? "" : "s",
                    (long long)R->cfg->eng[idx].tc.nodestime);
        R->unmetered_warned[idx] = true;
        pthread_mutex_unlock(&R->mu);
    }
}

/* Game g of the pair with engine `white` as White.  0, or -1 when the game
 * was not finished (stop flag, fatal error). */
static int play_game(Worker *w, const PairJob *job, int g, int white, PairResult *res)
{
    Runner *R = w->run;
    const MatchConfig *cfg = R->cfg;
    GameRecord *rec = w->rec;
    time_t start = time(NULL);
    const char *fen = job->fen[0]  ? job->fen
                      : cfg->book ? book_fen(cfg->book, job->opening % book_size(cfg->book))
                                  : NULL;

    /* Both engines ready, or the game is lost by the one that is not. */
    int idx_order[2] = { white, !white };
    bool forfeited = false;
    for (int k = 0; k < 2 && !forfeited; k++) {
        int idx = idx_order[k];
        char why[96] = "";
        int rd = make_ready(w, idx, job, res, why, sizeof why);
        if (rd == READY)
            continue;
        if (rd == READY_STOPPED || rd == READY_FATAL)
            return -1;
        int colour = idx == white ? WHITE : BLACK;
        memset(rec->dead, 0, sizeof rec->dead);
        rec->nply = 0;
        rec->startpos = !fen;
        snprintf(rec->fen, sizeof rec->fen, "%s", fen ? fen : START_FEN);
        rec->result = colour == WHITE ? RESULT_BLACK : RESULT_WHITE;
        rec->term = rd == READY_FAILED_TIMEOUT ? TERM_STALL : TERM_CRASH;
        rec->culprit = colour;
        snprintf(rec->detail, sizeof rec->detail, "%s", why);
        forfeited = true;
    }

    if (!forfeited) {
        GameSetup setup = { .eng = { &w->eng[white], &w->eng[!white] },
                            .tc = { job->has_tc ? &job->tc : &cfg->eng[white].tc,
                                    job->has_tc ? &job->tc : &cfg->eng[!white].tc },
                            .adj = &cfg->adj,
                            .fen = fen,
                            .stop = cfg->stop };
        game_play(&setup, &w->scratch, rec);
        for (int c = 0; c < 2; c++)
            if (rec->dead[c])
                ep_kill(&w->eng[c == WHITE ? white : !white]);
        warn_unmetered(w, rec, white);
        if (rec->term == TERM_STOPPED)
            return -1;
        if (rec->term == TERM_BAD_START) {
            fatal(w, "opening position '%s' is not legal: %s", rec->fen, rec->detail);
            return -1;
        }
    }

    int e0_colour = white == 0 ? WHITE : BLACK;
    int pts = rec->result == RESULT_DRAW ? 1 : (rec->result == (e0_colour == WHITE ? RESULT_WHITE : RESULT_BLACK) ? 2 : 0);
    res->score2[g] = pts;
    res->result[g] = rec->result;
    res->term[g] = rec->term;
    res->plies[g] = rec->nply;
    if (rec->culprit >= 0)
        count_loss(res, rec->culprit == WHITE ? white : !white, rec->term);
    for (int c = 0; c < 2; c++) {
        int idx = c == WHITE ? white : !white;
        res->wall_nodes[idx] += rec->wall_nodes[c];
        res->wall_ms[idx] += rec->wall_ms[c];
    }

    if (R->logging) {
        char why[160];
        game_describe(rec, why, sizeof why);
        ep_log_printf(&R->log, "game %llu.%d finished: %s vs %s: %s {%s} %d plies",
                      (unsigned long long)job->id + 1, g + 1, cfg->eng[white].name, cfg->eng[!white].name,
                      game_result_text(rec->result), why, rec->nply);
    }
    if ((R->pgn || R->hooks->game_pgn) && write_pgn(w, job, white, rec, start) < 0)
        return -1; /* the pair is abandoned: played again by a resume */
    return 0;
}

static int play_pair(Worker *w, const PairJob *job, PairResult *res)
{
    memset(res, 0, sizeof *res);
    int games = job->games == 1 ? 1 : 2;
    res->games = games;
    res->ptnml_index = -1;
    for (int g = 0; g < games; g++) {
        int white = games == 1 ? (job->swap ? 1 : 0) : g;
        if (play_game(w, job, g, white, res) < 0)
            return -1;
    }
    if (games == 2)
        res->ptnml_index = res->score2[0] + res->score2[1];
    return 0;
}

/* The worker's next pair, under R->mu: true with w->job filled, false when
 * the match is over for every worker.  The hooks' "no pair" means "none
 * now" while other pairs are in flight, since a pair's result can make
 * another due (a validation point after the last SPSA batch): the worker
 * then waits for a pair to finish and asks again.  The wait is timed so
 * that a stop flag set by a signal handler is seen. */
static bool next_job(Runner *R, Worker *w)
{
    const MatchConfig *cfg = R->cfg;
    for (;;) {
        if (R->abort || R->done || (cfg->stop && *cfg->stop))
            return false;
        pair_job_clear(&w->job);
        if (R->hooks->next_pair(R->hooks->ctx, &w->job)) {
            R->inflight++;
            return true;
        }
        if (R->inflight == 0) {
            R->done = true;
            pthread_cond_broadcast(&R->cv);
            return false;
        }
        mono_cond_wait_us(&R->cv, &R->mu, NEXT_WAIT_US);
    }
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    Runner *R = w->run;

    for (int i = 0; i < 2 && !w->failed; i++) {
        if (ep_start(&w->eng[i], w->err, sizeof w->err) < 0)
            w->failed = true;
        w->fresh[i] = true;
    }
    pthread_mutex_lock(&R->mu);
    R->nready++;
    R->nfailed += w->failed;
    pthread_cond_broadcast(&R->cv);
    while (!R->go && !R->abort)
        pthread_cond_wait(&R->cv, &R->mu);
    pthread_mutex_unlock(&R->mu);

    while (!R->abort) {
        pthread_mutex_lock(&R->mu);
        bool more = next_job(R, w);
        pthread_mutex_unlock(&R->mu);
        if (!more)
            break;
        PairResult res;
        int rc = play_pair(w, &w->job, &res);
        pthread_mutex_lock(&R->mu);
        if (rc == 0)
            R->hooks->pair_done(R->hooks->ctx, &w->job, &res);
        else if (R->hooks->pair_abandoned)
            R->hooks->pair_abandoned(R->hooks->ctx, &w->job);
        R->inflight--;
        pthread_cond_broadcast(&R->cv); /* a finished pair can make another due: ask again */
        pthread_mutex_unlock(&R->mu);
    }
    for (int i = 0; i < 2; i++)
        ep_quit(&w->eng[i], QUIT_GRACE_MS);
    return NULL;
}

/* Warn once about options the engines do not advertise.  An engine under
 * a nodestime clock must have the nodestime option (its own clock must
 * count nodes too): false, with a message, when one has not. */
static bool check_options(const MatchConfig *cfg, Worker *w)
{
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        if (!ep_running(&w->eng[i]))
            continue;
        if (cfg->eng[i].tc.nodestime > 0 && !ep_has_option(&w->eng[i], "nodestime")) {
            fprintf(stderr, "ratchet-tune: engine '%s' has no UCI option 'nodestime': under nodestime=%lld its "
                            "clock is charged in nodes, so its own time manager must count nodes too; drop "
                            "nodestime= or use an engine that has the option\n",
                    cfg->eng[i].name, (long long)cfg->eng[i].tc.nodestime);
            ok = false;
            continue;
        }
        for (int k = 0; k < cfg->eng[i].nopts; k++)
            if (!ep_has_option(&w->eng[i], cfg->eng[i].opts[k].name))
                fprintf(stderr, "ratchet-tune: warning: engine '%s' has no option '%s'\n", cfg->eng[i].name,
                        cfg->eng[i].opts[k].name);
    }
    return ok;
}

int (*match_transport)(const MatchConfig *cfg, const MatchHooks *hooks) = match_play;

/* The CPUs this process may run on (its affinity mask, as taskset and
 * cgroups set it), else those online. */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Games on the wall clock beyond the CPUs share them: the engines search
 * less than their clock gives them, and the figures measure the load. */
static void warn_oversubscribed(const MatchConfig *cfg, int n)
{
    int cpus = usable_cpus();
    if (cfg->force_concurrency || n <= cpus || !(tc_is_wall_clock(&cfg->eng[0].tc) || tc_is_wall_clock(&cfg->eng[1].tc)))
        return;
    fprintf(stderr,
            "ratchet-tune: warning: concurrency %d on %d CPU%s at a wall clock: the games share cores, so the engines "
            "search less than their clock gives them and may lose on time; give -concurrency %d or fewer "
            "(-force-concurrency: play so without this warning)\n",
            n, cpus, cpus == 1 ? "" : "s", cpus);
}

int match_play(const MatchConfig *cfg, const MatchHooks *hooks)
{
    if (!cfg->finished || cfg->nengines != 2) {
        fprintf(stderr, "ratchet-tune: match configuration incomplete (two -engine specs needed)\n");
        return -1;
    }
    Runner R;
    memset(&R, 0, sizeof R);
    R.cfg = cfg;
    R.hooks = hooks;
    char err[512];
    if (cfg->log_path[0]) {
        if (ep_log_open(&R.log, cfg->log_path, err, sizeof err) < 0) {
            fprintf(stderr, "ratchet-tune: %s\n", err);
            return -1;
        }
        R.logging = true;
    }
    pthread_mutex_init(&R.mu, NULL);
    mono_cond_init(&R.cv); /* next_job's timed wait */

    int n = cfg->concurrency > 0 ? cfg->concurrency : 1;
    warn_oversubscribed(cfg, n);
    R.workers = calloc((size_t)n, sizeof *R.workers);
    int started = 0, rc = 0;
    for (int i = 0; R.workers && i < n; i++) {
        Worker *w = &R.workers[i];
        w->run = &R;
        w->index = i;
        for (int e = 0; e < 2; e++) {
            EngineLaunch l = { .name = cfg->eng[e].name, .cmd = cfg->eng[e].cmd, .argv = cfg->eng[e].argv,
                               .dir = cfg->eng[e].dir, .opts = cfg->eng[e].opts, .nopts = cfg->eng[e].nopts,
                               .startup_ms = cfg->eng[e].startup_ms, .log = R.logging ? &R.log : NULL };
            ep_init(&w->eng[e], &l);
        }
        w->msgcap = 128 + (size_t)MAX_JOB_OPTS * (sizeof(EngineOption) + 32);
        w->msg = malloc(w->msgcap);
        w->rec = malloc(sizeof *w->rec);
        if (!w->msg || !w->rec || game_scratch_init(&w->scratch) < 0) {
            fprintf(stderr, "ratchet-tune: out of memory\n");
            break;
        }
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            fprintf(stderr, "ratchet-tune: cannot create a worker thread\n");
            break;
        }
        started++;
    }

    /* All engines up, or nobody plays. */
    pthread_mutex_lock(&R.mu);
    while (R.nready < started)
        pthread_cond_wait(&R.cv, &R.mu);
    if (R.nfailed > 0 || started < n || !check_options(cfg, &R.workers[0])) {
        /* check_options runs before anyone plays: the workers wait. */
        R.abort = true;
        rc = -1;
    } else if (cfg->pgnout[0] && !(R.pgn = pgn_open(cfg->pgnout, err, sizeof err))) {
        /* Opened only now, so that a match that cannot start leaves no file. */
        fprintf(stderr, "ratchet-tune: %s\n", err);
        R.abort = true;
        rc = -1;
    } else {
        R.go = true;
    }
    pthread_cond_broadcast(&R.cv);
    pthread_mutex_unlock(&R.mu);

    for (int i = 0; i < started; i++)
        pthread_join(R.workers[i].thread, NULL);
    if (rc < 0 && R.nfailed > 0) {
        /* One message per distinct error (every worker starts the same engines). */
        for (int i = 0; i < started; i++) {
            if (!R.workers[i].failed)
                continue;
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = R.workers[j].failed && !strcmp(R.workers[j].err, R.workers[i].err);
            if (!seen)
                fprintf(stderr, "ratchet-tune: %s\n", R.workers[i].err);
        }
    } else if (rc == 0 && R.abort) {
        rc = R.pgn && pgn_failed(R.pgn) ? 2 : 1;
    }

    for (int i = 0; R.workers && i < n; i++) {
        Worker *w = &R.workers[i];
        for (int e = 0; e < 2; e++)
            ep_destroy(&w->eng[e]);
        game_scratch_free(&w->scratch);
        pgn_text_free(&w->pgn);
        free(w->rec);
        free(w->msg);
    }
    free(R.workers);
    pgn_close(R.pgn);
    if (R.logging)
        ep_log_close(&R.log);
    pthread_mutex_destroy(&R.mu);
    pthread_cond_destroy(&R.cv);
    return rc;
}
