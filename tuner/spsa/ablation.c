/* Random-balance ablation: groups, the design, the least-squares fit; see
 * ablation.h. */
#include "ablation.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>

#include "errmsg.h"

void ablation_groups_free(AblGroups *gs)
{
    for (size_t i = 0; i < gs->n; i++)
        free(gs->g[i].params);
    free(gs->g);
    gs->g = NULL;
    gs->n = 0;
}

void ablation_prefix(const char *name, char *out, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return;
    if (name[0] && n + 1 < len)
        out[n++] = name[0];
    for (const char *p = name[0] ? name + 1 : name; *p && n + 1 < len; p++) {
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p)))
            break;
        out[n++] = *p;
    }
    out[n] = '\0';
}

static AblGroup *find_group(AblGroups *gs, const char *name)
{
    for (size_t i = 0; i < gs->n; i++)
        if (!strcmp(gs->g[i].name, name))
            return &gs->g[i];
    return NULL;
}

static AblGroup *add_group(AblGroups *gs, const char *name)
{
    AblGroup *ng = realloc(gs->g, (gs->n + 1) * sizeof *ng);
    if (!ng)
        return NULL;
    gs->g = ng;
    AblGroup *g = &gs->g[gs->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    return g;
}

static int add_param(AblGroup *g, const char *name)
{
    char(*np)[SPSA_NAME_MAX] = realloc(g->params, (g->nparams + 1) * sizeof *np);
    if (!np)
        return -1;
    g->params = np;
    snprintf(g->params[g->nparams++], SPSA_NAME_MAX, "%s", name);
    return 0;
}

static int by_prefix(const char *const *names, const bool *moved, size_t n, AblGroups *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (!moved[i])
            continue;
        char pre[ABL_GROUP_MAX];
        ablation_prefix(names[i], pre, sizeof pre);
        AblGroup *g = find_group(out, pre);
        if ((!g && !(g = add_group(out, pre))) || add_param(g, names[i]) < 0)
            return errmsg(err, errlen, "out of memory");
    }
    return 0;
}

/* The parameters of one group, "P1,P2 P3", into g (those that moved). */
static int parse_members(char *list, AblGroup *g, const char *const *names, const bool *moved, size_t n,
                         const AblGroups *gs, const char *where, char *err, size_t errlen)
{
    for (char *tok = strtok(list, ", \t\r"); tok; tok = strtok(NULL, ", \t\r")) {
        size_t k = 0;
        while (k < n && strcmp(names[k], tok) != 0)
            k++;
        if (k == n)
            return errmsg(err, errlen, "%s: group %s: '%s' is not a parameter of the run", where, g->name, tok);
        for (size_t i = 0; i < gs->n; i++)
            for (size_t j = 0; j < gs->g[i].nparams; j++)
                if (!strcmp(gs->g[i].params[j], tok))
                    return errmsg(err, errlen, "%s: '%s' is in group %s and in group %s", where, tok, gs->g[i].name,
                                  g->name);
        if (moved[k] && add_param(g, tok) < 0)
            return errmsg(err, errlen, "out of memory");
    }
    return 0;
}

static void note_add(char *note, size_t notelen, const char *fmt, const char *a)
{
    size_t l = strlen(note);
    if (l + 1 < notelen)
        snprintf(note + l, notelen - l, fmt, a);
}

int ablation_groups(const char *spec, const char *origin, const char *const *names, const bool *moved, size_t n,
                    AblGroups *out, char *note, size_t notelen, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (notelen)
        note[0] = '\0';
    int rc = 0;
    if (!spec || !strcmp(spec, "auto")) {
        rc = by_prefix(names, moved, n, out, err, errlen);
    } else {
        char *text = strdup(spec);
        if (!text)
            return errmsg(err, errlen, "out of memory");
        int line = 1;
        char *p = text;
        /* A group per ';' or line; the line counts for messages. */
        while (rc == 0 && *p) {
            size_t len = strcspn(p, ";\n");
            char end = p[len];
            p[len] = '\0';
            char *hash = strchr(p, '#');
            if (hash)
                *hash = '\0';
            char where[300];
            snprintf(where, sizeof where, "%s, line %d", origin, line);
            char *s = p;
            while (isspace((unsigned char)*s))
                s++;
            if (*s) {
                char *colon = strchr(s, ':');
                if (!colon) {
                    rc = errmsg(err, errlen, "%s: '%s': a group is NAME:P1,P2,... (no ':')", where, s);
                    break;
                }
                *colon = '\0';
                char *e = colon;
                while (e > s && isspace((unsigned char)e[-1]))
                    *--e = '\0';
                if (!*s || strlen(s) >= ABL_GROUP_MAX) {
                    rc = errmsg(err, errlen, "%s: a group needs a name of 1 to %d characters before ':'", where,
                                ABL_GROUP_MAX - 1);
                    break;
                }
                if (find_group(out, s)) {
                    rc = errmsg(err, errlen, "%s: group %s is given twice", where, s);
                    break;
                }
                AblGroup *g = add_group(out, s);
                if (!g) {
                    rc = errmsg(err, errlen, "out of memory");
                    break;
                }
                rc = parse_members(colon + 1, g, names, moved, n, out, where, err, errlen);
            }
            if (end == '\n')
                line++;
            p += len + (end ? 1 : 0);
        }
        free(text);
        /* Groups none of whose parameters moved: nothing to judge. */
        for (size_t i = 0; rc == 0 && i < out->n;) {
            if (out->g[i].nparams) {
                i++;
                continue;
            }
            note_add(note, notelen, "%s", strlen(note) ? ", " : "left out, none of its parameters moved: ");
            note_add(note, notelen, "%s", out->g[i].name);
            free(out->g[i].params);
            memmove(&out->g[i], &out->g[i + 1], (out->n - i - 1) * sizeof *out->g);
            out->n--;
        }
    }
    if (rc == 0 && out->n == 0)
        rc = errmsg(err, errlen, "%s: no group has a parameter that moved from its start value: nothing to ablate",
                    spec && strcmp(spec, "auto") ? origin : "groups=auto");
    if (rc < 0)
        ablation_groups_free(out);
    return rc;
}

