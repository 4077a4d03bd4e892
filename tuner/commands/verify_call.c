/* The steps that `verify` and `verify -ablate` share; see verify_call.h. */
#include "verify_call.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "claims.h"
#include "cli.h"
#include "engcheck.h"
#include "errmsg.h"
#include "jsonget.h"
#include "export.h"
#include "loadcheck.h"
#include "rd.h"
#include "pgntrim.h"
#include "readfile.h"
#include "setup.h"
#include "strlist.h"
#include "validate.h"

/* The sections of the match options both commands take, and those they inherit from the run. */
const char *const VERIFY_SECTIONS[] = { "each",        "openings", "draw",   "resign", "maxmoves",
                                               "concurrency", "srand",    "pgnout", "log",    NULL };
static const char *const INHERITED[] = { "each", "openings", "draw", "resign", "maxmoves", "concurrency", NULL };
/* The keys that set an engine's limit: one given replaces all the run's. */
const char *const VERIFY_LIMIT_KEYS[] = { "tc", "st", "nodes", "depth", "plies", "nodestime", NULL };

/* ---- the stored options -------------------------------------------------------- */

static int push_arg(VerifyRun *r, const char *s)
{
    char **na = realloc(r->args, (size_t)(r->nargs + 2) * sizeof *na);
    if (!na)
        return -1;
    r->args = na;
    if (!(r->args[r->nargs] = strdup(s)))
        return -1;
    r->args[++r->nargs] = NULL;
    return 0;
}

/* argv[i] as stored: the file of -openings file=, -pgnout, -log, -base,
 * -tuned and -ablate groups=FILE made absolute, so that the stored options
 * mean the same from any directory. */
static int push_arg_abs(VerifyRun *r, char **argv, int i)
{
    const char *a = argv[i];
    const char *opt = NULL;
    for (int k = i - 1; k >= 2 && !opt; k--)
        if (argv[k][0] == '-')
            opt = argv[k];
    const char *path = NULL, *pre = "";
    bool file_opt = opt && (!strcmp(opt, "-openings") || !strcmp(opt, "-pgnout") || !strcmp(opt, "-log") ||
                            !strcmp(opt, "-base") || !strcmp(opt, "-tuned"));
    if (a[0] == '-' || !opt) {
        path = NULL;
    } else if (!strcmp(opt, "-ablate") && argv[i - 1] == opt && !strncmp(a, "groups=", 7) &&
               strcmp(a + 7, "auto") != 0 && access(a + 7, F_OK) == 0) {
        path = a + 7;
        pre = "groups=";
    } else if (file_opt && !strncmp(a, "file=", 5)) {
        path = a + 5;
        pre = "file=";
    } else if (file_opt && !strchr(a, '=') && strcmp(opt, "-openings") != 0 && argv[i - 1] == opt &&
               strcmp(a, "min") != 0) {
        path = a; /* -pgnout FILE, -base FILE, -tuned FILE */
    }
    if (!path || !path[0] || path[0] == '/')
        return push_arg(r, a);
    char abs[PATH_MAX], word[PATH_MAX + 16];
    rd_abs_path(path, abs, sizeof abs);
    snprintf(word, sizeof word, "%s%s", pre, abs);
    return push_arg(r, word);
}

static void free_args(VerifyRun *r)
{
    for (int i = 0; i < r->nargs; i++)
        free(r->args[i]);
    free(r->args);
    r->args = NULL;
    r->nargs = 0;
}

bool verify_same_args(const cJSON *stored, const VerifyRun *r)
{
    if (!cJSON_IsArray(stored) || cJSON_GetArraySize(stored) != r->nargs)
        return false;
    for (int i = 0; i < r->nargs; i++) {
        const cJSON *s = cJSON_GetArrayItem(stored, i);
        if (!cJSON_IsString(s) || strcmp(s->valuestring, r->args[i]) != 0)
            return false;
    }
    return true;
}

