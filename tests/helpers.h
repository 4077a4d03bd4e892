/* What the tests that run whole subcommands share: a temporary directory
 * per test with the fake SPSA engine's spec and a small book in it,
 * argument lists, child processes, their logs and their output. */
#ifndef RATCHET_TEST_HELPERS_H
#define RATCHET_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

extern char tmp[128];                 /* the test's directory ("" = none) */

/* mkdtemp(template) into tmp, then tmp/spec.txt (Alpha, Beta, Gamma as
 * OpenBench lines, the options of build/fake/fakespsa) and tmp/book.epd
 * (four openings). */
void tmp_create(const char *template);
void tmp_remove(void);                /* tmp and all in it; a suite's .fini */
void write_file(const char *name, const char *text);  /* tmp/name */
/* tmp/name: n distinct openings, two plies from the start (n <= 400) or three
 * (n up to several thousand). */
void write_book(const char *name, int n);
void put(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));  /* tmp/name */
char *slurp(const char *name);        /* tmp/name, malloc'd; fails the test if unreadable */
char *read_text(const char *path);    /* the file at path, malloc'd; NULL if unreadable */

typedef struct {
    char *v[80];
    int n;
} Args;
void add(Args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The formatted line's words, each appended as add does:
 * add_line(&a, "-spsa games=%d -srand 7", 40) adds "-spsa", "games=40",
 * "-srand" and "7".  The line is split by ep_split_args, the splitter of an
 * engine's args= (and the tests' one splitter): blanks separate the words.
 * The tests' lines need no quoting, so a word that holds a space is added
 * with add, and so is a value from a variable that could hold a blank, a
 * quote or a backslash (which ep_split_args would take as a separator, a
 * grouping or an escape).  test_match.c's configure() is the exception:
 * its fastchess lines quote args="--seed 1" as a user's shell would. */
void add_line(Args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void args_free(Args *a);

/* The run directory tmp/dir: the rows of its history.csv (0 when there is
 * none); waits until it has at least n rows, failing the test if the child
 * ends first.  (load_state: helpers_state.h.) */
int history_rows(const char *dir);
void wait_rows(const char *dir, int n, pid_t child);

#define FAKESPSA_PATH "build/fake/fakespsa"
/* `run` of `games` games of build/fake/fakespsa on tmp/spec.txt and
 * tmp/book.epd into tmp/DIR, at nodes=1 (-srand 7). */
Args fake_run_args(const char *dir, int games, int think_ms, int concurrency);

/* In a forked child: stdout and stderr into tmp/log (exit 99 if it cannot). */
void child_output(const char *log);
/* Exit code, or 1000 + signal. */
int wait_child(pid_t pid);
/* A command's main function, run in a forked child. */
typedef int (*MainFn)(int, char **);
/* fork; the child runs fn(a) with stdout and stderr into tmp/LOG. */
pid_t spawn(MainFn fn, Args *a, const char *log);
/* spawn, wait for the child, free a; the child's exit code. */
int run_to_end(MainFn fn, Args *a, const char *log);

/* Busy work: one forked process per CPU this process may run on, each
 * spinning until spin_stop, its test's end or SPIN_LIMIT_S; the count
 * (their pids into pids[0..]). */
#define SPIN_LIMIT_S 200.0
int mask_cpus(void); /* the CPUs of this process's affinity mask */
int spin_cpus(pid_t *pids, int max);
void spin_stop(const pid_t *pids, int n);
/* spawn fn(a) while every CPU spins, and keep them spinning until tmp/LOG
 * holds `marker` (the run's machine check has seen the load) or the child
 * has ended; the child's pid, not reaped. */
pid_t spawn_while_busy(MainFn fn, Args *a, const char *log, const char *marker);
/* spawn_while_busy, wait for the child, free a; the child's exit code. */
int run_while_busy(MainFn fn, Args *a, const char *log, const char *marker);

/* stderr into a temporary file between begin and end; end copies what was
 * written into out (NUL-terminated, cut to outlen). */
typedef struct {
    void *file;
    int saved;
} StderrCapture;
void stderr_capture_begin(StderrCapture *c);
void stderr_capture_end(StderrCapture *c, char *out, size_t outlen);

/* For the tests that run bin/ratchet-tune as a user does, from a test's .init
 * after tmp exists: SIGPIPE ignored, bin/ratchet-tune and the fake engines
 * built, tmp/spec2.txt (Alpha, Beta) and tmp/book.epd cut to two openings. */
void command_fixture(void);

/* The output (stdout and stderr) of the last shell() or child_start() child. */
extern char out[1 << 17];

/* `sh -c CMD` with stdout and stderr into out; the exit code (1000 + signal). */
int shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A spawned process whose output (stdout and stderr) is read from a pipe into out. */
typedef struct {
    pid_t pid;
    int fd;
    size_t n;
} Child;
/* argv[0] is a path; own_group puts the child in a process group of its own. */
Child child_start(char *const argv[], bool own_group);
/* Reads output until `text` appears (true) or EOF / timeout (false). */
bool child_read_until(Child *c, const char *text, int timeout_ms);
/* Waits at most timeout_ms for the child; its exit code, 1000 + signal, or -1. */
int child_finish(Child *c, int timeout_ms);
/* Whether path exists within timeout_ms. */
bool wait_for_file(const char *path, int timeout_ms);
/* A legal game from the start position longer than a Position's history
 * (LONG_GAME_PLIES plies): 28 blocks of one pawn move (White's and Black's
 * in turn) and 96 plies of knight shuffles (g1f3 g8f6 f3g1 f6g8), then
 * g1f3, so Black is to move.  Move i (0-based) in UCI notation into buf. */
#define LONG_GAME_PLIES (28 * 97 + 1)
#define LONG_GAME_FEN "rnbqkbnr/5p2/8/ppppp1pp/PPPPP1PP/5N2/5P2/RNBQKB1R b KQkq - 97 1359"
void long_game_move(int i, char buf[8]);

/* The first "inf" in s that stands as a word or a number's sign ("+inf",
 * "inf Elo", "&plusmn; inf"), not inside one ("info"), or NULL. */
const char *an_infinity(const char *s);

/* The games of tmp/NAME whose Event begins with `mark`, by Round: counts[r]
 * for Round r in 1..nrounds (counts has nrounds + 1 entries, counts[0]
 * any other Round); the return value counts the file's other games. */
int pgn_games_by_round(const char *name, const char *mark, int *counts, int nrounds);

#endif
