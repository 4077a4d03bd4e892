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

#include "match.h"

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

/* A check before a match: what was found when the wait (if any) ended. */
typedef struct {
    LoadSample s;
    int games;                     /* the match's concurrency */
    double waited_s;
    bool fits;
} LoadCheck;

/* Before a match on the wall clock plays on this machine (not under MPI,
 * whose ranks play elsewhere: match_transport is not match_play), whether
 * it is free for mc's games: busy, it waits up to wait_s seconds for it,
 * reading it again every LOAD_RECHECK_S (a stop, *mc->stop, ends the wait),
 * then says so on stderr and plays anyway.  who names the command in the
 * messages.  False when nothing was checked (not on the wall clock, under
 * MPI, or no /proc/stat: a note says so). */
#define LOAD_RECHECK_S 10
bool load_check_before(const MatchConfig *mc, double wait_s, const char *who, LoadCheck *out);

#endif
