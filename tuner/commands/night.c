/* `ratchet-tune night`: SPSA, the ablation, the export of what pays, the
 * confirmation at the user's limit and the morning page; see night.h. */
#include "night.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ablation_record.h"
#include "book.h"
#include "cli.h"
#include "cliutil.h"
#include "duration.h"
#include "conf.h"
#include "elotext.h"
#include "errmsg.h"
#include "export.h"
#include "histrate.h"
#include "jsonget.h"
#include "loadcheck.h"
#include "nightsteps.h"
#include "rd.h"
#include "readfile.h"
#include "run_cmd.h"
#include "setup.h"
#include "spsa.h"
#include "verify_call.h"
#include "state.h"
#include "validate.h"
#include "verify.h"
#include "verify_record.h"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* The split of a night (-hours), measured rates in games per second:
 *  1. The confirmation first: -confirm-pairs (default 1000, 2000 games: an
 *     interval of about +-10 Elo at the user's limit) at its measured rate,
 *     at most a third of the night.
 *  2. The rest at the run's limit, two thirds of its games to SPSA and a
 *     third to the ablation.  SPSA's signal grows as the square root of its
 *     games and so does the ablation's precision per group; the ablation
 *     needs about 6000 pairs to keep a true +8 Elo group 95% of the time
 *     (docs/verify.md), which a third of a night on two cores buys.  The
 *     run's validation (about 10% of its budget) comes out of SPSA's part.
 *  3. The held-out share of the book: validation's pairs, the ablation's and
 *     the confirmation's, one opening each, and 5% more. */
#define NIGHT_RULE "confirmation first (at most a third); then 2/3 SPSA (validation inside), 1/3 ablation, in games"
#define DEFAULT_HOURS 8.0
#define DEFAULT_CONFIRM_PAIRS 1000
/* The confirmation waits this long for a busy machine (seconds): a night's
 * confirmation starts unattended, and a backup or an update that runs at
 * night is over in less. */
#define DEFAULT_IDLE_WAIT 1800.0
#define CALIBRATION_GAMES 24
#define MIN_SPSA_GAMES 200
#define MIN_ABLATION_PAIRS 200

#define STEPS NIGHT_STEP_NAMES
enum { NSTEPS = NIGHT_NSTEPS };

static const char NIGHT_USAGE[] =
    "usage: ratchet-tune night -out DIR [-hours H] [-confirm tc=..|st=..|nodes=..] [-games N]\n"
    "                          [-ablation-pairs P] [-confirm-pairs C] [-idle-wait D] [-until STEP] [-force]\n"
    "                          [run options]\n"
    "       ratchet-tune night DIR [-until STEP] [-force] [-idle-wait D] [-engine cmd=PATH] [-ablation-pairs P]\n"
    "\n"
    "The whole night in one command, each step resumable (Ctrl-C, a reboot: `night DIR`):\n"
    "  spsa      the SPSA run at the run's limit (the run options: -engine, -params, -each,\n"
    "            -openings, -draw, -resign, -spsa, -concurrency, ...; see `run -h`)\n"
    "  ablation  verify DIR -ablate at the same limit: which groups of moves pay, and the\n"
    "            additivity check\n"
    "  export    export DIR -ablation keep=pays -o DIR/night/kept.json, with what the kept\n"
    "            groups predict together\n"
    "  confirm   verify DIR -tuned DIR/night/kept.json at the user's limit, on openings no\n"
    "            earlier step played; bin/ratchet gets the values baked in\n"
    "            (DIR/verify/ratchet-tuned)\n"
    "  morning   DIR/morning.txt: what moved, what was kept and why, the prediction and the\n"
    "            confirmation, the bake command and the name, value lines for OpenBench\n"
    "\n"
    "  -hours H            the night's wall time (default 8), split by a rule from rates this\n"
    "                      machine measures first (24 games at each limit): the confirmation\n"
    "                      first, then 2/3 of the games SPSA, 1/3 the ablation (at most:\n"
    "                      at its start, the hours SPSA left at SPSA's own rate)\n"
    "  -games N            SPSA games instead (no measuring at the run's limit)\n"
    "  -ablation-pairs P   the ablation's pairs instead; for a night in progress before its\n"
    "                      ablation, at most the plan's, kept whatever hours SPSA left\n"
    "  -confirm LIMIT      the user's limit (default: the run's clock on the wall, nodestime=0)\n"
    "  -each ... nodestime=auto\n"
    "                      the run's clock counts the nodes a ms of the user's clock is worth on\n"
    "                      this machine, measured first in the rate games at the user's limit\n"
    "                      (the engines' nodes over their moves' wall ms): SPSA and the ablation\n"
    "                      then search about as many nodes a move as the confirmation\n"
    "  -confirm-pairs C    the confirmation's pairs (default 1000)\n"
    "  -idle-wait D        a confirmation on the wall clock first reads the machine's CPUs: other\n"
    "                      work beside its games makes them lose on time.  It waits up to D for\n"
    "                      a busy machine (default 30m; 90s, 1h; off), then plays with a warning\n"
    "  -until STEP         stop after STEP (spsa, ablation, export, confirm)\n"
    "  -force              play on an engine that changed since the run (resume -force)\n"
    "  -engine cmd=PATH    a night in progress: its engine is now at PATH (resume -engine)\n"
    "\n"
    "DIR may be a run started by `run`: `night DIR` takes it from where it is.  Exit codes:\n"
    "0 done; 1 a step failed (fix it, then `night DIR`); 2 bad usage; 128+N stopped by signal N.\n";

typedef struct {
    char dir[PATH_MAX];
    char path[PATH_MAX + 32];      /* DIR/night.json */
    char kept[PATH_MAX + 32];      /* DIR/night/kept.json */
    double hours;
    uint64_t spsa_games, ablation_pairs, confirm_pairs;
    double holdout, rate_run, rate_confirm;
    long long nodestime;           /* -each nodestime=auto: the run's nodestime, measured (0: not auto) */
    double wall_npms;              /* ... from the nodes per ms of the clock the engines searched at the user's limit */
    bool by_time;                  /* SPSA's games and the ablation's pairs both from -hours: the ablation re-sized */
    uint64_t seed;                 /* the ablation's and the confirmation's -srand: seed + 1, seed + 2 */
    int until;                     /* index of the last step to play */
    bool force;
    double idle_wait;              /* the confirmation's -idle-wait (seconds; -1: no check) */
    bool idle_given;               /* -idle-wait on this command line */
    const char *engine_cmd;        /* a night in progress: -engine cmd=PATH (argv's) */
    int nconfirm;
    char **confirm;                /* -each words of the confirmation */
    int nrun;
    char **run;                    /* the run options (a new night) */
    char status[NSTEPS][16];
    int exit[NSTEPS];
    char created[32];
} Night;

static void night_free(Night *n)
{
    conf_free_argv(n->nconfirm, n->confirm);
    conf_free_argv(n->nrun, n->run);
}

/* ---- DIR/night.json ------------------------------------------------------------ */

static cJSON *words_json(int n, char **w)
{
    return n ? cJSON_CreateStringArray((const char *const *)w, n) : cJSON_CreateArray();
}

static int night_save(const Night *n, char *err, size_t errlen)
{
    cJSON *j = cJSON_CreateObject(), *plan = cJSON_CreateObject(), *steps = cJSON_CreateArray();
    bool ok = j && plan && steps;
    ok = ok && cJSON_AddNumberToObject(j, "version", NIGHT_FILE_VERSION) && cJSON_AddStringToObject(j, "created", n->created) &&
         cJSON_AddNumberToObject(j, "seed", (double)n->seed) &&
         cJSON_AddNumberToObject(j, "hours", n->hours) && cJSON_AddStringToObject(j, "until", STEPS[n->until]);
    ok = ok && cJSON_AddNumberToObject(plan, "spsa_games", (double)n->spsa_games) &&
         cJSON_AddNumberToObject(plan, "ablation_pairs", (double)n->ablation_pairs) &&
         cJSON_AddNumberToObject(plan, "confirm_pairs", (double)n->confirm_pairs) &&
         cJSON_AddNumberToObject(plan, "holdout", n->holdout) &&
         cJSON_AddNumberToObject(plan, "rate_run", n->rate_run) &&
         cJSON_AddNumberToObject(plan, "rate_confirm", n->rate_confirm) &&
         cJSON_AddBoolToObject(plan, "by_time", n->by_time) && cJSON_AddStringToObject(plan, "rule", NIGHT_RULE);
    if (ok && n->nodestime > 0)
        ok = cJSON_AddNumberToObject(plan, "nodestime", (double)n->nodestime) &&
             cJSON_AddNumberToObject(plan, "wall_nodes_per_ms", n->wall_npms);
    ok = ok && cJSON_AddItemToObject(j, "plan", plan);
    if (!ok)
        cJSON_Delete(plan);
    plan = NULL;
    cJSON *cl = words_json(n->nconfirm, n->confirm);
    ok = ok && cl && cJSON_AddItemToObject(j, "confirm_limit", cl) && cJSON_AddBoolToObject(j, "force", n->force) &&
         cJSON_AddNumberToObject(j, "idle_wait", n->idle_wait);
    for (int i = 0; ok && i < NSTEPS; i++) {
        cJSON *s = cJSON_CreateObject();
        ok = s && cJSON_AddItemToArray(steps, s) && cJSON_AddStringToObject(s, "name", STEPS[i]) &&
             cJSON_AddStringToObject(s, "status", n->status[i]) && cJSON_AddNumberToObject(s, "exit", n->exit[i]);
    }
    ok = ok && cJSON_AddItemToObject(j, "steps", steps);
    if (!ok) {
        cJSON_Delete(steps);
        cJSON_Delete(j);
        return errmsg(err, errlen, "out of memory writing %s", n->path);
    }
    int rc = rd_write_json(n->path, j, err, errlen);
    cJSON_Delete(j);
    return rc;
}

static int words_from(const cJSON *a, int *n, char ***w)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, a)
    {
        if (!cJSON_IsString(s) || conf_argv_push(n, w, s->valuestring) < 0)
            return -1;
    }
    return 0;
}

