/* Tuning runs end to end against the fake engine build/fake/fakespsa (a UCI
 * engine whose strength depends on its spin options Alpha, Beta, Gamma):
 * SIGKILL and resume, SIGTERM and resume, configuration checks before any
 * game, export, the lock, the refusal of an existing directory.  The pieces
 * underneath are in test_state.c, verify in test_verify.c. */
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
#include "rd.h"
#include "run_cmd.h"
#include "setup.h"
#include "status.h"

#define FAKE "build/fake/fakespsa"

static void setup(void)
{
    tmp_create("/tmp/ratchet-run-XXXXXX");
}

TestSuite(run, .init = setup, .fini = tmp_remove, .timeout = 120);

/* ---- running subcommands in a child process -------------------------------------- */



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
    Args a = fake_run_args("r", 40, 0, 2);
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
    Args a = fake_run_args("r", 80, 1, 2);
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
    add_line(&b, "resume %s", dir);
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
    Args a = fake_run_args("r", 80, 1, 2);
    /* Two pairs per batch: a batch is spread over both workers. */
    add_line(&a, "-spsa pairs-per=2");
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
    add_line(&b, "resume %s", dir);
    rc = run_to_end(resume_main, &b, "log2");
    log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    free(log);
    assert_complete("r", 80);
}