static int load_args(VerifyRun *r, const cJSON *stored)
{
    free_args(r);
    const cJSON *s;
    cJSON_ArrayForEach(s, stored)
    {
        if (!cJSON_IsString(s) || push_arg(r, s->valuestring) < 0)
            return -1;
    }
    return 0;
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

/* A value file the user names: a symbolic link is followed (a run
 * directory's own files are not), a FIFO or a device is refused. */
static cJSON *read_user_json(const char *path, char *err, size_t errlen)
{
    const char *why = NULL;
    int fd = open_user_file(path, &why);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (!f) {
        errmsg(err, errlen, "cannot open '%s': %s", path, why ? why : strerror(errno));
        return NULL;
    }
    char *text = read_stream(f, 1 << 24, NULL);
    int e = errno;
    fclose(f);
    if (!text) {
        errmsg(err, errlen, "cannot read '%s': %s", path, e == EFBIG ? "larger than 16 MB" : strerror(e));
        return NULL;
    }
    cJSON *j = json_parse_text(text, path, err, errlen);
    free(text);
    return j;
}

/* -base FILE or -tuned FILE (opt): its values replace those of dst; every
 * name must be a parameter of the run and every value a number (an integer
 * for an integer parameter) in its range. */
static int overlay_values(const RunState *rs, cJSON *dst_values, const char *opt, const char *file, char *err,
                          size_t errlen)
{
    char e2[PATH_MAX + 256];
    cJSON *j = read_user_json(file, e2, sizeof e2);
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
        char why[256];
        if (cJSON_IsString(p))
            rc = errmsg(err, errlen, "%s: %s: %s is the string \"%s\", not a number (write it without quotes)", opt,
                        file, p->string, p->valuestring);
        else if (!cJSON_IsNumber(p))
            rc = errmsg(err, errlen, "%s: %s: %s is not a number", opt, file, p->string);
        else if (runstate_check_value(rs, p->string, p->valuedouble, why, sizeof why) < 0)
            rc = errmsg(err, errlen, "%s: %s: %s", opt, file, why);
        if (rc < 0 || !cJSON_ReplaceItemInObjectCaseSensitive(dst, p->string, cJSON_CreateNumber(p->valuedouble))) {
            rc = rc < 0 ? rc : errmsg(err, errlen, "out of memory");
            break;
        }
    }
    cJSON_Delete(j);
    return rc;
}

int verify_use_value_files(VerifyRun *r, char *err, size_t errlen)
{
    if (r->tuned_file[0]) {
        /* The file over the start values, not over the run's own. */
        cJSON *t = cJSON_Duplicate(r->base, true);
        if (!t)
            return errmsg(err, errlen, "out of memory");
        cJSON_Delete(r->tuned);
        r->tuned = t;
        if (overlay_values(&r->rs, r->tuned, "-tuned", r->tuned_file, err, errlen) < 0)
            return -1;
    }
    if (r->base_file[0] && overlay_values(&r->rs, r->base, "-base", r->base_file, err, errlen) < 0)
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

/* ---- the steps ------------------------------------------------------------------ */

static void run_free(VerifyRun *r)
{
    if (r->mc_init)
        match_config_free(&r->mc);
    runstate_free(&r->rs);
    cJSON_Delete(r->tuned);
    cJSON_Delete(r->base);
    cJSON_Delete(r->machine);
    free_args(r);
}

void verify_call_init(VerifyCall *c, VerifyRun *r, const char *dir_arg, const VerifyKind *kind)
{
    memset(r, 0, sizeof *r);
    runstate_init(&r->rs);
    memset(c, 0, sizeof *c);
    c->r = r;
    c->kind = kind;
    c->arg = dir_arg;
    c->rc = VERIFY_EXIT_USAGE;
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
    run_free(c->r);
    if (c->lockfd >= 0)
        rd_unlock(c->lockfd);
    return c->rc;
}

int verify_fail(VerifyCall *c, int rc)
{
    c->rc = rc;
    return STEP_FAIL;
}

int verify_oom(VerifyCall *c)
{
    errmsg(c->err, sizeof c->err, "out of memory");
    return verify_fail(c, VERIFY_EXIT_FAILED);
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
        else if (!strcmp(argv[i], "-idle-wait") && i + 1 < argc) {
            if (verify_parse_idle_wait(argv[++i], &c->r->idle_wait) < 0) {
                errmsg(c->err, sizeof c->err, "-idle-wait: '%s' is not a duration (seconds, or 90s, 30m, 1h; or off)",
                       argv[i]);
                return verify_fail(c, VERIFY_EXIT_USAGE);
            }
        } else if (push_arg_abs(c->r, argv, i) < 0)
            return verify_oom(c);
    }
    return STEP_GO;
}

