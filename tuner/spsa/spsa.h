/* SPSA in the classic fishtest / OpenBench form: the gain schedule, the
 * +/-1 flips, the shared-uniform stochastic rounding of integer values, and
 * the update with the gains of the moment a batch was handed out.  Pure math:
 * no files, no printing.  The state holds all a run needs to go on exactly
 * (the GSL RNG and every batch in flight included); the run saves it in its
 * state file (tuner/tuning/spsa_state_json.h).  Shared by `ratchet-tune run`
 * and `ratchet-tune simulate`.
 *
 * Terms
 *   pair       two games from one opening with colours swapped, between the
 *              `+` engine (engine 0) and the `-` engine (engine 1).
 *   iteration  one batch of P game pairs (P = pairs_per, so 2P games) that all
 *              play the same two parameter vectors.  The iteration number k
 *              (1-based) is taken when the batch is handed out.
 *   N          the total number of iterations: N = ceil(games / (2 P)), at
 *              least 1 (spsa_iterations_for_games).
 *
 * The classic schedule (docs/design.md, "SPSA: the classic form").  Per parameter:
 *   A   = A_ratio * N
 *   c   = c_end * N^gamma
 *   a   = r_end * c_end^2 * (A + N)^alpha
 *   c_k = max(c / k^gamma, 0.5)         (integer parameters; c / k^gamma for floats)
 *   R_k = a / (A + k)^alpha / c_k^2     (with the clamped c_k)
 * so that c_N = c_end and R_N = r_end when c_end >= 0.5 (or the parameter
 * is a float).
 * For each batch: flip_i = +/-1 (GSL RNG), one uniform u_i in [0,1) per
 * parameter shared by both engines, and
 *   plus_i  = clip(floor(theta_i + c_k,i * flip_i + u_i))
 *   minus_i = clip(floor(theta_i - c_k,i * flip_i + u_i))
 * for integer parameters, and without the floor (and u_i unused) for float
 * parameters (OpenBench's `float` type: bounds and values may be fractional).
 * When the batch's games are done, with W and L the wins and losses of the
 * `+` engine over its 2P games:
 *   theta_i = clip(theta_i + R_k,i * c_k,i * (W - L) * flip_i)
 * using the c_k, R_k stored in the batch when it was handed out, however many
 * batches were handed out or applied since.  clip() clamps to [min, max].
 *
 * Extending a run (spsa_extend, `resume DIR -spsa games=N`): the schedule is
 * recomputed for the new total N' = ceil(games' / (2 P)): A, c and a are
 * recomputed with N' in place of N, theta is kept and the iteration counter k
 * continues from where it was.  The run then goes on as if it had been started
 * with N' iterations, so c_k and R_k reach c_end and r_end at k = N'.  Batches
 * already in flight keep the gains they were handed out with.  N' must be at
 * least the number of iterations already handed out.
 *
 * Options (all off by default):
 *   average  fraction f in [0, 1): also keep theta_avg, the mean of theta after
 *            each completed batch over the last f of the schedule (batches
 *            with k > (1 - f) N).  Polyak-Ruppert iterate averaging; the
 *            update itself is unchanged, theta_avg is the estimate that
 *            spsa_value (and so export) reports.  It lags while theta is
 *            still travelling and lowers the noise once theta has settled
 *            (docs/results/spsa-suite.md).
 *   The pair signal is W - L summed over the batch, which already equals the
 *   pentanomial pair score (LL = -2, LD = -1, DD/WL = 0, WD = +1, WW = +2);
 *   no other pentanomial weighting is offered.  The classic form has no
 *   momentum (the adam form below has): with the (1 - beta) of an
 *   exponential average it measured the same as without
 *   (docs/results/spsa-suite.md), and without it it is only a larger r_end.
 *
 * Other forms (cfg.form; `-spsa form=NAME`).  The classic form above is
 * SPSA_FORM_CLASSIC and is unchanged, bit for bit.  The others keep its
 * flips, shared-uniform rounding, asynchronous batches and averaging, and
 * change the probe and the step (docs/results/spsa-suite.md has the suite
 * `simulate -suite` that chose them).  far (SPSA_FORM_RMS, called rms
 * before settle existed), adam and settle share what follows and differ in
 * their settings (spsa_config_set_form): far and adam decay 1.2, eta from
 * the budget with eta_base 0.025, eta_pow 0.5 and eta_npow 1, probe 4, no
 * averaging; settle decay 0, eta_base 0.036, eta_pow 0.7, eta_npow 0.5,
 * probe 4.5, average 0.25.
 * Every step of a parameter has the same size in c_end units, only its sign
 * differs, so one the games cannot see walks a random walk of spread
 * S = c_end sqrt(sum_k eta_k^2): far's (about 8.25 (8 / n) c_end) does not
 * depend on the budget, settle's falls as N^(0.5 - eta_pow), and its flat
 * schedule buys the most travel for that spread (docs/results/spsa-scale.md,
 * issue 42):
 *   probe    c_k = probe * (the classic c_k), probe = 4 by default: in a
 *            quadratic landscape the signal of a pair grows with c_k and its
 *            noise does not, so a larger probe buys the same travel for less
 *            wander; where the curvature differs on the two sides of the
 *            optimum (the suite's asym8/aopt8) a wide pair straddling it
 *            measures a slope that is not zero there, and beyond 4 that
 *            costs more than the signal buys.  The probes are placed around theta moved inside
 *            [min + c_k, max - c_k] (when the range is at least 2 c_k), so a
 *            probe near a bound is never cut short on one side; the update
 *            still moves theta itself, which may rest on the bound.
 *   narrow   (on by default; off in states written before it existed) the
 *            probe of a batch is min(c_k, room) with room the distance from
 *            theta to the nearer bound, but not less than the classic c_k:
 *            so a wide probe does not carry the measurement away from a
 *            theta that lies near a bound (without it, theta 2 c_end inside
 *            a bound is measured about a point 4.8 c_end inside, and drifts
 *            there: the suite's near8).  Below the classic c_k the centre is
 *            moved as above.  The batch's c_k (history.csv) is the narrowed one.
 *   eta_k    the step as a fraction of c_end, whatever r_end is (r_end is
 *            not used): eta_k = eta * ((A + N) / (A + k))^decay; far's decay
 *            1.2 makes the first steps about 18 times the last, settle's 0
 *            keeps them all alike (a state keeps the decay it was started
 *            with).  eta = 0 (the default) takes it from the budget and the
 *            parameter count: eta = eta_base * (8 / n)^eta_npow *
 *            (5000 / N)^eta_pow (far: 0.025 * (8 / n) * sqrt(5000 / N);
 *            settle: 0.036 * sqrt(8 / n) * (5000 / N)^0.7; a state from
 *            before settle has no eta_base, eta_pow, eta_npow and keeps
 *            far's).
 *            R_k in batches and history.csv holds eta_k.
 *   v        the running second moment of r = W - L per batch, shared by all
 *            parameters (|r flip_i| is the same for every i, so a per-
 *            parameter second moment would be n copies of one number):
 *            v starts at P (W - L of an even pair has a variance near 1) and
 *            v += (r^2 - v) * max(1 / (completed + 2), 1 - beta2) with this
 *            batch's r, before the step; beta2 = 0.999.
 *   rms      m_i = r flip_i; theta_i = clip(theta_i + eta_k c_end_i m_i / sqrt(v))
 *   adam     the same with momentum: m_i = beta1 m_i + (1 - beta1) r flip_i,
 *            beta1 = 0.9, and the step uses m_i / (1 - beta1^t), t the
 *            number of (non-centre) batches applied including this one, so
 *            that the first steps are not (1 - beta1) times too short (Adam's
 *            bias correction; off in adam states written before it existed,
 *            which go on without it).
 * m_i and v are part of the state (state.json), so a resume continues them.
 *
 * The scale (cfg.adapt, -spsa adapt=1; off by default: SPSA_DEFAULT_ADAPT,
 * and in states written before it existed).  c_end is only the starting hint of the step: each parameter has
 * a scale s_i, scale_start (0.1) at the start, that multiplies its step
 * (eta_k c_end_i s_i m_i / sqrt(v)); the probe is not scaled.  After each
 * batch, with g_i = r flip_i / sqrt(v) (v including this batch) and e_i the
 * running mean of the earlier g_i (the plain mean of the first ones, then a
 * window of W = max(adapt_window N, 4) iterations: e_i = beta e_i +
 * (1 - beta) g_i after the update, beta = 1 - 1/min(completed + 1, W)):
 *   q_i     = g_i e_i / sd,  sd = sqrt((1 - beta) / (1 + beta))
 *   log s_i += adapt_rate / W * (q_i - adapt_bias),  s_i kept in [scale_min, scale_max]
 * q_i is the consistency of the sign of the parameter's gradient estimate
 * (Rprop, "SPSA with adaptive gains"): with no signal its mean is 0, so s
 * shrinks (by adapt_rate * adapt_bias per window); where the estimates keep
 * their sign it is about mu^2 / sd (mu: the mean of g_i) and s grows; where
 * the steps overshoot and alternate it is negative.  The step starts small
 * and grows only where the games show a direction, so a parameter whose
 * games carry no signal (a flat one, or one sitting at its optimum under a
 * probe wider than the basin) stays near where it is.  Chosen with
 * `simulate -grid` on seeds 1..10 against a probe scaled with s, a probe
 * that grows where s shrinks, a start of 1 or 0.3, and other rates and
 * biases (docs/results/spsa-scale.md).  s_i and e_i are in the state.
 *
 * The centre batches (cfg.centre = F, -spsa centre=F; 0 = off, the default).
 * A pair theta + c flip against theta - c flip sees the slope and nothing of
 * the curvature: with a probe wider than the basin at the optimum both
 * engines land outside it and W - L carries no signal, just as far out on a
 * plateau.  A fraction F of the batches (drawn per batch) are centre batches:
 * engine 0 plays x_i + c_i flip_i on the parameters with mask_i = 1 (each
 * with probability 1/2) and x_i on the others, engine 1 plays x_i (both
 * rounded with the batch's shared uniforms), x_i the point the probes of a
 * batch are placed around: theta moved inside [min + c_i, max - c_i], so
 * that a perturbation toward a bound is not cut short by it.  With r = W - L of engine 0 over
 * the batch's G games, d_i = r (2 mask_i - 1) / G has the mean
 * (E[r | mask_i = 1] - E[r | mask_i = 0]) / (2 G), so
 *   loss_i = -2 * 347.4 * mean(d_i)   (Elo; 347.4 = 1600 / ln 10 / 2)
 * is the Elo a perturbation of parameter i by its probe costs: about
 * h_i c_i^2 / 2 on a quadratic, the height of the plateau when the probe
 * leaves the basin, 0 on a flat or far plateau.  mean(d_i) and its noise are
 * running means over a window of Wc = max(centre_window F N, 8) centre
 * batches.  Each parameter's probe (and its step, which scales with it) has a
 * multiplier p_i, 1 at the start; after each centre batch, once
 * SPSA_CENTRE_WARMUP of them are in,
 *   z = (loss_i - centre_elo) / se(loss_i),
 *   log p_i -= centre_rate / Wc  when z > SPSA_CENTRE_Z (2),
 *   log p_i += centre_rate / Wc  when loss_i < centre_elo,
 *   p_i kept in [centre_min, 1]:
 * the probe shrinks where it clearly costs more than centre_elo (it straddles
 * the basin) and grows back where it does not (a far plateau keeps its full
 * probe and travels).  Centre batches do not move theta, v or m.  p_i, the
 * running means and the count are in the state (version 4).
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

/* The forms of the update (-spsa form=NAME).  SPSA_FORM_CLASSIC is the
 * fishtest/OpenBench form above, unchanged; the others are described under
 * "Other forms" at the top of this file. */
