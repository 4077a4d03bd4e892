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
#include "ablation_record.h"
#include "board.h"
#include "cliutil.h"
#include "elotext.h"
#include "errmsg.h"
#include "jsonget.h"
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
    "  -idle-wait D        at a wall clock, wait up to D for a busy machine before each sitting\n"
    "                      (as verify; default 0: check, warn and play; off: no check)\n"
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
    ValidationForfeits forfeits;  /* of the counted pairs' games */
    uint64_t forfeit_pairs;       /* the pairs they count: all, or those since an older build's file */
    int64_t last_save;
    Progress progress;
    bool failed;
} Ablate;

/* ---- the options ------------------------------------------------------------------------ */

/* -ablate [groups=...] [whole=N]. */
static int ablate_option(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    Ablate *A = opt->target;
    for ((*i)++; *i < argc && argv[*i][0] != '-'; (*i)++) {
        const char *kv = argv[*i];
        uint64_t n;
        if (!strncmp(kv, "groups=", 7)) {
            if (!kv[7])
                return errmsg(err, errlen, "-ablate groups=: give auto, a file or NAME:P1,P2;NAME2:P3");
            snprintf(A->groups_spec, sizeof A->groups_spec, "%s", kv + 7);
        } else if (!strncmp(kv, "whole=", 6)) {
            if (!cli_parse_u64(kv + 6, 0, 1000, &n))
                return errmsg(err, errlen, "-ablate whole=%s: give a whole couple every N couples, N in "
                              "0..1000 (0: no whole pairs)", kv + 6);
            A->whole_every = (unsigned)n;
        } else
            return errmsg(err, errlen, "-ablate: '%s': expected groups=auto|FILE|NAME:P1,P2;NAME2:P3 or whole=N",
                          kv);
    }
    return 0;
}

/* The options of verify that an ablation refuses. */
static int verify_only_option(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    (void)opt, (void)argc;
    return errmsg(err, errlen, "%s does not go with -ablate: an ablation plays a fixed number of pairs "
                  "(-rounds) of the run's engine, with its tuned values (or -tuned's) and its start "
                  "values sent as options", argv[*i]);
}

