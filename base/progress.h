/* The progress line of a long-running command (run, match, verify, verify
 * -ablate): on a terminal one line redrawn in place ("\r...\033[K", cut to
 * the terminal's width), otherwise a plain line each time, each at most as
 * often as the command asks. */
#ifndef RATCHET_PROGRESS_H
#define RATCHET_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool tty;             /* a terminal (cli_live_progress): the line is redrawn */
    bool open;            /* a terminal line is shown without its newline */
    bool shown;           /* a line has been shown */
    int64_t tty_ms, log_ms; /* the least time between two lines, on a terminal and not */
    int64_t last;         /* when the last line was shown (ms) */
} Progress;

/* A new progress line at now (ms): the first is due after the interval. */
void progress_start(Progress *p, int64_t tty_ms, int64_t log_ms, int64_t now);
/* Whether a line is due at now (always when force); true marks it shown then. */
bool progress_due(Progress *p, int64_t now, bool force);
/* Shows line: redrawn on a terminal, a line of its own otherwise; stdout flushed. */
void progress_show(Progress *p, const char *line);
/* Before other output: an open terminal line is cleared (erase) or ended
 * with a newline (keep). */
void progress_clear(Progress *p);
void progress_end(Progress *p);

#endif
