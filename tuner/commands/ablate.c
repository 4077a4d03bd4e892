/* `ratchet-tune verify DIR -ablate`: which groups of the run's moves pay,
 * judged by one match; see ablate.h and tuner/spsa/ablation.h. */
#include "ablate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ablation.h"
#include "board.h"
#include "cliutil.h"
#include "errmsg.h"
#include "jsonget.h"
#include "jsonput.h"
#include "match.h"
#include "progress.h"
#include "rd.h"
#include "readfile.h"
#include "setup.h"
#include "stopsig.h"
#include "verify_call.h"

enum { EXIT_DONE = VERIFY_EXIT_DONE, EXIT_FAILED = VERIFY_EXIT_FAILED, EXIT_USAGE = VERIFY_EXIT_USAGE };
enum { PAIR_TODO, PAIR_INFLIGHT, PAIR_DONE };
#define DEFAULT_PAIRS 2000
/* A pair costs a byte and a double of memory, and every save walks them all:
 * 4 million pairs (8 million games) is far past any night. */
#define MAX_PAIRS (INT64_C(1) << 22)
#define DESIGN_NAME "mirrored-couples-mt19937"
/* The same with whole pairs (ablation_whole) every "whole_every" couples. */
#define DESIGN_NAME_WHOLE "mirrored-couples-mt19937+whole"
#define DEFAULT_WHOLE_EVERY 8
#define SAVE_EVERY_MS 250

static const char ABLATE_USAGE[] =
    "usage: ratchet-tune verify DIR -ablate [groups=auto|FILE|NAME:P1,P2;NAME2:P3] [whole=N] [-rounds N]\n"
    "                               [-tuned FILE.json] [-restart] [-force] [match options]\n"
    "\n"
    "Which groups of the run's moves pay, judged by games (a random-balance ablation).  In each\n"
    "game pair, engine 0 plays the tuned values on a random half of the groups and the start\n"
    "values on the rest; engine 1 plays the complement.  Both are the run's engine, the values\n"
    "sent as UCI options before each game.  A least-squares fit of the pairs' score differences\n"
    "on the +-1 design (GSL) gives every group, from the one match, an Elo (its tuned values\n"
    "against its start values, the other groups as they fall) with a 95% interval: about the\n"
    "precision a match of the same length would give one A/B comparison.  The model adds the\n"
    "groups' effects in score; it holds for small effects.\n"
    "\n"
    "  groups=auto         (default) one group per technique, the CamelCase prefix of the\n"
    "                      parameters' names (Lmr*, Lbr*, Lmp*, Iir*, Nmp*, Rfp*, Futility*, See*,\n"
    "                      Qs*, ...); only the parameters that moved from their start value\n"
    "  groups=FILE         one group per line (or per ';'): NAME: P1, P2, ...  ('#' comments)\n"
    "  groups=NAME:P1,P2;NAME2:P3   the same inline (quote it: ';' ends a shell command)\n"
    "                      A moved parameter in no group plays its start value on both sides;\n"
    "                      a group none of whose parameters moved is left out\n"    "  whole=N             the additivity check (default 8): every N-th couple of pairs plays all\n"
    "                      groups tuned against all at their start; one more term of the fit gives\n"
    "                      the gap between that whole and the sum of the groups' estimates, with its\n"
    "                      interval (0 when the effects add); whole=0: no whole pairs\n"
    "  -rounds N           game pairs (default 2000: 4000 games).  At a deterministic limit\n"
    "                      (nodes=, depth=) a game is a function of its opening: the pairs are\n"
    "                      capped at the fresh openings, one pair each, and the output says so\n"
    "  -tuned FILE.json    ablate these values instead of the run's (as verify -tuned: another\n"
    "                      run's values at this run's limit; left-out parameters at their start)\n"
    "  -restart            discard DIR/ablation.json and start over\n"
    "  -force              play even if the run's engine changed since the run (as verify)\n"
    "  match options       as verify: -each (tc=, nodes=, st=, depth= replace the run's limit),\n"
    "                      -openings (default: the openings the run held out of its tuning),\n"
    "                      -draw, -resign, -maxmoves, -concurrency, -srand, -pgnout, -log\n"
    "\n"
    "DIR/ablation.json (rewritten atomically, at most four times a second) holds every pair's\n"
    "design and result; stopped, the same command continues (a pair finished after the last save\n"
    "is played again), and a re-run draws the same design (-srand and the seed stored).\n"
    "The table: group, parameters, Elo and 95% interval, verdict: pays (the interval above 0),\n"
    "costs (below 0) or unclear.  Then\n"
    "    ratchet-tune export DIR -ablation keep=pays -o FILE\n"
    "writes the tuned values of the groups that pay and the start values for the rest.\n";

static const VerifyKind ABLATE_KIND = {
    .name = "ablate",
    .cmdline = "verify -ablate",
    .noun = "an ablation",
    .suffix = " -ablate",
    .file = ABLATION_FILE,
    .bare_nargs = 1,
    .stop_note = "\nratchet-tune: verify -ablate: stopping: abandoning the games in flight and saving (again to quit "
                 "at once)\n",
};