Test(run, resume_extends_the_run)
{
    Args a = fake_run_args("r", 20, 0, 1);
    cr_assert_eq(run_to_end(run_main, &a, "log1"), 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    Args b = { .n = 0 };
    add_line(&b, "resume %s", dir);
    cr_assert_eq(run_to_end(resume_main, &b, "log2"), 0);
    char *log = slurp("log2");
    cr_assert(strstr(log, "complete"), "a complete run says so:\n%s", log);
    free(log);
    add_line(&b, "resume %s -spsa games=40", dir);
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
    Args a = fake_run_args("a", 60, 0, 1);
    add(&a, "-engine");
    add(&a, "args=--seed 5 --seed-each-game");
    add_line(&a, "-spsa form=%s", form);
    cr_assert_eq(run_to_end(run_main, &a, "log_a"), 0);

    Args b = fake_run_args("b", 60, 0, 1);
    add(&b, "-engine");
    add(&b, "args=--seed 5 --seed-each-game --think 2");
    add_line(&b, "-spsa form=%s", form);
    pid_t pid = spawn(run_main, &b, "log_b1");
    wait_rows("b", 4, pid);
    kill(pid, SIGTERM);
    cr_assert_eq(wait_child(pid), 128 + SIGTERM, "the run was stopped before its end");
    args_free(&b);
    int stopped_at = count_rows("b");
    char dir[256];
    snprintf(dir, sizeof dir, "%s/b", tmp);
    Args c = { .n = 0 };
    add_line(&c, "resume %s", dir);
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
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-spsa gamez=4");
    refused(&a, "spsa.gamez", NULL);
}

Test(run, refuses_an_unknown_key_in_the_config_file)
{
    write_file("run.json", "{\"spsa\": {\"games\": 20}, \"colour\": \"blue\"}\n");
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-config file=%s/run.json", tmp);
    refused(&a, "colour", "run.json");
}

Test(run, refuses_a_game_option_the_runner_does_not_know)
{
    write_file("run.json", "{\"each\": {\"nodez\": 5}}\n");
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-config file=%s/run.json", tmp);
    refused(&a, "nodez", "run.json");
}

Test(run, refuses_a_parameter_the_engine_lacks)
{
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-engine args=--no-gamma");
    refused(&a, "Gamma", "params.file");
}

Test(run, refuses_min_above_max)
{
    write_file("spec.txt", "Alpha, int, 50, 0, 100, 5, 0.002\nBeta, int, 50, 100, 0, 5, 0.002\n");
    Args a = fake_run_args("r", 20, 0, 1);
    refused(&a, "Beta", "min 100 > max 0");
}

Test(run, refuses_a_value_outside_its_range)
{
    write_file("spec.txt", "Alpha, int, 500, 0, 100, 5, 0.002\n");
    Args a = fake_run_args("r", 20, 0, 1);
    refused(&a, "Alpha", "500");
}

Test(run, refuses_a_range_wider_than_the_engines)
{
    write_file("spec.txt", "Alpha, int, 50, 0, 200, 5, 0.002\n");
    Args a = fake_run_args("r", 20, 0, 1);
    refused(&a, "Alpha", "[0, 100]");
}

Test(run, refuses_a_missing_book)
{
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-openings file=%s/nothere.epd", tmp);
    refused(&a, "openings.file", "nothere.epd");
}

/* Without -openings a run plays from the shipped book, openings/default.epd. */
Test(run, without_openings_uses_the_default_book)
{
    Args a = fake_run_args("r", 8, 0, 1);
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
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-params only=Alpha,Delta");
    refused(&a, "params.only", "Delta");
}

Test(run, refuses_an_existing_directory)
{
    char path[256];
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(mkdir(path, 0755), 0);
    write_file("r/notes.txt", "mine\n");
    Args a = fake_run_args("r", 20, 0, 1);
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
    Args a = fake_run_args("r", 20, 0, 1);
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0);
    char dir[256], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    int fd = rd_lock(dir, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_assert_eq(rd_lock_holder(dir), getpid());
    Args b = { .n = 0 };
    add_line(&b, "resume %s -spsa games=40", dir);
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
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-params only=Gamma,Alpha");
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0);
    char dir[256], out[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    snprintf(out, sizeof out, "%s/tuned/values.json", tmp);
    Args b = { .n = 0 };
    add_line(&b, "export %s -o %s", dir, out);
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
    add_line(&b, "export %s", dir);
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
    Args a = fake_run_args("r", 20, 0, 1);
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    Args b = { .n = 0 };
    add_line(&b, "status %s", dir);
    cr_assert_eq(run_to_end(status_main, &b, "out"), 0);
    char *text = slurp("out");
    cr_assert(strstr(text, "complete"), "%s", text);
    for (const char *col[] = { "start", "current", "last10%", "min", "max", "c_k", "flag", "Alpha", "Beta", "Gamma" },
         **c = col; c < col + 10; c++)
        cr_assert(strstr(text, *c), "'%s' in:\n%s", *c, text);
    free(text);
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
    Args a = fake_run_args(dir, games, 0, 1);
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
    add_line(&r, "resume %s/%s -spsa games=%d", tmp, dir, games);
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
    add_line(&a, "-engine option.Ponder=true");
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
    add_line(&s, "status %s/r", tmp);
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
    Args a = fake_run_args("r", 20, 0, 1);
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
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-engine args=--more-options");
    refused(&a, "'Skill Levle'", "the closest option it has is 'Skill Level'");
}

Test(run, refuses_a_bad_check_or_spin_value)
{
    Args a = fake_run_args("r", 20, 0, 1);
    add_line(&a, "-engine option.Ponder=yes");
    refused(&a, "engine.option.Ponder", "true or false");
    a = fake_run_args("r", 20, 0, 1);
    add(&a, "-each");
    add(&a, "option.Move Overhead=9000");
    add_line(&a, "-engine args=--more-options");
    refused(&a, "each.option.Move Overhead", "from 0 to 5000");
    a = fake_run_args("r", 20, 0, 1);
    add(&a, "-each");
    add(&a, "option.Slow Movr=1.0");
    add_line(&a, "-engine args=--more-options");
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
    Args a = fake_run_args("r", 8, 0, 1);
    add_line(&a, "-params only=Alpha");
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
    /* The same bytes with a new mtime (a rebuild): refused, and the message says only the mtime changed. */
    cr_assert_eq(shell("touch -d '2030-01-01 00:00' %s", eng), 0, "%s", out);
    rc = shell(TUNE " resume %s/r -spsa games=12", tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "(mtime ") && strstr(out, "only its modification time changed: its id name and size are the same"),
              "%s", out);
    /* Another byte: not only the mtime. */
    cr_assert_eq(shell("printf x >> %s", eng), 0);
    rc = shell(TUNE " resume %s/r -spsa games=12", tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "size ") && !strstr(out, "only its modification time"), "%s", out);
}

/* An engine moved or copied elsewhere: resume -engine cmd=NEW follows it
 * (its path and mtime aside, the check holds: another binary is refused)
 * and records the new path for the next resume. */
