/* Value files from runs; see export.h. */
#include "export.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ablate_keep.h"
#include "cliutil.h"
#include "errmsg.h"
#include "morning.h"
#include "rd.h"
#include "validate.h"

cJSON *export_values(const RunState *rs, const char *run_name)
{
    char date[32];
    rd_now_iso(date, sizeof date);
    cJSON *o = cJSON_CreateObject();
    cJSON *params = o ? runstate_values_json(rs) : NULL;
    bool ok = params && cJSON_AddItemToObject(o, "params", params);
    if (!ok)
        cJSON_Delete(params);
    ok = ok && cJSON_AddStringToObject(o, "source", "ratchet-tune") && cJSON_AddStringToObject(o, "run", run_name) &&
         cJSON_AddNumberToObject(o, "games", (double)rs->games) && cJSON_AddStringToObject(o, "date", date) &&
         cJSON_AddStringToObject(o, "engine", rs->engine) && cJSON_AddStringToObject(o, "tc", rs->tc);
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* ---- -snapshot and -keep-noise ------------------------------------------------- */

int export_snapshot_number(const char *dir, const RunState *rs, const char *which, uint64_t *k, char *err,
                           size_t errlen)
{
    *k = 0;
    if (!which || !strcmp(which, "last"))
        return 0;
    ValidationPoint *pts = NULL;
    size_t n = 0;
    if (validate_read(dir, &pts, &n, err, errlen) < 0)
        return -1;
    if (n > rs->val.done)
        n = (size_t)rs->val.done; /* a row not counted by the state yet */
    int rc = 0;
    if (!strcmp(which, "best")) {
        if (n == 0) {
            rc = errmsg(err, errlen, "-snapshot best: the run in %s has no validation point yet (%s)", dir,
                        validate_points(&rs->val, spsa_budget_games(&rs->spsa.cfg)) ? "the first comes at a fraction of the budget" : "validation is off");
        } else {
            size_t b = validate_best(pts, n);
            *k = pts[b].point;
            char best[600];
            fprintf(stderr,
                    "snapshot %llu scored best of the %zu validation points: %s, at %llu games.  Re-measure it on "
                    "fresh openings with `ratchet-tune verify %s -snapshot %llu`\n",
                    (unsigned long long)*k, n, morning_best_text(pts, n, best, sizeof best),
                    (unsigned long long)pts[b].games, dir, (unsigned long long)*k);
        }
    } else {
        char *end;
        unsigned long long v = strtoull(which, &end, 10);
        if (!which[0] || *end || which[0] == '-' || v == 0 || v > n)
            rc = errmsg(err, errlen, "-snapshot %s: expected last, best or a point number; the run in %s has %zu "
                        "validation point%s%s", which, dir, n, n == 1 ? "" : "s", n > 1 ? " (1 to that)" : "");
        else
            *k = v;
    }
    free(pts);
    return rc;
}

/* The parameter of the run named name: its value now, whether it is a
 * float, and (tuned ones) its range in *q; -1 when there is none. */
static int run_param(const RunState *rs, const char *name, bool *is_float, const SpsaParam **q)
{
    double now;
    if (runstate_value(rs, name, &now, is_float) < 0)
        return -1;
    *q = NULL;
    for (size_t i = 0; i < rs->spsa.nparams; i++)
        if (!strcmp(rs->spsa.params[i].name, name))
            *q = &rs->spsa.params[i];
    return 0;
}

cJSON *export_snapshot_load(const char *dir, const RunState *rs, uint64_t k, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, SNAPSHOT_DIR);
    if (rd_sub_check(path, err, errlen) < 0)
        return NULL;
    snprintf(path, sizeof path, "%s/%s/%llu.json", dir, SNAPSHOT_DIR, (unsigned long long)k);
    cJSON *j = rd_read_json(path, err, errlen);
    if (j && export_snapshot_check(rs, j, path, err, errlen) < 0) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

int export_snapshot_check(const RunState *rs, const cJSON *j, const char *path, char *err, size_t errlen)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params"), *g = cJSON_GetObjectItemCaseSensitive(j, "games");
    int rc = 0;
    if (!cJSON_IsObject(params) || !cJSON_IsNumber(g))
        rc = errmsg(err, errlen, "%s: not a snapshot (a value file with \"params\" and \"games\")", path);
    else if (!(g->valuedouble >= 0) || g->valuedouble > 9007199254740992.0 || g->valuedouble != floor(g->valuedouble))
        rc = errmsg(err, errlen, "%s: \"games\" is %g, not a whole number of games", path, g->valuedouble);
    const cJSON *p;
    const cJSON *each = rc == 0 ? params : NULL;
    cJSON_ArrayForEach(p, each)
    {
        bool is_float = false;
        const SpsaParam *q;
        if (!p->string || run_param(rs, p->string, &is_float, &q) < 0) {
            rc = errmsg(err, errlen, "%s: '%s' is not a parameter of the run", path, p->string ? p->string : "");
            break;
        }
        for (const cJSON *e = params->child; e != p; e = e->next)
            if (!strcmp(e->string, p->string)) {
                rc = errmsg(err, errlen, "%s: '%s' is given twice", path, p->string);
                break;
            }
        if (rc < 0)
            break;
        if (!cJSON_IsNumber(p) || !isfinite(p->valuedouble) ||
            (!is_float && p->valuedouble != floor(p->valuedouble))) {
            char *text = cJSON_PrintUnformatted(p);
            rc = errmsg(err, errlen, "%s: %s = %s is not %s", path, p->string, text ? text : "?",
                        is_float ? "a finite number" : "an integer");
            free(text);
            break;
        }
        if (q && (p->valuedouble < q->min || p->valuedouble > q->max)) {
            rc = errmsg(err, errlen, "%s: %s = %g is outside its range [%g, %g]", path, p->string, p->valuedouble,
                        q->min, q->max);
            break;
        }
    }
    for (size_t i = 0; rc == 0 && i < rs->norder; i++)
        if (!cJSON_GetObjectItemCaseSensitive(params, rs->order[i]))
            rc = errmsg(err, errlen, "%s: no value for '%s', a parameter of the run", path, rs->order[i]);
    return rc;
}

