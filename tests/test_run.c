/* Tuning runs end to end against the fake engine build/fake/fakespsa (a UCI
 * engine whose strength depends on its spin options Alpha, Beta, Gamma):
 * SIGKILL and resume, SIGTERM and resume, configuration checks before any
 * game, export, the lock, the refusal of an existing directory; and the
 * pieces underneath (settings, history repair, atomic files, the lock). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "helpers.h"
#include "helpers_state.h"
#include "hist.h"
#include "report.h"
#include "tuning.h"
#include "run_cmd.h"
#include "conf.h"
#include "rd.h"
#include "setup.h"
#include "state.h"
#include "status.h"
#include "verify.h"

#define FAKE "build/fake/fakespsa"

static void setup(void)
{
    tmp_create("/tmp/ratchet-run-XXXXXX");
}

TestSuite(run, .init = setup, .fini = tmp_remove, .timeout = 120);

/* ---- running subcommands in a child process -------------------------------------- */


/* A run of `games` games of the fake engine into tmp/DIR. */
static Args run_args(const char *dir, int games, int think_ms, int concurrency)
{
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    Args a = { .n = 0 };
    add(&a, "run");
    add(&a, "-engine");
    add(&a, "cmd=%s", FAKE);
    if (think_ms > 0)
        add(&a, "args=--think %d", think_ms);
    add(&a, "-params");
    add(&a, "file=%s/spec.txt", tmp);
    add(&a, "-each");
    add(&a, "nodes=1");
    add(&a, "-openings");
    add(&a, "file=%s/book.epd", tmp);
    add(&a, "order=random");
    add(&a, "-maxmoves");
    add(&a, "30");
    add(&a, "-spsa");
    add(&a, "games=%d", games);
    add(&a, "-concurrency");
    add(&a, "%d", concurrency);
    add(&a, "-srand");
    add(&a, "7");
    add(&a, "-out");
    add(&a, "%s/%s", tmp, dir);
    return a;
}


/* ---- history.csv as the tests read it --------------------------------------------- */

typedef struct {
    int n;
    unsigned long long row[4096], k[4096], games[4096], w[4096], l[4096], d[4096];
} Rows;

static void read_rows(const char *dir, Rows *r)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/history.csv", tmp, dir);
    r->n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[8192];
    bool header = true;
    while (fgets(line, sizeof line, f) && r->n < 4096) {
        if (header) {
            header = false;
            continue;
        }
        if (!strchr(line, '\n'))
            break; /* half-written */
        int i = r->n;
        if (sscanf(line, "%llu,%llu,%llu,%llu,%llu,%llu", &r->row[i], &r->k[i], &r->games[i], &r->w[i], &r->l[i],
                   &r->d[i]) == 6)
            r->n++;
    }
    fclose(f);
}

static int count_rows(const char *dir)
{
    static Rows r;
    read_rows(dir, &r);
    return r.n;
}



/* The run in dir is complete: every iteration 1..N exactly once in
 * history.csv, rows numbered 1..N, games and W/L/D adding up in the rows and
 * in the state. */
static void assert_complete(const char *dir, unsigned long long games)
{
    static Rows r;
    read_rows(dir, &r);
    RunState rs;
    load_state(dir, &rs);
    unsigned long long N = rs.spsa.cfg.iterations, P = (unsigned long long)rs.spsa.cfg.pairs_per;
    cr_assert_eq(N * 2 * P, games);
    cr_assert_eq((unsigned long long)r.n, N, "history.csv has %d rows for %llu iterations", r.n, N);
    static char seen[4097];
    memset(seen, 0, sizeof seen);
    unsigned long long w = 0, l = 0, d = 0;
    for (int i = 0; i < r.n; i++) {
        cr_assert_eq(r.row[i], (unsigned long long)i + 1, "row numbers run 1, 2, 3, ...");
        cr_assert(r.k[i] >= 1 && r.k[i] <= N, "iteration %llu out of range", r.k[i]);
        cr_assert_not(seen[r.k[i]], "iteration %llu counted twice", r.k[i]);
        seen[r.k[i]] = 1;
        cr_assert_eq(r.w[i] + r.l[i] + r.d[i], 2 * P, "a batch is 2P games");
        w += r.w[i];
        l += r.l[i];
        d += r.d[i];
        cr_assert_eq(r.games[i], (unsigned long long)(i + 1) * 2 * P);
    }
    cr_assert_eq(rs.spsa.completed, N);
    cr_assert_eq(rs.spsa.k, N);
    cr_assert_eq(rs.spsa.ninflight, 0u);
    cr_assert(spsa_done(&rs.spsa));
    cr_assert_eq(rs.games, games);
    cr_assert_eq(rs.spsa.wins, w);
    cr_assert_eq(rs.spsa.losses, l);
    cr_assert_eq(rs.spsa.draws, d);
    unsigned long long pairs = 0;
    for (int i = 0; i < 5; i++)
        pairs += rs.ptnml[i];
    cr_assert_eq(pairs, games / 2);
    runstate_free(&rs);
}

/* ---- whole runs ---------------------------------------------------------------------- */

Test(run, completes_and_reports)
{
    Args a = run_args("r", 40, 0, 2);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "parameter") && strstr(log, "last10%") && strstr(log, "Gamma"), "final table:\n%s", log);
    free(log);
    assert_complete("r", 40);
    char path[256];
    snprintf(path, sizeof path, "%s/r/lock", tmp);
    cr_assert_eq(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(rd_lock_holder(path), 0, "the lock is released at the end");
}

Test(run, sigkill_then_resume_loses_and_repeats_nothing)
{
    Args a = run_args("r", 80, 1, 2);
    pid_t pid = spawn(run_main, &a, "log1");
    wait_rows("r", 6, pid);
    kill(pid, SIGKILL);
    cr_assert_eq(wait_child(pid), 1000 + SIGKILL);
    args_free(&a);
    int before = count_rows("r");

    RunState rs;
    load_state("r", &rs);
    cr_assert_leq(rs.spsa.completed, (uint64_t)before, "the state never counts a batch history.csv lacks");
    cr_assert_eq(rs.games, rs.spsa.completed * 2);
    runstate_free(&rs);

    char dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    Args b = { .n = 0 };
    add(&b, "resume");
    add(&b, "%s", dir);
    int rc = run_to_end(resume_main, &b, "log2");
    char *log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    free(log);
    assert_complete("r", 80);
    load_state("r", &rs);
    cr_assert_eq(rs.sessions, 2u);
    runstate_free(&rs);
}

Test(run, sigterm_leaves_a_resumable_run)
{
    Args a = run_args("r", 80, 1, 2);
    /* Two pairs per batch: a batch is spread over both workers. */
    add(&a, "-spsa");
    add(&a, "pairs-per=2");
    pid_t pid = spawn(run_main, &a, "log1");
    wait_rows("r", 3, pid);
    kill(pid, SIGTERM);
    int rc = wait_child(pid);
    args_free(&a);
    char *log = slurp("log1");
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, "resume with:") && strstr(log, " resume "), "the resume command is printed:\n%s", log);
    free(log);

    RunState rs;
    load_state("r", &rs);
    cr_assert_eq(rs.spsa.cfg.pairs_per, 2);
    cr_assert_lt(rs.spsa.completed, rs.spsa.cfg.iterations, "stopped early");
    cr_assert_eq((int)rs.spsa.completed, count_rows("r"), "state and history agree after SIGTERM");
    runstate_free(&rs);

    char dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    Args b = { .n = 0 };
    add(&b, "resume");
    add(&b, "%s", dir);
    rc = run_to_end(resume_main, &b, "log2");
    log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    free(log);
    assert_complete("r", 80);
}

Test(run, resume_extends_the_run)
{
    Args a = run_args("r", 20, 0, 1);
    cr_assert_eq(run_to_end(run_main, &a, "log1"), 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    Args b = { .n = 0 };
    add(&b, "resume");
    add(&b, "%s", dir);
    cr_assert_eq(run_to_end(resume_main, &b, "log2"), 0);
    char *log = slurp("log2");
    cr_assert(strstr(log, "complete"), "a complete run says so:\n%s", log);
    free(log);
    add(&b, "resume");
    add(&b, "%s", dir);
    add(&b, "-spsa");
    add(&b, "games=40");
    int rc = run_to_end(resume_main, &b, "log3");
    log = slurp("log3");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    assert_complete("r", 40);
    RunState rs;
    load_state("r", &rs);
    cr_assert_str_eq(conf_get(&rs.conf, "spsa", "games"), "40");
    runstate_free(&rs);
}

/* The direction of the whole loop: engine 0 plays theta + c*flip, a win of
 * engine 0 pushes theta along +flip.  From a far start (8 c_end from the
 * optimum of the fake engine, whose landscape has a slope there with
 * --width 60), every parameter must close a good part of its distance to the
 * optimum.  Swapping the plus and minus values, or wins and losses, anywhere
 * between the batch and the update sends every parameter the other way. */
static void assert_moves_toward_the_optimum(const char *form)
{
    write_file("far.txt", "Alpha, int, 30, 0, 100, 8, 0.05\n"
                          "Beta, int, 70, 0, 100, 8, 0.05\n"
                          "Gamma, int, -30, -50, 50, 8, 0.05\n");
    Args a = run_args("r", 400, 0, 2);
    add(&a, "-engine");
    add(&a, "args=--width 60 --target 70,30,10");
    add(&a, "-params");
    add(&a, "file=%s/far.txt", tmp);
    add(&a, "-maxmoves");
    add(&a, "100");
    if (form) {
        add(&a, "-spsa");
        add(&a, "form=%s", form);
    }
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    RunState rs;
    load_state("r", &rs);
    static const char *const name[3] = { "Alpha", "Beta", "Gamma" };
    static const double start[3] = { 30, 70, -30 }, target[3] = { 70, 30, 10 };
    for (int i = 0; i < 3; i++) {
        const SpsaParam *p = &rs.spsa.params[i];
        cr_assert_str_eq(p->name, name[i]);
        double moved = (p->theta - start[i]) * (target[i] > start[i] ? 1 : -1);
        /* Measured: 17 to 31 of the 40 units over 8 seeds; a swap moves away. */
        cr_assert_gt(moved, 10, "%s%s%s: %g -> %g, the optimum is %g: not toward it by 10 (a quarter of the way)",
                     form ? form : "", form ? " form, " : "", name[i], start[i], p->theta, target[i]);
    }
    runstate_free(&rs);
}

Test(run, moves_every_parameter_toward_the_optimum)
{
    assert_moves_toward_the_optimum(NULL);
}

Test(run, moves_every_parameter_toward_the_optimum_in_the_classic_form)
{
    assert_moves_toward_the_optimum("classic");
}

/* history.csv without the elapsed_s column (the one thing a stop may change). */
static char *history_without_time(const char *dir)
{
    char name[64];
    snprintf(name, sizeof name, "%s/history.csv", dir);
    char *s = slurp(name), *out = malloc(strlen(s) + 1), *o = out;
    cr_assert_not_null(out);
    for (char *line = s; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line + 1) : strlen(line);
        int field = 0;
        for (size_t i = 0; i < len; i++) {
            if (field != 6 || line[i] == ',')
                *o++ = line[i];
            if (line[i] == ',')
                field++;
        }
        line += len;
    }
    *o = '\0';
    free(s);
    return out;
}

