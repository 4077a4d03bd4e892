/* The tuner's items of the hardening review (issue 13), each a behaviour
 * that was wrong before: files inherited by engines, a match that ignored
 * SIGTERM, a disk error that turned one Ctrl-C into a kill, tools/tune.sh
 * swallowing TERM, resume trusting its state file and its engine, the SPRT
 * verdict of the report, and the status label.  Everything runs
 * bin/ratchet-tune against the fake engines in a temporary directory. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "matchcmd.h"
#include "rundir.h"

#define TUNE "bin/ratchet-tune"
#define FAKEUCI "build/fake/fakeuci"
#define FAKESPSA "build/fake/fakespsa"

extern char **environ;

static char tmp[128];
static char out[1 << 17];

static void put(const char *name, const char *fmt, ...)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot create %s", path);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

static void setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    snprintf(tmp, sizeof tmp, "/tmp/ratchet-review-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
    cr_assert(access(TUNE, X_OK) == 0 && access(FAKEUCI, X_OK) == 0 && access(FAKESPSA, X_OK) == 0,
              "run make all build/fake/fakeuci build/fake/fakespsa first");
    put("spec.txt", "Alpha, int, 50, 0, 100, 5, 0.002\n"
                    "Beta, int, 50, 0, 100, 5, 0.002\n"
                    "Gamma, int, 0, -50, 50, 5, 0.002\n");
    put("spec2.txt", "Alpha, int, 50, 0, 100, 5, 0.002\n"
                     "Beta, int, 50, 0, 100, 5, 0.002\n");
    put("book.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
                    "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n");
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    if (tmp[0])
        nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(review, .init = setup, .fini = teardown, .timeout = 120);

/* `sh -c CMD` with stdout and stderr into out; the exit code (1000 + signal). */
static int shell(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* A spawned process whose output (stdout and stderr) is read from a pipe. */
typedef struct {
    pid_t pid;
    int fd;
    size_t n;
} Child;

static Child start(char *const argv[], bool own_group)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    if (own_group) {
        posix_spawnattr_setpgroup(&at, 0);
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    }
    Child c = { .fd = fds[0] };
    cr_assert_eq(posix_spawn(&c.pid, argv[0], &fa, &at, argv, environ), 0, "cannot start %s", argv[0]);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fds[1]);
    out[0] = '\0';
    return c;
}

/* Reads output until `text` appears (true) or EOF / timeout (false). */
static bool read_until(Child *c, const char *text, int timeout_ms)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!strstr(out, text)) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return false;
        ssize_t r = read(c->fd, out + c->n, sizeof out - 1 - c->n);
        if (r <= 0)
            return false;
        c->n += (size_t)r;
        out[c->n] = '\0';
    }
    return true;
}

/* Waits at most timeout_ms for the child; its exit code, 1000 + signal, or -1. */
static int finish(Child *c, int timeout_ms)
{
    read_until(c, "\x01never", timeout_ms); /* drains until EOF or the timeout */
    for (int waited = 0;; waited += 10) {
        int st;
        pid_t w = waitpid(c->pid, &st, WNOHANG);
        if (w == c->pid) {
            close(c->fd);
            return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
        }
        if (waited > 5000)
            return -1;
        usleep(10000);
    }
}

static bool wait_for_file(const char *path, int timeout_ms)
{
    for (int t = 0; t < timeout_ms; t += 20) {
        if (access(path, F_OK) == 0)
            return true;
        usleep(20000);
    }
    return false;
}

/* A finished run of `games` games of the fake engine `engine` into tmp/DIR. */
static void finished_run(const char *dir, const char *engine, int games)
{
    int rc = shell(TUNE " run -engine cmd=%s -params file=%s/spec.txt -each nodes=1 -openings file=%s/book.epd "
                        "-maxmoves 20 -spsa games=%d -srand 3 -out %s/%s",
                   engine, tmp, tmp, games, tmp, dir);
    cr_assert_eq(rc, 0, "the run failed:\n%s", out);
}

/* ---- Files are not inherited by engines ----------------------------------------- */

