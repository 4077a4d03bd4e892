/* base/: the stop on a signal (stopsig.h), the progress line (progress.h),
 * messages (errmsg.h: appendf, name distance, line and column), JSON counts
 * (jsonget.h), the object builder (jsonput.h), durations (duration.h) and the
 * command-line helpers (cliutil.h: the preamble, option tables). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cliutil.h"
#include "duration.h"
#include "errmsg.h"
#include "jsonget.h"
#include "jsonput.h"
#include "monowait.h"
#include "progress.h"
#include "stopsig.h"

/* How a child that installs the stop and then runs body() ends: its exit
 * code, or 1000 + the signal that killed it. */
static int in_child(void (*body)(void))
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        StopSig s;
        stopsig_install(&s, "stopping\n");
        body();
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
}

static void failed_save_then_ctrl_c(void)
{
    stopsig_request(); /* a save failed: the command winds down */
    raise(SIGINT);     /* the user's first Ctrl-C */
    _exit(stopsig_flag && stopsig_signal() == SIGINT ? 0 : 3);
}

static void ctrl_c_twice(void)
{
    raise(SIGINT);
    if (stopsig_signal() != SIGINT)
        _exit(3);
    raise(SIGINT);
}

static void sigterm(void)
{
    raise(SIGTERM);
    _exit(stopsig_flag && stopsig_signal() == SIGTERM ? 0 : 3);
}

/* A stop without a signal (a failed save, a verdict) is not the user's first
 * Ctrl-C: the Ctrl-C after it stops cleanly, so the command still saves and
 * says how to continue. */
Test(stopsig, a_ctrl_c_after_a_failed_save_is_the_first)
{
    cr_assert_eq(in_child(failed_save_then_ctrl_c), 0, "the Ctrl-C after a stop request ended the process");
}

Test(stopsig, a_second_signal_ends_the_process)
{
    cr_assert_eq(in_child(ctrl_c_twice), 1000 + SIGINT);
    cr_assert_eq(in_child(sigterm), 0);
}

/* A line is due after its interval (the terminal's or the log's), at once
 * when forced, and the interval counts from the last line shown. */
Test(progress, a_line_is_due_after_its_interval_or_when_forced)
{
    Progress p;
    progress_start(&p, 100, 1000, 0);
    p.tty = false;
    cr_assert_not(progress_due(&p, 999, false));
    cr_assert(progress_due(&p, 1000, false));
    cr_assert_not(progress_due(&p, 1500, false), "counted from the last line");
    cr_assert(progress_due(&p, 1500, true));
    p.tty = true;
    cr_assert_not(progress_due(&p, 1599, false));
    cr_assert(progress_due(&p, 1600, false), "a terminal's interval");
}

/* What progress_show writes into the file out (stdout redirected): plain
 * lines off a terminal; on one a redrawn line, cleared or ended before
 * other output. */
static char *shown(bool tty)
{
    char path[] = "/tmp/ratchet-progress-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    Progress p;
    progress_start(&p, 0, 0, 0);
    p.tty = tty;
    progress_show(&p, "pairs 1/3");
    progress_show(&p, "pairs 2/3");
    progress_clear(&p);
    printf("a message\n");
    progress_show(&p, "pairs 3/3");
    progress_end(&p);
    progress_end(&p);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    FILE *f = fdopen(fd, "r");
    rewind(f);
    static char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    return buf;
}

Test(progress, plain_lines_off_a_terminal_and_one_redrawn_line_on_one)
{
    cr_assert_str_eq(shown(false), "pairs 1/3\npairs 2/3\na message\npairs 3/3\n");
    cr_assert_str_eq(shown(true), "\rpairs 1/3\033[K\rpairs 2/3\033[K\r\033[Ka message\n\rpairs 3/3\033[K\n",
                     "one newline at the end, however often it is ended");
}

/* appendf keeps its promise of a terminated buffer also when nothing fits:
 * a buffer of one byte, or one already full. */
