/* The `run` and `resume` commands: set a run up (setup.h) or load it,
 * play it (tuning.h) with the live report beside it (reporter.h), and print
 * the parameter table when it is complete (report.h).  See run_cmd.h. */
#include "run_cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "cliutil.h"
#include "engcheck.h"
#include "errmsg.h"
#include "morning.h"
#include "reporter.h"
#include "conf.h"
#include "state.h"
#include "tuning.h"
#include "rd.h"
#include "setup.h"
#include "spsa.h"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* The sections `resume` may change. */
static const char *const RESUME_SECTIONS[] = { "spsa", "concurrency", "engine", NULL };

static const char RUN_USAGE[] =
    "usage: ratchet-tune run -engine cmd=PATH [args=\"...\"] [option.X=V ...]\n"
    "                        -params file=SPEC [only=NAME,NAME,...]\n"
    "                        -each nodes=N|depth=N|st=S|tc=...\n"
    "                        [-openings file=F [format=epd|pgn] [order=random|sequential]]\n"
    "                        -spsa games=N [form=settle|far|adam|classic] [pairs-per=P] [A-ratio=0.1]\n"
    "                              [alpha=0.602] [gamma=0.101] [eta=X] [probe=X] [narrow=0|1] [adapt=0|1] [centre=F] [average=F]\n"
    "                        [-validate every=F games=N final=M holdout=F tc=|nodes=|st=|depth= | -validate off]\n"
    "                        -out DIR [-concurrency N] [-srand N] [-pgnout file=F]\n"
    "       ratchet-tune run -config file=run.json [options, which override the file key by key]\n"
    "\n"
    "Tunes the UCI options listed in SPEC (spin options; string options for floats) by SPSA:\n"
    "each iteration plays P game pairs (both games from one opening, colours swapped) between\n"
    "the engine with theta + c_k*flip and the same engine with theta - c_k*flip.  In the\n"
    "classic fishtest/OpenBench form theta moves by\n"
    "R_k*c_k*(wins-losses)*flip with the gains the batch was handed out with.  The default form,\n"
    "settle, probes at 4.5 times the classic c_k and moves theta by eta*c_end*(W-L)*flip/sqrt(v), v the\n"
    "running mean of (W-L)^2: a step is a fraction of c_end whatever r_end is, the same at every\n"
    "iteration, with eta from the budget and the parameter count, smaller the more games: a\n"
    "parameter the games do not see wanders less the longer the run.  form=far (called rms before)\n"
    "starts with steps about 18 times its last and travels further on noise: for values known to be\n"
    "poor (see docs/spsa-forms.md).\n"
    "\n"
    "  -params file=SPEC   a Ratchet spec (`bin/ratchet params`, params/engine.json) or\n"
    "                      OpenBench/fishtest lines `name, int, value, min, max, c_end, r_end`;\n"
    "                      names are UCI option names and may hold spaces (Skill Level);\n"
    "                      `name, float, ...` is tuned unrounded and sent as a decimal (to a\n"
    "                      `type string` option; a `type spin` one gets it rounded)\n"
    "      only=A,B,...    tune only these; the other parameters of SPEC are sent to both\n"
    "                      engines with their SPEC value (and exported with it)\n"
    "  -openings file=F    the book; without -openings, openings/default.epd (next to bin/,\n"
    "                      or in the current directory) in random order\n"
    "  -spsa games=N       total games (N/(2P) iterations, rounded up)\n"
    "      pairs-per=P     game pairs per iteration (default 1)\n"
    "      form=NAME       settle (default: for values already good), far (rms before: for\n"
    "                      values known to be poor, e.g. recovering a detune), adam (far with\n"
    "                      momentum 0.9) or classic (docs/spsa-forms.md)\n"
    "      A-ratio=X alpha=X gamma=X   the schedule (defaults 0.1, 0.602, 0.101)\n"
    "      eta=X           the step at the end of the run, as a fraction of c_end (default:\n"
    "                      settle 0.036 * sqrt(8 / parameters) * (5000 / iterations)^0.7, the same\n"
    "                      at every iteration; far and adam 0.025 * (8 / parameters) *\n"
    "                      sqrt(5000 / iterations), about 18x larger at the start)\n"
    "      probe=X         the probe is X times the classic c_k (default: settle 4.5, far 4)\n"
    "      narrow=0|1      not classic: near a bound the probe narrows to the room left, down to the\n"
    "                      classic c_k (default 1)\n"
    "      adapt=0|1       not classic: each parameter's step scale is measured from the games,\n"
    "                      c_end is its starting hint (default 0; docs/spsa-forms.md)\n"
    "      centre=F        not classic: a fraction F of batches plays theta + c against theta, and\n"
    "                      each probe shrinks where that costs too much (default 0; docs/spsa-forms.md)\n"
    "      average=F       also keep the mean of theta over the last fraction F of the run\n"
    "                      (reported and exported instead of theta; default settle 0.25,\n"
    "                      the others 0 = off)\n"
    "  -validate           validation points (a new run has them unless -validate off):\n"
    "      every=F         at each fraction F of the budget (default 0.5), play the values export\n"
    "                      would write then against the start values, on held-out openings;\n"
    "                      DIR/validation.csv gets the point (games, Elo, error bar, pentanomial\n"
    "                      counts), DIR/snapshots/K.json the values (`export -snapshot K`).  The\n"
    "                      final values (the end of the budget) always get a point of their own\n"
    "      games=N         games a point before the end (even; 0 or `-validate off`: no points)\n"
    "      final=M         games of the final point (even; default: N when games=N is given)\n"
    "                      Default: about 10% of the budget, 80% of it in the final point, the\n"
    "                      rest spread over the others (docs/results/validation-power.md)\n"
    "      tc=, nodes=, st=, depth=  also play every point at this limit (the one you play, e.g.\n"
    "                      tc=2+0.02 while tuning at nodes=5000), on the same openings, after its\n"
    "                      pairs at the run's limit: DIR/validation-limit.csv; status and the\n"
    "                      report show both and warn when they disagree (doubles validation's cost)\n"
    "      holdout=F       the share of the book kept out of the tuning for validation and\n"
    "                      `verify` (default 0.2; the last F of the run's opening order)\n"
    "  -out DIR            the run directory: must not exist or be empty\n"
    "  -srand N            seeds the SPSA flips and roundings and the opening order (default:\n"
    "                      from the clock; kept in the state, so a resume continues the same)\n"
    "  -config file=F      the same settings as a JSON object, e.g.\n"
    "      {\"engine\": {\"cmd\": \"bin/ratchet\"}, \"each\": {\"nodes\": 20000},\n"
    "       \"openings\": {\"file\": \"openings/default.epd\", \"order\": \"random\"},\n"
    "       \"params\": {\"file\": \"params/engine.json\", \"only\": [\"LmpBase\", \"LmpScale\"]},\n"
    "       \"spsa\": {\"games\": 40000}, \"concurrency\": 2, \"out\": \"runs/night\"}\n"
    "\n"
    "Before any game, the run checks every setting: unknown keys, a SPEC parameter the engine\n"
    "does not advertise as `option name X type spin` (the engine is started once to ask; the\n"
    "message names the closest option it has), min > max, a value outside its range, a bound\n"
    "outside the engine's, an option.X=V the engine lacks or that does not fit its type (a\n"
    "check option takes true or false), a missing book.\n"
    "\n"
    "The run directory: state.json (configuration, theta, iteration, RNG, batches in flight,\n"
    "counters; replaced atomically after every completed batch), history.csv (one row per\n"
    "completed batch: row, k, games, wins, losses, draws, elapsed_s, theta of every parameter,\n"
    "then c_k.NAME and R_k.NAME; names with spaces quoted as CSV requires), validation.csv and\n"
    "snapshots/ (see -validate), a lock file. Ctrl-C or SIGTERM: no new games, the games in\n"
    "flight are abandoned, the state is saved and the resume command printed (a second Ctrl-C\n"
    "quits at once; the state on disk is still whole). With pairs-per > 1, the pairs of a batch\n"
    "that already finished are kept in the state (run.partial, with their fault counts) and\n"
    "resume plays only the rest of that batch; a pair that was abandoned is played again from\n"
    "its start. After a SIGKILL or a power cut, resume replays the batches that were in flight\n"
    "from the last checkpoint (pairs kept there included); finished batches are never lost or\n"
    "counted twice.\n"
    "\n"
    "Exit codes: 0 all games played; 1 stopped by an error; 2 bad usage or configuration\n"
    "(nothing played); 128+N stopped by signal N (resumable).\n"
    "\n"
    "Game and engine options, as in `ratchet-tune match` (one -engine: both sides run it):\n";

