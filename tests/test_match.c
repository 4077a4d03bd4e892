/* The match runner: pairs over worker threads with misbehaving engines (each
 * match completes, the misbehaving engine loses, the counts are reported, the
 * engine is restarted, nothing hangs), per-pair options, the stop flag, setup
 * errors, PGN output replayed with the rules library, and the `match`
 * command line (exit codes, report, SPRT stop, Ctrl-C). */
#include <stdatomic.h>
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "elotext.h"
#include "helpers.h"
#include "match.h"
#include "matchreport.h"
#include "sprt.h"
#include "stats.h"

#define FAKE "build/fake/fakeuci"
#define TUNE "bin/ratchet-tune"

extern char **environ;

/* ---- hooks that record everything ---------------------------------------- */

#define MAXP 64
typedef struct {
    int total, next, done, abandoned;
    int games;                      /* per job */
    int stop_after;                 /* set *stop after this many done pairs (0 = never) */
    atomic_int *stop;
    bool alpha_per_pair;            /* engine 0 gets option Alpha = pair number */
    PairResult res[MAXP];
    MatchTally tally;
} Rec;

static bool rec_next(void *ctx, PairJob *job)
{
    Rec *r = ctx;
    if (r->next >= r->total)
        return false;
    job->id = (uint64_t)r->next;
    job->opening = (size_t)r->next;
    job->games = r->games;
    if (r->alpha_per_pair) {
        job->nopts[0] = 1;
        snprintf(job->opts[0][0].name, sizeof job->opts[0][0].name, "Alpha");
        snprintf(job->opts[0][0].value, sizeof job->opts[0][0].value, "%d", r->next);
    }
    r->next++;
    return true;
}

static void rec_done(void *ctx, const PairJob *job, const PairResult *res)
{
    Rec *r = ctx;
    (void)job;
    if (r->done < MAXP)
        r->res[r->done] = *res;
    r->done++;
    tally_add(&r->tally, res);
    if (r->stop_after && r->done >= r->stop_after)
        *r->stop = 1;
}

static void rec_abandoned(void *ctx, const PairJob *job)
{
    (void)job;
    ((Rec *)ctx)->abandoned++;
}

static MatchConfig cfg;
static Rec rec;
static atomic_int stop_flag;

static void setup(void)
{
    rules_init();
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    memset(&rec, 0, sizeof rec);
    rec.games = 2;
    stop_flag = 0;
    match_config_init(&cfg);
}

static void teardown(void) { match_config_free(&cfg); }

/* Parse a command line of match options into cfg; the parser is under test too. */
static void configure(const char *line)
{
    char err[512];
    Args a = { .n = 0 };
    add_line(&a, "%s", line);
    for (int i = 0; i < a.n;) {
        int rc = match_parse_option(&cfg, a.n, a.v, &i, err, sizeof err);
        cr_assert_eq(rc, 1, "option '%s' not taken: %s", a.v[i], err);
    }
    args_free(&a);
    cr_assert_eq(match_config_finish(&cfg, err, sizeof err), 0, "%s", err);
    cfg.stop = &stop_flag;
}

static int play(int pairs)
{
    rec.total = pairs;
    MatchHooks h = { .next_pair = rec_next, .pair_done = rec_done, .pair_abandoned = rec_abandoned, .ctx = &rec };
    return match_play(&cfg, &h);
}

static bool rules_term(Termination t) { return t >= TERM_CHECKMATE && t <= TERM_MATERIAL; }

/* Every game with a forfeit term was lost by engine 1 (the misbehaving one). */
static int count_terms(Termination t)
{
    int n = 0;
    for (int p = 0; p < rec.done && p < MAXP; p++)
        for (int g = 0; g < rec.res[p].games; g++)
            if (rec.res[p].term[g] == t) {
                n++;
                cr_assert_eq(rec.res[p].score2[g], 2, "pair %d game %d: engine 0 must win a forfeit", p, g);
            }
    return n;
}

TestSuite(match, .init = setup, .fini = teardown, .timeout = 90);

Test(match, pairs_on_two_workers)
{
    configure("-engine cmd=" FAKE " name=A args=\"--seed 1\" -engine cmd=" FAKE " name=B args=\"--seed 2\" "
              "-each nodes=10 -concurrency 2 -maxmoves 60");
    cr_assert_eq(play(4), 0);
    cr_assert_eq(rec.done, 4);
    cr_assert_eq(rec.abandoned, 0);
    for (int p = 0; p < 4; p++) {
        const PairResult *r = &rec.res[p];
        cr_assert_eq(r->games, 2);
        cr_assert_eq(r->ptnml_index, r->score2[0] + r->score2[1]);
        for (int g = 0; g < 2; g++)
            cr_assert(rules_term(r->term[g]) || r->term[g] == TERM_MAXMOVES, "term %d", r->term[g]);
    }
    uint64_t sum = 0;
    for (int k = 0; k < 5; k++)
        sum += rec.tally.ptnml[k];
    cr_assert_eq(sum, 4);
    cr_assert_eq(rec.tally.games, 8);
    for (int e = 0; e < 2; e++)
        cr_assert_eq(rec.tally.restarts[e] + rec.tally.crashes[e] + rec.tally.illegal[e] + rec.tally.time_losses[e], 0);
}

/* A pair that becomes due only when another is done, as the final
 * validation point after the last SPSA batch: the hooks say "none now"
 * while the first pair is in flight.  The idle worker must wait and ask
 * again, not end the match for both. */
static bool gated_next(void *ctx, PairJob *job)
{
    Rec *r = ctx;
    if (r->next >= r->total || (r->next > 0 && r->done < r->next))
        return false;
    return rec_next(ctx, job);
}

Test(match, a_pair_made_due_by_a_result_in_flight_is_played)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B -each nodes=10 -concurrency 2 "
              "-maxmoves 60");
    rec.total = 3;
    MatchHooks h = { .next_pair = gated_next, .pair_done = rec_done, .pair_abandoned = rec_abandoned, .ctx = &rec };
    cr_assert_eq(match_play(&cfg, &h), 0);
    cr_assert_eq(rec.done, 3, "%d of the 3 pairs played: a worker that found no pair while one was in flight "
                              "ended the match",
                 rec.done);
    cr_assert_eq(rec.abandoned, 0);
}

