/* Held-out openings and validation during a run.
 *
 * Held-out openings.  A new run keeps the last `holdout` positions of its
 * book's order (the order the run plays its book in: random with the run's
 * seed, or file order) out of the tuning: tuning pair i plays position
 * i mod (n - holdout) of that order, so the held-out ones are never drawn.
 * Validation and `verify` play them.  holdout = 0 (a state written by an
 * older build, or a book of one position) means the tuning draws the whole
 * book, as older builds did.
 *
 * Validation.  With -validate every=F games=N, at each F of the budget
 * (tuning games >= K F G for point K, G the run's total) the run takes a
 * snapshot of the values `export` would write now, writes it to
 * DIR/snapshots/K.json (the export format, plus "snapshot": K), and plays
 * N/2 game pairs of the snapshot (engine 0) against the start values
 * (engine 1) on held-out openings, through the same runner as the tuning
 * pairs (so under MPI too: a validation pair is an ordinary PairJob whose id
 * has VALIDATION_ID set).  The finished point is one row of
 * DIR/validation.csv:
 *
 *   point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws
 *
 * (games: the tuning games when the snapshot was taken; elo and elo_err the
 * pentanomial estimate and the half-width of its 95% interval, stats.h).
 * The row is written and synced before the state that counts it (run.
 * validation.done); a row beyond `done` found when a run resumes is dropped
 * and the point played again, so a kill never loses or doubles a point.
 * The finished pairs of the point in play are kept in the state after every
 * pair; a resume plays the rest.
 *
 * In state.json: run.validation = { "every", "games", "holdout", "done",
 * "pending": { "point", "at_games", "pairs", "wins", "losses", "draws",
 * "ptnml": [5], "values": { NAME: value } } } (pending absent when no point
 * is in play; the whole object absent in states of older builds: no
 * held-out openings, no validation). */
#ifndef RATCHET_VALIDATE_H
#define RATCHET_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "spsa.h"

#define VALIDATION_FILE "validation.csv"
#define SNAPSHOT_DIR "snapshots"
#define VALIDATION_ID (UINT64_C(1) << 62) /* PairJob.id bit of a validation pair */

typedef struct {
    double every;        /* fraction of the budget between points; 0 = no validation */
    uint64_t games;      /* games per point (even) */
    uint64_t holdout;    /* book positions kept out of the tuning */
    uint64_t done;       /* points finished (rows of validation.csv) */
    bool pending;        /* a point is in play */
    uint64_t at_games;   /* tuning games when its snapshot was taken */
    uint64_t pairs;      /* its pairs finished */
    uint64_t wins, losses, draws, ptnml[5];
    double *values;      /* its snapshot, per tuned parameter (SPSA order) */
    size_t nvalues;
    /* not saved: pairs handed out and not finished, the next pair's index */
    uint64_t inflight, next;
} Validation;

/* One row of validation.csv. */
typedef struct {
    uint64_t point, games, pairs;
    double elo, elo_err;
    uint64_t ptnml[5], wins, losses, draws;
} ValidationPoint;

/* The largest finite Elo (or error) a validation.csv row may hold: a point
 * of 2^53 pairs scoring all but one half point is about 6,400 Elo. */
#define VALIDATION_MAX_ELO 1e6

void validate_free(Validation *v);

/* A new run: the -validate settings (every=F, games=N, holdout=F; `off` is
 * games=0) resolved for this run's budget and a book of nbook positions.
 * Defaults: every 0.2, games sized so that validation costs about 10% of the
 * budget (at least one pair a point), holdout 0.2 of the book.  0, or -1
 * with a message naming the setting. */
int validate_setup(Validation *v, const RunConf *conf, const SpsaState *st, size_t nbook, char *err, size_t errlen);

/* The order index (for book_pick) of tuning pair i, and of validation pair j. */
uint64_t validate_tuning_pick(const Validation *v, size_t nbook, uint64_t i);
uint64_t validate_holdout_pick(const Validation *v, size_t nbook, uint64_t j);

/* Points in the run, and whether point done+1 is due at `games` tuning
 * games of a `total`-game budget. */
uint64_t validate_points(const Validation *v);
bool validate_due(const Validation *v, uint64_t games, uint64_t total);

/* state.json's run.validation; NULL when there is nothing to write (no
 * holdout, no validation).  from_json: absent = none. */
cJSON *validate_to_json(const Validation *v, const SpsaState *st);
int validate_from_json(Validation *v, const cJSON *j, const SpsaState *st, const char *origin, char *err,
                       size_t errlen);

/* Take point done+1: snapshot `values` (SPSA order) at `games` tuning games. */
int validate_take(Validation *v, const double *values, size_t n, uint64_t games);

/* Append the finished pending point to DIR/validation.csv (synced), and
 * count it (done++, pending cleared); *out gets the row. */
int validate_record(Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen);

/* On resume: drop rows of DIR/validation.csv beyond v->done (a point whose
 * state was not saved is played again).  0, or -1 with a message. */
int validate_trim(const Validation *v, const char *dir, char *err, size_t errlen);

/* On resume: the -pgnout file cut to the validation games the state counts.
 * A validation game has a Round "P.J" (point P, pair J); per point, only
 * whole pairs (the last two games of a Round) are kept, as many as the
 * state counts: all of a recorded point (games / 2), the first v->pairs to
 * end of the pending point (the state counts pairs in the order they end),
 * none of a later point.  A game of a pair abandoned by a kill or a stop,
 * and a pair that ended after the last save, are dropped: they are played
 * again.  The tuning's games are left as they are.  The file is replaced
 * atomically, only when a game goes; *dropped gets their number, and
 * *last_pair the highest J kept of the pending point (its next pair is
 * numbered after it, so no Round is played twice).  0 (also
 * when pgn is "" or absent), or -1 with a message. */
int validate_trim_pgn(const Validation *v, const char *pgn, size_t *dropped, uint64_t *last_pair, char *err,
                      size_t errlen);

/* Read DIR/validation.csv: *pts malloc'd (NULL, 0 when there is no file).
 * -1 with a message naming the file and line on a malformed row. */
int validate_read(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen);
/* The same from the text of such a file (path for messages only). */
int validate_parse(const char *text, const char *path, ValidationPoint **pts, size_t *n, char *err, size_t errlen);
/* The file's text for pts[0..n): the header and a row each (malloc'd, its
 * length in *len), or NULL when out of memory. */
char *validate_format(const ValidationPoint *pts, size_t n, size_t *len);

/* The point's Elo as every display shows it: "+12.3 +/- 4.5 Elo", or, when
 * it has no finite interval (validation.csv holds inf), "Elo n/a (...)"
 * with its counts and the reason (elotext.h).  Returns buf. */
const char *validate_elo_text(const ValidationPoint *p, char *buf, size_t len);
/* The index of the point that scored best of pts[0..n) (n > 0): the highest
 * Elo among the points with an interval; only when no point has one, the
 * highest finite Elo (a point that won every pair has an infinite Elo and
 * says nothing yet); failing that, the last point. */
size_t validate_best(const ValidationPoint *pts, size_t n);

#endif