static const char RESUME_USAGE[] =
    "usage: ratchet-tune resume DIR [-spsa games=N] [form=NAME] [-concurrency N] [-engine cmd=PATH]\n"
    "                            [-force]\n"
    "\n"
    "Continues the run in DIR exactly where its state.json says: same engine, options,\n"
    "openings order, theta, iteration counter and random numbers.  Batches that were in\n"
    "flight when the run stopped (Ctrl-C, SIGTERM, SIGKILL, a crash) are played again with\n"
    "the values and gains they were handed out with.  The engine is started once first to\n"
    "check that it still has every parameter.\n"
    "\n"
    "  -spsa games=N    extend (or shorten) the run to N games in total.  The gain schedule\n"
    "                   is recomputed for the new total N' = ceil(games / (2 P)) iterations:\n"
    "                   A, c and a are recomputed with N' in place of N, theta is kept and the\n"
    "                   iteration counter k continues from where it was, so the run goes on as\n"
    "                   if it had been started with N' iterations (c_k and R_k reach c_end and\n"
    "                   r_end at k = N').  Batches already in flight keep the gains they were\n"
    "                   handed out with.  N' may not be below the iterations already handed out.\n"
    "                   In the rms and adam forms the step eta_k is recomputed the same way.\n"
    "      form=NAME    checks the run's form: a run keeps the form it was started with\n"
    "  -concurrency N   play N games at once from now on\n"
    "  -engine cmd=PATH the run's engine is now at PATH (moved or copied): checked as below,\n"
    "                   its path and mtime aside, and recorded for the steps after\n"
    "  -force           continue even if the engine is not the one the run started with\n"
    "                   (state.json records its id name, program size and mtime, and bench\n"
    "                   signature; without -force a difference is refused, naming what changed)\n"
    "\n"
    "Exit codes as for `run`.\n";

