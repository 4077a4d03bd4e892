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
 * Validation.  A point takes a snapshot of the values `export` would
 * write now, writes it to DIR/snapshots/K.json (the export format, plus
 * "snapshot": K), and plays its game pairs of the snapshot (engine 0)
 * against the start values (engine 1) on held-out openings, through the
 * same runner as the tuning pairs (so under MPI too: a validation pair is
 * an ordinary PairJob whose id has VALIDATION_ID set).  The schedule, with
 * -validate every=F games=N final=M over a budget of G tuning games:
 *
 *   - intermediate points at each multiple K F G strictly inside the
 *     budget (tuning games >= K F G, the first batch after it), N games each;
 *   - the final point at the end of the budget (the values the run ends
 *     with), M games: a run always validates the values it exports.
 *
 * A point taken late (the one before still in play) is taken for its
 * position all the same, so no point is skipped; a point taken at or past
 * the end of the budget is the final point.  The schedule follows the
 * budget: after `resume -spsa games=...` the next point is the first
 * multiple of F G' beyond the last point's position, and the extension's end
 * gets a final point of its own.  The default allocation
 * (validate_plan) puts most of the validation games in the final point:
 * chosen by measurement of its power to see a loss
 * (docs/results/validation-power.md, `simulate -validation`).  A state
 * written by an older build (no "final") has points of N games each,
 * the final one included.  The finished point is one row of
 * DIR/validation.csv:
 *
 *   point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws,time_losses,crashes,illegal,stalls
 *
 * (games: the tuning games when the snapshot was taken; elo and elo_err the
 * pentanomial estimate and the half-width of its 95% interval, stats.h;
 * the last four its games that ended by forfeit, ValidationForfeits: a file
 * of an older build has the first 13 columns, read with no forfeits, and
 * keeps them when rewritten; the first row a run appends to it rewrites it
 * with all 17).
 * The row is written and synced before the state that counts it (run.
 * validation.done); a row beyond `done` found when a run resumes is dropped
 * and the point played again, so a kill never loses or doubles a point.
 * The finished pairs of the point in play are kept in the state after every
 * pair; a resume plays the rest.
 *
 * In state.json: run.validation = { "every", "games", "final", "holdout",
 * "done", "last", "used", "pending": { "point", "at_games", "due", "size", "pairs",
 * "wins", "losses", "draws", "ptnml": [5], "forfeits": { "time_losses",
 * "crashes", "illegal", "stalls" }, "values": { NAME: value } } }
 * (last: the schedule position of the last finished point; used: the
 * held-out pairs the finished points played; size and due: the pending
 * point's games and position; forfeits absent in states of older builds:
 * none.
 * pending absent when no point is in play; final, last, used and size
 * absent in states of older builds, which had points of `games` each: final
 * = games, used = done games/2, last read from validation.csv by
 * validate_resolve_last; the whole object absent in states of still older
 * builds: no held-out openings, no validation). */
#ifndef RATCHET_VALIDATE_H
#define RATCHET_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "game.h"
#include "match.h"
#include "spsa.h"

#define VALIDATION_FILE "validation.csv"
#define SNAPSHOT_DIR "snapshots"
#define VALIDATION_ID (UINT64_C(1) << 62) /* PairJob.id bit of a validation pair */
#define VALIDATION_LIMIT_ID (UINT64_C(1) << 61) /* with VALIDATION_ID: a pair at the user's limit */
#define VALIDATION_LIMIT_FILE "validation-limit.csv"

/* The games of a point that ended by forfeit rather than over the board, by
 * cause (the Termination of the game: TERM_TIME, TERM_CRASH, TERM_ILLEGAL,
 * TERM_STALL).  Each is a loss of the side at fault: a point whose games end
 * so scores the forfeits, not the values. */
typedef struct {
    uint64_t time_losses, crashes, illegal, stalls;
} ValidationForfeits;