Test(appendf, the_buffer_is_terminated_even_when_nothing_fits)
{
    char one[1] = { 'x' };
    cr_assert_eq(appendf(one, 1, 0, "abc"), 0);
    cr_assert_eq(one[0], '\0');
    char four[4] = { 'a', 'b', 'c', 'd' };
    cr_assert_eq(appendf(four, 4, 3, "e"), 3);
    cr_assert_eq(four[3], '\0');
    char buf[8] = "";
    size_t n = appendf(buf, sizeof buf, 0, "%s", "abcdef");
    n = appendf(buf, sizeof buf, n, "%s", "ghij");
    cr_assert_eq(n, 7);
    cr_assert_str_eq(buf, "abcdefg");
}

/* name_distance: Levenshtein, ignoring case, for "did you mean". */
Test(errmsg, name_distance_is_an_edit_distance_ignoring_case)
{
    cr_assert_eq(name_distance("LmrQuietBase", "lmrquietbase"), 0);
    cr_assert_eq(name_distance("LmpBase", "LmrBase"), 1);
    cr_assert_eq(name_distance("Alpha", "Alpa"), 1);
    cr_assert_eq(name_distance("kitten", "sitting"), 3);
    cr_assert_eq(name_distance("", "abc"), 3);
}

/* text_line_col: 1-based, a newline ends a line, just past the end is allowed. */
Test(errmsg, line_and_column_of_a_character)
{
    const char *t = "ab\ncde\n\nf";
    size_t line, col;
    text_line_col(t, t, &line, &col);
    cr_assert(line == 1 && col == 1);
    text_line_col(t, t + 4, &line, &col); /* 'd' */
    cr_assert(line == 2 && col == 2, "%zu:%zu", line, col);
    text_line_col(t, t + 8, &line, &col); /* 'f' after an empty line */
    cr_assert(line == 4 && col == 1, "%zu:%zu", line, col);
    text_line_col(t, t + strlen(t), &line, &col);
    cr_assert(line == 4 && col == 2, "%zu:%zu", line, col);
}

/* A JSON count: a whole number from 0 to 2^53 (the last a double counts
 * exactly); a fraction, a negative, NaN and anything past 2^53 are not. */
Test(jsonget, a_count_is_a_whole_number_up_to_2_to_the_53)
{
    uint64_t x = 7;
    cr_assert(json_u64_of(0, &x) && x == 0);
    cr_assert(json_u64_of(9007199254740992.0, &x) && x == 9007199254740992ULL);
    cr_assert_not(json_u64_of(9007199254740994.0, &x), "past 2^53");
    cr_assert_not(json_u64_of(-1, &x));
    cr_assert_not(json_u64_of(2.5, &x));
    cr_assert_not(json_u64_of(NAN, &x));
    cJSON *o = cJSON_Parse("{\"n\": 12, \"f\": 1.5, \"s\": \"3\"}");
    char err[128];
    cr_assert_eq(json_get_count(o, "n", &x, "state.json: run.", err, sizeof err), 0);
    cr_assert_eq(x, 12);
    cr_assert_eq(json_get_count(o, "f", &x, "state.json: run.", err, sizeof err), -1);
    cr_assert_str_eq(err, "state.json: run.f is not a count (a non-negative integer)");
    cr_assert_eq(json_get_count(o, "s", &x, "state.json: run.", err, sizeof err), -1, "a string is not a count");
    cr_assert_eq(json_get_count(o, "m", &x, "state.json: run.", err, sizeof err), -1);
    cr_assert_str_eq(err, "state.json: run.m is missing");
    cJSON_Delete(o);
}

/* jsonput: members in order; a NULL item fails the object for good. */
Test(jsonput, the_first_failure_sticks_and_every_item_is_owned)
{
    JsonPut w = jput_new();
    jput_num(&w, "a", 1);
    jput_str(&w, "b", "x");
    jput_bool(&w, "c", true);
    jput_item(&w, "d", cJSON_CreateArray());
    const uint64_t counts[3] = { 0, 7, (uint64_t)1 << 32 };
    jput_counts(&w, "e", counts, 3);
    cJSON *o = jput_done(&w);
    cr_assert_not_null(o);
    char *text = cJSON_PrintUnformatted(o);
    cr_assert_str_eq(text, "{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":[],\"e\":[0,7,4294967296]}");
    free(text);
    cJSON_Delete(o);
    w = jput_new();
    jput_num(&w, "a", 1);
    jput_item(&w, "b", NULL); /* a failed allocation */
    jput_item(&w, "c", cJSON_CreateArray()); /* deleted, not leaked (ASan checks) */
    cr_assert_null(jput_done(&w));
}

