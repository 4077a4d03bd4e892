/* The stop on SIGINT or SIGTERM; see stopsig.h. */
#include "stopsig.h"

#include <string.h>
#include <unistd.h>

atomic_int stopsig_flag;
static atomic_int g_signal;
static const char *g_note = "";

static void on_signal(int sig)
{
    /* The second signal, not the flag: the flag alone may mean a failed
     * save or a verdict, after which the user's Ctrl-C is the first. */
    if (g_signal) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stopsig_flag = 1;
    g_signal = sig;
    ssize_t w = write(STDERR_FILENO, g_note, strlen(g_note));
    (void)w;
}

void stopsig_install(StopSig *s, const char *note)
{
    stopsig_flag = 0;
    g_signal = 0;
    g_note = note;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &s->old_int);
    sigaction(SIGTERM, &sa, &s->old_term);
}

void stopsig_restore(const StopSig *s)
{
    sigaction(SIGINT, &s->old_int, NULL);
    sigaction(SIGTERM, &s->old_term, NULL);
}

void stopsig_request(void)
{
    stopsig_flag = 1;
}

int stopsig_signal(void)
{
    return g_signal;
}
