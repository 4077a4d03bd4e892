/* SPSA: the classic fishtest / OpenBench form and the forms far, adam and
 * settle (SpsaForm): the gain schedule, the +/-1 flips, the shared-uniform
 * stochastic rounding of integer values, and the update with the gains of
 * the moment a batch was handed out; with iterate averaging, the
 * per-parameter scale (cfg.adapt) and centre batches (cfg.centre) as
 * options.  Pure math: no files, no printing.  The state holds all a run
 * needs to go on exactly (the GSL RNG and every batch in flight included);
 * the run saves it in its state file (tuner/tuning/spsa_state_json.h).
 * Shared by `ratchet-tune run` and `ratchet-tune simulate`.
 *
 * A pair is two games from one opening with colours swapped, between the
 * `+` engine (engine 0) and the `-` engine (engine 1); an iteration, one
 * batch of pairs_per pairs that play the same two parameter vectors, its
 * number k (1-based) taken when it is handed out; N, the total number of
 * iterations (spsa_iterations_for_games).
 *
 * The formulas of every form, of the scale and of the centre batches, and
 * the measurements behind their defaults: docs/spsa-forms.md, "The forms in
 * formulas".
 *
 * Threading: none inside; the caller serializes access (the match runner
 * calls its hooks under its lock).
 */
#ifndef RATCHET_SPSA_H
#define RATCHET_SPSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* The extension rule in one paragraph, for `resume --help`. */
#define SPSA_EXTEND_HELP                                                              \
    "Extending with -spsa games=N recomputes the gain schedule for the new total:\n"  \
    "N' = ceil(games / (2 * pairs-per)) iterations, A = A-ratio * N',\n"              \
    "c = c_end * N'^gamma and a = r_end * c_end^2 * (A + N')^alpha per parameter;\n"  \
    "theta is kept and the iteration counter k continues, so the run goes on as if\n" \
    "it had been started with N' iterations (c_k, R_k reach c_end, r_end at k = N').\n" \
    "In the rms and adam forms eta (from the budget) and eta_k are recomputed too.\n" \
    "Batches in flight keep the gains they were handed out with.\n"

#define SPSA_NAME_MAX 64

/* The forms of the update (-spsa form=NAME; docs/spsa-forms.md). */
typedef enum {
    SPSA_FORM_CLASSIC = 0,
    SPSA_FORM_RMS,    /* "far" ("rms" before form=settle existed) */
    SPSA_FORM_ADAM,
    SPSA_FORM_SETTLE, /* rms with the settle schedule */
    SPSA_FORM_COUNT
} SpsaForm;
#define SPSA_MIN_C_INT 0.5 /* c_k is clamped to at least this (integer parameters) */

/* Defaults of the non-classic forms. */
#define SPSA_FORM_DEFAULT SPSA_FORM_SETTLE
/* far and adam: the schedule of eta (spsa_config_set_form) */
#define SPSA_DEFAULT_DECAY 1.2
#define SPSA_DEFAULT_BETA1 0.9
#define SPSA_DEFAULT_BETA2 0.999
#define SPSA_DEFAULT_PROBE 4.0
#define SPSA_AUTO_ETA 0.025
#define SPSA_AUTO_ETA_NPOW 1.0
#define SPSA_AUTO_ETA_KPOW 0.5
/* settle: the schedule of eta (spsa_config_set_form) */
#define SPSA_SETTLE_DECAY 0.0
#define SPSA_SETTLE_ETA 0.036
#define SPSA_SETTLE_ETA_KPOW 0.7
#define SPSA_SETTLE_ETA_NPOW 0.5
#define SPSA_SETTLE_PROBE 4.5
#define SPSA_SETTLE_AVERAGE 0.25
/* The per-parameter scale (cfg.adapt), off by default. */
#define SPSA_DEFAULT_ADAPT false
#define SPSA_DEFAULT_ADAPT_RATE 3.0
#define SPSA_DEFAULT_ADAPT_BIAS 0.02
#define SPSA_DEFAULT_ADAPT_WINDOW 0.02
#define SPSA_DEFAULT_SCALE_MIN 0.02
#define SPSA_DEFAULT_SCALE_MAX 10.0
#define SPSA_DEFAULT_SCALE_START 0.1
#define SPSA_ADAPT_MIN_WINDOW 4.0
/* The centre batches (cfg.centre), off by default. */
#define SPSA_DEFAULT_CENTRE 0.0
#define SPSA_DEFAULT_CENTRE_ELO 10.0
#define SPSA_DEFAULT_CENTRE_RATE 1.0
#define SPSA_DEFAULT_CENTRE_WINDOW 0.25
#define SPSA_DEFAULT_CENTRE_MIN 0.1
#define SPSA_CENTRE_MIN_WINDOW 8.0
#define SPSA_CENTRE_WARMUP 4
#define SPSA_CENTRE_Z 2.0
/* Elo per unit of (W - L) / games near an even score: 1600 / ln 10 / 2. */
#define SPSA_ELO_PER_WL 347.43558552260

