/* Background checkpoints of a run; see saver.h. */
#include "saver.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "rd.h"
#include "state.h"

struct Saver {
    History *hist;
    char *state_path;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *rows;           /* queued rows */
    size_t rows_len, rows_cap;
    char *state;          /* newest queued state, or NULL */
    bool quit, failed;
    char err[512];
};

static void *saver_main(void *arg)
{
    Saver *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->quit && s->rows_len == 0 && !s->state)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->rows_len == 0 && !s->state)
            break; /* quit with nothing left */
        char *rows = s->rows, *state = s->state;
        size_t len = s->rows_len;
        s->rows = NULL;
        s->rows_len = s->rows_cap = 0;
        s->state = NULL;
        bool failed = s->failed;
        pthread_mutex_unlock(&s->mu);

        char err[512] = "";
        int rc = 0;
        if (!failed && state)
            rc = runstate_check_text(state, s->state_path, err, sizeof err); /* before its rows */
        if (!failed && rc == 0 && len > 0)
            rc = hist_write(s->hist, rows, len, err, sizeof err);
        if (!failed && rc == 0 && state)
            rc = rd_write_atomic(s->state_path, state, strlen(state), err, sizeof err);
        free(rows);
        free(state);

        pthread_mutex_lock(&s->mu);
        if (rc < 0 && !s->failed) {
            s->failed = true;
            snprintf(s->err, sizeof s->err, "%s", err);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

Saver *saver_start(History *hist, const char *state_path, char *err, size_t errlen)
{
    Saver *s = calloc(1, sizeof *s);
    if (!s || !(s->state_path = strdup(state_path))) {
        free(s);
        errmsg(err, errlen, "out of memory");
        return NULL;
    }
    s->hist = hist;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->thread, NULL, saver_main, s) != 0) {
        errmsg(err, errlen, "cannot create the checkpoint thread");
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s->state_path);
        free(s);
        return NULL;
    }
    return s;
}

void saver_push(Saver *s, char *row, size_t len, char *state)
{
    pthread_mutex_lock(&s->mu);
    if (s->rows_len + len > s->rows_cap) {
        size_t cap = s->rows_cap ? s->rows_cap : 4096;
        while (cap < s->rows_len + len)
            cap *= 2;
        char *nb = realloc(s->rows, cap);
        if (!nb) {
            s->failed = true;
            snprintf(s->err, sizeof s->err, "out of memory queueing a checkpoint");
        } else {
            s->rows = nb;
            s->rows_cap = cap;
        }
    }
    if (len > 0 && s->rows_len + len <= s->rows_cap) { /* len 0: a state with no row (a validation pair) */
        memcpy(s->rows + s->rows_len, row, len);
        s->rows_len += len;
    }
    free(s->state);
    s->state = state;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    free(row);
}

bool saver_failed(Saver *s, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->mu);
    bool f = s->failed;
    if (f && err)
        errmsg(err, errlen, "%s", s->err);
    pthread_mutex_unlock(&s->mu);
    return f;
}

int saver_finish(Saver *s, char *err, size_t errlen)
{
    if (!s)
        return 0;
    pthread_mutex_lock(&s->mu);
    s->quit = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    int rc = s->failed ? -1 : 0;
    if (rc < 0)
        errmsg(err, errlen, "%s", s->err);
    free(s->rows);
    free(s->state);
    free(s->state_path);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
    return rc;
}