Test(match, single_games_alternate_colours)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B -each nodes=10 -maxmoves 20");
    rec.games = 1;
    cr_assert_eq(play(3), 0);
    cr_assert_eq(rec.done, 3);
    for (int p = 0; p < 3; p++) {
        cr_assert_eq(rec.res[p].games, 1);
        cr_assert_eq(rec.res[p].ptnml_index, -1);
    }
    cr_assert_eq(rec.tally.games, 3);
    cr_assert_eq(rec.tally.pairs, 0);
}

Test(match, crashing_engine_loses_and_is_restarted)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--crash-after 15\" -each nodes=10");
    cr_assert_eq(play(3), 0);
    cr_assert_eq(rec.done, 3);
    int crashes = count_terms(TERM_CRASH);
    cr_assert(crashes >= 1);
    cr_assert_eq(rec.tally.crashes[1], (uint64_t)crashes);
    cr_assert_eq(rec.tally.crashes[0], 0);
    bool last_crashed = rec.res[2].term[1] == TERM_CRASH;
    cr_assert_eq(rec.tally.restarts[1], (uint64_t)(crashes - last_crashed), "one restart before each game after a crash");
    cr_assert_eq(rec.tally.restarts[0], 0);
}

Test(match, hanging_engine_is_killed_by_the_watchdog)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--hang-after 5\" watchdog=0.3 "
              "-each nodes=10");
    cr_assert_eq(play(2), 0);
    cr_assert_eq(rec.done, 2);
    cr_assert_eq(count_terms(TERM_STALL), 4);
    cr_assert_eq(rec.tally.time_losses[1], 4);
    cr_assert_eq(rec.tally.restarts[1], 3);
    cr_assert_eq(rec.tally.ptnml[PTNML_WW], 2);
}

Test(match, illegal_moves_lose)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--illegal-after 3\" -each nodes=10");
    cr_assert_eq(play(2), 0);
    cr_assert_eq(count_terms(TERM_ILLEGAL), 4);
    cr_assert_eq(rec.tally.illegal[1], 4);
    cr_assert_eq(rec.tally.restarts[1], 0);
}

Test(match, malformed_bestmove_loses)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--malformed-after 2\" -each nodes=10");
    cr_assert_eq(play(2), 0);
    cr_assert_eq(count_terms(TERM_ILLEGAL), 4);
    cr_assert_eq(rec.tally.illegal[1], 4);
}

Test(match, garbage_output_is_harmless)
{
    configure("-engine cmd=" FAKE " name=A args=\"--garbage\" -engine cmd=" FAKE " name=B args=\"--garbage --seed 9\" "
              "-each nodes=10");
    cr_assert_eq(play(2), 0);
    for (int p = 0; p < 2; p++)
        for (int g = 0; g < 2; g++)
            cr_assert(rules_term(rec.res[p].term[g]), "term %d", rec.res[p].term[g]);
    for (int e = 0; e < 2; e++)
        cr_assert_eq(rec.tally.illegal[e] + rec.tally.crashes[e] + rec.tally.time_losses[e], 0);
}

/* Dies at every ucinewgame: restarted before each game after the first, and
 * every game is still played out. */
Test(match, engine_dying_between_games_is_restarted_in_time)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--die-on-ucinewgame\" "
              "-each nodes=10 -maxmoves 30");
    cr_assert_eq(play(2), 0);
    cr_assert_eq(rec.done, 2);
    cr_assert_eq(rec.tally.restarts[1], 3);
    cr_assert_eq(rec.tally.crashes[1], 0);
    for (int p = 0; p < 2; p++)
        for (int g = 0; g < 2; g++)
            cr_assert(rec.res[p].plies[g] > 0);
}

/* The leader exits, a child keeps its stdout open: noticed long before the
 * 60 s watchdog (the suite's timeout would fail the test otherwise). */
Test(match, dead_engine_with_orphan_child_is_noticed)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--orphan-after 4\" -each nodes=10");
    cr_assert_eq(play(1), 0);
    cr_assert_eq(count_terms(TERM_CRASH), 2);
    cr_assert_eq(rec.tally.crashes[1], 2);
}

Test(match, slow_engine_loses_on_time_and_stays)
{
    configure("-engine cmd=" FAKE " name=A tc=60 -engine cmd=" FAKE " name=B args=\"--think 80\" tc=0.25");
    cr_assert_eq(play(1), 0);
    cr_assert_eq(count_terms(TERM_TIME), 2);
    cr_assert_eq(rec.tally.time_losses[1], 2);
    cr_assert_eq(rec.tally.restarts[1], 0);
}

Test(match, slow_start_within_the_deadline)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--slow-start 300\" "
              "-each nodes=10 startup=10 -maxmoves 10");
    cr_assert_eq(play(1), 0);
    cr_assert_eq(rec.done, 1);
}

static char *slurp_path(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* Each game: ucinewgame (not for a fresh process), the pair's options, isready. */
Test(match, pair_options_reach_the_engine_before_each_game)
{
    char path[] = "/tmp/ratchet-optlog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    char line[512];
    snprintf(line, sizeof line,
             "-engine cmd=" FAKE " name=A args=\"--options --option-log %s\" option.Beta=4 "
             "-engine cmd=" FAKE " name=B -each nodes=10 -maxmoves 3",
             path);
    configure(line);
    rec.alpha_per_pair = true;
    cr_assert_eq(play(3), 0);
    char *log = slurp_path(path);
    unlink(path);
    cr_assert_not_null(log);
    /* Drop the go lines. */
    char seq[1024] = "";
    for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n"))
        if (strncmp(l, "go", 2) != 0) {
            strcat(seq, l);
            strcat(seq, "|");
        }
    free(log);
    cr_assert_str_eq(seq, "uci|set Beta 4|set Alpha 0|ucinewgame|set Alpha 0|ucinewgame|set Alpha 1|ucinewgame|"
                          "set Alpha 1|ucinewgame|set Alpha 2|ucinewgame|set Alpha 2|");
}

Test(match, stop_flag_ends_the_match_between_pairs)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B -each nodes=10 -maxmoves 10");
    rec.stop_after = 1;
    rec.stop = &stop_flag;
    cr_assert_eq(play(10), 0);
    cr_assert_eq(rec.done, 1);
    cr_assert_eq(rec.next, 1, "no new pair after the stop");
}

