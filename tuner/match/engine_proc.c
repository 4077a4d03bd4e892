/* One UCI engine process: spawn, pipes, line reading with deadlines, kill,
 * restart, and the start-up handshake.  See engine_proc.h. */
#include "errmsg.h"
#include "engine_proc.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
    BUF_INITIAL = 16 * 1024,
    BUF_MAX = 1024 * 1024,      /* a longer line is dropped */
    SLICE_MS = 200,             /* how often a long wait checks *stop and the leader */
    WRITE_DEADLINE_MS = 5000,
    MAX_ARGS = 256
};

int64_t ep_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- log ---------------------------------------------------------------- */

int ep_log_open(EpLog *log, const char *path, char *err, size_t errlen)
{
    const char *why;
    log->f = fopen_regular(path, "a", &why);
    if (!log->f)
        return errmsg(err, errlen, "cannot open log file '%s': %s", path, why);
    pthread_mutex_init(&log->mu, NULL);
    log->t0 = ep_now_ms();
    return 0;
}

void ep_log_close(EpLog *log)
{
    if (!log || !log->f)
        return;
    fclose(log->f);
    log->f = NULL;
    pthread_mutex_destroy(&log->mu);
}

void ep_log_printf(EpLog *log, const char *fmt, ...)
{
    if (!log || !log->f)
        return;
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&log->mu);
    int64_t t = ep_now_ms() - log->t0;
    fprintf(log->f, "[%lld.%03lld] ", (long long)(t / 1000), (long long)(t % 1000));
    vfprintf(log->f, fmt, ap);
    fputc('\n', log->f);
    fflush(log->f);
    pthread_mutex_unlock(&log->mu);
    va_end(ap);
}

/* ---- process ------------------------------------------------------------ */

void ep_init(EngineProc *e, const EngineLaunch *launch)
{
    memset(e, 0, sizeof *e);
    e->launch = *launch;
    e->pid = -1;
    e->to_fd = e->from_fd = -1;
    e->eof = true;
}

bool ep_running(const EngineProc *e) { return e->pid > 0; }

static const char *ename(const EngineProc *e) { return e->launch.name ? e->launch.name : "engine"; }

/* The program to run: cmd itself when it has a '/', else the first
 * executable cmd in PATH (resolved before fork: the child only execs). */
static int resolve_cmd(const char *cmd, char *out, size_t len)
{
    if (strchr(cmd, '/')) {
        if (strlen(cmd) >= len)
            return ENAMETOOLONG;
        strcpy(out, cmd);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n + 1 + strlen(cmd) < len) {
            if (n == 0)
                snprintf(out, len, "%s", cmd);
            else
                snprintf(out, len, "%.*s/%s", (int)n, p, cmd);
            if (access(out, X_OK) == 0)
                return 0;
        }
        p += n + (p[n] == ':');
    }
    return ENOENT;
}

/* fork/exec rather than posix_spawn for one thing posix_spawn cannot do: the
 * child asks for SIGKILL when the thread that started it dies, so engines do
 * not outlive a runner that was killed (a hung engine never sees EOF). */
