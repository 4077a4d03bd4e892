/* base/: the stop on a signal (stopsig.h), the progress line (progress.h),
 * appending to a buffer (errmsg.h). */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "progress.h"
#include "stopsig.h"

/* How a child that installs the stop and then runs body() ends: its exit
 * code, or 1000 + the signal that killed it. */
static int in_child(void (*body)(void))
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        StopSig s;
        stopsig_install(&s, "stopping\n");
        body();
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
}

static void failed_save_then_ctrl_c(void)
{
    stopsig_request(); /* a save failed: the command winds down */
    raise(SIGINT);     /* the user's first Ctrl-C */
    _exit(stopsig_flag && stopsig_signal() == SIGINT ? 0 : 3);
}

static void ctrl_c_twice(void)
{
    raise(SIGINT);
    if (stopsig_signal() != SIGINT)
        _exit(3);
    raise(SIGINT);
}

static void sigterm(void)
{
    raise(SIGTERM);
    _exit(stopsig_flag && stopsig_signal() == SIGTERM ? 0 : 3);
}

/* A stop without a signal (a failed save, a verdict) is not the user's first
 * Ctrl-C: the Ctrl-C after it stops cleanly, so the command still saves and
 * says how to continue. */
Test(stopsig, a_ctrl_c_after_a_failed_save_is_the_first)
{
    cr_assert_eq(in_child(failed_save_then_ctrl_c), 0, "the Ctrl-C after a stop request ended the process");
}

Test(stopsig, a_second_signal_ends_the_process)
{
    cr_assert_eq(in_child(ctrl_c_twice), 1000 + SIGINT);
    cr_assert_eq(in_child(sigterm), 0);
}

/* A line is due after its interval (the terminal's or the log's), at once
 * when forced, and the interval counts from the last line shown. */
Test(progress, a_line_is_due_after_its_interval_or_when_forced)
{
    Progress p;
    progress_start(&p, 100, 1000, 0);
    p.tty = false;
    cr_assert_not(progress_due(&p, 999, false));
    cr_assert(progress_due(&p, 1000, false));
    cr_assert_not(progress_due(&p, 1500, false), "counted from the last line");
    cr_assert(progress_due(&p, 1500, true));
    p.tty = true;
    cr_assert_not(progress_due(&p, 1599, false));
    cr_assert(progress_due(&p, 1600, false), "a terminal's interval");
}

/* What progress_show writes into the file out (stdout redirected): plain
 * lines off a terminal; on one a redrawn line, cleared or ended before
 * other output. */
static char *shown(bool tty)
{
    char path[] = "/tmp/ratchet-progress-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    Progress p;
    progress_start(&p, 0, 0, 0);
    p.tty = tty;
    progress_show(&p, "pairs 1/3");
    progress_show(&p, "pairs 2/3");
    progress_clear(&p);
    printf("a message\n");
    progress_show(&p, "pairs 3/3");
    progress_end(&p);
    progress_end(&p);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    FILE *f = fdopen(fd, "r");
    rewind(f);
    static char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    return buf;
}

Test(progress, plain_lines_off_a_terminal_and_one_redrawn_line_on_one)
{
    cr_assert_str_eq(shown(false), "pairs 1/3\npairs 2/3\na message\npairs 3/3\n");
    cr_assert_str_eq(shown(true), "\rpairs 1/3\033[K\rpairs 2/3\033[K\r\033[Ka message\n\rpairs 3/3\033[K\n",
                     "one newline at the end, however often it is ended");
}

/* appendf keeps its promise of a terminated buffer also when nothing fits:
 * a buffer of one byte, or one already full. */
Test(appendf, the_buffer_is_terminated_even_when_nothing_fits)
{
    char one[1] = { 'x' };
    cr_assert_eq(appendf(one, 1, 0, "abc"), 0);
    cr_assert_eq(one[0], '\0');
    char four[4] = { 'a', 'b', 'c', 'd' };
    cr_assert_eq(appendf(four, 4, 3, "e"), 3);
    cr_assert_eq(four[3], '\0');
    char buf[8] = "";
    size_t n = appendf(buf, sizeof buf, 0, "%s", "abcdef");
    n = appendf(buf, sizeof buf, n, "%s", "ghij");
    cr_assert_eq(n, 7);
    cr_assert_str_eq(buf, "abcdefg");
}