int verify_open_run(VerifyCall *c)
{
    VerifyRun *r = c->r;
    rd_abs_path(c->arg, r->dir, sizeof r->dir);
    snprintf(c->file, sizeof c->file, "%s/%s", r->dir, c->kind->file);
    struct stat sb;
    if (stat(r->dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        errmsg(c->err, sizeof c->err, "verify: '%s' is not a directory%s", c->arg,
               errno == ENOENT ? " (no such file)" : "");
        return STEP_FAIL;
    }
    snprintf(c->state_path, sizeof c->state_path, "%s/%s", r->dir, STATE_FILE);
    if (access(c->state_path, F_OK) != 0) {
        errmsg(c->err, sizeof c->err, "verify: '%s' is not a run directory (no %s)", c->arg, STATE_FILE);
        return STEP_FAIL;
    }
    if ((c->lockfd = rd_lock(r->dir, c->err, sizeof c->err)) < 0)
        return STEP_FAIL;
    runstate_free(&r->rs);
    if (runstate_load(&r->rs, r->dir, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    if (!(r->tuned = export_values(&r->rs, c->kind->name)) || !(r->base = start_values(&r->rs)))
        return verify_oom(c);
    return STEP_GO;
}

/* The directory a record was written in: its "dir", or for a record of an
 * older build the run's "out", where the run last played. */
static const char *record_dir(const cJSON *old, const RunState *rs)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(old, "dir");
    return cJSON_IsString(d) ? d->valuestring : conf_get(&rs->conf, "out", "");
}

/* s (an option's word: PATH or KEY=PATH) with a PATH under `from` taken
 * under `to`, in out; false when PATH is not under `from`. */
static bool rebased(const char *s, const char *from, const char *to, char *out, size_t len)
{
    const char *eq = strchr(s, '='), *p = eq && eq[1] == '/' ? eq + 1 : s;
    char path[2 * PATH_MAX];
    if (!rd_path_moved(p, from, to, path, sizeof path))
        return false;
    int k = snprintf(out, len, "%.*s%s", (int)(p - s), s, path);
    return k >= 0 && (size_t)k < len;
}

/* A run directory copied or moved keeps its records, whose options name
 * files inside it by the path it had (the night's -pgnout and -tuned
 * among them).  Each such path is taken under the directory now, in the
 * record's options and in those given alike, so that a continued call
 * compares them as the same and never writes into the original's files. */
static int rebase_args(VerifyCall *c, cJSON *oargs)
{
    VerifyRun *r = c->r;
    const char *d = record_dir(c->old, &r->rs);
    char from[PATH_MAX], word[2 * PATH_MAX];
    snprintf(from, sizeof from, "%s", d ? d : "");
    if (!from[0] || !strcmp(from, r->dir))
        return 0;
    int moved = 0;
    cJSON *a;
    cJSON_ArrayForEach(a, oargs)
    {
        if (!cJSON_IsString(a) || !rebased(a->valuestring, from, r->dir, word, sizeof word))
            continue;
        if (!cJSON_SetValuestring(a, word))
            return -1;
        moved++;
    }
    for (int i = 0; i < r->nargs; i++) {
        if (!rebased(r->args[i], from, r->dir, word, sizeof word))
            continue;
        char *w = strdup(word);
        if (!w)
            return -1;
        free(r->args[i]);
        r->args[i] = w;
        moved++;
    }
    if (moved)
        printf("%s: %s was written in %s: the files its options name there are taken in %s\n", c->kind->cmdline,
               c->file, from, r->dir);
    return 0;
}

int verify_read_earlier(VerifyCall *c)
{
    VerifyRun *r = c->r;
    if (c->restart || access(c->file, F_OK) != 0)
        return STEP_GO;
    if (!(c->old = rd_read_json(c->file, c->err, sizeof c->err))) {
        appendf(c->err, sizeof c->err, strlen(c->err), "; start over with: %s verify %s%s -restart", setup_prog(),
                c->arg, c->kind->suffix);
        return STEP_FAIL;
    }
    cJSON *oargs = cJSON_GetObjectItemCaseSensitive(c->old, "args");
    if (rebase_args(c, oargs) < 0)
        return verify_oom(c);
    if (r->nargs == c->kind->bare_nargs && cJSON_IsArray(oargs)) {
        if (load_args(r, oargs) < 0)
            return verify_oom(c);
    } else if (!verify_same_args(oargs, r)) {
        char *was = cJSON_PrintUnformatted(oargs);
        errmsg(c->err, sizeof c->err,
               "%s: %s holds %s with other options (%s); run `%s verify %s%s` to "
               "continue or show it, or add -restart to start over with the new options",
               c->kind->cmdline, c->file, c->kind->noun, was ? was : "?", setup_prog(), c->arg, c->kind->suffix);
        free(was);
        return STEP_FAIL;
    }
    return STEP_GO;
}

int verify_settle_settings(VerifyCall *c, int (*resume)(VerifyCall *c))
{
    VerifyRun *r = c->r;
    if (c->concurrency && conf_set(&c->over, "concurrency", "", c->concurrency, "command line") < 0)
        return verify_oom(c);
    if (c->resume && resume(c) < 0)
        return STEP_FAIL;
    if (!c->resume) {
        const char *seed = conf_get(&c->over, "srand", "");
        unsigned long long s = 0;
        if (seed && conf_get_u64(&c->over, "srand", "", 0, ULLONG_MAX, &s, c->err, sizeof c->err) < 0)
            return STEP_FAIL;
        r->seed = seed ? s : (((uint64_t)time(NULL) * 2654435761u) ^ (uint64_t)getpid()) % 4294967291u;
    }
    if (merge_settings(&r->rs, &c->over, &c->settings, &c->limit_over) < 0)
        return verify_oom(c);
    return STEP_GO;
}

int verify_engine_cmd(VerifyCall *c)
{
    if (!(c->cmd = conf_get(&c->r->rs.conf, "engine", "cmd"))) {
        errmsg(c->err, sizeof c->err, "verify: %s has no engine.cmd", c->state_path);
        return STEP_FAIL;
    }
    return setup_engine_present(&c->r->rs.conf, c->r->dir, c->err, sizeof c->err) < 0 ? STEP_FAIL : STEP_GO;
}

static bool is_param(const RunState *rs, const char *name)
{
    for (size_t i = 0; i < rs->norder; i++)
        if (!strcasecmp(rs->order[i], name))
            return true;
    return false;
}

/* The -engine words of one side: the run's engine section, cmd and name, and
 * (options mode) every parameter's value as option.NAME=V. */
static int engine_words(const VerifyRun *r, const char *name, const char *cmd, const cJSON *values, bool limit_over,
                        int *argc, char ***argv)
{
    if (conf_argv_push(argc, argv, "-engine") < 0)
        return -1;
    const RunConf *c = &r->rs.conf;
    char kv[PATH_MAX + 64];
    for (size_t i = 0; i < c->n; i++) {
        const ConfItem *it = &c->v[i];
        if (strcmp(it->sec, "engine") != 0 || !strcmp(it->key, "name") || !strcmp(it->key, "cmd") ||
            (limit_over && str_in_list(VERIFY_LIMIT_KEYS, it->key)) ||
            (!strncmp(it->key, "option.", 7) && is_param(&r->rs, it->key + 7)))
            continue;
        snprintf(kv, sizeof kv, "%s=%s", it->key, it->val);
        if (conf_argv_push(argc, argv, kv) < 0)
            return -1;
    }
    snprintf(kv, sizeof kv, "cmd=%s", cmd);
    if (conf_argv_push(argc, argv, kv) < 0)
        return -1;
    snprintf(kv, sizeof kv, "name=%s", name);
    if (conf_argv_push(argc, argv, kv) < 0)
        return -1;
    if (r->baked)
        return 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, verify_params_of(values))
    {
        snprintf(kv, sizeof kv, "option.%s=%.12g", p->string, p->valuedouble);
        if (conf_argv_push(argc, argv, kv) < 0)
            return -1;
    }
    return 0;
}

/* The match configuration: engine 0 "tuned" (cmd[0], values[0]) and engine
 * 1 "base" (cmd[1], values[1]), the settings' sections, the seed. */
static int build_match(VerifyRun *r, const RunConf *settings, bool limit_over, char (*cmd)[PATH_MAX + 64],
                       const cJSON *values[2], char *err, size_t errlen)
{
    int argc = 0;
    char **argv = NULL;
    int rc = 0;
    if (engine_words(r, "tuned", cmd[0], values[0], limit_over, &argc, &argv) < 0 ||
        engine_words(r, "base", cmd[1], values[1], limit_over, &argc, &argv) < 0)
        rc = errmsg(err, errlen, "out of memory");
    for (const char *const *s = VERIFY_SECTIONS; rc == 0 && *s; s++)
        if (strcmp(*s, "srand") != 0 && conf_section_argv(settings, *s, NULL, &argc, &argv) < 0)
            rc = errmsg(err, errlen, "out of memory");
    match_config_init(&r->mc);
    r->mc_init = true;
    for (int i = 0; rc == 0 && i < argc;) {
        const char *opt = argv[i];
        char e2[768] = "";
        int pr = match_parse_option(&r->mc, argc, argv, &i, e2, sizeof e2);
        if (pr != 1)
            rc = errmsg(err, errlen, "%s: %s", opt, pr == 0 ? "unknown option" : e2);
    }
    conf_free_argv(argc, argv);
    if (rc < 0)
        return -1;
    r->mc.seed = r->seed;
    r->mc.seed_set = true;
    if (!r->mc.book_path[0] && setup_default_book(r->mc.book_path, sizeof r->mc.book_path))
        r->mc.book_random = true;
    char e2[768];
    if (match_config_finish(&r->mc, e2, sizeof e2) < 0)
        return errmsg(err, errlen, "%s", e2);
    tc_format(&r->mc.eng[0].tc, r->tc, sizeof r->tc);
    return 0;
}

/* The held-out openings that validation plays over the run's budget. */
static uint64_t validation_reserve(const RunState *rs)
{
    const SpsaConfig *cfg = &rs->spsa.cfg;
    return validate_pairs_planned(&rs->val, spsa_budget_games(cfg));
}

/* A call of an older build's file (no claim in it): the held-out openings
 * past those validation played, in the run's order, as that build played
 * them, so a continued call plays the openings it began with. */
static int keep_unclaimed(VerifyRun *r, const MatchConfig *run, uint64_t h, char *err, size_t errlen)
{
    size_t n = book_size(r->mc.book);
    const Validation *val = &r->rs.val;
    uint64_t used = val->used + (val->pending ? val->size / 2 : 0);
    uint64_t skip = used < h ? used : 0;
    book_set_order(r->mc.book, run->book_random, run->seed, (size_t)(run->book_start - 1));
    if (book_keep(r->mc.book, n - h + skip, (size_t)(h - skip)) < 0)
        return errmsg(err, errlen, "out of memory");
    snprintf(r->openings, sizeof r->openings, "held-out");
    printf("verify: openings: %llu of the %llu of %s's %zu that the run held out of its tuning (never played "
           "by it)%s, as this call began\n", (unsigned long long)(h - skip), (unsigned long long)h, r->mc.book_path, n,
           used == 0 ? "" : skip ? ", past those its validation points played" : "; its validation points played them all");
    return 0;
}

/* The claim of a continued call: from its file's "openings" object. */
static bool stored_claim(const cJSON *old, uint64_t *first, uint64_t *count)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(old, "openings");
    return json_get_u64(op, "held_out_first", first) && json_get_u64(op, "held_out_count", count) && *count > 0;
}

