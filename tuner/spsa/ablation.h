/* Random-balance ablation: which groups of tuned parameters pay, judged by
 * one match.  In each game pair, engine 0 plays the tuned values on a random
 * half of the groups and the start values on the rest; engine 1 plays the
 * complement.  With z[g] = +1 when engine 0 has group g tuned (-1 when
 * engine 1 has), the model is
 *
 *     y = mu + sum_g z[g] beta[g] + noise
 *
 * where y is the pair's score difference (engine 0's points minus engine
 * 1's over its two games, -2..2) and beta[g] the score difference a pair of
 * group g tuned against group g at its start would have.  An ordinary least
 * squares fit of y on the +-1 design (GSL's gsl_multifit_linear, with an
 * intercept mu) estimates every beta at once, each with the precision of a
 * single A/B match of the same length.  The model is additive in score: it
 * assumes the groups' effects add, which holds for small effects.
 *
 * The design comes in mirrored couples: pair 2m draws z from a GSL mt19937
 * seeded from (seed, m), pair 2m+1 plays -z, so every group is tuned on
 * engine 0 in exactly half of every couple's games.  The design of a pair
 * is a function of (seed, pair number, number of groups) alone: a resumed
 * or repeated ablation reproduces it.
 *
 * Groups: by default a parameter's technique, the CamelCase prefix of its
 * name (ablation_prefix); or given by name as "name:P1,P2;name2:P3", one
 * group per ';' or per line. */
#ifndef RATCHET_ABLATION_H
#define RATCHET_ABLATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spsa.h"

#define ABL_GROUP_MAX 48

typedef struct {
    char name[ABL_GROUP_MAX];
    char (*params)[SPSA_NAME_MAX]; /* the group's parameters that moved, in the run's order */
    size_t nparams;
} AblGroup;

typedef struct {
    AblGroup *g;
    size_t n;
} AblGroups;

void ablation_groups_free(AblGroups *gs);

/* The technique of a parameter name: its first character and the
 * lower-case letters and digits after it ("LmrQuietBase" -> "Lmr",
 * "Rule50Plies" -> "Rule50", "QsSeeEnabled" -> "Qs"). */
void ablation_prefix(const char *name, char *out, size_t len);

/* The groups of the parameters names[0..n-1] (the run's, in its order) whose
 * moved[i] is true.  spec NULL or "auto": one group per technique prefix, in
 * order of first appearance.  Otherwise "name:P1,P2;name2:P3" (';' or a line
 * end between groups, ',' or blanks between names, '#' to the end of a line
 * a comment); origin names the text in messages ("groups.txt" for a file,
 * "groups=" for the option).  A name that is not among names[], a parameter
 * in two groups, a group without a name or twice the same group name is an
 * error; a named parameter that did not move is left out, and a group left
 * with none is dropped (a note into note, "" when none).  -1 with a message
 * (naming origin and its line), or 0; at least one group on success. */
int ablation_groups(const char *spec, const char *origin, const char *const *names, const bool *moved, size_t n,
                    AblGroups *out, char *note, size_t notelen, char *err, size_t errlen);

/* The design of pair k: z[0..ngroups-1] = +1 (engine 0 plays the group's
 * tuned values) or -1 (engine 1 does). */
void ablation_design(uint64_t seed, uint64_t k, size_t ngroups, signed char *z);
/* Whole pairs, the additivity check: with every > 0, every every-th couple
 * (m % every == every - 1) is whole: its pair 2m plays all groups tuned on
 * engine 0 against all at their start (w = +1), pair 2m+1 the mirror (w =
 * -1); other pairs w = 0.  Under the additive model a whole pair is the
 * design z = (w, ..., w), so one more regressor w estimates the gap
 * between the whole and the sum of the groups' estimates: 0 when the
 * effects add, negative with diminishing returns. */
int ablation_whole(uint64_t k, unsigned every);
/* The design of pair k with whole pairs every `every` couples (0: none). */
void ablation_design_of(uint64_t seed, uint64_t k, size_t ngroups, unsigned every, signed char *z);
/* The design as text, '+' or '-' per group (len > ngroups). */
void ablation_design_text(const signed char *z, size_t ngroups, char *buf, size_t len);

enum { ABL_UNCLEAR = 0, ABL_PAYS = 1, ABL_COSTS = -1 };

typedef struct {
    double beta, se;            /* the pair score difference of the group, and its standard error */
    double elo, elo_lo, elo_hi; /* beta as logistic Elo (score 0.5 + beta / 4 per game) and its 95% interval */
    int verdict;                /* ABL_PAYS when the interval lies above 0, ABL_COSTS below, else ABL_UNCLEAR */
} AblEffect;

typedef struct {
    double mu, mu_se;           /* the intercept: engine 0's edge whatever the design (0 expected) */
    double sigma;               /* the residuals' standard deviation */
    size_t pairs;
    double sum, sum_se;         /* the sum of the groups' betas: the additive model's whole */
    size_t whole_pairs;         /* pairs with w != 0; 0: no gap estimated */
    double gap, gap_se;         /* the whole pairs' score difference minus the sum */
    double whole, whole_se;     /* sum + gap: all tuned against all start, as measured */
    double t;                   /* the t quantile of the 95% intervals */
} AblFit;

/* Least squares of y[0..npairs-1] on [1, z, w] (z row-major, npairs x
 * ngroups, +-1; w per pair +-1 for a whole pair, 0 otherwise, or NULL; the
 * w column only when some pair is whole).  Needs npairs >= ngroups + 2 (-1
 * with a message otherwise); a design whose columns are not independent (a
 * group always opposite another) is refused too. */
int ablation_fit(const double *y, const signed char *z, const signed char *w, size_t npairs, size_t ngroups,
                 AblEffect *out, AblFit *fit, char *err, size_t errlen);

/* Logistic Elo of a pair score difference d (per-game score 0.5 + d / 4). */
double ablation_elo(double d);
const char *ablation_verdict_name(int verdict);

#endif