/* One tuned parameter: the spec plus the moving value and schedule. */
typedef struct {
    char name[SPSA_NAME_MAX];
    double start;        /* value when the run started (the spec's value) */
    double theta;        /* current value, a real number in [min, max] */
    double min, max;     /* bounds: integers unless is_float */
    double c_end, r_end; /* the perturbation and learning rate at the end of the schedule */
    double c, a;         /* schedule constants derived from N (spsa_init / spsa_extend) */
    double avg;          /* theta_avg when the `average` option is on, else theta */
    bool is_float;       /* an OpenBench `float` parameter: never rounded */
    double m;            /* non-classic forms: running mean of the signed result (momentum) */
    double scale;        /* non-classic forms with cfg.adapt: the scale s of c_end (1 otherwise) */
    double e;            /* cfg.adapt: running mean of the normalised signed result */
    double pm;           /* cfg.centre: the probe multiplier p in [centre_min, 1] (1 otherwise) */
    double cm, cq;       /* cfg.centre: running mean and second moment of the centre contrast d */
} SpsaParam;

typedef struct {
    uint64_t games;      /* requested total games (the user's -spsa games=N) */
    uint64_t iterations; /* N; spsa_config_set_games derives it from games and pairs_per */
    int pairs_per;       /* P: game pairs per iteration */
    double A_ratio;      /* A = A_ratio * N; default 0.1 */
    double alpha;        /* default 0.602 */
    double gamma;        /* default 0.101 */
    double average;      /* option: iterate averaging over the last fraction; 0 = off */
    SpsaForm form;       /* SPSA_FORM_CLASSIC unless told otherwise */
    double eta;          /* non-classic: the step at k = N as a fraction of c_end; 0 = from the budget */
    double decay;        /* non-classic: eta_k = eta * ((A + N) / (A + k))^decay */
    double eta_base;     /* non-classic, cfg.eta = 0: eta = eta_base * (8 / n)^eta_npow * (5000 / N)^eta_pow */
    double eta_pow;
    double eta_npow;     /* ... * (8 / n)^eta_npow * ... */
    bool unbiased;       /* adam: the step uses m / (1 - beta1^t) (off in states written before it) */
    double beta1;        /* non-classic: momentum of the signed result (0 = none) */
    double beta2;        /* non-classic: window 1/(1 - beta2) of the second moment */
    double probe;        /* non-classic: c_k is this many times the classic c_k */
    double probe_end;    /* non-classic, simulate only: > 0, the factor goes from probe at k = 1 to
                          * this at k = N, geometrically (0: probe throughout) */
    bool narrow;         /* non-classic: near a bound the probe narrows to the room
                          * between theta and the bound, down to the classic c_k */
    bool adapt;          /* non-classic: a per-parameter scale s of c_end from the games */
    double adapt_rate;   /* cfg.adapt: log s moves rate / W per iteration and unit statistic */
    double adapt_bias;   /* cfg.adapt: the statistic's threshold between shrinking and growing */
    double adapt_window; /* cfg.adapt: the window W = max(this * N, 4) iterations */
    double scale_min, scale_max; /* cfg.adapt: s stays in [scale_min, scale_max] */
    double scale_start;  /* cfg.adapt: s at the start of a run */
    double centre;       /* non-classic: the fraction of centre batches; 0 = none */
    double centre_elo;   /* cfg.centre: the probe's target cost L in Elo */
    double centre_rate;  /* cfg.centre: log p moves rate / Wc per centre batch and unit z */
    double centre_window;/* cfg.centre: Wc = max(this * centre * N, 8) centre batches */
    double centre_min;   /* cfg.centre: p stays in [centre_min, 1] */
} SpsaConfig;

