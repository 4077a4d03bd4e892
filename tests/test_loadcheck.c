/* The machine's load before games on the wall clock (loadcheck.h): the CPU
 * times of /proc/stat over the CPUs of a mask, the CPUs in use between two
 * readings, whether games fit beside them, and a real sample that sees
 * spinning processes. */
#include <criterion/criterion.h>

#include <sched.h>
#include <string.h>
#include <sys/types.h>

#include "helpers.h"
#include "loadcheck.h"

/* Two CPUs; the aggregate line is not counted. */
static const char STAT_A[] = "cpu  1000 0 1000 8000 0 0 0 0 0 0\n"
                             "cpu0 100 10 90 700 100 0 0 0 0 0\n"
                             "cpu1 400 0 100 400 0 50 50 0 0 0\n"
                             "intr 12345 0 0\n"
                             "ctxt 999\n";
/* 100 ticks later on each: cpu0 30 busy (user 20, steal 10), cpu1 100 busy. */
static const char STAT_B[] = "cpu  0 0 0 0 0 0 0 0 0 0\n"
                             "cpu0 120 10 90 770 100 0 0 10 0 0\n"
                             "cpu1 480 0 110 400 0 55 55 0 0 0\n";

Test(loadcheck, counts_the_cpus_of_its_mask)
{
    CpuTimes t;
    char err[256];
    cr_assert_eq(load_parse_stat(STAT_A, NULL, &t, err, sizeof err), 0, "%s", err);
    cr_expect_eq(t.cpus, 2);
    /* busy: user nice system irq softirq steal; total adds idle and iowait */
    cr_expect_eq(t.busy, 200 + 600);
    cr_expect_eq(t.total, 200 + 800 + 600 + 400);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(1, &one);
    cr_assert_eq(load_parse_stat(STAT_A, &one, &t, err, sizeof err), 0, "%s", err);
    cr_expect_eq(t.cpus, 1);
    cr_expect_eq(t.busy, 600);
    cr_expect_eq(t.total, 1000);
}

Test(loadcheck, the_cpus_in_use_between_two_readings)
{
    CpuTimes a, b;
    char err[256];
    cr_assert_eq(load_parse_stat(STAT_A, NULL, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(load_parse_stat(STAT_B, NULL, &b, err, sizeof err), 0, "%s", err);
    /* 130 of 200 ticks busy, on 2 CPUs */
    cr_expect_float_eq(load_busy_cpus(&a, &b), 1.3, 1e-12);
    cr_expect_float_eq(load_busy_cpus(&a, &a), 0, 1e-12, "no tick passed");
    cpu_set_t zero;
    CPU_ZERO(&zero);
    CPU_SET(0, &zero);
    cr_assert_eq(load_parse_stat(STAT_A, &zero, &a, err, sizeof err), 0);
    cr_assert_eq(load_parse_stat(STAT_B, &zero, &b, err, sizeof err), 0);
    cr_expect_float_eq(load_busy_cpus(&a, &b), 0.3, 1e-12);
}

Test(loadcheck, a_malformed_file_is_refused_with_its_line)
{
    CpuTimes t;
    char err[256] = "";
    cr_expect_eq(load_parse_stat("cpu  1 2 3 4\ncpu0 1 2 3\n", NULL, &t, err, sizeof err), -1);
    cr_expect(strstr(err, "/proc/stat, line 2: cpu0 has 3 of its 4 first times"), "%s", err);
    cr_expect_eq(load_parse_stat("cpu  1 2 3 4\nintr 5\n", NULL, &t, err, sizeof err), -1);
    cr_expect(strstr(err, "no line for the CPUs"), "%s", err);
    cr_expect_eq(load_parse_stat("cpu7x 1 2 3 4\n", NULL, &t, err, sizeof err), -1);
    cr_expect(strstr(err, "line 1: not a CPU line"), "%s", err);
}

Test(loadcheck, games_fit_beside_the_noise_not_beside_a_busy_cpu)
{
    /* two games on two CPUs: a tenth of a CPU per game is noise */
    cr_expect(load_fits(&(LoadSample){ .cpus = 2, .busy = 0.15 }, 2));
    cr_expect(!load_fits(&(LoadSample){ .cpus = 2, .busy = 0.25 }, 2));
    cr_expect(!load_fits(&(LoadSample){ .cpus = 2, .busy = 1.0 }, 2));
    /* spare CPUs take other work */
    cr_expect(load_fits(&(LoadSample){ .cpus = 4, .busy = 2.1 }, 2));
    cr_expect(!load_fits(&(LoadSample){ .cpus = 4, .busy = 2.3 }, 2));
    cr_expect(load_fits(&(LoadSample){ .cpus = 2, .busy = 1.05 }, 1));
}

Test(loadcheck, a_sample_sees_processes_that_spin, .timeout = 30)
{
    pid_t pids[64];
    int n = spin_cpus(pids, 64);
    LoadSample s;
    char err[256];
    int rc = load_sample(1.0, &s, err, sizeof err);
    spin_stop(pids, n);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect_eq(s.cpus, n, "the CPUs of this process's mask");
    cr_expect_geq(s.busy, 0.8 * n, "%d spinning processes: %.2f of %d CPUs busy", n, s.busy, s.cpus);
    cr_expect(!load_fits(&s, n));
}