typedef struct {
    char name[64];
    char tuned[64], base[64];
    size_t group;
} AblOpt;

typedef struct {
    VerifyRun v;                  /* the run, its values, the match (verify_call.h); first, see ablate_of */
    char path[PATH_MAX + 32];     /* DIR/ablation.json */
    char groups_spec[PATH_MAX + 8];
    AblGroups groups;
    AblOpt opts[MAX_JOB_OPTS];
    int nopts;
    uint64_t rounds, rounds_asked;
    unsigned whole_every;         /* a whole couple every this many (0: none) */
    bool capped;
    unsigned char *st;            /* per pair: PAIR_* */
    double *y;                    /* per finished pair: engine 0's points minus engine 1's */
    uint64_t cursor, ndone;
    int64_t last_save;
    Progress progress;
    bool failed;
} Ablate;

/* ---- the options ------------------------------------------------------------------------ */

/* The stored options into groups=, -rounds and the match settings `over`. */
static int parse_args(Ablate *A, RunConf *over, char *err, size_t errlen)
{
    VerifyRun *v = &A->v;
    snprintf(A->groups_spec, sizeof A->groups_spec, "auto");
    A->rounds_asked = DEFAULT_PAIRS;
    A->whole_every = DEFAULT_WHOLE_EVERY;
    char **rest = calloc((size_t)v->nargs + 1, sizeof *rest);
    if (!rest)
        return errmsg(err, errlen, "out of memory");
    int n = 0, rc = 0;
    for (int i = 0; rc == 0 && i < v->nargs;) {
        const char *a = v->args[i];
        if (!strcmp(a, "-ablate")) {
            i++;
            while (rc == 0 && i < v->nargs && v->args[i][0] != '-') {
                const char *kv = v->args[i];
                char *end = NULL;
                if (!strncmp(kv, "groups=", 7)) {
                    if (!kv[7])
                        rc = errmsg(err, errlen, "-ablate groups=: give auto, a file or NAME:P1,P2;NAME2:P3");
                    snprintf(A->groups_spec, sizeof A->groups_spec, "%s", kv + 7);
                } else if (!strncmp(kv, "whole=", 6)) {
                    unsigned long n = strtoul(kv + 6, &end, 10);
                    if (!kv[6] || *end || n > 1000 || kv[6] == '-')
                        rc = errmsg(err, errlen, "-ablate whole=%s: give a whole couple every N couples, N in "
                                    "0..1000 (0: no whole pairs)", kv + 6);
                    A->whole_every = (unsigned)n;
                } else {
                    rc = errmsg(err, errlen, "-ablate: '%s': expected groups=auto|FILE|NAME:P1,P2;NAME2:P3 or "
                                "whole=N", kv);
                }
                i++;
            }
        } else if (!strcmp(a, "-rounds")) {
            int64_t r;
            if (cli_int_value(v->nargs, v->args, &i, 2, MAX_PAIRS, &r, err, errlen) < 0)
                rc = -1;
            else
                A->rounds_asked = (uint64_t)r;
        } else if (!strcmp(a, "-tuned")) {
            if (verify_value_file_arg(v, i, err, errlen) < 0)
                rc = -1;
            i += 2;
        } else if (!strcmp(a, "-sprt") || !strcmp(a, "-bake") || !strcmp(a, "-base") || !strcmp(a, "-snapshot") ||
                   !strcmp(a, "-engine")) {
            rc = errmsg(err, errlen, "%s does not go with -ablate: an ablation plays a fixed number of pairs "
                        "(-rounds) of the run's engine, with its tuned values (or -tuned's) and its start "
                        "values sent as options", a);
        } else {
            rest[n++] = v->args[i++];
        }
    }
    if (rc == 0 && conf_parse_args(over, n, rest, VERIFY_SECTIONS, err, errlen) < 0)
        rc = -1;
    free(rest);
    return rc;
}

/* The groups: auto, a file (when one is at that path) or the inline text. */
static int make_groups(Ablate *A, const cJSON *tuned, const cJSON *base, char *note, size_t notelen, char *err,
                       size_t errlen)
{
    const RunState *rs = &A->v.rs;
    size_t n = rs->norder;
    const char **names = calloc(n + 1, sizeof *names);
    bool *moved = calloc(n + 1, sizeof *moved);
    int rc = 0;
    if (!names || !moved)
        rc = errmsg(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        names[i] = rs->order[i];
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(verify_params_of(tuned), names[i]);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(verify_params_of(base), names[i]);
        moved[i] = cJSON_IsNumber(t) && cJSON_IsNumber(b) && t->valuedouble != b->valuedouble;
    }
    const char *spec = A->groups_spec;
    char *text = NULL;
    if (rc == 0 && strcmp(spec, "auto") != 0 && access(spec, F_OK) == 0) {
        /* A file the user names: a link is followed, a FIFO or a device is
         * refused without blocking (the run's lock is held). */
        const char *why = NULL;
        int fd = open_user_file(spec, &why);
        FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
        size_t cap = 1 << 16, len = 0;
        if (fd >= 0 && !f)
            close(fd);
        if (!f) {
            rc = errmsg(err, errlen, "-ablate groups=%s: %s", spec, why ? why : strerror(errno));
        } else {
            text = read_stream(f, cap, &len);
            if (!text)
                rc = errno == EFBIG ? errmsg(err, errlen, "-ablate groups=%s: larger than %zu bytes", spec, cap)
                     : errno == ENOMEM ? errmsg(err, errlen, "out of memory")
                                       : errmsg(err, errlen, "-ablate groups=%s: cannot be read", spec);
            fclose(f);
        }
        if (rc == 0)
            rc = ablation_groups(text, spec, names, moved, n, &A->groups, note, notelen, err, errlen);
    } else if (rc == 0 && strcmp(spec, "auto") != 0 && !strchr(spec, ':')) {
        rc = errmsg(err, errlen, "-ablate groups=%s: no such file, and not NAME:P1,P2;NAME2:P3", spec);
    } else if (rc == 0) {
        rc = ablation_groups(spec, "groups=", names, moved, n, &A->groups, note, notelen, err, errlen);
    }
    free(text);
    free(names);
    free(moved);
    return rc;
}

