/* `ratchet-tune verify` end to end against the fake engine
 * build/fake/fakespsa: the verdict, a stop and a continue, its options and a
 * run that moved on, no replayed game at fixed nodes, bad run directories,
 * baking bin/ratchet and a -base file. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "helpers.h"
#include "helpers_state.h"
#include "rd.h"
#include "run_cmd.h"
#include "status.h"
#include "verify.h"

/* A book big enough that an SPRT of the fake engine decides on fresh
 * openings: at nodes=1 verify plays each held-out opening once. */
static void verify_setup(void)
{
    tmp_create("/tmp/ratchet-verify-XXXXXX");
    write_book("book.epd", 2000);
}

TestSuite(verify, .init = verify_setup, .fini = tmp_remove, .timeout = 180);

/* tmp/DIR/verify.json, parsed (NULL when absent). */
static cJSON *verify_json(const char *dir)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s/verify.json", tmp, dir);
    return access(path, F_OK) == 0 ? rd_read_json(path, err, sizeof err) : NULL;
}

static double jnum(const cJSON *j, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, key);
    cr_assert(cJSON_IsNumber(x), "verify.json: %s is a number", key);
    return x->valuedouble;
}

static const char *jstr(const cJSON *j, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, key);
    cr_assert(cJSON_IsString(x), "verify.json: %s is a string", key);
    return x->valuestring;
}

/* The counts of verify.json agree with each other: games = 2 pairs = W + L + D,
 * the pentanomial counts add up to the pairs. */
static void assert_counts(const cJSON *j, double pairs)
{
    cr_assert_eq(jnum(j, "pairs"), pairs);
    cr_assert_eq(jnum(j, "games"), 2 * pairs);
    cr_assert_eq(jnum(j, "wins") + jnum(j, "losses") + jnum(j, "draws"), 2 * pairs);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "ptnml");
    double sum = 0;
    for (int i = 0; i < 5; i++)
        sum += cJSON_GetArrayItem(p, i)->valuedouble;
    cr_assert_eq(sum, pairs, "the pentanomial counts add up to the pairs");
}

static Args verify_args(const char *dir)
{
    Args a = { .n = 0 };
    add(&a, "verify");
    add(&a, "%s/%s", tmp, dir);
    return a;
}

/* A short run of the fake engine whose values moved (large gains): the run a
 * verify is tested on.  Slow engine moves (--think 1) so a verify can be
 * stopped halfway. */
static void short_run(const char *dir, int games)
{
    write_file("short.txt", "Alpha, int, 30, 0, 100, 8, 0.5\nBeta, int, 70, 0, 100, 8, 0.5\n");
    Args a = fake_run_args(dir, games, 0, 2);
    add(&a, "-engine");
    add(&a, "args=--width 60 --think 1");
    add(&a, "-params");
    add(&a, "file=%s/short.txt", tmp);
    add(&a, "-maxmoves");
    add(&a, "40");
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0);
    RunState rs;
    load_state(dir, &rs);
    cr_assert(rs.spsa.params[0].theta != 30 || rs.spsa.params[1].theta != 70, "the run moved its values");
    runstate_free(&rs);
}

