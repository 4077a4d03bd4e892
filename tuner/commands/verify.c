/* `ratchet-tune verify`: export, bake, SPRT against the start values, the
 * verdict in DIR/verify.json; see verify.h. */
#include "verify.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "cliutil.h"
#include "engcheck.h"
#include "errmsg.h"
#include "export.h"
#include "jsonget.h"
#include "match.h"
#include "match_cmd.h"
#include "rd.h"
#include "setup.h"
#include "stats.h"
#include "strlist.h"
#include "validate.h"
#include "verify_impl.h"

#define VERIFY_SUBDIR "verify"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };
enum { BAKE_AUTO, BAKE_YES, BAKE_NO };

static const char VERIFY_USAGE[] =
    "usage: ratchet-tune verify DIR [-sprt elo0=X elo1=Y alpha=A beta=B | -sprt off] [-rounds N]\n"
    "                               [-base FILE.json] [-tuned FILE.json] [-bake auto|yes|no] [-restart]\n"
    "                               [match options]\n"
    "\n"
    "Checks what the run in DIR gained, in one step:\n"
    "  1. exports the run's values (as `export` does) to DIR/verify/tuned.json, and its start\n"
    "     values to DIR/verify/base.json;\n"
    "  2. for bin/ratchet, bakes each into an engine of its own (make PARAMS=... BAKED_BIN=\n"
    "     DIR/verify/ratchet-tuned, and ratchet-base; the build log is DIR/verify/bake-*.log);\n"
    "     any other engine plays with the values sent as UCI options;\n"
    "  3. plays game pairs, tuned against base, until the SPRT decides (normalized pentanomial\n"
    "     model, as `match -sprt`), with the run's time control, book, adjudication and\n"
    "     concurrency unless the match options below say otherwise; out of sample: only the\n"
    "     openings the run held out of its tuning (a run of an older build held none out: then\n"
    "     the whole book, and verify says so); -openings file=F plays F instead.  The output\n"
    "     and verify.json (\"openings\": set, file, count) say which openings were used;\n"
    "  4. writes the verdict, Elo, nElo, LOS and the pentanomial counts to DIR/verify.json\n"
    "     (after every pair, atomically); `ratchet-tune status DIR` shows them.\n"
    "\n"
    "  -sprt elo0=X elo1=Y alpha=A beta=B   the test (default elo0=0 elo1=5 alpha=0.05 beta=0.05);\n"
    "                      -sprt off plays exactly -rounds pairs and reports the Elo\n"
    "  -rounds N           at most N pairs (default: until the SPRT decides); at nodes= or depth=\n"
    "                      at most one pair per fresh opening: a replayed opening replays its games\n"
    "  -snapshot best|K    play snapshot K of the run's validation points (DIR/snapshots/K.json;\n"
    "                      best: the one that scored best, an optimistic estimate this re-measures)\n"
    "                      instead of its current values\n"
    "  -base FILE.json     play against these values instead of the start values (a value file\n"
    "                      as `export` writes; parameters it leaves out keep their start value)\n"
    "  -tuned FILE.json    play these values instead of the run's (values from another run or\n"
    "                      tool, measured at this run's limit and on its held-out openings;\n"
    "                      parameters it leaves out keep their start value; not with -snapshot)\n"
    "  -bake auto|yes|no   auto (default): bake when the run's engine is bin/ratchet of a Ratchet\n"
    "                      source tree; no: send the values as options (no build)\n"
    "  -restart            discard DIR/verify.json and start over\n"
    "  -ablate [groups=auto|FILE|NAME:P1,P2;...]   which groups of moves pay: a random-balance\n"
    "                      ablation instead of the SPRT (verify DIR -ablate -h tells more)\n"
    "  -force              play even if the run's engine changed since the run (its id name,\n"
    "                      file size, modification time or bench signature; as `resume -force`)\n"
    "  match options       -each (tc=, nodes=, st=, depth= replace the run's limit), -openings,\n"
    "                      -draw, -resign, -maxmoves, -concurrency, -srand, -pgnout, -log\n"
    "\n"
    "Stopped (Ctrl-C, SIGTERM, a kill), it continues where it was when started again with the\n"
    "same options (or none).  Different options with an unfinished or finished verify are refused\n"
    "unless -restart is given; if the run has moved on since (resume), a new verify starts.\n"
    "\n"
    "Exit codes: 0 finished (the verdict is in DIR/verify.json); 1 stopped by an error (a bake\n"
    "that failed, an engine that cannot be restarted); 2 bad usage or run directory (nothing\n"
    "played); 128+N stopped by signal N.\n";