static void *raise_stop_later(void *arg)
{
    (void)arg;
    while (__atomic_load_n(&rec.next, __ATOMIC_SEQ_CST) == 0)
        usleep(10 * 1000);
    usleep(500 * 1000); /* into the game, where B hangs */
    stop_flag = 1;
    return NULL;
}

/* An engine hangs with the 60 s default watchdog; the stop flag ends the
 * wait at once and the pair is reported abandoned, not done (waiting out the
 * watchdog would have made it a done pair, lost on a stall). */
Test(match, stop_flag_abandons_a_running_pair)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--hang-after 2\" -each nodes=10");
    pthread_t th;
    pthread_create(&th, NULL, raise_stop_later, NULL);
    cr_assert_eq(play(5), 0);
    pthread_join(th, NULL);
    cr_assert_eq(rec.done, 0, "done %d abandoned %d next %d", rec.done, rec.abandoned, rec.next);
    cr_assert_eq(rec.abandoned, 1, "done %d abandoned %d next %d", rec.done, rec.abandoned, rec.next);
}

Test(match, engine_that_does_not_start_is_a_setup_error)
{
    configure("-engine cmd=no-such-engine-ratchet name=A -engine cmd=" FAKE " name=B -each nodes=10");
    cr_assert_eq(play(3), -1);
    cr_assert_eq(rec.next, 0, "no game played");
}

Test(match, engine_without_uciok_is_a_setup_error)
{
    configure("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--no-uciok\" startup=0.3 -each nodes=10 "
              "-concurrency 2");
    cr_assert_eq(play(3), -1);
    cr_assert_eq(rec.next, 0, "no game played");
}

/* Starts once, crashes, then cannot be started again: the match stops. */
Test(match, engine_that_cannot_restart_stops_the_match)
{
    char dir[] = "/tmp/ratchet-restart-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char script[256], cwd[1024], line[2048];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(script, sizeof script, "%s/engine.sh", dir);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\nif [ -e %s/started ]; then exit 1; fi\ntouch %s/started\nexec %s/%s --crash-after 4\n", dir,
            dir, cwd, FAKE);
    fclose(f);
    chmod(script, 0755);
    snprintf(line, sizeof line, "-engine cmd=" FAKE " name=A -engine cmd=%s name=B -each nodes=10", script);
    configure(line);
    int rc = play(5);
    char marker[300];
    snprintf(marker, sizeof marker, "%s/started", dir);
    unlink(marker);
    unlink(script);
    rmdir(dir);
    cr_assert_eq(rc, 1);
    cr_assert_eq(rec.done, 1);
    cr_assert_eq(rec.abandoned, 1);
    cr_assert_eq(rec.res[0].term[0], TERM_CRASH);
    cr_assert_eq(rec.res[0].term[1], TERM_CRASH, "the second game is lost by the engine that cannot start");
    cr_assert_eq(rec.tally.crashes[1], 2);
}

/* ---- PGN ----------------------------------------------------------------- */

static const char *book_epd = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
                              "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n";

static void write_path(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void tag_value(const char *game, const char *name, char *out, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "[%s \"", name);
    const char *p = strstr(game, key);
    out[0] = '\0';
    if (!p)
        return;
    p += strlen(key);
    const char *q = strchr(p, '"');
    snprintf(out, len, "%.*s", (int)(q - p), p);
}

/* Whether fen begins a line of the EPD text (the rest of the line: its
 * operations, if any). */