static int night_load(Night *n, char *err, size_t errlen)
{
    cJSON *j = rd_read_json(n->path, err, errlen);
    if (!j)
        return -1;
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(j, "plan"), *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(j, "created"), *hours = cJSON_GetObjectItemCaseSensitive(j, "hours");
    const cJSON *force = cJSON_GetObjectItemCaseSensitive(j, "force");
    int rc = night_file_check(j, n->path, err, errlen);
    if (rc == 0 && (!cJSON_IsObject(plan) || !cJSON_IsArray(steps) || !cJSON_IsString(cr) || !cJSON_IsNumber(hours) ||
        !(hours->valuedouble > 0) || !isfinite(hours->valuedouble) ||
        !json_get_u64(plan, "spsa_games", &n->spsa_games) || !json_get_u64(plan, "ablation_pairs", &n->ablation_pairs) ||
        !json_get_u64(plan, "confirm_pairs", &n->confirm_pairs) || n->ablation_pairs == 0 || n->confirm_pairs == 0 ||
        !json_get_u64(j, "seed", &n->seed) ||
        words_from(cJSON_GetObjectItemCaseSensitive(j, "confirm_limit"), &n->nconfirm, &n->confirm) < 0)) {
        rc = errmsg(err, errlen, "%s: \"plan\", \"steps\", \"created\", \"hours\", \"seed\" or \"confirm_limit\" is "
                    "missing or malformed", n->path);
    } else if (rc == 0) {
        snprintf(n->created, sizeof n->created, "%s", cr->valuestring);
        n->hours = hours->valuedouble;
        n->force = n->force || cJSON_IsTrue(force);
        const cJSON *iw = cJSON_GetObjectItemCaseSensitive(j, "idle_wait"); /* older nights: the default */
        n->idle_wait = cJSON_IsNumber(iw) && (iw->valuedouble == -1 || (iw->valuedouble >= 0 && iw->valuedouble <= 7 * 86400))
                           ? iw->valuedouble
                           : DEFAULT_IDLE_WAIT;
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(plan, "holdout");
        const cJSON *rr = cJSON_GetObjectItemCaseSensitive(plan, "rate_run");
        const cJSON *rcf = cJSON_GetObjectItemCaseSensitive(plan, "rate_confirm");
        n->holdout = cJSON_IsNumber(h) ? h->valuedouble : 0;
        n->rate_run = cJSON_IsNumber(rr) ? rr->valuedouble : 0;
        n->rate_confirm = cJSON_IsNumber(rcf) ? rcf->valuedouble : 0;
        n->by_time = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(plan, "by_time")); /* older nights: as planned */
        const cJSON *nt = cJSON_GetObjectItemCaseSensitive(plan, "nodestime");
        const cJSON *npms = cJSON_GetObjectItemCaseSensitive(plan, "wall_nodes_per_ms");
        if (cJSON_IsNumber(nt) && nt->valuedouble >= 1 && nt->valuedouble <= 1e9 && cJSON_IsNumber(npms)) {
            n->nodestime = (long long)nt->valuedouble;
            n->wall_npms = npms->valuedouble;
        }
        const cJSON *s;
        cJSON_ArrayForEach(s, steps)
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(s, "name"), *st = cJSON_GetObjectItemCaseSensitive(s, "status");
            const cJSON *ex = cJSON_GetObjectItemCaseSensitive(s, "exit");
            int i = night_step_index(name->valuestring); /* night_file_check: a step's name, a status */
            snprintf(n->status[i], sizeof n->status[i], "%s", st->valuestring);
            n->exit[i] = cJSON_IsNumber(ex) ? ex->valueint : 0;
        }
    }
    cJSON_Delete(j);
    return rc;
}

/* ---- the plan ------------------------------------------------------------------ */

/* argv of one command: the words, then a NULL.  A word that could not be
 * added marks the list failed, and `call` does not run it. */
typedef struct {
    int n;
    char **v;
    bool failed;
} Words;

