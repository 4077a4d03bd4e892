/* One engine process: handshake, deadlines, EOF, dead leaders, process
 * groups, close-on-exec pipes.  Uses the fake engine build/fake/fakeuci. */
#include <stdatomic.h>
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine_proc.h"
#include "helpers.h"

#define FAKE "build/fake/fakeuci"

static EngineProc eng;
static char **argv_;

static void start_fake(const char *args, int64_t startup_ms, const EngineOption *opts, int nopts, int expect)
{
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    char err[256];
    argv_ = ep_split_args(args, err, sizeof err);
    cr_assert_not_null(argv_, "%s", err);
    EngineLaunch l = { .name = "fake", .cmd = FAKE, .argv = argv_, .opts = opts, .nopts = nopts,
                       .startup_ms = startup_ms };
    ep_init(&eng, &l);
    err[0] = '\0';
    int rc = ep_start(&eng, err, sizeof err);
    cr_assert_eq(rc, expect, "ep_start returned %d: %s", rc, err);
}

static void teardown(void)
{
    ep_destroy(&eng);
    ep_free_argv(argv_);
    argv_ = NULL;
}

TestSuite(engine_proc, .fini = teardown, .timeout = 20);

Test(engine_proc, handshake_reads_options_and_name)
{
    start_fake("--options --name Hello", 5000, NULL, 0, 0);
    cr_assert(ep_running(&eng));
    cr_assert_str_eq(eng.id_name, "Hello");
    cr_assert(ep_has_option(&eng, "Alpha"));
    cr_assert(ep_has_option(&eng, "clear hash"), "option names compare case-insensitively, with blanks");
    cr_assert_not(ep_has_option(&eng, "Gamma"));
}

/* An escape sequence in the engine's `id name` does not reach the terminal,
 * PGN tags or the state: each control character becomes '?'. */
Test(engine_proc, id_name_loses_its_control_characters)
{
    start_fake("--name A\x1b[31mB\x07" "C", 5000, NULL, 0, 0);
    cr_assert_str_eq(eng.id_name, "A?[31mB?C");
    EngineProc e;
    memset(&e, 0, sizeof e);
    ep_handshake_line(&e, "id name x\ty\rz");
    cr_assert_str_eq(e.id_name, "x?y?z");
}

Test(engine_proc, startup_options_reach_the_engine)
{
    char path[] = "/tmp/ratchet-optlog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    char args[256];
    snprintf(args, sizeof args, "--options --option-log %s", path);
    EngineOption opts[2] = { { "Alpha", "7" }, { "Beta", "-3" } };
    start_fake(args, 5000, opts, 2, 0);
    ep_quit(&eng, 2000);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char buf[512] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    cr_assert_str_eq(buf, "uci\nset Alpha 7\nset Beta -3\n");
}

Test(engine_proc, garbage_and_overlong_lines_are_skipped)
{
    start_fake("--garbage --long-line", 5000, NULL, 0, 0);
    cr_assert(ep_send(&eng, "isready") == 0);
    cr_assert_eq(ep_wait_for(&eng, "readyok", ep_now_ms() + 5000, NULL), EP_LINE);
    cr_assert(ep_send(&eng, "position startpos") == 0);
    cr_assert(ep_send(&eng, "go nodes 1") == 0);
    cr_assert_eq(ep_wait_for(&eng, "bestmove", ep_now_ms() + 5000, NULL), EP_LINE);
}

Test(engine_proc, missing_program_is_a_clear_error)
{
    char err[256] = "";
    EngineLaunch l = { .name = "ghost", .cmd = "/nonexistent/engine", .startup_ms = 1000 };
    ep_init(&eng, &l);
    cr_assert_eq(ep_start(&eng, err, sizeof err), -1);
    cr_assert(strstr(err, "ghost") && strstr(err, "/nonexistent/engine") && strstr(err, "No such file"), "%s", err);
    cr_assert_not(ep_running(&eng));
}

Test(engine_proc, no_uciok_fails_at_the_startup_deadline)
{
    start_fake("--no-uciok", 300, NULL, 0, -1);
    cr_assert_not(ep_running(&eng));
}

Test(engine_proc, slow_start_within_deadline_is_fine)
{
    start_fake("--slow-start 200", 10000, NULL, 0, 0);
}

Test(engine_proc, slow_start_past_deadline_fails)
{
    char err[256];
    argv_ = ep_split_args("--slow-start 5000", err, sizeof err);
    EngineLaunch l = { .name = "slow", .cmd = FAKE, .argv = argv_, .startup_ms = 200 };
    ep_init(&eng, &l);
    cr_assert_eq(ep_start(&eng, err, sizeof err), -1);
    cr_assert(strstr(err, "slow") && strstr(err, "did not answer 'uci'"), "%s", err);
}