/* An engine wrapper that records which files it was started with. */
static void fd_recording_engine(const char *name, const char *real)
{
    char abs[PATH_MAX];
    cr_assert_not_null(realpath(real, abs));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    put(name, "#!/bin/sh\nls -l /proc/$$/fd > %s/fds/$$ 2>&1\nexec %s \"$@\"\n", tmp, abs);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* Every recorded descriptor of every engine: none may point into tmp/out. */
static int check_fds(void)
{
    char pattern[PATH_MAX];
    snprintf(pattern, sizeof pattern, "%s/fds/*", tmp);
    glob_t g;
    cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no engine recorded its files");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "r");
        cr_assert_not_null(f);
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            const char *arrow = strstr(line, " -> ");
            if (arrow)
                cr_expect(strstr(arrow, "/out/") == NULL, "an engine inherited %s", arrow + 4);
        }
        fclose(f);
    }
    int n = (int)g.gl_pathc;
    globfree(&g);
    return n;
}

Test(review, engines_inherit_only_their_pipes)
{
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s/fds", tmp);
    cr_assert_eq(mkdir(d, 0755), 0);
    snprintf(d, sizeof d, "%s/out", tmp);
    cr_assert_eq(mkdir(d, 0755), 0);
    fd_recording_engine("uci.sh", FAKEUCI);
    fd_recording_engine("spsa.sh", FAKESPSA);
    /* match: the PGN and the -log file are open while engines start. */
    int rc = shell(TUNE " match -engine cmd=%s/uci.sh name=A -engine cmd=%s/uci.sh name=B -each nodes=10 -rounds 2 "
                        "-maxmoves 10 -pgnout file=%s/out/m.pgn -log file=%s/out/m.log",
                   tmp, tmp, tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect_geq(check_fds(), 2);
    /* run: history.csv and the PGN too. */
    rc = shell(TUNE " run -engine cmd=%s/spsa.sh -params file=%s/spec.txt -each nodes=1 -maxmoves 10 "
                    "-openings file=%s/book.epd -spsa games=4 -out %s/out/run -pgnout file=%s/out/run.pgn",
               tmp, tmp, tmp, tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect_geq(check_fds(), 4);
}

/* ---- Signals ------------------------------------------------------------------- */

Test(review, match_reports_on_sigterm)
{
    char *argv[] = { TUNE, "match", "-engine", "cmd=" FAKEUCI, "name=A", "-engine", "cmd=" FAKEUCI, "name=B",
                     "-each", "nodes=10", "-rounds", "100000", "-concurrency", "2", NULL };
    Child c = start(argv, false);
    cr_assert(read_until(&c, "Games: ", 20000), "no progress:\n%s", out);
    kill(c.pid, SIGTERM);
    int rc = finish(&c, 20000);
    cr_assert_eq(rc, 0, "exit %d (1000 + signal when killed)\n%s", rc, out);
    cr_expect(strstr(out, "Match interrupted") && strstr(out, "Results of A vs B") && strstr(out, "Finished match"),
              "%s", out);
}

/* A failed checkpoint stops the run; one Ctrl-C during that stop is a
 * first Ctrl-C, not a second one that kills the process. */
Test(review, one_ctrl_c_after_a_disk_error_is_not_a_second)
{
    char run[PATH_MAX], state[PATH_MAX + 32], arg_out[PATH_MAX + 8], arg_spec[PATH_MAX + 16],
        arg_book[PATH_MAX + 16];
    snprintf(run, sizeof run, "%s/run", tmp);
    snprintf(state, sizeof state, "%s/state.json", run);
    snprintf(arg_spec, sizeof arg_spec, "file=%s/spec2.txt", tmp);
    snprintf(arg_book, sizeof arg_book, "file=%s/book.epd", tmp);
    snprintf(arg_out, sizeof arg_out, "%s", run);
    /* Engines that ignore `quit`: the stop takes the runner's full grace time. */
    char *argv[] = { TUNE, "run", "-engine", "cmd=" FAKEUCI, "args=--options --ignore-quit", "-params", arg_spec,
                     "-each", "nodes=1", "-maxmoves", "20", "-openings", arg_book, "-spsa", "games=200000",
                     "-concurrency", "1", "-out", arg_out, NULL };
    Child c = start(argv, true);
    cr_assert(wait_for_file(state, 20000), "the run did not start:\n%s", out);
    /* The next checkpoint cannot create its temporary file. */
    char tmpfile[PATH_MAX + 40];
    snprintf(tmpfile, sizeof tmpfile, "%s.tmp", state);
    /* The saver may be writing its own temporary file this very moment: wait
     * for its rename, then take the name. */
    int made = -1;
    for (int tries = 0; tries < 2000 && (made = mkdir(tmpfile, 0755)) != 0 && errno == EEXIST; tries++)
        usleep(1000);
    cr_assert_eq(made, 0, "mkdir %s: %s", tmpfile, strerror(errno));
    bool stopping = read_until(&c, "stopping the run", 30000);
    if (stopping)
        kill(c.pid, SIGINT);
    int rc = finish(&c, 30000);
    kill(-c.pid, SIGKILL); /* the fake engines, if anything is left */
    cr_assert(stopping, "no disk error reported:\n%s", out);
    cr_expect_neq(rc, 1000 + SIGINT, "one Ctrl-C after a disk error killed the run at once:\n%s", out);
    cr_expect_eq(rc, 1, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "resume with:"), "%s", out);
}

Test(review, tune_sh_passes_term_on_to_the_tuner, .timeout = 180)
{
    cr_assert(access("bin/ratchet", X_OK) == 0);
    char name[64], state[128], env_name[80];
    snprintf(name, sizeof name, "review-term-%d", (int)getpid());
    snprintf(state, sizeof state, "runs/%s/state.json", name);
    snprintf(env_name, sizeof env_name, "NAME=%s", name);
    char *argv[] = { "/usr/bin/env", "GAMES=1000000", "NODES=300", "CONCURRENCY=1", env_name, "sh", "tools/tune.sh",
                     NULL };
    Child c = start(argv, true);
    bool started = wait_for_file(state, 60000);
    usleep(500 * 1000);
    /* env execs sh: c.pid is the script's shell. */
    kill(c.pid, SIGTERM);
    int rc = finish(&c, 30000);
    kill(-c.pid, SIGKILL);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf runs/%s", name);
    cr_expect_eq(system(cmd), 0);
    cr_assert(started, "the tuner did not start:\n%s", out);
    cr_expect_eq(rc, 128 + SIGTERM, "exit %d (-1: still running 30 s after TERM)\n%s", rc, out);
    cr_expect(strstr(out, "resume:"), "%s", out);
}

/* ---- Resume checks its state and its engine --------------------------------------- */

static cJSON *load_state(const char *dir)
{
    char path[PATH_MAX], err[256];
    snprintf(path, sizeof path, "%s/%s/state.json", tmp, dir);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    return j;
}

static void save_state(const char *dir, cJSON *j)
{
    char path[PATH_MAX], err[256];
    snprintf(path, sizeof path, "%s/%s/state.json", tmp, dir);
    char *text = cJSON_Print(j);
    cr_assert_eq(rd_write_atomic(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    free(text);
}

static cJSON *at(cJSON *o, const char *a, const char *b)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

/* A batch in flight for the 3 parameters of spec.txt. */
static cJSON *batch(double k)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "k", k);
    const double c[3] = { 1, 1, 1 }, r[3] = { 0.01, 0.01, 0.01 }, u[3] = { 0.5, 0.5, 0.5 };
    const int flip[3] = { 1, -1, 1 }, plus[3] = { 51, 49, 1 }, minus[3] = { 49, 51, -1 };
    cJSON_AddItemToObject(b, "c_k", cJSON_CreateDoubleArray(c, 3));
    cJSON_AddItemToObject(b, "R_k", cJSON_CreateDoubleArray(r, 3));
    cJSON_AddItemToObject(b, "u", cJSON_CreateDoubleArray(u, 3));
    cJSON_AddItemToObject(b, "flip", cJSON_CreateIntArray(flip, 3));
    cJSON_AddItemToObject(b, "plus", cJSON_CreateIntArray(plus, 3));
    cJSON_AddItemToObject(b, "minus", cJSON_CreateIntArray(minus, 3));
    return b;
}

Test(review, resume_refuses_an_inconsistent_state)
{
    finished_run("r", FAKESPSA, 8);
    cJSON *good = load_state("r");
    double k = at(good, "spsa", "k")->valuedouble, done = at(good, "spsa", "completed")->valuedouble;
    cr_assert_eq(k, done);
    struct {
        const char *what, *field;
    } cases[] = {
        { "k above completed + in flight", "\"k\"" },
        { "two batches in flight with one id", "\"inflight\"" },
        { "a fractional game count", "run.games" },
        { "a fractional pentanomial count", "run.ptnml" },
        { "a fractional crash count", "run.crashes" },
        { "kept pairs of a batch that is not in flight", "run.partial" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *j = cJSON_Duplicate(good, true);
        cJSON *spsa = at(j, "spsa", NULL), *run = at(j, "run", NULL);
        switch (i) {
        case 0:
            cJSON_SetNumberValue(at(spsa, "k", NULL), k + 1);
            break;
        case 1: {
            /* completed + 2 in flight == k, but both are batch k. */
            cJSON_SetNumberValue(at(spsa, "completed", NULL), done - 2);
            cJSON *in = at(spsa, "inflight", NULL);
            cJSON_AddItemToArray(in, batch(k));
            cJSON_AddItemToArray(in, batch(k));
            break;
        }
        case 2:
            cJSON_SetNumberValue(at(run, "games", NULL), 15.5);
            break;
        case 3:
            cJSON_SetNumberValue(cJSON_GetArrayItem(at(run, "ptnml", NULL), 2), 0.5);
            break;
        case 4:
            cJSON_SetNumberValue(at(run, "crashes", NULL), 1.25);
            break;
        case 5: {
            cJSON *pb = cJSON_CreateObject();
            const char *f[] = { "k", "pairs", "wins", "losses", "draws", "time_losses", "crashes", "illegal" };
            const double v[] = { k, 1, 1, 1, 0, 0, 0, 0 };
            for (int q = 0; q < 8; q++)
                cJSON_AddNumberToObject(pb, f[q], v[q]);
            const int pt[5] = { 0, 0, 1, 0, 0 };
            cJSON_AddItemToObject(pb, "ptnml", cJSON_CreateIntArray(pt, 5));
            cJSON *arr = cJSON_AddArrayToObject(run, "partial");
            cJSON_AddItemToArray(arr, pb);
            break;
        }
        }
        save_state("r", j);
        cJSON_Delete(j);
        int rc = shell(TUNE " resume %s/r -spsa games=12", tmp);
        cr_expect_eq(rc, 2, "%s: exit %d\n%s", cases[i].what, rc, out);
        cr_expect(strstr(out, cases[i].field) != NULL, "%s: the message should name '%s':\n%s", cases[i].what,
                  cases[i].field, out);
    }
    save_state("r", good);
    cJSON_Delete(good);
    cr_expect_eq(shell(TUNE " resume %s/r -spsa games=12", tmp), 0, "the untouched state resumes:\n%s", out);
}

Test(review, resume_refuses_a_different_engine_unless_forced)
{
    char eng[PATH_MAX];
    snprintf(eng, sizeof eng, "%s/engine", tmp);
    cr_assert_eq(shell("cp %s %s", FAKESPSA, eng), 0, "%s", out);
    finished_run("r", eng, 4);
    cJSON *j = load_state("r");
    cJSON *e = at(j, "run", "engine_check");
    cr_assert(cJSON_IsObject(e), "the state records the engine");
    cr_expect(cJSON_IsString(at(e, "id_name", NULL)) && cJSON_IsNumber(at(e, "size", NULL)) &&
                  cJSON_IsNumber(at(e, "mtime", NULL)),
              "id name, size and mtime recorded");
    cJSON_Delete(j);

    /* The same binary resumes. */
    cr_assert_eq(shell(TUNE " resume %s/r -spsa games=6", tmp), 0, "%s", out);
    /* One more byte: a different binary (it still runs). */
    cr_assert_eq(shell("printf x >> %s", eng), 0);
    int rc = shell(TUNE " resume %s/r -spsa games=8", tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, eng) && strstr(out, "size") && strstr(out, "-force"), "the message says what changed:\n%s",
              out);
    rc = shell(TUNE " resume %s/r -spsa games=8 -force", tmp);
    cr_expect_eq(rc, 0, "-force resumes:\n%s", out);
    cr_expect(strstr(out, "warning") != NULL, "-force still says what changed:\n%s", out);
    /* And records the new engine: the next resume is quiet. */
    rc = shell(TUNE " resume %s/r -spsa games=10", tmp);
    cr_expect_eq(rc, 0, "%s", out);
}

/* verify plays the run's engine: a different binary at its path is refused
 * (saying what changed), unless -force. */
Test(review, verify_refuses_a_different_engine_unless_forced)
{
    char eng[PATH_MAX];
    snprintf(eng, sizeof eng, "%s/engine", tmp);
    cr_assert_eq(shell("cp %s %s", FAKESPSA, eng), 0, "%s", out);
    /* large gains: the values move in a few games, so verify has a match to play */
    put("spec.txt", "Alpha, int, 30, 0, 100, 8, 0.5\nBeta, int, 70, 0, 100, 8, 0.5\n");
    finished_run("r", eng, 8);
    cr_assert_eq(shell("printf x >> %s", eng), 0);
    int rc = shell(TUNE " verify %s/r -sprt off -rounds 1", tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, eng) && strstr(out, "size") && strstr(out, "verify with -force"),
              "the message says what changed:\n%s", out);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/r/verify.json", tmp);
    cr_expect_neq(access(path, F_OK), 0, "nothing was played");
    rc = shell(TUNE " verify %s/r -sprt off -rounds 1 -force", tmp);
    cr_expect_eq(rc, 0, "-force plays:\n%s", out);
    cr_expect(strstr(out, "warning") && strstr(out, "size"), "-force still says what changed:\n%s", out);
    cr_expect(strstr(out, "Games: 2"), "one pair played:\n%s", out);
    cr_expect_eq(access(path, F_OK), 0, "the verdict is written");
}