static int push(Words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int push(Words *w, const char *fmt, ...)
{
    char buf[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (conf_argv_push(&w->n, &w->v, buf) < 0)
        w->failed = true;
    return w->failed ? -1 : 0;
}

/* Words as they are, up to a NULL. */
static void push_words(Words *w, ...)
{
    va_list ap;
    va_start(ap, w);
    for (const char *s; (s = va_arg(ap, const char *));)
        push(w, "%s", s);
    va_end(ap);
}

/* The run options without the sections a night sets itself. */
static int push_run_options(Words *w, const Night *n, const char *const *skip)
{
    bool skipping = false;
    for (int i = 0; i < n->nrun; i++) {
        const char *a = n->run[i];
        if (a[0] == '-') {
            skipping = false;
            for (const char *const *s = skip; *s; s++)
                skipping = skipping || !strcmp(a + 1, *s);
        }
        if (!skipping && push(w, "%s", a) < 0)
            return -1;
    }
    return 0;
}

/* The games per second of `run` at the run's limit, or with `each` at the
 * user's: CALIBRATION_GAMES games into DIR/night/calibrate-NAME (a run of
 * its own, removed after), timed by the run itself.  With npms, also the
 * nodes the engines searched per ms of the wall clock (state.h's
 * wall_search; 0 when their moves reported none). */
static int measure_rate(const Night *n, const char *name, const char *tag, int neach, char **each, double *rate,
                        double *npms, char *err, size_t errlen)
{
    static const char *const skip[] = { "out", "spsa", "validate", "pgnout", "log", NULL };
    char out[PATH_MAX + 64];
    snprintf(out, sizeof out, "%s/%s/calibrate-%s", n->dir, RD_NIGHT_SUB, tag);
    Words w = { 0 };
    push(&w, "run");
    push_run_options(&w, n, skip);
    if (neach)
        push(&w, "-each");
    for (int i = 0; i < neach; i++)
        push(&w, "%s", each[i]);
    push(&w, "-spsa");
    push(&w, "games=%d", CALIBRATION_GAMES);
    push_words(&w, "-validate", "off", "-out", out, (char *)NULL);
    if (w.failed) {
        conf_free_argv(w.n, w.v);
        return errmsg(err, errlen, "out of memory");
    }
    /* Its output to a log: its progress and its closing hints (export it,
     * verify it) are about a run the night removes. */
    char log[PATH_MAX + 80];
    snprintf(log, sizeof log, "%s.log", out);
    printf("night: measuring this machine's rate at %s: %d games (their output: %s)\n", name, CALIBRATION_GAMES,
           log);
    fflush(stdout);
    fflush(stderr);
    char sub[PATH_MAX + 16], why[PATH_MAX + 256] = "";
    snprintf(sub, sizeof sub, "%s/%s", n->dir, RD_NIGHT_SUB);
    int fd = rd_mkdir_p(sub, why, sizeof why) == 0
                 ? open_regular(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644, NULL)
                 : -1;
    if (fd < 0)
        fprintf(stderr, "ratchet-tune: night: cannot write %s (%s): the games' output follows here\n", log,
                why[0] ? why : strerror(errno));
    int saved[2] = { fd >= 0 ? dup(STDOUT_FILENO) : -1, fd >= 0 ? dup(STDERR_FILENO) : -1 };
    bool redirected = saved[0] >= 0 && saved[1] >= 0;
    if (redirected) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
    }
    if (fd >= 0)
        close(fd);
    int r = run_main(w.n, w.v);
    conf_free_argv(w.n, w.v);
    fflush(stdout);
    fflush(stderr);
    if (redirected) {
        dup2(saved[0], STDOUT_FILENO);
        dup2(saved[1], STDERR_FILENO);
    }
    for (int k = 0; k < 2; k++)
        if (saved[k] >= 0)
            close(saved[k]);
    if (r != 0) {
        /* What the run said last, from a line's start, where the user reads the night. */
        size_t size = 0;
        char *text = redirected ? rd_read_file(log, &size, why, sizeof why) : NULL;
        size_t from = size > 1500 ? size - 1500 : 0;
        while (text && from > 0 && from < size && text[from - 1] != '\n')
            from++;
        if (text)
            errmsg(err, errlen, "night: the %d games that measure the rate at %s did not finish (exit %d); the end "
                   "of their output (all of it in %s):\n%s\nfix what the run said, then run the same command again",
                   CALIBRATION_GAMES, name, r, log, text + from);
        else
            errmsg(err, errlen, "night: the %d games that measure the rate at %s did not finish (exit %d); fix what "
                   "the run said, then run the same command again", CALIBRATION_GAMES, name, r);
        free(text);
        return -1;
    }
    RunState rs;
    runstate_init(&rs);
    int rc = runstate_load(&rs, out, err, errlen);
    if (rc == 0 && (rs.elapsed <= 0 || rs.games == 0))
        rc = errmsg(err, errlen, "night: %s: no time measured", out);
    if (rc == 0)
        *rate = (double)rs.games / rs.elapsed;
    if (rc == 0 && npms)
        *npms = rs.wall_ms > 0 ? (double)rs.wall_nodes / (double)rs.wall_ms : 0;
    runstate_free(&rs);
    if (rc == 0 && rd_remove_tree(out, why, sizeof why) < 0)
        fprintf(stderr, "night: %s\n", why);
    if (rc == 0)
        printf("night: %.2f games/s at %s\n", *rate, name);
    return rc;
}

/* The held-out share a new night's run needs: validation's pairs (about
 * VALIDATE_COST_PCT% of the SPSA games), the ablation's and the
 * confirmation's, 5% more, of a book of nbook openings. */
static double holdout_for(const Night *n, size_t nbook)
{
    double need = 1.05 * ((double)n->spsa_games * VALIDATE_COST_PCT / 200.0 + (double)n->ablation_pairs +
                          (double)n->confirm_pairs);
    double h = nbook ? need / (double)nbook : 0.9;
    return h < 0.2 ? 0.2 : h > 0.9 ? 0.9 : h;
}

/* The book of the run options (or the default book) and its size. */
static size_t book_positions(const Night *n)
{
    char path[PATH_MAX] = "";
    for (int i = 0; i + 1 < n->nrun; i++)
        if (!strcmp(n->run[i], "-openings"))
            for (int k = i + 1; k < n->nrun && n->run[k][0] != '-'; k++)
                if (!strncmp(n->run[k], "file=", 5))
                    snprintf(path, sizeof path, "%s", n->run[k] + 5);
    if (!path[0] && !setup_default_book(path, sizeof path))
        return 0;
    char err[PATH_MAX + 256];
    Book *b = book_load(path, NULL, 0, err, sizeof err);
    size_t size = b ? book_size(b) : 0;
    book_free(b);
    return size;
}

/* The run's limit as -each words for the wall clock: its tc=/st= with
 * nodestime=0, or its nodes=/depth= as they are. */
static int default_confirm(Night *n)
{
    for (int i = 0; i < n->nrun; i++) {
        if (strcmp(n->run[i], "-each") != 0)
            continue;
        for (int k = i + 1; k < n->nrun && n->run[k][0] != '-'; k++) {
            const char *kv = n->run[k];
            if ((!strncmp(kv, "tc=", 3) || !strncmp(kv, "st=", 3) || !strncmp(kv, "nodes=", 6) ||
                 !strncmp(kv, "depth=", 6)) &&
                conf_argv_push(&n->nconfirm, &n->confirm, kv) < 0)
                return -1;
        }
    }
    return conf_argv_push(&n->nconfirm, &n->confirm, "nodestime=0");
}

/* The rates measured next size the night, and other work on the machine
 * makes them low at any limit: a busy machine is named before them
 * (loadcheck.h), beside the run's -concurrency games. */
static void warn_busy_plan(const Night *n, bool auto_nodestime)
{
    int games = 1;
    for (int i = 0; i + 1 < n->nrun; i++)
        if (!strcmp(n->run[i], "-concurrency"))
            games = atoi(n->run[i + 1]) > 0 ? atoi(n->run[i + 1]) : games;
    LoadSample s;
    char err[256];
    if (load_sample(1.0, &s, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: night: note: the machine's load could not be read (%s)\n", err);
    } else if (!load_fits(&s, games)) {
        fprintf(stderr, "ratchet-tune: night: warning: the machine is busy: %.2f of its %d CPUs in use by other "
                        "work beside %d game%s; %s (stop the other work and start the night again, or give %s)\n",
                s.busy, s.cpus, games, games == 1 ? "" : "s",
                auto_nodestime ? "the nodes a ms of the clock is worth, measured now, set the run's nodestime=auto "
                                 "and will be low"
                               : "the rates measured now size the night, and will be low",
                auto_nodestime ? "nodestime=N" : "-games and -ablation-pairs");
    }
}

/* The index in n->run of a -each word nodestime=auto, or -1. */
static int auto_nodestime_word(const Night *n)
{
    int found = -1;
    for (int i = 0; i < n->nrun; i++)
        if (!strcmp(n->run[i], "-each"))
            for (int k = i + 1; k < n->nrun && n->run[k][0] != '-'; k++)
                if (!strcmp(n->run[k], "nodestime=auto"))
                    found = k;
    return found;
}

/* Whether the confirmation plays a clock (tc= or st=) on the wall. */
static bool confirm_on_wall_clock(const Night *n)
{
    bool clock = false, wall = true;
    for (int i = 0; i < n->nconfirm; i++) {
        clock = clock || !strncmp(n->confirm[i], "tc=", 3) || !strncmp(n->confirm[i], "st=", 3);
        if (!strncmp(n->confirm[i], "nodestime=", 10))
            wall = atof(n->confirm[i] + 10) == 0;
    }
    return clock && wall;
}

/* -each nodestime=auto: the run's clock counts the nodes a ms of the user's
 * clock is worth on this machine, measured in the games at the user's limit
 * (the engines' reported nodes over the moves' wall ms), so that SPSA and
 * the ablation search as deep a move as the confirmation and the user's
 * games do.  The word becomes nodestime=N in the run options. */
static int resolve_auto_nodestime(Night *n, int word, char *err, size_t errlen)
{
    if (!confirm_on_wall_clock(n))
        return errmsg(err, errlen, "night: nodestime=auto measures the nodes a ms of the user's clock is worth, and "
                      "the confirmation's limit is not a clock on the wall (tc= or st= without nodestime); give "
                      "-confirm tc=... or nodestime=N");
    /* A word the user-limit run parses; its own -each nodestime=0 comes after it. */
    char *w = strdup("nodestime=0");
    if (!w)
        return errmsg(err, errlen, "out of memory");
    free(n->run[word]);
    n->run[word] = w;
    double npms = 0;
    if (measure_rate(n, "the user's limit", "user", n->nconfirm, n->confirm, &n->rate_confirm, &npms, err, errlen) <
        0)
        return -1;
    if (!(npms >= 1))
        return errmsg(err, errlen, "night: nodestime=auto: the engines reported no nodes at the user's limit (info "
                      "... nodes N), so what a ms of the clock is worth was not measured; give nodestime=N");
    if (npms > MAX_NODESTIME + 0.5)
        return errmsg(err, errlen, "night: nodestime=auto: the engines searched %.0f nodes a ms at the user's limit, "
                      "more than nodestime= takes (%d)", npms, MAX_NODESTIME);
    n->wall_npms = npms;
    n->nodestime = llround(npms);
    char word_n[48];
    snprintf(word_n, sizeof word_n, "nodestime=%lld", n->nodestime);
    if (!(w = strdup(word_n)))
        return errmsg(err, errlen, "out of memory");
    free(n->run[word]);
    n->run[word] = w;
    printf("night: at the user's limit the engines searched %.0f nodes per ms of the clock; the run plays %s (as "
           "many nodes a move as the user's games)\n", npms, word_n);
    return 0;
}

static int plan_new(Night *n, bool have_games, bool have_pairs, char *err, size_t errlen)
{
    if (n->nconfirm == 0 && default_confirm(n) < 0)
        return errmsg(err, errlen, "out of memory");
    bool has_nodestime = false;
    for (int i = 0; i < n->nconfirm; i++)
        has_nodestime = has_nodestime || !strncmp(n->confirm[i], "nodestime=", 10);
    if (!has_nodestime && conf_argv_push(&n->nconfirm, &n->confirm, "nodestime=0") < 0)
        return errmsg(err, errlen, "out of memory");
    double budget = n->hours * 3600;
    int word = auto_nodestime_word(n);
    if (word >= 0 || !have_games || !have_pairs)
        warn_busy_plan(n, word >= 0);
    if (word >= 0 && resolve_auto_nodestime(n, word, err, errlen) < 0)
        return -1;
    if (!have_games || !have_pairs) {
        if (measure_rate(n, "the run's limit", "run", 0, NULL, &n->rate_run, NULL, err, errlen) < 0 ||
            (word < 0 && measure_rate(n, "the user's limit", "user", n->nconfirm, n->confirm, &n->rate_confirm, NULL,
                                      err, errlen) < 0))
            return -1;
        double t_confirm = 2.0 * (double)n->confirm_pairs / n->rate_confirm;
        if (t_confirm > budget / 3) {
            n->confirm_pairs = (uint64_t)(budget / 3 * n->rate_confirm / 2);
            if (n->confirm_pairs < 50)
                n->confirm_pairs = 50;
            t_confirm = 2.0 * (double)n->confirm_pairs / n->rate_confirm;
        }
        double games = (budget - t_confirm) * n->rate_run;
        if (!have_games)
            n->spsa_games = 2 * (uint64_t)(games * 2 / 3 / (1 + VALIDATE_COST_PCT / 100.0) / 2);
        if (!have_pairs)
            n->ablation_pairs = (uint64_t)(games / 3 / 2);
        n->by_time = !have_games && !have_pairs;
    }
    if (n->spsa_games < MIN_SPSA_GAMES)
        n->spsa_games = MIN_SPSA_GAMES;
    if (n->ablation_pairs < MIN_ABLATION_PAIRS && !have_pairs)
        n->ablation_pairs = MIN_ABLATION_PAIRS;
    n->holdout = holdout_for(n, book_positions(n));
    printf("night: the plan (%s): %llu SPSA games, a %llu-pair ablation, a %llu-pair confirmation at", NIGHT_RULE,
           (unsigned long long)n->spsa_games, (unsigned long long)n->ablation_pairs,
           (unsigned long long)n->confirm_pairs);
    for (int i = 0; i < n->nconfirm; i++)
        printf(" %s", n->confirm[i]);
    printf("; %.0f%% of the book held out", 100 * n->holdout);
    if (n->rate_run > 0)
        printf("; measured %.2f games/s at the run's limit, %.2f at the user's", n->rate_run, n->rate_confirm);
    printf("\n");
    return 0;
}

/* ---- the steps ----------------------------------------------------------------- */

/* A step's exit code into its status; true when the night goes on. */
static bool step_done(Night *n, int i, int rc)
{
    n->exit[i] = rc;
    snprintf(n->status[i], sizeof n->status[i], "%s", rc == 0 ? "done" : rc >= 128 ? "stopped" : "failed");
    return rc == 0;
}

/* fn on the words; a command may reorder its argv, so it gets a copy of
 * the array and the words are freed from the original. */
static int call(int (*fn)(int, char **), Words *w)
{
    fflush(stdout);
    char **copy = w->v && !w->failed ? malloc((size_t)(w->n + 1) * sizeof *copy) : NULL;
    if (copy)
        memcpy(copy, w->v, (size_t)(w->n + 1) * sizeof *copy);
    else
        fprintf(stderr, "ratchet-tune: night: out of memory building the command line of %s\n",
                w->v ? w->v[0] : "a step");
    int rc = copy ? fn(w->n, copy) : 1;
    free(copy);
    conf_free_argv(w->n, w->v);
    *w = (Words){ 0 };
    fflush(stdout);
    return rc;
}

static bool run_complete(const char *dir)
{
    RunState rs;
    runstate_init(&rs);
    char err[PATH_MAX + 256];
    bool done = runstate_load(&rs, dir, err, sizeof err) == 0 && spsa_done(&rs.spsa) && !rs.val.pending;
    runstate_free(&rs);
    return done;
}

static int step_spsa(Night *n)
{
    Words w = { 0 };
    char state[PATH_MAX + 32];
    snprintf(state, sizeof state, "%s/%s", n->dir, STATE_FILE);
    if (access(state, F_OK) == 0) {
        /* A complete run is resumed only to record an engine named anew. */
        if (!n->engine_cmd && run_complete(n->dir))
            return 0;
        push_words(&w, "resume", n->dir, (char *)NULL);
        if (n->force)
            push(&w, "-force");
        if (n->engine_cmd) {
            push(&w, "-engine");
            push(&w, "cmd=%s", n->engine_cmd);
        }
        return call(resume_main, &w);
    }
    static const char *const skip[] = { "out", NULL };
    push(&w, "run");
    push_run_options(&w, n, skip);
    push(&w, "-spsa");
    push(&w, "games=%llu", (unsigned long long)n->spsa_games);
    bool has_validate = false;
    for (int i = 0; i < n->nrun; i++)
        has_validate = has_validate || !strcmp(n->run[i], "-validate");
    if (!has_validate) {
        push(&w, "-validate");
        push(&w, "holdout=%.4f", n->holdout);
    }
    push_words(&w, "-out", n->dir, (char *)NULL);
    return call(run_main, &w);
}

/* A night sized by time, at the start of its ablation: the hours the SPSA
 * step left (its play time over all sessions, validation's games in it)
 * and its rate, thousands of games where the plan had 24, give the
 * ablation's pairs anew, so that the night ends in its hours.  The rate is
 * the run's recent pace (histrate.h), so a night continued on a machine
 * less loaded than its first sittings is not sized by their pace; the
 * games over all its play time when history.csv holds too little.  Never
 * more than planned: the held-out openings were counted for those. */
static void resize_ablation(Night *n)
{
    char path[PATH_MAX + 64], err[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", n->dir, ABLATION_FILE);
    if (!n->by_time || n->rate_confirm <= 0 || access(path, F_OK) == 0)
        return;
    RunState rs;
    runstate_init(&rs);
    if (runstate_load(&rs, n->dir, err, sizeof err) == 0 && rs.elapsed > 0 && rs.games > 0) {
        double secs, recent = hist_rate_read(n->dir, &rs.spsa, rs.spsa.completed, &secs);
        double rate = isfinite(recent) ? recent : night_run_rate(&rs);
        double left = n->hours * 3600 - 2.0 * (double)n->confirm_pairs / n->rate_confirm - rs.elapsed;
        double pairs = left > 0 ? floor(left * rate / 2) : 0;
        if (pairs < MIN_ABLATION_PAIRS)
            pairs = MIN_ABLATION_PAIRS;
        if (pairs < (double)n->ablation_pairs) {
            char took[32], rest[32], span[32];
            duration_format(rs.elapsed, took, sizeof took);
            duration_format(isfinite(recent) ? secs : rs.elapsed, span, sizeof span);
            duration_format(left > 0 ? left : 0, rest, sizeof rest);
            printf("night: the ablation re-sized to the hours left: %.0f pairs where the plan had %llu (SPSA took %s "
                   "of play, at %.2f games/s over its last %s of play, where %d games had measured %.2f; %s "
                   "left before the confirmation)\n",
                   pairs, (unsigned long long)n->ablation_pairs, took, rate, span, CALIBRATION_GAMES, n->rate_run,
                   rest);
            n->ablation_pairs = (uint64_t)pairs;
            if (night_save(n, err, sizeof err) < 0)
                fprintf(stderr, "ratchet-tune: night: %s\n", err);
        }
    }
    runstate_free(&rs);
}

/* `night DIR -ablation-pairs P` before the ablation started: the ablation
 * plays P pairs, at most the plan's (the run held out openings for them),
 * and is not re-sized to the hours left (resize_ablation). */
static int size_ablation(Night *n, uint64_t pairs, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", n->dir, ABLATION_FILE);
    if (strcmp(n->status[1], "todo") != 0 || access(path, F_OK) == 0)
        return errmsg(err, errlen, "night %s -ablation-pairs: its ablation has started with %llu pairs (%s); it "
                      "keeps them", n->dir, (unsigned long long)n->ablation_pairs, path);
    if (pairs > n->ablation_pairs)
        return errmsg(err, errlen, "night %s -ablation-pairs %llu: at most the plan's %llu (the run held out its "
                      "openings for them)", n->dir, (unsigned long long)pairs, (unsigned long long)n->ablation_pairs);
    printf("night: the ablation plays %llu pairs (-ablation-pairs; the plan had %llu), not re-sized to the hours "
           "left\n", (unsigned long long)pairs, (unsigned long long)n->ablation_pairs);
    n->ablation_pairs = pairs;
    n->by_time = false;
    return 0;
}

/* No tuned parameter is exported at another value than its start: there
 * is nothing to ablate, keep, confirm or bake.  False when the run cannot
 * be read (the step that reads it then says why). */
static bool nothing_moved(const Night *n)
{
    RunState rs;
    runstate_init(&rs);
    char err[PATH_MAX + 256];
    bool none = runstate_load(&rs, n->dir, err, sizeof err) == 0 && runstate_moved(&rs) == 0;
    runstate_free(&rs);
    return none;
}

/* -pgnout for a step that plays (verify.json or ablation.json its FILE):
 * DIR/night/NAME, or what an earlier session of the step was started
 * with, since a continued step must be given the options it was started
 * with; none for a step an older build started without one. */
static void push_step_pgn(Words *w, const Night *n, const char *file, const char *name)
{
    char path[PATH_MAX + 64], err[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", n->dir, file);
    cJSON *j = access(path, F_OK) == 0 ? rd_read_json(path, err, sizeof err) : NULL;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(j, "args"), *a;
    const char *was = NULL;
    bool earlier = j != NULL, after = false;
    cJSON_ArrayForEach(a, args)
    {
        if (after && cJSON_IsString(a))
            was = a->valuestring;
        after = cJSON_IsString(a) && !strcmp(a->valuestring, "-pgnout");
    }
    if (!earlier)
        snprintf(path, sizeof path, "%s/%s/%s", n->dir, RD_NIGHT_SUB, name);
    else if (was)
        snprintf(path, sizeof path, "%s", was);
    if (!earlier || was)
        push_words(w, "-pgnout", path, (char *)NULL);
    cJSON_Delete(j);
}

static int step_ablation(Night *n)
{
    if (nothing_moved(n)) {
        printf("night: no parameter moved from its start value: nothing to ablate, keep, confirm or bake\n");
        return 0;
    }
    resize_ablation(n);
    Words w = { 0 };
    push_words(&w, "verify", n->dir, "-ablate", "-rounds", (char *)NULL);
    push(&w, "%llu", (unsigned long long)n->ablation_pairs);
    push(&w, "-srand");
    push(&w, "%llu", (unsigned long long)((n->seed + 1) % 4294967291u));
    push_step_pgn(&w, n, ABLATION_FILE, "ablation.pgn");
    if (n->force)
        push(&w, "-force");
    return call(verify_main, &w);
}

static int step_export(Night *n)
{
    Words w = { 0 };
    if (nothing_moved(n))
        push_words(&w, "export", n->dir, "-o", n->kept, (char *)NULL); /* the start values */
    else
        push_words(&w, "export", n->dir, "-ablation", "keep=pays", "-o", n->kept, (char *)NULL);
    return call(export_main, &w);
}

static int step_confirm(Night *n)
{
    Words w = { 0 };
    push_words(&w, "verify", n->dir, "-tuned", n->kept, "-each", (char *)NULL);
    for (int i = 0; i < n->nconfirm; i++)
        push(&w, "%s", n->confirm[i]);
    push_words(&w, "-sprt", "off", "-rounds", (char *)NULL);
    push(&w, "%llu", (unsigned long long)n->confirm_pairs);
    push(&w, "-srand");
    push(&w, "%llu", (unsigned long long)((n->seed + 2) % 4294967291u));
    push_step_pgn(&w, n, VERIFY_FILE, "confirm.pgn");
    push(&w, "-idle-wait");
    if (n->idle_wait < 0)
        push(&w, "off");
    else
        push(&w, "%.0f", n->idle_wait);
    if (n->force)
        push(&w, "-force");
    return call(verify_main, &w);
}

/* ---- the morning page ---------------------------------------------------------- */

static cJSON *read_in(const char *dir, const char *name)
{
    char path[PATH_MAX + 64], err[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0 ? rd_read_json(path, err, sizeof err) : NULL;
}

/* The groups of an ablation and what it made of them. */
static void morning_ablation(FILE *out, const Night *n, const cJSON *j)
{
    if (!j) {
        fprintf(out, "No ablation (%s/%s is missing)\n", n->dir, ABLATION_FILE);
        return;
    }
    AblationRecord a;
    if (ablation_record_from_json(&a, j, 0, NULL, NULL, 0) < 0) {
        ablation_record_free(&a); /* out of memory */
        return;
    }
    fprintf(out, "What moved, and what the ablation (%.0f pairs at %s) made of it:\n",
            a.has_games ? (double)a.games / 2 : NAN, json_shown(a.tc));
    for (size_t g = 0; g < a.ngroups; g++) {
        const AblGroupRecord *gr = &a.groups[g];
        fprintf(out, "  %-12s %+7.1f [%+.1f, %+.1f] Elo  %-8s", json_shown(gr->name),
                elo_no_minus_zero(gr->eff.elo, 1), elo_no_minus_zero(gr->eff.elo_lo, 1),
                elo_no_minus_zero(gr->eff.elo_hi, 1), json_shown(gr->verdict));
        for (size_t k = 0; k < gr->nparams; k++)
            if (gr->params[k])
                fprintf(out, " %s %g->%g", gr->params[k], json_num_shown(a.base, gr->params[k]),
                        json_num_shown(a.tuned, gr->params[k]));
        fputc('\n', out);
    }
    const AblTermRecord *t = a.terms;
    if (a.has_additivity)
        fprintf(out, "  additivity: the groups' sum %+.1f, the whole %+.1f, gap %+.1f [%+.1f, %+.1f] Elo: %s\n",
                elo_no_minus_zero(t[ABL_TERM_SUM].elo, 1), elo_no_minus_zero(t[ABL_TERM_WHOLE].elo, 1),
                elo_no_minus_zero(t[ABL_TERM_GAP].elo, 1), elo_no_minus_zero(t[ABL_TERM_GAP].lo, 1),
                elo_no_minus_zero(t[ABL_TERM_GAP].hi, 1), json_shown(a.additivity_verdict));
    char ff[400];
    fprintf(out, "  %s\n", ablation_record_forfeit_text(&a, ff, sizeof ff));
    ablation_record_free(&a);
}

/* The machine checks of the confirmation's sittings (verify_check_machine):
 * each busy one named, or that the machine was free for each. */
static void morning_machine(FILE *out, const cJSON *checks)
{
    int n = cJSON_GetArraySize(checks), busy = 0;
    double most = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, checks)
    {
        double b = json_num_shown(c, "busy_cpus");
        most = isfinite(b) && b > most ? b : most;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "idle")))
            continue;
        busy++;
        fprintf(out, "  WARNING: the sitting that started %s played on a busy machine: %.2f of %.0f CPUs in use by "
                "other work beside %.0f games (after a wait of %.0f s)\n", json_text_shown(c, "at"), b,
                json_num_shown(c, "cpus"), json_num_shown(c, "concurrency"), json_num_shown(c, "waited_s"));
    }
    if (n == 0)
        fprintf(out, "  the machine was not checked before it played (not on the wall clock, or an older build)\n");
    else if (busy == 0)
        fprintf(out, "  the machine was free before each of its %d sitting%s (at most %.2f CPUs in use by other work)\n",
                n, n == 1 ? "" : "s", most);
}

/* On the wall clock: the nodes a ms of the confirmation's clock was worth,
 * and beside the run's clock in nodes (nodestime > 0) how many nodes a move
 * of SPSA and the ablation had against one of the confirmation. */
static void morning_depth(FILE *out, const MatchTally *t, long long nodestime)
{
    if (t->wall_ms == 0)
        return;
    double npms = (double)t->wall_nodes / (double)t->wall_ms;
    fprintf(out, "  its engines searched %.0f nodes a ms of the clock (the first %d plies of each game)", npms,
            GAME_WALL_PLIES);
    if (nodestime > 0 && npms > 0)
        fprintf(out, "; the run's clock counted %lld (nodestime), so a move of SPSA and the ablation had %.2f times "
                "the nodes of one here%s", nodestime, (double)nodestime / npms,
                nodestime < npms / 1.5 ? ": they tuned a shallower search than this one (nodestime=auto measures it)"
                : nodestime > npms * 1.5 ? ": they tuned a deeper search than this one (nodestime=auto measures it)"
                                         : "");
    fprintf(out, "\n");
}

/* The confirmation (verify.json) and, with the kept groups' prediction pr,
 * whether the two agree: their difference inside its 95% interval, from
 * the two intervals' half-widths (independent games); nodestime: the run's
 * clock in nodes (0: none). */
static void morning_confirmation(FILE *out, const cJSON *ver, const cJSON *pr, long long nodestime)
{
    VerifyRecord r;
    verify_record_from_json(&r, ver, false, NULL, NULL, 0);
    const uint64_t *pt = r.tally.ptnml;
    double elo = r.est.elo, err = r.est.elo_err;
    fprintf(out, "The confirmation at %s: %+.1f +/- %.1f Elo over %.0f games (Ptnml ", json_shown(r.tc),
            elo_no_minus_zero(elo, 1), err, verify_record_shown(&r, VREC_GAMES, r.tally.games));
    if (r.have & VREC_PTNML)
        fprintf(out, "[%llu, %llu, %llu, %llu, %llu]", (unsigned long long)pt[0], (unsigned long long)pt[1],
                (unsigned long long)pt[2], (unsigned long long)pt[3], (unsigned long long)pt[4]);
    else
        fprintf(out, "[]");
    double first = verify_record_shown(&r, VREC_CLAIM, r.held_out_first);
    fprintf(out, "), %s openings %.0f..%.0f", json_shown(r.set), first,
            first + verify_record_shown(&r, VREC_CLAIM, r.held_out_count) - 1);
    if (r.verdict && strcmp(r.verdict, "none"))
        fprintf(out, ", SPRT %s", r.verdict);
    fprintf(out, "\n  %s\n", isnan(elo) || isnan(err) ? "no games yet"
                              : elo - err > 0        ? "the gain is shown: its interval is above 0"
                              : elo + err < 0        ? "a loss: its interval is below 0"
                                                     : "the gain is not shown: its interval holds 0");
    if (r.have & VREC_TIME_LOSSES) {
        const MatchTally *t = &r.tally;
        ValidationForfeits f = { .time_losses = t->time_losses[0] + t->time_losses[1],
                                 .crashes = t->crashes[0] + t->crashes[1],
                                 .illegal = t->illegal[0] + t->illegal[1] };
        char why[256];
        double games = verify_record_shown(&r, VREC_GAMES, t->games);
        if (validate_forfeits(&f) == 0)
            fprintf(out, "  no game ended by forfeit\n");
        else
            fprintf(out, "  %llu game%s ended by forfeit (%s): a forfeit is a loss of the side at fault, not a "
                    "judgement of the values\n", (unsigned long long)validate_forfeits(&f),
                    validate_forfeits(&f) == 1 ? "" : "s", validate_forfeit_text(&f, why, sizeof why));
        if (isfinite(games) && verify_time_loss_alarm(f.time_losses, (uint64_t)games, why, sizeof why))
            fprintf(out, "  WARNING: %s\n", why);
    }
    morning_depth(out, &r.tally, nodestime);
    if (pr && !isnan(elo) && !isnan(err)) {
        double p = json_num_shown(pr, "elo"), half = (json_num_shown(pr, "elo_hi") - json_num_shown(pr, "elo_lo")) / 2;
        double d = elo - p, e = sqrt(half * half + err * err);
        fprintf(out, "  against the prediction (%+.1f at %s): the confirmation minus the prediction %+.1f +/- %.1f "
                "Elo, %s\n", elo_no_minus_zero(p, 1), json_text_shown(pr, "tc"), elo_no_minus_zero(d, 1), e,
                fabs(d) <= e ? "they agree" : d < 0 ? "below it: the kept values pay less at the user's limit"
                                                    : "above it");
    }
    morning_machine(out, cJSON_GetObjectItemCaseSensitive(ver, "machine"));
    if (r.mode && !strcmp(r.mode, "baked"))
        fprintf(out, "The baked engine: %s\n", json_shown(r.engine_tuned));
    verify_record_free(&r);
}

/* The nodestime of the run's limit (its -each), or 0. */
static long long run_nodestime(const Night *n)
{
    RunState rs;
    runstate_init(&rs);
    char err[PATH_MAX + 256];
    const char *v = runstate_load(&rs, n->dir, err, sizeof err) == 0 ? conf_get(&rs.conf, "each", "nodestime") : NULL;
    long long nt = v ? atoll(v) : 0;
    runstate_free(&rs);
    return nt > 0 ? nt : 0;
}

static void morning_body(FILE *out, const Night *n)
{
    cJSON *abl = read_in(n->dir, ABLATION_FILE), *kept = rd_read_json(n->kept, (char[256]){ 0 }, 256);
    cJSON *ver = read_in(n->dir, VERIFY_FILE);
    fprintf(out, "The morning of %s (night.json: %s)\n\n", n->dir, n->created);
    if (!abl && nothing_moved(n)) {
        fprintf(out, "Nothing moved: SPSA left every parameter at its start value, so there is nothing to ablate, "
                     "confirm or bake: bin/ratchet stays as it is\n");
        cJSON_Delete(kept);
        cJSON_Delete(ver);
        return;
    }
    morning_ablation(out, n, abl);
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kept, "ablation"), "prediction");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(kept, "params"), *p;
    const cJSON *kn = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kept, "ablation"), "kept");
    int nkept = 0;
    cJSON_ArrayForEach(p, kn)
        nkept += cJSON_IsString(p);
    if (kept && nkept == 0) {
        fprintf(out, "\nKept (keep=pays): no group; every moved parameter stays at its start value, so there is "
                     "nothing to confirm or bake: bin/ratchet stays as it is (%s)\n", n->kept);
        cJSON_Delete(abl);
        cJSON_Delete(kept);
        cJSON_Delete(ver);
        return;
    }
    if (cJSON_IsObject(pr))
        fprintf(out, "\nKept (keep=pays): %.0f group(s), predicted %+.1f [%+.1f, %+.1f] Elo together at %s (%s)\n",
                json_num_shown(pr, "groups"), elo_no_minus_zero(json_num_shown(pr, "elo"), 1),
                elo_no_minus_zero(json_num_shown(pr, "elo_lo"), 1), elo_no_minus_zero(json_num_shown(pr, "elo_hi"), 1),
                json_text_shown(pr, "tc"),
                json_text_shown(pr, "additivity"));
    if (ver)
        morning_confirmation(out, ver, cJSON_IsObject(pr) ? pr : NULL, run_nodestime(n));
    fprintf(out, "\nBake it into bin/ratchet:  make PARAMS=%s\n", n->kept);
    fprintf(out, "The kept values (%s), as OpenBench/fishtest name, value lines:\n", n->kept);
    cJSON_ArrayForEach(p, kn)
    {
        if (cJSON_IsString(p))
            fprintf(out, "  %s, %g\n", p->valuestring, json_num_shown(params, p->valuestring));
    }
    cJSON_Delete(abl);
    cJSON_Delete(kept);
    cJSON_Delete(ver);
}

