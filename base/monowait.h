/* Timed waits on a condition variable counted on the monotonic clock, so
 * that a wall clock set back (by NTP or by hand) does not stretch them: a
 * wait on CLOCK_REALTIME for 100 ms lasts an hour when the clock goes back
 * an hour in it. */
#ifndef RATCHET_MONOWAIT_H
#define RATCHET_MONOWAIT_H

#include <pthread.h>

/* pthread_cond_init for a variable that mono_cond_wait_us waits on. */
int mono_cond_init(pthread_cond_t *cv);
/* pthread_cond_timedwait for at most us microseconds (mu held, as there);
 * its result (0, or ETIMEDOUT). */
int mono_cond_wait_us(pthread_cond_t *cv, pthread_mutex_t *mu, long us);

#endif