/* Wait until tmp/DIR/verify.json counts at least n pairs (or the child ended). */
static void wait_pairs(const char *dir, double n, pid_t child)
{
    for (;;) {
        cJSON *j = verify_json(dir);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pairs");
        bool enough = cJSON_IsNumber(p) && p->valuedouble >= n;
        cJSON_Delete(j);
        if (enough)
            return;
        int st;
        cr_assert_eq(waitpid(child, &st, 0 | WNOHANG), 0, "verify ended before %g pairs were played", n);
        struct timespec ts = { 0, 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

/* The tuned engine gets the run's values and the base engine the start
 * values: a run that moved toward the fake engine's optimum passes the SPRT,
 * and status shows the verdict. */
Test(verify, accepts_a_run_that_moved_toward_the_optimum)
{
    assert_moves_toward_the_optimum(NULL);
    Args a = verify_args("r");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "verify failed:\n%s", log);
    cr_assert(strstr(log, "H1 was accepted"), "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_not_null(j);
    cr_assert_str_eq(jstr(j, "status"), "done");
    cr_assert_str_eq(jstr(j, "verdict"), "H1", "the tuned values are better than the start values");
    cr_assert_gt(jnum(j, "elo"), 0);
    assert_counts(j, jnum(j, "pairs"));
    const cJSON *sprt = cJSON_GetObjectItemCaseSensitive(j, "sprt");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(sprt, "elo0")->valuedouble, 0, "elo0=0 by default");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(sprt, "elo1")->valuedouble, 5, "elo1=5 by default");
    cr_assert_geq(cJSON_GetObjectItemCaseSensitive(sprt, "llr")->valuedouble,
                  cJSON_GetObjectItemCaseSensitive(sprt, "upper")->valuedouble);
    cr_assert_str_eq(jstr(cJSON_GetObjectItemCaseSensitive(j, "engines"), "mode"), "options");
    cr_assert_str_eq(jstr(j, "tc"), "1 nodes", "the run's time control");
    cr_assert(strstr(jstr(j, "book"), "book.epd"), "the run's book");
    /* The values: the run's export and its start values. */
    RunState rs;
    load_state("r", &rs);
    cJSON *ex = export_values(&rs, "r");
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ex, "params"), cJSON_GetObjectItemCaseSensitive(j, "tuned"), 1));
    cJSON_Delete(ex);
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(j, "base");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Alpha")->valueint, 30);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Beta")->valueint, 70);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Gamma")->valueint, -30);
    cr_assert_eq(jnum(j, "run_games"), (double)rs.games);
    runstate_free(&rs);
    cJSON_Delete(j);
    char *tuned = slurp("r/verify/tuned.json");
    cr_assert(strstr(tuned, "\"Alpha\""), "the value file is written: %s", tuned);
    free(tuned);

    Args b = { .n = 0 };
    add(&b, "status");
    add(&b, "%s/r", tmp);
    cr_assert_eq(run_to_end(status_main, &b, "slog"), 0);
    char *st = slurp("slog");
    cr_assert(strstr(st, "verify:") && strstr(st, "SPRT H1 accepted") && strstr(st, "Ptnml(0-2)"), "%s", st);
    free(st);
}

/* Stopped by SIGKILL or SIGTERM, verify continues where it was: every pair
 * counted once, none lost. */
Test(verify, continues_after_sigkill_and_sigterm)
{
    short_run("r", 40);
    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "30");
    add(&a, "-pgnout");
    add(&a, "%s/v.pgn", tmp);
    pid_t pid = spawn(verify_main, &a, "v1");
    wait_pairs("r", 3, pid);
    kill(pid, SIGKILL);
    cr_assert_eq(wait_child(pid), 1000 + SIGKILL);
    args_free(&a);

    /* Again without options: the stored ones. */
    a = verify_args("r");
    pid = spawn(verify_main, &a, "v2");
    wait_pairs("r", 12, pid);
    kill(pid, SIGTERM);
    int rc = wait_child(pid);
    args_free(&a);
    char *log = slurp("v2");
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, "continuing:"), "the second session continues:\n%s", log);
    cr_assert(strstr(log, "continue with: ") && strstr(log, " verify "), "a stopped verify says how to continue:\n%s",
              log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_str_eq(jstr(j, "status"), "stopped");
    cr_assert_lt(jnum(j, "pairs"), 30);
    cJSON_Delete(j);

    a = verify_args("r");
    rc = run_to_end(verify_main, &a, "v3");
    log = slurp("v3");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    j = verify_json("r");
    cr_assert_str_eq(jstr(j, "status"), "done");
    cr_assert_str_eq(jstr(j, "verdict"), "none");
    assert_counts(j, 30);
    cr_assert_eq(jnum(j, "sessions"), 3);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "pending")), 0);
    cJSON_Delete(j);
    /* The PGN holds each counted pair's two games once. */
    int games[31];
    cr_assert_eq(pgn_games_by_round("v.pgn", "ratchet-tune verify created ", games, 30), 0);
    cr_assert_eq(games[0], 0);
    for (int k = 1; k <= 30; k++)
        cr_assert_eq(games[k], 2, "pair %d: %d games in the PGN", k, games[k]);
}

/* `verify DIR -tuned DIR/kept.json -pgnout NAMED_IN/v.pgn -rounds 30`
 * (the night's confirmation, its -pgnout named in NAMED_IN); a NULL
 * named_in gives no options: `verify DIR` goes on with the stored ones. */
static Args copied_verify_args(const char *dir, const char *named_in)
{
    Args a = verify_args(dir);
    if (!named_in)
        return a;
    add(&a, "-tuned");
    add(&a, "%s/%s/kept.json", tmp, dir);
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "30");
    add(&a, "-pgnout");
    add(&a, "%s/%s/v.pgn", tmp, named_in);
    return a;
}