Test(engine_proc, exit_during_startup_is_reported)
{
    char err[256];
    argv_ = ep_split_args("--no-such-flag", err, sizeof err);
    EngineLaunch l = { .name = "bad", .cmd = FAKE, .argv = argv_, .startup_ms = 5000 };
    ep_init(&eng, &l);
    cr_assert_eq(ep_start(&eng, err, sizeof err), -1);
    cr_assert(strstr(err, "exited with code 2"), "%s", err);
}

Test(engine_proc, hang_times_out_and_kill_takes_it)
{
    start_fake("--hang-after 0", 5000, NULL, 0, 0);
    cr_assert(ep_send(&eng, "position startpos") == 0);
    cr_assert(ep_send(&eng, "go nodes 1") == 0);
    cr_assert_eq(ep_wait_for(&eng, "bestmove", ep_now_ms() + 300, NULL), EP_TIMEOUT);
    ep_kill(&eng);
    char how[64];
    ep_describe_exit(&eng, how, sizeof how);
    cr_assert_str_eq(how, "killed by signal 9 (Killed)");
}

Test(engine_proc, stop_flag_interrupts_a_wait)
{
    start_fake("--hang-after 0", 5000, NULL, 0, 0);
    cr_assert(ep_send(&eng, "go nodes 1") == 0);
    atomic_int stop = 1;
    cr_assert_eq(ep_wait_for(&eng, "bestmove", ep_now_ms() + 60000, &stop), EP_STOPPED);
}

Test(engine_proc, crash_is_seen_as_eof)
{
    start_fake("--crash-after 1", 5000, NULL, 0, 0);
    cr_assert(ep_send(&eng, "go nodes 1") == 0);
    cr_assert_eq(ep_wait_for(&eng, "bestmove", ep_now_ms() + 60000, NULL), EP_LINE);
    cr_assert(ep_send(&eng, "go nodes 1") == 0);
    cr_assert_eq(ep_wait_for(&eng, "bestmove", ep_now_ms() + 60000, NULL), EP_EOF);
    ep_kill(&eng);
    char how[64];
    ep_describe_exit(&eng, how, sizeof how);
    cr_assert(strstr(how, "signal 9"), "%s", how);
    cr_assert_eq(ep_write(&eng, "isready\n", 8, ep_now_ms() + 1000), -1);
}

/* The leader dies but a child of it keeps stdout open: no EOF ever comes,
 * yet the wait ends long before its 60 s deadline (the suite's timeout
 * would fail the test), and the kill takes the child with the group. */
Test(engine_proc, dead_leader_with_orphan_holding_the_pipe)
{
    start_fake("--orphan-after 0", 5000, NULL, 0, 0);
    cr_assert(ep_send(&eng, "go nodes 1") == 0);
    const char *line;
    cr_assert_eq(ep_read_line(&eng, ep_now_ms() + 60000, NULL, &line), EP_LINE);
    int orphan = 0;
    cr_assert_eq(sscanf(line, "info string orphan %d", &orphan), 1, "%s", line);
    cr_assert_eq(ep_wait_for(&eng, "bestmove", ep_now_ms() + 60000, NULL), EP_EOF);
    ep_kill(&eng);
    /* The orphan is gone or a zombie waiting for its reaper. */
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", orphan);
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        stat[n] = '\0';
        fclose(f);
        char *rp = strrchr(stat, ')');
        if (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'))
            return;
        usleep(10000);
    }
    cr_assert_fail("orphan %d survived the group kill: %s", orphan, stat);
}

static bool gone_or_zombie(int pid)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    stat[n] = '\0';
    fclose(f);
    char *rp = strrchr(stat, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* A runner killed without cleaning up takes its engines along, even a hung
 * one that would never notice the closed pipe. */
Test(engine_proc, engine_dies_with_the_runner)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t helper = fork();
    if (helper == 0) {
        char err[256];
        char **av = ep_split_args("--hang-after 0 --ignore-quit", err, sizeof err);
        EngineLaunch l = { .name = "orphan", .cmd = FAKE, .argv = av, .startup_ms = 5000 };
        EngineProc e;
        ep_init(&e, &l);
        int pid = ep_start(&e, err, sizeof err) == 0 ? e.pid : -1;
        ssize_t w = write(fds[1], &pid, sizeof pid);
        (void)w;
        _exit(0); /* no ep_kill: the engine is left behind */
    }
    close(fds[1]);
    int pid = -1;
    cr_assert_eq(read(fds[0], &pid, sizeof pid), (ssize_t)sizeof pid);
    close(fds[0]);
    waitpid(helper, NULL, 0);
    cr_assert(pid > 0, "the helper could not start the engine");
    for (int i = 0; i < 500 && !gone_or_zombie(pid); i++)
        usleep(10000);
    bool gone = gone_or_zombie(pid);
    if (!gone)
        kill(pid, SIGKILL);
    cr_assert(gone, "engine %d outlived the process that started it", pid);
}