static bool epd_has_line(const char *epd, const char *fen)
{
    size_t n = strlen(fen);
    for (const char *p = strstr(epd, fen); p; p = strstr(p + 1, fen))
        if ((p == epd || p[-1] == '\n') && (p[n] == '\n' || p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* Replay one PGN game's movetext with parse_san; returns the plies. */
static int replay_san(const char *text, Position *pos)
{
    int plies = 0;
    const char *p = text;
    char tok[64];
    while (*p) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (*p == '{') {
            p = strchr(p, '}');
            cr_assert_not_null(p, "unterminated comment");
            p++;
            continue;
        }
        size_t n = strcspn(p, " \n");
        if (n == 0)
            break;
        snprintf(tok, sizeof tok, "%.*s", (int)n, p);
        p += n;
        if (!strcmp(tok, "1-0") || !strcmp(tok, "0-1") || !strcmp(tok, "1/2-1/2") || !strcmp(tok, "*"))
            break;
        if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.'))
            continue;
        Move m = parse_san(pos, tok);
        cr_assert_neq(m, MOVE_NONE, "ply %d: '%s' is not a legal SAN move", plies, tok);
        pos_make(pos, m);
        plies++;
    }
    return plies;
}

Test(match, pgn_replays_move_by_move_to_the_same_result)
{
    char epd[] = "/tmp/ratchet-book-XXXXXX", pgn[] = "/tmp/ratchet-pgn-XXXXXX";
    close(mkstemp(epd));
    close(mkstemp(pgn));
    unlink(pgn);
    write_path(epd, book_epd);
    char line[1024];
    snprintf(line, sizeof line,
             "-engine cmd=" FAKE " name=Alpha args=\"--seed 3 --info\" -engine cmd=" FAKE " name=Beta args=\"--seed 4\" "
             "-each nodes=10 -openings file=%s format=epd order=sequential -pgnout file=%s -event Test -concurrency 2",
             epd, pgn);
    configure(line);
    cr_assert_eq(play(2), 0);
    char *text = slurp_path(pgn);
    unlink(epd);
    unlink(pgn);
    cr_assert_not_null(text);

    Position *pos = malloc(sizeof *pos);
    int games = 0;
    char *g = text;
    while ((g = strstr(g, "[Event "))) {
        char *next = strstr(g + 1, "[Event ");
        if (next)
            next[-1] = '\0';
        char white[64], black[64], result[16], fen[128], setup[8], plies[16], term[32], event[32], tc[16];
        tag_value(g, "White", white, sizeof white);
        tag_value(g, "Black", black, sizeof black);
        tag_value(g, "Result", result, sizeof result);
        tag_value(g, "FEN", fen, sizeof fen);
        tag_value(g, "SetUp", setup, sizeof setup);
        tag_value(g, "PlyCount", plies, sizeof plies);
        tag_value(g, "Termination", term, sizeof term);
        tag_value(g, "Event", event, sizeof event);
        tag_value(g, "TimeControl", tc, sizeof tc);
        cr_assert_str_eq(event, "Test");
        cr_assert_str_eq(tc, "-");
        cr_assert_str_eq(setup, "1");
        cr_assert(epd_has_line(book_epd, fen), "FEN %s is a line of the book", fen);
        cr_assert((!strcmp(white, "Alpha") && !strcmp(black, "Beta")) ||
                  (!strcmp(white, "Beta") && !strcmp(black, "Alpha")));
        cr_assert_eq(pos_from_fen(pos, fen, NULL, 0), 0);
        const char *moves = strstr(g, "\n\n");
        cr_assert_not_null(moves);
        int n = replay_san(moves + 2, pos);
        cr_assert_eq(n, atoi(plies), "PlyCount %s, replayed %d", plies, n);
        cr_assert(strstr(moves, result), "the movetext ends with the result %s", result);
        if (!strcmp(term, "normal")) {
            int res;
            Termination t;
            cr_assert(game_rules_end(pos, &res, &t), "a normal end is an end by the rules");
            cr_assert_str_eq(game_result_text(res), result);
        }
        games++;
        if (!next)
            break;
        g = next;
    }
    free(pos);
    free(text);
    cr_assert_eq(games, 4);
}

/* ---- the command line (bin/ratchet-tune) ---------------------------------- */

/* Run `bin/ratchet-tune match ARGS` through sh; stdout and stderr into out. */
static int cli(const char *args, char *out, size_t len)
{
    cr_assert(access(TUNE, X_OK) == 0, "%s is missing: run make first", TUNE);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s match %s 2>&1", TUNE, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


#define PAIR "-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B "

Test(match, cli_help)
{
    cr_assert_eq(cli("--help", out, sizeof out), 0);
    cr_assert(strstr(out, "-openings") && strstr(out, "-sprt") && strstr(out, "-concurrency"), "%s", out);
}

Test(match, cli_usage_errors_exit_2_without_games)
{
    char pgn[] = "/tmp/ratchet-cli-XXXXXX", args[1024];
    close(mkstemp(pgn));
    unlink(pgn);
    struct { const char *args; const char *msg; } cases[] = {
        { PAIR "-each nodes=10 -bogus", "unknown option '-bogus'" },
        { PAIR "-each nodes=10 -openings file=/nonexistent/book.epd", "/nonexistent/book.epd" },
        { "-engine cmd=/nonexistent/engine name=A -engine cmd=" FAKE " -each nodes=10", "/nonexistent/engine" },
        { "-engine cmd=no-such-engine-ratchet name=A -engine cmd=" FAKE " -each nodes=10", "cannot start" },
        { PAIR "-each nodes=10 startup=0.5 args=--no-uciok", "did not answer 'uci'" },
        { PAIR, "no time control" },
        { PAIR "-each tc=fast", "bad time control 'fast'" },
        { PAIR "-each nodes=10 proto=xboard", "proto=xboard" },
        { PAIR "-each nodes=10 -sprt elo0=5 elo1=0", "-sprt" },
        { "-engine cmd=" FAKE " -each nodes=10", "two -engine" },
        { PAIR "-each nodes=ten", "nodes='ten'" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        snprintf(args, sizeof args, "%s -pgnout %s", cases[k].args, pgn);
        int rc = cli(args, out, sizeof out);
        cr_assert_eq(rc, 2, "case %zu (%s): exit %d\n%s", k, cases[k].args, rc, out);
        cr_assert(strstr(out, cases[k].msg), "case %zu: message should mention '%s':\n%s", k, cases[k].msg, out);
        cr_assert(access(pgn, F_OK) != 0, "case %zu: no game, no PGN file", k);
    }
}

Test(match, cli_report_in_fastchess_format)
{
    int rc = cli(PAIR "-each nodes=10 -rounds 3 -maxmoves 40 -concurrency 2", out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Results of A vs B (10 nodes, 1t):"), "%s", out);
    cr_assert(strstr(out, "Games: 6, Wins: "), "%s", out);
    cr_assert(strstr(out, "Ptnml(0-2): ["), "%s", out);
    cr_assert(strstr(out, "Player: B\n  Time losses: 0\n  Crashes: 0\n  Illegal moves: 0\n  Restarts: 0"), "%s", out);
    cr_assert(strstr(out, "Finished match"), "%s", out);
}

Test(match, cli_counts_misbehaviour_per_engine)
{
    int rc = cli(PAIR "-each nodes=10 -rounds 2 -engine args=\"--illegal-after 2\"", out, sizeof out);
    /* a third -engine is an error; the misbehaving engine goes into the second spec instead */
    cr_assert_eq(rc, 2, "%s", out);
    rc = cli("-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--illegal-after 2\" -each nodes=10 "
             "-rounds 2",
             out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Games: 4, Wins: 4, Losses: 0, Draws: 0"), "%s", out);
    cr_assert(strstr(out, "Ptnml(0-2): [0, 0, 0, 0, 2]"), "%s", out);
    cr_assert(strstr(out, "Player: B\n  Time losses: 0\n  Crashes: 0\n  Illegal moves: 4\n  Restarts: 0"), "%s", out);
}

/* The report's Elo and LLR lines are the statistics module's figures for the
 * printed pentanomial counts. */
Test(match, cli_report_uses_the_statistics)
{
    int rc = cli("-engine cmd=" FAKE " name=A args=\"--first\" -engine cmd=" FAKE " name=B args=\"--seed 5\" "
                 "-each nodes=10 -rounds 6 -maxmoves 30 -draw movenumber=0 movecount=2 score=0 "
                 "-sprt elo0=-100 elo1=100 alpha=0.01 beta=0.01",
                 out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    uint64_t pt[5];
    const char *p = strstr(out, "Ptnml(0-2): [");
    cr_assert_not_null(p, "%s", out);
    unsigned long long a[5];
    cr_assert_eq(sscanf(p, "Ptnml(0-2): [%llu, %llu, %llu, %llu, %llu]", &a[0], &a[1], &a[2], &a[3], &a[4]), 5);
    for (int k = 0; k < 5; k++)
        pt[k] = a[k];
    EloEstimate e;
    stats_from_ptnml(pt, &e);
    char want[256];
    /* an estimate without an interval (every pair alike) reads n/a (elotext.h) */
    char elo[160], nelo[160];
    snprintf(want, sizeof want, "Elo: %s, nElo: %s\n", elo_text(elo, sizeof elo, e.elo, e.elo_err, 2, false, pt, 0, 0, 0),
             elo_has_interval(e.nelo, e.nelo_err) ? elo_text(nelo, sizeof nelo, e.nelo, e.nelo_err, 2, false, pt, 0, 0, 0)
                                                  : "n/a");
    cr_assert(strstr(out, want), "expected '%s' in\n%s", want, out);
    double lo, up;
    stats_sprt_bounds(0.01, 0.01, &lo, &up);
    snprintf(want, sizeof want, "LLR: %.2f (%.2f, %.2f) [-100.00, 100.00]\n", stats_sprt_llr_ptnml(pt, -100, 100), lo,
             up);
    cr_assert(strstr(out, want), "expected '%s' in\n%s", want, out);
}

static int games_in(const char *text)
{
    const char *p = strstr(text, "Games: ");
    const char *last = NULL;
    while (p) {
        last = p;
        p = strstr(p + 1, "Games: ");
    }
    return last ? atoi(last + 7) : -1;
}

/* A book of 400 openings in a test directory of its own: at nodes= an SPRT
 * plays each opening once at most. */
static void sprt_setup(void)
{
    setup();
    tmp_create("/tmp/ratchet-match-XXXXXX");
    write_book("big.epd", 400);
}

static void sprt_teardown(void)
{
    tmp_remove();
    teardown();
}

Test(match, cli_sprt_stops_when_h1_is_accepted, .init = sprt_setup, .fini = sprt_teardown)
{
    char args[1024];
    snprintf(args, sizeof args,
             "-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B args=\"--illegal-after 0\" -each nodes=10 "
             "-rounds 400 -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 -openings file=%s/big.epd",
             tmp);
    int rc = cli(args, out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "SPRT ([0.00, 10.00]) completed - H1 was accepted"), "%s", out);
    int games = games_in(strstr(out, "Results of"));
    cr_assert(games > 0 && games < 800, "stopped early: %d games", games);
}

Test(match, cli_sprt_stops_when_h0_is_accepted, .init = sprt_setup, .fini = sprt_teardown)
{
    char args[1024];
    snprintf(args, sizeof args,
             "-engine cmd=" FAKE " name=A args=\"--illegal-after 0\" -engine cmd=" FAKE " name=B -each nodes=10 "
             "-sprt elo0=0 elo1=10 -openings file=%s/big.epd",
             tmp);
    int rc = cli(args, out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "H0 was accepted"), "%s", out);
}

/* At nodes= a game is a function of its opening: the SPRT stops when the
 * book's openings are played, says so, and counts no pair twice. */
Test(match, cli_sprt_counts_no_replayed_opening, .init = sprt_setup, .fini = sprt_teardown)
{
    write_book("six.epd", 6);
    char args[1024];
    snprintf(args, sizeof args,
             "-engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B -each nodes=10 -maxmoves 20 "
             "-sprt elo0=0 elo1=10 -openings file=%s/six.epd",
             tmp);
    int rc = cli(args, out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "an SPRT with no round limit cut to 6 pairs, one for each of the 6 openings"), "%s", out);
    cr_assert(strstr(out, "The SPRT ran out of fresh openings after 6 pairs: no verdict"), "%s", out);
    cr_assert_eq(games_in(strstr(out, "Results of")), 12, "%s", out);
}

/* Plain rounds beyond the book: at nodes= a warning before and after the
 * games; at a clock a note (a new game, but less evidence). */
Test(match, cli_rounds_beyond_the_book_are_named, .init = sprt_setup, .fini = sprt_teardown)
{
    write_book("two.epd", 2);
    char args[1024];
    snprintf(args, sizeof args,
             PAIR "-each nodes=10 -maxmoves 20 -rounds 5 -openings file=%s/two.epd", tmp);
    int rc = cli(args, out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "warning: 5 pairs on 2 openings of") && strstr(out, "pairs 3 on replay games already played"),
              "%s", out);
    cr_assert(strstr(out, "Warning: 3 of these 5 pairs replay an opening at 10 nodes"), "%s", out);
    cr_assert_eq(games_in(strstr(out, "Results of")), 10, "-rounds is played as asked: %s", out);
    snprintf(args, sizeof args,
             PAIR "-each tc=1+0.01 -maxmoves 6 -rounds 3 -openings file=%s/two.epd", tmp);
    rc = cli(args, out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "note: 3 pairs on 2 openings of") && strstr(out, "from pair 3 on, an opening is played again"),
              "%s", out);
    cr_assert(strstr(out, "Warning:") == NULL, "%s", out);
}

Test(match, cli_single_games_and_pgn_colours)
{
    char pgn[] = "/tmp/ratchet-cli-XXXXXX", args[1024];
    close(mkstemp(pgn));
    unlink(pgn);
    snprintf(args, sizeof args, PAIR "-each nodes=10 -games 1 -rounds 4 -maxmoves 10 -pgnout %s", pgn);
    int rc = cli(args, out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Games: 4, "), "%s", out);
    cr_assert_null(strstr(out, "Ptnml"), "no pentanomial line for single games");
    char *text = slurp_path(pgn);
    unlink(pgn);
    cr_assert_not_null(text);
    int a_white = 0, b_white = 0;
    for (const char *p = text; (p = strstr(p, "[White \"")); p++) {
        a_white += p[8] == 'A';
        b_white += p[8] == 'B';
    }
    free(text);
    cr_assert_eq(a_white, 2);
    cr_assert_eq(b_white, 2);
}

Test(match, cli_log_records_the_engine_traffic)
{
    char log[] = "/tmp/ratchet-log-XXXXXX", args[1024];
    close(mkstemp(log));
    snprintf(args, sizeof args, PAIR "-each nodes=10 -maxmoves 5 -log file=%s", log);
    cr_assert_eq(cli(args, out, sizeof out), 0, "%s", out);
    char *text = slurp_path(log);
    unlink(log);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "<A: uciok"), "%s", text);
    cr_assert(strstr(text, ">B: isready"), "%s", text);
    cr_assert(strstr(text, "game 1.2 finished: B vs A"), "%s", text);
    free(text);
}

/* Ctrl-C: the match stops, the report of the finished games is printed, exit 0. */
Test(match, cli_sigint_stops_cleanly_with_a_report)
{
    Args a = { .n = 0 };
    add_line(&a, TUNE " match -engine cmd=" FAKE " name=A -engine cmd=" FAKE " name=B -each nodes=10 -rounds 100000 "
                 "-concurrency 2");
    Child c = child_start(a.v, false);
    args_free(&a);
    /* Wait for the first progress line: games are being played. */
    cr_assert(child_read_until(&c, "Games: ", 60000), "runner ended early:\n%s", out);
    kill(c.pid, SIGINT);
    int rc = child_finish(&c, 60000);
    cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_assert(strstr(out, "Match interrupted"), "%s", out);
    cr_assert(strstr(out, "Results of A vs B"), "%s", out);
    cr_assert(strstr(out, "Finished match"), "%s", out);
}

Test(match, tc_parsing)
{
    TimeControl t = { 0 };
    char err[256];
    cr_assert_eq(cli_parse_tc("40/60+0.5", &t, err, sizeof err), 0);
    cr_assert_eq(t.moves, 40);
    cr_assert_eq(t.base_ms, 60000);
    cr_assert_eq(t.inc_ms, 500);
    cr_assert_eq(cli_parse_tc("1:30+1", &t, err, sizeof err), 0);
    cr_assert_eq(t.moves, 0);
    cr_assert_eq(t.base_ms, 90000);
    cr_assert_eq(t.inc_ms, 1000);
    cr_assert_eq(cli_parse_tc("0.2", &t, err, sizeof err), 0);
    cr_assert_eq(t.base_ms, 200);
    cr_assert_eq(t.inc_ms, 0);
    cr_assert_eq(cli_parse_tc("inf", &t, err, sizeof err), 0);
    cr_assert_not(tc_has_clock(&t));
    cr_assert_eq(cli_parse_tc("10+", &t, err, sizeof err), -1);
    cr_assert_eq(cli_parse_tc("x/10", &t, err, sizeof err), -1);
    cr_assert_eq(cli_parse_tc("1:75", &t, err, sizeof err), -1);
    cr_assert_eq(cli_parse_tc("0+0", &t, err, sizeof err), -1);
}

Test(match, each_applies_where_engine_is_silent)
{
    configure("-each nodes=10 option.Hash=8 option.Threads=1 name=X "
              "-engine cmd=" FAKE " name=A nodes=99 option.Hash=32 -engine cmd=" FAKE " depth=3");
    cr_assert_eq(cfg.eng[0].tc.nodes, 99);
    cr_assert_eq(cfg.eng[1].tc.nodes, 10);
    cr_assert_eq(cfg.eng[1].tc.depth, 3);
    cr_assert_str_eq(cfg.eng[0].name, "A");
    cr_assert_str_eq(cfg.eng[1].name, "X");
    cr_assert_eq(cfg.eng[0].nopts, 2);
    cr_assert_str_eq(cfg.eng[0].opts[0].name, "Hash");
    cr_assert_str_eq(cfg.eng[0].opts[0].value, "32");
    cr_assert_str_eq(cfg.eng[1].opts[0].value, "8");
    cr_assert_eq(cfg.eng[0].startup_ms, 10000);
}

/* More games at once than CPUs on the wall clock is warned of, naming the
 * numbers; not at nodes=, nor with fastchess's -force-concurrency.  The
 * runner is pinned to one CPU (taskset), whatever the machine has. */
Test(match, more_games_than_cpus_on_the_wall_clock_are_warned_of)
{
    static const struct {
        const char *args;
        bool warned;
    } cases[] = {
        { "-each tc=1+0.01 -concurrency 2", true },
        { "-each tc=1+0.01 -concurrency 2 -force-concurrency", false },
        { "-each tc=1+0.01 -concurrency 1", false },
        { "-each nodes=10 -concurrency 2", false },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "taskset -c 0 %s match " PAIR "%s -rounds 1 -maxmoves 20 2>&1", TUNE,
                 cases[k].args);
        FILE *p = popen(cmd, "r");
        cr_assert_not_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        int st = pclose(p);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s:\n%s", cases[k].args, out);
        bool warned = strstr(out, "warning: concurrency 2 on 1 CPU at a wall clock") &&
                      strstr(out, "give -concurrency 1 or fewer");
        cr_assert_eq(warned, cases[k].warned, "%s: %s:\n%s", cases[k].args,
                     cases[k].warned ? "warned" : "no warning", out);
    }
}