/* The pairs of a point at the user's limit (-validate tc=..., nodes=, st=,
 * depth=: validation at the limit the user plays, beside the tuning's):
 * the same openings as the point's pairs at the tuning limit, played after
 * them; its row goes to DIR/validation-limit.csv (the format of
 * validation.csv, written before that file's row). */
typedef struct {
    uint64_t pairs, wins, losses, draws, ptnml[5];
    ValidationForfeits forfeits;
    uint64_t inflight, next; /* not saved */
} ValidationLeg;

typedef struct {
    double every;        /* fraction of the budget between points; 0 = no validation */
    uint64_t games;      /* games per intermediate point (even) */
    uint64_t final;      /* games of the final point, at the end of the budget (even) */
    uint64_t holdout;    /* book positions kept out of the tuning */
    uint64_t done;       /* points finished (rows of validation.csv) */
    uint64_t last_at;    /* the schedule's position of the last finished point (0: none; see due) */
    bool last_known;     /* last_at read from the state (false: an older build's, see validate_resolve_last) */
    uint64_t used;       /* held-out pairs the finished points played */
    bool pending;        /* a point is in play */
    uint64_t at_games;   /* tuning games when its snapshot was taken */
    uint64_t due;        /* the schedule's position it was taken for (<= at_games; the budget for the final point) */
    uint64_t size;       /* its games */
    uint64_t pairs;      /* its pairs finished */
    uint64_t wins, losses, draws, ptnml[5];
    ValidationForfeits forfeits; /* of its games at the tuning's limit */
    double *values;      /* its snapshot, per tuned parameter (SPSA order) */
    size_t nvalues;
    /* not saved: pairs handed out and not finished, the next pair's index */
    uint64_t inflight, next;
    /* the user's limit (from the run's settings, validate.tc= etc.; not in run.validation) */
    bool has_limit;
    TimeControl limit;
    char limit_text[64];   /* tc_format of it */
    ValidationLeg lim;     /* the pending point's pairs at it (pending.limit in state.json) */
    bool lim_in_state;     /* not saved: pending.limit was in state.json (a run with a limit wrote it) */
} Validation;

/* One row of validation.csv. */
typedef struct {
    uint64_t point, games, pairs;
    double elo, elo_err;
    uint64_t ptnml[5], wins, losses, draws;
    ValidationForfeits forfeits;
} ValidationPoint;

/* The games of f, all causes. */
uint64_t validate_forfeits(const ValidationForfeits *f);
/* Its causes in words, those that happened: "8 time losses, 1 crash"
 * ("" for none).  Returns buf. */
const char *validate_forfeit_text(const ValidationForfeits *f, char *buf, size_t len);
/* The games of the pair res that ended by forfeit, added to f by cause. */
void validate_forfeits_add(ValidationForfeits *f, const PairResult *res);
/* "forfeits": { "time_losses", "crashes", "illegal", "stalls" } into o,
 * and read back from o's "forfeits" object (f all 0 when o has none):
 * -1 with *bad the key that is not a non-negative integer. */
bool validate_forfeits_to_json(cJSON *o, const ValidationForfeits *f);
int validate_forfeits_read(const cJSON *o, ValidationForfeits *f, const char **bad);

/* The largest finite Elo (or error) a validation.csv row may hold: a point
 * of 2^53 pairs scoring all but one half point is about 6,400 Elo. */
#define VALIDATION_MAX_ELO 1e6

void validate_free(Validation *v);

/* A new run: the -validate settings (every=F, games=N, final=M, holdout=F;
 * `off` is games=0) resolved for this run's budget and a book of nbook
 * positions (validate_plan; holdout 0.2 of the book by default).  0, or -1
 * with a message naming the setting. */
int validate_setup(Validation *v, const RunConf *conf, const SpsaState *st, size_t nbook, char *err, size_t errlen);

