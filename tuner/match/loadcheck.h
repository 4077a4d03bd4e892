/* Whether this machine is free for games on the wall clock.  A game at
 * 2+0.02 whose engine shares its core with other work searches less than
 * its clock gives it and loses on time, so a match on the wall clock that
 * starts on a busy machine measures the load.  The check reads the CPU
 * times of /proc/stat (Linux) twice, over the CPUs this process may run on
 * (its affinity mask), while none of the match's engines runs: what it
 * finds busy is other work. */
#ifndef RATCHET_LOADCHECK_H
#define RATCHET_LOADCHECK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* The CPU time of a set of CPUs, in /proc/stat's ticks: busy is user,
 * nice, system, irq, softirq and steal; total adds idle and iowait. */
typedef struct {
    unsigned long long busy, total;
    int cpus;                      /* the per-CPU lines counted */
} CpuTimes;

/* One sample: of `cpus` CPUs, `busy` (in CPUs, 0..cpus) were in use over
 * `seconds`. */
typedef struct {
    int cpus;
    double busy;
    double seconds;
} LoadSample;

/* The other work a match of `concurrency` games may share the machine
 * with, per game, in CPUs: a tenth of a core is the system's own noise
 * (a shell, a logger); beyond it the engines lose a share of their clock
 * that shows in the games. */
#define LOAD_TOLERANCE_PER_GAME 0.1

/* The CPU times in text (the contents of /proc/stat) of the per-CPU lines
 * "cpuN ..." whose N is in mask (NULL: every CPU).  0, or -1 with err when
 * text has no such line or a counted line is malformed. */
int load_parse_stat(const char *text, const cpu_set_t *mask, CpuTimes *out, char *err, size_t errlen);

/* The CPUs in use between two readings a and b of the same CPUs: the busy
 * share of the ticks times the CPUs; 0 when no tick passed. */
double load_busy_cpus(const CpuTimes *a, const CpuTimes *b);

/* Reads /proc/stat, waits `seconds`, reads it again.  0 with *s, or -1 with
 * err (no /proc/stat: not Linux, or /proc not mounted). */
int load_sample(double seconds, LoadSample *s, char *err, size_t errlen);

/* Whether `concurrency` games fit beside the work s found: the CPUs it left
 * free are at least the games' minus their tolerance. */
bool load_fits(const LoadSample *s, int concurrency);

#endif
