/* The PGN file of a match or a run: a write that fails leaves only whole
 * games, a file that ends in a partial game is cut back when opened, and the
 * match and the run stop on a failed write (resume keeps whole games). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "helpers.h"
#include "pgn.h"
#include "pgnscan.h"
#include "pgntrim.h"
#include "hist.h"
#include "state.h"

#define TUNE "bin/ratchet-tune"
#define FAKESPSA "build/fake/fakespsa"
#define FAKEUCI "build/fake/fakeuci"

static void setup(void)
{
    tmp_create("/tmp/ratchet-pgnfile-XXXXXX");
}

TestSuite(pgnfile, .init = setup, .fini = tmp_remove, .timeout = 60);

typedef struct {
    long games, unfinished, warnings;
} ScanCount;

static void count_end(void *ctx, int game, const char *result, long line)
{
    (void)game;
    (void)line;
    ScanCount *c = ctx;
    c->games++;
    c->unfinished += result == NULL;
}

static void count_warn(void *ctx, long line, const char *msg)
{
    ScanCount *c = ctx;
    c->warnings++;
    cr_log_warn("line %ld: %s", line, msg);
}

/* tmp/name read as PGN: it must hold only whole games; their number. */
static long whole_games(const char *name)
{
    char *text = slurp(name);
    ScanCount c = { 0 };
    PgnScanEvents ev = { .ctx = &c, .end = count_end, .warn = count_warn };
    pgn_scan(text, strlen(text), &ev);
    free(text);
    cr_assert_eq(c.warnings, 0, "%s: the PGN reader warns", name);
    cr_assert_eq(c.unfinished, 0, "%s: a game without a result", name);
    return c.games;
}

static const char GAME[] = "[Event \"t\"]\n[Site \"?\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 {+0.10/3 0.001s} Qh4# "
                           "{Black mates} 0-1\n\n";

Test(pgnfile, the_whole_prefix_ends_after_the_last_result)
{
    size_t n = strlen(GAME);
    char two[1024];
    snprintf(two, sizeof two, "%s%s", GAME, GAME);
    cr_expect_eq(pgn_whole_prefix(two, 2 * n, true), 2 * n);
    cr_expect_eq(pgn_whole_prefix(two, 2 * n - 2, true), 2 * n - 2, "without the blank line");
    cr_expect_eq(pgn_whole_prefix(two, 2 * n - 5, true), n, "cut in the result");
    cr_expect_eq(pgn_whole_prefix(two, n + 50, true), n, "cut in the movetext");
    cr_expect_eq(pgn_whole_prefix(two, n + 30, true), n, "cut in a tag");
    cr_expect_eq(pgn_whole_prefix(two, n + 1, true), n, "only its first byte");
    cr_expect_eq(pgn_whole_prefix(two, 50, true), 0, "the first game cut short");
    cr_expect_eq(pgn_whole_prefix(two, 50, false), (size_t)-1, "not the file's start: no place to cut");
    cr_expect_eq(pgn_whole_prefix("", 0, true), 0);
    const char *tag = "[Event \"a 1-0";
    cr_expect_eq(pgn_whole_prefix(tag, strlen(tag), true), 0, "a result inside a tag is not a game's end");
}

Test(pgnfile, opening_a_file_that_ends_in_a_partial_game_cuts_it_back)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s%.*s", GAME, GAME, 60, GAME);
    write_file("g.pgn", text);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/g.pgn", tmp);
    StderrCapture cap;
    char said[1024];
    stderr_capture_begin(&cap);
    PgnFile *f = pgn_open(path, err, sizeof err);
    stderr_capture_end(&cap, said, sizeof said);
    cr_assert_not_null(f, "%s", err);
    cr_expect(strstr(said, "partial game") && strstr(said, "g.pgn"), "%s", said);
    PgnText t = { (char *)GAME, strlen(GAME), strlen(GAME) };
    cr_assert_eq(pgn_append(f, &t), 0);
    pgn_close(f);
    cr_assert_eq(whole_games("g.pgn"), 3);

    stderr_capture_begin(&cap); /* a whole file is left as it is, silently */
    f = pgn_open(path, err, sizeof err);
    stderr_capture_end(&cap, said, sizeof said);
    cr_assert_not_null(f, "%s", err);
    pgn_close(f);
    cr_expect_str_eq(said, "");
    cr_assert_eq(whole_games("g.pgn"), 3);
}

/* In a child with a file size limit (EFBIG, SIGXFSZ ignored): games are
 * appended until one does not fit; that one is cut off again. */