/* The per-pair options: every parameter of every group, its tuned and its start value as text. */
static int make_opts(Ablate *A, char *err, size_t errlen)
{
    A->nopts = 0;
    for (size_t g = 0; g < A->groups.n; g++)
        for (size_t k = 0; k < A->groups.g[g].nparams; k++) {
            const char *name = A->groups.g[g].params[k];
            if (A->nopts == MAX_JOB_OPTS)
                return errmsg(err, errlen, "the groups hold more than %d parameters that moved; group fewer",
                              MAX_JOB_OPTS);
            AblOpt *o = &A->opts[A->nopts++];
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(verify_params_of(A->v.tuned), name);
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(verify_params_of(A->v.base), name);
            snprintf(o->name, sizeof o->name, "%s", name);
            snprintf(o->tuned, sizeof o->tuned, "%.12g", t ? t->valuedouble : 0);
            snprintf(o->base, sizeof o->base, "%.12g", b ? b->valuedouble : 0);
            o->group = g;
        }
    return 0;
}

/* ---- DIR/ablation.json ----------------------------------------------------------------- */

static cJSON *groups_json(const AblGroups *gs, const AblEffect *eff)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (size_t g = 0; ok && g < gs->n; g++) {
        cJSON *o = cJSON_CreateObject();
        cJSON *ps = o ? cJSON_AddArrayToObject(o, "params") : NULL;
        ok = ps && cJSON_AddItemToArray(a, o) && cJSON_AddStringToObject(o, "name", gs->g[g].name);
        if (!ok) {
            if (o && !ps)
                cJSON_Delete(o);
            break;
        }
        for (size_t k = 0; ok && k < gs->g[g].nparams; k++)
            ok = cJSON_AddItemToArray(ps, cJSON_CreateString(gs->g[g].params[k]));
        if (ok && eff) {
            const AblEffect *e = &eff[g];
            ok = cJSON_AddNumberToObject(o, "elo", e->elo) && cJSON_AddNumberToObject(o, "elo_lo", e->elo_lo) &&
                 cJSON_AddNumberToObject(o, "elo_hi", e->elo_hi) && cJSON_AddNumberToObject(o, "beta", e->beta) &&
                 cJSON_AddNumberToObject(o, "se", e->se) &&
                 cJSON_AddStringToObject(o, "verdict", ablation_verdict_name(e->verdict));
        }
    }
    if (ok)
        return a;
    cJSON_Delete(a);
    return NULL;
}

/* The fit on the pairs played so far; false when there are too few (msg says why). */
static bool fit_now(const Ablate *A, AblEffect *eff, AblFit *fit, char *msg, size_t msglen)
{
    size_t G = A->groups.n, n = 0;
    double *y = malloc((A->ndone + 1) * sizeof *y);
    signed char *z = malloc((A->ndone + 1) * G + 1), *w = malloc(A->ndone + 1);
    bool ok = y && z && w;
    for (uint64_t k = 0; ok && k < A->rounds; k++)
        if (A->st[k] == PAIR_DONE) {
            y[n] = A->y[k];
            ablation_design_of(A->v.seed, k, G, A->whole_every, z + n * G);
            w[n] = (signed char)ablation_whole(k, A->whole_every);
            n++;
        }
    if (!ok)
        errmsg(msg, msglen, "out of memory");
    ok = ok && ablation_fit(y, z, w, n, G, eff, fit, msg, msglen) == 0;
    free(y);
    free(z);
    free(w);
    return ok;
}

/* The additivity check: the groups' sum, the whole as the whole pairs
 * measured it and the gap, each as Elo with its 95% interval. */