/* The stored options into groups=, -rounds and the match settings `over`. */
static int parse_args(Ablate *A, RunConf *over, char *err, size_t errlen)
{
    VerifyRun *v = &A->v;
    snprintf(A->groups_spec, sizeof A->groups_spec, "auto");
    A->rounds_asked = DEFAULT_PAIRS;
    A->whole_every = DEFAULT_WHOLE_EVERY;
    const CliOpt opts[] = {
        { "-ablate", CLI_OPT_CALL, .target = A, .call = ablate_option },
        { "-rounds", CLI_OPT_UINT, .target = &A->rounds_asked, .min = 2, .max = MAX_PAIRS },
        { "-tuned", CLI_OPT_STRING, .target = v->tuned_file, .size = sizeof v->tuned_file,
          .want = VERIFY_VALUE_FILE },
        { "-sprt|-bake|-base|-snapshot|-engine", CLI_OPT_CALL, .call = verify_only_option },
        { .name = NULL },
    };
    char **rest = calloc((size_t)v->nargs + 1, sizeof *rest);
    if (!rest)
        return errmsg(err, errlen, "out of memory");
    int n = 0;
    int rc = cli_options(opts, CLI_SAY_NEEDS, v->nargs, v->args, rest, &n, err, errlen);
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

/* The record of A as its file holds it (ablation_record.h), with what it
 * borrows: the fit, the pairs' designs, the time. */
typedef struct {
    AblationRecord r;
    AblEffect *eff;
    AblFit fit;
    char note[256];
    char now[32];
    char *designs;                /* per pair played: its design, G + 1 bytes */
} AblateRecord;

static void record_free(AblateRecord *o)
{
    ablation_record_free(&o->r);
    free(o->eff);
    free(o->designs);
}

/* 0, or -1 when out of memory (free o with record_free either way). */
static int record_of(const Ablate *A, const char *status, AblateRecord *o)
{
    const VerifyRun *v = &A->v;
    size_t G = A->groups.n;
    memset(o, 0, sizeof *o);
    snprintf(o->note, sizeof o->note, "out of memory");
    rd_now_iso(o->now, sizeof o->now);
    o->eff = calloc(G + 1, sizeof *o->eff);
    bool fitted = o->eff && fit_now(A, o->eff, &o->fit, o->note, sizeof o->note);
    AblationRecord *r = &o->r;
    if (ablation_record_groups(r, &A->groups) < 0)
        return -1;
    ablation_record_fit(r, fitted ? &o->fit : NULL, o->eff, o->note);
    r->status = status;
    r->rounds = A->rounds;
    r->rounds_asked = A->rounds_asked;
    r->capped = A->capped;
    r->tc = v->tc;
    r->book = v->mc.book_path;
    r->set = v->openings;
    r->openings_file = v->mc.book_path;
    r->count = v->mc.book ? book_picks(v->mc.book) : 0;
    r->book_size = v->mc.book ? book_size(v->mc.book) : 0;
    r->claimed = v->claimed;
    r->held_out_first = v->claim_first;
    r->held_out_count = v->claim_count;
    r->seed = v->seed;
    r->design = A->whole_every ? ABLATION_DESIGN_WHOLE : ABLATION_DESIGN;
    r->whole_every = A->whole_every;
    r->groups_spec = A->groups_spec;
    r->tuned_file = v->tuned_file;
    r->args = (const char *const *)v->args;
    r->nargs = v->nargs;
    r->dir = v->dir;
    r->run_games = v->rs.games;
    r->tuned = verify_params_of(v->tuned);
    r->base = verify_params_of(v->base);
    r->games = 2 * A->ndone;
    r->has_forfeits = true;
    r->forfeits = A->forfeits;
    r->forfeit_pairs = A->forfeit_pairs;
    r->sessions = v->sessions;
    r->created = v->created[0] ? v->created : o->now;
    r->updated = o->now;
    r->pairs = calloc(A->ndone + 1, sizeof *r->pairs);
    o->designs = malloc(A->ndone * (G + 1) + 1);
    signed char *z = malloc(G + 1);
    bool ok = r->pairs && o->designs && z;
    for (uint64_t k = 0; ok && k < A->rounds; k++) {
        if (A->st[k] != PAIR_DONE)
            continue;
        r->ptnml[(int)A->y[k] + 2]++;
        AblPairRecord *p = &r->pairs[r->npairs];
        char *design = o->designs + r->npairs++ * (G + 1);
        ablation_design_of(v->seed, k, G, A->whole_every, z);
        ablation_design_text(z, G, design, G + 1);
        *p = (AblPairRecord){ .pair = k, .opening = book_pick(v->mc.book, k), .design = design, .diff = A->y[k] };
    }
    free(z);
    return ok ? 0 : -1;
}

static int ablate_save(const Ablate *A, const char *status, char *err, size_t errlen)
{
    AblateRecord o;
    cJSON *j = record_of(A, status, &o) == 0 ? ablation_record_to_json(&o.r) : NULL;
    record_free(&o);
    if (j && !verify_machine_to(&A->v, j)) {
        cJSON_Delete(j);
        j = NULL;
    }
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
        fprintf(out, "%+.1f", elo_no_minus_zero(e, 1));
}

/* "the groups' sum +26.0 [+18.1, +34.0]": a term's Elo and interval. */
static void print_term(FILE *out, const AblTermRecord *t, const char *name)
{
    fprintf(out, "%s ", name);
    print_elo(out, t->elo);
    fprintf(out, " [");
    print_elo(out, t->lo);
    fprintf(out, ", ");
    print_elo(out, t->hi);
    fprintf(out, "]");
}

/* The additivity check of an ablation.json, when it has one. */
static void print_additivity(FILE *out, const AblationRecord *r)
{
    if (!r->has_additivity)
        return;
    fprintf(out, "  additivity (%.0f whole pairs, all tuned against all start): ", r->whole_pairs);
    print_term(out, &r->terms[ABL_TERM_SUM], "the groups' sum");
    print_term(out, &r->terms[ABL_TERM_WHOLE], ", the whole");
    print_term(out, &r->terms[ABL_TERM_GAP], "; gap");
    fprintf(out, ": %s\n", r->additivity_verdict ? r->additivity_verdict : "?");
}

/* The table of an ablation.json. */
static void print_table(FILE *out, const AblationRecord *r, const char *dir)
{
    fprintf(out, "ablation of %s: %d groups, %llu games (%llu pairs) at %s, %s openings, %s\n", dir,
            (int)r->ngroups, (unsigned long long)r->games, (unsigned long long)r->games / 2, json_shown(r->tc),
            json_shown(r->set), json_shown(r->status));
    if (!r->has_fit) {
        fprintf(out, "  no estimate yet: %s\n", json_shown(r->fit_note));
        return;
    }
    fprintf(out, "  Elo of each group's tuned values against its start values, 95%% interval:\n");
    fprintf(out, "  %-12s %6s  %8s  %-20s %s\n", "group", "params", "Elo", "interval", "verdict");
    for (size_t g = 0; g < r->ngroups; g++) {
        const AblGroupRecord *gr = &r->groups[g];
        const AblEffect *e = &gr->eff;
        fprintf(out, "  %-12s %6d  ", json_shown(gr->name), (int)gr->nparams);
        if (isnan(e->elo) || isnan(e->elo_lo) || isnan(e->elo_hi)) {
            fprintf(out, "%8s\n", "?");
            continue;
        }
        char el[32], l[32], h[32];
        snprintf(el, sizeof el, "%+.1f", elo_no_minus_zero(e->elo, 1));
        snprintf(l, sizeof l, "%+.1f", elo_no_minus_zero(e->elo_lo, 1));
        snprintf(h, sizeof h, "%+.1f", elo_no_minus_zero(e->elo_hi, 1));
        char iv[80];
        snprintf(iv, sizeof iv, "[%s, %s]", l, h);
        fprintf(out, "%8s  %-20s %s\n", el, iv, json_shown(gr->verdict));
    }
    if (!isnan(r->intercept) && !isnan(r->intercept_se)) {
        fprintf(out, "  engine 0's edge whatever the design (0 expected): ");
        print_elo(out, ablation_elo(r->intercept));
        fprintf(out, " Elo +/- %.1f\n", fabs(ablation_elo(1.96 * r->intercept_se)));
    }
    print_additivity(out, r);
    char ff[400];
    fprintf(out, "  %s\n", ablation_record_forfeit_text(r, ff, sizeof ff));
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
    char ev[sizeof design + 192], mark[96];
    verify_pgn_mark(&A->v, "ablation", mark, sizeof mark);
    snprintf(ev, sizeof ev, "%s: pair %llu, engine 0 tuned on %s", mark, (unsigned long long)k + 1, design);
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
    validate_forfeits_add(&A->forfeits, res);
    A->forfeit_pairs++;
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
    AblationRecord r;
    int rc = ablation_record_from_json(&r, old, ABLREC_PAIRS, A->path, err, errlen);
    size_t G = A->groups.n;
    signed char z[MAX_JOB_OPTS];
    char want[MAX_JOB_OPTS + 1];
    for (size_t i = 0; rc == 0 && i < r.npairs; i++) {
        const AblPairRecord *p = &r.pairs[i];
        uint64_t k = p->pair;
        if ((rc = ablation_record_pair_check(&r, i, A->path, err, errlen)) < 0)
            break;
        if (k >= A->rounds || A->st[k] == PAIR_DONE) {
            rc = errmsg(err, errlen, "%s: pair %llu is %s; start over with -restart", A->path,
                        (unsigned long long)k, k >= A->rounds ? "beyond the pairs to play" : "there twice");
            break;
        }
        ablation_design_of(A->v.seed, k, G, A->whole_every, z);
        ablation_design_text(z, G, want, sizeof want);
        if (strcmp(want, p->design) != 0) {
            rc = errmsg(err, errlen, "%s: pair %llu played the design %s, this build draws %s for it; start over "
                        "with -restart", A->path, (unsigned long long)k, p->design, want);
            break;
        }
        A->st[k] = PAIR_DONE;
        A->y[k] = p->diff;
        A->ndone++;
    }
    if (rc == 0 && r.has_forfeits) {
        A->forfeits = r.forfeits;
        A->forfeit_pairs = r.forfeit_pairs;
    }
    ablation_record_free(&r);
    return rc;
}

/* Whether the record counts pair k (verify_trim_pgn). */
static bool counted(void *ctx, uint64_t k)
{
    const Ablate *A = ctx;
    return k < A->rounds && A->st[k] == PAIR_DONE;
}

static int play(Ablate *A, const char *dir)
{
    VerifyRun *v = &A->v;
    char err[PATH_MAX + 1024];
    v->sessions++;
    if (v->created[0] == '\0')
        rd_now_iso(v->created, sizeof v->created);
    if (ablate_save(A, "running", err, sizeof err) < 0 ||
        verify_trim_pgn(v, "ablation", counted, A, err, sizeof err) < 0) {
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
    verify_check_machine(v, "ablate");
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
    AblateRecord o;
    if (record_of(A, status, &o) == 0)
        print_table(stdout, &o.r, dir);
    record_free(&o);
    if (!done && !setup_caller())
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
    AblationRecord old, now = { 0 };
    int step = STEP_GO;
    if (ablation_record_from_json(&old, c->old, 0, A->path, c->err, sizeof c->err) < 0 ||
        ablation_record_groups(&now, &A->groups) < 0) {
        step = verify_oom(c);
    } else if (!verify_same_params(verify_params_of(v->tuned), old.tuned) ||
               !verify_same_params(verify_params_of(v->base), old.base)) {
        printf("ablate: the values differ from those of %s (the run has moved on): starting a new ablation\n",
               A->path);
    } else if (!ablation_record_same_groups(&old, &now)) {
        errmsg(c->err, sizeof c->err, "verify -ablate: the groups differ from those of %s (has the groups file "
               "changed?); add -restart to start over with the new groups", A->path);
        step = STEP_FAIL;
    } else if (old.status && !strcmp(old.status, "done")) {
        print_table(stdout, &old, c->arg);
        printf("(finished earlier; -restart plays it again)\n");
        c->rc = EXIT_DONE;
        step = STEP_END;
    } else {
        c->resume = true;
    }
    ablation_record_free(&old);
    ablation_record_free(&now);
    return step;
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
    AblationRecord old;
    int rc = ablation_record_from_json(&old, c->old, ABLREC_RESUME, c->file, c->err, sizeof c->err);
    if (rc == 0) {
        v->seed = old.seed;
        v->sessions = old.sessions;
        snprintf(v->created, sizeof v->created, "%s", old.created);
        ablate_of(c)->whole_every = old.whole_every;
        if (verify_machine_from(v, c->old) < 0)
            rc = errmsg(c->err, sizeof c->err, "out of memory reading %s", c->file);
    }
    ablation_record_free(&old);
    return rc;
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