static int spawn(EngineProc *e, char *err, size_t errlen)
{
    char path[4096];
    int rc = resolve_cmd(e->launch.cmd, path, sizeof path);
    if (rc != 0)
        return errmsg(err, errlen, "engine '%s': cannot start '%s': %s", ename(e), e->launch.cmd, strerror(rc));
    const char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = e->launch.cmd;
    for (int i = 0; e->launch.argv && e->launch.argv[i] && argc < MAX_ARGS + 1; i++)
        argv[argc++] = e->launch.argv[i];
    argv[argc] = NULL;
    const char *dir = e->launch.dir && e->launch.dir[0] ? e->launch.dir : NULL;
    const bool merge = e->launch.merge_stderr;

    int in[2], out[2], st[2];
    if (pipe2(in, O_CLOEXEC) < 0)
        return errmsg(err, errlen, "engine '%s': pipe: %s", ename(e), strerror(errno));
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
        errmsg(err, errlen, "engine '%s': pipe: %s", ename(e), strerror(errno));
        close(in[0]);
        close(in[1]);
        return -1;
    }

    /* No handler of ours may run in the child before exec. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* The child: async-signal-safe calls only. */
        setpgid(0, 0); /* its own group: Ctrl-C spares it, kill takes all */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                sigaction(sig, &dfl, NULL); /* ignored signals would survive exec */
        int er = 0;
        if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0
            || (merge && dup2(out[1], STDERR_FILENO) < 0))
            er = errno;
        if (in[0] == STDIN_FILENO)
            fcntl(STDIN_FILENO, F_SETFD, 0);
        if (out[1] == STDOUT_FILENO)
            fcntl(STDOUT_FILENO, F_SETFD, 0);
        if (!er && dir && chdir(dir) < 0)
            er = errno;
        if (!er) {
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, NULL);
            execve(path, (char *const *)argv, environ);
            er = errno;
        }
        ssize_t wr = write(st[1], &er, sizeof er);
        (void)wr;
        _exit(127);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(in[0]);
    close(out[1]);
    close(st[1]);
    int er = 0;
    if (pid < 0) {
        er = fork_errno;
    } else {
        setpgid(pid, pid); /* also from here, so the group exists when we return */
        ssize_t n;
        do
            n = read(st[0], &er, sizeof er);
        while (n < 0 && errno == EINTR);
        if (n != (ssize_t)sizeof er)
            er = 0; /* EOF: the exec succeeded and closed the pipe */
        else
            waitpid(pid, NULL, 0);
    }
    close(st[0]);
    if (er) {
        close(in[1]);
        close(out[0]);
        if (dir)
            errmsg(err, errlen, "engine '%s': cannot start '%s' in directory '%s': %s", ename(e), e->launch.cmd, dir,
                   strerror(er));
        else
            errmsg(err, errlen, "engine '%s': cannot start '%s': %s", ename(e), e->launch.cmd, strerror(er));
        return -1;
    }
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    e->pid = pid;
    e->to_fd = in[1];
    e->from_fd = out[0];
    e->eof = false;
    e->discarding = false;
    e->reaped = false;
    e->status = 0;
    e->start = e->scan = e->len = 0;
    if (!e->buf) {
        e->buf = malloc(BUF_INITIAL);
        if (!e->buf) {
            errmsg(err, errlen, "out of memory");
            ep_kill(e);
            return -1;
        }
        e->cap = BUF_INITIAL;
    }
    ep_log_printf(e->launch.log, "started %s as pid %d: %s", ename(e), (int)pid, e->launch.cmd);
    return 0;
}

/* Has the leader exited?  Leaves it unreaped so its pid, which is also the
 * group id, cannot be reused before ep_kill has signalled the group. */
static bool leader_dead(const EngineProc *e)
{
    if (e->pid <= 0)
        return true;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)e->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
        return errno == ECHILD;
    return si.si_pid == e->pid;
}

void ep_kill(EngineProc *e)
{
    if (e->pid > 0) {
        kill(-e->pid, SIGKILL);
        kill(e->pid, SIGKILL);
        int st = 0;
        pid_t r;
        do
            r = waitpid(e->pid, &st, 0);
        while (r < 0 && errno == EINTR);
        if (r == e->pid) {
            e->status = st;
            e->reaped = true;
        }
        ep_log_printf(e->launch.log, "stopped %s (pid %d)", ename(e), (int)e->pid);
        e->pid = -1;
    }
    if (e->to_fd >= 0)
        close(e->to_fd);
    if (e->from_fd >= 0)
        close(e->from_fd);
    e->to_fd = e->from_fd = -1;
    e->eof = true;
    e->start = e->scan = e->len = 0;
}

void ep_describe_exit(const EngineProc *e, char *buf, size_t len)
{
    if (e->pid > 0)
        snprintf(buf, len, "still running");
    else if (!e->reaped)
        snprintf(buf, len, "not started");
    else if (WIFEXITED(e->status))
        snprintf(buf, len, "exited with code %d", WEXITSTATUS(e->status));
    else if (WIFSIGNALED(e->status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(e->status), strsignal(WTERMSIG(e->status)));
    else
        snprintf(buf, len, "ended with status %d", e->status);
}

void ep_destroy(EngineProc *e)
{
    ep_kill(e);
    free(e->buf);
    free(e->optnames);
    e->buf = NULL;
    e->optnames = NULL;
    e->cap = e->optcap = e->optlen = 0;
}

/* ---- writing ------------------------------------------------------------ */

static void log_lines(EngineProc *e, const char *data, size_t len)
{
    if (!e->launch.log || !e->launch.log->f)
        return;
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        ep_log_printf(e->launch.log, ">%s: %.*s", ename(e), (int)n, data);
        if (!nl)
            break;
        len -= n + 1;
        data = nl + 1;
    }
}