Test(match, pasted_fastchess_options_are_accepted)
{
    configure("-engine cmd=" FAKE " name=A proto=uci -engine cmd=" FAKE " name=B proto=uci "
              "-each tc=10+0.1 timemargin=50 -recover -ratinginterval 10 -output format=fastchess "
              "-draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true "
              "-maxmoves 200 -srand 42 -pgnout file=/dev/null notation=san");
    cr_assert_eq(cfg.eng[1].tc.base_ms, 10000);
    cr_assert_eq(cfg.eng[1].tc.inc_ms, 100);
    cr_assert_eq(cfg.eng[0].tc.margin_ms, 50);
    cr_assert(cfg.adj.draw && cfg.adj.draw_movenumber == 40 && cfg.adj.draw_movecount == 8 && cfg.adj.draw_score == 10);
    cr_assert(cfg.adj.resign && cfg.adj.resign_twosided && cfg.adj.resign_score == 600);
    cr_assert_eq(cfg.adj.maxmoves, 200);
    cr_assert_eq(cfg.seed, 42);
}

/* A name, event or option with a control character would go raw into UCI
 * commands, PGN tags and the terminal: refused, naming the setting. */
Test(match, control_characters_in_names_are_refused)
{
    static const char *const bad[][2] = { { "-engine", "name=a\x1b[31mb" }, { "-engine", "name=a\nb" },
                                          { "-engine", "option.Hash=1\nquit" }, { "-engine", "option.A\rB=1" },
                                          { "-event", "x\ny" },                 { "-each", "name=\x07" } };
    static const char *const what[] = { "name=", "name=", "option.Hash", "option.A", "-event", "name=" };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char *argv[] = { (char *)bad[k][0], (char *)bad[k][1] };
        int i = 0;
        char err[256] = "";
        cr_assert_eq(match_parse_option(&cfg, 2, argv, &i, err, sizeof err), -1, "'%s' taken", bad[k][1]);
        cr_assert(strstr(err, what[k]) && strstr(err, "control character"), "%s", err);
    }
    char *good[] = { "-engine", "name=a b\xc3\xa9", "cmd=/bin/true", "option.Hash=16" };
    int i = 0;
    char err[256] = "";
    cr_assert_eq(match_parse_option(&cfg, 4, good, &i, err, sizeof err), 1, "%s", err);
}