Test(review, resume_of_a_state_without_the_engine_record_still_works)
{
    finished_run("r", FAKESPSA, 4);
    cJSON *j = load_state("r");
    cJSON_DeleteItemFromObjectCaseSensitive(at(j, "run", NULL), "engine_check");
    save_state("r", j);
    cJSON_Delete(j);
    int rc = shell(TUNE " resume %s/r -spsa games=6", tmp);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "note:") && strstr(out, "engine"), "a note says the engine could not be checked:\n%s", out);
    j = load_state("r");
    cr_expect(cJSON_IsObject(at(j, "run", "engine_check")), "the record is added for the next resume");
    cJSON_Delete(j);
}

/* ---- Reports ---------------------------------------------------------------------- */

Test(review, the_sprt_verdict_printed_is_the_one_that_stopped_the_match)
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

Test(review, the_match_header_has_no_null)
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

Test(review, status_does_not_call_the_flip_score_a_strength)
{
    finished_run("r", FAKESPSA, 4);
    cr_assert_eq(shell(TUNE " status %s/r", tmp), 0, "%s", out);
    cr_expect(strstr(out, "theta+c vs theta-c") == NULL, "%s", out);
    cr_expect(strstr(out, "random flip") != NULL, "%s", out);
}

/* ---- A stop keeps the finished pairs of a batch ------------------------------------ */