/* A new call's claim: the held-out openings past validation's and every
 * earlier step's (DIR/openings.json), as many as the call plays, or as
 * many as are left.  0; 1 when none is left and -force plays them again
 * (c->err says so); -1 with c->err. */
static int new_claim(VerifyCall *c, uint64_t h, uint64_t *first, uint64_t *count)
{
    VerifyRun *r = c->r;
    OpenClaims cl = { 0 };
    uint64_t reserve = validation_reserve(&r->rs);
    if (reserve > h)
        reserve = h;
    if (claims_load(r->dir, h, &cl, c->err, sizeof c->err) < 0)
        return -1;
    uint64_t end = claims_end(&cl, reserve), left = h - end;
    uint64_t want = c->want_pairs ? c->want_pairs : left;
    if (left == 0) {
        errmsg(c->err, sizeof c->err,
               "%s: none of the run's %llu held-out openings is fresh (validation plays %llu, earlier steps claimed "
               "%llu: %s/%s): give -openings file=F with openings the run never played, or -force to play the "
               "held-out openings past validation again", c->kind->cmdline, (unsigned long long)h,
               (unsigned long long)reserve, (unsigned long long)(end - reserve), r->dir, CLAIMS_FILE);
        claims_free(&cl);
        return c->force ? 1 : -1;
    }
    if (want > left) {
        printf("%s: %llu pairs asked, %llu fresh held-out openings left (validation plays %llu, earlier steps "
               "claimed %llu: %s): the pairs go on those\n", c->kind->cmdline, (unsigned long long)want,
               (unsigned long long)left, (unsigned long long)reserve, (unsigned long long)(end - reserve), CLAIMS_FILE);
        want = left;
    }
    OpenClaim k = { .first = end, .count = want, .seed = r->seed };
    snprintf(k.step, sizeof k.step, "%s", c->kind->cmdline);
    snprintf(k.file, sizeof k.file, "%s", c->kind->file);
    rd_now_iso(k.created, sizeof k.created);
    int rc = claims_add(r->dir, &cl, reserve, &k, c->err, sizeof c->err);
    claims_free(&cl);
    *first = end;
    *count = want;
    return rc;
}

