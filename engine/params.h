/* The search's tunable constants, from the one list in params.def, and the
 * faces of that list: UCI spin options, the JSON spec, the SPSA input lines.
 *
 * Runtime build (default): each parameter is a global `int Name`, changed
 * by setoption (or a value file) and validated against its range; derived
 * tables (LMR reductions, LMP limits) are rebuilt after every change.
 *
 * Baked build (-DPARAMS_BAKED): each parameter is `static const int Name`
 * taken from the generated header params_baked.h, which must define
 * `BAKED_<Name>` for every parameter and `PARAMS_BAKED_TAG` (a short string
 * naming the value file, e.g. its hash).  Setting a parameter then fails
 * with a message that the build is baked. */
#ifndef RATCHET_PARAMS_H
#define RATCHET_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef PARAMS_BAKED
#include "params_baked.h"
#define PARAM(name, def, lo, hi, c_end, r_end, desc) static const int name = BAKED_##name;
#else
#define PARAM(name, def, lo, hi, c_end, r_end, desc) extern int name;
#endif
#include "params.def"
#undef PARAM

/* PARAM_ID_<Name> indexes param_specs[]. */
enum {
#define PARAM(name, def, lo, hi, c_end, r_end, desc) PARAM_ID_##name,
#include "params.def"
#undef PARAM
    PARAM_COUNT
};

typedef struct {
    const char *name;
    const char *desc;
    int def, min, max;
    double c_end, r_end;
} ParamSpec;

extern const ParamSpec param_specs[PARAM_COUNT];

/* Tables derived from the parameters, for the search: the late move
 * reduction in centi-plies ([noisy][depth][move number]) and the late move
 * pruning limit in moves ([improving][depth], depths 0..12: LmpDepth's
 * range).  params_init() builds them; every change of a value rebuilds
 * them. */
#define LMR_DIM 64
#define LMP_DIM 13
extern int params_lmr_table[2][LMR_DIM][LMR_DIM];
extern int params_lmp_table[2][LMP_DIM];

/* Builds the derived tables; call once at start-up (after rules_init). */
void params_init(void);

bool params_baked(void);
/* The baked value file's tag, or NULL in a runtime build. */
const char *params_baked_tag(void);

/* Index of a parameter by name (case-insensitive, as UCI option names are),
 * or -1. */
int param_index(const char *name);
int param_get(int i);
/* The technique group: the CamelCase prefix of the name ("Lmr", "Lbr"). */
void param_group(int i, char *buf, size_t len);

/* 0 if value is allowed for parameter i, else -1 with a message in err. */
int param_check(int i, long value, char *err, size_t errlen);
/* Validates and sets one value, then rebuilds the derived tables.  On error
 * returns -1 with a message and the value is unchanged. */
int param_set(int i, long value, char *err, size_t errlen);
/* Sets every parameter at once (values[PARAM_COUNT]): all are validated
 * before any is applied, so a bad set changes nothing. */
int params_set_all(const int *values, char *err, size_t errlen);
/* Back to the defaults of the list. */
void params_reset(void);

/* `option name X type spin default D min A max B` for every parameter
 * (nothing in a baked build). */
void params_print_uci(FILE *out);
/* The spec as JSON text (caller frees with free()); NULL on allocation
 * failure. */
char *params_spec_json(void);
/* OpenBench/fishtest SPSA input: `name, int, value, min, max, c_end, r_end`. */
void params_print_spsa(FILE *out);

#endif