/* The files that hold the night's games: the run's PGN (SPSA and validation) and those of the ablation and
 * the confirmation, each that is there. */
static void morning_games(FILE *out, const Night *n)
{
    RunState rs;
    runstate_init(&rs);
    char err[PATH_MAX + 256], run_pgn[PATH_MAX] = "";
    const char *f = runstate_load(&rs, n->dir, err, sizeof err) == 0 ? conf_get(&rs.conf, "pgnout", "file") : NULL;
    if (f)
        snprintf(run_pgn, sizeof run_pgn, "%s", f);
    runstate_free(&rs);
    char abl[PATH_MAX + 64], conf[PATH_MAX + 64];
    snprintf(abl, sizeof abl, "%s/%s/ablation.pgn", n->dir, RD_NIGHT_SUB);
    snprintf(conf, sizeof conf, "%s/%s/confirm.pgn", n->dir, RD_NIGHT_SUB);
    const char *files[3] = { run_pgn, abl, conf }, *what[3] = { "SPSA and validation", "the ablation",
                                                                "the confirmation" };
    bool any = false;
    for (int i = 0; i < 3; i++) {
        if (!files[i][0] || access(files[i], F_OK) != 0)
            continue;
        if (!any)
            fprintf(out, "\nThe games (PGN):\n");
        any = true;
        fprintf(out, "  %s: %s\n", what[i], files[i]);
    }
}