/* A run stopped by SIGTERM in the middle of a batch and resumed ends exactly
 * as the same run never stopped: the same batches, results and theta, to the
 * last bit (same -srand, concurrency 1, an engine whose games depend only on
 * its options and the opening). */
static void assert_resume_is_exact(const char *form)
{
    Args a = run_args("a", 60, 0, 1);
    add(&a, "-engine");
    add(&a, "args=--seed 5 --seed-each-game");
    add(&a, "-spsa");
    add(&a, "form=%s", form);
    cr_assert_eq(run_to_end(run_main, &a, "log_a"), 0);

    Args b = run_args("b", 60, 0, 1);
    add(&b, "-engine");
    add(&b, "args=--seed 5 --seed-each-game --think 2");
    add(&b, "-spsa");
    add(&b, "form=%s", form);
    pid_t pid = spawn(run_main, &b, "log_b1");
    wait_rows("b", 4, pid);
    kill(pid, SIGTERM);
    cr_assert_eq(wait_child(pid), 128 + SIGTERM, "the run was stopped before its end");
    args_free(&b);
    int stopped_at = count_rows("b");
    char dir[256];
    snprintf(dir, sizeof dir, "%s/b", tmp);
    Args c = { .n = 0 };
    add(&c, "resume");
    add(&c, "%s", dir);
    cr_assert_eq(run_to_end(resume_main, &c, "log_b2"), 0);

    RunState ra, rb;
    load_state("a", &ra);
    load_state("b", &rb);
    cr_assert_eq(rb.sessions, 2u);
    cr_assert_lt(stopped_at, 30, "stopped part way");
    cr_assert_eq(ra.spsa.cfg.form, rb.spsa.cfg.form);
    cr_assert_str_eq(spsa_form_name(ra.spsa.cfg.form), form);
    for (size_t i = 0; i < ra.spsa.nparams; i++) {
        cr_assert_eq(memcmp(&ra.spsa.params[i].theta, &rb.spsa.params[i].theta, sizeof(double)), 0,
                     "form %s: %s %.17g uninterrupted, %.17g stopped and resumed", form, ra.spsa.params[i].name,
                     ra.spsa.params[i].theta, rb.spsa.params[i].theta);
        cr_assert_eq(memcmp(&ra.spsa.params[i].m, &rb.spsa.params[i].m, sizeof(double)), 0);
    }
    cr_assert_eq(memcmp(&ra.spsa.v, &rb.spsa.v, sizeof(double)), 0);
    cr_assert_eq(ra.spsa.wins, rb.spsa.wins);
    cr_assert_eq(ra.spsa.draws, rb.spsa.draws);
    runstate_free(&ra);
    runstate_free(&rb);
    char *ha = history_without_time("a"), *hb = history_without_time("b");
    cr_assert_str_eq(ha, hb, "form %s: history.csv differs", form);
    free(ha);
    free(hb);
}

Test(run, resume_continues_bit_for_bit_classic)
{
    assert_resume_is_exact("classic");
}

Test(run, resume_continues_bit_for_bit_far)
{
    assert_resume_is_exact("far");
}

Test(run, resume_continues_bit_for_bit_settle)
{
    assert_resume_is_exact("settle");
}

Test(run, resume_continues_bit_for_bit_adam)
{
    assert_resume_is_exact("adam");
}

/* ---- refused before any game -------------------------------------------------------- */

/* The run must fail with exit code 2, a message containing `field`, and no
 * run directory. */
static void refused(Args *a, const char *field, const char *also)
{
    int rc = run_to_end(run_main, a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 2, "exit code %d, expected 2:\n%s", rc, log);
    cr_assert(strstr(log, field), "the message names '%s':\n%s", field, log);
    if (also)
        cr_assert(strstr(log, also), "the message mentions '%s':\n%s", also, log);
    free(log);
    char path[256];
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_neq(access(path, F_OK), 0, "no run directory is created");
}

Test(run, refuses_an_unknown_key)
{
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-spsa");
    add(&a, "gamez=4");
    refused(&a, "spsa.gamez", NULL);
}

Test(run, refuses_an_unknown_key_in_the_config_file)
{
    write_file("run.json", "{\"spsa\": {\"games\": 20}, \"colour\": \"blue\"}\n");
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-config");
    add(&a, "file=%s/run.json", tmp);
    refused(&a, "colour", "run.json");
}

Test(run, refuses_a_game_option_the_runner_does_not_know)
{
    write_file("run.json", "{\"each\": {\"nodez\": 5}}\n");
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-config");
    add(&a, "file=%s/run.json", tmp);
    refused(&a, "nodez", "run.json");
}

Test(run, refuses_a_parameter_the_engine_lacks)
{
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-engine");
    add(&a, "args=--no-gamma");
    refused(&a, "Gamma", "params.file");
}

Test(run, refuses_min_above_max)
{
    write_file("spec.txt", "Alpha, int, 50, 0, 100, 5, 0.002\nBeta, int, 50, 100, 0, 5, 0.002\n");
    Args a = run_args("r", 20, 0, 1);
    refused(&a, "Beta", "min 100 > max 0");
}

Test(run, refuses_a_value_outside_its_range)
{
    write_file("spec.txt", "Alpha, int, 500, 0, 100, 5, 0.002\n");
    Args a = run_args("r", 20, 0, 1);
    refused(&a, "Alpha", "500");
}

Test(run, refuses_a_range_wider_than_the_engines)
{
    write_file("spec.txt", "Alpha, int, 50, 0, 200, 5, 0.002\n");
    Args a = run_args("r", 20, 0, 1);
    refused(&a, "Alpha", "[0, 100]");
}

Test(run, refuses_a_missing_book)
{
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-openings");
    add(&a, "file=%s/nothere.epd", tmp);
    refused(&a, "openings.file", "nothere.epd");
}

/* Without -openings a run plays from the shipped book, openings/default.epd. */
Test(run, without_openings_uses_the_default_book)
{
    Args a = run_args("r", 8, 0, 1);
    for (int i = 0; i < a.n; i++)
        if (!strcmp(a.v[i], "-openings")) {
            for (int k = 0; k < 3; k++)
                free(a.v[i + k]);
            memmove(&a.v[i], &a.v[i + 3], (size_t)(a.n - i - 3 + 1) * sizeof a.v[0]);
            a.n -= 3;
            break;
        }
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "using the default book") && strstr(log, "openings/default.epd"), "log:\n%s", log);
    free(log);
    assert_complete("r", 8);
}

Test(run, refuses_an_unknown_name_in_only)
{
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-params");
    add(&a, "only=Alpha,Delta");
    refused(&a, "params.only", "Delta");
}

Test(run, refuses_an_existing_directory)
{
    char path[256];
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(mkdir(path, 0755), 0);
    write_file("r/notes.txt", "mine\n");
    Args a = run_args("r", 20, 0, 1);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 2, "%s", log);
    cr_assert(strstr(log, "out:") && strstr(log, "not empty"), "%s", log);
    free(log);
    char *notes = slurp("r/notes.txt");
    cr_assert_str_eq(notes, "mine\n");
    free(notes);
    snprintf(path, sizeof path, "%s/r/state.json", tmp);
    cr_assert_neq(access(path, F_OK), 0);
}

Test(run, the_lock_keeps_a_second_process_out)
{
    Args a = run_args("r", 20, 0, 1);
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0);
    char dir[256], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    int fd = rd_lock(dir, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_assert_eq(rd_lock_holder(dir), getpid());
    Args b = { .n = 0 };
    add(&b, "resume");
    add(&b, "%s", dir);
    add(&b, "-spsa");
    add(&b, "games=40");
    int rc = run_to_end(resume_main, &b, "log2");
    char *log = slurp("log2");
    cr_assert_eq(rc, 2, "%s", log);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    cr_assert(strstr(log, "in use") && strstr(log, pid), "the message names the process holding it:\n%s", log);
    free(log);
    rd_unlock(fd);
    RunState rs;
    load_state("r", &rs);
    cr_assert_eq(rs.games, 20u, "nothing was played by the refused resume");
    runstate_free(&rs);
}

/* ---- export -------------------------------------------------------------------------- */

Test(run, export_writes_the_value_file)
{
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-params");
    add(&a, "only=Gamma,Alpha");
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0);
    char dir[256], out[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    snprintf(out, sizeof out, "%s/tuned/values.json", tmp);
    Args b = { .n = 0 };
    add(&b, "export");
    add(&b, "%s", dir);
    add(&b, "-o");
    add(&b, "%s", out);
    cr_assert_eq(run_to_end(export_main, &b, "log2"), 0);

    char err[256];
    cJSON *j = rd_read_json(out, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    RunState rs;
    load_state("r", &rs);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
    cr_assert(cJSON_IsObject(params));
    cr_assert_eq(cJSON_GetArraySize(params), 3, "every parameter of the spec, tuned or not");
    const char *order[3] = { "Alpha", "Beta", "Gamma" };
    int i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        cr_assert_str_eq(p->string, order[i], "spec order");
        cr_assert(cJSON_IsNumber(p) && p->valuedouble == (double)p->valueint, "%s is an integer", p->string);
        double v;
        cr_assert_eq(runstate_value(&rs, p->string, &v, NULL), 0);
        cr_assert_eq(p->valueint, v);
        i++;
    }
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(params, "Beta")->valueint, 50, "not tuned: the spec value");
    for (size_t k = 0; k < rs.spsa.nparams; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, rs.spsa.params[k].name);
        /* theta, or with the default form its mean over the last quarter */
        cr_assert_eq(v->valueint, (int)spsa_value(&rs.spsa, k), "the tuned value is the estimate rounded");
    }
    cr_assert_eq(rs.spsa.nparams, 2u);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "run")->valuestring, "r");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "games")->valuedouble, 20.0);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "engine")->valuestring, "fakespsa");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "tc")->valuestring, rs.tc);
    cr_assert(strstr(rs.tc, "nodes"));
    cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "date")));
    cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "source")));
    cJSON_Delete(j);
    runstate_free(&rs);

    /* Without -o: the same file on stdout. */
    add(&b, "export");
    add(&b, "%s", dir);
    cr_assert_eq(run_to_end(export_main, &b, "stdout"), 0);
    char *text = slurp("stdout");
    j = cJSON_Parse(text);
    cr_assert_not_null(j, "stdout is the JSON file:\n%s", text);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "params")), 3);
    cJSON_Delete(j);
    free(text);
}