/* The allocation of a `total`-game budget's validation games: every (<= 0:
 * the default), games and final (-1: the default) into v->every, games and
 * final.  Defaults: VALIDATE_DEFAULT_EVERY; about VALIDATE_COST_PCT% of the
 * budget for validation, VALIDATE_FINAL_SHARE of it in the final point and
 * the rest spread evenly over the intermediate points (at least one pair a
 * point); games given without final: every point has `games` (the meaning
 * -validate games=N had before the final point had a size of its own).
 * games = 0: no validation.  0, or -1 with a message (odd counts). */
#define VALIDATE_DEFAULT_EVERY 0.5
/* The finest schedule -validate every= takes, and state.json's run.
 * validation.every may hold (besides 0): at most 1000 points a budget. */
#define VALIDATE_MIN_EVERY 0.001
#define VALIDATE_COST_PCT 10
#define VALIDATE_FINAL_SHARE 0.8
int validate_plan(Validation *v, double every, int64_t games, int64_t final, uint64_t total, char *err,
                  size_t errlen);

/* The point after a point taken at `after` tuning games of a `total`-game
 * budget (after = 0: the first): *at the tuning games at which it is due,
 * *size its games.  false when none is left (no validation, or after >=
 * total: the final values were taken). */
bool validate_next_point(const Validation *v, uint64_t after, uint64_t total, uint64_t *at, uint64_t *size);

/* The order index (for book_pick) of tuning pair i, and of validation pair j. */
uint64_t validate_tuning_pick(const Validation *v, size_t nbook, uint64_t i);
uint64_t validate_holdout_pick(const Validation *v, size_t nbook, uint64_t j);

/* Points in the run over a `total`-game budget (those done, the one in
 * play, those to come), and whether point done+1 is due at `games` tuning
 * games. */
uint64_t validate_points(const Validation *v, uint64_t total);
bool validate_due(const Validation *v, uint64_t games, uint64_t total);
/* The held-out pairs validation plays over a `total`-game budget: those the
 * finished points played, the pending point's and those of the points to
 * come.  The steps after the tuning claim openings past them (claims.h). */
uint64_t validate_pairs_planned(const Validation *v, uint64_t total);
/* The schedule in words: "a point every 0.25 of the budget (100 games
 * each) and the final values (1400 games)".  Returns buf. */
const char *validate_plan_text(const Validation *v, uint64_t total, char *buf, size_t len);
/* Whether the run's final values (at `total` tuning games) have been, or
 * are being, validated. */
bool validate_final_taken(const Validation *v, uint64_t total);
/* A state of an older build does not record the last point's position:
 * `done` every total (its schedule), or the tuning games of its row in
 * DIR/validation.csv when fewer (a budget extended since). */
void validate_resolve_last(Validation *v, const char *dir, uint64_t total);

/* state.json's run.validation; NULL when there is nothing to write (no
 * holdout, no validation).  from_json: absent = none. */
cJSON *validate_to_json(const Validation *v, const SpsaState *st);
int validate_from_json(Validation *v, const cJSON *j, const SpsaState *st, const char *origin, char *err,
                       size_t errlen);

/* Take point done+1: snapshot `values` (SPSA order) at `games` tuning games
 * of a `total`-game budget (the final point's size at or past the end). */
int validate_take(Validation *v, const double *values, size_t n, uint64_t games, uint64_t total);

/* Append the finished pending point to DIR/validation.csv (synced), and
 * count it (done++, pending cleared); *out gets the row. */
int validate_record(Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen);

/* On resume: drop rows of DIR/validation.csv beyond v->done (a point whose
 * state was not saved is played again).  0, or -1 with a message. */
int validate_trim(const Validation *v, const char *dir, char *err, size_t errlen);

/* The PGN Event of point `point`'s games at the tuning's limit, or at the
 * user's (at_limit):
 *   ratchet-tune validation point P: snapshots/P.json against the start values (the run created RUN)
 *   ratchet-tune validation point P at LIMIT: snapshot P against the start values (the run created RUN)
 * RUN is the run's mark, state.json's "created" (without the parenthesis
 * when run is ""): what tells this run's games from another's in a shared
 * PGN file.  Returns buf. */