static int count_in(const char *path, const char *needle)
{
    char err[256];
    char *s = rd_read_file(path, NULL, err, sizeof err);
    if (!s)
        return 0;
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    free(s);
    return n;
}

enum { STOP_P = 4, STOP_GAMES = 16 };

/* A run of STOP_GAMES games of fakespsa (with engine_args) in batches of
 * STOP_P pairs into tmp/r, its games in tmp/games.pgn, stopped by SIGTERM
 * once the first pair of batch 1 is in the PGN: the batch is half done. */
static void stop_in_the_first_batch(const char *engine_args)
{
    char spec[PATH_MAX + 8], book[PATH_MAX + 8], dir[PATH_MAX], pgn[PATH_MAX + 8], pgnpath[PATH_MAX], args[256];
    char games[32], pairs[32];
    snprintf(games, sizeof games, "games=%d", STOP_GAMES);
    snprintf(pairs, sizeof pairs, "pairs-per=%d", STOP_P);
    snprintf(spec, sizeof spec, "file=%s/spec.txt", tmp);
    snprintf(book, sizeof book, "file=%s/book.epd", tmp);
    snprintf(dir, sizeof dir, "%s/r", tmp);
    snprintf(pgnpath, sizeof pgnpath, "%s/games.pgn", tmp);
    snprintf(pgn, sizeof pgn, "file=%s", pgnpath);
    snprintf(args, sizeof args, "args=%s", engine_args);
    char *argv[] = { TUNE, "run", "-engine", "cmd=" FAKESPSA, args, "-params", spec, "-each",
                     "nodes=1", "-maxmoves", "20", "-openings", book, "-spsa", games, pairs,
                     "-concurrency", "1", "-pgnout", pgn, "-out", dir, NULL };
    Child c = start(argv, true);
    bool seen = false;
    for (int t = 0; t < 30000 && !seen; t += 5) {
        seen = count_in(pgnpath, "[Round \"1\"]") >= 2;
        if (!seen)
            usleep(5000);
    }
    kill(c.pid, SIGTERM);
    int rc = finish(&c, 30000);
    kill(-c.pid, SIGKILL);
    cr_assert(seen, "no pair finished:\n%s", out);
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d\n%s", rc, out);
}

