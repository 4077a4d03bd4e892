/* ratchet-texel: fits the evaluation's weights (engine/eval_weights.h) to
 * game results by the Texel method and writes them back as that header.
 *
 * The positions come from PGN files as bin/ratchet-tune writes them (runs'
 * games.pgn, match -pgnout): each game is replayed with the engine's board
 * code and its quiet positions (not in check, the quiescence search
 * returns the static evaluation), past the first plies and before the tail
 * of an adjudicated game, are labelled with the game's result for White.
 * K of sigmoid(K * eval) is fitted first, then the weights minimising the
 * mean squared error on nine games in ten; every tenth game is held out
 * and its MSE printed before and after.  See tools/texel/ for the parts. */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cliutil.h"
#include "errmsg.h"
#include "rd.h"
#include "texel/dataset.h"
#include "texel/fit.h"
#include "texel/weights.h"

typedef struct {
    const char *pattern;
    bool free;
    bool ridge; /* a -r rule: pattern=lambda */
} Rule;

typedef struct {
    const char *out, *table;
    const char **epd;
    int nepd;
    Rule *rules;
    int nrules;
    ExtractOptions ex;
    double K;      /* 0: fit it */
    int maxiter;
    bool quiet;
} Options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: ratchet-texel [options] GAMES.pgn... [-e POSITIONS.epd]\n"
        "\n"
        "Fits the evaluation's weights (engine/eval_weights.h) to game results by the\n"
        "Texel method: K of sigmoid(K * eval) first, then the weights that minimise\n"
        "the mean squared error against the results, with GSL's nonlinear least\n"
        "squares.  Every tenth game is held out; its MSE is printed before and after.\n"
        "The header holds integers: the fitted values are rounded to the nearest.\n"
        "\n"
        "  -o, --out FILE          write the fitted weights as a header (temporary file,\n"
        "                          fsync, rename); rebuild with it as engine/eval_weights.h\n"
        "  -e, --epd FILE          also read positions with results (1-0, 0-1, 1/2-1/2,\n"
        "                          quoted or not, or [1.0] [0.5] [0.0] after the FEN),\n"
        "                          or with an expected score in [0, 1] such as [0.73]\n"
        "                          (e.g. a stronger engine's win + draw / 2)\n"
        "  -s, --skip N            plies at the start of a game not used (default 8)\n"
        "  -a, --adj-tail N        plies not used at the end of an adjudicated game\n"
        "                          (default 8: the result was decided there)\n"
        "  -g, --max-games N       read at most N games in all (default: every game)\n"
        "  -A, --all-positions     keep positions that are not quiet too\n"
        "  -f, --fix PATTERN       keep the matching weights as they are (a shell pattern on\n"
        "                          the name, e.g. '*Value'; NAME:mg or NAME:eg for one phase)\n"
        "  -F, --free PATTERN      fit the matching weights too (e.g. the EVAL_REF levels)\n"
        "                          -f and -F apply in the order given\n"
        "  -r, --ridge PATTERN=L   ridge: add L * (value / 100)^2 per matching weight and\n"
        "                          phase to the error, which holds a weight the data\n"
        "                          barely sees near 0 (e.g. 'Pst*=0.0005' for the tables)\n"
        "  -k, --k VALUE           use this K (per centipawn) instead of fitting it\n"
        "  -i, --iterations N      at most N trust-region iterations (default 100)\n"
        "  -t, --table FILE        a CSV of every weight: before, fitted, rounded\n"
        "  -q, --quiet             no progress lines\n"
        "\n"
        "A game without a result, with an illegal move or a bad FEN is skipped and\n"
        "counted, with a message FILE:LINE.  A file that cannot be read stops the run.\n");
}