Test(match, unknown_option_is_left_to_the_caller)
{
    char *argv[] = { "-rounds", "5" };
    int i = 0;
    char err[128];
    cr_assert_eq(match_parse_option(&cfg, 2, argv, &i, err, sizeof err), 0);
    cr_assert_eq(i, 0);
    char *bad[] = { "-engine", "cmd" };
    cr_assert_eq(match_parse_option(&cfg, 2, bad, &i, err, sizeof err), -1);
    cr_assert(strstr(err, "key=value"), "%s", err);
}

/* ---- bin/ratchet-tune match as a user runs it ------------------------------------ */

#define FAKEUCI "build/fake/fakeuci"

static void command_setup(void)
{
    tmp_create("/tmp/ratchet-match-XXXXXX");
    command_fixture();
}

Test(match, match_reports_on_sigterm, .init = command_setup, .fini = tmp_remove, .timeout = 120)
{
    Args a = { .n = 0 };
    add_line(&a, TUNE " match -engine cmd=" FAKEUCI " name=A -engine cmd=" FAKEUCI " name=B -each nodes=10 "
                 "-rounds 100000 -concurrency 2");
    Child c = child_start(a.v, false);
    args_free(&a);
    cr_assert(child_read_until(&c, "Games: ", 20000), "no progress:\n%s", out);
    kill(c.pid, SIGTERM);
    int rc = child_finish(&c, 20000);
    cr_assert_eq(rc, 0, "exit %d (1000 + signal when killed)\n%s", rc, out);
    cr_expect(strstr(out, "Match interrupted") && strstr(out, "Results of A vs B") && strstr(out, "Finished match"),
              "%s", out);
}