int ep_write(EngineProc *e, const char *data, size_t len, int64_t deadline)
{
    if (e->to_fd < 0)
        return -1;
    log_lines(e, data, len);
    while (len > 0) {
        ssize_t n = write(e->to_fd, data, len);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int64_t left = deadline - ep_now_ms();
            if (left <= 0 || leader_dead(e))
                return -1;
            struct pollfd p = { .fd = e->to_fd, .events = POLLOUT };
            poll(&p, 1, (int)(left < SLICE_MS ? left : SLICE_MS));
            continue;
        }
        return -1; /* EPIPE: the engine is gone */
    }
    return 0;
}

int ep_send(EngineProc *e, const char *line)
{
    char small[512];
    size_t n = strlen(line);
    if (n + 1 <= sizeof small) {
        memcpy(small, line, n);
        small[n] = '\n';
        return ep_write(e, small, n + 1, ep_now_ms() + WRITE_DEADLINE_MS);
    }
    if (ep_write(e, line, n, ep_now_ms() + WRITE_DEADLINE_MS) < 0)
        return -1;
    return ep_write(e, "\n", 1, ep_now_ms() + WRITE_DEADLINE_MS);
}

/* ---- reading ------------------------------------------------------------ */

/* Make room for reading: compact, grow, or start discarding. */
static void make_room(EngineProc *e)
{
    if (e->start > 0 && (e->len == e->cap || e->start >= e->cap / 2)) {
        memmove(e->buf, e->buf + e->start, e->len - e->start);
        e->len -= e->start;
        e->scan -= e->start;
        e->start = 0;
    }
    if (e->len < e->cap)
        return;
    if (e->cap < BUF_MAX) {
        char *nb = realloc(e->buf, e->cap * 2);
        if (nb) {
            e->buf = nb;
            e->cap *= 2;
            return;
        }
    }
    /* A line longer than BUF_MAX: drop what we have, and the rest of it. */
    e->discarding = true;
    e->start = e->scan = e->len = 0;
}

EpWait ep_read_line(EngineProc *e, int64_t deadline, const atomic_int *stop, const char **line)
{
    for (;;) {
        if (e->scan < e->len) {
            char *nl = memchr(e->buf + e->scan, '\n', e->len - e->scan);
            if (nl) {
                char *s = e->buf + e->start;
                size_t n = (size_t)(nl - s);
                e->start = e->scan = (size_t)(nl - e->buf) + 1;
                if (e->discarding) {
                    e->discarding = false;
                    continue;
                }
                if (n > 0 && s[n - 1] == '\r')
                    n--;
                s[n] = '\0';
                if (e->launch.log && e->launch.log->f)
                    ep_log_printf(e->launch.log, "<%s: %s", ename(e), s);
                *line = s;
                return EP_LINE;
            }
            e->scan = e->len;
        }
        if (e->eof || e->from_fd < 0)
            return EP_EOF;
        make_room(e);

        int64_t left = deadline - ep_now_ms();
        if (left <= 0)
            return EP_TIMEOUT;
        struct pollfd p = { .fd = e->from_fd, .events = POLLIN };
        int r = poll(&p, 1, (int)(left < SLICE_MS ? left : SLICE_MS));
        if (r < 0 && errno != EINTR)
            r = 0;
        if (r <= 0) {
            if (stop && *stop)
                return EP_STOPPED;
            /* Dead leader whose pipe a stray child still holds: that is EOF too. */
            if (r == 0 && leader_dead(e)) {
                e->eof = true;
                ep_log_printf(e->launch.log, "%s: process ended (pipe still open)", ename(e));
            }
            continue;
        }
        ssize_t n = read(e->from_fd, e->buf + e->len, e->cap - e->len);
        if (n > 0)
            e->len += (size_t)n;
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            e->eof = true;
            ep_log_printf(e->launch.log, "%s: end of output", ename(e));
        }
    }
}

