/* `ratchet-tune simulate`: the command line of the SPSA simulator (the
 * model: spsa/simulate.c, the suite: simulate_suite.c, the grid:
 * simulate_grid.c). */
#include "simulate_cmd.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_statistics_double.h>

#include "cliutil.h"
#include "errmsg.h"
#include "landscape.h"
#include "simulate_grid.h"
#include "simulate_suite.h"
#include "simulate.h"
#include "spec.h"
#include "validate.h"
#include "valpower.h"

/* ---- the built-in landscape ---------------------------------------------- */

/* Shaped like engine/params.def's selectivity constants: name, start, min,
 * max, c_end, r_end, and the optimum.  Every curvature is 1 Elo at c_end, so
 * the start values lose 21.5 Elo. */
static const struct {
    const char *name;
    double start, min, max, c_end, r_end, opt;
} BUILTIN[] = {
    {"LmrQuietBase", 135, 0, 300, 10, 0.002, 150},
    {"LmrQuietDivisor", 275, 150, 450, 15, 0.002, 245},
    {"LmpBase", 3, 0, 12, 1, 0.002, 5},
    {"FutilityMargin", 100, 20, 300, 10, 0.002, 75},
    {"NullMoveBase", 3, 1, 6, 1, 0.002, 4},
    {"IirDepth", 4, 2, 10, 1, 0.002, 6},
};
#define NBUILTIN (sizeof BUILTIN / sizeof BUILTIN[0])

/* ---- command line -------------------------------------------------------- */

static const char USAGE[] =
    "usage: ratchet-tune simulate [options]\n"
    "\n"
    "Runs the SPSA of `ratchet-tune run` against a synthetic match model: a\n"
    "quadratic Elo landscape Elo(x) = -sum curv_i * ((x_i - opt_i) / unit_i)^2\n"
    "(unit_i = c_end_i unless -landscape scale= says otherwise; plateaus, skew and\n"
    "couplings on request)\n"
    "with a known optimum; each game pair between the + and - values is drawn\n"
    "with GSL from the logistic expected score of their Elo difference.\n"
    "Prints progress, then the Elo loss of the final values and the distance of\n"
    "every parameter from its optimum.  Deterministic for a given -srand.\n"
    "\n"
    "  -params file=SPEC          Ratchet spec JSON or OpenBench lines\n"
    "                             (name, int, value, min, max, c_end, r_end);\n"
    "                             default: a built-in 6-parameter landscape\n"
    "  -spsa games=N pairs-per=P A-ratio=X alpha=X gamma=X average=F form=NAME\n"
    "                             games (default 100000); one iteration is one\n"
    "                             batch of P game pairs (default 1), N = games/2P;\n"
    "                             A = A-ratio*N (0.1), alpha 0.602, gamma 0.101;\n"
    "                             average=F (option, default 0 = off): report the\n"
    "                             mean of theta over the last fraction F\n"
    "  -landscape optimum=V,V,...|random curvature=K|K,K,... seed=S\n"
    "                             optimum per parameter (default: the built-in\n"
    "                             one; with -params: random), random = start +\n"
    "                             c_end * uniform(-3, 3) rounded and clipped, from\n"
    "                             seed S (default: -srand); an optimum may be\n"
    "                             min+Z or max-Z: Z c_end inside a bound;\n"
    "                             curvature: Elo lost one unit from the optimum\n"
    "                             (default 1); also width= (plateau, in units;\n"
    "                             0 = quadratic), skew= (curvature 1+skew above\n"
    "                             the optimum, 1-skew below), scale= (the spec's\n"
    "                             c_end is this many units: 3 = c_end 3x too\n"
    "                             large; default 1), start=optimum|V,...,\n"
    "                             coupling=A:B:K,... (Elo loss += K z_A z_B, A and\n"
    "                             B names or 0-based indices), each one value for\n"
    "                             all or one per parameter\n"
    "  -landscape file=L.json     the same from a JSON file (tuner/spsa/landscape.h),\n"
    "                             which may also set draw_ratio and opening_bias;\n"
    "                             words on the command line apply after it\n"
    "  -draw-ratio X              draw probability of an even game (0.25)\n"
    "  -opening-bias ELO          std dev of an opening's White advantage (80)\n"
