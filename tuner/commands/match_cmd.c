/* The plain `match` command: rounds of pairs (or single games), the SPRT
 * stop, the progress line, the fastchess-style report.  See match_cmd.h. */
#include "match_cmd.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "cliutil.h"
#include "duration.h"
#include "errmsg.h"
#include "elotext.h"
#include "htmlreport.h"
#include "loadcheck.h"
#include "match_resume.h"
#include "stats.h"
#include "progress.h"
#include "stopsig.h"

typedef struct {
    MatchConfig cfg;
    uint64_t rounds;            /* 0 = until the SPRT decides */
    int games;                  /* per round: 1 or 2 */
    SprtSpec sprt;
    uint64_t next_round;
    MatchTally tally;
    SprtStop stop;              /* the verdict that ended the match */
    int64_t t0;
    Progress progress;
    const char *report;         /* -report FILE: the HTML page, or NULL */
    MatchSeries series;
    int64_t last_report;
    bool time_loss_warned;      /* the warning about too many time losses was given */
    bool resume;                /* -resume: the rounds in the -pgnout file are counted, not played */
    MatchResume done;
    uint64_t games0;            /* games counted from the file, not played by this process */
    bool started;
} PlainMatch;

/* At a wall clock, more time losses than TIME_LOSS_ALARM_PERCENT of the
 * games: the text of the warning (false when there is nothing to say). */
static bool time_loss_alarm(const PlainMatch *m, char *buf, size_t len)
{
    uint64_t losses = m->tally.time_losses[0] + m->tally.time_losses[1];
    if (!(tc_is_wall_clock(&m->cfg.eng[0].tc) || tc_is_wall_clock(&m->cfg.eng[1].tc))
        || !time_losses_alarming(losses, m->tally.games))
        return false;
    time_losses_text(buf, len, losses, m->tally.games);
    return true;
}

static void write_report(PlainMatch *m, bool live)
{
    char err[1200];
    if (htmlreport_match(m->report, &m->cfg, &m->tally, &m->sprt, &m->stop, &m->series, live, err,
                         sizeof err) < 0)
        fprintf(stderr, "ratchet-tune: warning: -report: %s\n", err);
    m->last_report = ep_now_ms();
}

static void progress(PlainMatch *m, bool force)
{
    int64_t now = ep_now_ms();
    if (!progress_due(&m->progress, now, force))
        return;
    const MatchTally *t = &m->tally;
    EloEstimate e;
    match_estimate(t, &e);
    char line[320], eta[32] = "";
    int n = 0;
    uint64_t total = m->rounds * (uint64_t)m->games;
    if (m->rounds)
        n = appendf(line, sizeof line, n, "Games: %llu/%llu", (unsigned long long)t->games,
                      (unsigned long long)total);
    else
        n = appendf(line, sizeof line, n, "Games: %llu", (unsigned long long)t->games);
    char elo[160];
    n = appendf(line, sizeof line, n, " (+%llu -%llu =%llu)  Elo: %s", (unsigned long long)t->wins,
                  (unsigned long long)t->losses, (unsigned long long)t->draws,
                  elo_text(elo, sizeof elo, e.elo, e.elo_err, 1, false, t->ptnml, t->wins, t->losses, t->draws));
    if (m->sprt.on) {
        double llr, lo, up;
        sprt_check(t, &m->sprt, &llr, &lo, &up);
        n = appendf(line, sizeof line, n, "  LLR: %.2f (%.2f, %.2f)", llr, lo, up);
    }
    double secs = (double)(now - m->t0) / 1000.0;
    double rate = secs > 0 && m->started ? (double)(t->games - m->games0) / secs : 0;
    n = appendf(line, sizeof line, n, "  %.2f games/s", rate);
    if (m->rounds && rate > 0 && total > t->games) {
        duration_format((double)(total - t->games) / rate, eta, sizeof eta);
        snprintf(line + n, sizeof line - (size_t)n, "  ETA: %s", eta);
    }
    progress_show(&m->progress, line);
}