/* The values of snapshot k (0 = the run's current values), with the tuned
 * parameters whose move is not distinguishable from noise (moves.h, judged
 * on the rows of history.csv up to the snapshot) at their start when
 * keep_noise.  The names kept go to stderr. */
static cJSON *export_pick(const char *dir, const RunState *rs, const char *name, uint64_t k, bool keep_noise,
                          char *err, size_t errlen)
{
    cJSON *j = NULL;
    uint64_t games = rs->games;
    if (k == 0) {
        j = export_values(rs, name);
        if (!j) {
            errmsg(err, errlen, "out of memory");
            return NULL;
        }
    } else {
        if (!(j = export_snapshot_load(dir, rs, k, err, errlen)))
            return NULL;
        games = (uint64_t)cJSON_GetObjectItemCaseSensitive(j, "games")->valuedouble;
    }
    if (!keep_noise)
        return j;
    uint64_t per = 2 * (uint64_t)rs->spsa.cfg.pairs_per;
    MoveVerdict *vs = calloc(rs->spsa.nparams + 1, sizeof *vs);
    if (!vs || morning_verdicts(dir, rs, games / per, vs, err, errlen) < 0) {
        if (!vs)
            errmsg(err, errlen, "out of memory");
        free(vs);
        cJSON_Delete(j);
        return NULL;
    }
    cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
    size_t kept = 0;
    for (size_t i = 0; i < rs->spsa.nparams; i++) {
        const SpsaParam *q = &rs->spsa.params[i];
        MoveVerdict *v = &vs[i];
        const cJSON *now = cJSON_GetObjectItemCaseSensitive(params, q->name);
        if (!cJSON_IsNumber(now))
            continue;
        /* judged at the value this export writes (an average, a snapshot's) */
        moves_verdict_at(v, q->start, now->valuedouble);
        if (v->real)
            continue;
        cJSON_ReplaceItemInObjectCaseSensitive(params, q->name, cJSON_CreateNumber(q->start));
        fprintf(stderr, "%s%s %g (moved to %g, z %.2f)", kept++ ? ", " : "-keep-noise=start: at the start value, its "
                "move not distinguishable from noise: ", q->name, q->start, v->final, v->z);
    }
    if (kept)
        fputc('\n', stderr);
    else
        fprintf(stderr, "-keep-noise=start: every move is distinguishable from noise; nothing kept at its start\n");
    free(vs);
    cJSON_AddBoolToObject(j, "keep_noise_start", true);
    return j;
}