"  -concurrency N             batches in flight at once (1)\n"
    "  -srand N                   seed (1)\n"
    "  -seeds K                   run seeds srand .. srand+K-1, print the median (1)\n"
    "  -quiet                     no progress lines\n"
    "  -suite                     every form on the landscape suite instead (below)\n"
    "  -grid                      the robustness grid instead (below)\n"
    "  --help                     this text\n"
    "\n"
    "-spsa also takes form=settle|far|adam|classic (default settle; rms is far's older\n"
    "name), eta=X, decay=X, eta-base=X, eta-pow=X, eta-npow=X (eta from the budget when\n"
    "eta=0: eta-base * (8 / parameters)^eta-npow * (5000 / iterations)^eta-pow),\n"
    "beta1=X, beta2=X, probe=X, probe-end=X (the probe factor from probe at the first\n"
    "iteration to this at the last, geometrically; simulate only), narrow=0|1, adapt=0|1,\n"
    "adapt-rate=X, adapt-bias=X,\n"
    "adapt-window=F, scale-min=X, scale-max=X, scale-start=X, centre=F, centre-elo=X,\n"
    "centre-rate=X, centre-window=F, centre-min=X (the forms' settings, the per-parameter\n"
    "scale and the centre batches, docs/spsa-forms.md) and r_end=X (every parameter's\n"
    "r_end, for the classic form).\n"
    "\n"
    "simulate -suite [-seeds K] [-draw-ratio X] [-opening-bias ELO]\n"
    "                [-landscapes a,b,...] [-spsa form=NAME key=value ...]\n"
    "Runs every form (or only the one -spsa describes, beside the classic form) on\n"
    "the landscapes far8 opt8 flat8 pair8 bound8 far30 opt30 asym8 aopt8 near8\n"
    "plat8 platb8 (tuner/commands/simulate_suite.c) and prints the median over K\n"
    "seeds (default 25) of the games until the loss first falls under 1 Elo (in\n"
    "the 50k-game run) and of the loss left after runs of 2k, 10k and 50k games;\n"
    "then the targets of issue 10 and each form's curve at 10k games (far8\n"
    "against opt8 as the gain is scaled).  The draw ratio and opening bias\n"
    "default to the values measured on bin/ratchet at nodes=5000 (0.25, 80).\n"
    "\n"
    "simulate -grid [-seeds K] [-seed-base B] [-landscapes quad,plat,asym,coupled]\n"
    "               [-spsa games=N form=NAME key=value ...]\n"
    "The robustness grid (tuner/commands/simulate_grid.c): landscapes drawn from\n"
    "the seeds B .. B+K-1 (default 1001, 25 seeds), played with every c_end x 0.2,\n"
    "0.33, 1, 3, 5 and mixed per parameter, from far and from the optimum, N games\n"
    "(10000); the median loss of the -spsa form (without -spsa: the default form\n"
    "with the scale, adapt=1) beside form=far, form=far's run with its noise moves\n"
    "undone, the classic form, and the classic form with the same probe multiple\n"
    "and gains from the budget; then the drift on a flat landscape after 100 to\n"
    "100k games, and the targets of issues 33 and 42.\n"
    "\n"
    "simulate -validation [-spsa games=N] [-design every=F games=N final=M ...]...\n"
    "                     [-walk ELO] [-flat ELO] [-seeds K] [-seed-base B]\n"
    "The power of validation schedules (tuner/tuning/valpower.h): for a run of N\n"
    "tuning games (default 20000), the default schedule of `run -validate` and\n"
    "each -design (the keys of -validate, one -design per schedule), each point's\n"
    "pairs drawn from a real night's pentanomial shape tilted to the snapshot's\n"
    "true Elo, over the seeds B .. B+K-1 (default 1, 10000 seeds): how often the\n"
    "final point shows a significant loss when the values walk to -walk Elo at\n"
    "the end (default -20), a significant gain when they hold -flat Elo from the\n"
    "start (25), either when nothing is gained, and how often a point before the\n"
    "final one shows a significant loss when the values lose -collapse Elo from\n"
    "the start (-50); and under no gain, the best point's\n"
    "Elo (its selection bias), how often its interval excludes 0, and its Elo less\n"
    "the correction that status shows.\n";

