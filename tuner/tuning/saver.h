/* Checkpoints of a run written by a thread of their own, so the runner's
 * lock is never held across an fsync (about 25 ms here: a pair of workers
 * would otherwise wait on the disk after every batch, and many workers on
 * each other).
 *
 * A completed batch queues its history.csv row and the text of the state
 * that counts it.  The thread appends every queued row, syncs history.csv,
 * then replaces state.json with the newest queued state.  So the state on
 * disk never counts a row that is not in history.csv, and when batches end
 * faster than the disk syncs, several are saved by one write.  A batch whose
 * checkpoint has not reached the disk when the process is killed is still in
 * flight in the state on disk: a resume plays it again.  After a failed
 * write nothing more is written (the state on disk stays consistent); a
 * state that would not load again (runstate_check_text) counts as a failed
 * write, found before its rows are appended. */
#ifndef RATCHET_SAVER_H
#define RATCHET_SAVER_H

#include <stdbool.h>
#include <stddef.h>

#include "hist.h"

typedef struct Saver Saver;

/* Start the thread; it appends to hist and replaces state_path.  NULL with
 * a message on failure. */
Saver *saver_start(History *hist, const char *state_path, char *err, size_t errlen);
/* Queue a row (len bytes; 0 = none, the state alone) and the state text that
 * counts it; takes ownership of both malloc'd strings. */
void saver_push(Saver *s, char *row, size_t len, char *state);
/* True once a write failed; the message goes to err. */
bool saver_failed(Saver *s, char *err, size_t errlen);
/* Write what is queued, stop the thread, free.  0, or -1 with the message
 * of the first failed write. */
int saver_finish(Saver *s, char *err, size_t errlen);

#endif