/* Durations as the progress lines and the report write them. */
Test(duration, as_people_read_them)
{
    char b[32];
    duration_format(7.4, b, sizeof b);
    cr_assert_str_eq(b, "7s");
    duration_format(185, b, sizeof b);
    cr_assert_str_eq(b, "3m05s");
    duration_format(7800, b, sizeof b);
    cr_assert_str_eq(b, "2h10m");
    duration_format_as(7, DURATION_MINUTES, b, sizeof b);
    cr_assert_str_eq(b, "0m07s");
    duration_format_as(7, DURATION_FULL, b, sizeof b);
    cr_assert_str_eq(b, "0h00m07s");
    duration_format(-1, b, sizeof b);
    cr_assert_str_eq(b, "?");
    duration_format(2e8, b, sizeof b);
    cr_assert_str_eq(b, "?", "beyond 1e8 s: an ETA that cannot be estimated");
}

static int more_lines;
static void more(FILE *out)
{
    (void)out;
    more_lines++;
}

/* The one preamble of the subcommands: --help anywhere prints the usage
 * (and the extra text) and is exit 0; arguments that do not start as the
 * command needs are a usage error, exit 2; else the command goes on. */
Test(cliutil, the_preamble_answers_help_and_a_wrong_start, .init = cr_redirect_stdout)
{
    char *help[] = { "cmd", "dir", "-x", "--help", NULL }, *none[] = { "cmd", NULL }, *opt[] = { "cmd", "-x", NULL };
    char *dir[] = { "cmd", "dir", NULL }, *two[] = { "cmd", "dir", "more", NULL };
    more_lines = 0;
    cr_assert_eq(cli_preamble(4, help, "usage: cmd\n", more, CLI_DIR_ONLY), 0);
    cr_assert_eq(more_lines, 1);
    cr_assert_eq(cli_preamble(1, none, "usage: cmd\n", NULL, CLI_ANY), -1);
    cr_assert_eq(cli_preamble(1, none, "usage: cmd\n", NULL, CLI_ARGS), 2);
    cr_assert_eq(cli_preamble(2, opt, "usage: cmd\n", NULL, CLI_ARGS), -1);
    cr_assert_eq(cli_preamble(2, opt, "usage: cmd\n", NULL, CLI_DIR_FIRST), 2);
    cr_assert_eq(cli_preamble(2, dir, "usage: cmd\n", NULL, CLI_DIR_FIRST), -1);
    cr_assert_eq(cli_preamble(3, two, "usage: cmd\n", NULL, CLI_DIR_FIRST), -1);
    cr_assert_eq(cli_preamble(3, two, "usage: cmd\n", NULL, CLI_DIR_ONLY), 2);
    cr_assert_eq(cli_preamble(2, dir, "usage: cmd\n", NULL, CLI_DIR_ONLY), -1);
    fflush(stdout);
    cr_assert_stdout_eq_str("usage: cmd\n");
}

/* ---- option tables (cli_options) ---------------------------------------------- */

typedef struct {
    bool quiet, rounds_set;
    uint64_t rounds;
    double ratio;
    int bake;
    char file[16];
    const char *name;
    char kv[64];
    int calls;
} Opts;

static int note_kv(void *ctx, const char *opt, const char *key, const char *value, char *err, size_t errlen)
{
    Opts *o = ctx;
    if (!strcmp(key, "bad"))
        return errmsg(err, errlen, "%s: no bad", opt);
    snprintf(o->kv + strlen(o->kv), sizeof o->kv - strlen(o->kv), "%s:%s;", key, value);
    return 0;
}

/* -stop stops the walk; -count takes no value and counts. */
static int note_call(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    (void)argc;
    (void)err;
    (void)errlen;
    Opts *o = opt->target;
    o->calls++;
    bool stop = !strcmp(argv[*i], "-stop");
    *i += 1;
    return stop;
}