/* A key=value word of an option: the key, and the value in argv. */
typedef struct {
    char key[128];
    const char *value;
} SimWord;

typedef struct {
    const char *spec_file;
    SpsaConfig cfg;
    uint64_t games;
    SimWord lword[32];               /* -landscape words other than seed and file, in order */
    size_t nlkeys;
    const char *landscape_file;      /* -landscape file=PATH */
    bool landscape_seed_set;
    uint64_t landscape_seed;
    double draw_ratio, opening_bias;
    int concurrency;
    uint64_t srand;
    int seeds;
    bool quiet;
    bool suite, custom;              /* -suite; a -spsa key beyond games, pairs-per */
    bool grid;                       /* -grid */
    uint64_t seed_base;              /* -seed-base (the grid's first seed) */
    bool games_set;
    bool draw_set, bias_set, seeds_set;
    SimWord sword[64];               /* -spsa words other than form=, in order */
    size_t nskeys;
    double r_end;                    /* -spsa r_end=X: every parameter's (0 = the spec's) */
    const char *landscapes;          /* -landscapes (the suite) */
    bool validation;                 /* -validation */
    SimWord design[32][4];           /* -design words (every=, games=, final=) */
    size_t ndesign, ndword[32];
    double walk, flat, collapse;     /* -walk, -flat, -collapse */
} SimOptions;

/* The simulator's own numbers among -spsa's words (the schedule's, the
 * moments' and the scale's): true if kv is one of them (*ok: its value is
 * good). */
static bool spsa_own_key(SpsaConfig *cfg, const char *kv, size_t klen, const char *v, bool *ok)
{
    static const struct {
        const char *key;
        size_t off;
        double lo, hi;
    } KEYS[] = {
        {"decay", offsetof(SpsaConfig, decay), 0, 10},
        {"eta-base", offsetof(SpsaConfig, eta_base), 1e-6, 10},
        {"eta-pow", offsetof(SpsaConfig, eta_pow), 0, 2},
        {"eta-npow", offsetof(SpsaConfig, eta_npow), 0, 2},
        {"beta1", offsetof(SpsaConfig, beta1), 0, 0.999999},
        {"beta2", offsetof(SpsaConfig, beta2), 0, 0.999999},
        {"adapt-rate", offsetof(SpsaConfig, adapt_rate), 0, 100},
        {"adapt-bias", offsetof(SpsaConfig, adapt_bias), -100, 100},
        {"adapt-window", offsetof(SpsaConfig, adapt_window), 1e-6, 1},
        {"scale-min", offsetof(SpsaConfig, scale_min), 1e-6, 1},
        {"scale-max", offsetof(SpsaConfig, scale_max), 1, 1e6},
        {"scale-start", offsetof(SpsaConfig, scale_start), 1e-6, 1e6},
        {"centre", offsetof(SpsaConfig, centre), 0, 0.999999},
        {"centre-elo", offsetof(SpsaConfig, centre_elo), 1e-6, 1e6},
        {"centre-rate", offsetof(SpsaConfig, centre_rate), 0, 100},
        {"centre-window", offsetof(SpsaConfig, centre_window), 1e-6, 1},
        {"centre-min", offsetof(SpsaConfig, centre_min), 1e-6, 1},
        {"probe-end", offsetof(SpsaConfig, probe_end), 1, 100},
    };
    if (klen == 5 && !strncmp(kv, "adapt", 5)) {
        uint64_t on = 1;
        *ok = cli_parse_u64(v, 0, 1, &on);
        cfg->adapt = on != 0;
        return true;
    }
    for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++)
        if (klen == strlen(KEYS[i].key) && !strncmp(kv, KEYS[i].key, klen)) {
            *ok = cli_parse_double(v, KEYS[i].lo, KEYS[i].hi,
                                   (double *)((char *)cfg + KEYS[i].off));
            return true;
        }
    return false;
}

