/* What a user asks of a run in the morning, in the text of `status`, at
 * the end of a run and in the report: where the run stands, the latest
 * validation point (validate.h), which moves are real (moves.h) and verify's
 * verdict.  A run directory is read once, by morning_load or morning_read
 * (morning_read.c): its state, history.csv in one pass for all the views
 * (hist_scan), the validation files and verify.json; the texts below only
 * print what it read. */
#ifndef RATCHET_MORNING_H
#define RATCHET_MORNING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "hist.h"
#include "histrate.h"
#include "histscan.h"
#include "moves.h"
#include "state.h"
#include "verify_record.h"

/* ---- the run directory, read once ---- */

/* Which numbers of history.csv: status's table (HistData) or the report's
 * charts (HistScan). */
typedef enum { MORNING_TABLE, MORNING_CHARTS } MorningHistory;

typedef struct {
    const char *dir;
    const RunState *rs;          /* the state: own (morning_load) or the caller's (morning_read) */
    RunState own;
    bool owns;
    pid_t holder;                /* the process that holds the run's lock (it plays), or 0 */
    /* history.csv, in one pass */
    bool charts;                 /* MORNING_CHARTS: hist is filled, else table */
    HistData table;
    HistScan hist;
    HistRate pace;               /* the rows behind the run's recent pace (histrate.h) */
    char hist_err[512];          /* why history.csv could not be read, or "" */
    MoveVerdict *verdicts;       /* which moves are real, per parameter (NULL when out of memory) */
    char verdicts_err[512];      /* why they are of the state's theta alone ("" also without history.csv) */
    /* validation.csv (the points the state counts) and, with a limit of
     * the user's, validation-limit.csv; rc < 0: err says why */
    ValidationPoint *pts, *limit_pts;
    size_t npts, nlimit;
    int val_rc, limit_rc;
    char val_err[512], limit_err[512];
    /* verify.json, when there is one: its object and its record (which
     * borrows from it), or NULL with verify_err */
    bool has_verify;
    cJSON *verify;
    VerifyRecord verify_record;
    char verify_err[512];
} MorningRun;

/* DIR's state.json, then the rest as morning_read.  0, or -1 with a message
 * when the state cannot be read. */
int morning_load(MorningRun *m, const char *dir, MorningHistory what, char *err, size_t errlen);
/* The rest of DIR for the state rs (the run's own, at its end): what
 * cannot be read is said in the message of its part. */
void morning_read(MorningRun *m, const char *dir, const RunState *rs, MorningHistory what);
void morning_free(MorningRun *m);

/* What a run prints at its end: the parameter table (report.h), which
 * moves are real and the validation points. */
void morning_summary(FILE *out, const MorningRun *m);
/* What `status` prints: where the run stands (running, complete or
 * stopped), the summary and verify's verdict. */
void morning_status(FILE *out, const MorningRun *m);

/* ---- which moves are real ---- */

/* The verdicts as a view of a pass of hist_scan: out (nparams entries,
 * SPSA order) holds the verdicts of the state's theta alone until
 * morning_moves_end.  A file without a parameter's theta column leaves them
 * so (why says it) without stopping the pass for the other views. */
typedef struct {
    const RunState *rs;
    MoveVerdict *out;
    MoveAcc *acc;
    size_t t0;                   /* the first row of the moves' tail (moves_tail_from) */
    uint64_t rows;
    char why[512];
} MovesView;
HistVisitor morning_moves_visitor(MovesView *w, const RunState *rs, MoveVerdict *out);
/* After the pass (read: it succeeded): the verdicts of the rows read, and
 * the view's memory freed.  0, or -1 with a message when a column was
 * missing (or memory). */
int morning_moves_end(MovesView *w, bool read, char *err, size_t errlen);

/* The verdict for every tuned parameter (out: nparams entries, SPSA order)
 * from the first maxrows rows of DIR/history.csv, read in one streaming
 * pass.  Without history.csv (or with no row), each verdict is of the state's
 * theta alone.  0, or -1 with a message naming the file and line (out then
 * holds the verdicts without history). */
int morning_verdicts(const char *dir, const RunState *rs, uint64_t maxrows, MoveVerdict *out, char *err,
                     size_t errlen);

/* The parameters whose move wandered (moves_wandered over their range), as
 * "NAME (P% of [MIN, MAX])" joined by ", " into buf (cut to fit).  Returns
 * how many. */
size_t morning_wanderers(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len);
/* The sentence that names them and what to do, for `status` and the report
 * (buf: "" when none wandered). */
void morning_wander_note(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len);

/* What |z| > MOVES_Z tests, in numbers (buf: "" without steps): every
 * step of a parameter has the same size in units of its c_end, only its
 * sign differs, so z = move / (c_end S) with one S for the run (the root of
 * its squared steps in c_end: its median and range over the parameters);
 * "real" means "moved more than MOVES_Z S c_end", and n parameters that
 * the games all ignored would still give n P(|z| > MOVES_Z) "real" calls.
 * It measures travel beyond what noise would make, not that a move gains
 * Elo: the games' judgement is an ablation. */
void morning_travel_note(const SpsaState *st, const MoveVerdict *vs, char *buf, size_t len);
/* Its figures: S (median over the parameters with steps; 0 without),
 * its range, the threshold in c_end and the expected false "real" calls. */
void morning_travel(const SpsaState *st, const MoveVerdict *vs, double *s, double *smin, double *smax,
                    double *expected);

/* The table of moves: start, final, interval, z, real or noise; then the
 * wander note. */
void morning_moves(FILE *out, const MorningRun *m);

/* The Elo of the best of pts[0..n) (validate_best, n > 0) as every display
 * shows it: "+X Elo as measured, +Y corrected for selection (...)" with no
 * interval (the raw one is optimistic; validate_selection_bias), or the
 * point's Elo text said to be uncorrected when it has no interval.
 * Returns buf. */
const char *morning_best_text(const ValidationPoint *pts, size_t n, char *buf, size_t len);

/* With validation at the user's limit (validate.h): the warning when the
 * latest point at that limit disagrees with the one at the tuning limit
 * `tc` (positive there, negative at the user's) or is significantly below
 * zero; buf "" when neither. */
void morning_limit_warning(const ValidationPoint *tuned, const ValidationPoint *user, const char *tc,
                           const char *limit, char *buf, size_t len);

/* When games of validation ended by forfeit (validate.h's
 * ValidationForfeits): the warning that names each point and limit where
 * they did, with their causes, the point in play too; buf "" when none did
 * (what a run without forfeits prints is unchanged). */
void morning_forfeit_warning(const MorningRun *m, char *buf, size_t len);

/* What the validation files lack and the state knows, as status and the
 * report say it: "point N being played: X of Y games" while a point is in
 * play, and, in lost, the points the state counts past the n rows of
 * validation.csv (the file cut or emptied since).  Each "" when none. */
void morning_validation_state(const Validation *v, size_t n, char *pending, size_t plen, char *lost, size_t llen);

/* The validation points so far (the latest, the best, their count), the
 * games that ended by forfeit and the openings held out; nothing for a run
 * without them. */
void morning_validation(FILE *out, const MorningRun *m);

#endif