/* splitmix64: the seed of couple m's generator from (seed, m). */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void ablation_design(uint64_t seed, uint64_t k, size_t ngroups, signed char *z)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint64_t m = k / 2;
    unsigned long s = (unsigned long)(mix(mix(seed) ^ m) & 0xffffffffu);
    if (r) {
        gsl_rng_set(r, s ? s : 1);
        for (size_t g = 0; g < ngroups; g++)
            z[g] = gsl_rng_uniform_int(r, 2) ? 1 : -1;
        gsl_rng_free(r);
    } else {
        /* No memory for a generator: the mixed bits themselves (still a function of seed and m). */
        for (size_t g = 0; g < ngroups; g++)
            z[g] = (mix(s + g) & 1) ? 1 : -1;
    }
    if (k % 2)
        for (size_t g = 0; g < ngroups; g++)
            z[g] = (signed char)-z[g];
}

int ablation_whole(uint64_t k, unsigned every)
{
    if (every == 0 || (k / 2) % every != every - 1)
        return 0;
    return k % 2 ? -1 : 1;
}

void ablation_design_of(uint64_t seed, uint64_t k, size_t ngroups, unsigned every, signed char *z)
{
    int w = ablation_whole(k, every);
    if (w == 0) {
        ablation_design(seed, k, ngroups, z);
        return;
    }
    for (size_t g = 0; g < ngroups; g++)
        z[g] = (signed char)w;
}

void ablation_design_text(const signed char *z, size_t ngroups, char *buf, size_t len)
{
    size_t i = 0;
    for (; i < ngroups && i + 1 < len; i++)
        buf[i] = z[i] > 0 ? '+' : '-';
    if (len)
        buf[i] = '\0';
}