/* One batch handed out: the k it was issued at, and per parameter the gains,
 * the flip and the integer values the two engines play.  Arrays have
 * `nparams` entries and are owned by the batch (spsa_batch_free). */
typedef struct {
    uint64_t k;          /* iteration number, 1-based; also the batch id */
    size_t nparams;
    double *c_k, *R_k;
    int *flip;           /* +1 or -1 */
    double *u;           /* the shared uniform of the rounding */
    double *plus_values; /* engine 0 plays these (integral unless the parameter is a float) */
    double *minus_values;/* engine 1 plays these */
    bool centre;         /* a centre batch (cfg.centre): engine 1 plays theta */
    int *mask;           /* centre batch: 1 = the parameter is perturbed in engine 0, else 0 */
} SpsaBatch;

typedef struct {
    SpsaConfig cfg;
    size_t nparams;
    SpsaParam *params;
    uint64_t k;          /* iterations handed out so far (the last k issued) */
    uint64_t completed;  /* batches applied */
    uint64_t wins, losses, draws; /* totals over applied batches (draws: spsa_batch_apply_wld) */
    uint64_t avg_count;  /* batches folded into theta_avg */
    double v;            /* non-classic forms: running second moment of W - L per batch */
    uint64_t centre_count; /* cfg.centre: centre batches applied */
    gsl_rng *rng;        /* gsl_rng_mt19937: flips and rounding uniforms */
    size_t ninflight;    /* batches handed out and not yet applied, oldest first */
    SpsaBatch *inflight;
} SpsaState;

/* Defaults: pairs_per 1, A_ratio 0.1, alpha 0.602, gamma 0.101, options off,
 * games and iterations 0 (must be set); the classic form, with far's decay
 * and eta rule for the others. */
void spsa_config_default(SpsaConfig *cfg);
/* Sets cfg->form and the form's own settings: decay, eta_base, eta_pow,
 * eta_npow, probe and average (far and adam: 1.2, 0.025, 0.5, 1, 4, 0;
 * settle: SPSA_SETTLE_*).  Call it before setting any of them by hand. */
void spsa_config_set_form(SpsaConfig *cfg, SpsaForm form);
/* N = ceil(games / (2 * pairs_per)), at least 1. */
uint64_t spsa_iterations_for_games(uint64_t games, int pairs_per);
/* Sets cfg->games and cfg->iterations from games and cfg->pairs_per. */
void spsa_config_set_games(SpsaConfig *cfg, uint64_t games);

/* Copies the parameters (theta = start = the given theta), computes the
 * schedule, seeds the RNG.  Checks the config (N >= 1, P >= 1, A_ratio >= 0,
 * alpha > 0, gamma >= 0, average in [0,1)) and every parameter (min <= max,
 * integers unless is_float, theta in range, c_end > 0, r_end > 0, unique non-empty names).
 * 0 on success; -1 with a message naming the parameter and field. */
int spsa_init(SpsaState *st, const SpsaParam *params, size_t nparams,
              const SpsaConfig *cfg, uint64_t seed, char *err, size_t errlen);
void spsa_free(SpsaState *st);

/* "classic", "far", "adam", "settle"; spsa_form_parse also takes "rms", the
 * older name of far.  0, or -1 for an unknown name. */
const char *spsa_form_name(SpsaForm f);
int spsa_form_parse(const char *name, SpsaForm *out);
/* The non-classic forms' step: eta at k = N (cfg.eta, or the form's rule of
 * the budget when cfg.eta is 0), and eta_k at iteration k.  spsa_auto_eta is
 * far's rule. */
double spsa_auto_eta(uint64_t iterations, size_t nparams);
double spsa_eta(const SpsaState *st);
double spsa_eta_k(const SpsaState *st, uint64_t k);