Test(match, the_sprt_verdict_printed_is_the_one_that_stopped_the_match)
{
    MatchConfig cfg;
    match_config_init(&cfg);
    snprintf(cfg.eng[0].name, sizeof cfg.eng[0].name, "A");
    snprintf(cfg.eng[1].name, sizeof cfg.eng[1].name, "B");
    SprtSpec s = { .on = true, .elo0 = 0, .elo1 = 10, .alpha = 0.05, .beta = 0.05 };
    /* Balanced counts: undecided by themselves. */
    MatchTally t = { .games = 40, .wins = 10, .losses = 10, .draws = 20, .pairs = 20, .ptnml = { 2, 4, 8, 4, 2 } };
    double llr, lo, up;
    cr_assert_eq(sprt_check(&t, &s, &llr, &lo, &up), 0);
    SprtStop stop = { .verdict = 1, .games = 36, .llr = 2.95 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    match_report(f, &cfg, &t, &s, &stop);
    fclose(f);
    cr_expect(strstr(buf, "SPRT ([0.00, 10.00]) completed - H1 was accepted at 36 games (LLR 2.95)"), "%s", buf);
    cr_expect(strstr(buf, "4 games finished after the verdict are counted above"), "%s", buf);
    cr_expect(strstr(buf, "not decided") == NULL, "%s", buf);
    free(buf);
    match_config_free(&cfg);
}

Test(match, the_match_header_has_no_null, .init = command_setup, .fini = tmp_remove, .timeout = 120)
{
    int rc = shell(TUNE " match -engine cmd=" FAKEUCI " name=A -engine cmd=" FAKEUCI " name=B -each nodes=10 "
                        "-maxmoves 10 -openings file=%s/book.epd",
                   tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "Results of A vs B (10 nodes, 1t, book.epd):"), "%s", out);
    rc = shell(TUNE " match -engine cmd=" FAKEUCI " name=A args=--options option.Hash=64 -engine cmd=" FAKEUCI
                    " name=B args=--options option.Hash=64 -each nodes=10 -maxmoves 10");
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "Results of A vs B (10 nodes, 1t, 64MB):"), "%s", out);
    cr_expect(strstr(out, "NULL") == NULL, "%s", out);
}

/* ---- match -resume ------------------------------------------------------------------- */