double ablation_elo(double d)
{
    double s = 0.5 + d / 4;
    if (s <= 0)
        return -INFINITY;
    if (s >= 1)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

const char *ablation_verdict_name(int verdict)
{
    return verdict == ABL_PAYS ? "pays" : verdict == ABL_COSTS ? "costs" : "unclear";
}

int ablation_fit(const double *y, const signed char *z, const signed char *w, size_t npairs, size_t ngroups,
                 AblEffect *out, AblFit *fit, char *err, size_t errlen)
{
    size_t nwhole = 0;
    for (size_t i = 0; w && i < npairs; i++)
        nwhole += w[i] != 0;
    bool gap = nwhole > 0;
    size_t p = ngroups + 1 + (gap ? 1 : 0);
    if (npairs < p + 1)
        return errmsg(err, errlen, "%zu pair%s for %zu group%s: the fit needs at least %zu", npairs,
                      npairs == 1 ? "" : "s", ngroups, ngroups == 1 ? "" : "s", p + 1);
    gsl_matrix *X = gsl_matrix_alloc(npairs, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *Y = gsl_vector_alloc(npairs), *c = gsl_vector_alloc(p);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(npairs, p);
    int rc = 0;
    if (!X || !cov || !Y || !c || !ws) {
        rc = errmsg(err, errlen, "out of memory (a fit of %zu pairs)", npairs);
        goto out;
    }
    for (size_t i = 0; i < npairs; i++) {
        gsl_matrix_set(X, i, 0, 1.0);
        for (size_t g = 0; g < ngroups; g++)
            gsl_matrix_set(X, i, g + 1, z[i * ngroups + g]);
        if (gap)
            gsl_matrix_set(X, i, ngroups + 1, w[i]);
        gsl_vector_set(Y, i, y[i]);
    }
    double chisq;
    if (gsl_multifit_linear(X, Y, c, cov, &chisq, ws) != 0) {
        rc = errmsg(err, errlen, "the least-squares fit failed");
        goto out;
    }
    /* A group whose column is (nearly) a combination of others cannot be told apart. */
    if (gsl_multifit_linear_rank(1e-9, ws) < p) {
        rc = errmsg(err, errlen, "the design of the %zu pairs does not tell the groups apart (more pairs are needed)",
                    npairs);
        goto out;
    }
    /* The standard errors: heteroscedasticity-consistent (White's sandwich,
     * HC1), (X'X)^-1 X' diag(e^2) X (X'X)^-1 n / (n - p).  A pair's variance
     * depends on its design (the strength gap between the two sides), so
     * the plain s^2 (X'X)^-1 that gsl_multifit_linear returns in cov would
     * understate the error of the groups with large effects. */
    double dof = (double)(npairs - p);
    {
        gsl_matrix *inv = gsl_matrix_alloc(p, p), *meat = gsl_matrix_calloc(p, p), *tmp = gsl_matrix_alloc(p, p);
        gsl_vector *r = gsl_vector_alloc(npairs);
        if (!inv || !meat || !tmp || !r) {
            rc = errmsg(err, errlen, "out of memory (a fit of %zu pairs)", npairs);
        } else {
            gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, X, X, 0.0, inv);
            gsl_multifit_linear_residuals(X, Y, c, r);
            for (size_t i = 0; i < npairs; i++) {
                double e2 = gsl_vector_get(r, i) * gsl_vector_get(r, i);
                for (size_t a = 0; a < p; a++)
                    for (size_t b = 0; b < p; b++)
                        *gsl_matrix_ptr(meat, a, b) += e2 * gsl_matrix_get(X, i, a) * gsl_matrix_get(X, i, b);
            }
            if (gsl_linalg_cholesky_decomp1(inv) != 0 || gsl_linalg_cholesky_invert(inv) != 0) {
                rc = errmsg(err, errlen, "the design of the %zu pairs does not tell the groups apart", npairs);
            } else {
                gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, inv, meat, 0.0, tmp);
                gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, (double)npairs / dof, tmp, inv, 0.0, cov);
            }
        }
        gsl_vector_free(r);
        gsl_matrix_free(tmp);
        gsl_matrix_free(meat);
        gsl_matrix_free(inv);
        if (rc < 0)
            goto out;
    }
    double t = gsl_cdf_tdist_Pinv(0.975, dof);
    fit->mu = gsl_vector_get(c, 0);
    fit->mu_se = sqrt(gsl_matrix_get(cov, 0, 0));
    fit->sigma = sqrt(chisq / dof);
    fit->pairs = npairs;
    for (size_t g = 0; g < ngroups; g++) {
        AblEffect *e = &out[g];
        e->beta = gsl_vector_get(c, g + 1);
        e->se = sqrt(gsl_matrix_get(cov, g + 1, g + 1));
        double lo = e->beta - t * e->se, hi = e->beta + t * e->se;
        e->elo = ablation_elo(e->beta);
        e->elo_lo = ablation_elo(lo);
        e->elo_hi = ablation_elo(hi);
        e->verdict = lo > 0 ? ABL_PAYS : hi < 0 ? ABL_COSTS : ABL_UNCLEAR;
    }
    /* The sum of the groups' estimates and its variance 1' Cov 1; with
     * whole pairs, the gap (their coefficient) and the whole, sum + gap. */
    double sum = 0, var_sum = 0, cov_sg = 0;
    for (size_t a = 1; a <= ngroups; a++) {
        sum += gsl_vector_get(c, a);
        for (size_t b = 1; b <= ngroups; b++)
            var_sum += gsl_matrix_get(cov, a, b);
        if (gap)
            cov_sg += gsl_matrix_get(cov, a, ngroups + 1);
    }
    fit->sum = sum;
    fit->sum_se = sqrt(var_sum > 0 ? var_sum : 0);
    fit->whole_pairs = nwhole;
    fit->gap = gap ? gsl_vector_get(c, ngroups + 1) : 0;
    fit->gap_se = gap ? sqrt(gsl_matrix_get(cov, ngroups + 1, ngroups + 1)) : 0;
    double var_whole = var_sum + fit->gap_se * fit->gap_se + 2 * cov_sg;
    fit->whole = sum + fit->gap;
    fit->whole_se = sqrt(var_whole > 0 ? var_whole : 0);
    fit->t = t;
out:
    if (ws)
        gsl_multifit_linear_free(ws);
    gsl_vector_free(c);
    gsl_vector_free(Y);
    gsl_matrix_free(cov);
    gsl_matrix_free(X);
    return rc;
}