Test(pgnfile, a_failed_write_leaves_only_whole_games)
{
    char path[256];
    snprintf(path, sizeof path, "%s/g.pgn", tmp);
    size_t n = strlen(GAME);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        child_output("log");
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { (rlim_t)(3 * n + n / 2), (rlim_t)(3 * n + n / 2) };
        setrlimit(RLIMIT_FSIZE, &rl);
        char err[256];
        PgnFile *f = pgn_open(path, err, sizeof err);
        if (!f)
            _exit(2);
        PgnText t = { (char *)GAME, n, n };
        int ok = 0;
        while (ok < 10 && pgn_append(f, &t) == 0)
            ok++;
        int again = pgn_append(f, &t);
        pgn_close(f);
        _exit(ok == 3 && again == -1 ? 0 : 10 + ok);
    }
    int rc = wait_child(pid);
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "File too large") && strstr(log, "cut back to its last whole game"), "%s", log);
    free(log);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_expect_eq((size_t)sb.st_size, 3 * n, "half a game is left in the file");
    cr_assert_eq(whole_games("g.pgn"), 3);
}

/* bin/ratchet-tune with a's words, output into tmp/log; with fsize > 0 under
 * that file size limit.  The exit code, the log in *out (free it). */
static int tune(Args *a, long fsize, char **out)
{
    cr_assert(access(TUNE, X_OK) == 0, "%s is missing: run make first", TUNE);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        child_output("log");
        if (fsize > 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = { (rlim_t)fsize, (rlim_t)fsize };
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(TUNE, a->v);
        _exit(127);
    }
    int rc = wait_child(pid);
    *out = slurp("log");
    args_free(a);
    return rc;
}

Test(pgnfile, a_match_stops_on_a_failed_pgn_write_with_exit_1)
{
    cr_assert(access(FAKEUCI, X_OK) == 0, "%s is missing", FAKEUCI);
    Args a = { .n = 0 };
    add_line(&a, TUNE " match");
    for (int e = 0; e < 2; e++)
        add_line(&a, "-engine cmd=%s name=%c", FAKEUCI, 'A' + e);
    add_line(&a, "-each nodes=10 -rounds 40 -maxmoves 30 -pgnout %s/m.pgn", tmp);
    char *log;
    int rc = tune(&a, 16384, &log);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "m.pgn") && strstr(log, "cut back to its last whole game"), "%s", log);
    cr_expect(strstr(log, "the PGN file could not be written"), "%s", log);
    free(log);
    long games = whole_games("m.pgn");
    cr_expect(games > 0 && games < 80, "%ld games", games);
}

static void run_words(Args *a, const char *cmd, const char *dir, int games)
{
    cr_assert(access(FAKESPSA, X_OK) == 0, "%s is missing", FAKESPSA);
    add_line(a, TUNE " %s", cmd);
    if (!strcmp(cmd, "resume")) {
        add(a, "%s/%s", tmp, dir);
        return;
    }
    add_line(a, "-engine cmd=%s", FAKESPSA);
    if (games > 200)
        add(a, "args=--think 5");
    add_line(a, "-params file=%s/spec.txt -each nodes=1 -openings file=%s/book.epd -maxmoves 30", tmp, tmp);
    add_line(a, "-spsa games=%d -concurrency 2 -srand 7 -out %s/%s -pgnout file=%s/%s.pgn", games, tmp, dir, tmp, dir);
}

/* A run whose PGN cannot grow stops with exit 1 and says why; its PGN holds
 * whole games.  A resume cuts a game left half-written (a kill during a
 * write) and finishes with a PGN of whole games. */
Test(pgnfile, a_run_stops_on_a_failed_pgn_write_and_resume_leaves_whole_games)
{
    Args a = { .n = 0 };
    run_words(&a, "run", "r", 100);
    char *log;
    int rc = tune(&a, 40000, &log);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "cut back to its last whole game"), "%s", log);
    cr_expect(strstr(log, "stopped after") && strstr(log, "the PGN file could not be written"), "%s", log);
    free(log);
    long before = whole_games("r.pgn");
    cr_assert_gt(before, 0);

    /* half a game, as a kill during a write leaves it */
    char path[256];
    snprintf(path, sizeof path, "%s/r.pgn", tmp);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("[Event \"ratchet-tune match\"]\n[Site \"?\"]\n\n1. e4 {+0.10/1 0.000s} e5 {+0.", f);
    fclose(f);

    Args b = { .n = 0 };
    run_words(&b, "resume", "r", 0);
    rc = tune(&b, 0, &log);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "ended in a partial game") && strstr(log, "r.pgn"), "%s", log);
    free(log);
    long after = whole_games("r.pgn");
    cr_expect_geq(after, 100, "%ld games before the resume, %ld after", before, after);
}

/* After a failed save the stop line tells what is on disk: the games the
 * state there counts, the batches a resume replays. */
