/* history.csv read for drawing: one streaming pass that keeps, for a fixed
 * number of buckets of consecutive rows, what a chart needs (the smallest
 * and largest theta of each bucket in the order they came, the band
 * theta +/- c_k, the cumulative score, the play time), plus the exact tail
 * sums behind the `status` flags.  Memory does not grow with the run, so a
 * report of a million-row history costs one read of the file and a few
 * hundred points per chart; history.csv itself is never changed.
 *
 * The rows come from hist_scan (hist.h), which finds the columns by name,
 * so a file with more columns (a newer build) or without the c_k columns
 * still reads; a parameter with no column of its own is reported missing
 * (have_theta). */
#ifndef RATCHET_HISTSCAN_H
#define RATCHET_HISTSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "spsa.h"

#define HISTSCAN_BUCKETS 600

typedef struct {
    size_t np;            /* parameters of the state, in its order */
    uint64_t rows;        /* rows read */
    size_t nb;            /* buckets used */
    uint64_t per;         /* rows per bucket */
    bool have_theta;      /* every parameter has its column */
    bool have_ck;         /* and its c_k column */
    bool have_wl;         /* wins and losses columns */
    /* per bucket b */
    double *g_first, *g_last;   /* games after the bucket's first and last row */
    double *el_last;            /* elapsed_s after its last row */
    double *score_last;         /* cumulative wins - losses of the `+` engine after its last row */
    /* per bucket and parameter: [b * np + p] */
    double *t_min, *t_max;      /* smallest and largest theta */
    bool *min_first;            /* the smallest came before the largest */
    double *band_lo, *band_hi;  /* min(theta - c_k), max(theta + c_k) */
    /* exact tails (as `status`): the last ceil(rows/10) rows and the ones before them */
    uint64_t tail_rows;
    double tail_g0;             /* games before the first tail row */
    double *tail_sum, *prev_sum;/* per parameter */
    uint64_t prev_rows;
    /* the first row with k > avg_k0 (the averaging window), if asked */
    double avg_g0;
} HistScan;

/* Scan DIR/history.csv against st's parameters, at most maxrows rows (the
 * rows the state counts), into at most `buckets` buckets.  avg_k0: the k
 * after which iterate averaging counts (avg_g0 is left NAN when no row has a
 * larger k).  0, or -1 with a message naming the file and line. */
int histscan_read(const char *dir, const SpsaState *st, uint64_t maxrows, size_t buckets, uint64_t avg_k0,
                  HistScan *out, char *err, size_t errlen);
void histscan_free(HistScan *h);

/* The same as a view of a pass of hist_scan (with others): out is zeroed
 * when the visitor is made, and filled by the pass. */
typedef struct {
    HistScan *h;
    size_t buckets;
    uint64_t avg_k0;
    HistTail tail;
    double score, prev_games;   /* the cumulative score and the games before the row */
} HistScanView;
HistVisitor histscan_visitor(HistScanView *view, size_t buckets, uint64_t avg_k0, HistScan *out);

#endif