static void keep_word(SimWord *w, const char *key, const char *v)
{
    snprintf(w->key, sizeof w->key, "%s", key);
    w->value = v;
}

/* One -spsa key other than form= into o: false if it is none. */
static bool spsa_set(SimOptions *o, const char *key, const char *v, bool *ok)
{
    size_t klen = strlen(key);
    const SpsaNumberKey *nk = NULL;
    uint64_t u = 1;
    if (!strcmp(key, "games"))
        *ok = (o->games_set = cli_parse_u64(v, 1, UINT64_MAX, &o->games));
    else if (!strcmp(key, "pairs-per")) {
        if ((*ok = cli_parse_u64(v, 1, 1000000, &u)))
            o->cfg.pairs_per = (int)u;
    } else if ((nk = spsa_number_key(key, klen)))
        *ok = cli_parse_double(v, nk->min, nk->max, spsa_number_field(&o->cfg, nk));
    else if (!strcmp(key, "narrow")) {
        *ok = cli_parse_u64(v, 0, 1, &u);
        o->cfg.narrow = u != 0;
    } else if (!strcmp(key, "r_end"))
        *ok = cli_parse_double(v, 1e-9, 10, &o->r_end);
    else
        return spsa_own_key(&o->cfg, key, klen, v, ok);
    return true;
}

/* A -spsa word: the numbers run takes, with run's bounds, and the
 * simulator's own.  As in run, form= sets its own schedule first and the
 * keys given stand over it, before form= or after. */
static int spsa_word(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    SimOptions *o = ctx;
    bool ok = true;
    if (strcmp(key, "games") && strcmp(key, "pairs-per"))
        o->custom = true;
    if (!strcmp(key, "form")) {
        SpsaForm f;
        ok = !spsa_form_parse(v, &f);
        if (ok) {
            spsa_config_set_form(&o->cfg, f);
            for (size_t i = 0; i < o->nskeys; i++)
                spsa_set(o, o->sword[i].key, o->sword[i].value, &ok);
        }
    } else if (!spsa_set(o, key, v, &ok))
        return errmsg(err, errlen, "%s: unknown key in \"%s=%s\"", opt, key, v);
    else if (ok && o->nskeys < sizeof o->sword / sizeof *o->sword)
        keep_word(&o->sword[o->nskeys++], key, v);
    else if (ok)
        return errmsg(err, errlen, "%s: more than %zu keys", opt, sizeof o->sword / sizeof *o->sword);
    return ok ? 0 : errmsg(err, errlen, "%s: bad value in \"%s=%s\"", opt, key, v);
}

/* A -params word: file=. */
static int params_word(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    if (strcmp(key, "file"))
        return errmsg(err, errlen, "%s: unknown key in \"%s=%s\"", opt, key, v);
    ((SimOptions *)ctx)->spec_file = v;
    return 0;
}

/* A -landscape word: seed= and file= here, the others kept in order for
 * landscape_set (checked when the spec is known). */
static int landscape_word(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    SimOptions *o = ctx;
    if (!strcmp(key, "seed")) {
        o->landscape_seed_set = true;
        if (!cli_parse_u64(v, 0, UINT64_MAX, &o->landscape_seed))
            return errmsg(err, errlen, "%s: bad value in \"%s=%s\"", opt, key, v);
    } else if (!strcmp(key, "file"))
        o->landscape_file = v;
    else if (o->nlkeys >= sizeof o->lword / sizeof *o->lword)
        return errmsg(err, errlen, "-landscape: too many words");
    else
        keep_word(&o->lword[o->nlkeys++], key, v);
    return 0;
}

/* A -design word (every=, games=, final=), checked by design_plan. */
static int design_word(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    SimOptions *o = ctx;
    size_t d = o->ndesign - 1;
    if (o->ndword[d] >= 4)
        return errmsg(err, errlen, "-design: every=F games=N final=M");
    keep_word(&o->design[d][o->ndword[d]++], key, v);
    return 0;
}

