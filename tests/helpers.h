/* What the tests that run whole subcommands share (test_run.c, test_mpi.c):
 * a temporary directory per test with the fake SPSA engine's spec and a small
 * book in it, argument lists, child processes and their logs. */
#ifndef RATCHET_TEST_HELPERS_H
#define RATCHET_TEST_HELPERS_H

#include <stddef.h>
#include <sys/types.h>

extern char tmp[128];                 /* the test's directory ("" = none) */

/* mkdtemp(template) into tmp, then tmp/spec.txt (Alpha, Beta, Gamma as
 * OpenBench lines, the options of build/fake/fakespsa) and tmp/book.epd
 * (four openings). */
void tmp_create(const char *template);
void tmp_remove(void);                /* tmp and all in it; a suite's .fini */
void write_file(const char *name, const char *text);  /* tmp/name */
char *slurp(const char *name);        /* tmp/name, malloc'd; fails the test if unreadable */

typedef struct {
    char *v[80];
    int n;
} Args;
void add(Args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void args_free(Args *a);

/* In a forked child: stdout and stderr into tmp/log (exit 99 if it cannot). */
void child_output(const char *log);
/* Exit code, or 1000 + signal. */
int wait_child(pid_t pid);

/* stderr into a temporary file between begin and end; end copies what was
 * written into out (NUL-terminated, cut to outlen). */
typedef struct {
    void *file;
    int saved;
} StderrCapture;
void stderr_capture_begin(StderrCapture *c);
void stderr_capture_end(StderrCapture *c, char *out, size_t outlen);

/* A legal game from the start position longer than a Position's history
 * (LONG_GAME_PLIES plies): 28 blocks of one pawn move (White's and Black's
 * in turn) and 96 plies of knight shuffles (g1f3 g8f6 f3g1 f6g8), then
 * g1f3, so Black is to move.  Move i (0-based) in UCI notation into buf. */
#define LONG_GAME_PLIES (28 * 97 + 1)
#define LONG_GAME_FEN "rnbqkbnr/5p2/8/ppppp1pp/PPPPP1PP/5N2/5P2/RNBQKB1R b KQkq - 97 1359"
void long_game_move(int i, char buf[8]);

#endif
