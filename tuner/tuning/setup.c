/* From settings to a run that can start: the checks of `run` and `resume`
 * before any game; see setup.h. */
#include "setup.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "errmsg.h"
#include "probe.h"
#include "rd.h"
#include "spec.h"
#include "uciopt.h"

/* The sections `run` takes. */
static const char *const RUN_SECTIONS[] = { "engine", "each",   "openings", "draw",  "resign", "pgnout",
                                            "log",    "maxmoves", "concurrency", "srand", "params", "spsa",
                                            "validate", "out",    "config", "event",    "site",  NULL };

/* Sections handed to the match runner's parser, after the engine. */
static const char *const MATCH_SECTIONS[] = { "each",   "openings", "draw",  "resign", "maxmoves", "concurrency",
                                              "srand", "pgnout",   "log",   "event",  "site",     NULL };

const char *setup_prog(void)
{
    extern char *program_invocation_name;
    return program_invocation_name ? program_invocation_name : "ratchet-tune";
}

static const char *caller;

void setup_set_caller(const char *name) { caller = name; }

const char *setup_caller(void) { return caller; }

static bool is_spec_param(const RunState *rs, const char *name)
{
    for (size_t i = 0; i < rs->norder; i++)
        if (uciopt_same(rs->order[i], name))
            return true;
    return false;
}

/* Which origins the settings of a section came from, for messages. */
static void section_origin(const RunConf *c, const char *sec, char *buf, size_t len)
{
    const char *o[2] = { NULL, NULL };
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].sec, sec) == 0) {
            if (!o[0])
                o[0] = c->v[i].origin;
            else if (strcmp(o[0], c->v[i].origin) != 0)
                o[1] = c->v[i].origin;
        }
    if (!o[0])
        snprintf(buf, len, "%s", sec);
    else if (o[1])
        snprintf(buf, len, "%s and %s", o[0], o[1]);
    else
        snprintf(buf, len, "%s", o[0]);
}

/* The shipped book: openings/default.epd beside the program's bin/ directory
 * (so it is found from any working directory), else in the current one. */
bool setup_default_book(char *path, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char candidate[PATH_MAX + 32];
            snprintf(candidate, sizeof candidate, "%s/../openings/default.epd", exe);
            if (strlen(candidate) < len && access(candidate, R_OK) == 0) {
                memcpy(path, candidate, strlen(candidate) + 1);
                return true;
            }
        }
    }
    snprintf(path, len, "openings/default.epd");
    if (access(path, R_OK) == 0)
        return true;
    path[0] = '\0';
    return false;
}


/* MatchConfig from the run's settings: one -engine spec given twice (the `+`
 * and the `-` engine), the fixed parameters as engine options. */
int setup_validation_limit(RunState *rs, const MatchConfig *mc, char *err, size_t errlen)
{
    return validate_limit_from_conf(&rs->val, &rs->conf, &mc->eng[0].tc, err, errlen);
}

