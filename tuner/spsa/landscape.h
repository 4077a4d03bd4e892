/* A landscape of a user's own for `ratchet-tune simulate`: every feature of
 * the model in simulate.h (per-parameter optimum, curvature, plateau width,
 * skew and c_end error; couplings between pairs; the draw ratio and opening
 * bias), from `-landscape key=value` words and from a JSON file
 * (`-landscape file=L.json`), for the parameters of a spec.
 *
 * The JSON file (every key optional; an unknown key is an error):
 *   {
 *     "draw_ratio": 0.25,            draw probability of an even game
 *     "opening_bias": 80,            std dev in Elo of an opening's White advantage
 *     "params": {
 *       "NAME": {                    a parameter of the spec, by name
 *         "optimum": 150 | "min+2" | "max-3" | "min" | "max" | "random",
 *                                    a value, or Z c_end inside a bound
 *         "curvature": 1,            Elo lost one unit from the optimum (>= 0)
 *         "width": 0,                plateau width in units (0 = quadratic)
 *         "skew": 0,                 curvature (1 + skew) above the optimum and
 *                                    (1 - skew) below it, -1 < skew < 1
 *         "scale": 1,                the spec's c_end is `scale` units: the
 *                                    landscape's unit is c_end / scale (3 = the
 *                                    spec's c_end is 3x too large)
 *         "start": 120 | "optimum"   where the run starts (default: the spec's value)
 *       }
 *     },
 *     "couplings": [ {"a": "NAME", "b": "NAME", "k": 0.5} ]
 *                                    Elo loss += k z_a z_b, z in units;
 *                                    |k| < 2 sqrt(curv_a curv_b)
 *   }
 * The command line takes the same per parameter as comma lists of one value
 * for all or one per parameter, in the spec's order: optimum=, curvature=,
 * width=, skew=, scale=, start=optimum|V,...; and coupling=A:B:K,... with A
 * and B names or 0-based indices.  Words are applied after the file, in order.
 * A parameter whose optimum nobody gives gets one at random (simulate.h).
 */
#ifndef RATCHET_LANDSCAPE_H
#define RATCHET_LANDSCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simulate.h"

typedef struct {
    size_t n;
    double *opt;         /* NAN until given */
    double *curv, *skew, *width, *scale;
    double *start;       /* NAN = the spec's value */
    bool *start_at_opt;  /* "start": "optimum" */
    size_t ncouplings;
    SimCoupling *couplings;
    double draw_ratio;   /* NAN = not given */
    double opening_bias; /* NAN = not given */
} SimLandscape;

/* Defaults for n parameters: curvature 1, quadratic, no skew, scale 1, no
 * optimum yet, the spec's start.  0, or -1 when out of memory. */
int landscape_init(SimLandscape *l, size_t n);
void landscape_free(SimLandscape *l);

/* One -landscape word (key, value) for the spec's parameters ps[0..n).
 * Keys: optimum curvature width skew scale start coupling.  0, or -1 with
 * a message naming the key and the parameter. */
int landscape_set(SimLandscape *l, const SpsaParam *ps, const char *key, const char *value,
                  char *err, size_t errlen);

/* The JSON text of a landscape file (fname names it in messages). */
int landscape_parse_json(SimLandscape *l, const SpsaParam *ps, const char *text,
                         const char *fname, char *err, size_t errlen);
int landscape_load(SimLandscape *l, const SpsaParam *ps, const char *path, char *err,
                   size_t errlen);

/* Fills each optimum not given with start + c_end * uniform(-3, 3), rounded
 * and clipped (GSL, from seed), moves the starts that were asked for into
 * ps[].theta/start, and checks the whole (couplings' strength, optima and
 * starts inside the bounds).  0, or -1 with a message. */
int landscape_finish(SimLandscape *l, SpsaParam *ps, uint64_t seed, char *err, size_t errlen);

/* The model of a finished landscape (pointers into l). */
SimModel landscape_model(const SimLandscape *l, double draw_ratio, double opening_bias,
                         int concurrency);

#endif
