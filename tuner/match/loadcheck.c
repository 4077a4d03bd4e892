/* Whether this machine is free for games on the wall clock; see loadcheck.h. */
#include "loadcheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "errmsg.h"
#include "readfile.h"

#define PROC_STAT "/proc/stat"

int load_parse_stat(const char *text, const cpu_set_t *mask, CpuTimes *out, char *err, size_t errlen)
{
    *out = (CpuTimes){ 0 };
    size_t lineno = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        lineno++;
        /* "cpuN", not the aggregate "cpu " line */
        if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
            continue;
        char *end;
        errno = 0;
        unsigned long n = strtoul(line + 3, &end, 10);
        if (errno || (*end != ' ' && *end != '\t'))
            return errmsg(err, errlen, "%s, line %zu: not a CPU line", PROC_STAT, lineno);
        if (mask && (n >= CPU_SETSIZE || !CPU_ISSET((int)n, mask)))
            continue;
        /* user nice system idle iowait irq softirq steal: the first four are
         * in every kernel's file, the rest since 2.6 (absent: 0) */
        unsigned long long v[8] = { 0 };
        const char *p = end;
        int k = 0;
        for (; k < 8; k++) {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p < '0' || *p > '9')
                break;
            errno = 0;
            v[k] = strtoull(p, &end, 10);
            if (errno)
                break;
            p = end;
        }
        if (k < 4)
            return errmsg(err, errlen, "%s, line %zu: cpu%lu has %d of its 4 first times", PROC_STAT, lineno, n, k);
        unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        out->busy += busy;
        out->total += busy + v[3] + v[4];
        out->cpus++;
    }
    if (out->cpus == 0)
        return errmsg(err, errlen, "%s: no line for the CPUs this process may run on", PROC_STAT);
    return 0;
}

double load_busy_cpus(const CpuTimes *a, const CpuTimes *b)
{
    if (b->total <= a->total || b->busy < a->busy || b->cpus != a->cpus)
        return 0;
    double share = (double)(b->busy - a->busy) / (double)(b->total - a->total);
    return (share > 1 ? 1 : share) * a->cpus;
}

static int read_times(const cpu_set_t *mask, CpuTimes *t, char *err, size_t errlen)
{
    FILE *f = fopen(PROC_STAT, "r");
    if (!f)
        return errmsg(err, errlen, "%s: %s", PROC_STAT, strerror(errno));
    char *text = read_stream(f, 1 << 24, NULL);
    int e = errno;
    fclose(f);
    if (!text)
        return errmsg(err, errlen, "%s: %s", PROC_STAT, strerror(e));
    int rc = load_parse_stat(text, mask, t, err, errlen);
    free(text);
    return rc;
}

int load_sample(double seconds, LoadSample *s, char *err, size_t errlen)
{
    cpu_set_t set;
    const cpu_set_t *mask = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? &set : NULL;
    CpuTimes a, b;
    if (read_times(mask, &a, err, errlen) < 0)
        return -1;
    struct timespec ts = { .tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    if (read_times(mask, &b, err, errlen) < 0)
        return -1;
    *s = (LoadSample){ .cpus = a.cpus, .busy = load_busy_cpus(&a, &b), .seconds = seconds };
    return 0;
}

bool load_fits(const LoadSample *s, int concurrency)
{
    int games = concurrency > 0 ? concurrency : 1;
    return (double)s->cpus - s->busy >= games - LOAD_TOLERANCE_PER_GAME * games;
}

/* A sample of this machine's load (a second long), or false with a note. */
static bool sample(const char *who, LoadSample *s)
{
    char err[256];
    if (load_sample(1.0, s, err, sizeof err) == 0)
        return true;
    fprintf(stderr, "ratchet-tune: %s: note: the machine's load could not be read (%s): not checked\n", who, err);
    return false;
}

static bool stopped(const MatchConfig *mc)
{
    return mc->stop && atomic_load(mc->stop);
}

bool load_check_before(const MatchConfig *mc, double wait_s, const char *who, LoadCheck *out)
{
    if (match_transport != match_play || !(tc_is_wall_clock(&mc->eng[0].tc) || tc_is_wall_clock(&mc->eng[1].tc)))
        return false;
    *out = (LoadCheck){ .games = mc->concurrency > 0 ? mc->concurrency : 1 };
    if (!sample(who, &out->s))
        return false;
    int64_t t0 = ep_now_ms();
    bool told = false;
    while (!load_fits(&out->s, out->games) && out->waited_s < wait_s && !stopped(mc)) {
        if (!told) {
            char d[32];
            duration_format(wait_s, d, sizeof d);
            printf("%s: the machine is busy: %.2f of its %d CPUs in use by other work, and %d game%s on the wall "
                   "clock need%s %d; waiting up to %s for it (Ctrl-C stops)\n",
                   who, out->s.busy, out->s.cpus, out->games, out->games == 1 ? "" : "s", out->games == 1 ? "s" : "",
                   out->games, d);
            fflush(stdout);
            told = true;
        }
        for (int k = 0; k < LOAD_RECHECK_S - 1 && !stopped(mc); k++)
            sleep(1); /* the sample takes the last second */
        if (!sample(who, &out->s))
            return false;
        out->waited_s = (double)(ep_now_ms() - t0) / 1000.0;
    }
    out->fits = load_fits(&out->s, out->games);
    if (!out->fits)
        fprintf(stderr, "ratchet-tune: %s: warning: playing on a busy machine: %.2f of its %d CPUs in use by other "
                        "work beside %d game%s on the wall clock; the engines search less than their clock gives them "
                        "and may lose on time, so the figures measure the load too\n",
                who, out->s.busy, out->s.cpus, out->games, out->games == 1 ? "" : "s");
    else if (told)
        printf("%s: the machine is free after %.0f s (%.2f of %d CPUs busy)\n", who, out->waited_s, out->s.busy,
               out->s.cpus);
    fflush(stdout);
    return true;
}