/* Gains of parameter p at iteration k (exposed for reports and tests). */
double spsa_c_k(const SpsaState *st, size_t p, uint64_t k);
double spsa_R_k(const SpsaState *st, size_t p, uint64_t k);
/* The probe of parameter p in a batch of iteration k handed out now: spsa_c_k,
 * narrowed near a bound in the other forms (cfg.narrow); what the
 * batch, history.csv and `status` hold. */
double spsa_probe_c_k(const SpsaState *st, size_t p, uint64_t k);

/* Hands out iteration k = st->k + 1: fills *b (allocating its arrays; free
 * with spsa_batch_free) and records a copy as in flight.
 * 1 = a batch was handed out, 0 = all N iterations are handed out, -1 = out of memory. */
int spsa_batch_begin(SpsaState *st, SpsaBatch *b);

/* Applies the result of the in-flight batch with id b->k: W, L (and D) are the
 * `+` engine's wins, losses (and draws) over the batch's games.  The update
 * uses the gains and flips stored when the batch was handed out.
 * 0 on success, -1 if no batch with that k is in flight (already applied or
 * never handed out): nothing changes. */
int spsa_batch_apply(SpsaState *st, const SpsaBatch *b, uint64_t wins, uint64_t losses);
int spsa_batch_apply_wld(SpsaState *st, const SpsaBatch *b, uint64_t wins, uint64_t losses,
                         uint64_t draws);

/* All N iterations handed out and applied. */
/* The -spsa keys that set a number of SpsaConfig, with their bounds: one
 * table for run (and its state) and simulate. */
typedef struct {
    const char *key;
    size_t offset;      /* of the double in SpsaConfig */
    double min, max;
} SpsaNumberKey;
/* key[0..len) among them, or NULL. */
const SpsaNumberKey *spsa_number_key(const char *key, size_t len);
/* The table, ending with a NULL key. */
extern const SpsaNumberKey SPSA_NUMBER_KEYS[];
/* Every -spsa key: those of SPSA_NUMBER_KEYS and the others (games,
 * pairs-per, form, narrow, adapt), ending with NULL. */
extern const char *const SPSA_KEYS[];
/* The field of cfg that k sets. */
double *spsa_number_field(SpsaConfig *cfg, const SpsaNumberKey *k);

/* The run's budget in games: iterations x 2 games x pairs_per pairs. */
uint64_t spsa_budget_games(const SpsaConfig *c);

bool spsa_done(const SpsaState *st);

/* Copy of the i-th in-flight batch (0 = oldest), to re-issue it after a
 * resume.  0 on success, -1 if i is out of range or out of memory. */
int spsa_inflight_get(const SpsaState *st, size_t i, SpsaBatch *out);

/* Recomputes the schedule for a new total of games (SPSA_EXTEND_HELP).  0 on success, -1 if the new N is smaller than the iterations already
 * handed out. */
int spsa_extend(SpsaState *st, uint64_t new_games, char *err, size_t errlen);

void spsa_batch_free(SpsaBatch *b);
int spsa_batch_copy(SpsaBatch *dst, const SpsaBatch *src);

/* clamp x to [lo, hi] */
double spsa_clip(double x, double lo, double hi);
/* stochastic rounding: floor(x + u), u in [0, 1) */
int spsa_round(double x, double u);
/* The value the engines should use for the current estimate: theta (or
 * theta_avg when averaging is on), clipped, and rounded to the nearest
 * integer unless the parameter is a float. */
double spsa_value(const SpsaState *st, size_t p);

/* What a reader of a saved state needs to rebuild one (the run's state file,
 * tuner/tuning/spsa_state_json.h): spsa_init, then the saved fields, then
 * the batches in flight. */
/* Whether the state's form plays centre batches (cfg.centre > 0, not classic). */
bool spsa_centre_on(const SpsaState *st);
/* x is finite, integral and of size below 2e9: a value an integer parameter may hold. */
bool spsa_is_integer(double x);
/* b zeroed, with room for n parameters; 0, or -1 out of memory. */
int spsa_batch_alloc(SpsaBatch *b, size_t n);
/* A copy of b appended to the batches in flight (the newest); 0, or -1 out of memory. */
int spsa_inflight_push(SpsaState *st, const SpsaBatch *b);

#endif