/* -design k=v ...: one more schedule. */
static int design_option(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    SimOptions *o = opt->target;
    if (o->ndesign >= sizeof o->design / sizeof *o->design)
        return errmsg(err, errlen, "-design: at most 32 schedules");
    o->ndesign++;
    return cli_leading_key_values(argc, argv, i, design_word, o, err, errlen) < 0 ? -1 : 0;
}

static int help_option(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    (void)opt, (void)argc, (void)argv, (void)i, (void)err, (void)errlen;
    fputs(USAGE, stdout);
    return 1;
}

/* 0: parsed; 1: --help was printed; 2: a usage error, printed. */
static int parse_args(int argc, char **argv, SimOptions *o)
{
    uint64_t concurrency = (uint64_t)o->concurrency, seeds = (uint64_t)o->seeds;
    const CliOpt opts[] = {
        { "--help|-help|-h", CLI_OPT_CALL, .call = help_option },
        { "-quiet", CLI_OPT_FLAG, .target = &o->quiet },
        { "-suite", CLI_OPT_FLAG, .target = &o->suite },
        { "-grid", CLI_OPT_FLAG, .target = &o->grid },
        { "-validation", CLI_OPT_FLAG, .target = &o->validation },
        { "-design", CLI_OPT_CALL, .target = o, .call = design_option },
        { "-params", CLI_OPT_KV_LEADING, .target = o, .kv = params_word },
        { "-spsa", CLI_OPT_KV_LEADING, .target = o, .kv = spsa_word },
        { "-landscape", CLI_OPT_KV_LEADING, .target = o, .kv = landscape_word },
        { "-draw-ratio", CLI_OPT_DOUBLE, .target = &o->draw_ratio, .lo = 0, .hi = 1, .set = &o->draw_set },
        { "-opening-bias", CLI_OPT_DOUBLE, .target = &o->opening_bias, .lo = 0, .hi = 10000, .set = &o->bias_set },
        { "-landscapes", CLI_OPT_STRING, .target = &o->landscapes },
        { "-walk", CLI_OPT_DOUBLE, .target = &o->walk, .lo = -400, .hi = 400 },
        { "-flat", CLI_OPT_DOUBLE, .target = &o->flat, .lo = -400, .hi = 400 },
        { "-collapse", CLI_OPT_DOUBLE, .target = &o->collapse, .lo = -400, .hi = 400 },
        { "-concurrency", CLI_OPT_UINT, .target = &concurrency, .min = 1, .max = 4096 },
        { "-srand", CLI_OPT_UINT, .target = &o->srand, .max = UINT64_MAX },
        { "-seed-base", CLI_OPT_UINT, .target = &o->seed_base, .min = 1, .max = UINT64_MAX },
        { "-seeds", CLI_OPT_UINT, .target = &seeds, .min = 1, .max = 100000, .set = &o->seeds_set },
        { .name = NULL },
    };
    char err[1024];
    int rc = cli_options(opts, CLI_SAY_BAD, argc - 1, argv + 1, NULL, NULL, err, sizeof err);
    o->concurrency = (int)concurrency;
    o->seeds = (int)seeds;
    return rc < 0 ? cli_usage_error("simulate", "simulate", "%s", err) : rc;
}

/* The landscape of the options for the spec ps (its starts may move:
 * start=); the built-in spec's optima unless told otherwise.  Exit code
 * as simulate_main. */