int setup_match(RunState *rs, MatchConfig **mcp, char *err, size_t errlen)
{
    RunConf *c = &rs->conf;
    int argc = 0;
    char **argv = NULL;
    const char *cmd = conf_get(c, "engine", "cmd");
    if (!cmd)
        return errmsg(err, errlen, "engine.cmd is missing: give -engine cmd=PATH");
    const char *base = conf_get(c, "engine", "name");
    if (!base) {
        base = strrchr(cmd, '/');
        base = base ? base + 1 : cmd;
    }
    char names[2][64];
    snprintf(names[0], sizeof names[0], "%.60s+", base);
    snprintf(names[1], sizeof names[1], "%.60s-", base);
    for (int e = 0; e < 2; e++) {
        if (conf_section_argv(c, "engine", names[e], &argc, &argv) < 0)
            goto oom;
        for (size_t i = 0; i < rs->nfixed; i++) {
            char kv[128], v[48];
            uciopt_format(rs->fixed[i].value, rs->fixed[i].is_float, v, sizeof v);
            snprintf(kv, sizeof kv, "option.%s=%s", rs->fixed[i].name, v);
            if (conf_argv_push(&argc, &argv, kv) < 0)
                goto oom;
        }
    }
    for (const char *const *s = MATCH_SECTIONS; *s; s++)
        if (conf_section_argv(c, *s, NULL, &argc, &argv) < 0)
            goto oom;

    /* The files the match parser would report without naming the setting. */
    const char *book = conf_get(c, "openings", "file");
    if (book && access(book, R_OK) != 0) {
        errmsg(err, errlen, "openings.file: cannot read '%s': %s", book, strerror(errno));
        conf_free_argv(argc, argv);
        return -1;
    }
    if (strchr(cmd, '/') && !conf_get(c, "engine", "dir") && access(cmd, X_OK) != 0) {
        errmsg(err, errlen, "engine.cmd: cannot run '%s': %s", cmd, strerror(errno));
        conf_free_argv(argc, argv);
        return -1;
    }
    MatchConfig *mc = *mcp = malloc(sizeof *mc);
    if (!mc)
        goto oom;
    match_config_init(mc);
    for (int i = 0; i < argc;) {
        const char *opt = argv[i];
        char e2[512] = "";
        int rc = match_parse_option(mc, argc, argv, &i, e2, sizeof e2);
        if (rc != 1) {
            char origin[PATH_MAX + 32];
            section_origin(c, opt + 1, origin, sizeof origin);
            errmsg(err, errlen, "%.500s: %.1000s", origin, rc == 0 ? "unknown option" : e2);
            conf_free_argv(argc, argv);
            return -1;
        }
    }
    conf_free_argv(argc, argv);
    if (!mc->book_path[0] && setup_default_book(mc->book_path, sizeof mc->book_path)) {
        mc->book_random = true;
        fprintf(stderr, "openings: none given, using the default book %s in random order\n", mc->book_path);
    }
    char e2[512];
    if (match_config_finish(mc, e2, sizeof e2) < 0)
        return errmsg(err, errlen, "%s", e2);
    if (!mc->book)
        return errmsg(err, errlen, "openings.file is missing and there is no default book (openings/default.epd): "
                                   "a tuning run needs an opening book (-openings file=F)");
    return setup_validation_limit(rs, mc, err, errlen);
oom:
    conf_free_argv(argc, argv);
    return errmsg(err, errlen, "out of memory");
}

/* "; the closest option it has is 'X'" for a name the engine lacks. */
static void closest(const ProbeResult *pr, const char *name, char *buf, size_t len)
{
    const ProbeOption *o = probe_nearest(pr, name);
    if (o)
        snprintf(buf, len, "; the closest option it has is '%s'", o->name);
    else
        snprintf(buf, len, "; it advertises no options at all");
}

/* A fixed float parameter for a spin option: both engines get its value
 * rounded to the nearest integer. */
static void round_fixed(MatchConfig *mc, const FixedParam *f, double v)
{
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < mc->eng[e].nopts; k++)
            if (uciopt_same(mc->eng[e].opts[k].name, f->name))
                uciopt_format(v, false, mc->eng[e].opts[k].value, sizeof mc->eng[e].opts[k].value);
}