static cJSON *additivity_json(const AblFit *f)
{
    JsonPut a = jput_new();
    jput_num(&a, "whole_pairs", (double)f->whole_pairs);
    const struct {
        const char *key;
        double x, se;
    } terms[] = { { "sum", f->sum, f->sum_se }, { "whole", f->whole, f->whole_se }, { "gap", f->gap, f->gap_se } };
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        char k[32];
        snprintf(k, sizeof k, "%s_elo", terms[i].key);
        jput_num(&a, k, ablation_elo(terms[i].x));
        snprintf(k, sizeof k, "%s_lo", terms[i].key);
        jput_num(&a, k, ablation_elo(terms[i].x - f->t * terms[i].se));
        snprintf(k, sizeof k, "%s_hi", terms[i].key);
        jput_num(&a, k, ablation_elo(terms[i].x + f->t * terms[i].se));
        snprintf(k, sizeof k, "%s_beta", terms[i].key);
        jput_num(&a, k, terms[i].x);
        snprintf(k, sizeof k, "%s_se", terms[i].key);
        jput_num(&a, k, terms[i].se);
    }
    double lo = f->gap - f->t * f->gap_se, hi = f->gap + f->t * f->gap_se;
    jput_str(&a, "verdict", lo > 0 ? "more than the sum" : hi < 0 ? "less than the sum" : "adds up");
    return jput_done(&a);
}

static cJSON *ablate_json(const Ablate *A, const char *status)
{
    const VerifyRun *v = &A->v;
    size_t G = A->groups.n;
    AblEffect *eff = calloc(G + 1, sizeof *eff);
    AblFit fit = { 0 };
    char msg[256] = "out of memory";
    bool fitted = eff && fit_now(A, eff, &fit, msg, sizeof msg);
    char now[32];
    rd_now_iso(now, sizeof now);
    JsonPut w = jput_new();
    jput_num(&w, "version", 1);
    jput_str(&w, "status", status);
    jput_item(&w, "groups", groups_json(&A->groups, fitted ? eff : NULL));
    if (fitted) {
        JsonPut f = jput_new();
        jput_num(&f, "pairs", (double)fit.pairs);
        jput_num(&f, "intercept", fit.mu);
        jput_num(&f, "intercept_se", fit.mu_se);
        jput_num(&f, "sigma", fit.sigma);
        jput_item(&w, "fit", jput_done(&f));
        if (fit.whole_pairs)
            jput_item(&w, "additivity", additivity_json(&fit));
    } else {
        jput_str(&w, "fit_note", msg);
    }
    free(eff);
    jput_num(&w, "rounds", (double)A->rounds);
    jput_num(&w, "rounds_asked", (double)A->rounds_asked);
    jput_bool(&w, "capped", A->capped);
    jput_str(&w, "tc", v->tc);
    jput_str(&w, "book", v->mc.book_path);
    JsonPut op = jput_new();
    jput_str(&op, "set", v->openings);
    jput_str(&op, "file", v->mc.book_path);
    jput_num(&op, "count", (double)(v->mc.book ? book_picks(v->mc.book) : 0));
    jput_num(&op, "book_size", (double)(v->mc.book ? book_size(v->mc.book) : 0));
    verify_claim_json(v, &op);
    jput_item(&w, "openings", jput_done(&op));
    jput_num(&w, "seed", (double)v->seed);
    jput_str(&w, "design", A->whole_every ? DESIGN_NAME_WHOLE : DESIGN_NAME);
    jput_num(&w, "whole_every", A->whole_every);
    jput_str(&w, "groups_spec", A->groups_spec);
    jput_str(&w, "tuned_file", v->tuned_file);
    jput_item(&w, "args",
              v->nargs ? cJSON_CreateStringArray((const char *const *)v->args, v->nargs) : cJSON_CreateArray());
    jput_num(&w, "run_games", (double)v->rs.games);
    jput_item(&w, "tuned", cJSON_Duplicate(verify_params_of(v->tuned), true));
    jput_item(&w, "base", cJSON_Duplicate(verify_params_of(v->base), true));
    uint64_t ptnml[5] = { 0 };
    cJSON *pairs = cJSON_CreateArray();
    signed char *z = malloc(G + 1);
    char design[MAX_JOB_OPTS + 1];
    bool ok = pairs && z;
    for (uint64_t k = 0; ok && k < A->rounds; k++) {
        if (A->st[k] != PAIR_DONE)
            continue;
        ptnml[(int)A->y[k] + 2]++;
        ablation_design_of(v->seed, k, G, A->whole_every, z);
        ablation_design_text(z, G, design, sizeof design);
        cJSON *p = cJSON_CreateObject();
        ok = p && cJSON_AddItemToArray(pairs, p); /* the array owns p from here */
        ok = ok && cJSON_AddNumberToObject(p, "pair", (double)k) &&
             cJSON_AddNumberToObject(p, "opening", (double)book_pick(v->mc.book, k)) &&
             cJSON_AddStringToObject(p, "design", design) && cJSON_AddNumberToObject(p, "diff", A->y[k]);
    }
    free(z);
    if (!ok) {
        cJSON_Delete(pairs);
        pairs = NULL;
    }
    jput_num(&w, "games", (double)(2 * A->ndone));
    cJSON *pt = cJSON_CreateArray();
    for (int i = 0; pt && i < 5; i++)
        cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)ptnml[i]));
    jput_item(&w, "ptnml", pt);
    jput_item(&w, "pairs", pairs);
    jput_num(&w, "sessions", (double)v->sessions);
    jput_str(&w, "created", v->created[0] ? v->created : now);
    jput_str(&w, "updated", now);
    return jput_done(&w);
}