/* A run directory copied while its verify is halfway goes on in the copy:
 * the files the stored options name in the original (-pgnout, -tuned) are
 * the copy's, given again as the night gives them (its -tuned under the
 * copy, its -pgnout as stored) or not at all, and the original's PGN is
 * left as it was. */
Test(verify, a_copied_run_directory_goes_on_in_its_own_files)
{
    short_run("r", 40);
    write_file("r/kept.json", "{\"params\": {\"Alpha\": 55, \"Beta\": 70}}\n");
    Args a = copied_verify_args("r", "r");
    pid_t pid = spawn(verify_main, &a, "v1");
    wait_pairs("r", 3, pid);
    kill(pid, SIGTERM);
    wait_child(pid);
    args_free(&a);
    cr_assert_eq(shell("cp -r %s/r %s/c && cp -r %s/r %s/d", tmp, tmp, tmp, tmp), 0);
    /* d's record as an older build wrote it, without "dir": the run's "out" stands for it */
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/r", tmp);
    cJSON *old = verify_json("d");
    cr_assert_str_eq(jstr(old, "dir"), path, "the record names the directory it was written in");
    cJSON_DeleteItemFromObjectCaseSensitive(old, "dir");
    snprintf(path, sizeof path, "%s/d/verify.json", tmp);
    cr_assert_eq(rd_write_json(path, old, err, sizeof err), 0, "%s", err);
    cJSON_Delete(old);
    char *before = slurp("r/v.pgn");
    const char *copies[][2] = { { "c", "r" }, { "d", NULL } };
    for (size_t i = 0; i < 2; i++) {
        const char *dir = copies[i][0];
        a = copied_verify_args(dir, copies[i][1]);
        int rc = run_to_end(verify_main, &a, "v2");
        char *log = slurp("v2");
        cr_assert_eq(rc, 0, "%s goes on:\n%s", dir, log);
        cr_assert(strstr(log, "continuing:") && strstr(log, "was written in "), "%s:\n%s", dir, log);
        free(log);
        cJSON *j = verify_json(dir);
        assert_counts(j, 30);
        cr_assert(strstr(jstr(j, "tuned_file"), dir), "%s: %s", dir, jstr(j, "tuned_file"));
        cJSON_Delete(j);
        char name[16];
        int games[31];
        snprintf(name, sizeof name, "%s/v.pgn", dir);
        cr_assert_eq(pgn_games_by_round(name, "ratchet-tune verify created ", games, 30), 0);
        for (int k = 1; k <= 30; k++)
            cr_assert_eq(games[k], 2, "%s: pair %d has %d games", name, k, games[k]);
    }
    char *after = slurp("r/v.pgn");
    cr_assert_str_eq(before, after, "the original's PGN is left as it was");
    free(before);
    free(after);
}

/* A finished verify is shown, not replayed; other options need -restart; a
 * run that moved on since gets a new verify. */
Test(verify, keeps_its_options_and_follows_the_run)
{
    short_run("r", 40);
    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "2");
    cr_assert_eq(run_to_end(verify_main, &a, "v1"), 0);

    a = verify_args("r");
    cr_assert_eq(run_to_end(verify_main, &a, "v2"), 0);
    char *log = slurp("v2");
    cr_assert(strstr(log, "finished earlier"), "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_eq(jnum(j, "sessions"), 1, "shown, not played again");
    cJSON_Delete(j);

    a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "3");
    cr_assert_eq(run_to_end(verify_main, &a, "v3"), 2);
    log = slurp("v3");
    cr_assert(strstr(log, "-restart") && strstr(log, "other options"), "%s", log);
    free(log);
    j = verify_json("r");
    assert_counts(j, 2);
    cJSON_Delete(j);

    a = verify_args("r");
    add(&a, "-restart");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "3");
    cr_assert_eq(run_to_end(verify_main, &a, "v4"), 0);
    j = verify_json("r");
    assert_counts(j, 3);
    cr_assert_eq(jnum(j, "run_games"), 40);
    cJSON_Delete(j);

    /* The run goes on; its values change; verify checks the new ones. */
    Args r = { .n = 0 };
    add(&r, "resume");
    add(&r, "%s/r", tmp);
    add(&r, "-spsa");
    add(&r, "games=80");
    cr_assert_eq(run_to_end(resume_main, &r, "rlog"), 0);
    RunState rs;
    load_state("r", &rs);
    cJSON *ex = export_values(&rs, "r");
    j = verify_json("r");
    bool moved = !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ex, "params"), cJSON_GetObjectItemCaseSensitive(j, "tuned"), 1);
    cJSON_Delete(j);
    if (moved) {
        a = verify_args("r");
        cr_assert_eq(run_to_end(verify_main, &a, "v5"), 0);
        log = slurp("v5");
        cr_assert(strstr(log, "moved on"), "%s", log);
        free(log);
        j = verify_json("r");
        cr_assert_eq(jnum(j, "run_games"), 80);
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ex, "params"), cJSON_GetObjectItemCaseSensitive(j, "tuned"), 1));
        assert_counts(j, 3);
        cJSON_Delete(j);
    }
    cJSON_Delete(ex);
    runstate_free(&rs);
}

