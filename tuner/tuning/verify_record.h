/* DIR/verify.json, the file `ratchet-tune verify` writes after every pair
 * (tuner/commands/verify.h) and reads back to continue, and that `status`,
 * the night's steps and its morning page show: the format, beside the
 * run's own state format (spsa_state_json.h).
 *
 * A VerifyRecord holds what the file holds, in the file's order.  Its
 * strings and value objects are borrowed: from the command's own buffers
 * when it writes, from the parsed file when it reads (they live as long as
 * that cJSON); only `pending` read from a file is owned
 * (verify_record_free). */
#ifndef RATCHET_VERIFY_RECORD_H
#define RATCHET_VERIFY_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sprt.h"
#include "stats.h"

#define VERIFY_FILE "verify.json"

/* Which members a file read held (VerifyRecord.have): the counts shown as
 * they stand, absent ones as not there. */
enum {
    VREC_GAMES = 1u << 0,
    VREC_PAIRS = 1u << 1,
    VREC_PTNML = 1u << 2,       /* an array of exactly five counts */
    VREC_ROUNDS = 1u << 3,
    VREC_TIME_LOSSES = 1u << 4, /* an array of two counts */
    VREC_CLAIM = 1u << 5,       /* "openings": "held_out_first" and "held_out_count" */
};

typedef struct {
    const char *status;            /* "running", "stopped", "done" (NULL: not in the file) */
    const char *verdict;           /* "H1", "H0", "undecided", "none" or "identical" */
    MatchTally tally;              /* games, W/L/D, pairs, ptnml ... and, after "pending", the rest */
    EloEstimate est;               /* "elo", "elo_err", "nelo", "nelo_err", "los" (NAN: not there) */
    bool has_sprt;                 /* the "sprt" object: */
    SprtSpec sprt;                 /*   elo0, elo1, alpha, beta (NAN: not there) */
    double llr, lower, upper;      /*   its LLR and bounds */
    uint64_t rounds;               /* 0 = until the SPRT decides */
    const char *tc, *book;
    bool has_openings;             /* the "openings" object: */
    const char *set, *openings_file; /*   "held-out", "whole book (in sample)", "given"; the book */
    uint64_t count, book_size, fresh_pairs;
    bool deterministic;
    bool claimed;                  /*   the call's claim of held-out openings (claims.h): */
    uint64_t held_out_first, held_out_count;
    uint64_t seed;
    const char *mode;              /* "engines": "baked" or "options", */
    const char *engine_tuned, *engine_base; /* and their commands */
    uint64_t run_games;            /* the run's games when it began */
    const char *base_file, *tuned_file; /* -base and -tuned ("" = the start values, the run's) */
    const cJSON *tuned, *base;     /* the two sides' values: { NAME: value } */
    const char *const *args;       /* the options as given (written; read them from the file's "args") */
    const char *dir;               /* the run directory it was written in (written; "dir") */
    int nargs;
    uint64_t next_round;
    const uint64_t *pending;       /* rounds in flight when the session ended, replayed first */
    size_t npending;
    uint64_t sessions;
    double elapsed_s;
    const char *created, *updated;
    unsigned have;                 /* VREC_*: of a file read */
    uint64_t *own_pending;         /* pending, when read from a file */
} VerifyRecord;

/* est from the tally's pentanomial counts, and with has_sprt, llr, lower
 * and upper from the tally and sprt: the figures the file stores beside
 * the counts. */
void verify_record_estimate(VerifyRecord *r);
/* The file's object (NULL on OOM). */
cJSON *verify_record_to_json(const VerifyRecord *r);
/* The record of the file's object j, as much of it as there is: a string
 * missing or of another kind is NULL, a number NAN, a count 0 (have says
 * which counts were there).  With resume (a verify continues from it),
 * every member that progress needs must be there and agree (the counts,
 * the rounds handed out and pending once each, the seed, sessions,
 * elapsed_s and created), or -1 with a message naming path; else 0
 * (without resume, path and err are not used).  The record borrows from
 * j; free it with verify_record_free. */
int verify_record_from_json(VerifyRecord *r, const cJSON *j, bool resume, const char *path, char *err,
                            size_t errlen);
void verify_record_free(VerifyRecord *r);
/* A count of a record read, as the texts show it: n, or NAN when the file
 * did not hold it (bit, VREC_*, not in r->have). */
double verify_record_shown(const VerifyRecord *r, unsigned bit, uint64_t n);

/* The warning of a match at a wall clock whose games were lost on time in
 * more than TIME_LOSS_ALARM_PERCENT of them (game.h), or false with buf
 * "" when there is nothing to say. */
bool verify_time_loss_alarm(uint64_t losses, uint64_t games, char *buf, size_t len);

#endif