Test(engine_proc, quit_is_forced_when_ignored)
{
    start_fake("--ignore-quit", 5000, NULL, 0, 0);
    ep_quit(&eng, 200);
    cr_assert_not(ep_running(&eng));
}

Test(engine_proc, quit_lets_a_good_engine_exit)
{
    start_fake("", 5000, NULL, 0, 0);
    ep_quit(&eng, 5000);
    char how[64];
    ep_describe_exit(&eng, how, sizeof how);
    cr_assert_str_eq(how, "exited with code 0");
}

Test(engine_proc, restart_gives_a_new_process)
{
    start_fake("", 5000, NULL, 0, 0);
    pid_t first = eng.pid;
    char err[256];
    cr_assert_eq(ep_restart(&eng, err, sizeof err), 0, "%s", err);
    cr_assert(ep_running(&eng));
    cr_assert_neq(eng.pid, first);
}

/* With two engines, the second must not hold the first's pipe ends. */
Test(engine_proc, pipes_are_close_on_exec)
{
    start_fake("", 5000, NULL, 0, 0);
    EngineProc other;
    char err[256];
    EngineLaunch l = { .name = "other", .cmd = FAKE, .startup_ms = 5000 };
    ep_init(&other, &l);
    cr_assert_eq(ep_start(&other, err, sizeof err), 0, "%s", err);

    char self[64], mine[2][64];
    int fds[2] = { eng.to_fd, eng.from_fd };
    for (int k = 0; k < 2; k++) {
        snprintf(self, sizeof self, "/proc/self/fd/%d", fds[k]);
        ssize_t n = readlink(self, mine[k], sizeof mine[k] - 1);
        cr_assert(n > 0);
        mine[k][n] = '\0';
    }
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)other.pid);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *de;
    int leaked = 0;
    while ((de = readdir(d))) {
        char p[PATH_MAX], target[64];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        ssize_t n = readlink(p, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (!strcmp(target, mine[0]) || !strcmp(target, mine[1]))
            leaked++;
    }
    closedir(d);
    ep_destroy(&other);
    cr_assert_eq(leaked, 0, "the second engine inherited %d pipe end(s) of the first", leaked);
}

Test(engine_proc, split_args_honours_quotes)
{
    char err[128];
    char **a = ep_split_args("  -x 'two words' \"say \\\"hi\\\"\" back\\ slash ''", err, sizeof err);
    cr_assert_not_null(a);
    cr_assert_str_eq(a[0], "-x");
    cr_assert_str_eq(a[1], "two words");
    cr_assert_str_eq(a[2], "say \"hi\"");
    cr_assert_str_eq(a[3], "back slash");
    cr_assert_str_eq(a[4], "");
    cr_assert_null(a[5]);
    ep_free_argv(a);
    cr_assert_null(ep_split_args("'open", err, sizeof err));
    cr_assert(strstr(err, "unbalanced"), "%s", err);
}

/* The wdl of an info line as bin/ratchet-label reads it: the first PV
 * only, counts that are plain numbers, never an `info string`. */
Test(engine_proc, wdl_is_win_plus_half_the_draws_of_the_first_pv)
{
    cr_expect_float_eq(ep_wdl_expected("info depth 9 multipv 1 score cp 12 wdl 412 500 88 pv e2e4"), 0.662, 1e-9);
    cr_expect_float_eq(ep_wdl_expected("info depth 20 score mate 3 wdl 1000 0 0"), 1.0, 1e-9);
    cr_expect_float_eq(ep_wdl_expected("info wdl 0 1000 0"), 0.5, 1e-9);
    cr_expect_eq(ep_wdl_expected("info depth 9 multipv 2 score cp -90 wdl 0 0 1000"), -1);
    cr_expect_eq(ep_wdl_expected("info string wdl 1 2 3"), -1);
    cr_expect_eq(ep_wdl_expected("info depth 9 score cp 12"), -1);
    cr_expect_eq(ep_wdl_expected("info depth 3 wdl 99999999999 0 1"), -1);
    cr_expect_eq(ep_wdl_expected("info depth 3 wdl 5 x 3"), -1);
    cr_expect_eq(ep_wdl_expected("info depth 3 wdl 0 0 0"), -1);
    cr_expect_eq(ep_wdl_expected("info depth 3 wdl 1 2"), -1);
    cr_expect_eq(ep_wdl_expected("bestmove e2e4 wdl 1 2 3"), -1);
}

/* ---- Files are not inherited by engines ----------------------------------------- */

#define TUNE "bin/ratchet-tune"
#define FAKEUCI "build/fake/fakeuci"
#define FAKESPSA "build/fake/fakespsa"

static void command_setup(void)
{
    tmp_create("/tmp/ratchet-engine-proc-XXXXXX");
    command_fixture();
}

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

Test(engine_proc, engines_inherit_only_their_pipes, .init = command_setup, .fini = tmp_remove, .timeout = 120)
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