/* Out of sample by default: without an -openings of its own, a call plays
 * openings the run held out of its tuning (validate.h) that no other step
 * of the run played: a claim of its own (claims.h), in the order its seed
 * sets.  A run of an older build held none out: the call then plays the
 * whole book and says that the tuning drew from it. */
static int pick_openings(VerifyCall *c)
{
    VerifyRun *r = c->r;
    if (conf_get(&c->over, "openings", "file")) {
        snprintf(r->openings, sizeof r->openings, "given");
        printf("verify: openings: %zu from %s (given with -openings)\n", book_size(r->mc.book), r->mc.book_path);
        return 0;
    }
    uint64_t h = r->rs.val.holdout;
    MatchConfig *run = NULL;
    if (h > 0 && setup_match(&r->rs, &run, c->err, sizeof c->err) < 0) {
        setup_free_match(run);
        return -1;
    }
    size_t n = book_size(r->mc.book);
    int rc = 0;
    uint64_t first = 0, count = 0;
    if (h == 0 || !run->book || book_size(run->book) != n || h >= n || strcmp(run->book_path, r->mc.book_path) != 0) {
        snprintf(r->openings, sizeof r->openings, "whole book (in sample)");
        printf("verify: openings: the whole book %s (%zu); the run %s, so the tuning drew from these openings: "
               "give -openings file=F for openings the run did not play\n", r->mc.book_path, n,
               h == 0 ? "held none out (a run started by an older build, or a book of one position)"
                      : "held out openings of a book that has changed since");
    } else if (c->resume && !stored_claim(c->old, &first, &count)) {
        rc = keep_unclaimed(r, run, h, c->err, sizeof c->err);
    } else {
        int k = c->resume ? 0 : new_claim(c, h, &first, &count);
        if (k == 1) {
            printf("-force: %s\n", c->err);
            c->err[0] = '\0';
            rc = keep_unclaimed(r, run, h, c->err, sizeof c->err);
        } else if (k < 0) {
            rc = -1;
        } else {
            book_set_order(r->mc.book, run->book_random, run->seed, (size_t)(run->book_start - 1));
            if (first > h || count > h - first)
                rc = errmsg(c->err, sizeof c->err, "%s: held-out openings %llu..%llu: the run holds %llu out; start "
                            "over with -restart", c->file, (unsigned long long)first,
                            (unsigned long long)(first + count), (unsigned long long)h);
            else if (book_keep(r->mc.book, n - h + first, (size_t)count) < 0 ||
                     book_shuffle_picks(r->mc.book, r->seed) < 0)
                rc = errmsg(c->err, sizeof c->err, "out of memory");
            if (rc == 0) {
                r->claimed = true;
                r->claim_first = first;
                r->claim_count = count;
                snprintf(r->openings, sizeof r->openings, "held-out");
                printf("verify: openings: %llu of the %llu that the run held out of its tuning (of %s's %zu), "
                       "numbers %llu..%llu: no other step of the run played them (%s), in the order of seed %llu\n",
                       (unsigned long long)count, (unsigned long long)h, r->mc.book_path, n,
                       (unsigned long long)first, (unsigned long long)(first + count - 1), CLAIMS_FILE,
                       (unsigned long long)r->seed);
            }
        }
    }
    setup_free_match(run);
    return rc;
}