Test(run, status_prints_the_table)
{
    Args a = run_args("r", 20, 0, 1);
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    Args b = { .n = 0 };
    add(&b, "status");
    add(&b, "%s", dir);
    cr_assert_eq(run_to_end(status_main, &b, "out"), 0);
    char *text = slurp("out");
    cr_assert(strstr(text, "complete"), "%s", text);
    for (const char *col[] = { "start", "current", "last10%", "min", "max", "c_k", "flag", "Alpha", "Beta", "Gamma" },
         **c = col; c < col + 10; c++)
        cr_assert(strstr(text, *c), "'%s' in:\n%s", *c, text);
    free(text);
}

/* ---- the pieces ----------------------------------------------------------------------- */

static SpsaState small_state(void)
{
    SpsaParam p[2];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        snprintf(p[i].name, sizeof p[i].name, "P%d", i);
        p[i].theta = p[i].start = 10;
        p[i].min = 0;
        p[i].max = 20;
        p[i].c_end = 2;
        p[i].r_end = 0.002;
    }
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 100);
    SpsaState st;
    char err[256];
    cr_assert_eq(spsa_init(&st, p, 2, &cfg, 1, err, sizeof err), 0, "%s", err);
    return st;
}

Test(run, history_is_cut_back_to_the_state)
{
    SpsaState st = small_state();
    History h;
    char err[256];
    cr_assert_eq(hist_open(&h, tmp, &st, 0, err, sizeof err), 0, "%s", err);
    for (int k = 1; k <= 3; k++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        cr_assert_eq(spsa_batch_apply_wld(&st, &b, 1, 0, 1), 0);
        HistRow r = { .row = (uint64_t)k, .k = b.k, .games = 2u * (uint64_t)k, .wins = 1, .draws = 1 };
        cr_assert_eq(hist_append(&h, &r, &st, &b, err, sizeof err), 0, "%s", err);
        spsa_batch_free(&b);
    }
    hist_close(&h);
    /* A half-written fourth row, as after a crash in the middle of a write. */
    char path[256];
    snprintf(path, sizeof path, "%s/history.csv", tmp);
    FILE *f = fopen(path, "a");
    fputs("4,4,8,1,", f);
    fclose(f);

    /* The state counts two batches: the third row and the partial line go. */
    cr_assert_eq(hist_open(&h, tmp, &st, 2, err, sizeof err), 0, "%s", err);
    hist_close(&h);
    HistData d;
    cr_assert_eq(hist_read(tmp, &st, 100, &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.nrows, 2u);
    cr_assert_eq(d.k[0], 1u);
    cr_assert_eq(d.k[1], 2u);
    hist_data_free(&d);
    char *text = slurp("history.csv");
    size_t lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 3u, "header and two rows:\n%s", text);
    cr_assert_eq(text[strlen(text) - 1], '\n');
    free(text);

    /* hist_read (line by line) ignores a half-written last line, and names
     * the line of one it cannot read. */
    f = fopen(path, "a");
    fputs("3,3,6,1,", f);
    fclose(f);
    cr_assert_eq(hist_read(tmp, &st, 100, &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.nrows, 2u);
    hist_data_free(&d);
    f = fopen(path, "a");
    fputs("x\n", f);
    fclose(f);
    cr_assert_eq(hist_read(tmp, &st, 100, &d, err, sizeof err), -1);
    cr_assert(strstr(err, "history.csv:4: unreadable row"), "%s", err);
    cr_assert_eq(d.nrows, 0u, "a failed read keeps no rows");

    /* A history of other parameters is refused. */
    write_file("history.csv", "row,k,games,wins,losses,draws,elapsed_s,X\n");
    cr_assert_eq(hist_open(&h, tmp, &st, 0, err, sizeof err), -1);
    cr_assert(strstr(err, "header"), "%s", err);
    spsa_free(&st);
}

Test(run, state_round_trips)
{
    RunState rs;
    runstate_init(&rs);
    rs.spsa = small_state();
    SpsaBatch b;
    cr_assert_eq(spsa_batch_begin(&rs.spsa, &b), 1);
    spsa_batch_free(&b);
    conf_set(&rs.conf, "engine", "cmd", "/bin/engine", "test");
    conf_set(&rs.conf, "engine", "option.Hash", "16", "test");
    conf_set(&rs.conf, "concurrency", "", "2", "test");
    rs.fixed = calloc(1, sizeof *rs.fixed);
    snprintf(rs.fixed[0].name, SPSA_NAME_MAX, "Fixed");
    rs.fixed[0].value = -3;
    rs.nfixed = 1;
    rs.order = calloc(3, sizeof *rs.order);
    snprintf(rs.order[0], SPSA_NAME_MAX, "P0");
    snprintf(rs.order[1], SPSA_NAME_MAX, "Fixed");
    snprintf(rs.order[2], SPSA_NAME_MAX, "P1");
    rs.norder = 3;
    rs.games = 12;
    rs.ptnml[2] = 6;
    rs.pairs_issued = 7;
    rs.elapsed = 3.5;
    snprintf(rs.engine, sizeof rs.engine, "Engine 1.0");
    char err[256];
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    char tmpfile[256];
    snprintf(tmpfile, sizeof tmpfile, "%s/state.json.tmp", tmp);
    cr_assert_neq(access(tmpfile, F_OK), 0, "no temporary file is left");

    RunState back;
    cr_assert_eq(runstate_load(&back, tmp, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.games, 12u);
    cr_assert_eq(back.ptnml[2], 6u);
    cr_assert_eq(back.pairs_issued, 7u);
    cr_assert_eq(back.spsa.k, 1u);
    cr_assert_eq(back.spsa.ninflight, 1u, "the batch in flight is kept");
    cr_assert_str_eq(conf_get(&back.conf, "engine", "option.Hash"), "16");
    cr_assert_str_eq(conf_get(&back.conf, "concurrency", ""), "2");
    cr_assert_str_eq(back.engine, "Engine 1.0");
    double v;
    cr_assert_eq(runstate_value(&back, "Fixed", &v, NULL), 0);
    cr_assert_eq(v, -3);
    cr_assert_eq(runstate_value(&back, "P1", &v, NULL), 0);
    cr_assert_eq(v, 10);
    cr_assert_eq(runstate_value(&back, "Nope", &v, NULL), -1);
    cJSON *ex = export_values(&back, "night");
    cJSON *first = cJSON_GetObjectItemCaseSensitive(ex, "params")->child;
    cr_assert_str_eq(first->string, "P0");
    cr_assert_str_eq(first->next->string, "Fixed", "spec order, fixed parameters included");
    cJSON_Delete(ex);
    runstate_free(&back);
    runstate_free(&rs);
}

/* The writer never writes what its reader refuses: a count past 2^53 (a
 * negative count cast to uint64) fails the save, names the field, and the
 * state.json on disk stays as it was. */
Test(run, a_state_its_reader_would_refuse_is_not_written)
{
    RunState rs;
    runstate_init(&rs);
    rs.spsa = small_state();
    conf_set(&rs.conf, "engine", "cmd", "/bin/engine", "test");
    rs.games = 12;
    char err[1024];
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    char *before = slurp("state.json");
    rs.time_losses = (uint64_t)(int64_t)-1;
    rs.games = 14;
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), -1, "a state with time_losses 1.8e19 was written");
    cr_assert(strstr(err, "time_losses") && strstr(err, "state.json"), "%s", err);
    char *after = slurp("state.json");
    cr_assert_str_eq(after, before, "the state on disk changed");
    free(before);
    free(after);
    RunState back;
    cr_assert_eq(runstate_load(&back, tmp, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.games, 12u);
    runstate_free(&back);
    rs.time_losses = 3;
    rs.per_engine[ENG_CRASHES][1] = (uint64_t)(int64_t)-5;
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), -1, "a state with per_engine.crashes 1.8e19 was written");
    runstate_free(&rs);
}