typedef enum {
    SPSA_FORM_CLASSIC = 0,
    SPSA_FORM_RMS,    /* "far" ("rms" before form=settle existed) */
    SPSA_FORM_ADAM,
    SPSA_FORM_SETTLE, /* rms with the settle schedule */
    SPSA_FORM_COUNT
} SpsaForm;
#define SPSA_MIN_C_INT 0.5 /* c_k is clamped to at least this (integer parameters) */

/* Defaults of the non-classic forms (measured with `simulate -suite`). */
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
/* The per-parameter scale (cfg.adapt; "The scale" above). */
/* Off: at the right c_end it loses 1.6 to 7 times as much from far starts
 * (simulate -suite, docs/results/spsa-scale.md); -spsa adapt=1 turns it on. */
#define SPSA_DEFAULT_ADAPT false
#define SPSA_DEFAULT_ADAPT_RATE 3.0
#define SPSA_DEFAULT_ADAPT_BIAS 0.02
#define SPSA_DEFAULT_ADAPT_WINDOW 0.02
#define SPSA_DEFAULT_SCALE_MIN 0.02
#define SPSA_DEFAULT_SCALE_MAX 10.0
#define SPSA_DEFAULT_SCALE_START 0.1
#define SPSA_ADAPT_MIN_WINDOW 4.0
/* The curvature probe (cfg.centre; "The centre batches" above).  Off: at the
 * right c_end 8 of the suite's 12 landscapes get more than 10% worse with
 * centre=0.2 (docs/results/spsa-scale.md); -spsa centre=F turns it on. */
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
 * narrowed near a bound in the other forms (cfg.narrow, above); what the
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
bool spsa_done(const SpsaState *st);

/* Copy of the i-th in-flight batch (0 = oldest), to re-issue it after a
 * resume.  0 on success, -1 if i is out of range or out of memory. */
int spsa_inflight_get(const SpsaState *st, size_t i, SpsaBatch *out);

/* Recomputes the schedule for a new total of games (rule at the top of this
 * file).  0 on success, -1 if the new N is smaller than the iterations already
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