EpWait ep_wait_for(EngineProc *e, const char *token, int64_t deadline, const atomic_int *stop)
{
    size_t tl = strlen(token);
    for (;;) {
        const char *s;
        EpWait w = ep_read_line(e, deadline, stop, &s);
        if (w != EP_LINE)
            return w;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, token, tl) == 0 && (s[tl] == '\0' || s[tl] == ' ' || s[tl] == '\t'))
            return EP_LINE;
    }
}

/* ---- handshake ---------------------------------------------------------- */

static void remember_option(EngineProc *e, const char *s)
{
    /* "option name <name words> type ..." */
    const char *name = s + strlen("option name ");
    const char *end = strstr(name, " type ");
    size_t n = end ? (size_t)(end - name) : strlen(name);
    while (n > 0 && name[n - 1] == ' ')
        n--;
    if (e->optlen + n + 1 > e->optcap) {
        size_t cap = e->optcap ? e->optcap * 2 : 1024;
        while (cap < e->optlen + n + 1)
            cap *= 2;
        char *nb = realloc(e->optnames, cap);
        if (!nb)
            return;
        e->optnames = nb;
        e->optcap = cap;
    }
    memcpy(e->optnames + e->optlen, name, n);
    e->optnames[e->optlen + n] = '\0';
    e->optlen += n + 1;
}

bool ep_has_option(const EngineProc *e, const char *name)
{
    for (size_t i = 0; i < e->optlen; i += strlen(e->optnames + i) + 1)
        if (strcasecmp(e->optnames + i, name) == 0)
            return true;
    return false;
}

bool ep_handshake_line(EngineProc *e, const char *s)
{
    while (*s == ' ')
        s++;
    if (strcmp(s, "uciok") == 0)
        return true;
    if (strncmp(s, "option name ", 12) == 0)
        remember_option(e, s);
    else if (strncmp(s, "id name ", 8) == 0) {
        /* a control character (an escape sequence) becomes '?': the name
         * reaches the terminal, PGN tags, state.json and the report */
        snprintf(e->id_name, sizeof e->id_name, "%s", s + 8);
        for (char *c = e->id_name; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    }
    return false;
}

static int fail_start(EngineProc *e, EpWait w, const char *what, char *err, size_t errlen)
{
    char how[96];
    if (w == EP_TIMEOUT) {
        ep_kill(e);
        errmsg(err, errlen, "engine '%s' (%s) did not answer %s within %.1f s", ename(e), e->launch.cmd, what,
               (double)e->launch.startup_ms / 1000.0);
    } else {
        ep_kill(e);
        ep_describe_exit(e, how, sizeof how);
        errmsg(err, errlen, "engine '%s' (%s) %s while waiting for %s", ename(e), e->launch.cmd, how, what);
    }
    return -1;
}

/* A write to an engine that just died must fail with EPIPE, not end the
 * process: SIGPIPE is ignored unless the program handles it itself. */
static void ignore_sigpipe(void)
{
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
        sa.sa_handler = SIG_IGN;
        sigaction(SIGPIPE, &sa, NULL);
    }
}

int ep_start(EngineProc *e, char *err, size_t errlen)
{
    ignore_sigpipe();
    if (e->pid > 0)
        ep_kill(e);
    if (spawn(e, err, errlen) < 0)
        return -1;
    e->optlen = 0;
    e->id_name[0] = '\0';

    int64_t deadline = ep_now_ms() + e->launch.startup_ms;
    if (ep_write(e, "uci\n", 4, deadline) < 0)
        return fail_start(e, EP_EOF, "'uciok'", err, errlen);
    for (;;) {
        const char *s;
        EpWait w = ep_read_line(e, deadline, NULL, &s);
        if (w != EP_LINE)
            return fail_start(e, w, "'uci' with 'uciok'", err, errlen);
        if (ep_handshake_line(e, s))
            break;
    }

    /* The options and one isready in a single write. */
    size_t need = 16 + (size_t)e->launch.nopts * (sizeof(EngineOption) + 32);
    char *msg = malloc(need);
    if (!msg) {
        ep_kill(e);
        return errmsg(err, errlen, "out of memory");
    }
    size_t n = 0;
    for (int i = 0; i < e->launch.nopts; i++)
        n = appendf(msg, need, n, "setoption name %s value %s\n", e->launch.opts[i].name,
                              e->launch.opts[i].value);
    n = appendf(msg, need, n, "isready\n");
    deadline = ep_now_ms() + e->launch.startup_ms;
    int wr = ep_write(e, msg, n, deadline);
    free(msg);
    if (wr < 0)
        return fail_start(e, EP_EOF, "'readyok'", err, errlen);
    EpWait w = ep_wait_for(e, "readyok", deadline, NULL);
    if (w != EP_LINE)
        return fail_start(e, w, "'isready' with 'readyok'", err, errlen);
    return 0;
}