static int parse_options(int argc, char **argv, Options *o)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},        {"epd", required_argument, NULL, 'e'},
        {"skip", required_argument, NULL, 's'},       {"adj-tail", required_argument, NULL, 'a'},
        {"max-games", required_argument, NULL, 'g'},  {"all-positions", no_argument, NULL, 'A'},
        {"fix", required_argument, NULL, 'f'},        {"free", required_argument, NULL, 'F'},
        {"k", required_argument, NULL, 'k'},          {"ridge", required_argument, NULL, 'r'},
        {"iterations", required_argument, NULL, 'i'},
        {"table", required_argument, NULL, 't'},      {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0}};
    int c;
    long v;
    char *end;
    while ((c = getopt_long(argc, argv, "o:e:s:a:g:Af:F:r:k:i:t:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 't': o->table = optarg; break;
        case 'e': o->epd[o->nepd++] = optarg; break;
        case 's':
            if (cli_long_arg("ratchet-texel", "--skip", optarg, 0, 1000, &v))
                return -1;
            o->ex.skip_plies = (int)v;
            break;
        case 'a':
            if (cli_long_arg("ratchet-texel", "--adj-tail", optarg, 0, 1000, &v))
                return -1;
            o->ex.adj_tail = (int)v;
            break;
        case 'g':
            if (cli_long_arg("ratchet-texel", "--max-games", optarg, 1, 1000000000L, &v))
                return -1;
            o->ex.max_games = v;
            break;
        case 'i':
            if (cli_long_arg("ratchet-texel", "--iterations", optarg, 1, 100000, &v))
                return -1;
            o->maxiter = (int)v;
            break;
        case 'A': o->ex.all_positions = true; break;
        case 'q': o->quiet = true; break;
        case 'f':
        case 'F':
            o->rules[o->nrules++] = (Rule){optarg, c == 'F', false};
            break;
        case 'r':
            o->rules[o->nrules++] = (Rule){optarg, false, true};
            break;
        case 'k':
            errno = 0;
            o->K = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o->K > 0) || o->K > 1) {
                fprintf(stderr, "ratchet-texel: --k wants a number in (0, 1], got '%s'\n", optarg);
                return -1;
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind >= argc && o->nepd == 0) {
        fprintf(stderr, "ratchet-texel: no PGN or EPD file given\n");
        usage(stderr);
        return -1;
    }
    return 0;
}