const char *validate_event(const Validation *v, const char *run, uint64_t point, bool at_limit, char *buf,
                           size_t len);

/* On resume: the -pgnout file cut to the validation games the state counts.
 * This run's validation games are those it writes: a Round "P.J" (point P,
 * pair J), the Event of point P at either limit with this run's mark `run`
 * (validate_event) and the players "snapshot P" and "start".  Every other
 * game is left as it is: the tuning's, another run's (another mark, or
 * another limit), another program's, and those of an older build, which
 * wrote no mark.  Per point and limit,
 * only whole pairs (the last two games of a Round) are kept, as many as the
 * state counts: a recorded point's own pairs (its row of DIR/validation.csv,
 * and of DIR/validation-limit.csv for those at the user's limit; all of
 * them when the row is missing), the first v->pairs and v->lim.pairs to end
 * of the pending point (the state counts pairs in the order they end), none
 * of a later point.  A game of a pair abandoned by a kill or a stop, and a
 * pair that ended after the last save, are dropped: they are played again.
 * The file is replaced
 * atomically, only when a game goes; *out says what went and the highest J
 * kept of the pending point's pairs at each limit (its next pair is
 * numbered after them, so no Round is played twice).  0 (also when pgn is
 * "" or absent), or -1 with a message. */
typedef struct {
    size_t dropped;         /* games taken out */
    uint64_t last_pair;     /* the pending point's highest J kept at the tuning's limit */
    uint64_t last_lim_pair; /* and at the user's limit, less size / 2 (those Rounds follow the others) */
} PgnTrim;
int validate_trim_pgn(const Validation *v, const char *dir, const char *run, const char *pgn, PgnTrim *out,
                      char *err, size_t errlen);

/* The user's limit from the run's settings (validate.tc=, st=, nodes=,
 * depth=, parsed as -each parses them) into v->has_limit, limit and
 * limit_text: `base` (the run's limit, or NULL) with its clock, st=, nodes=
 * and depth= replaced, its margins kept.  None given: no limit of its own.
 * With a base (a run about to play), a limit -each would refuse (no limit,
 * as tc=inf alone; nodestime= without tc= or st=: cli_check_limit) is
 * refused with -each's message; without one (a saved state read) it is
 * taken as it is.  0, or -1 with a message. */
int validate_limit_from_conf(Validation *v, const RunConf *conf, const TimeControl *base, char *err, size_t errlen);

/* The pending point's pairs at the user's limit: appended to
 * DIR/validation-limit.csv (synced), before validate_record; *out gets the
 * row (its games: the point's tuning games).  0, or -1 with a message. */
int validate_record_limit(const Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen);
/* Read DIR/validation-limit.csv (as validate_read), and on resume drop its
 * rows beyond v->done. */
int validate_read_limit(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen);
int validate_trim_limit(const Validation *v, const char *dir, char *err, size_t errlen);

/* Read DIR/validation.csv: *pts malloc'd (NULL, 0 when there is no file).
 * -1 with a message naming the file and line on a malformed row. */
int validate_read(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen);
/* The same from the text of such a file (path for messages only). */
int validate_parse(const char *text, const char *path, ValidationPoint **pts, size_t *n, char *err, size_t errlen);
/* The file's text for pts[0..n): the header and a row each, all 17
 * columns (malloc'd, its length in *len), or NULL when out of memory. */
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

/* The selection bias of the best of pts[0..n) (validate_best): the
 * expected estimate, in Elo, of that point given that it came out highest,
 * if all the points measured the same strength, each normal with its own
 * standard error (elo_err / 1.96; points without an interval are left
 * out).  Conditioned on which point was best: a small point that beats a
 * large one is more optimistic than the large one beating it.  The best
 * point's Elo less this is its Elo corrected for selection.  0 for fewer
 * than two points with an interval; NaN when the best has none.  Checked
 * against the simulator (`simulate -validation`,
 * docs/results/validation-power.md). */
double validate_selection_bias(const ValidationPoint *pts, size_t n);

#endif
