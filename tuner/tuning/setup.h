/* From settings to a run that can start.  Everything `run` and `resume`
 * check before the first game, each refusal naming the setting:
 *   - the settings themselves (conf.h): unknown sections and keys, and
 *     the game and engine options through the match runner's own parser;
 *   - out: a new or empty directory;
 *   - params.file: the spec (spec.h: min > max, a value outside its range,
 *     a bad line), params.only: names that are in the spec;
 *   - spsa.*: numbers in range; the schedule (spsa_init);
 *   - openings.file: readable and with usable positions;
 *   - the engine, started once (probe.h): every tuned parameter is an
 *     `option name X type spin` whose range holds the spec's (a float
 *     parameter may also be a `type string` option), every fixed parameter
 *     and every option.X setting is one of its options (a check option's
 *     value is true or false, a spin option's an integer in its range).
 * Paths are stored absolute so a resume works from any directory. */
#ifndef RATCHET_SETUP_H
#define RATCHET_SETUP_H

#include <stddef.h>

#include "match.h"
#include "state.h"

/* A new run from `run`'s arguments (without the subcommand name): rs gets
 * the merged settings, the SPSA state, the fixed parameters, the engine's
 * name and the time control; dir the absolute run directory; *mcp the
 * finished match configuration (free with setup_free_match).  Nothing is
 * created on disk.  0, or -1 with a message. */
int setup_new_run(RunState *rs, char *dir, size_t dirlen, MatchConfig **mcp, int argc, char **argv, char *err,
                  size_t errlen);
/* The match configuration of rs's settings: one -engine spec for both
 * sides (named NAME+ and NAME-), the fixed parameters as engine options.
 * 0, or -1 with a message (*mcp may then still need setup_free_match). */
int setup_match(RunState *rs, MatchConfig **mcp, char *err, size_t errlen);
/* The run's validation at the user's limit (validate.tc=, st=, nodes=,
 * depth=: validate.h) into rs->val: the run's limit mc->eng[0].tc with
 * those replaced.  None given: no limit of its own.  setup_match calls it.
 * 0, or -1 with a message. */
int setup_validation_limit(RunState *rs, const MatchConfig *mc, char *err, size_t errlen);
/* Start the engine once and check the parameters and options against what
 * it advertises; sets rs->engine to its `id name` and rs->to_spin (float
 * parameters of spin options, sent rounded: said once on stderr); a fixed
 * float parameter of a spin option gets its rounded value in mc.  A name
 * the engine lacks is refused naming the closest option it has, and so is
 * a limit of validation (rs->val, setup_validation_limit) with nodestime=
 * for an engine without the nodestime option.  0, or -1 with a message. */
int setup_check_engine(RunState *rs, MatchConfig *mc, char *err, size_t errlen);

/* resume -engine cmd=PATH: the run's engine named anew, kept in the state
 * as setup keeps it (absolute unless it is a bare name or engine.dir is
 * set).  -1 when out of memory. */
int setup_engine_cmd(RunConf *c, const char *cmd);
/* resume of the run in dir: out becomes dir, and when the run directory
 * was moved or copied there from the out it was started in, the files it
 * kept in that directory (pgnout.file, log.file) are named in dir, so that
 * a copy plays on in its own files and never writes into the directory it
 * came from.  moved (may be NULL) gets the old directory, or "" when it did
 * not move.  -1 when out of memory. */
int setup_run_dir(RunConf *c, const char *dir, char *moved, size_t movedlen);
/* The run's engine program (engine.cmd of c, the run in dir) is there to
 * run, or -1 with a message that says how to name it anew when it moved. */
int setup_engine_present(const RunConf *c, const char *dir, char *err, size_t errlen);
void setup_free_match(MatchConfig *mc);
/* The setoption text of value v of tuned parameter i in batch b: an
 * integer, a decimal for a float parameter, or for a float parameter of a
 * spin option (rs->to_spin) v rounded with the batch's shared uniform. */
void setup_value_text(const RunState *rs, const SpsaBatch *b, size_t i, double v, char *buf, size_t len);
/* spsa.form of the settings (SPSA_FORM_DEFAULT when absent).  0, or -1
 * with a message naming an unknown form. */
int spsa_form_from(const RunConf *c, SpsaForm *form, char *err, size_t errlen);
/* The shipped book, openings/default.epd, beside the program's bin/
 * directory or in the current one: true with its path, else false. */
bool setup_default_book(char *path, size_t len);
/* The program's name as invoked, for the commands printed to the user. */
const char *setup_prog(void);
/* A command that runs others in the same process (the night runs its
 * steps so) names itself here while they run; they then leave their
 * closing hints (export it, resume it, continue it) to it, which names
 * the one command that goes on.  NULL: each command prints its own. */
void setup_set_caller(const char *name);
const char *setup_caller(void);

#endif
