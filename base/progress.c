/* The progress line; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cliutil.h"

void progress_start(Progress *p, int64_t tty_ms, int64_t log_ms, int64_t now)
{
    *p = (Progress){ .tty = cli_live_progress(), .tty_ms = tty_ms, .log_ms = log_ms, .last = now };
}

bool progress_due(Progress *p, int64_t now, bool force)
{
    if (!force && now - p->last < (p->tty ? p->tty_ms : p->log_ms))
        return false;
    p->last = now;
    return true;
}

void progress_show(Progress *p, const char *line)
{
    p->shown = true;
    if (!p->tty) {
        printf("%s\n", line);
    } else {
        struct winsize ws;
        int width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col - 1 : 159;
        printf("\r%.*s\033[K", width, line);
        p->open = true;
    }
    fflush(stdout);
}

void progress_clear(Progress *p)
{
    if (p->open)
        printf("\r\033[K");
    p->open = false;
}

void progress_end(Progress *p)
{
    if (p->open)
        putchar('\n');
    p->open = false;
    fflush(stdout);
}
