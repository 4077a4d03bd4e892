/* The plain `match` command: rounds of pairs (or single games), the SPRT
 * stop, the progress line, the fastchess-style report.  See matchcmd.h. */
#include <stdatomic.h>
#include "matchcmd.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "duration.h"
#include "errmsg.h"
#include "htmlreport.h"
#include "stats.h"

void tally_add(MatchTally *t, const PairResult *r)
{
    for (int g = 0; g < r->games; g++) {
        t->games++;
        t->plies += (uint64_t)r->plies[g];
        if (r->score2[g] == 2)
            t->wins++;
        else if (r->score2[g] == 1)
            t->draws++;
        else
            t->losses++;
    }
    if (r->games == 2 && r->ptnml_index >= 0 && r->ptnml_index < 5) {
        t->pairs++;
        t->ptnml[r->ptnml_index]++;
        if (r->ptnml_index == 2) {
            if (r->score2[0] == 1)
                t->penta_dd++;
            else
                t->penta_wl++;
        }
    }
    for (int e = 0; e < 2; e++) {
        t->time_losses[e] += (uint64_t)r->time_losses[e];
        t->crashes[e] += (uint64_t)r->crashes[e];
        t->illegal[e] += (uint64_t)r->illegal[e];
        t->restarts[e] += (uint64_t)r->restarts[e];
    }
}

int sprt_check(const MatchTally *t, const SprtSpec *s, double *llr, double *lower, double *upper)
{
    stats_sprt_bounds(s->alpha, s->beta, lower, upper);
    *llr = t->pairs > 0 ? stats_sprt_llr_ptnml(t->ptnml, s->elo0, s->elo1)
                        : stats_sprt_llr_wdl(t->wins, t->losses, t->draws, s->elo0, s->elo1);
    if (*llr >= *upper)
        return 1;
    if (*llr <= *lower)
        return -1;
    return 0;
}

void match_estimate(const MatchTally *t, EloEstimate *e)
{
    if (t->pairs > 0)
        stats_from_ptnml(t->ptnml, e);
    else
        stats_from_wdl(t->wins, t->losses, t->draws, e);
}

static void option_or(const EngineSpec *s, const char *name, const char *suffix, const char *dflt, char *buf, size_t len)
{
    for (int k = 0; k < s->nopts; k++)
        if (!strcasecmp(s->opts[k].name, name)) {
            snprintf(buf, len, "%s%s", s->opts[k].value, suffix);
            return;
        }
    snprintf(buf, len, "%s", dflt);
}

/* a / b with two decimals; "inf" or "nan" when b is 0 (as fastchess prints them). */
static const char *ratio(uint64_t a, uint64_t b, char *buf, size_t len)
{
    if (b == 0)
        snprintf(buf, len, a ? "inf" : "nan");
    else
        snprintf(buf, len, "%.2f", (double)a / (double)b);
    return buf;
}