/* Applies the -f/-F rules in order. */
static int apply_rules(const Options *o, TexelFree *fr)
{
    for (int r = 0; r < o->nrules; r++) {
        char pat[128];
        snprintf(pat, sizeof pat, "%s", o->rules[r].pattern);
        double lambda = 0;
        if (o->rules[r].ridge) {
            char *eq = strrchr(pat, '='), *end;
            errno = 0;
            if (eq)
                lambda = strtod(eq + 1, &end);
            if (!eq || errno || end == eq + 1 || *end || !(lambda >= 0) || !isfinite(lambda)) {
                fprintf(stderr, "ratchet-texel: --ridge '%s': want PATTERN=LAMBDA with LAMBDA >= 0\n",
                        o->rules[r].pattern);
                return -1;
            }
            *eq = '\0';
        }
        bool mg = true, eg = true;
        char *colon = o->rules[r].ridge ? NULL : strchr(pat, ':');
        if (colon) {
            *colon = '\0';
            mg = !strcmp(colon + 1, "mg");
            eg = !strcmp(colon + 1, "eg");
            if (!mg && !eg) {
                fprintf(stderr, "ratchet-texel: '%s': the phase after ':' must be mg or eg\n", o->rules[r].pattern);
                return -1;
            }
        }
        int matched = 0;
        for (size_t k = 0; k < texel_nweights; k++) {
            const WeightInfo *w = &texel_weights[k];
            if (fnmatch(pat, w->name, 0) != 0)
                continue;
            matched++;
            if (o->rules[r].ridge) {
                if (w->index >= 0)
                    fr->ridge[w->index] = lambda;
                continue;
            }
            if (w->kind == WK_SHAPE) {
                if (o->rules[r].free) {
                    fprintf(stderr, "ratchet-texel: %s is a shape constant (the evaluation is not linear in it); "
                            "it cannot be fitted\n", w->name);
                    return -1;
                }
                continue;
            }
            if (mg)
                fr->mg[w->index] = o->rules[r].free;
            if (eg && w->kind != WK_FLAT)
                fr->eg[w->index] = o->rules[r].free;
        }
        if (!matched) {
            fprintf(stderr, "ratchet-texel: no weight matches '%s' (see engine/eval_weights.h)\n", o->rules[r].pattern);
            return -1;
        }
    }
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_stats(const char *what, const ExtractStats *s)
{
    printf("%s: %ld games read, %ld gave positions, %ld skipped without a result, %ld skipped for a bad move or FEN\n"
           "  %ld positions: %ld in the opening plies, %ld in adjudicated tails, %ld in check or without moves,\n"
           "  %ld not quiet, %ld kept\n",
           what, s->games, s->used, s->no_result, s->bad, s->positions, s->opening, s->adjudicated, s->in_check,
           s->not_quiet, s->kept);
}

static int write_table(const char *path, const TexelWeights *before, const TexelWeights *fitted, const int *rmg,
                       const int *reg, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return errmsg(err, errlen, "%s: out of memory", path);
    fprintf(f, "name,kind,mg_before,mg_fitted,mg_rounded,eg_before,eg_fitted,eg_rounded\n");
    static const char *const kinds[] = {"tapered", "reference", "flat", "shape"};
    for (size_t k = 0; k < texel_nweights; k++) {
        const WeightInfo *w = &texel_weights[k];
        int i = w->index;
        if (i < 0)
            fprintf(f, "%s,%s,%d,%d,%d,,,\n", w->name, kinds[w->kind], w->mg, w->mg, w->mg);
        else if (w->kind == WK_FLAT)
            fprintf(f, "%s,%s,%.0f,%.3f,%d,,,\n", w->name, kinds[w->kind], before->mg[i], fitted->mg[i], rmg[i]);
        else
            fprintf(f, "%s,%s,%.0f,%.3f,%d,%.0f,%.3f,%d\n", w->name, kinds[w->kind], before->mg[i], fitted->mg[i],
                    rmg[i], before->eg[i], fitted->eg[i], reg[i]);
    }
    fclose(f);
    int rc = buf ? rd_write_atomic(path, buf, len, err, errlen) : -1;
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    Options o = {.ex = EXTRACT_DEFAULTS, .maxiter = 100};
    o.epd = calloc((size_t)argc, sizeof *o.epd);
    o.rules = calloc((size_t)argc, sizeof *o.rules);
    if (!o.epd || !o.rules || parse_options(argc, argv, &o) != 0)
        return 2;
    TexelFree fr;
    texel_free_default(&fr);
    if (apply_rules(&o, &fr) != 0)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);

    Dataset d = {0};
    ExtractStats all = {0};
    char err[512];
    double t0 = now();
    for (int k = optind; k < argc + o.nepd; k++) {
        bool pgn = k < argc;
        const char *path = pgn ? argv[k] : o.epd[k - argc];
        ExtractStats st = {0};
        st.games = all.games; /* --max-games counts across files */
        long before = st.games;
        int rc = pgn ? dataset_add_pgn(&d, path, &o.ex, &st, err, sizeof err)
                     : dataset_add_epd(&d, path, &o.ex, &st, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "ratchet-texel: %s\n", err);
            return 1;
        }
        st.games -= before;
        print_stats(path, &st);
        all.games += st.games, all.used += st.used, all.no_result += st.no_result, all.bad += st.bad;
        all.positions += st.positions, all.opening += st.opening, all.adjudicated += st.adjudicated;
        all.in_check += st.in_check, all.not_quiet += st.not_quiet, all.kept += st.kept;
    }
    double t_read = now() - t0;
    size_t n_train, n_held;
    TexelWeights w0, w;
    texel_weights_compiled(&w0);
    texel_mse(&d, SLICE_TRAIN, &w0, 1e-3, &n_train);
    texel_mse(&d, SLICE_HELDOUT, &w0, 1e-3, &n_held);
    printf("%zu positions of %ld games (%.1f s): %zu to fit, %zu held out (every tenth game)\n", d.n, all.used,
           t_read, n_train, n_held);
    if (n_train == 0) {
        fprintf(stderr, "ratchet-texel: no position to fit\n");
        return 1;
    }

    t0 = now();
    double K = o.K > 0 ? o.K : texel_fit_k(&d, &w0);
    printf("K = %.6f per centipawn (%s)\n", K, o.K > 0 ? "given" : "fitted on the training slice");
    double before_tr = texel_mse(&d, SLICE_TRAIN, &w0, K, NULL), before_ho = texel_mse(&d, SLICE_HELDOUT, &w0, K, NULL);

    w = w0;
    TexelFitReport rep;
    int rc = texel_fit(&d, K, &fr, &w, o.maxiter, o.quiet ? NULL : stdout, &rep);
    double t_fit = now() - t0;
    printf("fitted %d values (%d free ones never seen in the data kept) in %d iterations, %.1f s: %s\n",
           rep.free_params, rep.unseen, rep.iterations, t_fit, rep.stop);
    if (rc != 0) {
        fprintf(stderr, "ratchet-texel: the fit failed: %s; nothing written\n", rep.stop);
        return 1;
    }

    int rmg[EVAL_NWEIGHTS], reg[EVAL_NWEIGHTS];
    TexelWeights wr;
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        wr.mg[i] = rmg[i] = (int)lround(w.mg[i]);
        wr.eg[i] = reg[i] = (int)lround(w.eg[i]);
    }
    double after_tr = texel_mse(&d, SLICE_TRAIN, &w, K, NULL), after_ho = texel_mse(&d, SLICE_HELDOUT, &w, K, NULL);
    double round_tr = texel_mse(&d, SLICE_TRAIN, &wr, K, NULL), round_ho = texel_mse(&d, SLICE_HELDOUT, &wr, K, NULL);
    printf("MSE                 fitted slice   held-out slice\n");
    printf("  before            %.6f       %.6f\n", before_tr, before_ho);
    printf("  after             %.6f       %.6f\n", after_tr, after_ho);
    printf("  after, rounded    %.6f       %.6f\n", round_tr, round_ho);

    printf("changed weights (rounded):\n");
    for (size_t k = 0; k < texel_nweights; k++) {
        const WeightInfo *x = &texel_weights[k];
        int i = x->index;
        if (i < 0 || (rmg[i] == x->mg && (x->kind == WK_FLAT || reg[i] == x->eg)))
            continue;
        if (x->kind == WK_FLAT)
            printf("  %-22s %5d -> %5d\n", x->name, x->mg, rmg[i]);
        else
            printf("  %-22s mg %5d -> %5d   eg %5d -> %5d\n", x->name, x->mg, rmg[i], x->eg, reg[i]);
    }

    if (o.table && write_table(o.table, &w0, &w, rmg, reg, err, sizeof err) != 0) {
        fprintf(stderr, "ratchet-texel: %s\n", err);
        return 1;
    }
    if (o.out) {
        char source[1024];
        int n = snprintf(source, sizeof source, "ratchet-texel fit on %zu positions of %ld games", d.n, all.used);
        n = appendf(source, sizeof source, n, ", K %.6f, held-out MSE %.6f -> %.6f (rounded)", K,
                      before_ho, round_ho);
        if (texel_header_write(o.out, rmg, reg, source, err, sizeof err) != 0) {
            fprintf(stderr, "ratchet-texel: %s\n", err);
            return 1;
        }
        printf("wrote %s: rebuild with it as engine/eval_weights.h, then check the engine with an SPRT\n", o.out);
    }
    dataset_free(&d);
    free(o.epd);
    free(o.rules);
    return 0;
}