static void print_final(Run *r)
{
    MorningRun m;
    morning_read(&m, r->dir, &r->rs, MORNING_TABLE);
    if (m.hist_err[0])
        run_msg_err("%s", m.hist_err);
    morning_summary(stdout, &m);
    morning_free(&m);
}

/* DIR/report.html while the run plays, from the files the saver writes. */
static void live_report_start(void *ctx, Run *r) { *(Reporter **)ctx = reporter_start(r->dir); }
static void live_report_finish(void *ctx, Run *r)
{
    (void)r;
    reporter_finish(*(Reporter **)ctx);
}
static void final_table(void *ctx, Run *r)
{
    (void)ctx;
    print_final(r);
}

/* A session of play with the live report and, when the run completes, the table. */
static int play(Run *r)
{
    Reporter *rep = NULL;
    RunObserver obs = {.started = live_report_start, .stopped = live_report_finish, .complete = final_table,
                       .ctx = &rep};
    return run_play(r, &obs);
}

int run_main(int argc, char **argv)
{
    int pre = cli_preamble(argc, argv, RUN_USAGE, match_print_options, CLI_ANY);
    if (pre >= 0)
        return pre;
    rules_init();
    Run r;
    memset(&r, 0, sizeof r);
    r.lockfd = -1;
    runstate_init(&r.rs);
    char err[2048];
    if (setup_new_run(&r.rs, r.dir, sizeof r.dir, &r.mc, argc - 1, argv + 1, err, sizeof err) < 0) {
        run_msg_err("%s", err);
        run_free(&r);
        return EXIT_USAGE;
    }
    if (rd_mkdir_p(r.dir, err, sizeof err) < 0 || (r.lockfd = rd_lock(r.dir, err, sizeof err)) < 0) {
        run_msg_err("%s", err);
        run_free(&r);
        return EXIT_USAGE;
    }
    char sp[PATH_MAX + 16];
    snprintf(sp, sizeof sp, "%s/%s", r.dir, STATE_FILE);
    if (access(sp, F_OK) == 0) {
        run_msg_err("out: '%s' was taken by another run meanwhile", r.dir);
        run_free(&r);
        return EXIT_USAGE;
    }
    int rc = play(&r);
    run_free(&r);
    return rc;
}

/* ---- resume ----------------------------------------------------------------------- */