Test(review, a_stop_keeps_the_finished_pairs_of_a_batch)
{
    enum { P = STOP_P, GAMES = STOP_GAMES };
    char pgnpath[PATH_MAX];
    snprintf(pgnpath, sizeof pgnpath, "%s/games.pgn", tmp);
    stop_in_the_first_batch("--think 15");
    cJSON *j = load_state("r");
    cJSON *part = at(j, "run", "partial");
    cr_expect(cJSON_GetArraySize(part) == 1 && at(cJSON_GetArrayItem(part, 0), "k", NULL)->valuedouble == 1 &&
                  at(cJSON_GetArrayItem(part, 0), "pairs", NULL)->valuedouble >= 1,
              "the finished pairs of batch 1 are kept in the state");
    cJSON_Delete(j);

    cr_assert_eq(shell(TUNE " resume %s/r", tmp), 0, "%s", out);
    j = load_state("r");
    cr_expect_eq(at(j, "run", "games")->valuedouble, GAMES);
    cr_expect_null(at(j, "run", "partial"), "nothing partial after the end");
    cJSON_Delete(j);
    /* Batch 1 was played once: its kept pairs plus the rest (a game of the
     * pair abandoned at the stop may be in the PGN too). */
    int r1 = count_in(pgnpath, "[Round \"1\"]");
    cr_expect_leq(r1, 2 * P + 1, "batch 1 has %d games in the PGN: its finished pairs were played again", r1);
    cr_expect_geq(r1, 2 * P);
}