Test(run, resume_follows_an_engine_named_anew_and_checks_it, .init = command_fixture)
{
    char eng[PATH_MAX], moved[PATH_MAX], other[PATH_MAX];
    snprintf(eng, sizeof eng, "%s/a/engine", tmp);
    snprintf(moved, sizeof moved, "%s/b/engine", tmp);
    snprintf(other, sizeof other, "%s/c/engine", tmp);
    cr_assert_eq(shell("mkdir -p %s/a %s/b %s/c && cp %s %s", tmp, tmp, tmp, FAKESPSA, eng), 0, "%s", out);
    finished_run("r", eng, 4);
    /* A copy with a new mtime, then the old program gone. */
    cr_assert_eq(shell("sleep 0.01; cp %s %s && rm %s", eng, moved, eng), 0, "%s", out);
    int rc = shell(TUNE " resume %s/r -spsa games=6", tmp);
    cr_expect_eq(rc, 2, "the run's engine is gone: exit %d\n%s", rc, out);
    cr_expect(strstr(out, "-engine cmd="), "the message says how to name it anew:\n%s", out);
    rc = shell(TUNE " resume %s/r -spsa games=6 -engine cmd=%s", tmp, moved);
    cr_expect_eq(rc, 0, "the moved engine resumes: exit %d\n%s", rc, out);
    cr_expect(strstr(out, "named anew") && strstr(out, moved), "%s", out);
    /* Recorded: the next resume needs no -engine. */
    rc = shell(TUNE " resume %s/r -spsa games=8", tmp);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    /* Another binary under a new name is still another engine. */
    cr_assert_eq(shell("cp %s %s && printf x >> %s", moved, other, other), 0);
    rc = shell(TUNE " resume %s/r -spsa games=10 -engine cmd=%s", tmp, other);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "size") && strstr(out, "-force"), "the message says what changed:\n%s", out);
    rc = shell(TUNE " resume %s/r -spsa games=10 -engine name=x", tmp);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "only its program"), "%s", out);
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

/* A run directory copied elsewhere (restored from a backup, a commit, another
 * machine) resumes in its own files: the PGN it kept inside its directory,
 * as `make tune` and `make night` keep it, is named anew in the copy, so
 * the copy never writes into the directory it came from (nor fails when
 * that one is gone). */
Test(run, a_copied_run_directory_plays_on_in_its_own_pgn, .init = command_fixture)
{
    int rc = shell(TUNE " run -engine cmd=%s -params file=%s/spec.txt -each nodes=1 -openings file=%s/book.epd "
                        "-maxmoves 20 -spsa games=8 -srand 3 -pgnout file=%s/r/games.pgn -out %s/r",
                   FAKESPSA, tmp, tmp, tmp, tmp);
    cr_assert_eq(rc, 0, "the run failed:\n%s", out);
    char orig[PATH_MAX], copy[PATH_MAX];
    snprintf(orig, sizeof orig, "%s/r/games.pgn", tmp);
    snprintf(copy, sizeof copy, "%s/c/games.pgn", tmp);
    /* its 8 games and its validation's */
    int before = count_in(orig, "[Event ");
    cr_assert_geq(before, 8, "the run's PGN holds its games:\n%s", out);
    cr_assert_eq(shell("cp -r %s/r %s/c", tmp, tmp), 0, "%s", out);
    cr_assert_eq(shell(TUNE " resume %s/c -spsa games=16", tmp), 0, "%s", out);
    cr_expect(strstr(out, "the run was in ") && strstr(out, "; its games go to ") && strstr(out, copy),
              "the resume says where the games go now:\n%s", out);
    cr_expect_eq(count_in(orig, "[Event "), before, "the copy wrote into the original's PGN");
    int copied = count_in(copy, "[Event ");
    cr_expect_geq(copied, before + 8, "the copy's PGN holds its 8 games more: %d, %d before", copied, before);
    cJSON *j = state_json("c");
    const cJSON *pgn = cJSON_GetObjectItemCaseSensitive(at(j, "config", "pgnout"), "file");
    cr_expect(cJSON_IsString(pgn) && !strcmp(pgn->valuestring, copy), "the copy's state names its own PGN");
    cJSON_Delete(j);
    /* The original gone, the copy goes on all the same. */
    cr_assert_eq(shell("rm -rf %s/r", tmp), 0);
    cr_assert_eq(shell(TUNE " resume %s/c -spsa games=20", tmp), 0, "%s", out);
    cr_expect_geq(count_in(copy, "[Event "), copied + 4);
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

/* A directory that holds files but no state.json (what a run whose first
 * save failed leaves) is no run to resume: run -out says so, and does not
 * advise the resume that would refuse it. */
Test(run, a_directory_without_a_state_is_not_advised_to_resume)
{
    char d[256];
    snprintf(d, sizeof d, "%s/r", tmp);
    cr_assert_eq(mkdir(d, 0755), 0);
    write_file("r/history.csv", "");
    Args a = fake_run_args("r", 4, 0, 1);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 2, "%s", log);
    cr_assert(strstr(log, "holds no run (no state.json") && !strstr(log, "-tune resume"), "%s", log);
    free(log);
}