Test(run, settings_from_the_command_line_override_the_file)
{
    RunConf file, cl;
    conf_init(&file);
    conf_init(&cl);
    char err[256];
    cJSON *j = cJSON_Parse("{\"engine\": {\"cmd\": \"a\", \"option\": {\"Hash\": 16}}, \"concurrency\": 4,"
                           " \"params\": {\"file\": \"s.json\", \"only\": [\"X\", \"Y\"]}, \"pgnout\": \"g.pgn\"}");
    cr_assert_eq(conf_from_json(&file, j, "run.json", err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
    char *argv[] = { "-engine", "cmd=b", "-concurrency", "2", "-spsa", "games=100", "pairs-per=2", NULL };
    cr_assert_eq(conf_parse_args(&cl, 7, argv, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(conf_merge(&file, &cl), 0);
    cr_assert_str_eq(conf_get(&file, "engine", "cmd"), "b");
    cr_assert_str_eq(conf_get(&file, "engine", "option.Hash"), "16");
    cr_assert_str_eq(conf_get(&file, "concurrency", ""), "2");
    cr_assert_str_eq(conf_get(&file, "params", "only"), "X,Y");
    cr_assert_str_eq(conf_get(&file, "pgnout", "file"), "g.pgn");
    cr_assert_str_eq(conf_get(&file, "spsa", "pairs-per"), "2");
    cr_assert_str_eq(conf_find(&file, "engine", "option.Hash")->origin, "run.json");
    cr_assert_str_eq(conf_find(&file, "engine", "cmd")->origin, "command line");

    /* Back to JSON and in again: the same settings. */
    cJSON *out = conf_to_json(&file);
    RunConf again;
    conf_init(&again);
    cr_assert_eq(conf_from_json(&again, out, "state", err, sizeof err), 0, "%s", err);
    cJSON_Delete(out);
    cr_assert_eq(again.n, file.n);
    for (size_t i = 0; i < file.n; i++)
        cr_assert_str_eq(conf_get(&again, file.v[i].sec, file.v[i].key), file.v[i].val);

    /* The match runner's words for a section. */
    int argc = 0;
    char **words = NULL;
    cr_assert_eq(conf_section_argv(&file, "engine", "x+", &argc, &words), 2);
    cr_assert_eq(argc, 4);
    cr_assert_str_eq(words[0], "-engine");
    cr_assert_str_eq(words[1], "cmd=b");
    cr_assert_str_eq(words[2], "option.Hash=16");
    cr_assert_str_eq(words[3], "name=x+");
    conf_free_argv(argc, words);
    conf_free(&again);
    conf_free(&file);
    conf_free(&cl);
}

Test(run, settings_errors_name_the_option)
{
    RunConf c;
    conf_init(&c);
    char err[256];
    char *a1[] = { "-spsa", "gamez=3", NULL };
    cr_assert_eq(conf_parse_args(&c, 2, a1, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "spsa.gamez"), "%s", err);
    char *a2[] = { "-colour", "x", NULL };
    cr_assert_eq(conf_parse_args(&c, 2, a2, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "-colour"), "%s", err);
    char *a3[] = { "-concurrency", NULL };
    cr_assert_eq(conf_parse_args(&c, 1, a3, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "-concurrency"), "%s", err);
    static const char *const only_spsa[] = { "spsa", NULL };
    char *a4[] = { "-engine", "cmd=x", NULL };
    cr_assert_eq(conf_parse_args(&c, 2, a4, only_spsa, err, sizeof err), -1);
    cr_assert(strstr(err, "-engine"), "%s", err);
    cJSON *j = cJSON_Parse("{\"params\": {\"file\": \"x\", \"onyl\": \"A\"}}");
    cr_assert_eq(conf_from_json(&c, j, "run.json", err, sizeof err), -1);
    cr_assert(strstr(err, "run.json") && strstr(err, "params.onyl"), "%s", err);
    cJSON_Delete(j);
    write_file("bad.json", "{\"spsa\": {\"games\": 10,}\n");
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", tmp);
    cr_assert_eq(conf_load_file(&c, path, err, sizeof err), -1);
    cr_assert(strstr(err, "bad.json:1:"), "malformed JSON with line and column: %s", err);
    conf_free(&c);
}

Test(run, a_stale_lock_file_does_not_block)
{
    /* A lock file left by a process that died: its pid is in it, no flock. */
    write_file("lock", "999999\n");
    char err[256];
    int fd = rd_lock(tmp, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_assert_eq(rd_lock(tmp, err, sizeof err), -1, "but a live one does");
    rd_unlock(fd);
    fd = rd_lock(tmp, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    rd_unlock(fd);
}

Test(run, atomic_write_replaces_the_whole_file)
{
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/f.json", tmp);
    cr_assert_eq(rd_write_atomic(path, "first version, long\n", 20, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rd_write_atomic(path, "second\n", 7, err, sizeof err), 0, "%s", err);
    char *s = slurp("f.json");
    cr_assert_str_eq(s, "second\n");
    free(s);
    cr_assert_eq(rd_write_atomic("/nonexistent-dir/x", "a", 1, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent-dir/x"), "%s", err);
}

/* ---- option names with spaces, float parameters, check options (issue 15) ---------- */

/* The fake engine with the options third-party engines have, logging every
 * setoption it receives to tmp/options.log. */
static Args run_args_more(const char *dir, int games)
{
    write_file("spec.txt", "Alpha, int, 50, 0, 100, 5, 0.002\n"
                           "Skill Level, int, 5, 0, 20, 2, 0.002\n"
                           "Slow Mover, float, 0.8, 0.25, 1.5, 0.05, 0.002\n"
                           "Move Overhead, int, 10, 0, 5000, 10, 0.002\n");
    Args a = run_args(dir, games, 0, 1);
    add(&a, "-engine");
    add(&a, "args=--more-options --option-log %s/options.log", tmp);
    return a;
}

/* How often tmp/options.log holds a line NAME=VALUE for which pred holds. */
static int count_sets(const char *name, bool (*pred)(const char *value))
{
    char *log = slurp("options.log");
    int n = 0;
    size_t nl = strlen(name);
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, name, nl) == 0 && line[nl] == '=' && pred(line + nl + 1))
            n++;
    free(log);
    return n;
}

static bool any_value(const char *v) { (void)v; return true; }
static bool is_integer_text(const char *v) { return v[strspn(v, "-0123456789")] == '\0'; }
static bool is_decimal_text(const char *v) { return strchr(v, '.') && !strpbrk(v, "eE"); }
static bool is_true(const char *v) { return strcmp(v, "true") == 0; }

/* resume DIR -spsa games=GAMES, which must complete. */
static void resume_to_the_end(const char *dir, int games)
{
    Args r = { .n = 0 };
    add(&r, "resume");
    add(&r, "%s/%s", tmp, dir);
    add(&r, "-spsa");
    add(&r, "games=%d", games);
    int rc = run_to_end(resume_main, &r, "resume.log");
    char *log = slurp("resume.log");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    free(log);
    assert_complete(dir, (unsigned long long)games);
}

Test(run, names_with_spaces_and_floats_end_to_end)
{
    Args a = run_args_more("r", 20);
    add(&a, "-params");
    add(&a, "only=Skill Level, slow mover");
    add(&a, "-engine");
    add(&a, "option.Ponder=true");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    assert_complete("r", 20);

    /* What the engine was sent: integers for an int, decimals for a float,
     * the fixed parameter at its spec value, the check option as given. */
    cr_assert_gt(count_sets("Skill Level", any_value), 0);
    cr_assert_eq(count_sets("Skill Level", is_integer_text), count_sets("Skill Level", any_value));
    cr_assert_gt(count_sets("Slow Mover", any_value), 0);
    cr_assert_eq(count_sets("Slow Mover", is_decimal_text), count_sets("Slow Mover", any_value));
    cr_assert_gt(count_sets("Move Overhead", is_integer_text), 0);
    cr_assert_gt(count_sets("Ponder", is_true), 0);

    /* history.csv: the names quoted as CSV requires, and read back. */
    char *hist = slurp("r/history.csv");
    cr_assert(strncmp(hist, "row,k,games,wins,losses,draws,elapsed_s,\"Skill Level\",\"Slow Mover\","
                            "\"c_k.Skill Level\",\"c_k.Slow Mover\",\"R_k.Skill Level\",\"R_k.Slow Mover\"\n",
                      strlen("row,k,games,wins,losses,draws,elapsed_s,\"Skill Level\",")) == 0,
              "header:\n%s", hist);
    free(hist);
    RunState rs;
    load_state("r", &rs);
    cr_assert_str_eq(rs.spsa.params[0].name, "Skill Level");
    cr_assert(rs.spsa.params[1].is_float);
    char dir[256], err[512];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    HistData h;
    cr_assert_eq(hist_read(dir, &rs.spsa, rs.spsa.completed, &h, err, sizeof err), 0, "%s", err);
    cr_assert_eq(h.nrows, 10u);
    cr_assert_float_eq(h.last[1], rs.spsa.params[1].theta, 1e-9, "the last row is theta");
    hist_data_free(&h);

    /* export: the spaced names, a float as a JSON number with its fraction. */
    cJSON *j = export_values(&rs, "r");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
    const cJSON *skill = cJSON_GetObjectItemCaseSensitive(params, "Skill Level");
    const cJSON *mover = cJSON_GetObjectItemCaseSensitive(params, "Slow Mover");
    cr_assert(cJSON_IsNumber(skill) && skill->valuedouble == floor(skill->valuedouble));
    cr_assert(cJSON_IsNumber(mover));
    /* theta, or with the default form its mean over the last quarter */
    cr_assert_float_eq(mover->valuedouble, spsa_value(&rs.spsa, 1), 1e-12, "a float is exported unrounded");
    cr_assert_neq(spsa_value(&rs.spsa, 1), floor(spsa_value(&rs.spsa, 1)), "not an integer");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(params, "Move Overhead")->valuedouble, 10);
    cJSON_Delete(j);
    runstate_free(&rs);

    /* status prints both rows; resume reads the header back and goes on. */
    Args s = { .n = 0 };
    add(&s, "status");
    add(&s, "%s/r", tmp);
    cr_assert_eq(run_to_end(status_main, &s, "status"), 0);
    char *st = slurp("status");
    cr_assert(strstr(st, "\nSkill Level ") && strstr(st, "\nSlow Mover "), "status:\n%s", st);
    cr_assert_null(strstr(st, "warning"), "status:\n%s", st);
    free(st);
    resume_to_the_end("r", 30);
}

Test(run, a_float_for_a_spin_option_is_rounded_and_said_once)
{
    write_file("spec.txt", "Skill Level, float, 5.5, 0, 20, 1, 0.002\nAlpha, float, 50.5, 0, 100, 5, 0.002\n");
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-engine");
    add(&a, "args=--more-options --option-log %s/options.log", tmp);
    add(&a, "-params");
    add(&a, "only=Skill Level");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    const char *note = strstr(log, "'Skill Level' is a float parameter and a spin option");
    cr_assert(note, "the run says so:\n%s", log);
    cr_assert_null(strstr(note + 1, "'Skill Level' is a float parameter"), "once:\n%s", log);
    cr_assert(strstr(log, "'Alpha' (not tuned) is a spin option"), "the fixed one too:\n%s", log);
    free(log);
    cr_assert_gt(count_sets("Skill Level", any_value), 0);
    cr_assert_eq(count_sets("Skill Level", is_integer_text), count_sets("Skill Level", any_value));
    cr_assert_eq(count_sets("Alpha", is_integer_text), count_sets("Alpha", any_value));
    RunState rs;
    load_state("r", &rs);
    cr_assert(rs.spsa.params[0].is_float, "theta stays a float");
    runstate_free(&rs);
}

Test(run, refuses_a_name_the_engine_lacks_naming_the_closest)
{
    write_file("spec.txt", "Skill Levle, int, 5, 0, 20, 1, 0.002\n");
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-engine");
    add(&a, "args=--more-options");
    refused(&a, "'Skill Levle'", "the closest option it has is 'Skill Level'");
}

Test(run, refuses_a_bad_check_or_spin_value)
{
    Args a = run_args("r", 20, 0, 1);
    add(&a, "-engine");
    add(&a, "option.Ponder=yes");
    refused(&a, "engine.option.Ponder", "true or false");
    a = run_args("r", 20, 0, 1);
    add(&a, "-each");
    add(&a, "option.Move Overhead=9000");
    add(&a, "-engine");
    add(&a, "args=--more-options");
    refused(&a, "each.option.Move Overhead", "from 0 to 5000");
    a = run_args("r", 20, 0, 1);
    add(&a, "-each");
    add(&a, "option.Slow Movr=1.0");
    add(&a, "-engine");
    add(&a, "args=--more-options");
    refused(&a, "Slow Movr", "the closest option it has is 'Slow Mover'");
}

Test(run, values_sent_for_int_float_and_rounded_float)
{
    RunState rs;
    runstate_init(&rs);
    SpsaParam ps[3];
    memset(ps, 0, sizeof ps);
    for (int i = 0; i < 3; i++) {
        snprintf(ps[i].name, sizeof ps[i].name, "P%d", i);
        ps[i].theta = 5;
        ps[i].min = 0;
        ps[i].max = 20;
        ps[i].c_end = 1;
        ps[i].r_end = 0.002;
        ps[i].is_float = i > 0;
    }
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 20);
    char err[256];
    cr_assert_eq(spsa_init(&rs.spsa, ps, 3, &cfg, 1, err, sizeof err), 0, "%s", err);
    rs.to_spin = calloc(3, sizeof *rs.to_spin);
    rs.to_spin[2] = true; /* P2: a float for a spin option */
    SpsaBatch b;
    cr_assert_eq(spsa_batch_begin(&rs.spsa, &b), 1);
    b.u[2] = 0.75;
    char text[64];
    setup_value_text(&rs, &b, 0, 7, text, sizeof text);
    cr_assert_str_eq(text, "7");
    setup_value_text(&rs, &b, 1, 5.3, text, sizeof text);
    cr_assert_str_eq(text, "5.3");
    setup_value_text(&rs, &b, 2, 5.3, text, sizeof text);
    cr_assert_str_eq(text, "6", "floor(5.3 + u) with the batch's shared uniform u = 0.75");
    b.u[2] = 0.25;
    setup_value_text(&rs, &b, 2, 5.3, text, sizeof text);
    cr_assert_str_eq(text, "5");
    spsa_batch_free(&b);
    runstate_free(&rs);
}

Test(run, a_state_from_before_floats_reads_as_integers)
{
    /* A run directory written before float parameters existed has no
     * "type" in its SPSA parameters and no run.fixed_float: every parameter
     * is an integer, and it resumes. */
    Args a = run_args("r", 8, 0, 1);
    add(&a, "-params");
    add(&a, "only=Alpha");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/r/state.json", tmp);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
    cr_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(run, "fixed_float")));
    cJSON_DeleteItemFromObjectCaseSensitive(run, "fixed_float");
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "spsa"), "params"))
        cr_assert_null(cJSON_GetObjectItemCaseSensitive(p, "type"), "an int parameter is written as before");
    cr_assert_eq(rd_write_json(path, j, err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
    RunState rs;
    load_state("r", &rs);
    cr_assert_not(rs.spsa.params[0].is_float);
    cr_assert_eq(rs.nfixed, 2u);
    cr_assert_not(rs.fixed[0].is_float || rs.fixed[1].is_float);
    runstate_free(&rs);
    resume_to_the_end("r", 12);
}

/* ---- verify ---------------------------------------------------------------------------- */

/* A book big enough that an SPRT of the fake engine decides on fresh
 * openings: at nodes=1 verify plays each held-out opening once. */
static void verify_setup(void)
{
    setup();
    write_book("book.epd", 2000);
}

TestSuite(verify, .init = verify_setup, .fini = tmp_remove, .timeout = 180);

/* tmp/DIR/verify.json, parsed (NULL when absent). */
static cJSON *verify_json(const char *dir)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s/verify.json", tmp, dir);
    return access(path, F_OK) == 0 ? rd_read_json(path, err, sizeof err) : NULL;
}

static double jnum(const cJSON *j, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, key);
    cr_assert(cJSON_IsNumber(x), "verify.json: %s is a number", key);
    return x->valuedouble;
}

