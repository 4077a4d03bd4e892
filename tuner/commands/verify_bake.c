/* `ratchet-tune verify`: baking the tuned and base values into engines of
 * their own; see verify_impl.h. */
#include "verify_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "rd.h"
#include "readfile.h"

/* The source tree of a Ratchet engine at ROOT/bin/ratchet, or false. */
bool verify_ratchet_root(const RunState *rs, const char *cmd, char *root, size_t len)
{
    char real[PATH_MAX];
    if (strncmp(rs->engine, "Ratchet", 7) != 0 || strstr(rs->engine, "baked") || !realpath(cmd, real))
        return false;
    char *slash = strrchr(real, '/');
    if (!slash || strcmp(slash + 1, "ratchet") != 0)
        return false;
    *slash = '\0';
    slash = strrchr(real, '/');
    if (!slash || strcmp(slash + 1, "bin") != 0)
        return false;
    *slash = '\0';
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/Makefile", real);
    if (access(probe, R_OK) != 0)
        return false;
    snprintf(probe, sizeof probe, "%s/engine/params.def", real);
    if (access(probe, R_OK) != 0)
        return false;
    snprintf(root, len, "%s", real[0] ? real : "/");
    return true;
}

/* Start `make -C root ...` with its output into log; the pid, or -1. */
static pid_t start_make(const char *root, const char *log, char *const words[])
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int fd = open_regular(log, O_WRONLY | O_CREAT | O_TRUNC, 0644, NULL); /* not through a planted link, not a FIFO */
    if (fd < 0)
        _exit(126);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    /* A make above us (make test) must not lend us its jobserver. */
    unsetenv("MAKEFLAGS");
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
    unsetenv("MAKEOVERRIDES");
    char *argv[16];
    int n = 0;
    argv[n++] = "make";
    argv[n++] = "--no-print-directory";
    argv[n++] = "-C";
    argv[n++] = (char *)root;
    for (int i = 0; words[i] && n < 15; i++)
        argv[n++] = words[i];
    argv[n] = NULL;
    execvp("make", argv);
    fprintf(stderr, "cannot run make: %s\n", strerror(errno));
    _exit(127);
}

static int wait_make(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last lines of a log, for a failed build's message. */
static void log_tail(const char *log, char *buf, size_t len)
{
    char e[64];
    size_t n = 0;
    char *text = rd_read_file(log, &n, e, sizeof e);
    buf[0] = '\0';
    if (!text)
        return;
    size_t lines = 0, start = n;
    while (start > 0 && lines < 6)
        if (text[--start] == '\n' && start + 1 < n)
            lines++;
    snprintf(buf, len, "%s", text + start + (text[start] == '\n'));
    free(text);
}

/* make PARAMS=DIR/verify/{tuned,base}.json BAKED_BIN=DIR/verify/ratchet-{tuned,base}, both at once. */
int verify_bake_engines(Verify *v, const char *root, char cmd[2][PATH_MAX + 64], char *err, size_t errlen)
{
    static const char *const which[2] = { "tuned", "base" };
    char vars[2][3][PATH_MAX + 64], target[2][PATH_MAX + 64], log[2][PATH_MAX + 64];
    pid_t pid[2];
    printf("baking the tuned and the start values into %s/ratchet-tuned and ratchet-base (make -C %s PARAMS=...)\n",
           v->sub, root);
    fflush(stdout);
    /* The baking tool first, alone: two makes must not build the same files at once. */
    char blog[PATH_MAX + 64];
    snprintf(blog, sizeof blog, "%s/bake-tool.log", v->sub);
    char *tool[] = { "bin/ratchet-bake", NULL };
    int rc = wait_make(start_make(root, blog, tool));
    if (rc != 0) {
        char tail[1024];
        log_tail(blog, tail, sizeof tail);
        return errmsg(err, errlen, "bake: `make -C %s bin/ratchet-bake` failed (exit %d; %s):\n%s", root, rc, blog,
                      tail);
    }
    for (int e = 0; e < 2; e++) {
        snprintf(target[e], sizeof target[e], "%s/ratchet-%s", v->sub, which[e]);
        snprintf(vars[e][0], sizeof vars[e][0], "PARAMS=%s/%s.json", v->sub, which[e]);
        int n = snprintf(vars[e][1], sizeof vars[e][1], "BAKED_BIN=%s", target[e]);
        snprintf(vars[e][2], sizeof vars[e][2], "BAKED_DIR=%s/build-%s", v->sub, which[e]);
        snprintf(log[e], sizeof log[e], "%s/bake-%s.log", v->sub, which[e]);
        char *words[] = { vars[e][0], vars[e][1], vars[e][2], target[e], NULL };
        /* v->sub is shorter than PATH_MAX + 32, so nothing is truncated; a
         * truncated BAKED_BIN would count as a failed build. */
        pid[e] = n < (int)sizeof vars[e][1] ? start_make(root, log[e], words) : -1;
    }
    int res[2];
    for (int e = 0; e < 2; e++)
        res[e] = pid[e] < 0 ? -1 : wait_make(pid[e]);
    for (int e = 0; e < 2; e++) {
        if (res[e] != 0) {
            char tail[1024];
            log_tail(log[e], tail, sizeof tail);
            return errmsg(err, errlen, "bake: building %s failed (exit %d; the log is %s):\n%s(-bake no plays the "
                          "values as UCI options instead)", target[e], res[e], log[e], tail);
        }
        snprintf(cmd[e], sizeof cmd[e], "%s", target[e]);
    }
    return 0;
}