static int build_landscape(const SimOptions *o, SpsaParam *ps, size_t n, bool builtin,
                           SimLandscape *l)
{
    char err[1024];
    if (landscape_init(l, n))
        return 1;
    for (size_t i = 0; builtin && i < n; i++)
        l->opt[i] = BUILTIN[i].opt;
    if (o->landscape_file && landscape_load(l, ps, o->landscape_file, err, sizeof err))
        return cli_usage_error("simulate", "simulate", "-landscape file=%s", err);
    for (size_t w = 0; w < o->nlkeys; w++) {
        char key[64];
        snprintf(key, sizeof key, "%s", o->lword[w].key);
        if (landscape_set(l, ps, key, o->lword[w].value, err, sizeof err))
            return cli_usage_error("simulate", "simulate", "%s", err);
    }
    if (landscape_finish(l, ps, o->landscape_seed_set ? o->landscape_seed : o->srand, err,
                         sizeof err))
        return cli_usage_error("simulate", "simulate", "%s", err);
    return 0;
}

static void print_report(const SpsaParam *ps, size_t n, const double *opt, const double *x,
                         const SimResult *r, uint64_t seed)
{
    printf("seed %" PRIu64 ": %" PRIu64 " games (W %" PRIu64 " L %" PRIu64 " D %" PRIu64
           "), Elo loss %.3f -> %.3f (exported integers %.3f)\n",
           seed, r->games, r->wins, r->losses, r->draws, r->start_loss, r->loss, r->loss_int);
    printf("  %-24s %9s %9s %9s %9s %8s\n", "parameter", "start", "final", "optimum",
           "distance", "/c_end");
    for (size_t i = 0; i < n; i++)
        printf("  %-24s %9.2f %9.2f %9.2f %+9.2f %+8.2f\n", ps[i].name, ps[i].start, x[i],
               opt[i], x[i] - opt[i], (x[i] - opt[i]) / ps[i].c_end);
}

/* One -design's words into a schedule for a budget of `total` games (validate_plan). */
static int design_plan(const SimOptions *o, size_t d, uint64_t total, Validation *v, char *label, size_t len)
{
    double every = 0;
    int64_t count[2] = { -1, -1 };
    char err[256];
    label[0] = '\0';
    for (size_t w = 0; w < o->ndword[d]; w++) {
        const char *key = o->design[d][w].key, *val = o->design[d][w].value;
        uint64_t u = 0;
        bool ok;
        if (!strcmp(key, "every"))
            ok = cli_parse_double(val, 0.001, 1, &every);
        else if (!strcmp(key, "games") || !strcmp(key, "final")) {
            ok = cli_parse_u64(val, 0, 1000000000ULL, &u);
            count[key[0] == 'f'] = (int64_t)u;
        } else
            return cli_usage_error("simulate", "simulate", "-design: unknown key in \"%s=%s\" (every, games, final)", key, val);
        if (!ok)
            return cli_usage_error("simulate", "simulate", "-design: bad value in \"%s=%s\"", key, val);
        snprintf(label + strlen(label), len - strlen(label), "%s%s=%s", w ? " " : "", key, val);
    }
    memset(v, 0, sizeof *v);
    if (validate_plan(v, every, count[0], count[1], total, err, sizeof err) < 0)
        return cli_usage_error("simulate", "simulate", "-design: %s", err);
    if (v->every <= 0)
        return cli_usage_error("simulate", "simulate", "-design %s: no validation", label);
    return 0;
}