static const char *jstr(const cJSON *j, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, key);
    cr_assert(cJSON_IsString(x), "verify.json: %s is a string", key);
    return x->valuestring;
}

/* The counts of verify.json agree with each other: games = 2 pairs = W + L + D,
 * the pentanomial counts add up to the pairs. */
static void assert_counts(const cJSON *j, double pairs)
{
    cr_assert_eq(jnum(j, "pairs"), pairs);
    cr_assert_eq(jnum(j, "games"), 2 * pairs);
    cr_assert_eq(jnum(j, "wins") + jnum(j, "losses") + jnum(j, "draws"), 2 * pairs);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "ptnml");
    double sum = 0;
    for (int i = 0; i < 5; i++)
        sum += cJSON_GetArrayItem(p, i)->valuedouble;
    cr_assert_eq(sum, pairs, "the pentanomial counts add up to the pairs");
}

static Args verify_args(const char *dir)
{
    Args a = { .n = 0 };
    add(&a, "verify");
    add(&a, "%s/%s", tmp, dir);
    return a;
}

/* A short run of the fake engine whose values moved (large gains): the run a
 * verify is tested on.  Slow engine moves (--think 1) so a verify can be
 * stopped halfway. */
static void short_run(const char *dir, int games)
{
    write_file("short.txt", "Alpha, int, 30, 0, 100, 8, 0.5\nBeta, int, 70, 0, 100, 8, 0.5\n");
    Args a = run_args(dir, games, 0, 2);
    add(&a, "-engine");
    add(&a, "args=--width 60 --think 1");
    add(&a, "-params");
    add(&a, "file=%s/short.txt", tmp);
    add(&a, "-maxmoves");
    add(&a, "40");
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0);
    RunState rs;
    load_state(dir, &rs);
    cr_assert(rs.spsa.params[0].theta != 30 || rs.spsa.params[1].theta != 70, "the run moved its values");
    runstate_free(&rs);
}

/* Wait until tmp/DIR/verify.json counts at least n pairs (or the child ended). */
static void wait_pairs(const char *dir, double n, pid_t child)
{
    for (;;) {
        cJSON *j = verify_json(dir);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pairs");
        bool enough = cJSON_IsNumber(p) && p->valuedouble >= n;
        cJSON_Delete(j);
        if (enough)
            return;
        int st;
        cr_assert_eq(waitpid(child, &st, 0 | WNOHANG), 0, "verify ended before %g pairs were played", n);
        struct timespec ts = { 0, 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

/* The tuned engine gets the run's values and the base engine the start
 * values: a run that moved toward the fake engine's optimum passes the SPRT,
 * and status shows the verdict. */
Test(verify, accepts_a_run_that_moved_toward_the_optimum)
{
    assert_moves_toward_the_optimum(NULL);
    Args a = verify_args("r");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "verify failed:\n%s", log);
    cr_assert(strstr(log, "H1 was accepted"), "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_not_null(j);
    cr_assert_str_eq(jstr(j, "status"), "done");
    cr_assert_str_eq(jstr(j, "verdict"), "H1", "the tuned values are better than the start values");
    cr_assert_gt(jnum(j, "elo"), 0);
    assert_counts(j, jnum(j, "pairs"));
    const cJSON *sprt = cJSON_GetObjectItemCaseSensitive(j, "sprt");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(sprt, "elo0")->valuedouble, 0, "elo0=0 by default");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(sprt, "elo1")->valuedouble, 5, "elo1=5 by default");
    cr_assert_geq(cJSON_GetObjectItemCaseSensitive(sprt, "llr")->valuedouble,
                  cJSON_GetObjectItemCaseSensitive(sprt, "upper")->valuedouble);
    cr_assert_str_eq(jstr(cJSON_GetObjectItemCaseSensitive(j, "engines"), "mode"), "options");
    cr_assert_str_eq(jstr(j, "tc"), "1 nodes", "the run's time control");
    cr_assert(strstr(jstr(j, "book"), "book.epd"), "the run's book");
    /* The values: the run's export and its start values. */
    RunState rs;
    load_state("r", &rs);
    cJSON *ex = export_values(&rs, "r");
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ex, "params"), cJSON_GetObjectItemCaseSensitive(j, "tuned"), 1));
    cJSON_Delete(ex);
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(j, "base");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Alpha")->valueint, 30);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Beta")->valueint, 70);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Gamma")->valueint, -30);
    cr_assert_eq(jnum(j, "run_games"), (double)rs.games);
    runstate_free(&rs);
    cJSON_Delete(j);
    char *tuned = slurp("r/verify/tuned.json");
    cr_assert(strstr(tuned, "\"Alpha\""), "the value file is written: %s", tuned);
    free(tuned);

    Args b = { .n = 0 };
    add(&b, "status");
    add(&b, "%s/r", tmp);
    cr_assert_eq(run_to_end(status_main, &b, "slog"), 0);
    char *st = slurp("slog");
    cr_assert(strstr(st, "verify:") && strstr(st, "SPRT H1 accepted") && strstr(st, "Ptnml(0-2)"), "%s", st);
    free(st);
}

/* Stopped by SIGKILL or SIGTERM, verify continues where it was: every pair
 * counted once, none lost. */
Test(verify, continues_after_sigkill_and_sigterm)
{
    short_run("r", 40);
    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "30");
    pid_t pid = spawn(verify_main, &a, "v1");
    wait_pairs("r", 3, pid);
    kill(pid, SIGKILL);
    cr_assert_eq(wait_child(pid), 1000 + SIGKILL);
    args_free(&a);

    /* Again without options: the stored ones. */
    a = verify_args("r");
    pid = spawn(verify_main, &a, "v2");
    wait_pairs("r", 12, pid);
    kill(pid, SIGTERM);
    int rc = wait_child(pid);
    args_free(&a);
    char *log = slurp("v2");
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, "continuing:"), "the second session continues:\n%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_str_eq(jstr(j, "status"), "stopped");
    cr_assert_lt(jnum(j, "pairs"), 30);
    cJSON_Delete(j);

    a = verify_args("r");
    rc = run_to_end(verify_main, &a, "v3");
    log = slurp("v3");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    j = verify_json("r");
    cr_assert_str_eq(jstr(j, "status"), "done");
    cr_assert_str_eq(jstr(j, "verdict"), "none");
    assert_counts(j, 30);
    cr_assert_eq(jnum(j, "sessions"), 3);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "pending")), 0);
    cJSON_Delete(j);
}

/* A finished verify is shown, not replayed; other options need -restart; a
 * run that moved on since gets a new verify. */