/* A user's option.X=V against the option the engine advertises. */
static int check_user_option(const ConfItem *it, const ProbeOption *o, const char *engine, char *err, size_t errlen)
{
    const char *v = it->val;
    char *end;
    if (strcmp(o->type, "check") == 0 && strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
        return errmsg(err, errlen, "%s: %s.%s=%s: '%s' is a check option of engine '%s': its value is true or false",
                      it->origin, it->sec, it->key, v, o->name, engine);
    if (strcmp(o->type, "spin") == 0) {
        long long x = strtoll(v, &end, 10);
        if (end == v || *end || (o->has_min && x < o->min) || (o->has_max && x > o->max)) {
            errmsg(err, errlen, "%s: %s.%s=%s: '%s' is a spin option of engine '%s' from %lld to %lld", it->origin,
                   it->sec, it->key, v, o->name, engine, o->min, o->max);
            return -1;
        }
    }
    return 0;
}

/* Start the engine once and check every parameter and option against what it
 * advertises. */
int setup_check_engine(RunState *rs, MatchConfig *mc, char *err, size_t errlen)
{
    const EngineSpec *spec = &mc->eng[0];
    ProbeResult pr;
    char e2[512], near[160];
    /* Probed without the fixed parameters: their values are not checked yet. */
    EngineSpec *bare = malloc(sizeof *bare);
    if (!bare)
        return errmsg(err, errlen, "out of memory");
    *bare = *spec;
    bare->nopts = 0;
    for (int k = 0; k < spec->nopts; k++) {
        bool fixed = false;
        for (size_t i = 0; i < rs->nfixed; i++)
            fixed |= uciopt_same(spec->opts[k].name, rs->fixed[i].name);
        if (!fixed)
            bare->opts[bare->nopts++] = spec->opts[k];
    }
    int prc = probe_engine(bare, &pr, e2, sizeof e2);
    free(bare);
    if (prc < 0)
        return errmsg(err, errlen, "engine.cmd: %s", e2);
    const char *spec_file = conf_get(&rs->conf, "params", "file");
    free(rs->to_spin);
    rs->to_spin = calloc(rs->spsa.nparams + 1, sizeof *rs->to_spin);
    int rc = rs->to_spin ? 0 : -1;
    if (rc < 0)
        errmsg(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < rs->spsa.nparams; i++) {
        const SpsaParam *p = &rs->spsa.params[i];
        const ProbeOption *o = probe_find(&pr, p->name);
        bool spin = o && strcmp(o->type, "spin") == 0;
        if (!o) {
            closest(&pr, p->name, near, sizeof near);
            errmsg(err, errlen, "params.file: parameter '%s' of %s is not an option of engine '%s' (%s): it does not "
                   "advertise 'option name %s type %s'%s", p->name, spec_file, spec->name, spec->cmd, p->name,
                   p->is_float ? "string" : "spin", near);
            rc = -1;
        } else if (!spin && !(p->is_float && strcmp(o->type, "string") == 0)) {
            errmsg(err, errlen, "params.file: parameter '%s' of %s is a '%s' option of engine '%s', not a spin option%s",
                   p->name, spec_file, o->type, spec->name, p->is_float ? " or a string option" : "");
            rc = -1;
        } else if (spin && ((o->has_min && p->min < (double)o->min) || (o->has_max && p->max > (double)o->max))) {
            errmsg(err, errlen, "params.file: parameter '%s' of %s: range [%.10g, %.10g] is outside the engine's [%lld, %lld]",
                   p->name, spec_file, p->min, p->max, o->min, o->max);
            rc = -1;
        } else if (spin && p->is_float) {
            rs->to_spin[i] = true;
            fprintf(stderr, "note: '%s' is a float parameter and a spin option of engine '%s': the values sent to the "
                    "engine are rounded to integers (with SPSA's shared-uniform rounding); theta stays a float\n",
                    p->name, spec->name);
        }
    }
    for (size_t i = 0; rc == 0 && i < rs->nfixed; i++) {
        const FixedParam *f = &rs->fixed[i];
        const ProbeOption *o = probe_find(&pr, f->name);
        bool spin = o && strcmp(o->type, "spin") == 0;
        double v = spin ? floor(f->value + 0.5) : f->value;
        if (!o || (spin && ((o->has_min && v < (double)o->min) || (o->has_max && v > (double)o->max)))) {
            if (!o)
                closest(&pr, f->name, near, sizeof near);
            errmsg(err, errlen, "params.file: parameter '%s' of %s (not tuned, sent with its value %g) %s engine '%s'%s",
                   f->name, spec_file, f->value, !o ? "is not an option of" : "is outside the range of", spec->name,
                   !o ? near : "");
            rc = -1;
        } else if (spin && v != f->value) {
            round_fixed(mc, f, v);
            fprintf(stderr, "note: '%s' (not tuned) is a spin option of engine '%s': its spec value %g is sent as %g\n",
                    f->name, spec->name, f->value, v);
        }
    }
    /* The user's own engine options. */
    for (size_t i = 0; rc == 0 && i < rs->conf.n; i++) {
        const ConfItem *it = &rs->conf.v[i];
        if ((strcmp(it->sec, "engine") != 0 && strcmp(it->sec, "each") != 0) || strncmp(it->key, "option.", 7) != 0)
            continue;
        const ProbeOption *o = probe_find(&pr, it->key + 7);
        if (!o) {
            closest(&pr, it->key + 7, near, sizeof near);
            errmsg(err, errlen, "%s: %s.%s: engine '%s' has no option '%s'%s", it->origin, it->sec, it->key,
                   spec->name, it->key + 7, near);
            rc = -1;
        } else {
            rc = check_user_option(it, o, spec->name, err, errlen);
        }
    }
    /* Validation at the user's limit on a clock that counts nodes: the engine's own clock is set to count them
     * too (match.c), so it needs the option. */
    if (rc == 0 && rs->val.has_limit && rs->val.limit.nodestime > 0 && !probe_find(&pr, "nodestime")) {
        errmsg(err, errlen, "validate.nodestime=%lld: engine '%s' (%s) has no UCI option 'nodestime': at %s its clock "
               "is charged in nodes, so its own time manager must count nodes too; drop validate.nodestime= or use an "
               "engine that has the option", (long long)rs->val.limit.nodestime, spec->name, spec->cmd,
               rs->val.limit_text);
        rc = -1;
    }
    if (rc == 0)
        snprintf(rs->engine, sizeof rs->engine, "%.127s", pr.id_name[0] ? pr.id_name : spec->cmd);
    probe_free(&pr);
    return rc;
}

static const char *const PATH_KEYS[][2] = { { "params", "file" },  { "openings", "file" }, { "pgnout", "file" },
                                            { "log", "file" },     { "engine", "dir" } };

/* engine.cmd as the state keeps it: absolute when it names a file (it has
 * a '/') and no engine.dir is given; a bare name is looked up on the PATH. */
static int engine_cmd_set(RunConf *c, const char *cmd, const char *origin)
{
    char abs[PATH_MAX];
    if (strchr(cmd, '/') && !conf_get(c, "engine", "dir"))
        rd_abs_path(cmd, abs, sizeof abs);
    else
        snprintf(abs, sizeof abs, "%s", cmd);
    return conf_set(c, "engine", "cmd", abs, origin);
}

/* Paths in the state are absolute, so `resume` works from any directory. */
static int absolutize(RunConf *c)
{
    char abs[PATH_MAX];
    for (size_t i = 0; i < sizeof PATH_KEYS / sizeof *PATH_KEYS; i++) {
        const ConfItem *it = conf_find(c, PATH_KEYS[i][0], PATH_KEYS[i][1]);
        if (it && it->val[0]) {
            rd_abs_path(it->val, abs, sizeof abs);
            if (conf_set(c, it->sec, it->key, abs, it->origin) < 0)
                return -1;
        }
    }
    const ConfItem *cmd = conf_find(c, "engine", "cmd");
    return cmd ? engine_cmd_set(c, cmd->val, cmd->origin) : 0;
}

int setup_engine_cmd(RunConf *c, const char *cmd)
{
    return engine_cmd_set(c, cmd, "command line");
}

int setup_run_dir(RunConf *c, const char *dir, char *moved, size_t movedlen)
{
    static const char *const INSIDE[] = { "pgnout", "log" };
    const char *out = conf_get(c, "out", "");
    char old[PATH_MAX]; /* a copy: conf_set frees the value */
    snprintf(old, sizeof old, "%s", out ? out : "");
    size_t n = strlen(old);
    bool away = n > 0 && strcmp(old, dir) != 0;
    if (moved)
        snprintf(moved, movedlen, "%s", away ? old : "");
    for (size_t i = 0; away && i < sizeof INSIDE / sizeof *INSIDE; i++) {
        const ConfItem *it = conf_find(c, INSIDE[i], "file");
        char path[2 * PATH_MAX];
        if (!it || !rd_path_moved(it->val, old, dir, path, sizeof path))
            continue;
        if (conf_set(c, INSIDE[i], "file", path, it->origin) < 0)
            return -1;
    }
    return conf_set(c, "out", "", dir, "command line");
}

int setup_engine_present(const RunConf *c, const char *dir, char *err, size_t errlen)
{
    const char *cmd = conf_get(c, "engine", "cmd");
    if (!cmd || cmd[0] != '/' || access(cmd, X_OK) == 0)
        return 0;
    return errmsg(err, errlen,
                  "engine.cmd: cannot run '%s', the run's engine: %s; if it moved, name it anew: %s resume %s "
                  "-engine cmd=PATH (a night: %s night %s -engine cmd=PATH)",
                  cmd, strerror(errno), setup_prog(), dir, setup_prog(), dir);
}

int spsa_form_from(const RunConf *c, SpsaForm *form, char *err, size_t errlen)
{
    const char *name = conf_get(c, "spsa", "form");
    *form = SPSA_FORM_DEFAULT;
    if (name && spsa_form_parse(name, form) < 0)
        return errmsg(err, errlen, "spsa.form: unknown form '%s' (settle, far, adam or classic)", name);
    return 0;
}

static int spsa_config_from(const RunConf *c, SpsaConfig *cfg, char *err, size_t errlen)
{
    spsa_config_default(cfg);
    unsigned long long games = 0, pp = 1, narrow = 1, adapt = SPSA_DEFAULT_ADAPT;
    if (!conf_get(c, "spsa", "games"))
        return errmsg(err, errlen, "spsa.games is missing: give -spsa games=N");
    /* the form's own settings first, so that any given below override them */
    if (spsa_form_from(c, &cfg->form, err, errlen) < 0)
        return -1;
    spsa_config_set_form(cfg, cfg->form);
    if (conf_get_u64(c, "spsa", "games", 2, 1000000000000ULL, &games, err, errlen) < 0 ||
        conf_get_u64(c, "spsa", "pairs-per", 1, 100000, &pp, err, errlen) < 0 ||
        conf_get_u64(c, "spsa", "narrow", 0, 1, &narrow, err, errlen) < 0 ||
        conf_get_u64(c, "spsa", "adapt", 0, 1, &adapt, err, errlen) < 0)
        return -1;
    for (const SpsaNumberKey *k = SPSA_NUMBER_KEYS; k->key; k++)
        if (conf_get_double(c, "spsa", k->key, k->min, k->max, spsa_number_field(cfg, k), err, errlen) < 0)
            return -1;
    cfg->narrow = narrow != 0;
    cfg->adapt = adapt != 0;
    cfg->pairs_per = (int)pp;
    spsa_config_set_games(cfg, games);
    return 0;
}

/* Split `only` into the tuned and the fixed parameters of the spec. */
static int select_params(RunState *rs, SpsaParam *all, size_t n, const char *only, SpsaParam **tuned,
                         size_t *ntuned, char *err, size_t errlen)
{
    const char *spec_file = conf_get(&rs->conf, "params", "file");
    bool *take = calloc(n + 1, sizeof *take);
    *tuned = calloc(n + 1, sizeof **tuned);
    rs->fixed = calloc(n + 1, sizeof *rs->fixed);
    rs->order = calloc(n + 1, sizeof *rs->order);
    if (!take || !*tuned || !rs->fixed || !rs->order) {
        free(take);
        return errmsg(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        take[i] = only == NULL;
        snprintf(rs->order[i], SPSA_NAME_MAX, "%s", all[i].name);
    }
    rs->norder = n;
    for (const char *p = only; p && *p;) {
        p += strspn(p, " ,");
        size_t len = strcspn(p, ",");
        size_t tl = len;
        while (tl > 0 && p[tl - 1] == ' ')
            tl--;
        if (tl == 0) {
            p += len;
            continue;
        }
        bool found = false;
        char want[SPSA_NAME_MAX + 1];
        snprintf(want, sizeof want, "%.*s", (int)(tl < SPSA_NAME_MAX ? tl : SPSA_NAME_MAX), p);
        for (size_t i = 0; i < n; i++)
            if (uciopt_same(all[i].name, want))
                found = take[i] = true;
        if (!found) {
            errmsg(err, errlen, "params.only: '%.*s' is not a parameter of %s", (int)tl, p, spec_file);
            free(take);
            return -1;
        }
        p += len;
    }
    *ntuned = 0;
    for (size_t i = 0; i < n; i++) {
        if (take[i]) {
            (*tuned)[(*ntuned)++] = all[i];
        } else {
            snprintf(rs->fixed[rs->nfixed].name, SPSA_NAME_MAX, "%s", all[i].name);
            rs->fixed[rs->nfixed].is_float = all[i].is_float;
            rs->fixed[rs->nfixed++].value = all[i].start;
        }
    }
    free(take);
    if (*ntuned == 0)
        return errmsg(err, errlen, "params.only: no parameter selected");
    if (*ntuned > MAX_JOB_OPTS) {
        errmsg(err, errlen, "params: %zu parameters to tune; at most %d at once (choose some with only=)", *ntuned,
               MAX_JOB_OPTS);
        return -1;
    }
    return 0;
}

/* An engine option in the settings may not also be a spec parameter. */
static int check_option_conflicts(const RunState *rs, char *err, size_t errlen)
{
    for (size_t i = 0; i < rs->conf.n; i++) {
        const ConfItem *it = &rs->conf.v[i];
        if ((strcmp(it->sec, "engine") == 0 || strcmp(it->sec, "each") == 0) && strncmp(it->key, "option.", 7) == 0 &&
            is_spec_param(rs, it->key + 7)) {
            errmsg(err, errlen, "%s: %s.%s: '%s' is a parameter of the spec file; the run sets it (tuned, or its spec "
                   "value when left out of only=)", it->origin, it->sec, it->key, it->key + 7);
            return -1;
        }
    }
    return 0;
}

/* Everything `run` checks before it creates the directory. */
int setup_new_run(RunState *rs, char *dir, size_t dirlen, MatchConfig **mcp, int argc, char **argv, char *err,
                  size_t errlen)
{
    /* A pasted match command names two engines: a run has one. */
    int ncmd = 0;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "-engine") == 0)
            for (int j = i + 1; j < argc && argv[j][0] != '-'; j++)
                ncmd += strncmp(argv[j], "cmd=", 4) == 0;
    if (ncmd > 1) {
        errmsg(err, errlen, "engine.cmd: a run takes one engine; both sides of every pair run it, with different "
               "values of the tuned parameters");
        return -1;
    }
    RunConf cmdline;
    conf_init(&cmdline);
    int rc = conf_parse_args(&cmdline, argc, argv, RUN_SECTIONS, err, errlen);
    const char *cfile = conf_get(&cmdline, "config", "file");
    if (rc == 0 && cfile)
        rc = conf_load_file(&rs->conf, cfile, err, errlen);
    if (rc == 0 && conf_merge(&rs->conf, &cmdline) < 0) {
        errmsg(err, errlen, "out of memory");
        rc = -1;
    }
    conf_free(&cmdline);
    if (rc < 0)
        return -1;
    conf_unset(&rs->conf, "config", "file");

    const char *out = conf_get(&rs->conf, "out", "");
    if (!out || !out[0])
        return errmsg(err, errlen, "out is missing: give -out DIR (a new or empty directory)");
    char e2[768];
    int ds = rd_dir_state(out, e2, sizeof e2);
    if (ds < 0)
        return errmsg(err, errlen, "out: %s", e2);
    if (ds == RD_NONEMPTY) {
        char state[PATH_MAX + 32];
        snprintf(state, sizeof state, "%s/%s", out, STATE_FILE);
        if (access(state, F_OK) == 0)
            errmsg(err, errlen, "out: '%s' already exists and is not empty; to continue the run in it: %s resume %s; "
                   "otherwise choose another -out", out, setup_prog(), out);
        else
            errmsg(err, errlen, "out: '%s' already exists and is not empty, but holds no run (no %s: a run whose "
                   "first save failed leaves such a directory, and resume cannot continue it); remove it or choose "
                   "another -out", out, STATE_FILE);
        return -1;
    }
    rd_abs_path(out, dir, dirlen);
    if (conf_set(&rs->conf, "out", "", dir, conf_find(&rs->conf, "out", "")->origin) < 0 ||
        absolutize(&rs->conf) < 0) {
        return errmsg(err, errlen, "out of memory");
    }
    if (!conf_get(&rs->conf, "srand", "")) {
        char seed[32];
        snprintf(seed, sizeof seed, "%llu",
                 (unsigned long long)(((uint64_t)time(NULL) * 2654435761u) ^ (uint64_t)getpid()) % 4294967291u);
        if (conf_set(&rs->conf, "srand", "", seed, "run") < 0)
            return errmsg(err, errlen, "out of memory");
    }
    unsigned long long seed = 0;
    if (conf_get_u64(&rs->conf, "srand", "", 0, ULLONG_MAX, &seed, err, errlen) < 0)
        return -1;

    SpsaConfig scfg;
    if (spsa_config_from(&rs->conf, &scfg, err, errlen) < 0)
        return -1;
    const char *spec_file = conf_get(&rs->conf, "params", "file");
    if (!spec_file)
        return errmsg(err, errlen, "params.file is missing: give -params file=SPEC");
    SpsaParam *all = NULL, *tuned = NULL;
    size_t nall = 0, ntuned = 0;
    if (spec_load(spec_file, &all, &nall, e2, sizeof e2) < 0)
        return errmsg(err, errlen, "params.file: %s", e2);
    rc = select_params(rs, all, nall, conf_get(&rs->conf, "params", "only"), &tuned, &ntuned, err, errlen);
    if (rc == 0 && spsa_init(&rs->spsa, tuned, ntuned, &scfg, seed, e2, sizeof e2) < 0) {
        errmsg(err, errlen, "params.file %s: %s", spec_file, e2);
        rc = -1;
    }
    free(all);
    free(tuned);
    if (rc < 0 || check_option_conflicts(rs, err, errlen) < 0 || setup_match(rs, mcp, err, errlen) < 0 ||
        setup_check_engine(rs, *mcp, err, errlen) < 0 ||
        engcheck_measure(&(*mcp)->eng[0], &rs->engine_id, err, errlen) < 0 ||
        validate_setup(&rs->val, &rs->conf, &rs->spsa, book_size((*mcp)->book), err, errlen) < 0 ||
        setup_validation_limit(rs, *mcp, err, errlen) < 0)
        return -1;
    tc_format(&(*mcp)->eng[0].tc, rs->tc, sizeof rs->tc);
    rd_now_iso(rs->created, sizeof rs->created);
    return 0;
}

void setup_free_match(MatchConfig *mc)
{
    if (!mc)
        return;
    match_config_free(mc);
    free(mc);
}

void setup_value_text(const RunState *rs, const SpsaBatch *b, size_t i, double v, char *buf, size_t len)
{
    const SpsaParam *p = &rs->spsa.params[i];
    if (p->is_float && rs->to_spin && rs->to_spin[i])
        v = uciopt_round(v, b->u[i], p->min, p->max);
    uciopt_format(v, p->is_float && !(rs->to_spin && rs->to_spin[i]), buf, len);
}