static int ablate_save(const Ablate *A, const char *status, char *err, size_t errlen)
{
    cJSON *j = ablate_json(A, status);
    if (!j)
        return errmsg(err, errlen, "out of memory writing %s", A->path);
    int rc = rd_write_json(A->path, j, err, errlen);
    cJSON_Delete(j);
    return rc;
}

static void print_elo(FILE *out, double e)
{
    if (isinf(e))
        fprintf(out, "%s", e > 0 ? "+inf" : "-inf");
    else
        fprintf(out, "%+.1f", e);
}

static double num_of(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* "the groups' sum +26.0 [+18.1, +34.0]": term's _elo, _lo and _hi. */
static void print_term(FILE *out, const cJSON *a, const char *name, const char *term)
{
    char k[3][32];
    snprintf(k[0], sizeof k[0], "%s_elo", term);
    snprintf(k[1], sizeof k[1], "%s_lo", term);
    snprintf(k[2], sizeof k[2], "%s_hi", term);
    fprintf(out, "%s ", name);
    print_elo(out, num_of(a, k[0]));
    fprintf(out, " [");
    print_elo(out, num_of(a, k[1]));
    fprintf(out, ", ");
    print_elo(out, num_of(a, k[2]));
    fprintf(out, "]");
}

/* The additivity check of an ablation.json, when it has one. */
static void print_additivity(FILE *out, const cJSON *a)
{
    if (!cJSON_IsObject(a))
        return;
    const cJSON *vd = cJSON_GetObjectItemCaseSensitive(a, "verdict");
    fprintf(out, "  additivity (%.0f whole pairs, all tuned against all start): ", num_of(a, "whole_pairs"));
    print_term(out, a, "the groups' sum", "sum");
    print_term(out, a, ", the whole", "whole");
    print_term(out, a, "; gap", "gap");
    fprintf(out, ": %s\n", cJSON_IsString(vd) ? vd->valuestring : "?");
}

/* The table of an ablation.json. */
static void print_table(FILE *out, const cJSON *j, const char *dir)
{
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(j, "groups"), *g;
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(j, "tc");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "openings");
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(op, "set");
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(j, "fit");
    uint64_t games = 0;
    json_get_u64(j, "games", &games);
    fprintf(out, "ablation of %s: %d groups, %llu games (%llu pairs) at %s, %s openings, %s\n", dir,
            cJSON_GetArraySize(gs), (unsigned long long)games, (unsigned long long)games / 2,
            cJSON_IsString(tc) ? tc->valuestring : "?", cJSON_IsString(set) ? set->valuestring : "?",
            cJSON_IsString(st) ? st->valuestring : "?");
    if (!cJSON_IsObject(fit)) {
        const cJSON *note = cJSON_GetObjectItemCaseSensitive(j, "fit_note");
        fprintf(out, "  no estimate yet: %s\n", cJSON_IsString(note) ? note->valuestring : "?");
        return;
    }
    fprintf(out, "  Elo of each group's tuned values against its start values, 95%% interval:\n");
    fprintf(out, "  %-12s %6s  %8s  %-20s %s\n", "group", "params", "Elo", "interval", "verdict");
    cJSON_ArrayForEach(g, gs)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(g, "name");
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(g, "params");
        const cJSON *elo = cJSON_GetObjectItemCaseSensitive(g, "elo"), *lo = cJSON_GetObjectItemCaseSensitive(g, "elo_lo"),
                    *hi = cJSON_GetObjectItemCaseSensitive(g, "elo_hi"), *vd = cJSON_GetObjectItemCaseSensitive(g, "verdict");
        fprintf(out, "  %-12s %6d  ", cJSON_IsString(name) ? name->valuestring : "?", cJSON_GetArraySize(ps));
        if (!cJSON_IsNumber(elo) || !cJSON_IsNumber(lo) || !cJSON_IsNumber(hi)) {
            fprintf(out, "%8s\n", "?");
            continue;
        }
        char e[32], l[32], h[32];
        snprintf(e, sizeof e, "%+.1f", elo->valuedouble);
        snprintf(l, sizeof l, "%+.1f", lo->valuedouble);
        snprintf(h, sizeof h, "%+.1f", hi->valuedouble);
        char iv[80];
        snprintf(iv, sizeof iv, "[%s, %s]", l, h);
        fprintf(out, "%8s  %-20s %s\n", e, iv, cJSON_IsString(vd) ? vd->valuestring : "?");
    }
    const cJSON *mu = cJSON_GetObjectItemCaseSensitive(fit, "intercept"), *mse = cJSON_GetObjectItemCaseSensitive(fit, "intercept_se");
    if (cJSON_IsNumber(mu) && cJSON_IsNumber(mse)) {
        fprintf(out, "  engine 0's edge whatever the design (0 expected): ");
        print_elo(out, ablation_elo(mu->valuedouble));
        fprintf(out, " Elo +/- %.1f\n", fabs(ablation_elo(1.96 * mse->valuedouble)));
    }
    print_additivity(out, cJSON_GetObjectItemCaseSensitive(j, "additivity"));
}