static const char *const BAKE[] = { "auto", "yes", "no", NULL };

/* Parses the words of line (split at spaces) with the test table: cli_options'
 * return, the leftover words joined into left, the message into err. */
static int parse(Opts *o, CliSay say, bool keep_rest, const char *line, char *left, char *err)
{
    static char buf[512];
    char *argv[32], *rest[32];
    int argc = 0, nrest = -1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 32; w = strtok(NULL, " "))
        argv[argc++] = w;
    memset(o, 0, sizeof *o);
    const CliOpt opts[] = {
        { "-quiet", CLI_OPT_FLAG, .target = &o->quiet },
        { "-rounds", CLI_OPT_UINT, .target = &o->rounds, .min = 2, .max = 100, .set = &o->rounds_set },
        { "-ratio", CLI_OPT_DOUBLE, .target = &o->ratio, .lo = 0, .hi = 1 },
        { "-bake", CLI_OPT_CHOICE, .target = &o->bake, .choices = BAKE },
        { "-base|-tuned", CLI_OPT_STRING, .target = o->file, .size = sizeof o->file, .want = "a value file" },
        { "-name", CLI_OPT_STRING, .target = &o->name },
        { "-each", CLI_OPT_KV, .target = o, .kv = note_kv },
        { "-spsa", CLI_OPT_KV_LEADING, .target = o, .kv = note_kv },
        { "-count|-stop", CLI_OPT_CALL, .target = o, .call = note_call },
        { .name = NULL },
    };
    err[0] = left[0] = '\0';
    int rc = cli_options(opts, say, argc, argv, keep_rest ? rest : NULL, keep_rest ? &nrest : NULL, err, 256);
    for (int k = 0; keep_rest && k < nrest; k++)
        snprintf(left + strlen(left), 256 - strlen(left), "%s%s", k ? " " : "", rest[k]);
    return rc;
}

/* Every kind takes its value; the words no entry names are left over, in order. */
Test(cliutil, an_option_table_takes_each_kind_and_leaves_the_rest)
{
    Opts o;
    char left[256], err[256];
    cr_assert_eq(parse(&o, CLI_SAY_NEEDS, true,
                       "-quiet -rounds 7 -x 1 -ratio 0.5 -bake no -tuned t.json -name -n "
                       "-each a=1 b=2 -spsa c=3 d -count nodes=5",
                       left, err),
                 0, "%s", err);
    cr_assert(o.quiet && o.rounds_set);
    cr_assert_eq(o.rounds, 7);
    cr_assert_float_eq(o.ratio, 0.5, 1e-12);
    cr_assert_eq(o.bake, 2);
    cr_assert_str_eq(o.file, "t.json");
    cr_assert_str_eq(o.name, "-n", "a string without want takes any word");
    cr_assert_str_eq(o.kv, "a:1;b:2;c:3;");
    cr_assert_eq(o.calls, 1);
    cr_assert_str_eq(left, "-x 1 d nodes=5", "the unknown words, in order");
    /* a long file name is cut to its buffer, as snprintf does */
    cr_assert_eq(parse(&o, CLI_SAY_NEEDS, true, "-base a-very-long-name.json", left, err), 0);
    cr_assert_str_eq(o.file, "a-very-long-nam");
    /* a call may stop the walk: what follows is not looked at */
    cr_assert_eq(parse(&o, CLI_SAY_NEEDS, false, "-count -stop -bogus", left, err), 1);
    cr_assert_eq(o.calls, 2);
}

/* A bound, a bad choice, a missing value and an unknown option: each is
 * refused with the option's message, as each kind says it (or as
 * CLI_SAY_BAD says every one); the first error ends the walk. */