/* The movetext of every game of a PGN file (tags and blank lines dropped),
 * one malloc'd string a game; returns the count. */
static int pgn_movetexts(const char *name, char **games, int max)
{
    char *pgn = slurp(name);
    int n = 0;
    char *line = pgn, *cur = NULL;
    size_t len = 0;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '[') {
            if (cur && len) {
                cr_assert_lt(n, max);
                games[n++] = cur;
                cur = NULL;
                len = 0;
            }
        } else if (line[0]) {
            size_t l = strlen(line);
            cur = realloc(cur, len + l + 2);
            cr_assert_not_null(cur);
            memcpy(cur + len, line, l);
            cur[len + l] = ' ';
            cur[len + l + 1] = '\0';
            len += l + 1;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (cur && len) {
        cr_assert_lt(n, max);
        games[n++] = cur;
    }
    free(pgn);
    return n;
}

/* At nodes= a game is a function of its opening and its engines: asked for
 * more pairs than it has fresh openings, verify plays each of them once and
 * says how many there are, so no game is played (and counted) twice. */
Test(verify, plays_no_game_twice_at_fixed_nodes)
{
    write_book("book.epd", 40); /* 8 held out of the tuning */
    Args a = fake_run_args("r", 40, 0, 2);
    add(&a, "-engine");
    add(&a, "args=--seed 5 --seed-each-game");
    add(&a, "-validate");
    add(&a, "off");
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0);

    Args v = verify_args("r");
    add(&v, "-sprt");
    add(&v, "off");
    add(&v, "-rounds");
    add(&v, "30");
    add(&v, "-pgnout");
    add(&v, "file=%s/v.pgn", tmp);
    int rc = run_to_end(verify_main, &v, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "verify failed:\n%s", log);
    cr_assert(strstr(log, "30 pairs cut to 8 pairs, one for each of the 8 openings"), "the cut and the count:\n%s", log);
    free(log);
    cJSON *j = verify_json("r");
    assert_counts(j, 8);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "openings");
    cr_assert_eq(jnum(op, "fresh_pairs"), 8);
    cJSON_Delete(j);

    char *games[80];
    int n = pgn_movetexts("v.pgn", games, 80);
    cr_assert_eq(n, 16, "every pair of the verify in the PGN: %d games", n);
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            cr_assert(strcmp(games[i], games[k]) != 0, "games %d and %d are the same game:\n%s", i + 1, k + 1, games[i]);
    for (int i = 0; i < n; i++)
        free(games[i]);

    /* A verify.json that counts more pairs than there are fresh openings
     * (an older build's) is refused, not continued. */
    cJSON *old = verify_json("r");
    cJSON_ReplaceItemInObjectCaseSensitive(old, "next_round", cJSON_CreateNumber(12));
    cJSON_ReplaceItemInObjectCaseSensitive(old, "status", cJSON_CreateString("stopped"));
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/r/verify.json", tmp);
    cr_assert_eq(rd_write_json(path, old, err, sizeof err), 0, "%s", err);
    cJSON_Delete(old);
    Args w = verify_args("r");
    rc = run_to_end(verify_main, &w, "wlog");
    log = slurp("wlog");
    cr_assert_neq(rc, 0, "%s", log);
    cr_assert(strstr(log, "counts 12 pairs") && strstr(log, "only 8 fresh openings") && strstr(log, "-restart"), "%s", log);
    free(log);
}

/* Exit code 2, a message naming the problem, and nothing written. */
static void verify_refused(const char *dir, const char *expect)
{
    Args a = verify_args(dir);
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, expect), "the message says '%s':\n%s", expect, log);
    free(log);
    cr_assert_null(verify_json(dir));
}