/* ---- the match hooks ------------------------------------------------------------------- */

static bool next_pair(void *ctx, PairJob *job)
{
    Ablate *A = ctx;
    if (A->failed || stopsig_flag)
        return false;
    while (A->cursor < A->rounds && A->st[A->cursor] != PAIR_TODO)
        A->cursor++;
    if (A->cursor >= A->rounds)
        return false;
    uint64_t k = A->cursor++;
    A->st[k] = PAIR_INFLIGHT;
    size_t G = A->groups.n;
    signed char z[MAX_JOB_OPTS];
    ablation_design_of(A->v.seed, k, G, A->whole_every, z);
    job->id = k;
    job->opening = book_pick(A->v.mc.book, k);
    job->games = 2;
    job->nopts[0] = job->nopts[1] = A->nopts;
    for (int i = 0; i < A->nopts; i++) {
        const AblOpt *o = &A->opts[i];
        bool tuned0 = z[o->group] > 0;
        for (int e = 0; e < 2; e++) {
            snprintf(job->opts[e][i].name, sizeof job->opts[e][i].name, "%s", o->name);
            snprintf(job->opts[e][i].value, sizeof job->opts[e][i].value, "%s", (e == 0) == tuned0 ? o->tuned : o->base);
        }
    }
    char design[MAX_JOB_OPTS + 1];
    ablation_design_text(z, G, design, sizeof design);
    snprintf(job->names[0], sizeof job->names[0], "ablate-0");
    snprintf(job->names[1], sizeof job->names[1], "ablate-1");
    /* The PGN's Event: the pair and its design (cut to the field when there are many groups). */
    char ev[sizeof design + 96];
    snprintf(ev, sizeof ev, "ratchet-tune ablation pair %llu, engine 0 tuned on %s", (unsigned long long)k + 1, design);
    size_t evlen = strlen(ev) < sizeof job->event - 1 ? strlen(ev) : sizeof job->event - 1;
    memcpy(job->event, ev, evlen);
    job->event[evlen] = '\0';
    return true;
}

static void progress(Ablate *A, bool force)
{
    if (!progress_due(&A->progress, ep_now_ms(), force))
        return;
    char line[96];
    snprintf(line, sizeof line, "ablate: pairs %llu/%llu", (unsigned long long)A->ndone, (unsigned long long)A->rounds);
    progress_show(&A->progress, line);
}

static void pair_done(void *ctx, const PairJob *job, const PairResult *res)
{
    Ablate *A = ctx;
    uint64_t k = job->id;
    if (k >= A->rounds || A->st[k] != PAIR_INFLIGHT)
        return;
    if (res->games != 2) {
        A->st[k] = PAIR_TODO; /* not a whole pair: played again */
        if (k < A->cursor)
            A->cursor = k;
        return;
    }
    A->st[k] = PAIR_DONE;
    A->y[k] = (double)(res->score2[0] + res->score2[1]) - 2.0;
    A->ndone++;
    /* Saved at most every SAVE_EVERY_MS (a save is a synced file): a pair
     * finished since the last save is played again after a kill. */
    int64_t now = ep_now_ms();
    if (now - A->last_save < SAVE_EVERY_MS) {
        progress(A, false);
        return;
    }
    A->last_save = now;
    char err[PATH_MAX + 128];
    if (!A->failed && ablate_save(A, "running", err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: verify -ablate: %s; stopping\n", err);
        A->failed = true;
        stopsig_request();
    }
    progress(A, false);
}

static void pair_abandoned(void *ctx, const PairJob *job)
{
    Ablate *A = ctx;
    uint64_t k = job->id;
    if (k < A->rounds && A->st[k] == PAIR_INFLIGHT) {
        A->st[k] = PAIR_TODO;
        if (k < A->cursor)
            A->cursor = k;
    }
}

/* ---- the command ----------------------------------------------------------------------- */

/* The pairs of an unfinished ablation: each design must be the one this
 * build draws for it. */
static int load_pairs(Ablate *A, const cJSON *old, char *err, size_t errlen)
{
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(old, "pairs"), *p;
    const cJSON *design = cJSON_GetObjectItemCaseSensitive(old, "design");
    if (!cJSON_IsArray(pairs) || !cJSON_IsString(design))
        return errmsg(err, errlen, "%s: \"pairs\" or \"design\" is missing; start over with -restart", A->path);
    if (strcmp(design->valuestring, A->whole_every ? DESIGN_NAME_WHOLE : DESIGN_NAME) != 0)
        return errmsg(err, errlen, "%s: a design this build does not draw (%s); start over with -restart", A->path,
                      design->valuestring);
    size_t G = A->groups.n;
    signed char z[MAX_JOB_OPTS];
    char want[MAX_JOB_OPTS + 1];
    cJSON_ArrayForEach(p, pairs)
    {
        uint64_t k;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "design"), *y = cJSON_GetObjectItemCaseSensitive(p, "diff");
        if (!json_get_u64(p, "pair", &k) || !cJSON_IsString(d) || !cJSON_IsNumber(y) || y->valuedouble < -2 ||
            y->valuedouble > 2 || y->valuedouble != floor(y->valuedouble))
            return errmsg(err, errlen, "%s: a malformed entry in \"pairs\"; start over with -restart", A->path);
        if (k >= A->rounds || A->st[k] == PAIR_DONE)
            return errmsg(err, errlen, "%s: pair %llu is %s; start over with -restart", A->path,
                          (unsigned long long)k, k >= A->rounds ? "beyond the pairs to play" : "there twice");
        ablation_design_of(A->v.seed, k, G, A->whole_every, z);
        ablation_design_text(z, G, want, sizeof want);
        if (strcmp(want, d->valuestring) != 0)
            return errmsg(err, errlen, "%s: pair %llu played the design %s, this build draws %s for it; start over "
                          "with -restart", A->path, (unsigned long long)k, d->valuestring, want);
        A->st[k] = PAIR_DONE;
        A->y[k] = y->valuedouble;
        A->ndone++;
    }
    return 0;
}