Test(cliutil, an_option_table_refuses_bad_values_in_its_own_words)
{
    static const struct {
        CliSay say;
        bool rest;
        const char *line, *msg;
    } CASES[] = {
        { CLI_SAY_NEEDS, true, "-rounds 101", "-rounds needs an integer 2..100, not 101" },
        { CLI_SAY_NEEDS, true, "-rounds 1", "-rounds needs an integer 2..100, not 1" },
        { CLI_SAY_NEEDS, true, "-rounds -5", "-rounds needs an integer 2..100, not -5" },
        { CLI_SAY_NEEDS, true, "-quiet -rounds", "-rounds needs an integer 2..100" },
        { CLI_SAY_NEEDS, true, "-ratio 1.5", "-ratio needs a number from 0 to 1, not 1.5" },
        { CLI_SAY_NEEDS, true, "-bake maybe", "-bake needs auto, yes or no, not 'maybe'" },
        { CLI_SAY_NEEDS, true, "-bake", "-bake needs auto, yes or no, not ''" },
        { CLI_SAY_NEEDS, true, "-base -quiet", "-base needs a value file" },
        { CLI_SAY_NEEDS, true, "-tuned", "-tuned needs a value file" },
        { CLI_SAY_NEEDS, true, "-name", "-name needs a value" },
        { CLI_SAY_NEEDS, true, "-each", "-each needs key=value arguments" },
        { CLI_SAY_NEEDS, true, "-each a=1 b", "-each: expected key=value, got 'b'" },
        { CLI_SAY_NEEDS, true, "-each bad=1", "-each: no bad" },
        { CLI_SAY_NEEDS, true, "-spsa b", "-spsa needs key=value arguments" },
        { CLI_SAY_NEEDS, true, "-x -rounds 0 -bake maybe", "-rounds needs an integer 2..100, not 0" },
        { CLI_SAY_BAD, true, "-rounds 101", "bad value \"101\" for -rounds" },
        { CLI_SAY_BAD, true, "-bake maybe", "bad value \"maybe\" for -bake" },
        { CLI_SAY_BAD, true, "-ratio", "-ratio needs a value" },
        { CLI_SAY_BAD, false, "-quiet -bogus -rounds 0", "unknown option \"-bogus\"" },
        { CLI_SAY_BAD, false, "-quiet -rounds 5 d=1", "unknown option \"d=1\"" },
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        Opts o;
        char left[256], err[256];
        int rc = parse(&o, CASES[k].say, CASES[k].rest, CASES[k].line, left, err);
        cr_expect_eq(rc, -1, "%s: %d", CASES[k].line, rc);
        cr_expect_str_eq(err, CASES[k].msg, "%s", CASES[k].line);
    }
}

/* ---- monowait: timed waits on the monotonic clock ------------------------------ */

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool flag;
} Signal;

static void *signal_later(void *arg)
{
    Signal *s = arg;
    struct timespec d = { 0, 30 * 1000000L };
    nanosleep(&d, NULL);
    pthread_mutex_lock(&s->mu);
    s->flag = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* A wait lasts its time (a variable made for another clock than the wait's
 * deadline ends at once: a monotonic deadline is decades past on the wall
 * clock) and ends at a signal.  Setting the wall clock back, what the
 * monotonic clock is for, needs a privilege a test should not use. */
Test(monowait, a_wait_lasts_its_time_and_ends_at_a_signal)
{
    Signal s = { .flag = false };
    pthread_mutex_init(&s.mu, NULL);
    cr_assert_eq(mono_cond_init(&s.cv), 0);
    pthread_mutex_lock(&s.mu);
    double t0 = mono_s();
    cr_expect_eq(mono_cond_wait_us(&s.cv, &s.mu, 50000), ETIMEDOUT);
    double waited = mono_s() - t0;
    cr_expect(waited >= 0.049 && waited < 5, "a 50 ms wait took %.3f s", waited);
    t0 = mono_s();
    cr_expect_eq(mono_cond_wait_us(&s.cv, &s.mu, 1200000), ETIMEDOUT, "1.2 s: the microseconds past a second");
    waited = mono_s() - t0;
    cr_expect(waited >= 1.19 && waited < 6, "a 1.2 s wait took %.3f s", waited);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, signal_later, &s), 0);
    t0 = mono_s();
    while (!s.flag && mono_s() - t0 < 10)
        mono_cond_wait_us(&s.cv, &s.mu, 10 * 1000000L);
    waited = mono_s() - t0;
    pthread_mutex_unlock(&s.mu);
    pthread_join(th, NULL);
    cr_expect(s.flag && waited < 5, "the signal ended a 10 s wait after %.3f s", waited);
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
}