int verify_claim_played(VerifyRun *r, const char *file, uint64_t pairs, char *err, size_t errlen)
{
    if (!r->claimed || pairs >= r->claim_count)
        return 0;
    OpenClaims cl = { 0 };
    uint64_t h = r->rs.val.holdout, reserve = validation_reserve(&r->rs);
    int rc = claims_load(r->dir, h, &cl, err, errlen);
    if (rc == 0)
        rc = claims_shrink(r->dir, &cl, reserve > h ? h : reserve, file, r->claim_first, pairs, err, errlen);
    claims_free(&cl);
    return rc;
}

int verify_build_match(VerifyCall *c, const cJSON *values[2])
{
    return build_match(c->r, &c->settings, c->limit_over, c->engines, values, c->err, sizeof c->err) < 0 ? STEP_FAIL
                                                                                                           : STEP_GO;
}

int verify_make_match(VerifyCall *c, const cJSON *values[2])
{
    VerifyRun *r = c->r;
    if (verify_build_match(c, values) != STEP_GO)
        return STEP_FAIL;
    if (!r->mc.book) {
        errmsg(c->err, sizeof c->err,
               "verify: no opening book: the run had none and openings/default.epd is not found; "
               "give -openings file=F");
        return STEP_FAIL;
    }
    /* The engine at the run's path must be the one the run tuned (engcheck.h). */
    EngineSpec run_engine = r->mc.eng[0];
    snprintf(run_engine.cmd, sizeof run_engine.cmd, "%s", c->cmd);
    if (engcheck_verify(&r->rs.engine_id, &run_engine, c->force, c->err, sizeof c->err) < 0 ||
        pick_openings(c) < 0)
        return STEP_FAIL;
    return STEP_GO;
}