Test(verify, refuses_a_bad_or_missing_run_directory)
{
    verify_refused("nothere", "not a directory");
    char path[256];
    snprintf(path, sizeof path, "%s/empty", tmp);
    cr_assert_eq(mkdir(path, 0755), 0);
    verify_refused("empty", "not a run directory (no state.json)");
    snprintf(path, sizeof path, "%s/bad", tmp);
    cr_assert_eq(mkdir(path, 0755), 0);
    write_file("bad/state.json", "{\"version\": 1,\n \"spsa\": [}\n");
    verify_refused("bad", "state.json:2:");

    /* A run in progress holds the lock: verify waits for it to end. */
    short_run("r", 40);
    char dir[256], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    int fd = rd_lock(dir, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    verify_refused("r", "in use");
    rd_unlock(fd);

    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 2, "%s", log);
    cr_assert(strstr(log, "-rounds"), "-sprt off needs -rounds: %s", log);
    free(log);
}

/* For bin/ratchet, the values are baked into two engines of their own. */
Test(verify, bakes_bin_ratchet)
{
    if (getenv("RATCHET_SANITIZED"))
        cr_skip_test("the bake is the same in the plain build");
    cr_assert(access("bin/ratchet", X_OK) == 0 && access("params/engine.json", R_OK) == 0);
    FILE *p = popen("bin/ratchet spsa", "r");
    cr_assert_not_null(p);
    char line[256], spec[1024] = "";
    while (fgets(line, sizeof line, p))
        if (!strncmp(line, "LmpBase,", 8) || !strncmp(line, "RfpMargin,", 10)) {
            char *r = strrchr(line, ',');
            snprintf(r, sizeof line - (size_t)(r - line), ", 0.5\n"); /* large gains: the values move in 20 games */
            strncat(spec, line, sizeof spec - strlen(spec) - 1);
        }
    pclose(p);
    write_file("ratchet.txt", spec);
    Args a = { .n = 0 };
    add(&a, "run");
    add(&a, "-engine");
    add(&a, "cmd=bin/ratchet");
    add(&a, "-params");
    add(&a, "file=%s/ratchet.txt", tmp);
    add(&a, "-each");
    add(&a, "nodes=300");
    add(&a, "-spsa");
    add(&a, "games=20");
    add(&a, "-srand");
    add(&a, "5");
    add(&a, "-out");
    add(&a, "%s/r", tmp);
    int rc = run_to_end(run_main, &a, "runlog");
    char *log = slurp("runlog");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);

    a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "1");
    rc = run_to_end(verify_main, &a, "vlog");
    log = slurp("vlog");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_str_eq(jstr(j, "status"), "done", "the run's values moved (else: 'identical')");
    const cJSON *eng = cJSON_GetObjectItemCaseSensitive(j, "engines");
    cr_assert_str_eq(jstr(eng, "mode"), "baked");
    assert_counts(j, 1);
    /* Each engine says it is baked, and has exactly the values of its side. */
    static const char *const side[2] = { "tuned", "base" };
    for (int e = 0; e < 2; e++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s params", jstr(eng, side[e]));
        p = popen(cmd, "r");
        cr_assert_not_null(p);
        static char out[1 << 16];
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        pclose(p);
        cJSON *pj = cJSON_Parse(out);
        cr_assert_not_null(pj, "%s: %s", cmd, out);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pj, "baked")), "%s", cmd);
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(j, side[e]), *q;
        int checked = 0;
        cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(pj, "params"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(q, "name"), *val = cJSON_GetObjectItemCaseSensitive(q, "value");
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(want, name->valuestring);
            if (w) {
                cr_assert_eq(val->valueint, w->valueint, "%s: %s", side[e], name->valuestring);
                checked++;
            }
        }
        cr_assert_eq(checked, 2);
        cJSON_Delete(pj);
    }
    cr_assert(!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(j, "tuned"), cJSON_GetObjectItemCaseSensitive(j, "base"), 1));
    cJSON_Delete(j);
}

/* One pair of verify with -tuned or -base FILE (opt), FILE setting Alpha
 * to 55 over a short run whose Alpha and Beta moved: verify.json. */
static cJSON *verify_with_value_file(const char *opt, const char *file)
{
    short_run("r", 40);
    write_file(file, "{\"params\": {\"Alpha\": 55}}\n");
    Args a = verify_args("r");
    add(&a, "%s", opt);
    add(&a, "%s/%s", tmp, file);
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "1");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    return verify_json("r");
}

/* verify -restart with opt FILE (and extra best, if extra): refused with
 * expect in the message, nothing played. */
