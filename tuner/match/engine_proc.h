/* One UCI engine process seen from the runner: forked into its own process
 * group with close-on-exec pipes (and SIGKILL as its parent-death signal, so
 * it cannot outlive the thread that started it), read line by line with
 * deadlines, watched for EOF and for the death of its leader, killed with its
 * whole group, and started again.  Knows the UCI start-up handshake and
 * nothing of chess.  An engine must be stopped (ep_kill, ep_quit, ep_destroy)
 * by the thread that started it, or before that thread ends. */
#ifndef RATCHET_ENGINE_PROC_H
#define RATCHET_ENGINE_PROC_H

#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A UCI option to send with `setoption name NAME value VALUE`. */
typedef struct { char name[64]; char value[64]; } EngineOption;

/* Milliseconds of the monotonic clock. */
int64_t ep_now_ms(void);

/* An optional shared log of every line to and from the engines. */
typedef struct {
    FILE *f;
    pthread_mutex_t mu;
    int64_t t0;
} EpLog;
int ep_log_open(EpLog *log, const char *path, char *err, size_t errlen);
void ep_log_close(EpLog *log);
/* printf-style line into the log (a newline is added); no-op when log is NULL. */
void ep_log_printf(EpLog *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How to start an engine.  The strings must outlive the EngineProc. */
typedef struct {
    const char *name;          /* for messages and the log */
    const char *cmd;           /* program; searched in PATH when it has no '/' */
    char *const *argv;         /* extra arguments, NULL-terminated, or NULL */
    const char *dir;           /* working directory, or NULL / "" */
    const EngineOption *opts;  /* sent after uciok, before the first isready */
    int nopts;
    int64_t startup_ms;        /* deadline for uciok and for each readyok */
    EpLog *log;                /* or NULL */
    bool merge_stderr;         /* the engine's stderr into the same pipe as its
                                  stdout (else inherited): for the engine
                                  check, which reads a bench that Stockfish
                                  and its derivatives print to stderr */
} EngineLaunch;

typedef struct {
    EngineLaunch launch;
    pid_t pid;                 /* -1 when no process */
    int to_fd, from_fd;        /* engine's stdin (non-blocking), stdout */
    char *buf;                 /* read buffer: [start, len) unread, [scan, len) unscanned */
    size_t cap, start, scan, len;
    bool eof;                  /* stdout closed, or the leader died */
    bool discarding;           /* dropping an over-long line up to its newline */
    int status;                /* wait status of the last process, once reaped */
    bool reaped;
    char *optnames;            /* option names from the last handshake, NUL-separated */
    size_t optlen, optcap;
    char id_name[64];
} EngineProc;

typedef enum {
    EP_LINE,      /* a line was read */
    EP_TIMEOUT,   /* the deadline passed */
    EP_EOF,       /* the engine closed its stdout or died */
    EP_STOPPED    /* *stop became non-zero while waiting */
} EpWait;

/* Zero state; no process. */
void ep_init(EngineProc *e, const EngineLaunch *launch);
/* Spawn the process, then `uci` .. `uciok`, the launch options, `isready` ..
 * `readyok`, each within launch->startup_ms.  0, or -1 with a message naming
 * the engine in err (the process is then gone).  Sets SIGPIPE to SIG_IGN if
 * it was SIG_DFL, so that writing to a dead engine fails instead of killing
 * the program. */
int ep_start(EngineProc *e, char *err, size_t errlen);
bool ep_running(const EngineProc *e);
/* Write all of data, giving up at deadline (absolute ep_now_ms) or when the
 * engine has closed its stdin.  0 or -1. */
int ep_write(EngineProc *e, const char *data, size_t len, int64_t deadline);
int ep_send(EngineProc *e, const char *line); /* line + '\n', 5 s deadline */
/* The next line (without '\n' or '\r'), valid until the next call.  Waits at
 * most until deadline; checks *stop (if given) and the leader's life every
 * 200 ms while waiting. */
EpWait ep_read_line(EngineProc *e, int64_t deadline, const atomic_int *stop, const char **line);
/* Read lines until one equal to `token` (or starting with token + ' '). */
EpWait ep_wait_for(EngineProc *e, const char *token, int64_t deadline, const atomic_int *stop);
/* Did the engine advertise this option (case-insensitive) at start-up? */
bool ep_has_option(const EngineProc *e, const char *name);
/* One line of the answer to `uci`: remembers `option name` and `id name`;
 * true for `uciok` (ep_start's reading, public for the fuzz harness). */
bool ep_handshake_line(EngineProc *e, const char *s);
/* Kill the process group with SIGKILL, reap the leader, close the pipes. */
void ep_kill(EngineProc *e);
/* Send `quit`, give the engine grace_ms to exit, then ep_kill. */
void ep_quit(EngineProc *e, int64_t grace_ms);
/* ep_kill then ep_start. */
int ep_restart(EngineProc *e, char *err, size_t errlen);
/* "exited with code 3", "killed by signal 11", "still running". */
void ep_describe_exit(const EngineProc *e, char *buf, size_t len);
/* ep_kill and free the buffers. */
void ep_destroy(EngineProc *e);

/* Split an args="..." string into words: blanks separate, single and double
 * quotes group, backslash escapes.  Returns a NULL-terminated malloc'ed
 * array (free with ep_free_argv), or NULL with err set on an unbalanced quote. */
char **ep_split_args(const char *s, char *err, size_t errlen);
void ep_free_argv(char **argv);

/* The side to move's expected score, win + draw / 2 in [0, 1], from the
 * `wdl W D L` of an `info` line (UCI_ShowWDL); -1 when the line has none,
 * is an `info string`, has counts that are not plain numbers up to 10^9,
 * or belongs to another PV than the first (bin/ratchet-label's reading). */
double ep_wdl_expected(const char *line);
/* The same reading, telling apart a line without a usable wdl (0: none, an
 * `info string`, another PV) from one whose wdl is malformed (-1: counts
 * missing, not plain numbers up to 10^9, or all zero); 1 with *expected set. */
int ep_wdl_read(const char *line, double *expected);

#endif