Test(pgnfile, after_a_failed_save_the_stop_line_counts_what_is_on_disk)
{
    Args a = { .n = 0 };
    run_words(&a, "run", "s", 400);
    cr_assert(access(TUNE, X_OK) == 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        child_output("log");
        execv(TUNE, a.v);
        _exit(127);
    }
    /* A directory where the state's temporary file goes: the next save fails. */
    char hist[256], blocker[256];
    snprintf(hist, sizeof hist, "%s/s/%s", tmp, HISTORY_FILE);
    snprintf(blocker, sizeof blocker, "%s/s/state.json.tmp", tmp);
    for (int i = 0; i < 2000; i++) {
        struct stat sb;
        if (stat(hist, &sb) == 0 && sb.st_size > 200)
            break;
        usleep(5000);
    }
    int made = -1;
    for (int i = 0; i < 1000 && made < 0; i++) /* the saver's own temporary file may be there for a moment */
        if ((made = mkdir(blocker, 0755)) < 0)
            usleep(1000);
    cr_assert_eq(made, 0, "%s", strerror(errno));
    int rc = wait_child(pid);
    args_free(&a);
    rmdir(blocker);
    char *log = slurp("log");
    cr_assert_eq(rc, 1, "exit %d: %s", rc, log);
    RunState disk;
    char err[1024], sdir[256];
    snprintf(sdir, sizeof sdir, "%s/s", tmp);
    cr_assert_eq(runstate_load(&disk, sdir, err, sizeof err), 0, "%s", err);
    char want[256];
    snprintf(want, sizeof want, "the one on disk counts %llu of 400 games and has %zu batch%s in flight",
             (unsigned long long)disk.games, disk.spsa.ninflight, disk.spsa.ninflight == 1 ? "" : "es");
    cr_expect(strstr(log, want), "expected '%s' in:\n%s", want, log);
    runstate_free(&disk);
    free(log);
}

static bool first_three_done(void *ctx, uint64_t pair)
{
    (void)ctx;
    return pair < 3;
}

/* A game of Event EV and Round R whose movetext is MOVE (which tells the games apart). */
static void put_game(FILE *f, const char *ev, const char *round, const char *move)
{
    fprintf(f, "[Event \"%s\"]\n[Round \"%s\"]\n[Result \"1/2-1/2\"]\n\n1. %s 1/2-1/2\n\n", ev, round, move);
}

/* The cut of a record's games: each counted pair's last two games of its
 * Round kept, a Round with one game (cut short) and a pair not counted
 * gone, the games of another Event, and a Round that is not a number,
 * left as they are; a file that is not a regular file is not touched. */
Test(pgnfile, a_records_games_are_cut_to_the_pairs_it_counts)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/t.pgn", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    const char *mine = "ratchet-tune verify created T";
    put_game(f, mine, "1", "e4");
    put_game(f, mine, "1", "d4");
    put_game(f, "another match", "2", "c4");
    put_game(f, mine, "2", "Nf3");          /* pair 1 cut short: gone */
    put_game(f, mine, "3", "a3");           /* pair 2 played, then again after a stop: */
    put_game(f, mine, "3", "b3");
    put_game(f, mine, "3", "g3");           /* these two stay */
    put_game(f, mine, "3", "h3");
    put_game(f, mine, "4", "f4");           /* pair 3 not counted: gone */
    put_game(f, mine, "4", "f3");
    put_game(f, mine, "?", "e3");           /* not one of its Rounds: gone */
    fclose(f);
    uint64_t dropped = 99;
    cr_assert_eq(pgn_trim_pairs(path, "ratchet-tune verify created ", first_three_done, NULL, &dropped, err,
                                sizeof err), 0, "%s", err);
    cr_assert_eq(dropped, 6);
    char *text = slurp("t.pgn");
    const char *kept[] = { "e4", "d4", "c4", "g3", "h3" }, *gone[] = { "Nf3", "a3", "b3", "f4", "f3", "e3" };
    for (size_t i = 0; i < 5; i++) {
        char m[16];
        snprintf(m, sizeof m, "1. %s ", kept[i]);
        cr_assert(strstr(text, m), "%s kept:\n%s", kept[i], text);
    }
    for (size_t i = 0; i < 6; i++) {
        char m[16];
        snprintf(m, sizeof m, "1. %s ", gone[i]);
        cr_assert_null(strstr(text, m), "%s gone:\n%s", gone[i], text);
    }
    cr_assert(strstr(text, "1. e4 ") < strstr(text, "1. c4 ") && strstr(text, "1. c4 ") < strstr(text, "1. g3 "),
              "in the order they were played:\n%s", text);
    free(text);
    /* Again: nothing more to cut. */
    cr_assert_eq(pgn_trim_pairs(path, "ratchet-tune verify created ", first_three_done, NULL, &dropped, err,
                                sizeof err), 0, "%s", err);
    cr_assert_eq(dropped, 0);
    /* A link to it, and /dev/null: not touched, no error. */
    char link[512];
    snprintf(link, sizeof link, "%s/link.pgn", tmp);
    cr_assert_eq(symlink(path, link), 0);
    cr_assert_eq(pgn_trim_pairs(link, "ratchet-tune verify created ", first_three_done, NULL, &dropped, err,
                                sizeof err), 0, "%s", err);
    cr_assert_eq(pgn_trim_pairs("/dev/null", "ratchet-tune verify created ", first_three_done, NULL, &dropped, err,
                                sizeof err), 0, "%s", err);
    cr_assert_eq(dropped, 0);
}
