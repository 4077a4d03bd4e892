/* `ratchet-tune export DIR [-o FILE]`: the value file of a run,
 *   { "params": { NAME: number, ... }, "source": "ratchet-tune", "run": NAME,
 *     "games": N, "date": ISO date, "engine": id name, "tc": time control }
 * with every parameter of the run's spec in spec order: the tuned ones at
 * their current estimate (theta rounded, or the iterate average when the
 * run averages; a float parameter unrounded), the others at their spec
 * value.  NAME is the UCI option name, spaces included ("Skill Level").  It is what
 * `bin/ratchet --params FILE` and `make PARAMS=FILE` read. */
#ifndef RATCHET_EXPORT_H
#define RATCHET_EXPORT_H

#include <cjson/cJSON.h>

#include "state.h"

/* The value file as JSON (NULL on OOM); run_name is the "run" member. */
cJSON *export_values(const RunState *rs, const char *run_name);
/* -snapshot WHICH (last or NULL: 0, the current values; best: the point of
 * highest Elo, with the selection-bias warning on stderr; K) -> the point
 * number *k.  0, or -1 with a message naming the choices. */
int export_snapshot_number(const char *dir, const RunState *rs, const char *which, uint64_t *k, char *err,
                           size_t errlen);
/* DIR/snapshots/K.json, checked against the run's spec: a "params" object
 * that holds every parameter of the run once and nothing else, each a
 * finite number, an integer unless the parameter is a float, a tuned one
 * within its range; "games" a whole number.  A snapshots directory or file
 * that is a symbolic link, a FIFO or anything but what it should be is
 * refused.  The JSON, or NULL with a message naming the file and what is
 * wrong. */
cJSON *export_snapshot_load(const char *dir, const RunState *rs, uint64_t k, char *err, size_t errlen);
/* The check of export_snapshot_load on a parsed snapshot (path for
 * messages).  0, or -1 with a message. */
int export_snapshot_check(const RunState *rs, const cJSON *j, const char *path, char *err, size_t errlen);
/* Exit code 0, 1 on failure, 2 on a usage error. */
int export_main(int argc, char **argv);

#endif