static void morning_write(FILE *out, const Night *n)
{
    morning_body(out, n);
    morning_games(out, n);
}

static int step_morning(Night *n)
{
    char path[PATH_MAX + 32], err[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/morning.txt", n->dir);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return 1;
    morning_write(mem, n);
    fclose(mem);
    int rc = rd_write_atomic(path, buf, len, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "ratchet-tune: night: %s\n", err);
    else
        printf("\n%s(written to %s)\n", buf, path);
    free(buf);
    return rc < 0 ? 1 : 0;
}

/* ---- the command --------------------------------------------------------------- */

/* The run's -srand when given, else one drawn now. */
static uint64_t night_seed(const Night *n)
{
    for (int i = 0; i + 1 < n->nrun; i++)
        if (!strcmp(n->run[i], "-srand")) {
            char *end;
            unsigned long long x = strtoull(n->run[i + 1], &end, 10);
            if (!*end)
                return x;
        }
    return (((uint64_t)time(NULL) * 2654435761u) ^ (uint64_t)getpid()) % 4294967291u;
}

/* The user's limit read as -each reads it, so that a word it cannot play
 * is refused before the night measures a rate or plays a game. */
static int check_confirm(const Night *n, char *err, size_t errlen)
{
    MatchConfig *cfg = calloc(1, sizeof *cfg);
    char **words = calloc((size_t)n->nconfirm + 2, sizeof *words);
    if (!cfg || !words) {
        free(cfg);
        free(words);
        return errmsg(err, errlen, "out of memory");
    }
    match_config_init(cfg);
    words[0] = "-each";
    for (int k = 0; k < n->nconfirm; k++)
        words[k + 1] = n->confirm[k];
    int i = 0;
    char why[512];
    int rc = match_parse_option(cfg, n->nconfirm + 1, words, &i, why, sizeof why);
    if (rc == 1)
        rc = cli_check_limit(&cfg->each.tc, "-confirm", "", err, errlen) < 0 ? -1 : 0;
    else
        rc = errmsg(err, errlen, "-confirm: %s", rc == 0 ? "not a limit"
                                                 : !strncmp(why, "-each: ", 7) ? why + 7 : why);
    match_config_free(cfg);
    free(cfg);
    free(words);
    return rc;
}

static int parse(Night *n, int argc, char **argv, bool in_progress, bool *have_games, bool *have_pairs,
                 bool *plan_opts, const char **out, char *err, size_t errlen)
{
    n->hours = DEFAULT_HOURS;
    n->confirm_pairs = DEFAULT_CONFIRM_PAIRS;
    n->idle_wait = DEFAULT_IDLE_WAIT;
    n->until = NSTEPS - 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        /* -ablation-pairs is also one of a night in progress whose ablation has not started */
        *plan_opts = *plan_opts || !strcmp(a, "-hours") || !strcmp(a, "-games") || !strcmp(a, "-confirm-pairs") ||
                     !strcmp(a, "-confirm");
        if (!strcmp(a, "-hours") && v) {
            n->hours = strtod(v, &end);
            if (*end || !(n->hours > 0 && n->hours <= 24 * 30))
                return errmsg(err, errlen, "-hours %s: give the night's hours, more than 0 and at most 720", v);
            i++;
        } else if ((!strcmp(a, "-games") || !strcmp(a, "-ablation-pairs") || !strcmp(a, "-confirm-pairs")) && v) {
            unsigned long long x = strtoull(v, &end, 10);
            if (*end || v[0] == '-' || x < 2 || x > (1ULL << 40))
                return errmsg(err, errlen, "%s %s: give a count from 2 to 2^40", a, v);
            if (!strcmp(a, "-games")) {
                n->spsa_games = x + (x & 1);
                *have_games = true;
            } else if (!strcmp(a, "-ablation-pairs")) {
                n->ablation_pairs = x;
                *have_pairs = true;
            } else {
                n->confirm_pairs = x;
            }
            i++;
        } else if (!strcmp(a, "-confirm")) {
            for (; i + 1 < argc && argv[i + 1][0] != '-'; i++)
                if (conf_argv_push(&n->nconfirm, &n->confirm, argv[i + 1]) < 0)
                    return errmsg(err, errlen, "out of memory");
            if (n->nconfirm == 0)
                return errmsg(err, errlen, "-confirm: give the user's limit (tc=, st=, nodes=, depth=)");
            if (check_confirm(n, err, errlen) < 0)
                return -1;
        } else if (!strcmp(a, "-until") && v) {
            n->until = night_step_index(v);
            if (n->until < 0 || n->until == NSTEPS - 1)
                return errmsg(err, errlen, "-until %s: one of spsa, ablation, export, confirm", v);
            i++;
        } else if (!strcmp(a, "-force")) {
            n->force = true;
        } else if (!strcmp(a, "-idle-wait") && v) {
            if (verify_parse_idle_wait(v, &n->idle_wait) < 0)
                return errmsg(err, errlen, "-idle-wait %s: give a duration (seconds, or 90s, 30m, 1h; or off)", v);
            n->idle_given = true;
            i++;
        } else if (in_progress && !strcmp(a, "-engine")) {
            if (!v || strncmp(v, "cmd=", 4) || !v[4] || (i + 2 < argc && argv[i + 2][0] != '-'))
                return errmsg(err, errlen, "night DIR -engine: a night in progress names only its engine's program "
                              "anew, -engine cmd=PATH (it keeps the engine's options and limits)");
            n->engine_cmd = v + 4;
            i++;
        } else {
            if (!strcmp(a, "-out") && v)
                *out = v;
            if (conf_argv_push(&n->nrun, &n->run, a) < 0)
                return errmsg(err, errlen, "out of memory");
        }
    }
    return 0;
}

