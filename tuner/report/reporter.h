/* DIR/report.html kept current while a run plays: a thread of its own that
 * watches DIR/state.json and, after a checkpoint, rewrites the page from the
 * files the run wrote (tuner/report/htmlreport.h), so the runner is never held up
 * by it and never reached into.
 *
 * Cost: the page is rewritten after a checkpoint only once at least
 * max(REPORTER_MIN_S, REPORTER_COST_RATIO x the time the last one took) has
 * passed, so drawing it takes at most 1/REPORTER_COST_RATIO of one core
 * whatever the length of history.csv.  The page itself reloads every
 * REPORT_RELOAD_S seconds. */
#ifndef RATCHET_REPORTER_H
#define RATCHET_REPORTER_H

#define REPORTER_MIN_S 10.0
#define REPORTER_COST_RATIO 50.0

typedef struct Reporter Reporter;

/* Start watching dir.  NULL (with a warning on stderr) if the thread cannot
 * start: the run goes on without a live page. */
Reporter *reporter_start(const char *dir);
/* Stop the thread and write the final page (the run has stopped or ended). */
void reporter_finish(Reporter *r);

#endif