void match_report(FILE *out, const MatchConfig *cfg, const MatchTally *t, const SprtSpec *s,
                  const SprtStop *stop)
{
    char r1[32], r2[32];
    char tc0[96], tc1[96], th0[32], th1[32], h0[32], h1[32], tc[200], th[70], hash[70];
    tc_format(&cfg->eng[0].tc, tc0, sizeof tc0);
    tc_format(&cfg->eng[1].tc, tc1, sizeof tc1);
    option_or(&cfg->eng[0], "Threads", "t", "1t", th0, sizeof th0);
    option_or(&cfg->eng[1], "Threads", "t", "1t", th1, sizeof th1);
    /* The hash only when set: the engines' own defaults are not known here. */
    option_or(&cfg->eng[0], "Hash", "MB", "", h0, sizeof h0);
    option_or(&cfg->eng[1], "Hash", "MB", "", h1, sizeof h1);
    snprintf(tc, sizeof tc, strcmp(tc0, tc1) ? "%s - %s" : "%s", tc0, tc1);
    snprintf(th, sizeof th, strcmp(th0, th1) ? "%s - %s" : "%s", th0, th1);
    if (!*h0 && !*h1)
        hash[0] = '\0';
    else
        snprintf(hash, sizeof hash, strcmp(h0, h1) ? ", %s - %s" : ", %s", *h0 ? h0 : "default",
                 *h1 ? h1 : "default");
    const char *book = strrchr(cfg->book_path, '/');
    book = book ? book + 1 : cfg->book_path;

    EloEstimate e;
    match_estimate(t, &e);
    double points = (double)t->wins + 0.5 * (double)t->draws;
    fprintf(out, "--------------------------------------------------\n");
    fprintf(out, "Results of %s vs %s (%s, %s%s%s%s):\n", cfg->eng[0].name, cfg->eng[1].name, tc, th, hash,
            book[0] ? ", " : "", book);
    fprintf(out, "Elo: %.2f +/- %.2f, nElo: %.2f +/- %.2f\n", e.elo, e.elo_err, e.nelo, e.nelo_err);
    if (t->pairs > 0)
        fprintf(out, "LOS: %.2f %%, DrawRatio: %.2f %%, PairsRatio: %s\n", e.los * 100, e.draw_ratio * 100,
                ratio(t->ptnml[3] + t->ptnml[4], t->ptnml[0] + t->ptnml[1], r1, sizeof r1));
    else
        fprintf(out, "LOS: %.2f %%, DrawRatio: %.2f %%\n", e.los * 100, e.draw_ratio * 100);
    fprintf(out, "Games: %llu, Wins: %llu, Losses: %llu, Draws: %llu, Points: %.1f (%.2f %%)\n",
            (unsigned long long)t->games, (unsigned long long)t->wins, (unsigned long long)t->losses,
            (unsigned long long)t->draws, points, t->games ? points / (double)t->games * 100 : 0.0);
    if (t->pairs > 0)
        fprintf(out, "Ptnml(0-2): [%llu, %llu, %llu, %llu, %llu], WL/DD Ratio: %s\n", (unsigned long long)t->ptnml[0],
                (unsigned long long)t->ptnml[1], (unsigned long long)t->ptnml[2], (unsigned long long)t->ptnml[3],
                (unsigned long long)t->ptnml[4], ratio(t->penta_wl, t->penta_dd, r2, sizeof r2));
    int verdict = 0;
    if (s && s->on) {
        double llr, lo, up;
        verdict = sprt_check(t, s, &llr, &lo, &up);
        fprintf(out, "LLR: %.2f (%.2f, %.2f) [%.2f, %.2f]\n", llr, lo, up, s->elo0, s->elo1);
    }
    fprintf(out, "--------------------------------------------------\n");
    if (s && s->on && stop && stop->verdict != 0) {
        uint64_t after = t->games > stop->games ? t->games - stop->games : 0;
        fprintf(out, "SPRT ([%.2f, %.2f]) completed - %s was accepted at %llu games (LLR %.2f)", s->elo0, s->elo1,
                stop->verdict > 0 ? "H1" : "H0", (unsigned long long)stop->games, stop->llr);
        if (after)
            fprintf(out, "; %llu game%s finished after the verdict %s counted above", (unsigned long long)after,
                    after == 1 ? "" : "s", after == 1 ? "is" : "are");
        fputc('\n', out);
    } else if (s && s->on) {
        fprintf(out, "SPRT ([%.2f, %.2f]) %s\n", s->elo0, s->elo1,
                verdict > 0 ? "completed - H1 was accepted"
                : verdict < 0 ? "completed - H0 was accepted"
                              : "not decided");
    }
    for (int i = 0; i < 2; i++)
        fprintf(out, "Player: %s\n  Time losses: %llu\n  Crashes: %llu\n  Illegal moves: %llu\n  Restarts: %llu\n",
                cfg->eng[i].name, (unsigned long long)t->time_losses[i], (unsigned long long)t->crashes[i],
                (unsigned long long)t->illegal[i], (unsigned long long)t->restarts[i]);
}

