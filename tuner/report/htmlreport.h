/* The run and the match as one self-contained HTML page: every chart is
 * inline SVG (drawn by tuner/report/plot.h), no script, no stylesheet or font from
 * the network, so the file opens from disk anywhere.
 *
 * A run's page reads only what the run writes (DIR/state.json and
 * DIR/history.csv, through tuner/report/histscan.h, decimated for drawing) and
 * never reaches into the runner: a chart of every tuned parameter (theta
 * against games, the start value, the bounds, the band theta +/- c_k, the
 * last-10% mean and the `status` flags), an overview of all parameters in
 * units of their c_end, the run's health (games/s, the cumulative score of
 * theta+c against theta-c, the pentanomial counts, failures per engine),
 * the configuration and provenance, and the export and bake commands.
 *
 * A match's page: Elo with its 95% interval over the games played, the
 * SPRT log-likelihood ratio against its bounds, the pentanomial counts. */
#ifndef RATCHET_HTMLREPORT_H
#define RATCHET_HTMLREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match.h"
#include "sprt.h"

#define REPORT_FILE "report.html"
#define REPORT_RELOAD_S 60 /* a live page reloads itself this often */

/* Charts on a run's page: one per tuned parameter plus these. */
#define HTML_RUN_EXTRA_CHARTS 4 /* overview, games/s, cumulative score, pentanomial */

typedef enum {
    HTML_RUN_AUTO,  /* live when another process holds the run's lock */
    HTML_RUN_LIVE,  /* the run is going: the page reloads itself */
    HTML_RUN_FINAL  /* the run has stopped or finished */
} HtmlRunMode;

/* Write the page of the run in dir to out (atomically).  0, or -1 with a
 * message when the state cannot be read or out cannot be written.  A
 * history.csv that cannot be read gives a page without trajectories that
 * says why. */
int htmlreport_run(const char *dir, const char *out, HtmlRunMode mode, char *err, size_t errlen);

/* A match's history for its page: the estimate after every `every` pairs,
 * thinned (every other point dropped, `every` doubled) when it fills, so a
 * match of any length keeps at most MATCH_SERIES_MAX points. */
#define MATCH_SERIES_MAX 1024
typedef struct {
    double games, elo, lo, hi, llr;
} MatchPoint;

typedef struct {
    MatchPoint *p;
    size_t n;
    uint64_t every, seen;
} MatchSeries;

/* Count one more result; record a point when it is due. */
void match_series_add(MatchSeries *s, const MatchTally *t, const SprtSpec *sprt);
void match_series_free(MatchSeries *s);

/* Write the page of a match to out (atomically).  stop (may be NULL): the
 * SPRT verdict that stopped it, as match_report takes it.  live: the match
 * is still going (the page reloads itself).  0, or -1 with a message. */
int htmlreport_match(const char *out, const MatchConfig *cfg, const MatchTally *t, const SprtSpec *sprt,
                     const SprtStop *stop, const MatchSeries *ser, bool live, char *err, size_t errlen);

#endif