Test(verify, keeps_its_options_and_follows_the_run)
{
    short_run("r", 40);
    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "2");
    cr_assert_eq(run_to_end(verify_main, &a, "v1"), 0);

    a = verify_args("r");
    cr_assert_eq(run_to_end(verify_main, &a, "v2"), 0);
    char *log = slurp("v2");
    cr_assert(strstr(log, "finished earlier"), "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_eq(jnum(j, "sessions"), 1, "shown, not played again");
    cJSON_Delete(j);

    a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "3");
    cr_assert_eq(run_to_end(verify_main, &a, "v3"), 2);
    log = slurp("v3");
    cr_assert(strstr(log, "-restart") && strstr(log, "other options"), "%s", log);
    free(log);
    j = verify_json("r");
    assert_counts(j, 2);
    cJSON_Delete(j);

    a = verify_args("r");
    add(&a, "-restart");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "3");
    cr_assert_eq(run_to_end(verify_main, &a, "v4"), 0);
    j = verify_json("r");
    assert_counts(j, 3);
    cr_assert_eq(jnum(j, "run_games"), 40);
    cJSON_Delete(j);

    /* The run goes on; its values change; verify checks the new ones. */
    Args r = { .n = 0 };
    add(&r, "resume");
    add(&r, "%s/r", tmp);
    add(&r, "-spsa");
    add(&r, "games=80");
    cr_assert_eq(run_to_end(resume_main, &r, "rlog"), 0);
    RunState rs;
    load_state("r", &rs);
    cJSON *ex = export_values(&rs, "r");
    j = verify_json("r");
    bool moved = !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ex, "params"), cJSON_GetObjectItemCaseSensitive(j, "tuned"), 1);
    cJSON_Delete(j);
    if (moved) {
        a = verify_args("r");
        cr_assert_eq(run_to_end(verify_main, &a, "v5"), 0);
        log = slurp("v5");
        cr_assert(strstr(log, "moved on"), "%s", log);
        free(log);
        j = verify_json("r");
        cr_assert_eq(jnum(j, "run_games"), 80);
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ex, "params"), cJSON_GetObjectItemCaseSensitive(j, "tuned"), 1));
        assert_counts(j, 3);
        cJSON_Delete(j);
    }
    cJSON_Delete(ex);
    runstate_free(&rs);
}

/* The movetext of every game of a PGN file (tags and blank lines dropped),
 * one malloc'd string a game; returns the count. */
static int pgn_movetexts(const char *name, char **games, int max)
{
    char *pgn = slurp(name);
    int n = 0;
    char *line = pgn, *cur = NULL;
    size_t len = 0;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '[') {
            if (cur && len) {
                cr_assert_lt(n, max);
                games[n++] = cur;
                cur = NULL;
                len = 0;
            }
        } else if (line[0]) {
            size_t l = strlen(line);
            cur = realloc(cur, len + l + 2);
            cr_assert_not_null(cur);
            memcpy(cur + len, line, l);
            cur[len + l] = ' ';
            cur[len + l + 1] = '\0';
            len += l + 1;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (cur && len) {
        cr_assert_lt(n, max);
        games[n++] = cur;
    }
    free(pgn);
    return n;
}

/* At nodes= a game is a function of its opening and its engines: asked for
 * more pairs than it has fresh openings, verify plays each of them once and
 * says how many there are, so no game is played (and counted) twice. */
Test(verify, plays_no_game_twice_at_fixed_nodes)
{
    write_book("book.epd", 40); /* 8 held out of the tuning */
    Args a = run_args("r", 40, 0, 2);
    add(&a, "-engine");
    add(&a, "args=--seed 5 --seed-each-game");
    add(&a, "-validate");
    add(&a, "off");
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0);

    Args v = verify_args("r");
    add(&v, "-sprt");
    add(&v, "off");
    add(&v, "-rounds");
    add(&v, "30");
    add(&v, "-pgnout");
    add(&v, "file=%s/v.pgn", tmp);
    int rc = run_to_end(verify_main, &v, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "verify failed:\n%s", log);
    cr_assert(strstr(log, "30 pairs cut to 8 pairs, one for each of the 8 openings"), "the cut and the count:\n%s", log);
    free(log);
    cJSON *j = verify_json("r");
    assert_counts(j, 8);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "openings");
    cr_assert_eq(jnum(op, "fresh_pairs"), 8);
    cJSON_Delete(j);

    char *games[80];
    int n = pgn_movetexts("v.pgn", games, 80);
    cr_assert_eq(n, 16, "every pair of the verify in the PGN: %d games", n);
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            cr_assert(strcmp(games[i], games[k]) != 0, "games %d and %d are the same game:\n%s", i + 1, k + 1, games[i]);
    for (int i = 0; i < n; i++)
        free(games[i]);

    /* A verify.json that counts more pairs than there are fresh openings
     * (an older build's) is refused, not continued. */
    cJSON *old = verify_json("r");
    cJSON_ReplaceItemInObjectCaseSensitive(old, "next_round", cJSON_CreateNumber(12));
    cJSON_ReplaceItemInObjectCaseSensitive(old, "status", cJSON_CreateString("stopped"));
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/r/verify.json", tmp);
    cr_assert_eq(rd_write_json(path, old, err, sizeof err), 0, "%s", err);
    cJSON_Delete(old);
    Args w = verify_args("r");
    rc = run_to_end(verify_main, &w, "wlog");
    log = slurp("wlog");
    cr_assert_neq(rc, 0, "%s", log);
    cr_assert(strstr(log, "counts 12 pairs") && strstr(log, "only 8 fresh openings") && strstr(log, "-restart"), "%s", log);
    free(log);
}

/* Exit code 2, a message naming the problem, and nothing written. */
static void verify_refused(const char *dir, const char *expect)
{
    Args a = verify_args(dir);
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, expect), "the message says '%s':\n%s", expect, log);
    free(log);
    cr_assert_null(verify_json(dir));
}

Test(verify, refuses_a_bad_or_missing_run_directory)
{
    verify_refused("nothere", "not a directory");
    char path[256];
    snprintf(path, sizeof path, "%s/empty", tmp);
    cr_assert_eq(mkdir(path, 0755), 0);
    verify_refused("empty", "not a run directory (no state.json)");
    snprintf(path, sizeof path, "%s/bad", tmp);
    cr_assert_eq(mkdir(path, 0755), 0);
    write_file("bad/state.json", "{\"version\": 1,\n \"spsa\": [}\n");
    verify_refused("bad", "state.json:2:");

    /* A run in progress holds the lock: verify waits for it to end. */
    short_run("r", 40);
    char dir[256], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    int fd = rd_lock(dir, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    verify_refused("r", "in use");
    rd_unlock(fd);

    Args a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 2, "%s", log);
    cr_assert(strstr(log, "-rounds"), "-sprt off needs -rounds: %s", log);
    free(log);
}

/* For bin/ratchet, the values are baked into two engines of their own. */
Test(verify, bakes_bin_ratchet)
{
    if (getenv("RATCHET_SANITIZED"))
        cr_skip_test("the bake is the same in the plain build");
    cr_assert(access("bin/ratchet", X_OK) == 0 && access("params/engine.json", R_OK) == 0);
    FILE *p = popen("bin/ratchet spsa", "r");
    cr_assert_not_null(p);
    char line[256], spec[1024] = "";
    while (fgets(line, sizeof line, p))
        if (!strncmp(line, "LmpBase,", 8) || !strncmp(line, "RfpMargin,", 10)) {
            char *r = strrchr(line, ',');
            snprintf(r, sizeof line - (size_t)(r - line), ", 0.5\n"); /* large gains: the values move in 20 games */
            strncat(spec, line, sizeof spec - strlen(spec) - 1);
        }
    pclose(p);
    write_file("ratchet.txt", spec);
    Args a = { .n = 0 };
    add(&a, "run");
    add(&a, "-engine");
    add(&a, "cmd=bin/ratchet");
    add(&a, "-params");
    add(&a, "file=%s/ratchet.txt", tmp);
    add(&a, "-each");
    add(&a, "nodes=300");
    add(&a, "-spsa");
    add(&a, "games=20");
    add(&a, "-srand");
    add(&a, "5");
    add(&a, "-out");
    add(&a, "%s/r", tmp);
    int rc = run_to_end(run_main, &a, "runlog");
    char *log = slurp("runlog");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);

    a = verify_args("r");
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "1");
    rc = run_to_end(verify_main, &a, "vlog");
    log = slurp("vlog");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    cr_assert_str_eq(jstr(j, "status"), "done", "the run's values moved (else: 'identical')");
    const cJSON *eng = cJSON_GetObjectItemCaseSensitive(j, "engines");
    cr_assert_str_eq(jstr(eng, "mode"), "baked");
    assert_counts(j, 1);
    /* Each engine says it is baked, and has exactly the values of its side. */
    static const char *const side[2] = { "tuned", "base" };
    for (int e = 0; e < 2; e++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s params", jstr(eng, side[e]));
        p = popen(cmd, "r");
        cr_assert_not_null(p);
        static char out[1 << 16];
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        pclose(p);
        cJSON *pj = cJSON_Parse(out);
        cr_assert_not_null(pj, "%s: %s", cmd, out);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pj, "baked")), "%s", cmd);
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(j, side[e]), *q;
        int checked = 0;
        cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(pj, "params"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(q, "name"), *val = cJSON_GetObjectItemCaseSensitive(q, "value");
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(want, name->valuestring);
            if (w) {
                cr_assert_eq(val->valueint, w->valueint, "%s: %s", side[e], name->valuestring);
                checked++;
            }
        }
        cr_assert_eq(checked, 2);
        cJSON_Delete(pj);
    }
    cr_assert(!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(j, "tuned"), cJSON_GetObjectItemCaseSensitive(j, "base"), 1));
    cJSON_Delete(j);
}

/* -base FILE: the base engine plays the file's values, the start values
 * where the file is silent; a file with a name the run lacks or a value out
 * of range is refused. */
