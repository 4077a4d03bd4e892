/* The configuration of a tuning run: `section key=value` settings from the
 * command line and from a JSON file (`-config file=run.json`), merged with
 * the command line winning key by key, and written back as JSON into the
 * run's state so `resume` rebuilds exactly the same run.
 *
 * Command line: `-SECTION key=value ...` for sections of keys (engine, each,
 * openings, draw, resign, pgnout, log, params, spsa, config) and
 * `-SECTION VALUE` for single values (concurrency, srand, maxmoves, out).
 * `-pgnout F`, `-log F` and `-config F` are short for `file=F`.
 * `-repeat` and `proto=uci` are accepted and ignored: a run always plays
 * pairs, and UCI is the only protocol.
 *
 * JSON: an object with the same sections as members, e.g.
 *     { "engine": { "cmd": "bin/ratchet", "option.Hash": 16 },
 *       "each": { "nodes": 20000 }, "concurrency": 2,
 *       "params": { "file": "params/engine.json", "only": ["LmpBase"] },
 *       "spsa": { "games": 20000 }, "out": "runs/night" }
 * Nested objects are flattened with dots ({"option": {"Hash": 16}} is
 * `option.Hash=16`), arrays are joined with commas.
 *
 * Which keys a section takes: `params` (file, only), `spsa` (games,
 * pairs-per, A-ratio, alpha, gamma) and `config` (file) are checked here;
 * the game and engine sections are checked by the match runner's parser,
 * which gives them exactly the meaning they have in `match`. */
#ifndef RATCHET_CONF_H
#define RATCHET_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

typedef struct {
    char *sec;          /* "engine", "spsa", "out", ... */
    char *key;          /* "cmd", "option.Hash", ...; "" for a single-value section */
    char *val;
    const char *origin; /* where it came from, for messages (a static string or the file name) */
} ConfItem;

typedef struct {
    ConfItem *v;
    size_t n, cap;
    char *origin_file;  /* owned copy of the -config file name, used as an origin */
} RunConf;

void conf_init(RunConf *c);
void conf_free(RunConf *c);

/* The value, or NULL. */
const char *conf_get(const RunConf *c, const char *sec, const char *key);
const ConfItem *conf_find(const RunConf *c, const char *sec, const char *key);
/* Set (replacing an earlier value of the same section and key).  0 or -1 (OOM). */
int conf_set(RunConf *c, const char *sec, const char *key, const char *val, const char *origin);
/* Remove a setting if present. */
void conf_unset(RunConf *c, const char *sec, const char *key);

/* Parse argv[0..argc) as settings (no subcommand name).  `allowed`: a
 * NULL-terminated list of the sections this command takes, or NULL for all.
 * 0, or -1 with a message naming the option. */
int conf_parse_args(RunConf *c, int argc, char **argv, const char *const *allowed, char *err,
                    size_t errlen);
/* Add the settings of a JSON object (origin names it in messages). */
int conf_from_json(RunConf *c, const cJSON *obj, const char *origin, char *err, size_t errlen);
/* Read a JSON file and add its settings. */
int conf_load_file(RunConf *c, const char *path, char *err, size_t errlen);
/* Settings of `over` replace or extend those of c. */
int conf_merge(RunConf *c, const RunConf *over);
/* The settings as a JSON object in the file format above (NULL on OOM). */
cJSON *conf_to_json(const RunConf *c);

/* The command-line words of one match section: "-each", "nodes=100", ... or
 * "-concurrency", "2".  Appends to *argv (a malloc'd NULL-terminated array
 * of malloc'd strings, *argc entries); `name`, if not NULL, adds name=NAME
 * (used to name the two engines of a run).  Returns the number of items of
 * the section that were written (0 if the section is absent) or -1 on OOM. */
int conf_section_argv(const RunConf *c, const char *sec, const char *name, int *argc, char ***argv);
/* Appends a copy of s to such an argv; 0, or -1 on OOM. */
int conf_argv_push(int *argc, char ***argv, const char *s);
void conf_free_argv(int argc, char **argv);

/* Unsigned and double values with checks; -1 with a message naming
 * "section.key" if the value is not a number in [lo, hi]. */
int conf_get_u64(const RunConf *c, const char *sec, const char *key, unsigned long long lo,
                 unsigned long long hi, unsigned long long *out, char *err, size_t errlen);
int conf_get_double(const RunConf *c, const char *sec, const char *key, double lo, double hi,
                    double *out, char *err, size_t errlen);
/* "section.key" or "section" for messages. */
void conf_field(const char *sec, const char *key, char *buf, size_t len);

#endif