int night_main(int argc, char **argv)
{
    int pre = cli_preamble(argc, argv, NIGHT_USAGE, NULL, CLI_ARGS);
    if (pre >= 0)
        return pre;
    static Night n;
    memset(&n, 0, sizeof n);
    char err[PATH_MAX + 2048];
    int lockfd = -1;
    bool have_games = false, have_pairs = false, plan_opts = false;
    const char *out = NULL, *dir_arg = argv[1][0] != '-' ? argv[1] : NULL;
    int rc = EXIT_USAGE;
    if (parse(&n, dir_arg ? argc - 1 : argc, dir_arg ? argv + 1 : argv, dir_arg != NULL, &have_games, &have_pairs,
              &plan_opts, &out, err, sizeof err) < 0)
        goto fail;
    char plan_path[PATH_MAX + 32];
    snprintf(plan_path, sizeof plan_path, "%s/%s", dir_arg ? dir_arg : ".", NIGHT_FILE);
    if (dir_arg && (n.nrun || (plan_opts && access(plan_path, F_OK) == 0))) {
        errmsg(err, sizeof err, "night %s: a night in progress takes only -until, -force, -idle-wait D, -engine cmd=PATH "
               "and, before its ablation, -ablation-pairs P (its plan is in %s/%s); "
               "the run and plan options belong to a new night (-out DIR)", dir_arg, dir_arg, NIGHT_FILE);
        goto fail;
    }
    if (!dir_arg && !out) {
        errmsg(err, sizeof err, "night: give -out DIR for a new night, or DIR to continue one");
        goto fail;
    }
    rd_abs_path(dir_arg ? dir_arg : out, n.dir, sizeof n.dir);
    snprintf(n.path, sizeof n.path, "%s/%s", n.dir, NIGHT_FILE);
    snprintf(n.kept, sizeof n.kept, "%s/%s/kept.json", n.dir, RD_NIGHT_SUB);
    int until = n.until;
    bool force = n.force, idle_given = n.idle_given;
    double idle_wait = n.idle_wait;
    for (int i = 0; i < NSTEPS; i++)
        snprintf(n.status[i], sizeof n.status[i], "todo");
    if (access(n.path, F_OK) == 0) {
        if (!dir_arg) {
            errmsg(err, sizeof err, "night: %s already holds a night; continue it with: %s night %s", n.dir,
                   setup_prog(), n.dir);
            goto fail;
        }
        uint64_t pairs = n.ablation_pairs;
        if (night_load(&n, err, sizeof err) < 0)
            goto fail;
        n.until = until;
        n.force = n.force || force;
        if (idle_given)
            n.idle_wait = idle_wait;
        if (have_pairs && size_ablation(&n, pairs, err, sizeof err) < 0)
            goto fail;
    } else {
        char state[PATH_MAX + 32];
        snprintf(state, sizeof state, "%s/%s", n.dir, STATE_FILE);
        bool adopt = dir_arg && access(state, F_OK) == 0;
        if (dir_arg && !adopt) {
            errmsg(err, sizeof err, "night: %s holds neither a night (%s) nor a run (%s): start one with -out DIR",
                   dir_arg, NIGHT_FILE, STATE_FILE);
            goto fail;
        }
        if (!adopt && access(state, F_OK) == 0) {
            errmsg(err, sizeof err, "night: %s already holds a run; make a night of it with: %s night %s", n.dir,
                   setup_prog(), n.dir);
            goto fail;
        }
        if (adopt) {
            /* A run of its own: its budget stands; the ablation's pairs from its own rate. */
            RunState rs;
            runstate_init(&rs);
            if (runstate_load(&rs, n.dir, err, sizeof err) < 0) {
                runstate_free(&rs);
                goto fail;
            }
            n.spsa_games = spsa_budget_games(&rs.spsa.cfg);
            n.rate_run = rs.elapsed > 0 && rs.games > 0 ? (double)rs.games / rs.elapsed : 0;
            if (!have_pairs)
                n.ablation_pairs = n.spsa_games / 4 > MIN_ABLATION_PAIRS ? n.spsa_games / 4 : MIN_ABLATION_PAIRS;
            /* The run's clock, on the wall. */
            static const char *const LIMIT_KEYS[] = { "tc", "st", "nodes", "depth", NULL };
            bool given = n.nconfirm > 0;
            for (const char *const *k = LIMIT_KEYS; *k && !given; k++) {
                const char *val = conf_get(&rs.conf, "each", *k);
                char word[128];
                snprintf(word, sizeof word, "%s=%s", *k, val ? val : "");
                if (val && conf_argv_push(&n.nconfirm, &n.confirm, word) < 0) {
                    runstate_free(&rs);
                    goto oom;
                }
            }
            runstate_free(&rs);
            bool has_nodestime = false;
            for (int i = 0; i < n.nconfirm; i++)
                has_nodestime = has_nodestime || !strncmp(n.confirm[i], "nodestime=", 10);
            if (!has_nodestime && conf_argv_push(&n.nconfirm, &n.confirm, "nodestime=0") < 0)
                goto oom;
            printf("night: %s is a run of %llu SPSA games; a %llu-pair ablation and a %llu-pair confirmation follow "
                   "it\n", n.dir, (unsigned long long)n.spsa_games, (unsigned long long)n.ablation_pairs,
                   (unsigned long long)n.confirm_pairs);
        } else if (rd_mkdir_p(n.dir, err, sizeof err) < 0 || plan_new(&n, have_games, have_pairs, err, sizeof err) < 0) {
            rc = EXIT_FAILED;
            goto fail;
        }
        rd_now_iso(n.created, sizeof n.created);
        n.seed = night_seed(&n);
    }
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/%s", n.dir, RD_NIGHT_SUB);
    if (rd_mkdir_p(sub, err, sizeof err) < 0) {
        rc = EXIT_FAILED;
        goto fail;
    }
    /* One night at a time in DIR: a second would rewrite night.json under the first. */
    if ((lockfd = rd_lock(sub, err, sizeof err)) < 0) {
        char why[sizeof err];
        snprintf(why, sizeof why, "%s", err);
        errmsg(err, sizeof err, "night: %s: another night is playing in it (%s)", n.dir, why);
        rc = EXIT_FAILED;
        goto fail;
    }
    if (night_save(&n, err, sizeof err) < 0) {
        rc = EXIT_FAILED;
        goto fail;
    }
    int (*const steps[NSTEPS])(Night *) = { step_spsa, step_ablation, step_export, step_confirm, step_morning };
    rc = EXIT_DONE;
    for (int i = 0; i < NSTEPS && i <= n.until; i++) {
        if (!strcmp(n.status[i], "done") && i != NSTEPS - 1 && !(i == 0 && n.engine_cmd))
            continue;
        printf("\n== night: %s ==\n", STEPS[i]);
        fflush(stdout);
        snprintf(n.status[i], sizeof n.status[i], "running");
        if (night_save(&n, err, sizeof err) < 0)
            fprintf(stderr, "ratchet-tune: night: %s\n", err);
        setup_set_caller("night");
        int r = steps[i](&n);
        setup_set_caller(NULL);
        bool go_on = step_done(&n, i, r);
        if (night_save(&n, err, sizeof err) < 0)
            fprintf(stderr, "ratchet-tune: night: %s\n", err);
        if (!go_on) {
            rc = r >= 128 ? r : EXIT_FAILED;
            printf("night: the %s step %s (exit %d); continue with: %s night %s\n", STEPS[i],
                   r >= 128 ? "was stopped" : "failed", r, setup_prog(), n.dir);
            break;
        }
    }
    if (rc == EXIT_DONE && n.until < NSTEPS - 1)
        printf("night: stopped after %s (-until); continue with: %s night %s\n", STEPS[n.until], setup_prog(), n.dir);
    rd_unlock(lockfd);
    night_free(&n);
    return rc;
oom:
    errmsg(err, sizeof err, "out of memory");
    rc = EXIT_FAILED;
fail:
    fprintf(stderr, "ratchet-tune: %s\n", err);
    if (lockfd >= 0)
        rd_unlock(lockfd);
    night_free(&n);
    return rc;
}
