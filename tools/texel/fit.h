/* The Texel method: the mean squared error between the game results and
 * sigmoid(K * eval), K fitted first, then the weights that minimise it. */
#ifndef RATCHET_TEXEL_FIT_H
#define RATCHET_TEXEL_FIT_H

#include <stdbool.h>
#include <stdio.h>

#include "dataset.h"

/* Values of the linear weights (EW_ index); a flat weight uses mg only. */
typedef struct {
    double mg[EVAL_NWEIGHTS], eg[EVAL_NWEIGHTS];
} TexelWeights;

/* Which of them the fit may move. */
typedef struct {
    bool mg[EVAL_NWEIGHTS], eg[EVAL_NWEIGHTS];
    /* Ridge: lambda of weight i, 0 for none.  The fit minimises the MSE plus
     * lambda * (value / 100)^2 for each of its free phases, which pulls a
     * weight the data barely sees (a rare square of a table) toward 0. */
    double ridge[EVAL_NWEIGHTS];
} TexelFree;

typedef enum { SLICE_TRAIN, SLICE_HELDOUT, SLICE_ALL } TexelSlice;

/* The values compiled into this build (engine/eval_weights.h). */
void texel_weights_compiled(TexelWeights *w);

/* The default free set: EVAL_W and EVAL_FLAT weights; a flat weight's eg
 * is never free. */
void texel_free_default(TexelFree *f);

/* Position j's evaluation for White, real-valued (eval_trace.h's formula
 * without the truncating divisions). */
double texel_eval(const Dataset *d, size_t j, const TexelWeights *w);

/* Mean of (label - sigmoid(K * eval))^2 over a slice; *count (if given)
 * gets the slice's size.  0 for an empty slice. */
double texel_mse(const Dataset *d, TexelSlice s, const TexelWeights *w, double K, size_t *count);

/* The K in [1e-4, 0.1] that minimises the training slice's MSE (a scan,
 * then GSL's Brent minimiser). */
double texel_fit_k(const Dataset *d, const TexelWeights *w);

typedef struct {
    int iterations;
    int free_params;      /* fitted: free and seen in the training slice */
    int unseen;           /* free but never nonzero in the training slice: left as they were */
    const char *stop;     /* why GSL stopped */
    int status;           /* GSL_SUCCESS or GSL's error */
} TexelFitReport;

/* Fits the free weights on the training slice at fixed K, starting from
 * *w, with GSL's large-scale nonlinear least squares (trust region,
 * Levenberg-Marquardt); progress lines go to `log` if not NULL.  Returns
 * 0, or -1 if GSL failed (rep->status); *w holds the result either way. */
int texel_fit(const Dataset *d, double K, const TexelFree *free, TexelWeights *w, int maxiter, FILE *log,
              TexelFitReport *rep);

#endif