static const char EXPORT_USAGE[] =
    "usage: ratchet-tune export DIR [-o FILE] [-snapshot last|best|K] [-keep-noise=start]\n"
    "                               [-ablation keep=pays|pays,unclear]\n"
    "\n"
    "Writes the value file of the run in DIR: {\"params\": {NAME: value, ...}, \"source\",\n"
    "\"run\", \"games\", \"date\", \"engine\", \"tc\"}, with every parameter of the run's spec:\n"
    "the tuned ones at theta rounded to the nearest integer (the iterate average when the\n"
    "run was started with -spsa average=F; float parameters unrounded, as JSON numbers),\n"
    "the others at their spec value.  Works during a run too (it reads the last saved\n"
    "state).  Without -o, the file goes to stdout; with -o,\n"
    "FILE (and its directory) is created, or replaced atomically.  Then:\n"
    "    make PARAMS=FILE             bin/ratchet with the values baked in\n"
    "    bin/ratchet --params FILE    the runtime engine with the values\n"
    "\n"
    "  -snapshot last      the current values (default; the last validation point's snapshot\n"
    "                      when the run is complete)\n"
    "  -snapshot K         snapshot K, the values validation point K played (DIR/snapshots/K.json)\n"
    "  -snapshot best      the snapshot of the point that scored best in DIR/validation.csv; the\n"
    "                      best of several noisy estimates is optimistic: verify it on fresh openings\n"
    "  -keep-noise=start   the start value for every tuned parameter whose move from the start is\n"
    "                      not distinguishable from noise (`status` shows which, moves.h)\n"
    "  -ablation keep=pays the tuned values only for the groups that pay in the finished ablation\n"
    "                      DIR/ablation.json (`verify DIR -ablate`); every other moved parameter at\n"
    "                      its start value.  keep=pays,unclear keeps the unclear groups too\n";

int export_main(int argc, char **argv)
{
    const char *dir, *outfile, *snapshot = NULL, *ablation = NULL;
    bool keep_noise = false;
    /* The options of our own first; cli_dir_output takes the rest. */
    for (int i = 1; i < argc; i++) {
        int used = 0;
        if (!strcmp(argv[i], "-snapshot") && i + 1 < argc) {
            snapshot = argv[i + 1];
            used = 2;
        } else if (!strncmp(argv[i], "-snapshot=", 10)) {
            snapshot = argv[i] + 10;
            used = 1;
        } else if (!strncmp(argv[i], "-keep-noise", 11)) {
            if (strcmp(argv[i], "-keep-noise=start") != 0) {
                fprintf(stderr, "ratchet-tune: export: %s: the one choice is -keep-noise=start\n", argv[i]);
                return 2;
            }
            keep_noise = true;
            used = 1;
        } else if (!strcmp(argv[i], "-ablation")) {
            ablation = "pays";
            used = 1;
            if (i + 1 < argc && !strncmp(argv[i + 1], "keep=", 5)) {
                ablation = argv[i + 1] + 5;
                used = 2;
            }
        }
        if (used) {
            memmove(&argv[i], &argv[i + used], (size_t)(argc - i - used + 1) * sizeof *argv);
            argc -= used;
            i--;
        }
    }
    int rc0 = cli_dir_output(argc, argv, EXPORT_USAGE, &dir, &outfile);
    if (rc0 >= 0)
        return rc0;
    if (ablation && ((snapshot && strcmp(snapshot, "last") != 0) || keep_noise)) {
        fprintf(stderr, "ratchet-tune: export: -ablation judges the run's current values: it does not go with "
                "-snapshot %s or -keep-noise\n", snapshot && strcmp(snapshot, "last") ? snapshot : "");
        return 2;
    }
    RunState rs;
    char err[1024];
    if (runstate_load(&rs, dir, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: export: %s\n", err);
        return 1;
    }
    char abs[PATH_MAX];
    rd_abs_path(dir, abs, sizeof abs);
    size_t l = strlen(abs);
    while (l > 1 && abs[l - 1] == '/')
        abs[--l] = '\0';
    const char *name = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
    uint64_t k;
    cJSON *j = NULL;
    if (export_snapshot_number(dir, &rs, snapshot, &k, err, sizeof err) == 0)
        j = export_pick(dir, &rs, name, k, keep_noise, err, sizeof err);
    if (j && ablation && ablate_keep(dir, &rs, j, ablation, err, sizeof err) < 0) {
        cJSON_Delete(j);
        j = NULL;
    }
    runstate_free(&rs);
    if (!j) {
        fprintf(stderr, "ratchet-tune: export: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (!outfile) {
        char *s = cJSON_Print(j);
        if (s)
            printf("%s\n", s);
        rc = s ? 0 : 1;
        free(s);
    } else {
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", outfile);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
            *slash = '\0';
            if (rd_mkdir_p(parent, err, sizeof err) < 0)
                rc = 1;
        }
        if (rc == 0 && rd_write_json(outfile, j, err, sizeof err) < 0)
            rc = 1;
        if (rc)
            fprintf(stderr, "ratchet-tune: export: %s\n", err);
        else
            fprintf(stderr, "wrote %s\n", outfile);
    }
    cJSON_Delete(j);
    return rc;
}