void verify_pgn_mark(const VerifyRun *r, const char *kind, char *buf, size_t len)
{
    snprintf(buf, len, "ratchet-tune %s created %s", kind, r->created);
}

int verify_trim_pgn(const VerifyRun *r, const char *kind, bool (*done)(void *ctx, uint64_t pair), void *ctx,
                    char *err, size_t errlen)
{
    if (!r->mc.pgnout[0] || !r->created[0] || r->sessions <= 1)
        return 0; /* a first session has no games in the file yet */
    char mark[96];
    verify_pgn_mark(r, kind, mark, sizeof mark);
    uint64_t dropped = 0;
    if (pgn_trim_pairs(r->mc.pgnout, mark, done, ctx, &dropped, err, errlen) < 0)
        return -1;
    if (dropped)
        printf("%s: %llu game%s of pairs it does not count (cut short, or played again after a stop) taken out "
               "of %s\n", kind, (unsigned long long)dropped, dropped == 1 ? "" : "s", r->mc.pgnout);
    return 0;
}

/* ---- the machine before a sitting on the wall clock ------------------------------ */

int verify_parse_idle_wait(const char *d, double *seconds)
{
    if (!strcmp(d, "off")) {
        *seconds = -1;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(d, &end);
    double unit = !strcmp(end, "") || !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : 0;
    if (end == d || errno || unit == 0 || !isfinite(v) || v < 0 || v * unit > 7 * 86400.0)
        return -1;
    *seconds = v * unit;
    return 0;
}

void verify_check_machine(VerifyRun *r, const char *who)
{
    if (r->idle_wait < 0)
        return;
    char at[32];
    rd_now_iso(at, sizeof at);
    LoadCheck lc;
    if (!load_check_before(&r->mc, r->idle_wait, who, &lc))
        return;
    cJSON *c = cJSON_CreateObject();
    if (!r->machine)
        r->machine = cJSON_CreateArray();
    bool ok = c && r->machine && cJSON_AddStringToObject(c, "at", at) && cJSON_AddNumberToObject(c, "cpus", lc.s.cpus) &&
              cJSON_AddNumberToObject(c, "busy_cpus", round(lc.s.busy * 100) / 100) &&
              cJSON_AddNumberToObject(c, "concurrency", lc.games) &&
              cJSON_AddNumberToObject(c, "waited_s", round(lc.waited_s)) && cJSON_AddBoolToObject(c, "idle", lc.fits);
    if (ok)
        cJSON_AddItemToArray(r->machine, c);
    else
        cJSON_Delete(c); /* out of memory: the check is not recorded */
}

int verify_machine_from(VerifyRun *r, const cJSON *j)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "machine");
    if (!cJSON_IsArray(m))
        return 0;
    cJSON_Delete(r->machine);
    return (r->machine = cJSON_Duplicate(m, true)) ? 0 : -1;
}

bool verify_machine_to(const VerifyRun *r, cJSON *out)
{
    if (!r->machine)
        return true;
    cJSON *m = cJSON_Duplicate(r->machine, true);
    if (m && cJSON_AddItemToObject(out, "machine", m))
        return true;
    cJSON_Delete(m);
    return false;
}
