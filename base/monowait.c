/* Timed waits on the monotonic clock; see monowait.h. */
#include "monowait.h"

#include <time.h>

int mono_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (rc == 0)
        rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
    return rc;
}

int mono_cond_wait_us(pthread_cond_t *cv, pthread_mutex_t *mu, long us)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += us / 1000000;
    until.tv_nsec += (us % 1000000) * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(cv, mu, &until);
}