static void refused_value_file(const char *opt, const char *file, const char *extra, const char *expect)
{
    Args a = verify_args("r");
    add(&a, "-restart");
    add(&a, "%s", opt);
    add(&a, "%s/%s", tmp, file);
    if (extra) {
        add(&a, "%s", extra);
        add(&a, "best");
    }
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 2, "%s", log);
    cr_assert(strstr(log, expect), "%s", log);
    free(log);
}

/* -tuned FILE: the tuned side plays the file's values over the start
 * values (not over the run's own, which moved); with -snapshot, or with a
 * name the run lacks, it is refused and nothing is played. */
Test(verify, plays_a_tuned_file)
{
    cJSON *j = verify_with_value_file("-tuned", "other.json");
    const cJSON *tuned = cJSON_GetObjectItemCaseSensitive(j, "tuned");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(tuned, "Alpha")->valueint, 55, "from the file");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(tuned, "Beta")->valueint, 70, "the start value, not the run's");
    cr_assert(strstr(jstr(j, "tuned_file"), "other.json"));
    cJSON_Delete(j);
    char *log = slurp("vlog");
    cr_assert(strstr(log, "verify: the values of ") && strstr(log, "other.json against the start values"), "%s", log);
    free(log);

    write_file("bad.json", "{\"params\": {\"Delta\": 5}}\n");
    refused_value_file("-tuned", "other.json", "-snapshot", "give one of them");
    refused_value_file("-tuned", "bad.json", NULL, "bad.json: 'Delta' is not a parameter");
    write_file("quoted.json", "{\"params\": {\"Alpha\": \"60\"}}\n");
    refused_value_file("-tuned", "quoted.json", NULL, "Alpha is the string \"60\", not a number");

    /* The user's own file through a symbolic link is read (a run directory's
     * files are not followed); a FIFO is refused without blocking. */
    char from[256], to[256];
    snprintf(from, sizeof from, "%s/bad.json", tmp);
    snprintf(to, sizeof to, "%s/link.json", tmp);
    cr_assert_eq(symlink(from, to), 0);
    refused_value_file("-tuned", "link.json", NULL, "link.json: 'Delta' is not a parameter");
    snprintf(to, sizeof to, "%s/fifo.json", tmp);
    cr_assert_eq(mkfifo(to, 0600), 0);
    refused_value_file("-tuned", "fifo.json", NULL, "not a regular file");
}

/* -base FILE: the base engine plays the file's values, the start values
 * where the file is silent; a file with a name the run lacks or a value out
 * of range is refused. */
Test(verify, plays_against_a_base_file)
{
    cJSON *j = verify_with_value_file("-base", "base.json");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(j, "base");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Alpha")->valueint, 55, "from the file");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Beta")->valueint, 70, "the start value");
    cr_assert(strstr(jstr(j, "base_file"), "base.json"));
    cJSON_Delete(j);

    write_file("bad.json", "{\"params\": {\"Delta\": 5}}\n");
    write_file("far.json", "{\"params\": {\"Beta\": 500}}\n");
    refused_value_file("-base", "bad.json", NULL, "bad.json: 'Delta' is not a parameter");
    refused_value_file("-base", "far.json", NULL, "far.json: Beta = 500 is outside its range");
}


/* Tuned values equal to the start values play nothing, and the record names
 * the limit the match would have played: the -each override, not the run's. */
Test(verify, values_equal_to_the_start_are_recorded_at_the_limit_asked)
{
    short_run("r", 40);
    write_file("start.json", "{\"params\": {\"Alpha\": 30, \"Beta\": 70}}\n");
    Args a = verify_args("r");
    add_line(&a, "-tuned %s/start.json -each nodes=7 -sprt off -rounds 1", tmp);
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "%s", log);
    cr_assert(strstr(log, "nothing to verify"), "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_str_eq(jstr(j, "verdict"), "identical");
    cr_assert_str_eq(jstr(j, "tc"), "7 nodes", "the limit asked, not the run's (1 nodes)");
    cJSON_Delete(j);
}

/* A value file may also set a parameter the run did not tune: it is held
 * to the range the run's params file gives it, and a number that is not
 * finite is refused for any parameter. */
