/* DIR/ablation.json, the file `ratchet-tune verify DIR -ablate` writes
 * while its pairs finish (tuner/commands/ablate.h tells its members) and
 * reads back to continue, that `export -ablation` keeps groups by, and
 * that the night's steps and its morning page show: the format, beside
 * the run's own state format (spsa_state_json.h).
 *
 * An AblationRecord holds what the file holds, in the file's order.  Its
 * strings and value objects are borrowed: from the command's own buffers
 * when it writes, from the parsed file when it reads (they live as long as
 * that cJSON); the arrays of groups, parameter names and pairs are the
 * record's own (ablation_record_free). */
#ifndef RATCHET_ABLATION_RECORD_H
#define RATCHET_ABLATION_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "ablation.h"
#include "validate.h"

#define ABLATION_FILE "ablation.json"
/* The designs this build draws: mirrored couples, with whole pairs
 * (ablation_whole) every "whole_every" couples. */
#define ABLATION_DESIGN "mirrored-couples-mt19937"
#define ABLATION_DESIGN_WHOLE "mirrored-couples-mt19937+whole"

typedef struct {
    const char *name;              /* NULL: not a string */
    const char **params;           /* the group's parameters (an element that is not a string: NULL) */
    size_t nparams;
    bool estimated;                /* written: the estimates below; read: as the file has them */
    AblEffect eff;                 /* elo, elo_lo, elo_hi, beta, se (NAN: not there); eff.verdict unused */
    const char *verdict;           /* "pays", "costs", "unclear" (NULL: no estimate) */
} AblGroupRecord;

/* The additivity check's terms, in the file's order. */
enum { ABL_TERM_SUM, ABL_TERM_WHOLE, ABL_TERM_GAP, ABL_TERMS };

typedef struct {
    double elo, lo, hi;            /* "<term>_elo", "_lo", "_hi": Elo and its 95% interval */
    double beta, se;               /* "<term>_beta", "_se": in pair score */
} AblTermRecord;

typedef struct {
    uint64_t pair, opening;
    const char *design;            /* "+-..." per group, '+' = engine 0 tuned */
    double diff;                   /* engine 0's points minus engine 1's */
    bool ok;                       /* read: the entry is well formed (ablation_record_pair_check) */
} AblPairRecord;

typedef struct {
    const char *status;            /* "running", "stopped", "done" */
    bool has_groups;               /* "groups" is an array: */
    AblGroupRecord *groups;
    size_t ngroups;
    bool has_fit;                  /* "fit", or else "fit_note": */
    double fit_pairs, intercept, intercept_se, sigma; /* (NAN: not there) */
    const char *fit_note;
    bool has_additivity;           /* "additivity" (with whole pairs): */
    double whole_pairs;
    AblTermRecord terms[ABL_TERMS];
    const char *additivity_verdict; /* "adds up", "less than the sum", "more than the sum" */
    uint64_t rounds, rounds_asked;
    bool has_rounds;
    bool capped;
    const char *tc, *book;
    const char *set, *openings_file; /* "openings": */
    uint64_t count, book_size;
    bool claimed;                  /*   the call's claim of held-out openings (claims.h) */
    uint64_t held_out_first, held_out_count;
    uint64_t seed;
    bool has_seed;
    const char *design;            /* ABLATION_DESIGN or ABLATION_DESIGN_WHOLE */
    unsigned whole_every;          /* 0: none (also read for a file without it, or out of 0..1000) */
    const char *groups_spec;
    const char *tuned_file;        /* -tuned ("" = the run's values) */
    const char *const *args;       /* the options as given (written; read them from the file's "args") */
    const char *dir;               /* the run directory it was written in (written; "dir") */
    int nargs;
    uint64_t run_games;
    const cJSON *tuned, *base;     /* the two sides' values: { NAME: value } */
    uint64_t games;
    bool has_games;
    uint64_t ptnml[5];             /* engine 0's view */
    /* "forfeits": the games of the counted pairs that ended by forfeit, by
     * cause, and "forfeit_pairs", the pairs they are of: every pair, or
     * those played since a file of an older build (which counted none) was
     * continued. */
    bool has_forfeits;
    ValidationForfeits forfeits;
    uint64_t forfeit_pairs;
    const char *forfeits_bad;      /* read: the member of "forfeits" that is not a count (NULL: none) */
    bool has_pairs;                /* "pairs" is an array: */
    AblPairRecord *pairs;
    size_t npairs;
    uint64_t sessions;
    bool has_sessions;
    const char *created, *updated;
} AblationRecord;

/* The groups of gs, without estimates (r owns them: ablation_record_free);
 * -1 when out of memory. */
int ablation_record_groups(AblationRecord *r, const AblGroups *gs);
/* Whether two records hold the same groups: names and parameters alike. */
bool ablation_record_same_groups(const AblationRecord *a, const AblationRecord *b);
/* The fit's members and each group's estimates from the fit (eff[g] per
 * group); fit NULL: none yet, note says why. */
void ablation_record_fit(AblationRecord *r, const AblFit *fit, const AblEffect *eff, const char *note);
/* The file's object (NULL on OOM). */
cJSON *ablation_record_to_json(const AblationRecord *r);

/* What a reader needs of the file (ablation_record_from_json), each with
 * the message that names what is missing. */
enum {
    ABLREC_RESUME = 1u << 0,       /* "seed", "sessions" and "created" */
    ABLREC_PAIRS = 1u << 1,        /* "pairs" and "design", a design this build draws */
    ABLREC_RESULT = 1u << 2,       /* "status", "tuned", "base" and "groups" */
};
/* The record of the file's object j, as much of it as there is: a string
 * missing or of another kind is NULL, a number NAN, a count 0 (the has_
 * members say which were there).  need: ABLREC_*, checked in that order;
 * -1 with a message naming path when one is not there, else 0.  The
 * record borrows from j; free it with ablation_record_free (also after
 * -1). */
int ablation_record_from_json(AblationRecord *r, const cJSON *j, unsigned need, const char *path, char *err,
                              size_t errlen);
/* Pair entry i of a record read: 0 when it is well formed (a pair number,
 * a design and a whole diff in -2..2), else -1 with the message. */
int ablation_record_pair_check(const AblationRecord *r, size_t i, const char *path, char *err, size_t errlen);
void ablation_record_free(AblationRecord *r);

/* "no game ended by forfeit in its 6500 pairs", "3 games ended by forfeit
 * (3 time losses) in 2417 of its 6500 pairs (...)", or that they were not
 * counted: the forfeits of r in words.  Returns buf. */
const char *ablation_record_forfeit_text(const AblationRecord *r, char *buf, size_t len);

#endif