typedef struct {
    MatchConfig cfg;
    uint64_t rounds;            /* 0 = until the SPRT decides */
    int games;                  /* per round: 1 or 2 */
    SprtSpec sprt;
    uint64_t next_round;
    MatchTally tally;
    SprtStop stop;              /* the verdict that ended the match */
    int64_t t0, last_progress;
    bool tty;
    bool progress_pending;      /* a TTY line without its newline */
    const char *report;         /* -report FILE: the HTML page, or NULL */
    MatchSeries series;
    int64_t last_report;
} PlainMatch;

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
    if (!force && now - m->last_progress < (m->tty ? 100 : 1000))
        return;
    m->last_progress = now;
    const MatchTally *t = &m->tally;
    EloEstimate e;
    match_estimate(t, &e);
    char line[320], eta[32] = "";
    int n = 0;
    uint64_t total = m->rounds * (uint64_t)m->games;
    if (m->rounds)
        n += snprintf(line + n, sizeof line - (size_t)n, "Games: %llu/%llu", (unsigned long long)t->games,
                      (unsigned long long)total);
    else
        n += snprintf(line + n, sizeof line - (size_t)n, "Games: %llu", (unsigned long long)t->games);
    n += snprintf(line + n, sizeof line - (size_t)n, " (+%llu -%llu =%llu)  Elo: %.1f +/- %.1f",
                  (unsigned long long)t->wins, (unsigned long long)t->losses, (unsigned long long)t->draws, e.elo,
                  e.elo_err);
    if (m->sprt.on) {
        double llr, lo, up;
        sprt_check(t, &m->sprt, &llr, &lo, &up);
        n += snprintf(line + n, sizeof line - (size_t)n, "  LLR: %.2f (%.2f, %.2f)", llr, lo, up);
    }
    double secs = (double)(now - m->t0) / 1000.0;
    double rate = secs > 0 ? (double)t->games / secs : 0;
    n += snprintf(line + n, sizeof line - (size_t)n, "  %.2f games/s", rate);
    if (m->rounds && rate > 0 && total > t->games) {
        duration_format((double)(total - t->games) / rate, eta, sizeof eta);
        snprintf(line + n, sizeof line - (size_t)n, "  ETA: %s", eta);
    }
    if (m->tty) {
        printf("\r%s\033[K", line);
        m->progress_pending = true;
    } else {
        printf("%s\n", line);
    }
    fflush(stdout);
}

/* The match's stop flag (a verdict or a signal) and the signal, if any. */
static atomic_int stop_play, interrupted;

