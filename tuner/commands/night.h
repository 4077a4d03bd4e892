/* `ratchet-tune night`: the whole morning in one command.  A night is a
 * run directory and DIR/night.json, its plan and where it stands.  Its steps,
 * each the command a user would type, each resumable:
 *   spsa      `run` (then `resume`) at the run's limit, with its validation;
 *   ablation  `verify DIR -ablate` at the same limit, with the additivity check;
 *   export    `export DIR -ablation keep=pays` into DIR/night/kept.json, with
 *             the kept groups' prediction;
 *   confirm   `verify DIR -tuned DIR/night/kept.json` at the user's limit
 *             (by default the run's clock on the wall), on openings no earlier
 *             step played; for bin/ratchet it bakes the values into
 *             DIR/verify/ratchet-tuned;
 *   morning   DIR/morning.txt: what moved, what the ablation kept and why, the
 *             prediction and the confirmation, the bake command and the
 *             OpenBench/fishtest lines of the kept values.
 * Sized by time: -hours H (default 8) is split by a rule written in
 * night.c from rates measured on this machine before the run starts; -games,
 * -ablation-pairs and -confirm-pairs give the sizes in games instead.
 *
 * DIR/night.json (written atomically after every step):
 *   { "version": 1, "created", "hours", "until",
 *     "plan": { "spsa_games", "ablation_pairs", "confirm_pairs", "holdout",
 *               "rate_run", "rate_confirm" (games per second, 0 = not measured),
 *               "rule" },
 *     "confirm_limit": [words of -each], "force": bool,
 *     "steps": [{ "name", "status": "todo"|"running"|"done"|"stopped"|"failed", "exit" }] }
 * ("running" while the step plays, and after a process that was killed:
 * `status` then says "interrupted", as no process holds the run). */
#ifndef RATCHET_NIGHT_H
#define RATCHET_NIGHT_H

#include "rd.h"

#define NIGHT_FILE RD_NIGHT_FILE

/* argv[0] = "night".  Exit codes: 0 the night's steps (to -until) are done;
 * 1 a step failed (its message says why; `night DIR` continues after the
 * fix); 2 bad usage or run directory; 128 + N stopped by signal N (`night
 * DIR` continues). */
int night_main(int argc, char **argv);

#endif