/* The sections of the match options verify takes, and those it inherits from the run. */
const char *const VERIFY_SECTIONS[] = { "each",        "openings", "draw",   "resign", "maxmoves",
                                               "concurrency", "srand",    "pgnout", "log",    NULL };
static const char *const INHERITED[] = { "each", "openings", "draw", "resign", "maxmoves", "concurrency", NULL };
/* The keys that set an engine's limit: one given to verify replaces all the run's. */
const char *const VERIFY_LIMIT_KEYS[] = { "tc", "st", "nodes", "depth", "plies", "nodestime", NULL };

atomic_int verify_g_stop;
atomic_int verify_g_signal;
const char *verify_stop_note = "\nratchet-tune: verify: stopping: abandoning the games in flight and saving "
                               "(again to quit at once)\n";

void verify_on_signal(int sig)
{
    if (verify_g_stop) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    verify_g_stop = 1;
    verify_g_signal = sig;
    ssize_t w = write(STDERR_FILENO, verify_stop_note, strlen(verify_stop_note));
    (void)w;
}

/* ---- settings ------------------------------------------------------------------ */

int verify_push_arg(Verify *v, const char *s)
{
    char **na = realloc(v->args, (size_t)(v->nargs + 2) * sizeof *na);
    if (!na)
        return -1;
    v->args = na;
    if (!(v->args[v->nargs] = strdup(s)))
        return -1;
    v->args[++v->nargs] = NULL;
    return 0;
}

/* argv[i], with the file of -openings, -pgnout and -log made absolute, so
 * that the stored options mean the same from any directory. */
static int push_arg_abs(Verify *v, char **argv, int i)
{
    const char *a = argv[i];
    const char *opt = NULL;
    for (int k = i - 1; k >= 2 && !opt; k--)
        if (argv[k][0] == '-')
            opt = argv[k];
    bool file_opt = opt && (!strcmp(opt, "-openings") || !strcmp(opt, "-pgnout") || !strcmp(opt, "-log") ||
                            !strcmp(opt, "-base") || !strcmp(opt, "-tuned"));
    if (!file_opt || a[0] == '-')
        return verify_push_arg(v, a);
    const char *path = NULL;
    if (!strncmp(a, "file=", 5))
        path = a + 5;
    else if (!strchr(a, '=') && strcmp(opt, "-openings") != 0 && argv[i - 1] == opt && strcmp(a, "min") != 0)
        path = a; /* -pgnout FILE, -base FILE, -tuned FILE */
    if (!path || !path[0] || path[0] == '/')
        return verify_push_arg(v, a);
    char abs[PATH_MAX], word[PATH_MAX + 8];
    rd_abs_path(path, abs, sizeof abs);
    snprintf(word, sizeof word, "%s%s", path == a ? "" : "file=", abs);
    return verify_push_arg(v, word);
}

void verify_free_args(Verify *v)
{
    for (int i = 0; i < v->nargs; i++)
        free(v->args[i]);
    free(v->args);
    v->args = NULL;
    v->nargs = 0;
}