int ep_restart(EngineProc *e, char *err, size_t errlen)
{
    ep_kill(e);
    return ep_start(e, err, errlen);
}

void ep_quit(EngineProc *e, int64_t grace_ms)
{
    if (e->pid <= 0) {
        ep_kill(e);
        return;
    }
    int64_t deadline = ep_now_ms() + grace_ms;
    if (ep_write(e, "quit\n", 5, deadline) == 0) {
        const char *s;
        while (ep_read_line(e, deadline, NULL, &s) == EP_LINE)
            ;
    }
    ep_kill(e);
}

/* ---- args="..." --------------------------------------------------------- */

char **ep_split_args(const char *s, char *err, size_t errlen)
{
    size_t n = strlen(s);
    char **argv = calloc(n / 2 + 2, sizeof *argv);
    char *word = malloc(n + 1);
    if (!argv || !word) {
        free(argv);
        free(word);
        errmsg(err, errlen, "out of memory");
        return NULL;
    }
    int argc = 0;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t w = 0;
        char quote = 0;
        for (; *p; p++) {
            if (quote) {
                if (*p == quote)
                    quote = 0;
                else if (*p == '\\' && quote == '"' && p[1])
                    word[w++] = *++p;
                else
                    word[w++] = *p;
            } else if (*p == '\'' || *p == '"') {
                quote = *p;
            } else if (*p == '\\' && p[1]) {
                word[w++] = *++p;
            } else if (*p == ' ' || *p == '\t') {
                break;
            } else {
                word[w++] = *p;
            }
        }
        if (quote) {
            errmsg(err, errlen, "unbalanced %c quote in arguments \"%s\"", quote, s);
            word[0] = 0;
            argv[argc] = NULL;
            ep_free_argv(argv);
            free(word);
            return NULL;
        }
        argv[argc] = malloc(w + 1);
        if (!argv[argc])
            break;
        memcpy(argv[argc], word, w);
        argv[argc][w] = '\0';
        argc++;
    }
    argv[argc] = NULL;
    free(word);
    return argv;
}

void ep_free_argv(char **argv)
{
    if (!argv)
        return;
    for (int i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* A count of a wdl triple: digits only, at most 10^9; else -1. */
static long wdl_count(const char *tok)
{
    if (!tok || !*tok || strspn(tok, "0123456789") != strlen(tok) || strlen(tok) > 10)
        return -1;
    long v = strtol(tok, NULL, 10);
    return v <= 1000000000L ? v : -1;
}

int ep_wdl_read(const char *line, double *expected)
{
    if (strncmp(line, "info ", 5) || !strncmp(line, "info string", 11))
        return 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    long w = -1, d = -1, l = -1;
    bool has = false, bad = false, other_pv = false;
    char *save, *tok = strtok_r(buf, " \t", &save);
    while (tok) {
        if (!strcmp(tok, "multipv")) {
            tok = strtok_r(NULL, " \t", &save);
            if (tok && strcmp(tok, "1"))
                other_pv = true;
        } else if (!strcmp(tok, "wdl")) {
            has = true;
            w = wdl_count(strtok_r(NULL, " \t", &save));
            d = wdl_count(strtok_r(NULL, " \t", &save));
            l = wdl_count(strtok_r(NULL, " \t", &save));
            if (w < 0 || d < 0 || l < 0 || w + d + l == 0)
                bad = true;
        }
        if (tok)
            tok = strtok_r(NULL, " \t", &save);
    }
    if (!has || other_pv)
        return 0;
    if (bad)
        return -1;
    *expected = (w + d / 2.0) / (double)(w + d + l);
    return 1;
}

double ep_wdl_expected(const char *line)
{
    double e;
    return ep_wdl_read(line, &e) == 1 ? e : -1;
}
