/* `export DIR -ablation keep=pays`: the run's values with only the groups
 * that a finished ablation (DIR/ablation.json, written by `verify DIR
 * -ablate`, ablate.h) judged worth keeping at their tuned values. */
#ifndef RATCHET_ABLATE_KEEP_H
#define RATCHET_ABLATE_KEEP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "state.h"

/* keep: the verdicts whose groups keep their tuned values, "pays" or
 * "pays,unclear" (also "unclear,pays").  values is the run's current value
 * file (export_values); every parameter the ablation saw move (its "tuned"
 * differs from its "base") and whose group's verdict is not kept, or which
 * is in no group, goes back to its start value.  The groups kept and reset
 * go to stderr and to values' "ablation" member.  -1 with a message when
 * DIR/ablation.json is missing, unfinished, malformed, or was played on
 * other values than the run's current ones (the run moved on since), or
 * when a start value it would write is not one rs can play
 * (runstate_check_value). */
int ablate_keep(const char *dir, const RunState *rs, cJSON *values, const char *keep, char *err, size_t errlen);

#endif