/* A run on the wall clock reads the machine before its games: busy, it
 * warns and plays (SPSA's games need no wait); at nodes= it does not read
 * it. */
Test(run, warns_when_it_starts_on_a_busy_machine_at_a_wall_clock)
{
    static const char *const LIMITS[] = { "tc=2+0.05", "nodes=1" };
    for (int k = 0; k < 2; k++) {
        Args a = fake_run_args(k ? "n" : "w", 4, 0, 2);
        for (int i = 0; i < a.n; i++)
            if (!strcmp(a.v[i], "nodes=1")) {
                free(a.v[i]);
                cr_assert_not_null(a.v[i] = strdup(LIMITS[k]));
            }
        int rc = run_while_busy(run_main, &a, "log", "warning: playing on a busy machine: ");
        char *log = slurp("log");
        cr_assert_eq(rc, 0, "%s", log);
        bool warned = strstr(log, "ratchet-tune: run: warning: playing on a busy machine: ") != NULL;
        cr_expect(k ? !warned : warned, "%s:\n%s", LIMITS[k], log);
        cr_expect(!strstr(log, "waiting up to"), "%s", log);
        free(log);
    }
}

/* run.wall_search at a wall clock: the nodes the engines reported over
 * their moves' wall ms.  The fake searches 50 nodes a ms of its 2 ms moves:
 * at most 50 a ms (the wall ms also hold the pipe).  An engine that reports
 * absurd counts (10^14 a ms) stops the count below 2^52, where the state's
 * numbers are exact, and the run ends and loads as any other. */
Test(run, its_wall_search_counts_nodes_a_ms_and_stays_exact)
{
    static const char *const RATE[] = { "50", "100000000000000" };
    for (int k = 0; k < 2; k++) {
        const char *dir = k ? "absurd" : "w";
        Args a = fake_run_args(dir, 8, 0, 2);
        for (int i = 0; i < a.n; i++)
            if (!strcmp(a.v[i], "nodes=1")) {
                free(a.v[i]);
                cr_assert_not_null(a.v[i] = strdup("tc=10+0.1"));
            }
        add(&a, "-engine");
        add(&a, "args=--think 2 --nodes-per-ms %s", RATE[k]);
        int rc = run_to_end(run_main, &a, "log");
        char *log = slurp("log");
        cr_assert_eq(rc, 0, "%s", log);
        free(log);
        RunState rs;
        load_state(dir, &rs);
        cr_expect_eq(rs.games, 8);
        if (k == 0)
            cr_expect(rs.wall_ms > 0 && rs.wall_nodes > 10 * rs.wall_ms && rs.wall_nodes <= 50 * rs.wall_ms,
                      "%llu nodes in %llu ms", (unsigned long long)rs.wall_nodes, (unsigned long long)rs.wall_ms);
        else
            cr_expect(rs.wall_nodes <= WALL_SEARCH_MAX && rs.wall_ms <= WALL_SEARCH_MAX, "%llu nodes in %llu ms",
                      (unsigned long long)rs.wall_nodes, (unsigned long long)rs.wall_ms);
        runstate_free(&rs);
    }
}