Test(verify, a_value_for_a_parameter_not_tuned_is_range_checked)
{
    write_file("three.txt", "Alpha, int, 30, 0, 100, 8, 0.5\nBeta, int, 70, 0, 100, 8, 0.5\n"
                            "Gamma, int, 0, -50, 50, 8, 0.5\n");
    Args a = fake_run_args("r", 8, 0, 2);
    add(&a, "-params");
    add(&a, "file=%s/three.txt", tmp);
    add(&a, "only=Alpha,Beta");
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0, "%s", slurp("runlog"));
    static const char *const bad[][2] = { { "{\"params\": {\"Gamma\": 1000000}}", "Gamma = 1e+06 is outside its range [-50, 50]" },
                                          { "{\"params\": {\"Gamma\": 1e999}}", "Gamma is not a finite number" },
                                          { "{\"params\": {\"Alpha\": -1e999}}", "Alpha is not a finite number" },
                                          { "{\"params\": {\"Gamma\": 2.5}}", "Gamma = 2.5 is not an integer" } };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        write_file("g.json", bad[c][0]);
        refused_value_file("-tuned", "g.json", NULL, bad[c][1]);
        refused_value_file("-base", "g.json", NULL, bad[c][1]);
        cr_assert_null(verify_json("r"), "nothing played");
    }
    write_file("g.json", "{\"params\": {\"Gamma\": -50}}");
    a = verify_args("r");
    add(&a, "-tuned");
    add(&a, "%s/g.json", tmp);
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "1");
    cr_assert_eq(run_to_end(verify_main, &a, "vlog"), 0, "%s", slurp("vlog"));
    cJSON *j = verify_json("r");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "tuned"), "Gamma")->valueint, -50);
    cJSON_Delete(j);
}

/* verify.json edited between sessions: counts that disagree, a round
 * pending twice, a pending round past those handed out.  Each is refused
 * when the verify continues, nothing played, with -restart named. */
Test(verify, a_verify_json_whose_counts_disagree_is_refused)
{
    short_run("r", 40);
    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "4");
    cr_assert_eq(run_to_end(verify_main, &a, "v1"), 0, "%s", slurp("v1"));
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/r/verify.json", tmp);
    /* Each case over a consistent base: 4 pairs, all 1-1 draws, 6 rounds handed out. */
    static const char *const edits[][2] = {
        { "{\"losses\": 8, \"draws\": 0}", "the ptnml counts score 8 of 16 half-points" },
        { "{\"wins\": 1}", "is not the games 8" },
        { "{\"ptnml\": [0,0,3,0,0], \"penta_dd\": 3}", "add up to 3 pairs, not the pairs 4" },
        { "{\"penta_dd\": 3}", "penta_wl 0 + penta_dd 3 is not ptnml[2] 4" },
        { "{\"time_losses\": [9, 0]}", "engine 0 has more time losses" },
        { "{\"pending\": [4,4]}", "round 4 is listed twice" },
        { "{\"pending\": [1e300]}", "a round that was never handed out" },
        { "{\"pending\": [0,1,2]}", "more than the 6 rounds handed out" } };
    cJSON *done = verify_json("r");
    for (size_t c = 0; c < sizeof edits / sizeof *edits; c++) {
        cJSON *j = cJSON_Duplicate(done, true);
        cJSON *base = cJSON_Parse("{\"status\": \"stopped\", \"next_round\": 6, \"ptnml\": [0,0,4,0,0], \"wins\": 0,"
                                  " \"losses\": 0, \"draws\": 8, \"penta_wl\": 0, \"penta_dd\": 4}");
        cJSON *edit = cJSON_Parse(edits[c][0]), *x;
        cr_assert(base && edit);
        cJSON_ArrayForEach(x, base)
            cJSON_ReplaceItemInObjectCaseSensitive(j, x->string, cJSON_Duplicate(x, true));
        cJSON_ArrayForEach(x, edit)
            cJSON_ReplaceItemInObjectCaseSensitive(j, x->string, cJSON_Duplicate(x, true));
        cJSON_Delete(base);
        cJSON_Delete(edit);
        cr_assert_eq(rd_write_json(path, j, err, sizeof err), 0, "%s", err);
        cJSON_Delete(j);
        a = verify_args("r");
        int rc = run_to_end(verify_main, &a, "v2");
        char *log = slurp("v2");
        cr_assert_neq(rc, 0, "%s is refused:\n%s", edits[c][0], log);
        cr_assert(strstr(log, edits[c][1]) && strstr(log, "-restart"), "%s", log);
        free(log);
        j = verify_json("r");
        cr_assert_eq(jnum(j, "sessions"), 1, "nothing played");
        cJSON_Delete(j);
    }
    cJSON_Delete(done);
}

/* At a wall clock, a verify whose games are lost on time says so once, as
 * a run does: the fake engine thinks 120 ms a move against a clock of
 * 50 ms, so every game is lost on time. */