static int simulate_validation(const SimOptions *o)
{
    uint64_t total = o->games_set ? o->games : 20000;
    int seeds = o->seeds_set ? o->seeds : 10000;
    uint64_t seed0 = o->seed_base ? o->seed_base : 1;
    ValPowerConf c = { .budget = total, .walk = o->walk, .flat = o->flat, .collapse = o->collapse, .seed0 = seed0, .seeds = seeds };
    printf("simulate -validation: %llu tuning games, seeds %llu..%llu, pentanomial shape [%g, %g, %g, %g, %g]; "
           "the final point's verdict: a loss when the values walk to %+g Elo, a gain at a flat %+g Elo; an earlier "
           "point's warning at a flat %+g Elo\n",
           (unsigned long long)total, (unsigned long long)seed0, (unsigned long long)(seed0 + (uint64_t)seeds - 1),
           VALPOWER_NIGHT_PTNML[0], VALPOWER_NIGHT_PTNML[1], VALPOWER_NIGHT_PTNML[2], VALPOWER_NIGHT_PTNML[3],
           VALPOWER_NIGHT_PTNML[4], o->walk, o->flat, o->collapse);
    printf("%-42s %6s %6s %6s %6s %6s %6s %6s %6s | %7s %7s %6s %6s %7s %7s %6s\n", "schedule", "points", "games",
           "final", "+/-", "walk", "flat", "null", "early", "best", "best", "best", "best", "corr", "corr", "corr");
    printf("%-42s %6s %6s %6s %6s %6s %6s %6s %6s | %7s %7s %6s %6s %7s %7s %6s\n", "", "", "", "games", "final",
           "loss", "gain", "sig", "warn", "mean", "median", "SE", ">0", "mean", "median", ">2SE");
    for (size_t d = 0; d <= o->ndesign; d++) {
        Validation v;
        char label[128], err[256];
        if (d == 0) {
            memset(&v, 0, sizeof v);
            validate_plan(&v, 0, -1, -1, total, err, sizeof err);
            snprintf(label, sizeof label, "default (every=%g games=%llu final=%llu)", v.every,
                     (unsigned long long)v.games, (unsigned long long)v.final);
        } else {
            int rc = design_plan(o, d - 1, total, &v, label, sizeof label);
            if (rc)
                return rc;
        }
        ValPowerResult r;
        if (valpower_run(&v, &c, &r, err, sizeof err) < 0) {
            fprintf(stderr, "simulate: %s\n", err);
            return 2;
        }
        printf("%-42s %6llu %6llu %6llu %6.1f %5.1f%% %5.1f%% %5.1f%% %5.1f%% | %+7.2f %+7.2f %6.2f %5.1f%% %+7.2f %+7.2f %5.1f%%\n",
               label, (unsigned long long)r.points, (unsigned long long)r.games,
               (unsigned long long)r.final_games, r.final_err, 100 * r.walk_loss, 100 * r.flat_gain,
               100 * (r.null_loss + r.null_gain), 100 * r.early_warning, r.best_mean, r.best_median, r.best_se, 100 * r.best_excludes0,
               r.corr_mean, r.corr_median, 100 * r.corr_above0);
        fflush(stdout);
    }
    return 0;
}