#define RESUME_MATCH TUNE " match -engine cmd=" FAKEUCI " name=A -engine cmd=" FAKEUCI " name=B -each nodes=10 " \
                     "-maxmoves 30 -openings file=%s/book.epd order=random -concurrency 2 -pgnout %s/m.pgn"

/* How many games of each round the PGN holds: *rounds distinct rounds, and
 * whether every one of 1..want has exactly two games. */
static bool rounds_twice(const char *pgn, int want, int *rounds)
{
    int count[64] = { 0 };
    *rounds = 0;
    for (const char *p = pgn; (p = strstr(p, "[Round \"")); p++) {
        int r = atoi(p + 8);
        if (r < 1 || r > 63)
            return false;
        *rounds += count[r]++ == 0;
    }
    for (int r = 1; r <= want; r++)
        if (count[r] != 2)
            return false;
    return *rounds == want;
}

Test(match, resume_goes_on_where_the_pgn_stopped_and_replays_a_cut_pair, .init = command_setup, .fini = tmp_remove,
     .timeout = 120)
{
    int rc = shell(RESUME_MATCH " -srand 4 -rounds 6", tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    /* The last game cut off: its pair is unfinished. */
    char *pgn = slurp("m.pgn");
    char *last = NULL;
    for (char *p = pgn; (p = strstr(p, "[Event ")); p++)
        last = p;
    cr_assert_not_null(last);
    *last = '\0';
    write_file("m.pgn", pgn);
    free(pgn);
    rc = shell(RESUME_MATCH " -srand 4 -rounds 12 -resume", tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "5 pairs (10 games) counted; 1 game of 1 unfinished pair removed from the file"), "%s",
              out);
    cr_expect(strstr(out, "Games: 24,"), "the report counts the file's pairs and the new ones:\n%s", out);
    pgn = slurp("m.pgn");
    int rounds;
    cr_expect(rounds_twice(pgn, 12, &rounds), "every round of 1..12 twice in the PGN (%d rounds):\n%s", rounds, pgn);
    free(pgn);
    /* Complete: counted, nothing played. */
    rc = shell(RESUME_MATCH " -srand 4 -rounds 12 -resume", tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "12 pairs (24 games) counted") && strstr(out, "Games: 24,"), "%s", out);
    pgn = slurp("m.pgn");
    cr_expect(rounds_twice(pgn, 12, &rounds), "%d rounds", rounds);
    free(pgn);
}

Test(match, resume_refuses_a_pgn_another_match_wrote, .init = command_setup, .fini = tmp_remove, .timeout = 120)
{
    cr_assert_eq(shell(RESUME_MATCH " -srand 4 -rounds 3", tmp, tmp), 0, "%s", out);
    char *before = slurp("m.pgn");
    int rc = shell(RESUME_MATCH " -srand 5 -rounds 6 -resume", tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "m.pgn: game 1 (line 1): round ") && strstr(out, "started from") && strstr(out, "-srand?"),
              "%s", out);
    rc = shell(TUNE " match -engine cmd=" FAKEUCI " name=A -engine cmd=" FAKEUCI " name=C -each nodes=10 "
                    "-maxmoves 30 -openings file=%s/book.epd order=random -srand 4 -rounds 6 -pgnout %s/m.pgn -resume",
               tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "are not this match's engines \"A\" and \"C\""), "%s", out);
    /* nodes= is not in the TimeControl tag: the Limits tag says it. */
    cr_expect(strstr(before, "[Limits \"nodes=10\"]"), "%s", before);
    rc = shell(TUNE " match -engine cmd=" FAKEUCI " name=A -engine cmd=" FAKEUCI " name=B -each nodes=20 "
                    "-maxmoves 30 -openings file=%s/book.epd order=random -srand 4 -rounds 6 -pgnout %s/m.pgn -resume",
               tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "m.pgn: game 1 (line 1): Limits \"nodes=10\", where this match plays \"nodes=20\""),
              "%s", out);
    rc = shell(RESUME_MATCH " -srand 4 -rounds 2 -resume", tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "round 3 is past this match's 2 rounds"), "%s", out);
    rc = shell(TUNE " match -engine cmd=" FAKEUCI " name=A -engine cmd=" FAKEUCI " name=B -each nodes=10 -resume");
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "-resume needs -pgnout"), "%s", out);
    /* Refused: the file as it was. */
    char *after = slurp("m.pgn");
    cr_expect_str_eq(after, before);
    free(after);
    /* Not a PGN of ours: the file and line named, the file left alone. */
    char bad[8192];
    snprintf(bad, sizeof bad, "junk here\n%s", before);
    write_file("m.pgn", bad);
    rc = shell(RESUME_MATCH " -srand 4 -rounds 6 -resume", tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "m.pgn:1: text before the first game's tags"), "%s", out);
    char *tag = strstr(bad, "[Round \"");
    cr_assert_not_null(tag);
    memmove(tag + 7, tag + 8, strlen(tag + 8) + 1); /* [Round 1"]: not a tag */
    write_file("m.pgn", bad + 10);
    rc = shell(RESUME_MATCH " -srand 4 -rounds 6 -resume", tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "m.pgn:4: not a PGN tag line"), "%s", out);
    after = slurp("m.pgn");
    cr_expect_str_eq(after, bad + 10);
    free(after);
    /* A line of moves gone from the middle of a game: its tags and its end
     * as they were, its moves no longer the game's. */
    snprintf(bad, sizeof bad, "%s", before);
    char *moves = strstr(bad, "\n\n");
    cr_assert_not_null(moves);
    char *second = strchr(moves + 2, '\n'), *third = second ? strchr(second + 1, '\n') : NULL;
    cr_assert(third && third[1] && third[1] != '{' && third[1] != '\n', "%s", bad);
    memmove(second, third, strlen(third) + 1);
    write_file("m.pgn", bad);
    rc = shell(RESUME_MATCH " -srand 4 -rounds 6 -resume", tmp, tmp);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "m.pgn: game 1 (line 1): ") && strstr(out, "its moves were changed or damaged"), "%s", out);
    after = slurp("m.pgn");
    cr_expect_str_eq(after, bad);
    free(after);
    free(before);
}
