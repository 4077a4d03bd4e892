/* Ask an engine what it can be told: start it once, read its `id name` and
 * every `option name X type T [default D] [min A] [max B]` line of the UCI
 * handshake, and quit it.  The tuner checks a run's parameters against
 * these before any game is played. */
#ifndef RATCHET_PROBE_H
#define RATCHET_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "match.h"

typedef struct {
    char name[64];
    char type[16];      /* "spin", "check", "combo", "button", "string" */
    bool has_min, has_max;
    long long min, max;
} ProbeOption;

typedef struct {
    char id_name[64];
    ProbeOption *opts;
    size_t n;
} ProbeResult;

/* Start the engine of spec (its command, arguments, directory, options and
 * start-up deadline), read the handshake, quit it.  0, or -1 with a message
 * naming the engine. */
int probe_engine(const EngineSpec *spec, ProbeResult *out, char *err, size_t errlen);
/* The option of that name (the same words, case ignored, as UCI), or NULL. */
const ProbeOption *probe_find(const ProbeResult *r, const char *name);
/* The option whose name is nearest to name by edit distance (case
 * ignored), for "the closest option it has" messages; NULL if none. */
const ProbeOption *probe_nearest(const ProbeResult *r, const char *name);
void probe_free(ProbeResult *r);

/* Parse a line containing `option name ...`; the name is its words joined
 * by single spaces (uciopt_words).  0, or -1 if malformed. */
int probe_parse_option(const char *line, ProbeOption *o);

#endif
