/* A run's recent pace, from history.csv's play time (elapsed_s): the games
 * of the rows in its last HISTRATE_SPAN seconds of play over the seconds
 * they took.  A run played in several sittings under different loads is
 * paced by its latest play, where the games over all its play time average
 * every sitting.  A step from one row to the next far longer than the
 * window's typical step (more than HISTRATE_GAP times its median: a
 * validation point played between the two rows) counts neither its
 * seconds nor its games, so the pace is of the run's games alone, which
 * validation plays at the same limit. */
#ifndef RATCHET_HISTRATE_H
#define RATCHET_HISTRATE_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define HISTRATE_SPAN 3600.0 /* seconds of play the pace is taken over */
#define HISTRATE_MIN 600.0   /* fewer seconds than this give no pace */
#define HISTRATE_ROWS 8192   /* the last rows kept (at one pair a row, 16,384 games) */
#define HISTRATE_GAP 20.0

typedef struct {
    uint64_t from, n;       /* the rows kept: [from, from + n) of the pass */
    double *games, *el;     /* games and elapsed_s after each kept row */
} HistRate;

/* The view for a pass of hist_scan (it needs the games and elapsed_s
 * columns); r is zeroed when the visitor is made, and freed by
 * hist_rate_free. */
HistVisitor hist_rate_visitor(HistRate *r);
void hist_rate_free(HistRate *r);

/* Games per second over the kept rows' last HISTRATE_SPAN seconds of play,
 * *secs the seconds it rests on; NAN (and *secs 0) when those rows hold
 * fewer than HISTRATE_MIN seconds of play. */
double hist_rate(const HistRate *r, double *secs);

/* The same from DIR/history.csv's first maxrows rows in a pass of its own:
 * NAN when the file cannot be read or holds too little play. */
double hist_rate_read(const char *dir, const SpsaState *st, uint64_t maxrows, double *secs);

#endif