Test(verify, warns_once_when_games_are_lost_on_time_at_a_wall_clock)
{
    write_file("short.txt", "Alpha, int, 30, 0, 100, 8, 0.5\nBeta, int, 70, 0, 100, 8, 0.5\n");
    Args a = fake_run_args("r", 4, 0, 2);
    add(&a, "-engine");
    add(&a, "args=--width 60 --think 120");
    add(&a, "-params");
    add(&a, "file=%s/short.txt", tmp);
    add(&a, "-maxmoves");
    add(&a, "2");
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0, "%s", slurp("runlog"));
    write_file("other.json", "{\"params\": {\"Alpha\": 55}}\n");
    a = verify_args("r");
    add(&a, "-tuned");
    add(&a, "%s/other.json", tmp);
    add(&a, "-each");
    add(&a, "tc=0.05+0.01");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "3");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "%s", log);
    const char *w = strstr(log, "games lost on time: the machine may be too loaded for this clock");
    cr_assert(w, "%s", log);
    cr_assert_null(strstr(w + 1, "games lost on time: the machine"), "once:\n%s", log);
    free(log);
    cJSON *j = verify_json("r");
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(j, "time_losses");
    cr_assert_eq(cJSON_GetArrayItem(tl, 0)->valuedouble + cJSON_GetArrayItem(tl, 1)->valuedouble, 6);
    cJSON_Delete(j);
}

/* On the wall clock each sitting first reads the machine: busy, it waits up
 * to -idle-wait for it, reading it again, then plays (with a warning if it
 * is still busy); verify.json keeps every sitting's check, a continued
 * verify adds its own. */
Test(verify, waits_for_a_busy_machine_and_keeps_each_sittings_check, .timeout = 120)
{
    short_run("r", 40);
    int n = mask_cpus();
    Args a = verify_args("r");
    add_line(&a, "-each tc=2+0.05 -sprt off -rounds 30 -idle-wait 12");
    pid_t pid = spawn_while_busy(verify_main, &a, "v1", "; waiting up to 12s for it");
    wait_pairs("r", 1, pid);
    kill(pid, SIGTERM);
    int rc = wait_child(pid);
    args_free(&a);
    char *log = slurp("v1");
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, "verify: the machine is busy: ") && strstr(log, "; waiting up to 12s for it"), "%s", log);
    cJSON *j = verify_json("r");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "machine");
    cr_assert_eq(cJSON_GetArraySize(m), 1, "one sitting, one check:\n%s", log);
    const cJSON *c = cJSON_GetArrayItem(m, 0);
    cr_expect_geq(jnum(c, "waited_s"), 9, "it read the machine again after waiting");
    cr_expect_eq(jnum(c, "cpus"), n);
    cr_expect_eq(jnum(c, "concurrency"), 2);
    /* after the wait: free (said so) or still busy (a warning) */
    bool idle = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "idle"));
    cr_expect(idle ? strstr(log, "verify: the machine is free after ") != NULL
                   : strstr(log, "warning: playing on a busy machine") != NULL,
              "%s", log);
    cJSON_Delete(j);
    free(log);

    /* A continued verify, on a busy machine, told not to wait: it plays with the warning. */
    a = verify_args("r");
    add_line(&a, "-idle-wait 0");
    rc = run_while_busy(verify_main, &a, "v2", "warning: playing on a busy machine: ");
    log = slurp("v2");
    cr_assert_eq(rc, 0, "%s", log);
    cr_assert(strstr(log, "continuing:") && strstr(log, "warning: playing on a busy machine: ") &&
                  !strstr(log, "waiting up to"),
              "%s", log);
    j = verify_json("r");
    assert_counts(j, 30);
    m = cJSON_GetObjectItemCaseSensitive(j, "machine");
    cr_assert_eq(cJSON_GetArraySize(m), 2, "the first sitting's check is kept, the second's added");
    cr_expect_eq(jnum(cJSON_GetArrayItem(m, 0), "cpus"), n);
    c = cJSON_GetArrayItem(m, 1);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c, "idle")));
    cr_expect_eq(jnum(c, "waited_s"), 0);
    cr_expect_geq(jnum(c, "busy_cpus"), 0.8 * n);
    cJSON_Delete(j);
    free(log);

    a = verify_args("r");
    add_line(&a, "-idle-wait soon");
    cr_expect_eq(run_to_end(verify_main, &a, "v3"), 2);
    log = slurp("v3");
    cr_expect(strstr(log, "-idle-wait: 'soon' is not a duration"), "%s", log);
    free(log);
}