int resume_main(int argc, char **argv)
{
    int pre = cli_preamble(argc, argv, RESUME_USAGE, NULL, CLI_DIR_FIRST);
    if (pre >= 0)
        return pre;
    rules_init();
    Run r;
    memset(&r, 0, sizeof r);
    r.lockfd = -1;
    runstate_init(&r.rs);
    char err[2048];
    RunConf over;
    conf_init(&over);
    int rc = EXIT_USAGE;
    /* -force: accept a different engine (engcheck.h); the rest are settings. */
    bool force = false;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "-force") == 0) {
            force = true;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            argc--;
            i--;
        }
    if (conf_parse_args(&over, argc - 2, argv + 2, RESUME_SECTIONS, err, sizeof err) < 0)
        goto fail;
    for (size_t i = 0; i < over.n; i++) {
        if (strcmp(over.v[i].sec, "spsa") == 0 && strcmp(over.v[i].key, "games") != 0 &&
            strcmp(over.v[i].key, "form") != 0) {
            errmsg(err, sizeof err, "resume: only -spsa games=N can change (not spsa.%s)", over.v[i].key);
            goto fail;
        }
        if (strcmp(over.v[i].sec, "engine") == 0 && strcmp(over.v[i].key, "cmd") != 0) {
            errmsg(err, sizeof err,
                   "resume: of the engine only its program can be named anew, -engine cmd=PATH (not engine.%s: the "
                   "run keeps its engine's options and limits)",
                   over.v[i].key);
            goto fail;
        }
    }
    rd_abs_path(argv[1], r.dir, sizeof r.dir);
    char sp[PATH_MAX + 16];
    snprintf(sp, sizeof sp, "%s/%s", r.dir, STATE_FILE);
    if (access(sp, F_OK) != 0) {
        errmsg(err, sizeof err, "'%s' is not a run directory (no %s)", argv[1], STATE_FILE);
        goto fail;
    }
    if ((r.lockfd = rd_lock(r.dir, err, sizeof err)) < 0)
        goto fail;
    runstate_free(&r.rs);
    if (runstate_load(&r.rs, r.dir, err, sizeof err) < 0)
        goto fail;
    RunState *rs = &r.rs;
    if (conf_get(&over, "spsa", "form")) {
        SpsaForm form;
        if (spsa_form_from(&over, &form, err, sizeof err) < 0)
            goto fail;
        if (form != rs->spsa.cfg.form) {
            errmsg(err, sizeof err,
                   "resume: the run in %s uses -spsa form=%s; a run keeps its form (to try form=%s, "
                   "start a new run from its exported values)",
                   argv[1], spsa_form_name(rs->spsa.cfg.form), spsa_form_name(form));
            goto fail;
        }
    }
    unsigned long long games = 0;
    if (conf_get(&over, "spsa", "games")) {
        if (conf_get_u64(&over, "spsa", "games", 2, 1000000000000ULL, &games, err, sizeof err) < 0 ||
            spsa_extend(&rs->spsa, games, err, sizeof err) < 0)
            goto fail;
        conf_set(&rs->conf, "spsa", "games", conf_get(&over, "spsa", "games"), "command line");
    }
    const char *conc = conf_get(&over, "concurrency", "");
    if (conc)
        conf_set(&rs->conf, "concurrency", "", conc, "command line");
    char was[PATH_MAX];
    if (setup_run_dir(&rs->conf, r.dir, was, sizeof was) < 0) {
        errmsg(err, sizeof err, "out of memory");
        goto fail;
    }
    const char *pgn = conf_get(&rs->conf, "pgnout", "file");
    if (was[0])
        printf("the run was in %s, now in %s%s%s\n", was, r.dir, pgn ? "; its games go to " : "", pgn ? pgn : "");
    const char *moved = conf_get(&over, "engine", "cmd");
    if (moved && setup_engine_cmd(&rs->conf, moved) < 0) {
        errmsg(err, sizeof err, "out of memory");
        goto fail;
    }
    if (!moved && setup_engine_present(&rs->conf, argv[1], err, sizeof err) < 0)
        goto fail;
    if (setup_match(&r.rs, &r.mc, err, sizeof err) < 0 || setup_check_engine(&r.rs, r.mc, err, sizeof err) < 0 ||
        engcheck_resume(&rs->engine_id, &r.mc->eng[0], force, moved != NULL, err, sizeof err) < 0)
        goto fail;
    conf_free(&over);
    if (spsa_done(&rs->spsa) && !rs->val.pending &&
        !validate_due(&rs->val, rs->games, spsa_budget_games(&rs->spsa.cfg))) {
        /* Nothing to play, but the steps after the run (verify, the ablation) play its engine. */
        if (moved && runstate_save(rs, r.dir, err, sizeof err) < 0) {
            rc = EXIT_FAILED;
            goto fail_saved;
        }
        if (moved)
            printf("the run's engine is now %s (recorded in %s/%s)\n", rs->engine_id.path, r.dir, STATE_FILE);
        printf("the run in %s is complete (%llu games); to play more: %s resume %s -spsa games=N\n\n", r.dir,
               (unsigned long long)rs->games, setup_prog(), argv[1]);
        print_final(&r);
        run_free(&r);
        return EXIT_DONE;
    }
    rc = play(&r);
    run_free(&r);
    return rc;
fail:
    conf_free(&over);
fail_saved:
    run_msg_err("%s", err);
    run_free(&r);
    return rc;
}