int simulate_main(int argc, char **argv)
{
    SimOptions o;
    memset(&o, 0, sizeof o);
    spsa_config_default(&o.cfg);
    spsa_config_set_form(&o.cfg, SPSA_FORM_DEFAULT);
    o.games = 100000;
    o.draw_ratio = SIM_DRAW_RATIO;
    o.opening_bias = SIM_OPENING_BIAS;
    o.concurrency = 1;
    o.srand = 1;
    o.seeds = 1;
    o.walk = -20;
    o.flat = 25;
    o.collapse = -50;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (o.validation)
        return simulate_validation(&o);
    if (o.ndesign)
        return cli_usage_error("simulate", "simulate", "-design goes with -validation");
    if (o.grid || o.suite) {
        SimSuiteOptions so = {o.cfg, o.custom, o.r_end,
                              o.seeds_set ? o.seeds : SIM_SUITE_SEEDS,
                              o.draw_set ? o.draw_ratio : SIM_DRAW_RATIO,
                              o.bias_set ? o.opening_bias : SIM_OPENING_BIAS,
                              o.landscapes};
        if (o.grid)
            return simulate_grid_run(&so, o.seed_base ? o.seed_base : 1001, o.games_set ? o.games : 10000);
        return simulate_suite_run(&so);
    }
    if (o.landscapes)
        return cli_usage_error("simulate", "simulate", "-landscapes goes with -suite");
    spsa_config_set_games(&o.cfg, o.games);

    char err[1024];
    SpsaParam *ps = NULL;
    size_t n = 0;
    bool builtin = !o.spec_file;
    if (builtin) {
        n = NBUILTIN;
        ps = calloc(n, sizeof *ps);
        if (!ps)
            return 1;
        for (size_t i = 0; i < n; i++) {
            snprintf(ps[i].name, sizeof ps[i].name, "%s", BUILTIN[i].name);
            ps[i].start = ps[i].theta = BUILTIN[i].start;
            ps[i].min = BUILTIN[i].min;
            ps[i].max = BUILTIN[i].max;
            ps[i].c_end = BUILTIN[i].c_end;
            ps[i].r_end = BUILTIN[i].r_end;
        }
    } else if (spec_load(o.spec_file, &ps, &n, err, sizeof err)) {
        fprintf(stderr, "simulate: %s\n", err);
        return 2;
    }

    for (size_t i = 0; o.r_end > 0 && i < n; i++)
        ps[i].r_end = o.r_end;
    SimLandscape land;
    memset(&land, 0, sizeof land);
    double *x = calloc(n, sizeof *x);
    double *losses = calloc((size_t)o.seeds, sizeof *losses);
    double *losses_int = calloc((size_t)o.seeds, sizeof *losses_int);
    double *dist = calloc((size_t)o.seeds * n, sizeof *dist);
    rc = 1;
    if (!x || !losses || !losses_int || !dist)
        goto done;
    rc = build_landscape(&o, ps, n, builtin, &land);
    if (rc)
        goto done;
    rc = 1;
    /* the command line's -draw-ratio and -opening-bias, else the file's, else the measured defaults */
    if (!o.draw_set && !isnan(land.draw_ratio))
        o.draw_ratio = land.draw_ratio;
    if (!o.bias_set && !isnan(land.opening_bias))
        o.opening_bias = land.opening_bias;
    const double *opt = land.opt;
    SimModel m = landscape_model(&land, o.draw_ratio, o.opening_bias, o.concurrency);
    printf("simulate: %zu parameters, %" PRIu64 " games = %" PRIu64
           " iterations of %d pair(s), form %s, A-ratio %g, alpha %g, gamma %g%s, draw ratio %g, "
           "opening bias %g, concurrency %d\n",
           n, o.games, o.cfg.iterations, o.cfg.pairs_per, spsa_form_name(o.cfg.form),
           o.cfg.A_ratio, o.cfg.alpha, o.cfg.gamma, o.cfg.average > 0 ? ", averaging" : "",
           o.draw_ratio, o.opening_bias, o.concurrency);
    for (int s = 0; s < o.seeds; s++) {
        uint64_t seed = o.srand + (uint64_t)s;
        SimResult r;
        FILE *progress = o.quiet || o.seeds > 1 ? NULL : stdout;
        if (sim_run(ps, n, &o.cfg, &m, seed, x, &r, progress, err, sizeof err)) {
            fprintf(stderr, "simulate: %s\n", err);
            rc = 2;
            goto done;
        }
        if (o.seeds == 1)
            print_report(ps, n, opt, x, &r, seed);
        else
            printf("seed %" PRIu64 ": Elo loss %.3f -> %.3f (exported integers %.3f)\n", seed,
                   r.start_loss, r.loss, r.loss_int);
        fflush(stdout);
        losses[s] = r.loss;
        losses_int[s] = r.loss_int;
        for (size_t i = 0; i < n; i++)
            dist[i * (size_t)o.seeds + (size_t)s] = fabs(x[i] - opt[i]);
    }
    if (o.seeds > 1) {
        printf("median |distance| from the optimum over %d seeds:\n", o.seeds);
        for (size_t i = 0; i < n; i++) {
            double d = gsl_stats_median(&dist[i * (size_t)o.seeds], 1, (size_t)o.seeds);
            printf("  %-24s %9.2f  (%5.2f c_end)\n", ps[i].name, d, d / ps[i].c_end);
        }
        double ml = gsl_stats_median(losses, 1, (size_t)o.seeds);
        double mi = gsl_stats_median(losses_int, 1, (size_t)o.seeds);
        printf("median over %d seeds: Elo loss %.3f (exported integers %.3f) after %" PRIu64
               " games\n",
               o.seeds, ml, mi, spsa_budget_games(&o.cfg));
    }
    rc = 0;
done:
    free(ps);
    landscape_free(&land);
    free(x);
    free(losses);
    free(losses_int);
    free(dist);
    return rc;
}
