/* The live report of a run; see reporter.h. */
#include "reporter.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "htmlreport.h"
#include "monowait.h"
#include "state.h"

struct Reporter {
    char dir[PATH_MAX];
    char out[PATH_MAX + 16];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool quit, warned;
    struct timespec seen;  /* mtime of the state the last page was drawn from */
    double last_write;     /* monotonic seconds of the last write start */
    double interval;
};

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void write_page(Reporter *r, HtmlRunMode mode)
{
    char err[1024];
    double t0 = mono_now();
    if (htmlreport_run(r->dir, r->out, mode, err, sizeof err) < 0) {
        if (!r->warned)
            fprintf(stderr, "\nratchet-tune: warning: the report could not be written: %s\n", err);
        r->warned = true;
    }
    double cost = mono_now() - t0;
    r->last_write = t0;
    r->interval = cost * REPORTER_COST_RATIO > REPORTER_MIN_S ? cost * REPORTER_COST_RATIO : REPORTER_MIN_S;
}

/* A checkpoint since the last page? */
static bool state_changed(Reporter *r)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", r->dir, STATE_FILE);
    struct stat sb;
    if (stat(path, &sb) < 0)
        return false;
    if (sb.st_mtim.tv_sec == r->seen.tv_sec && sb.st_mtim.tv_nsec == r->seen.tv_nsec)
        return false;
    r->seen = sb.st_mtim;
    return true;
}

static void *reporter_main(void *arg)
{
    Reporter *r = arg;
    pthread_mutex_lock(&r->mu);
    bool pending = false;
    while (!r->quit) {
        mono_cond_wait_us(&r->cv, &r->mu, 1000000L);
        if (r->quit)
            break;
        pthread_mutex_unlock(&r->mu);
        pending |= state_changed(r);
        if (pending && mono_now() - r->last_write >= r->interval) {
            pending = false;
            write_page(r, HTML_RUN_LIVE);
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

Reporter *reporter_start(const char *dir)
{
    Reporter *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "ratchet-tune: warning: out of memory: no live report\n");
        return NULL;
    }
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->out, sizeof r->out, "%s/%s", dir, REPORT_FILE);
    r->last_write = -1e9;
    pthread_mutex_init(&r->mu, NULL);
    mono_cond_init(&r->cv);
    if (pthread_create(&r->thread, NULL, reporter_main, r) != 0) {
        fprintf(stderr, "ratchet-tune: warning: cannot start the report thread: no live report\n");
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        free(r);
        return NULL;
    }
    return r;
}

void reporter_finish(Reporter *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->quit = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    write_page(r, HTML_RUN_FINAL);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}