Test(verify, plays_against_a_base_file)
{
    short_run("r", 40);
    write_file("base.json", "{\"params\": {\"Alpha\": 55}}\n");
    Args a = verify_args("r");
    add(&a, "-base");
    add(&a, "%s/base.json", tmp);
    add(&a, "-sprt");
    add(&a, "off");
    add(&a, "-rounds");
    add(&a, "1");
    int rc = run_to_end(verify_main, &a, "vlog");
    char *log = slurp("vlog");
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    cJSON *j = verify_json("r");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(j, "base");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Alpha")->valueint, 55, "from the file");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(base, "Beta")->valueint, 70, "the start value");
    cr_assert(strstr(jstr(j, "base_file"), "base.json"));
    cJSON_Delete(j);

    write_file("bad.json", "{\"params\": {\"Delta\": 5}}\n");
    write_file("far.json", "{\"params\": {\"Beta\": 500}}\n");
    const char *files[2] = { "bad.json", "far.json" }, *expect[2] = { "'Delta' is not a parameter", "outside its range" };
    for (int i = 0; i < 2; i++) {
        a = verify_args("r");
        add(&a, "-restart");
        add(&a, "-base");
        add(&a, "%s/%s", tmp, files[i]);
        rc = run_to_end(verify_main, &a, "vlog");
        log = slurp("vlog");
        cr_assert_eq(rc, 2, "%s", log);
        cr_assert(strstr(log, files[i]) && strstr(log, expect[i]), "%s", log);
        free(log);
    }
}

/* ---- bin/ratchet-tune as a user runs it: signals ------------------------------- */

#define TUNE "bin/ratchet-tune"
#define FAKEUCI "build/fake/fakeuci"
#define FAKESPSA "build/fake/fakespsa"

/* A finished run of `games` games of the fake engine `engine` into tmp/DIR. */
static void finished_run(const char *dir, const char *engine, int games)
{
    int rc = shell(TUNE " run -engine cmd=%s -params file=%s/spec.txt -each nodes=1 -openings file=%s/book.epd "
                        "-maxmoves 20 -spsa games=%d -srand 3 -out %s/%s",
                   engine, tmp, tmp, games, tmp, dir);
    cr_assert_eq(rc, 0, "the run failed:\n%s", out);
}

/* A failed checkpoint stops the run; one Ctrl-C during that stop is a
 * first Ctrl-C, not a second one that kills the process. */
Test(run, one_ctrl_c_after_a_disk_error_is_not_a_second, .init = command_fixture)
{
    char run[PATH_MAX], state[PATH_MAX + 32], arg_out[PATH_MAX + 8], arg_spec[PATH_MAX + 16],
        arg_book[PATH_MAX + 16];
    snprintf(run, sizeof run, "%s/run", tmp);
    snprintf(state, sizeof state, "%s/state.json", run);
    snprintf(arg_spec, sizeof arg_spec, "file=%s/spec2.txt", tmp);
    snprintf(arg_book, sizeof arg_book, "file=%s/book.epd", tmp);
    snprintf(arg_out, sizeof arg_out, "%s", run);
    /* Engines that ignore `quit`: the stop takes the runner's full grace time. */
    char *argv[] = { TUNE, "run", "-engine", "cmd=" FAKEUCI, "args=--options --ignore-quit", "-params", arg_spec,
                     "-each", "nodes=1", "-maxmoves", "20", "-openings", arg_book, "-spsa", "games=200000",
                     "-concurrency", "1", "-out", arg_out, NULL };
    Child c = child_start(argv, true);
    cr_assert(wait_for_file(state, 20000), "the run did not start:\n%s", out);
    /* The next checkpoint cannot create its temporary file. */
    char tmpfile[PATH_MAX + 40];
    snprintf(tmpfile, sizeof tmpfile, "%s.tmp", state);
    /* The saver may be writing its own temporary file this very moment: wait
     * for its rename, then take the name. */
    int made = -1;
    for (int tries = 0; tries < 2000 && (made = mkdir(tmpfile, 0755)) != 0 && errno == EEXIST; tries++)
        usleep(1000);
    cr_assert_eq(made, 0, "mkdir %s: %s", tmpfile, strerror(errno));
    bool stopping = child_read_until(&c, "stopping the run", 30000);
    if (stopping)
        kill(c.pid, SIGINT);
    int rc = child_finish(&c, 30000);
    kill(-c.pid, SIGKILL); /* the fake engines, if anything is left */
    cr_assert(stopping, "no disk error reported:\n%s", out);
    cr_expect_neq(rc, 1000 + SIGINT, "one Ctrl-C after a disk error killed the run at once:\n%s", out);
    cr_expect_eq(rc, 1, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "resume with:"), "%s", out);
}

Test(run, tune_sh_passes_term_on_to_the_tuner, .init = command_fixture, .timeout = 180)
{
    cr_assert(access("bin/ratchet", X_OK) == 0);
    char name[64], state[128], env_name[80];
    snprintf(name, sizeof name, "review-term-%d", (int)getpid());
    snprintf(state, sizeof state, "runs/%s/state.json", name);
    snprintf(env_name, sizeof env_name, "NAME=%s", name);
    char *argv[] = { "/usr/bin/env", "GAMES=1000000", "NODES=300", "CONCURRENCY=1", env_name, "sh", "tools/tune.sh",
                     NULL };
    Child c = child_start(argv, true);
    bool started = wait_for_file(state, 60000);
    usleep(500 * 1000);
    /* env execs sh: c.pid is the script's shell. */
    kill(c.pid, SIGTERM);
    int rc = child_finish(&c, 30000);
    kill(-c.pid, SIGKILL);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf runs/%s", name);
    cr_expect_eq(system(cmd), 0);
    cr_assert(started, "the tuner did not start:\n%s", out);
    cr_expect_eq(rc, 128 + SIGTERM, "exit %d (-1: still running 30 s after TERM)\n%s", rc, out);
    cr_expect(strstr(out, "resume:"), "%s", out);
}

/* ---- Resume checks its state and its engine --------------------------------------- */

static cJSON *state_json(const char *dir)
{
    char path[PATH_MAX], err[256];
    snprintf(path, sizeof path, "%s/%s/state.json", tmp, dir);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    return j;
}

static void save_state_json(const char *dir, cJSON *j)
{
    char path[PATH_MAX], err[256];
    snprintf(path, sizeof path, "%s/%s/state.json", tmp, dir);
    char *text = cJSON_Print(j);
    cr_assert_eq(rd_write_atomic(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    free(text);
}

static cJSON *at(cJSON *o, const char *a, const char *b)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

/* A batch in flight for the 3 parameters of spec.txt. */
static cJSON *batch(double k)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "k", k);
    const double c[3] = { 1, 1, 1 }, r[3] = { 0.01, 0.01, 0.01 }, u[3] = { 0.5, 0.5, 0.5 };
    const int flip[3] = { 1, -1, 1 }, plus[3] = { 51, 49, 1 }, minus[3] = { 49, 51, -1 };
    cJSON_AddItemToObject(b, "c_k", cJSON_CreateDoubleArray(c, 3));
    cJSON_AddItemToObject(b, "R_k", cJSON_CreateDoubleArray(r, 3));
    cJSON_AddItemToObject(b, "u", cJSON_CreateDoubleArray(u, 3));
    cJSON_AddItemToObject(b, "flip", cJSON_CreateIntArray(flip, 3));
    cJSON_AddItemToObject(b, "plus", cJSON_CreateIntArray(plus, 3));
    cJSON_AddItemToObject(b, "minus", cJSON_CreateIntArray(minus, 3));
    return b;
}

Test(run, resume_refuses_an_inconsistent_state, .init = command_fixture)
{
    finished_run("r", FAKESPSA, 8);
    cJSON *good = state_json("r");
    double k = at(good, "spsa", "k")->valuedouble, done = at(good, "spsa", "completed")->valuedouble;
    cr_assert_eq(k, done);
    struct {
        const char *what, *field;
    } cases[] = {
        { "k above completed + in flight", "\"k\"" },
        { "two batches in flight with one id", "\"inflight\"" },
        { "a fractional game count", "run.games" },
        { "a fractional pentanomial count", "run.ptnml" },
        { "a fractional crash count", "run.crashes" },
        { "kept pairs of a batch that is not in flight", "run.partial" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *j = cJSON_Duplicate(good, true);
        cJSON *spsa = at(j, "spsa", NULL), *run = at(j, "run", NULL);
        switch (i) {
        case 0:
            cJSON_SetNumberValue(at(spsa, "k", NULL), k + 1);
            break;
        case 1: {
            /* completed + 2 in flight == k, but both are batch k. */
            cJSON_SetNumberValue(at(spsa, "completed", NULL), done - 2);
            cJSON *in = at(spsa, "inflight", NULL);
            cJSON_AddItemToArray(in, batch(k));
            cJSON_AddItemToArray(in, batch(k));
            break;
        }
        case 2:
            cJSON_SetNumberValue(at(run, "games", NULL), 15.5);
            break;
        case 3:
            cJSON_SetNumberValue(cJSON_GetArrayItem(at(run, "ptnml", NULL), 2), 0.5);
            break;
        case 4:
            cJSON_SetNumberValue(at(run, "crashes", NULL), 1.25);
            break;
        case 5: {
            cJSON *pb = cJSON_CreateObject();
            const char *f[] = { "k", "pairs", "wins", "losses", "draws", "time_losses", "crashes", "illegal" };
            const double v[] = { k, 1, 1, 1, 0, 0, 0, 0 };
            for (int q = 0; q < 8; q++)
                cJSON_AddNumberToObject(pb, f[q], v[q]);
            const int pt[5] = { 0, 0, 1, 0, 0 };
            cJSON_AddItemToObject(pb, "ptnml", cJSON_CreateIntArray(pt, 5));
            cJSON *arr = cJSON_AddArrayToObject(run, "partial");
            cJSON_AddItemToArray(arr, pb);
            break;
        }
        }
        save_state_json("r", j);
        cJSON_Delete(j);
        int rc = shell(TUNE " resume %s/r -spsa games=12", tmp);
        cr_expect_eq(rc, 2, "%s: exit %d\n%s", cases[i].what, rc, out);
        cr_expect(strstr(out, cases[i].field) != NULL, "%s: the message should name '%s':\n%s", cases[i].what,
                  cases[i].field, out);
    }
    save_state_json("r", good);
    cJSON_Delete(good);
    cr_expect_eq(shell(TUNE " resume %s/r -spsa games=12", tmp), 0, "the untouched state resumes:\n%s", out);
}

Test(run, resume_refuses_a_different_engine_unless_forced, .init = command_fixture)
{
    char eng[PATH_MAX];
    snprintf(eng, sizeof eng, "%s/engine", tmp);
    cr_assert_eq(shell("cp %s %s", FAKESPSA, eng), 0, "%s", out);
    finished_run("r", eng, 4);
    cJSON *j = state_json("r");
    cJSON *e = at(j, "run", "engine_check");
    cr_assert(cJSON_IsObject(e), "the state records the engine");
    cr_expect(cJSON_IsString(at(e, "id_name", NULL)) && cJSON_IsNumber(at(e, "size", NULL)) &&
                  cJSON_IsNumber(at(e, "mtime", NULL)),
              "id name, size and mtime recorded");
    cJSON_Delete(j);

    /* The same binary resumes. */
    cr_assert_eq(shell(TUNE " resume %s/r -spsa games=6", tmp), 0, "%s", out);
    /* One more byte: a different binary (it still runs). */
    cr_assert_eq(shell("printf x >> %s", eng), 0);
    int rc = shell(TUNE " resume %s/r -spsa games=8", tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, eng) && strstr(out, "size") && strstr(out, "-force"), "the message says what changed:\n%s",
              out);
    rc = shell(TUNE " resume %s/r -spsa games=8 -force", tmp);
    cr_expect_eq(rc, 0, "-force resumes:\n%s", out);
    cr_expect(strstr(out, "warning") != NULL, "-force still says what changed:\n%s", out);
    /* And records the new engine: the next resume is quiet. */
    rc = shell(TUNE " resume %s/r -spsa games=10", tmp);
    cr_expect_eq(rc, 0, "%s", out);
}