/* v->args into the verify options and the match settings `over`. */
static int parse_args(Verify *v, RunConf *over, char *err, size_t errlen)
{
    v->sprt = (SprtSpec){ .on = true, .elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05 };
    v->rounds = 0;
    v->bake = BAKE_AUTO;
    int n = 0;
    char **rest = calloc((size_t)v->nargs + 1, sizeof *rest);
    if (!rest)
        return errmsg(err, errlen, "out of memory");
    int rc = 0;
    for (int i = 0; rc == 0 && i < v->nargs;) {
        const char *a = v->args[i];
        if (!strcmp(a, "-sprt")) {
            if (i + 1 < v->nargs && !strcmp(v->args[i + 1], "off")) {
                v->sprt.on = false;
                i += 2;
            } else {
                v->sprt.on = true;
                rc = cli_key_values(v->nargs, v->args, &i, sprt_kv, &v->sprt, err, errlen) < 0 ? -1 : 0;
            }
        } else if (!strcmp(a, "-rounds")) {
            int64_t r;
            if (cli_int_value(v->nargs, v->args, &i, 1, INT64_MAX / 4, &r, err, errlen) < 0)
                rc = -1;
            else
                v->rounds = (uint64_t)r;
        } else if (!strcmp(a, "-bake")) {
            const char *b = i + 1 < v->nargs ? v->args[i + 1] : "";
            if (!strcmp(b, "auto"))
                v->bake = BAKE_AUTO;
            else if (!strcmp(b, "yes"))
                v->bake = BAKE_YES;
            else if (!strcmp(b, "no"))
                v->bake = BAKE_NO;
            else
                rc = errmsg(err, errlen, "-bake needs auto, yes or no, not '%s'", b);
            i += 2;
        } else if (!strcmp(a, "-base") || !strcmp(a, "-tuned")) {
            if (verify_value_file_arg(v, i, err, errlen) < 0)
                rc = -1;
            i += 2;
        } else if (!strcmp(a, "-snapshot")) {
            if (i + 1 >= v->nargs || v->args[i + 1][0] == '-')
                rc = errmsg(err, errlen, "-snapshot needs last, best or a point number");
            else
                snprintf(v->snapshot, sizeof v->snapshot, "%s", v->args[i + 1]);
            i += 2;
        } else if (!strcmp(a, "-engine")) {
            rc = errmsg(err, errlen, "-engine: verify plays the run's engine (tuned against its start values); "
                                     "engine options come from the run");
        } else {
            rest[n++] = v->args[i++];
        }
    }
    if (rc == 0 && v->sprt.on &&
        !(v->sprt.alpha > 0 && v->sprt.alpha < 1 && v->sprt.beta > 0 && v->sprt.beta < 1 && v->sprt.elo1 > v->sprt.elo0))
        rc = errmsg(err, errlen, "-sprt: needs elo0 < elo1 and 0 < alpha, beta < 1");
    if (rc == 0 && !v->sprt.on && v->rounds == 0)
        rc = errmsg(err, errlen, "-sprt off needs -rounds N (the number of pairs to play)");
    if (rc == 0 && conf_parse_args(over, n, rest, VERIFY_SECTIONS, err, errlen) < 0)
        rc = -1;
    free(rest);
    return rc;
}

/* The match settings: the run's (INHERITED sections) with `over` on top;
 * a limit in `over` replaces every limit of the run. */
static int merge_settings(const RunState *rs, const RunConf *over, RunConf *out, bool *limit_over)
{
    *limit_over = false;
    for (size_t i = 0; i < over->n; i++)
        if (!strcmp(over->v[i].sec, "each") && str_in_list(VERIFY_LIMIT_KEYS, over->v[i].key))
            *limit_over = true;
    for (size_t i = 0; i < rs->conf.n; i++) {
        const ConfItem *it = &rs->conf.v[i];
        if (!str_in_list(INHERITED, it->sec) || (*limit_over && !strcmp(it->sec, "each") && str_in_list(VERIFY_LIMIT_KEYS, it->key)))
            continue;
        if (conf_set(out, it->sec, it->key, it->val, it->origin) < 0)
            return -1;
    }
    return conf_merge(out, over);
}

/* ---- the value files -------------------------------------------------------------- */