static bool plain_next(void *ctx, PairJob *job)
{
    PlainMatch *m = ctx;
    while (m->done.ndone && match_resume_done(&m->done, m->next_round))
        m->next_round++;
    if (m->stop.verdict != 0 || (m->rounds && m->next_round >= m->rounds))
        return false;
    if (!m->started) {
        m->started = true;
        m->t0 = m->progress.last = ep_now_ms(); /* rates count from the first game, not from engine start-up */
    }
    job->id = m->next_round;
    job->opening = m->cfg.book ? book_pick(m->cfg.book, m->next_round) : 0;
    job->games = m->games;
    job->swap = m->games == 1 && (m->next_round & 1);
    m->next_round++;
    return true;
}

static void plain_done(void *ctx, const PairJob *job, const PairResult *res)
{
    (void)job;
    PlainMatch *m = ctx;
    tally_add(&m->tally, res);
    char alarm[256];
    if (!m->time_loss_warned && time_loss_alarm(m, alarm, sizeof alarm)) {
        progress_end(&m->progress);
        fprintf(stderr, "ratchet-tune: warning: %s\n", alarm);
        m->time_loss_warned = true;
    }
    bool decided = false;
    if (m->sprt.on && m->stop.verdict == 0) {
        double llr, lo, up;
        int v = sprt_check(&m->tally, &m->sprt, &llr, &lo, &up);
        if (v != 0) {
            /* Stop on the verdict: no new pair, and the pairs in play end. */
            m->stop.verdict = v;
            m->stop.games = m->tally.games;
            m->stop.llr = llr;
            stopsig_request();
            decided = true;
        }
    }
    if (m->report) {
        match_series_add(&m->series, &m->tally, &m->sprt);
        if (ep_now_ms() - m->last_report >= 1000 * REPORT_RELOAD_S)
            write_report(m, true);
    }
    progress(m, decided);
}

static void usage(FILE *out)
{
    fputs("Usage: ratchet-tune match -engine cmd=A ... -engine cmd=B ... -each nodes=N|tc=..|st=..|depth=N [options]\n"
          "Plays game pairs (each opening twice, colours swapped) between two UCI engines and reports\n"
          "Elo, nElo, LOS and the pentanomial counts as fastchess does.  Exit code 0 when the match ran,\n"
          "2 for a usage error (bad option, missing file, an engine that does not start).\n\n"
          "Match length:\n"
          "  -rounds N            rounds to play (default 1; with -sprt: until the test decides)\n"
          "  -games N             games per round: 2 (a pair from one opening, default) or 1;\n"
          "                       an even N > 2 plays N/2 pairs per round\n"
          "  -repeat              the same as -games 2\n"
          "  -sprt elo0=X elo1=Y alpha=A beta=B   stop when the SPRT (normalized pentanomial model,\n"
          "                       nElo) accepts H0 or H1\n"
          "  -resume              go on with the match recorded in the -pgnout file (the same command\n"
          "                       and options): its complete rounds are counted, not played again, and a\n"
          "                       pair cut short by a stop is removed from the file and played again\n"
          "  -report FILE         (or file=FILE) an HTML page of the match (Elo with its interval and the SPRT LLR over\n"
          "                       the games, the pentanomial counts), rewritten every minute while it\n"
          "                       plays and at the end; self-contained, opens from disk\n",
          out);
    match_print_options(out);
    fputs("Ctrl-C or SIGTERM stops the match and prints the report of the finished games (twice: at once).\n"
          "When the SPRT decides, the games in play are abandoned; a pair that still finishes is counted\n"
          "and named in the verdict line.\n",
          out);
}