static bool plain_next(void *ctx, PairJob *job)
{
    PlainMatch *m = ctx;
    if (m->stop.verdict != 0 || (m->rounds && m->next_round >= m->rounds))
        return false;
    if (m->next_round == 0)
        m->t0 = m->last_progress = ep_now_ms(); /* rates count from the first game, not from engine start-up */
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
    bool decided = false;
    if (m->sprt.on && m->stop.verdict == 0) {
        double llr, lo, up;
        int v = sprt_check(&m->tally, &m->sprt, &llr, &lo, &up);
        if (v != 0) {
            /* Stop on the verdict: no new pair, and the pairs in play end. */
            m->stop.verdict = v;
            m->stop.games = m->tally.games;
            m->stop.llr = llr;
            atomic_store(&stop_play, 1);
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

/* SIGINT or SIGTERM: stop and report; a second one: at once. */
static void on_sigint(int sig)
{
    if (interrupted) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    interrupted = sig;
    stop_play = 1;
}

int sprt_kv(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    SprtSpec *s = ctx;
    double d;
    if (!strcmp(key, "model")) {
        if (strcmp(v, "normalized") != 0)
            return errmsg(err, errlen, "-sprt: model=%s is not supported (normalized)", v);
        return 0;
    }
    if (!cli_parse_double(v, -1000, 1000, &d))
        return errmsg(err, errlen, "-sprt: bad %s='%s'", key, v);
    if (!strcmp(key, "elo0"))
        s->elo0 = d;
    else if (!strcmp(key, "elo1"))
        s->elo1 = d;
    else if (!strcmp(key, "alpha"))
        s->alpha = d;
    else if (!strcmp(key, "beta"))
        s->beta = d;
    else
        return errmsg(err, errlen, "-sprt: unknown key '%s' (elo0, elo1, alpha, beta)", key);
    return 0;
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

static int usage_error(const char *msg)
{
    fprintf(stderr, "ratchet-tune match: %s\n(see ratchet-tune match --help)\n", msg);
    return 2;
}

int match_cmd(int argc, char **argv)
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
                return usage_error("-report: needs a file name");
            i += 2;
            continue;
        }
        int rc = match_parse_option(&m.cfg, argc, argv, &i, err, sizeof err);
        if (rc < 0)
            return usage_error(err);
        if (rc == 1)
            continue;
        int64_t n;
        if (!strcmp(a, "-rounds")) {
            if (cli_int_value(argc, argv, &i, 1, INT64_MAX / 4, &n, err, sizeof err) < 0)
                return usage_error(err);
            rounds = n;
        } else if (!strcmp(a, "-games")) {
            if (cli_int_value(argc, argv, &i, 1, 1000000, &n, err, sizeof err) < 0)
                return usage_error(err);
            if (n > 2 && n % 2)
                return usage_error("-games: 1, 2, or an even number of games per round");
            m.games = (int)n;
        } else if (!strcmp(a, "-repeat")) {
            i++;
            if (i < argc && !strcmp(argv[i], "2"))
                i++;
            m.games = 2;
        } else if (!strcmp(a, "-sprt")) {
            m.sprt.on = true;
            if (cli_key_values(argc, argv, &i, sprt_kv, &m.sprt, err, sizeof err) < 0)
                return usage_error(err);
        } else {
            snprintf(err, sizeof err, "unknown option '%s'", a);
            return usage_error(err);
        }
    }
    if (m.sprt.on && !(m.sprt.alpha > 0 && m.sprt.alpha < 1 && m.sprt.beta > 0 && m.sprt.beta < 1 &&
                       m.sprt.elo1 > m.sprt.elo0))
        return usage_error("-sprt: needs elo0 < elo1 and 0 < alpha, beta < 1");
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
        return usage_error(err);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int, old_term;
    interrupted = 0;
    stop_play = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    m.cfg.stop = &stop_play;

    char tc[96];
    tc_format(&m.cfg.eng[0].tc, tc, sizeof tc);
    printf("Match: %s vs %s, %s, ", m.cfg.eng[0].name, m.cfg.eng[1].name, tc);
    if (m.rounds)
        printf("%llu %s", (unsigned long long)m.rounds, m.games == 2 ? "pairs" : "games");
    else
        printf("until the SPRT decides");
    printf(", concurrency %d", m.cfg.concurrency);
    if (m.cfg.book)
        printf(", %zu openings from %s (%s, seed %llu)", book_size(m.cfg.book), m.cfg.book_path,
               m.cfg.book_random ? "random" : "sequential", (unsigned long long)m.cfg.seed);
    printf("\n");
    fflush(stdout);

    m.tty = cli_live_progress();
    m.t0 = m.last_progress = m.last_report = ep_now_ms();
    MatchHooks hooks = { .next_pair = plain_next, .pair_done = plain_done, .ctx = &m };
    int rc = match_transport(&m.cfg, &hooks);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc < 0) {
        match_series_free(&m.series);
        match_config_free(&m.cfg);
        return 2;
    }
    if (m.tally.games > 0)
        progress(&m, true);
    if (m.progress_pending)
        printf("\n");
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
    if (m.report) {
        write_report(&m, false);
        printf("Report: %s\n", m.report);
    }
    match_series_free(&m.series);
    cpu_line(&m.tally);
    printf("Finished match\n");
    fflush(stdout);
    match_config_free(&m.cfg);
    return rc == 2 ? 1 : 0;
}