/* The run's start values: tuned parameters at their start, the others at their spec value. */
static cJSON *start_values(const RunState *rs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *params = o ? cJSON_AddObjectToObject(o, "params") : NULL;
    bool ok = params != NULL;
    for (size_t i = 0; ok && i < rs->norder; i++) {
        const char *name = rs->order[i];
        double v = 0;
        bool found = false;
        for (size_t k = 0; k < rs->spsa.nparams && !found; k++)
            if (!strcmp(rs->spsa.params[k].name, name)) {
                const SpsaParam *q = &rs->spsa.params[k];
                v = q->is_float ? q->start : (double)lround(q->start);
                found = true;
            }
        if (!found && runstate_value(rs, name, &v, NULL) < 0)
            continue;
        ok = cJSON_AddNumberToObject(params, name, v) != NULL;
    }
    ok = ok && cJSON_AddStringToObject(o, "source", "ratchet-tune verify: the run's start values") &&
         cJSON_AddStringToObject(o, "engine", rs->engine);
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* -base FILE or -tuned FILE (opt): its values replace those of dst; every
 * name must be a parameter of the run and every value a number (an integer
 * for an integer parameter) in its range. */
static int overlay_values(const RunState *rs, cJSON *dst_values, const char *opt, const char *file, char *err,
                          size_t errlen)
{
    char e2[PATH_MAX + 256];
    cJSON *j = rd_read_json(file, e2, sizeof e2);
    if (!j)
        return errmsg(err, errlen, "%s: %s", opt, e2);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params"), *p;
    cJSON *dst = cJSON_GetObjectItemCaseSensitive(dst_values, "params");
    int rc = 0;
    if (!cJSON_IsObject(params))
        rc = errmsg(err, errlen, "%s: %s: no \"params\" object (a value file is {\"params\": {NAME: value, ...}})",
                    opt, file);
    const cJSON *each = rc == 0 ? params : NULL;
    cJSON_ArrayForEach(p, each)
    {
        const cJSON *cur = cJSON_GetObjectItemCaseSensitive(dst, p->string);
        if (!cur) {
            rc = errmsg(err, errlen, "%s: %s: '%s' is not a parameter of the run", opt, file, p->string);
            break;
        }
        double now;
        bool is_float = false;
        runstate_value(rs, p->string, &now, &is_float);
        if (!cJSON_IsNumber(p) || (!is_float && p->valuedouble != floor(p->valuedouble))) {
            rc = errmsg(err, errlen, "%s: %s: %s is not %s", opt, file, p->string, is_float ? "a number" : "an integer");
            break;
        }
        for (size_t k = 0; k < rs->spsa.nparams; k++) {
            const SpsaParam *q = &rs->spsa.params[k];
            if (!strcmp(q->name, p->string) && (p->valuedouble < q->min || p->valuedouble > q->max))
                rc = errmsg(err, errlen, "%s: %s: %s = %g is outside its range [%g, %g]", opt, file, p->string,
                            p->valuedouble, q->min, q->max);
        }
        if (rc < 0 || !cJSON_ReplaceItemInObjectCaseSensitive(dst, p->string, cJSON_CreateNumber(p->valuedouble))) {
            rc = rc < 0 ? rc : errmsg(err, errlen, "out of memory");
            break;
        }
    }
    cJSON_Delete(j);
    return rc;
}

int verify_value_file_arg(Verify *v, int i, char *err, size_t errlen)
{
    const char *opt = v->args[i];
    if (i + 1 >= v->nargs || v->args[i + 1][0] == '-')
        return errmsg(err, errlen, "%s needs a value file (FILE.json)", opt);
    char *dst = !strcmp(opt, "-tuned") ? v->tuned_file : v->base_file;
    snprintf(dst, PATH_MAX, "%s", v->args[i + 1]);
    return 0;
}

int verify_use_value_files(Verify *v, char *err, size_t errlen)
{
    if (v->tuned_file[0]) {
        if (v->snapshot[0])
            return errmsg(err, errlen, "-tuned and -snapshot both name the values to test; give one of them");
        /* The file over the start values, not over the run's own. */
        cJSON *t = cJSON_Duplicate(v->base, true);
        if (!t)
            return errmsg(err, errlen, "out of memory");
        cJSON_Delete(v->tuned);
        v->tuned = t;
        if (overlay_values(&v->rs, v->tuned, "-tuned", v->tuned_file, err, errlen) < 0)
            return -1;
    }
    if (v->base_file[0] && overlay_values(&v->rs, v->base, "-base", v->base_file, err, errlen) < 0)
        return -1;
    return 0;
}

const cJSON *verify_params_of(const cJSON *values)
{
    return cJSON_GetObjectItemCaseSensitive(values, "params");
}

bool verify_same_params(const cJSON *a, const cJSON *b)
{
    return a && b && cJSON_Compare(a, b, true);
}

/* ---- the command ---------------------------------------------------------------------- */

static void verify_free(Verify *v)
{
    if (v->mc_init)
        match_config_free(&v->mc);
    runstate_free(&v->rs);
    cJSON_Delete(v->tuned);
    cJSON_Delete(v->base);
    free(v->pending);
    free(v->inflight);
    verify_free_args(v);
}

bool verify_same_args(const cJSON *stored, const Verify *v)
{
    if (!cJSON_IsArray(stored) || cJSON_GetArraySize(stored) != v->nargs)
        return false;
    for (int i = 0; i < v->nargs; i++) {
        const cJSON *s = cJSON_GetArrayItem(stored, i);
        if (!cJSON_IsString(s) || strcmp(s->valuestring, v->args[i]) != 0)
            return false;
    }
    return true;
}

static int load_args(Verify *v, const cJSON *stored)
{
    verify_free_args(v);
    const cJSON *s;
    cJSON_ArrayForEach(s, stored)
    {
        if (!cJSON_IsString(s) || verify_push_arg(v, s->valuestring) < 0)
            return -1;
    }
    return 0;
}

/* Play; returns the exit code. */
static int play(Verify *v)
{
    char err[PATH_MAX + 1024];
    v->sessions++;
    if (v->created[0] == '\0')
        rd_now_iso(v->created, sizeof v->created);
    if (verify_save(v, "running", verify_verdict_name(v), err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: verify: %s\n", err);
        return EXIT_FAILED;
    }
    printf("verify: tuned (%s) against base (%s), %s, ", v->mc.eng[0].cmd, v->mc.eng[1].cmd, v->tc);
    if (v->sprt.on)
        printf("SPRT [%.2f, %.2f] alpha %.2f beta %.2f%s", v->sprt.elo0, v->sprt.elo1, v->sprt.alpha, v->sprt.beta,
               v->rounds ? ", at most" : "");
    if (v->rounds)
        printf("%s%llu pairs", v->sprt.on ? " " : "", (unsigned long long)v->rounds);
    printf(", concurrency %d, %zu openings from %s\n", v->mc.concurrency, book_picks(v->mc.book), v->mc.book_path);
    if (v->tally.games || v->npending)
        printf("continuing: %llu games played, %zu pair%s to replay\n", (unsigned long long)v->tally.games,
               v->npending, v->npending == 1 ? "" : "s");
    fflush(stdout);

    verify_g_stop = 0;
    verify_g_signal = 0;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = verify_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    v->mc.stop = &verify_g_stop;
    v->tty = cli_live_progress();
    v->t0 = v->last_progress = ep_now_ms();
    MatchHooks hooks = { .next_pair = verify_next, .pair_done = verify_done, .pair_abandoned = verify_abandoned,
                         .ctx = v };
    int mrc = match_play(&v->mc, &hooks);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    bool done = !v->failed && !verify_g_stop && mrc == 0 && v->ninflight == 0 &&
                (v->verdict != 0 || (v->rounds && v->tally.pairs >= v->rounds));
    if (v->tally.games)
        verify_progress(v, true);
    if (v->line_open)
        putchar('\n');
    const char *status = done ? "done" : "stopped";
    bool saved = verify_save(v, status, verify_verdict_name(v), err, sizeof err) == 0;
    if (!saved)
        fprintf(stderr, "ratchet-tune: verify: %s\n", err);
    if (mrc < 0) {
        fprintf(stderr, "ratchet-tune: verify: the engines could not be started; nothing was played\n");
        return EXIT_FAILED;
    }
    match_report(stdout, &v->mc, &v->tally, v->sprt.on ? &v->sprt : NULL, &v->stop);
    if (done && v->fresh_cut && v->sprt.on && v->verdict == 0)
        printf("verify: the SPRT ran out of fresh openings after %llu pairs: no verdict (a bigger book, or "
               "-openings file=F with openings the run never played)\n", (unsigned long long)v->rounds);
    cJSON *j = verify_to_json(v, status, verify_verdict_name(v));
    if (j)
        verdict_print(stdout, j, v->dir);
    cJSON_Delete(j);
    printf("%s %s\n", saved ? "written to" : "could not write", v->path);
    fflush(stdout);
    if (done && saved)
        return EXIT_DONE;
    if (verify_g_signal && !v->failed && mrc == 0)
        return 128 + verify_g_signal;
    return EXIT_FAILED;
}

int verify_fail(VerifyCall *c, int rc)
{
    c->rc = rc;
    return STEP_FAIL;
}

int verify_oom(VerifyCall *c)
{
    errmsg(c->err, sizeof c->err, "out of memory");
    return verify_fail(c, EXIT_FAILED);
}

int verify_read_options(VerifyCall *c, int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-restart"))
            c->restart = true;
        else if (!strcmp(argv[i], "-force"))
            c->force = true;
        else if (!strcmp(argv[i], "-concurrency") && i + 1 < argc)
            c->concurrency = argv[++i];
        else if (c->push_arg(c->v, argv, i) < 0)
            return verify_oom(c);
    }
    return STEP_GO;
}

int verify_open_run(VerifyCall *c, const char *file)
{
    Verify *v = c->v;
    rd_abs_path(c->arg, v->dir, sizeof v->dir);
    snprintf(c->file, sizeof c->file, "%s/%s", v->dir, file);
    struct stat sb;
    if (stat(v->dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        errmsg(c->err, sizeof c->err, "verify: '%s' is not a directory%s", c->arg,
               errno == ENOENT ? " (no such file)" : "");
        return STEP_FAIL;
    }
    snprintf(c->state_path, sizeof c->state_path, "%s/%s", v->dir, STATE_FILE);
    if (access(c->state_path, F_OK) != 0) {
        errmsg(c->err, sizeof c->err, "verify: '%s' is not a run directory (no %s)", c->arg, STATE_FILE);
        return STEP_FAIL;
    }
    if ((c->lockfd = rd_lock(v->dir, c->err, sizeof c->err)) < 0)
        return STEP_FAIL;
    runstate_free(&v->rs);
    if (runstate_load(&v->rs, v->dir, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    if (!(v->tuned = export_values(&v->rs, c->name)) || !(v->base = start_values(&v->rs)))
        return verify_oom(c);
    return STEP_GO;
}

int verify_read_earlier(VerifyCall *c)
{
    Verify *v = c->v;
    if (c->restart || access(c->file, F_OK) != 0)
        return STEP_GO;
    if (!(c->old = rd_read_json(c->file, c->err, sizeof c->err))) {
        appendf(c->err, sizeof c->err, strlen(c->err), "; start over with: %s verify %s%s -restart", setup_prog(),
                c->arg, c->suffix);
        return STEP_FAIL;
    }
    const cJSON *oargs = cJSON_GetObjectItemCaseSensitive(c->old, "args");
    if (v->nargs == c->bare_nargs && cJSON_IsArray(oargs)) {
        if (load_args(v, oargs) < 0)
            return verify_oom(c);
    } else if (!verify_same_args(oargs, v)) {
        char *was = cJSON_PrintUnformatted(oargs);
        errmsg(c->err, sizeof c->err,
               "%s: %s holds %s with other options (%s); run `%s verify %s%s` to "
               "continue or show it, or add -restart to start over with the new options",
               c->cmdline, c->file, c->noun, was ? was : "?", setup_prog(), c->arg, c->suffix);
        free(was);
        return STEP_FAIL;
    }
    return STEP_GO;
}

/* The earlier verify played these values: shown when it is done, continued
 * when not; other values (the run moved on, another -base) start anew. */
static int continue_earlier(VerifyCall *c)
{
    Verify *v = c->v;
    if (!c->old)
        return STEP_GO;
    if (!verify_same_params(verify_params_of(v->tuned), cJSON_GetObjectItemCaseSensitive(c->old, "tuned")) ||
        !verify_same_params(verify_params_of(v->base), cJSON_GetObjectItemCaseSensitive(c->old, "base"))) {
        uint64_t then = 0;
        json_get_u64(c->old, "run_games", &then);
        printf("verify: the values differ from those of %s (the run has moved on, %llu games then, %llu now, or "
               "the -base file changed): starting a new verify\n",
               v->path, (unsigned long long)then, (unsigned long long)v->rs.games);
        return STEP_GO;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(c->old, "status");
    if (cJSON_IsString(st) && !strcmp(st->valuestring, "done")) {
        verdict_print(stdout, c->old, c->arg);
        printf("(finished earlier; -restart plays it again)\n");
        c->rc = EXIT_DONE;
        return STEP_END;
    }
    c->resume = true;
    return STEP_GO;
}

int verify_settle_settings(VerifyCall *c, int (*resume)(VerifyCall *c))
{
    Verify *v = c->v;
    if (c->concurrency && conf_set(&c->over, "concurrency", "", c->concurrency, "command line") < 0)
        return verify_oom(c);
    if (c->resume && resume(c) < 0)
        return STEP_FAIL;
    if (!c->resume) {
        const char *seed = conf_get(&c->over, "srand", "");
        unsigned long long s = 0;
        if (seed && conf_get_u64(&c->over, "srand", "", 0, ULLONG_MAX, &s, c->err, sizeof c->err) < 0)
            return STEP_FAIL;
        v->seed = seed ? s : (((uint64_t)time(NULL) * 2654435761u) ^ (uint64_t)getpid()) % 4294967291u;
    }
    if (merge_settings(&v->rs, &c->over, &c->settings, &c->limit_over) < 0)
        return verify_oom(c);
    return STEP_GO;
}

/* DIR/verify/tuned.json and base.json. */
static int write_values(VerifyCall *c)
{
    Verify *v = c->v;
    char tp[PATH_MAX + 64], bp[PATH_MAX + 64];
    snprintf(tp, sizeof tp, "%s/tuned.json", v->sub);
    snprintf(bp, sizeof bp, "%s/base.json", v->sub);
    if (rd_mkdir_sub(v->sub, c->err, sizeof c->err) < 0 || rd_write_json(tp, v->tuned, c->err, sizeof c->err) < 0 ||
        rd_write_json(bp, v->base, c->err, sizeof c->err) < 0)
        return verify_fail(c, EXIT_FAILED);
    return STEP_GO;
}

/* Tuned values equal to the base values: "nothing to verify" ends the call. */
static int nothing_to_verify(VerifyCall *c, bool bakeable)
{
    Verify *v = c->v;
    if (!cJSON_Compare(verify_params_of(v->tuned), verify_params_of(v->base), true))
        return STEP_GO;
    v->baked = bakeable;
    snprintf(v->mc.eng[0].cmd, sizeof v->mc.eng[0].cmd, "%s", c->cmd);
    snprintf(v->mc.eng[1].cmd, sizeof v->mc.eng[1].cmd, "%s", c->cmd);
    snprintf(v->tc, sizeof v->tc, "%s", v->rs.tc);
    const char *book = conf_get(&c->settings, "openings", "file");
    if (book)
        snprintf(v->mc.book_path, sizeof v->mc.book_path, "%s", book);
    else
        setup_default_book(v->mc.book_path, sizeof v->mc.book_path);
    rd_now_iso(v->created, sizeof v->created);
    if (verify_save(v, "done", "identical", c->err, sizeof c->err) < 0)
        return verify_fail(c, EXIT_FAILED);
    printf("verify: the tuned values of %s are its start values: nothing to verify (written to %s)\n", c->arg,
           v->path);
    c->rc = EXIT_DONE;
    return STEP_END;
}

int verify_engine_cmd(VerifyCall *c)
{
    if (!(c->cmd = conf_get(&c->v->rs.conf, "engine", "cmd"))) {
        errmsg(c->err, sizeof c->err, "verify: %s has no engine.cmd", c->state_path);
        return STEP_FAIL;
    }
    return STEP_GO;
}

/* The value files and the two engines: baked from the Ratchet source tree
 * of bin/ratchet, or the run's engine twice with the values sent as options. */
static int make_engines(VerifyCall *c)
{
    Verify *v = c->v;
    int step = write_values(c);
    if (step != STEP_GO)
        return step;
    if ((step = verify_engine_cmd(c)) != STEP_GO)
        return step;
    char root[PATH_MAX];
    bool bakeable = v->bake != BAKE_NO && !conf_get(&v->rs.conf, "engine", "dir") &&
                    verify_ratchet_root(&v->rs, c->cmd, root, sizeof root);
    if (v->bake == BAKE_YES && !bakeable) {
        errmsg(c->err, sizeof c->err,
               "verify: -bake yes: the run's engine %s (%s) is not bin/ratchet of a Ratchet source "
               "tree; use -bake no to send the values as options",
               c->cmd, v->rs.engine);
        return STEP_FAIL;
    }
    if ((step = nothing_to_verify(c, bakeable)) != STEP_GO)
        return step;
    if (bakeable) {
        v->baked = true;
        if (verify_bake_engines(v, root, c->engines, c->err, sizeof c->err) < 0)
            return verify_fail(c, EXIT_FAILED);
    } else {
        snprintf(c->engines[0], sizeof c->engines[0], "%s", c->cmd);
        snprintf(c->engines[1], sizeof c->engines[1], "%s", c->cmd);
    }
    return STEP_GO;
}

/* The match: its configuration, the book, the engine check and the fresh openings. */
static int make_match(VerifyCall *c)
{
    Verify *v = c->v;
    if (verify_build_match(v, &c->settings, c->limit_over, c->engines, c->err, sizeof c->err) < 0 ||
        verify_check_match(c) != STEP_GO || verify_fresh_openings(v, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    return STEP_GO;
}

int verify_check_match(VerifyCall *c)
{
    Verify *v = c->v;
    if (!v->mc.book) {
        errmsg(c->err, sizeof c->err,
               "verify: no opening book: the run had none and openings/default.epd is not found; "
               "give -openings file=F");
        return STEP_FAIL;
    }
    /* The engine at the run's path must be the one the run tuned (engcheck.h). */
    EngineSpec run_engine = v->mc.eng[0];
    snprintf(run_engine.cmd, sizeof run_engine.cmd, "%s", c->cmd);
    if (engcheck_verify(&v->rs.engine_id, &run_engine, c->force, c->err, sizeof c->err) < 0 ||
        verify_pick_openings(v, &c->over, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    return STEP_GO;
}

static int progress_from(VerifyCall *c)
{
    return verify_progress_from(c->v, c->old, c->err, sizeof c->err);
}

/* The steps up to the match, in order; STEP_GO when the match is to be played. */
static int prepare(VerifyCall *c, int argc, char **argv)
{
    Verify *v = c->v;
    int step;
    if ((step = verify_read_options(c, argc, argv)) != STEP_GO || (step = verify_open_run(c, VERIFY_FILE)) != STEP_GO)
        return step;
    snprintf(v->path, sizeof v->path, "%s", c->file);
    snprintf(v->sub, sizeof v->sub, "%s/%s", v->dir, VERIFY_SUBDIR);
    if ((step = verify_read_earlier(c)) != STEP_GO)
        return step;
    if (parse_args(v, &c->over, c->err, sizeof c->err) < 0 || verify_use_snapshot(v, c->err, sizeof c->err) < 0 ||
        verify_use_value_files(v, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    if ((step = continue_earlier(c)) != STEP_GO || (step = verify_settle_settings(c, progress_from)) != STEP_GO ||
        (step = make_engines(c)) != STEP_GO)
        return step;
    return make_match(c);
}

int verify_main(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-ablate"))
            return ablate_main(argc, argv);
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(VERIFY_USAGE, stdout);
            match_print_options(stdout);
            return EXIT_DONE;
        }
    if (argc < 2 || argv[1][0] == '-') {
        fputs(VERIFY_USAGE, stderr);
        return EXIT_USAGE;
    }
    rules_init();
    static Verify v; /* large (the match configuration); one per process */
    static VerifyCall c; /* holds the path buffers; one per process */
    verify_call_init(&c, &v, argv[1], false);
    int step = prepare(&c, argc, argv);
    if (step == STEP_GO)
        c.rc = play(&v);
    return verify_call_end(&c, step);
}

void verify_call_init(VerifyCall *c, Verify *v, const char *dir_arg, bool ablate)
{
    memset(v, 0, sizeof *v);
    runstate_init(&v->rs);
    memset(c, 0, sizeof *c);
    c->v = v;
    c->arg = dir_arg;
    c->name = ablate ? "ablate" : "verify";
    c->cmdline = ablate ? "verify -ablate" : "verify";
    c->noun = ablate ? "an ablation" : "a verify";
    c->suffix = ablate ? " -ablate" : "";
    c->bare_nargs = ablate ? 1 : 0;
    c->push_arg = push_arg_abs;
    c->rc = EXIT_USAGE;
    c->lockfd = -1;
    conf_init(&c->over);
    conf_init(&c->settings);
}

int verify_call_end(VerifyCall *c, int step)
{
    if (step == STEP_FAIL)
        fprintf(stderr, "ratchet-tune: %s\n", c->err);
    cJSON_Delete(c->old);
    conf_free(&c->over);
    conf_free(&c->settings);
    verify_free(c->v);
    if (c->lockfd >= 0)
        rd_unlock(c->lockfd);
    return c->rc;
}

/* For ablate.c, which plays through the same machinery. */
cJSON *verify_start_values(const RunState *rs)
{
    return start_values(rs);
}

int verify_merge_settings(const RunState *rs, const RunConf *over, RunConf *out, bool *limit_over)
{
    return merge_settings(rs, over, out, limit_over);
}
