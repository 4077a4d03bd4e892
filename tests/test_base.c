/* base/: the stop on a signal (stopsig.h). */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
