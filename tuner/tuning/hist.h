/* DIR/history.csv: one row per completed SPSA batch, appended (and flushed
 * to disk) before the state that counts the batch is saved.  Columns:
 *
 *   row       completed batches so far, this one included (1, 2, 3, ...)
 *   k         the batch's iteration number (batches complete out of order)
 *   games     games in completed batches so far
 *   wins,losses,draws   of the `+` engine in this batch
 *   elapsed_s seconds of play so far, over all sessions
 *   NAME      theta of every parameter after the update
 *   c_k.NAME  the batch's perturbation of every parameter
 *   R_k.NAME  the batch's learning rate of every parameter
 *
 * Header fields are quoted as CSV requires (csv.h): a name with a space is
 * written "Skill Level", "c_k.Skill Level", "R_k.Skill Level".
 *
 * Because the row is written before the state, a crash between the two
 * leaves one row too many; hist_open cuts the file back to the rows the
 * state counts (and drops a half-written last line), so after a resume no
 * batch appears twice. */
#ifndef RATCHET_HIST_H
#define RATCHET_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spsa.h"

#define HISTORY_FILE "history.csv"
#define HIST_FIXED_COLUMNS "row,k,games,wins,losses,draws,elapsed_s"
#define HIST_NFIXED 7 /* the columns before the parameters */

typedef struct {
    FILE *f;
    char *path;
} History;

typedef struct {
    uint64_t row, k, games;
    uint64_t wins, losses, draws;
    double elapsed;
} HistRow;

/* Open DIR/history.csv for appending.  A missing file is created with the
 * header.  An existing one must have the header of st's parameters; it is
 * cut back to its first `rows` rows.  0, or -1 with a message. */
int hist_open(History *h, const char *dir, const SpsaState *st, uint64_t rows, char *err, size_t errlen);
/* Append the row of batch b (theta from st after the update).  The row is on
 * disk (fdatasync) when this returns 0. */
int hist_append(History *h, const HistRow *r, const SpsaState *st, const SpsaBatch *b, char *err,
                size_t errlen);
void hist_close(History *h);
/* The same in two steps: the row as text (malloc'd, ending in a newline;
 * NULL on OOM), and appending text to the file with fdatasync. */
char *hist_format_row(const HistRow *r, const SpsaState *st, const SpsaBatch *b, size_t *len);
int hist_write(History *h, const char *text, size_t len, char *err, size_t errlen);

/* The one rule for a number read back from history.csv, by `status`, the
 * table a run prints at its end and the report alike: a decimal (as the run writes it: %llu,
 * %.1f, %.10g, %.6g), finite and of magnitude below HIST_VALUE_MAX (no
 * parameter, count or time of a run comes near it; nan, inf and 1e308 are
 * refused).  hist_parse_num parses the number at s: the end of its text, or
 * NULL when s does not start with such a number (*v is then left unset).
 * The caller checks what follows (a comma or the end of the line). */
#define HIST_VALUE_MAX 1e15
const char *hist_parse_num(const char *s, double *v);
/* The whole of s is one number under that rule. */
bool hist_num_field(const char *s, double *v);

/* ---- reading history.csv back -------------------------------------------
 * One reader for every view of a run (`status`, the report's charts, which
 * moves are real): the header is parsed once and the columns are found by
 * name, so a file with more columns (a newer build) or without some (the
 * c_k columns, wins and losses, k or elapsed_s) still reads; each view
 * says in its begin step which columns it needs.  Every value a row holds
 * in a column the reader knows (the fixed ones, theta and c_k of the
 * state's parameters) must be a number under the rule above, and k a
 * count; other columns (R_k, a newer build's) are not read. */

/* The fixed columns, in the order the run writes them. */
enum { HIST_ROW, HIST_K, HIST_GAMES, HIST_WINS, HIST_LOSSES, HIST_DRAWS, HIST_ELAPSED };

/* The file as the header has it, and the rows a pass gives. */
typedef struct {
    const char *path;        /* DIR/history.csv, for messages */
    uint64_t rows;           /* the complete rows this pass gives (at most maxrows) */
    size_t nparams;          /* the state's parameters */
    bool has[HIST_NFIXED];   /* which fixed columns the header has */
    size_t no_theta;         /* the first parameter without a theta column (nparams: none) */
    bool all_ck;             /* every parameter has its c_k column */
} HistLayout;

/* One row. */
typedef struct {
    uint64_t i;              /* 0, 1, ... in file order */
    uint64_t line;           /* its line in the file (the header is line 1) */
    double fixed[HIST_NFIXED];   /* NAN for a column the header does not have */
    const double *theta, *c_k;   /* per parameter, in the state's order; NAN likewise */
} HistValues;

/* A view that accumulates over the rows.  begin comes before the first row,
 * and again (with fewer rows) when the file was cut back while it was read:
 * the pass then starts over.  Either returns 0, or -1 with a message to
 * stop the pass. */
typedef struct {
    int (*begin)(void *ctx, const HistLayout *l, char *err, size_t errlen);
    int (*row)(void *ctx, const HistLayout *l, const HistValues *v, char *err, size_t errlen);
    void *ctx;
} HistVisitor;

/* One pass over the first maxrows complete rows of DIR/history.csv (a
 * half-written last line is left out) for all n visitors at once.  0, or
 * -1 with a message naming the file (and the line); errno is then ENOENT
 * when there is no such file, EINVAL otherwise. */
int hist_scan(const char *dir, const SpsaState *st, uint64_t maxrows, const HistVisitor *vis, size_t n, char *err,
              size_t errlen);
/* The message of a view for a column it needs that l lacks (a fixed
 * column's or a parameter's name): -1. */
int hist_no_column(const HistLayout *l, const char *name, char *err, size_t errlen);

/* The tail of n rows, as every view takes it: the last ceil(n/10) rows
 * ("the last 10%") and the ones before them, at most as many (the window
 * that "still drifting" compares the tail with). */
typedef struct {
    uint64_t rows, from;           /* the tail: rows [from, n) */
    uint64_t prev_rows, prev_from; /* the window before it: rows [prev_from, from) */
} HistTail;
HistTail hist_tail(uint64_t n);

/* What `status` needs from history.csv, gathered in one streaming pass:
 * memory grows by one iteration number a row, not by the parameters. */
typedef struct {
    size_t nrows, nparams;
    uint64_t *k;          /* the iteration of every row, in file order */
    /* per parameter, in st's order */
    double *lo, *hi;      /* smallest and largest theta of the rows */
    double *last;         /* theta of the last row */
    bool *moved;          /* some row's theta differs from the start */
    /* the tail (hist_tail) and the window before it */
    size_t tail_rows, prev_rows;
    double *tail_sum, *prev_sum;
} HistData;

/* HistData as a view: with the state, for a pass of hist_scan; it needs
 * the k and theta columns.  out is zeroed when the visitor is made. */
typedef struct {
    const SpsaState *st;
    HistData *out;
    HistTail tail;
} HistDataView;
HistVisitor hist_data_visitor(HistDataView *view, const SpsaState *st, HistData *out);

/* Read at most maxrows complete rows (a half-written last line is ignored).
 * 0, or -1 with a message naming the file and line. */
int hist_read(const char *dir, const SpsaState *st, uint64_t maxrows, HistData *out, char *err, size_t errlen);
void hist_data_free(HistData *h);

#endif