static double cpu_seconds(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* The runner's own CPU against the engines' (all reaped by now). */
static void cpu_line(const MatchTally *t)
{
    double self = cpu_seconds(RUSAGE_SELF), kids = cpu_seconds(RUSAGE_CHILDREN);
    double plies = t->plies ? (double)t->plies : 1;
    printf("CPU: runner %.3f s (%.4f ms/ply), engines %.3f s (%.4f ms/ply), %llu plies\n", self,
           self * 1000 / plies, kids, kids * 1000 / plies, (unsigned long long)t->plies);
}

int match_main(int argc, char **argv)
{
    static PlainMatch m; /* large (two specs of options); one per process */
    memset(&m, 0, sizeof m);
    match_config_init(&m.cfg);
    m.games = 2;
    m.sprt.alpha = m.sprt.beta = 0.05;
    int64_t rounds = -1;
    char err[1200];

    for (int i = 1; i < argc;) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        }
        /* -report FILE or file=FILE is ours; fastchess's -report penta=... is accepted and ignored below */
        if (!strcmp(a, "-report") && i + 1 < argc && argv[i + 1][0] != '-' &&
            (!strchr(argv[i + 1], '=') || !strncmp(argv[i + 1], "file=", 5))) {
            m.report = strncmp(argv[i + 1], "file=", 5) ? argv[i + 1] : argv[i + 1] + 5;
            if (!m.report[0])
                return cli_usage_error("ratchet-tune match", "match", "-report: needs a file name");
            i += 2;
            continue;
        }
        int rc = match_parse_option(&m.cfg, argc, argv, &i, err, sizeof err);
        if (rc < 0)
            return cli_usage_error("ratchet-tune match", "match", "%s", err);
        if (rc == 1)
            continue;
        int64_t n;
        if (!strcmp(a, "-rounds")) {
            if (cli_int_value(argc, argv, &i, 1, INT64_MAX / 4, &n, err, sizeof err) < 0)
                return cli_usage_error("ratchet-tune match", "match", "%s", err);
            rounds = n;
        } else if (!strcmp(a, "-games")) {
            if (cli_int_value(argc, argv, &i, 1, 1000000, &n, err, sizeof err) < 0)
                return cli_usage_error("ratchet-tune match", "match", "%s", err);
            if (n > 2 && n % 2)
                return cli_usage_error("ratchet-tune match", "match",
                                       "-games: 1, 2, or an even number of games per round");
            m.games = (int)n;
        } else if (!strcmp(a, "-resume")) {
            m.resume = true;
            i++;
        } else if (!strcmp(a, "-repeat")) {
            i++;
            if (i < argc && !strcmp(argv[i], "2"))
                i++;
            m.games = 2;
        } else if (!strcmp(a, "-sprt")) {
            m.sprt.on = true;
            if (cli_key_values(argc, argv, &i, sprt_kv, &m.sprt, err, sizeof err) < 0)
                return cli_usage_error("ratchet-tune match", "match", "%s", err);
        } else {
            errmsg(err, sizeof err, "unknown option '%s'", a);
            return cli_usage_error("ratchet-tune match", "match", "%s", err);
        }
    }
    if (m.sprt.on && !(m.sprt.alpha > 0 && m.sprt.alpha < 1 && m.sprt.beta > 0 && m.sprt.beta < 1 &&
                       m.sprt.elo1 > m.sprt.elo0))
        return cli_usage_error("ratchet-tune match", "match", "-sprt: needs elo0 < elo1 and 0 < alpha, beta < 1");
    if (m.games > 2) {
        int per = m.games / 2;
        fprintf(stderr, "ratchet-tune: note: -games %d is played as %d pairs per round\n", m.games, per);
        rounds = (rounds < 0 ? 1 : rounds) * per;
        m.games = 2;
    }
    m.rounds = rounds > 0 ? (uint64_t)rounds : (m.sprt.on ? 0 : 1);

    rules_init();
    if (match_config_finish(&m.cfg, err, sizeof err) < 0) {
        match_config_free(&m.cfg);
        return cli_usage_error("ratchet-tune match", "match", "%s", err);
    }

    /* At nodes= or depth= a replayed opening replays its games: an SPRT
     * stops at the book's openings, and -rounds beyond them is warned of
     * (match_cap_fresh). */
    uint64_t fresh = match_fresh_rounds(&m.cfg, m.games);
    bool fresh_cut = match_cap_fresh(&m.cfg, m.games, &m.rounds, m.sprt.on, "ratchet-tune match", stderr);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    StopSig stop;
    stopsig_install(&stop, "\nratchet-tune: match: stopping: abandoning the games in flight and reporting the "
                           "finished ones (again to quit at once)\n");
    m.cfg.stop = &stopsig_flag;

    if (m.resume && match_resume_read(&m.cfg, m.games, m.rounds, &m.done, err, sizeof err) < 0) {
        stopsig_restore(&stop);
        match_config_free(&m.cfg);
        return cli_usage_error("ratchet-tune match", "match", "%s", err);
    }
    char tc[96];
    tc_format(&m.cfg.eng[0].tc, tc, sizeof tc);
    printf("Match: %s vs %s, %s, ", m.cfg.eng[0].name, m.cfg.eng[1].name, tc);
    if (m.sprt.on)
        printf("until the SPRT decides%s", m.rounds ? ", at most " : "");
    if (m.rounds)
        printf("%llu %s", (unsigned long long)m.rounds, m.games == 2 ? "pairs" : "games");
    printf(", concurrency %d", m.cfg.concurrency);
    if (m.cfg.book)
        printf(", %zu openings from %s (%s, seed %llu)", book_size(m.cfg.book), m.cfg.book_path,
               m.cfg.book_random ? "random" : "sequential", (unsigned long long)m.cfg.seed);
    printf("\n");
    fflush(stdout);

    LoadCheck lc;
    load_check_before(&m.cfg, 0, "match", &lc); /* busy: a warning */
    m.t0 = m.last_report = ep_now_ms();
    progress_start(&m.progress, 100, 1000, m.t0);
    if (m.resume) {
        for (size_t i = 0; i < m.done.ndone; i++)
            plain_done(&m, NULL, &m.done.res[i]);
        m.games0 = m.tally.games;
        progress_end(&m.progress);
        printf("Resumed from %s: %zu %s (%llu games) counted", m.cfg.pgnout, m.done.ndone,
               m.games == 2 ? "pairs" : "games", (unsigned long long)m.tally.games);
        if (m.done.cut_games)
            printf("; %zu game%s of %zu unfinished pair%s removed from the file, played again", m.done.cut_games,
                   m.done.cut_games == 1 ? "" : "s", m.done.cut_rounds, m.done.cut_rounds == 1 ? "" : "s");
        printf("\n");
        fflush(stdout);
    }
    MatchHooks hooks = { .next_pair = plain_next, .pair_done = plain_done, .ctx = &m };
    int rc = match_transport(&m.cfg, &hooks);
    stopsig_restore(&stop);
    bool interrupted = stopsig_signal() != 0;
    if (rc < 0) {
        match_series_free(&m.series);
        match_resume_free(&m.done);
        match_config_free(&m.cfg);
        return 2;
    }
    if (m.tally.games > 0)
        progress(&m, true);
    progress_end(&m.progress);
    if (interrupted)
        printf("Match interrupted: report of the %llu finished games\n", (unsigned long long)m.tally.games);
    else if (rc == 2)
        printf("Match stopped early (the PGN file could not be written; it holds the games before the failure): "
               "report of the %llu finished games\n",
               (unsigned long long)m.tally.games);
    else if (rc > 0)
        printf("Match stopped early (an engine could not be restarted): report of the %llu finished games\n",
               (unsigned long long)m.tally.games);
    match_report(stdout, &m.cfg, &m.tally, &m.sprt, &m.stop);
    uint64_t played = m.games == 2 ? m.tally.pairs : m.tally.games;
    if (!fresh_cut && match_deterministic(&m.cfg) && played > fresh)
        printf("Warning: %llu of these %llu %s replay an opening at %s: the same games again, counted as new "
               "(a bigger book: bin/ratchet-genbook)\n",
               (unsigned long long)(played - fresh), (unsigned long long)played, m.games == 1 ? "games" : "pairs", tc);
    if (fresh_cut && m.sprt.on && m.stop.verdict == 0 && !interrupted && rc == 0)
        printf("The SPRT ran out of fresh openings after %llu %s: no verdict (a bigger book: bin/ratchet-genbook)\n",
               (unsigned long long)m.rounds, m.games == 1 ? "games" : "pairs");
    char alarm[256];
    if (time_loss_alarm(&m, alarm, sizeof alarm))
        printf("Warning: %s\n", alarm);
    if (m.report) {
        write_report(&m, false);
        printf("Report: %s\n", m.report);
    }
    match_series_free(&m.series);
    match_resume_free(&m.done);
    cpu_line(&m.tally);
    printf("Finished match\n");
    fflush(stdout);
    match_config_free(&m.cfg);
    return rc == 2 ? 1 : 0;
}