/* verify plays the run's engine: a different binary at its path is refused
 * (saying what changed), unless -force. */
Test(run, verify_refuses_a_different_engine_unless_forced, .init = command_fixture)
{
    char eng[PATH_MAX];
    snprintf(eng, sizeof eng, "%s/engine", tmp);
    cr_assert_eq(shell("cp %s %s", FAKESPSA, eng), 0, "%s", out);
    write_file("spec.txt", "Alpha, int, 30, 0, 100, 8, 0.5\nBeta, int, 70, 0, 100, 8, 0.5\n");
    finished_run("r", eng, 8);
    /* other base values, so that verify has a match to play whether or not the run moved */
    write_file("base.json", "{\"params\": {\"Alpha\": 60, \"Beta\": 40}}\n");
    cr_assert_eq(shell("printf x >> %s", eng), 0);
    int rc = shell(TUNE " verify %s/r -base %s/base.json -sprt off -rounds 1", tmp, tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, eng) && strstr(out, "size") && strstr(out, "verify with -force"),
              "the message says what changed:\n%s", out);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/r/verify.json", tmp);
    cr_expect_neq(access(path, F_OK), 0, "nothing was played");
    rc = shell(TUNE " verify %s/r -base %s/base.json -sprt off -rounds 1 -force", tmp, tmp);
    cr_expect_eq(rc, 0, "-force plays:\n%s", out);
    cr_expect(strstr(out, "warning") && strstr(out, "size"), "-force still says what changed:\n%s", out);
    cr_expect(strstr(out, "Games: 2"), "one pair played:\n%s", out);
    cr_expect_eq(access(path, F_OK), 0, "the verdict is written");
}

Test(run, resume_of_a_state_without_the_engine_record_still_works, .init = command_fixture)
{
    finished_run("r", FAKESPSA, 4);
    cJSON *j = state_json("r");
    cJSON_DeleteItemFromObjectCaseSensitive(at(j, "run", NULL), "engine_check");
    save_state_json("r", j);
    cJSON_Delete(j);
    int rc = shell(TUNE " resume %s/r -spsa games=6", tmp);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "note:") && strstr(out, "engine"), "a note says the engine could not be checked:\n%s", out);
    j = state_json("r");
    cr_expect(cJSON_IsObject(at(j, "run", "engine_check")), "the record is added for the next resume");
    cJSON_Delete(j);
}

/* ---- Status ---------------------------------------------------------------------- */

Test(run, status_does_not_call_the_flip_score_a_strength, .init = command_fixture)
{
    finished_run("r", FAKESPSA, 4);
    cr_assert_eq(shell(TUNE " status %s/r", tmp), 0, "%s", out);
    cr_expect(strstr(out, "theta+c vs theta-c") == NULL, "%s", out);
    cr_expect(strstr(out, "random flip") != NULL, "%s", out);
}

/* ---- A stop keeps the finished pairs of a batch ------------------------------------ */

static int count_in(const char *path, const char *needle)
{
    char err[256];
    char *s = rd_read_file(path, NULL, err, sizeof err);
    if (!s)
        return 0;
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    free(s);
    return n;
}

enum { STOP_P = 4, STOP_GAMES = 16 };

/* A run of STOP_GAMES games of fakespsa (with engine_args) in batches of
 * STOP_P pairs into tmp/r, its games in tmp/games.pgn, stopped by SIGTERM
 * once the first pair of batch 1 is in the PGN: the batch is half done. */
static void stop_in_the_first_batch(const char *engine_args)
{
    char spec[PATH_MAX + 8], book[PATH_MAX + 8], dir[PATH_MAX], pgn[PATH_MAX + 8], pgnpath[PATH_MAX], args[256];
    char games[32], pairs[32];
    snprintf(games, sizeof games, "games=%d", STOP_GAMES);
    snprintf(pairs, sizeof pairs, "pairs-per=%d", STOP_P);
    snprintf(spec, sizeof spec, "file=%s/spec.txt", tmp);
    snprintf(book, sizeof book, "file=%s/book.epd", tmp);
    snprintf(dir, sizeof dir, "%s/r", tmp);
    snprintf(pgnpath, sizeof pgnpath, "%s/games.pgn", tmp);
    snprintf(pgn, sizeof pgn, "file=%s", pgnpath);
    snprintf(args, sizeof args, "args=%s", engine_args);
    char *argv[] = { TUNE, "run", "-engine", "cmd=" FAKESPSA, args, "-params", spec, "-each",
                     "nodes=1", "-maxmoves", "20", "-openings", book, "-spsa", games, pairs,
                     "-concurrency", "1", "-pgnout", pgn, "-out", dir, NULL };
    Child c = child_start(argv, true);
    bool seen = false;
    for (int t = 0; t < 30000 && !seen; t += 5) {
        seen = count_in(pgnpath, "[Round \"1\"]") >= 2;
        if (!seen)
            usleep(5000);
    }
    kill(c.pid, SIGTERM);
    int rc = child_finish(&c, 30000);
    kill(-c.pid, SIGKILL);
    cr_assert(seen, "no pair finished:\n%s", out);
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d\n%s", rc, out);
}

Test(run, a_stop_keeps_the_finished_pairs_of_a_batch, .init = command_fixture)
{
    enum { P = STOP_P, GAMES = STOP_GAMES };
    char pgnpath[PATH_MAX];
    snprintf(pgnpath, sizeof pgnpath, "%s/games.pgn", tmp);
    stop_in_the_first_batch("--think 15");
    cJSON *j = state_json("r");
    cJSON *part = at(j, "run", "partial");
    cr_expect(cJSON_GetArraySize(part) == 1 && at(cJSON_GetArrayItem(part, 0), "k", NULL)->valuedouble == 1 &&
                  at(cJSON_GetArrayItem(part, 0), "pairs", NULL)->valuedouble >= 1,
              "the finished pairs of batch 1 are kept in the state");
    cJSON_Delete(j);

    cr_assert_eq(shell(TUNE " resume %s/r", tmp), 0, "%s", out);
    j = state_json("r");
    cr_expect_eq(at(j, "run", "games")->valuedouble, GAMES);
    cr_expect_null(at(j, "run", "partial"), "nothing partial after the end");
    cJSON_Delete(j);
    /* Batch 1 was played once: its kept pairs plus the rest (a game of the
     * pair abandoned at the stop may be in the PGN too). */
    int r1 = count_in(pgnpath, "[Round \"1\"]");
    cr_expect_leq(r1, 2 * P + 1, "batch 1 has %d games in the PGN: its finished pairs were played again", r1);
    cr_expect_geq(r1, 2 * P);
}

/* The per-engine fault counts of a half-done batch's finished pairs survive
 * a stop: the engine crashes in every game, and after the resume each
 * per-engine count adds up to the run's total again. */
Test(run, a_stop_keeps_the_per_engine_counts_of_a_half_done_batch, .init = command_fixture)
{
    stop_in_the_first_batch("--think 15 --crash-after 3");
    cJSON *j = state_json("r");
    cJSON *part = cJSON_GetArrayItem(at(j, "run", "partial"), 0);
    cr_assert_not_null(part, "batch 1 is kept as partial");
    double kept = at(part, "crashes", NULL)->valuedouble;
    cr_assert_gt(kept, 0, "the kept pairs have crashes");
    cJSON *pe = at(part, "per_engine", NULL);
    cr_assert_not_null(pe, "the partial entry has no per-engine counts");
    cJSON *cr = at(pe, "crashes", NULL);
    cr_expect_eq(cJSON_GetArrayItem(cr, 0)->valuedouble + cJSON_GetArrayItem(cr, 1)->valuedouble, kept);
    /* The same stop as an older build wrote it, without them: it resumes,
     * and those pairs are missing from the per-engine counts only. */
    cr_assert_eq(shell("cp -r %s/r %s/old", tmp, tmp), 0, "%s", out);
    cJSON_DeleteItemFromObject(part, "per_engine");
    save_state_json("old", j);
    cJSON_Delete(j);
    cr_assert_eq(shell(TUNE " resume %s/old", tmp), 0, "%s", out);
    j = state_json("old");
    cr_expect_eq(at(j, "run", "games")->valuedouble, STOP_GAMES);
    cr = at(at(j, "run", "per_engine"), "crashes", NULL);
    cr_expect_eq(cJSON_GetArrayItem(cr, 0)->valuedouble + cJSON_GetArrayItem(cr, 1)->valuedouble,
                 at(j, "run", "crashes")->valuedouble - kept);
    cJSON_Delete(j);

    cr_assert_eq(shell(TUNE " resume %s/r", tmp), 0, "%s", out);
    j = state_json("r");
    cr_expect_eq(at(j, "run", "games")->valuedouble, STOP_GAMES);
    static const char *const counts[] = { "time_losses", "crashes", "illegal" };
    for (int k = 0; k < 3; k++) {
        const char *name = counts[k];
        cJSON *a = at(j, "run", "per_engine");
        a = a ? at(a, name, NULL) : NULL;
        cr_assert_not_null(a, "run.per_engine.%s", name);
        cr_expect_eq(cJSON_GetArrayItem(a, 0)->valuedouble + cJSON_GetArrayItem(a, 1)->valuedouble,
                     at(j, "run", name)->valuedouble, "run.per_engine.%s does not add up to run.%s", name, name);
    }
    cr_expect_gt(at(j, "run", "crashes")->valuedouble, kept);
    cJSON_Delete(j);
}