static bool same_groups(const cJSON *stored, const AblGroups *gs)
{
    cJSON *now = groups_json(gs, NULL);
    bool same = now && cJSON_IsArray(stored) && cJSON_GetArraySize(stored) == (int)gs->n;
    for (size_t g = 0; same && g < gs->n; g++) {
        const cJSON *a = cJSON_GetArrayItem(stored, (int)g), *b = cJSON_GetArrayItem(now, (int)g);
        same = cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "name"), cJSON_GetObjectItemCaseSensitive(b, "name"), true) &&
               cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "params"), cJSON_GetObjectItemCaseSensitive(b, "params"), true);
    }
    cJSON_Delete(now);
    return same;
}

static int play(Ablate *A, const char *dir)
{
    VerifyRun *v = &A->v;
    char err[PATH_MAX + 1024];
    v->sessions++;
    if (v->created[0] == '\0')
        rd_now_iso(v->created, sizeof v->created);
    if (ablate_save(A, "running", err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: verify -ablate: %s\n", err);
        return EXIT_FAILED;
    }
    printf("ablate: %zu groups (", A->groups.n);
    for (size_t g = 0; g < A->groups.n; g++)
        printf("%s%s %zu", g ? ", " : "", A->groups.g[g].name, A->groups.g[g].nparams);
    printf("), %llu pairs at %s, concurrency %d, %zu openings from %s, seed %llu\n", (unsigned long long)A->rounds,
           v->tc, v->mc.concurrency, book_picks(v->mc.book), v->mc.book_path, (unsigned long long)v->seed);
    if (A->ndone)
        printf("continuing: %llu pairs played\n", (unsigned long long)A->ndone);
    fflush(stdout);

    StopSig stop;
    stopsig_install(&stop, ABLATE_KIND.stop_note);
    v->mc.stop = &stopsig_flag;
    progress_start(&A->progress, 500, 10000, ep_now_ms());
    MatchHooks hooks = { .next_pair = next_pair, .pair_done = pair_done, .pair_abandoned = pair_abandoned, .ctx = A };
    int mrc = match_transport(&v->mc, &hooks); /* under MPI: played by the worker ranks */
    stopsig_restore(&stop);
    progress(A, true);
    progress_end(&A->progress);

    bool done = !A->failed && !stopsig_flag && mrc == 0 && A->ndone == A->rounds;
    const char *status = done ? "done" : "stopped";
    bool saved = ablate_save(A, status, err, sizeof err) == 0;
    if (!saved)
        fprintf(stderr, "ratchet-tune: verify -ablate: %s\n", err);
    if (mrc < 0) {
        fprintf(stderr, "ratchet-tune: verify -ablate: the engines could not be started; nothing was played\n");
        return EXIT_FAILED;
    }
    cJSON *j = ablate_json(A, status);
    if (j)
        print_table(stdout, j, dir);
    cJSON_Delete(j);
    if (!done)
        printf("continue with: %s verify %s -ablate\n", setup_prog(), dir);
    printf("%s %s\n", saved ? "written to" : "could not write", A->path);
    fflush(stdout);
    if (done && saved)
        return EXIT_DONE;
    if (stopsig_signal() && !A->failed && mrc == 0)
        return 128 + stopsig_signal();
    return EXIT_FAILED;
}

/* The earlier ablation played these values and groups: shown when it is
 * done, continued when not; other values start anew, other groups are refused. */
static int continue_earlier(Ablate *A, VerifyCall *c)
{
    const VerifyRun *v = &A->v;
    if (!c->old)
        return STEP_GO;
    if (!verify_same_params(verify_params_of(v->tuned), cJSON_GetObjectItemCaseSensitive(c->old, "tuned")) ||
        !verify_same_params(verify_params_of(v->base), cJSON_GetObjectItemCaseSensitive(c->old, "base"))) {
        printf("ablate: the values differ from those of %s (the run has moved on): starting a new ablation\n",
               A->path);
        return STEP_GO;
    }
    if (!same_groups(cJSON_GetObjectItemCaseSensitive(c->old, "groups"), &A->groups)) {
        errmsg(c->err, sizeof c->err, "verify -ablate: the groups differ from those of %s (has the groups file "
               "changed?); add -restart to start over with the new groups", A->path);
        return STEP_FAIL;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(c->old, "status");
    if (cJSON_IsString(st) && !strcmp(st->valuestring, "done")) {
        print_table(stdout, c->old, c->arg);
        printf("(finished earlier; -restart plays it again)\n");
        c->rc = EXIT_DONE;
        return STEP_END;
    }
    c->resume = true;
    return STEP_GO;
}

/* The Ablate of a call of ablate_main, whose run is its first member. */
static Ablate *ablate_of(VerifyCall *c)
{
    return (Ablate *)c->r;
}

/* A continued ablation: its seed, sessions, start and whole pairs from its file. */
static int resume_from(VerifyCall *c)
{
    VerifyRun *v = c->r;
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(c->old, "created");
    uint64_t seed = 0;
    if (!json_get_u64(c->old, "seed", &seed) || !json_get_u64(c->old, "sessions", &v->sessions) ||
        !cJSON_IsString(cr)) {
        errmsg(c->err, sizeof c->err, "%s: \"seed\", \"sessions\" or \"created\" is missing; start over with -restart",
               c->file);
        return -1;
    }
    v->seed = seed;
    snprintf(v->created, sizeof v->created, "%s", cr->valuestring);
    /* A file of an older build has no whole pairs: its design goes on without them. */
    uint64_t every = 0;
    if (!json_get_u64(c->old, "whole_every", &every) || every > 1000)
        every = 0;
    ablate_of(c)->whole_every = (unsigned)every;
    return 0;
}

/* The match: both engines start at the start values, each pair sends the
 * groups' values; one pair per fresh opening at a deterministic limit. */
static int make_match(Ablate *A, VerifyCall *c)
{
    VerifyRun *v = &A->v;
    snprintf(c->engines[0], sizeof c->engines[0], "%s", c->cmd);
    snprintf(c->engines[1], sizeof c->engines[1], "%s", c->cmd);
    v->baked = false;
    const cJSON *values[2] = { v->base, v->base };
    c->want_pairs = A->rounds_asked;
    if (verify_make_match(c, values) != STEP_GO || make_opts(A, c->err, sizeof c->err) < 0)
        return STEP_FAIL;

    /* At a deterministic limit a game is a function of its opening (and the
     * values): one pair per fresh opening (match_cap_fresh). */
    A->rounds = A->rounds_asked;
    A->capped = match_cap_fresh(&v->mc, 2, &A->rounds, true, "ablate", stdout);
    if (A->rounds < A->groups.n + 2) {
        errmsg(c->err, sizeof c->err, "verify -ablate: %llu pairs cannot estimate %zu groups (at least %zu)%s",
               (unsigned long long)A->rounds, A->groups.n, A->groups.n + 2,
               A->capped ? ": too few fresh openings; give -openings file=F with more" : "");
        return STEP_FAIL;
    }
    A->st = calloc(A->rounds + 1, 1);
    A->y = calloc(A->rounds + 1, sizeof *A->y);
    if (!A->st || !A->y)
        return verify_oom(c);
    if (c->resume && load_pairs(A, c->old, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    return STEP_GO;
}

/* The steps up to the match, in order; STEP_GO when the match is to be played. */
static int prepare(Ablate *A, VerifyCall *c, int argc, char **argv)
{
    VerifyRun *v = &A->v;
    char note[1024] = "";
    int step;
    if ((step = verify_read_options(c, argc, argv)) != STEP_GO ||
        (step = verify_open_run(c)) != STEP_GO)
        return step;
    snprintf(A->path, sizeof A->path, "%s", c->file);
    if ((step = verify_read_earlier(c)) != STEP_GO)
        return step;
    if (parse_args(A, &c->over, c->err, sizeof c->err) < 0 || verify_use_value_files(v, c->err, sizeof c->err) < 0 ||
        make_groups(A, v->tuned, v->base, note, sizeof note, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    if ((step = continue_earlier(A, c)) != STEP_GO)
        return step;
    if (note[0])
        printf("ablate: groups: %s\n", note);
    if ((step = verify_settle_settings(c, resume_from)) != STEP_GO || (step = verify_engine_cmd(c)) != STEP_GO)
        return step;
    return make_match(A, c);
}

int ablate_main(int argc, char **argv)
{
    int pre = cli_preamble(argc, argv, ABLATE_USAGE, NULL, CLI_DIR_FIRST);
    if (pre >= 0)
        return pre;
    rules_init();
    static Ablate A; /* large (the match configuration); one per process */
    static VerifyCall c;
    memset(&A, 0, sizeof A);
    verify_call_init(&c, &A.v, argv[1], &ABLATE_KIND);
    int step = prepare(&A, &c, argc, argv);
    if (step == STEP_GO)
        c.rc = play(&A, argv[1]);
    ablation_groups_free(&A.groups);
    free(A.st);
    free(A.y);
    return verify_call_end(&c, step);
}