/* The per-engine fault counts of a half-done batch's finished pairs survive
 * a stop: the engine crashes in every game, and after the resume each
 * per-engine count adds up to the run's total again. */
Test(review, a_stop_keeps_the_per_engine_counts_of_a_half_done_batch)
{
    stop_in_the_first_batch("--think 15 --crash-after 3");
    cJSON *j = load_state("r");
    cJSON *part = cJSON_GetArrayItem(at(j, "run", "partial"), 0);
    cr_assert_not_null(part, "batch 1 is kept as partial");
    double kept = at(part, "crashes", NULL)->valuedouble;
    cr_assert_gt(kept, 0, "the kept pairs have crashes");
    cJSON *pe = at(part, "per_engine", NULL);
    cr_assert_not_null(pe, "the partial entry has no per-engine counts");
    cJSON *cr = at(pe, "crashes", NULL);
    cr_expect_eq(cJSON_GetArrayItem(cr, 0)->valuedouble + cJSON_GetArrayItem(cr, 1)->valuedouble, kept);
    /* The same stop as an older build wrote it, without them: it resumes,
     * and those pairs are missing from the per-engine counts only. */
    cr_assert_eq(shell("cp -r %s/r %s/old", tmp, tmp), 0, "%s", out);
    cJSON_DeleteItemFromObject(part, "per_engine");
    save_state("old", j);
    cJSON_Delete(j);
    cr_assert_eq(shell(TUNE " resume %s/old", tmp), 0, "%s", out);
    j = load_state("old");
    cr_expect_eq(at(j, "run", "games")->valuedouble, STOP_GAMES);
    cr = at(at(j, "run", "per_engine"), "crashes", NULL);
    cr_expect_eq(cJSON_GetArrayItem(cr, 0)->valuedouble + cJSON_GetArrayItem(cr, 1)->valuedouble,
                 at(j, "run", "crashes")->valuedouble - kept);
    cJSON_Delete(j);

    cr_assert_eq(shell(TUNE " resume %s/r", tmp), 0, "%s", out);
    j = load_state("r");
    cr_expect_eq(at(j, "run", "games")->valuedouble, STOP_GAMES);
    static const char *const counts[] = { "time_losses", "crashes", "illegal" };
    for (int k = 0; k < 3; k++) {
        const char *name = counts[k];
        cJSON *a = at(j, "run", "per_engine");
        a = a ? at(a, name, NULL) : NULL;
        cr_assert_not_null(a, "run.per_engine.%s", name);
        cr_expect_eq(cJSON_GetArrayItem(a, 0)->valuedouble + cJSON_GetArrayItem(a, 1)->valuedouble,
                     at(j, "run", name)->valuedouble, "run.per_engine.%s does not add up to run.%s", name, name);
    }
    cr_expect_gt(at(j, "run", "crashes")->valuedouble, kept);
    cJSON_Delete(j);
}
