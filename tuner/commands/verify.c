/* `ratchet-tune verify`: export, bake, SPRT against the start values, the
 * verdict in DIR/verify.json; see verify.h. */
#include "verify.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "cliutil.h"
#include "errmsg.h"
#include "matchreport.h"
#include "rd.h"
#include "setup.h"
#include "stopsig.h"
#include "ablate.h"
#include "verify_impl.h"
#include "verify_record.h"

#define VERIFY_SUBDIR "verify"

enum { EXIT_DONE = VERIFY_EXIT_DONE, EXIT_FAILED = VERIFY_EXIT_FAILED, EXIT_USAGE = VERIFY_EXIT_USAGE };
enum { BAKE_AUTO, BAKE_YES, BAKE_NO };

static const VerifyKind VERIFY_KIND = {
    .name = "verify",
    .cmdline = "verify",
    .noun = "a verify",
    .suffix = "",
    .file = VERIFY_FILE,
    .bare_nargs = 0,
    .stop_note = "\nratchet-tune: verify: stopping: abandoning the games in flight and saving (again to quit at once)\n",
};

static const char VERIFY_USAGE[] =
    "usage: ratchet-tune verify DIR [-sprt elo0=X elo1=Y alpha=A beta=B | -sprt off] [-rounds N]\n"
    "                               [-base FILE.json] [-tuned FILE.json] [-bake auto|yes|no] [-restart]\n"
    "                               [match options]\n"
    "\n"
    "Checks what the run in DIR gained, in one step:\n"
    "  1. exports the run's values (as `export` does) to DIR/verify/tuned.json, and its start\n"
    "     values to DIR/verify/base.json;\n"
    "  2. for bin/ratchet, bakes each into an engine of its own (make PARAMS=... BAKED_BIN=\n"
    "     DIR/verify/ratchet-tuned, and ratchet-base; the build log is DIR/verify/bake-*.log);\n"
    "     any other engine plays with the values sent as UCI options;\n"
    "  3. plays game pairs, tuned against base, until the SPRT decides (normalized pentanomial\n"
    "     model, as `match -sprt`), with the run's time control, book, adjudication and\n"
    "     concurrency unless the match options below say otherwise; out of sample: only the\n"
    "     openings the run held out of its tuning (a run of an older build held none out: then\n"
    "     the whole book, and verify says so); -openings file=F plays F instead.  The output\n"
    "     and verify.json (\"openings\": set, file, count) say which openings were used;\n"
    "  4. writes the verdict, Elo, nElo, LOS and the pentanomial counts to DIR/verify.json\n"
    "     (after every pair, atomically); `ratchet-tune status DIR` shows them.\n"
    "\n"
    "  -sprt elo0=X elo1=Y alpha=A beta=B   the test (default elo0=0 elo1=5 alpha=0.05 beta=0.05);\n"
    "                      -sprt off plays exactly -rounds pairs and reports the Elo\n"
    "  -rounds N           at most N pairs (default: until the SPRT decides); at nodes= or depth=\n"
    "                      at most one pair per fresh opening: a replayed opening replays its games\n"
    "  -snapshot best|K    play snapshot K of the run's validation points (DIR/snapshots/K.json;\n"
    "                      best: the one that scored best, an optimistic estimate this re-measures)\n"
    "                      instead of its current values\n"
    "  -base FILE.json     play against these values instead of the start values (a value file\n"
    "                      as `export` writes; parameters it leaves out keep their start value)\n"
    "  -tuned FILE.json    play these values instead of the run's (values from another run or\n"
    "                      tool, measured at this run's limit and on its held-out openings;\n"
    "                      parameters it leaves out keep their start value; not with -snapshot)\n"
    "  -bake auto|yes|no   auto (default): bake when the run's engine is bin/ratchet of a Ratchet\n"
    "                      source tree; no: send the values as options (no build)\n"
    "  -restart            discard DIR/verify.json and start over\n"
    "  -ablate [groups=auto|FILE|NAME:P1,P2;...]   which groups of moves pay: a random-balance\n"
    "                      ablation instead of the SPRT (verify DIR -ablate -h tells more)\n"
    "  -force              play even if the run's engine changed since the run (its id name,\n"
    "                      file size, modification time or bench signature; as `resume -force`)\n"
    "  -idle-wait D        at a wall clock, before each sitting, the machine's CPUs are read for a\n"
    "                      second: other work beside the games makes them lose on time.  A busy\n"
    "                      machine is waited for up to D (seconds, or 90s, 30m, 1h; default 0),\n"
    "                      then played on with a warning; verify.json keeps each check (\"machine\").\n"
    "                      off: no check\n"
    "  match options       -each (tc=, nodes=, st=, depth= replace the run's limit), -openings,\n"
    "                      -draw, -resign, -maxmoves, -concurrency, -srand, -pgnout, -log\n"
    "\n"
    "Stopped (Ctrl-C, SIGTERM, a kill), it continues where it was when started again with the\n"
    "same options (or none).  Different options with an unfinished or finished verify are refused\n"
    "unless -restart is given; if the run has moved on since (resume), a new verify starts.\n"
    "\n"
    "Exit codes: 0 finished (the verdict is in DIR/verify.json); 1 stopped by an error (a bake\n"
    "that failed, an engine that cannot be restarted); 2 bad usage or run directory (nothing\n"
    "played); 128+N stopped by signal N.\n";

/* ---- settings ------------------------------------------------------------------ */

/* -sprt elo0=X elo1=Y alpha=A beta=B, or -sprt off. */
static int sprt_option(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    SprtSpec *sprt = opt->target;
    sprt->on = !(*i + 1 < argc && !strcmp(argv[*i + 1], "off"));
    if (!sprt->on) {
        *i += 2;
        return 0;
    }
    return cli_key_values(argc, argv, i, sprt_kv, sprt, err, errlen) < 0 ? -1 : 0;
}

static int engine_option(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen)
{
    (void)opt, (void)argc, (void)argv, (void)i;
    return errmsg(err, errlen, "-engine: verify plays the run's engine (tuned against its start values); "
                               "engine options come from the run");
}

/* v->run.args into the verify options and the match settings `over`. */
static int parse_args(Verify *v, RunConf *over, char *err, size_t errlen)
{
    static const char *const BAKE[] = { [BAKE_AUTO] = "auto", [BAKE_YES] = "yes", [BAKE_NO] = "no", NULL };
    v->sprt = (SprtSpec){ .on = true, .elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05 };
    v->rounds = 0;
    v->bake = BAKE_AUTO;
    const CliOpt opts[] = {
        { "-sprt", CLI_OPT_CALL, .target = &v->sprt, .call = sprt_option },
        { "-rounds", CLI_OPT_UINT, .target = &v->rounds, .min = 1, .max = INT64_MAX / 4 },
        { "-bake", CLI_OPT_CHOICE, .target = &v->bake, .choices = BAKE },
        { "-base", CLI_OPT_STRING, .target = v->run.base_file, .size = sizeof v->run.base_file,
          .want = VERIFY_VALUE_FILE },
        { "-tuned", CLI_OPT_STRING, .target = v->run.tuned_file, .size = sizeof v->run.tuned_file,
          .want = VERIFY_VALUE_FILE },
        { "-snapshot", CLI_OPT_STRING, .target = v->snapshot, .size = sizeof v->snapshot,
          .want = "last, best or a point number" },
        { "-engine", CLI_OPT_CALL, .call = engine_option },
        { .name = NULL },
    };
    int n = 0;
    char **rest = calloc((size_t)v->run.nargs + 1, sizeof *rest);
    if (!rest)
        return errmsg(err, errlen, "out of memory");
    int rc = cli_options(opts, CLI_SAY_NEEDS, v->run.nargs, v->run.args, rest, &n, err, errlen);
    if (rc == 0 && v->sprt.on &&
        !(v->sprt.alpha > 0 && v->sprt.alpha < 1 && v->sprt.beta > 0 && v->sprt.beta < 1 && v->sprt.elo1 > v->sprt.elo0))
        rc = errmsg(err, errlen, "-sprt: needs elo0 < elo1 and 0 < alpha, beta < 1");
    if (rc == 0 && !v->sprt.on && v->rounds == 0)
        rc = errmsg(err, errlen, "-sprt off needs -rounds N (the number of pairs to play)");
    if (rc == 0 && conf_parse_args(over, n, rest, VERIFY_SECTIONS, err, errlen) < 0)
        rc = -1;
    free(rest);
    return rc;
}

/* ---- the command ---------------------------------------------------------------------- */

/* The Verify of a call of verify_main, whose run is its first member. */
static Verify *verify_of(VerifyCall *c)
{
    return (Verify *)c->r;
}

/* Play; returns the exit code. */
static int play(Verify *v)
{
    char err[PATH_MAX + 1024];
    v->run.sessions++;
    if (v->run.created[0] == '\0')
        rd_now_iso(v->run.created, sizeof v->run.created);
    if (verify_save(v, "running", verify_verdict_name(v), err, sizeof err) < 0 ||
        verify_trim_pgn(&v->run, "verify", verify_counted, v, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: verify: %s\n", err);
        return EXIT_FAILED;
    }
    printf("verify: tuned (%s) against base (%s), %s, ", v->run.mc.eng[0].cmd, v->run.mc.eng[1].cmd, v->run.tc);
    if (v->sprt.on)
        printf("SPRT [%.2f, %.2f] alpha %.2f beta %.2f%s", v->sprt.elo0, v->sprt.elo1, v->sprt.alpha, v->sprt.beta,
               v->rounds ? ", at most" : "");
    if (v->rounds)
        printf("%s%llu pairs", v->sprt.on ? " " : "", (unsigned long long)v->rounds);
    printf(", concurrency %d, %zu openings from %s\n", v->run.mc.concurrency, book_picks(v->run.mc.book), v->run.mc.book_path);
    if (v->tally.games || v->npending)
        printf("continuing: %llu games played, %zu pair%s to replay\n", (unsigned long long)v->tally.games,
               v->npending, v->npending == 1 ? "" : "s");
    fflush(stdout);

    StopSig stop;
    stopsig_install(&stop, VERIFY_KIND.stop_note);
    v->run.mc.stop = &stopsig_flag;
    verify_check_machine(&v->run, "verify");
    v->t0 = ep_now_ms();
    progress_start(&v->progress, 500, 10000, v->t0);
    MatchHooks hooks = { .next_pair = verify_next, .pair_done = verify_done, .pair_abandoned = verify_abandoned,
                         .ctx = v };
    int mrc = match_transport(&v->run.mc, &hooks); /* under MPI: played by the worker ranks */
    stopsig_restore(&stop);

    bool done = !v->failed && !stopsig_flag && mrc == 0 && v->ninflight == 0 &&
                (v->verdict != 0 || (v->rounds && v->tally.pairs >= v->rounds));
    if (v->tally.games)
        verify_progress(v, true);
    progress_end(&v->progress);
    const char *status = done ? "done" : "stopped";
    if (done && verify_claim_played(&v->run, VERIFY_FILE, v->next_round, err, sizeof err) < 0)
        fprintf(stderr, "ratchet-tune: verify: %s\n", err);
    bool saved = verify_save(v, status, verify_verdict_name(v), err, sizeof err) == 0;
    if (!saved)
        fprintf(stderr, "ratchet-tune: verify: %s\n", err);
    if (mrc < 0) {
        fprintf(stderr, "ratchet-tune: verify: the engines could not be started; nothing was played\n");
        return EXIT_FAILED;
    }
    match_report(stdout, &v->run.mc, &v->tally, v->sprt.on ? &v->sprt : NULL, &v->stop);
    if (done && v->fresh_cut && v->sprt.on && v->verdict == 0)
        printf("verify: the SPRT ran out of fresh openings after %llu pairs: no verdict (a bigger book, or "
               "-openings file=F with openings the run never played)\n", (unsigned long long)v->rounds);
    verify_print_verdict(stdout, v, status);
    if (!done && !setup_caller())
        printf("continue with: %s verify %s\n", setup_prog(), v->run.dir);
    printf("%s %s\n", saved ? "written to" : "could not write", v->path);
    fflush(stdout);
    if (done && saved)
        return EXIT_DONE;
    if (stopsig_signal() && !v->failed && mrc == 0)
        return 128 + stopsig_signal();
    return EXIT_FAILED;
}

/* The earlier verify played these values: shown when it is done, continued
 * when not; other values (the run moved on, another -base) start anew. */
static int continue_earlier(VerifyCall *c)
{
    Verify *v = verify_of(c);
    if (!c->old)
        return STEP_GO;
    VerifyRecord old;
    verify_record_from_json(&old, c->old, false, NULL, NULL, 0);
    int step = STEP_GO;
    if (!verify_same_params(verify_params_of(v->run.tuned), old.tuned) ||
        !verify_same_params(verify_params_of(v->run.base), old.base)) {
        printf("verify: the values differ from those of %s (the run has moved on, %llu games then, %llu now, or "
               "the -base file changed): starting a new verify\n",
               v->path, (unsigned long long)old.run_games, (unsigned long long)v->run.rs.games);
    } else if (old.status && !strcmp(old.status, "done")) {
        verdict_print(stdout, &old, c->arg);
        printf("(finished earlier; -restart plays it again)\n");
        c->rc = EXIT_DONE;
        step = STEP_END;
    } else {
        c->resume = true;
    }
    verify_record_free(&old);
    return step;
}

/* DIR/verify/tuned.json and base.json. */
static int write_values(VerifyCall *c)
{
    Verify *v = verify_of(c);
    int dfd = rd_open_sub(v->sub, c->err, sizeof c->err);
    bool ok = dfd >= 0 && rd_write_json_at(dfd, v->sub, "tuned.json", v->run.tuned, c->err, sizeof c->err) == 0 &&
              rd_write_json_at(dfd, v->sub, "base.json", v->run.base, c->err, sizeof c->err) == 0;
    if (dfd >= 0)
        close(dfd);
    return ok ? STEP_GO : verify_fail(c, EXIT_FAILED);
}

/* Tuned values equal to the base values: "nothing to verify" ends the call. */
static int nothing_to_verify(VerifyCall *c, bool bakeable)
{
    Verify *v = verify_of(c);
    if (!cJSON_Compare(verify_params_of(v->run.tuned), verify_params_of(v->run.base), true))
        return STEP_GO;
    /* The record names the engines, the book and the limit the match would have played. */
    v->run.baked = bakeable;
    snprintf(c->engines[0], sizeof c->engines[0], "%s", c->cmd);
    snprintf(c->engines[1], sizeof c->engines[1], "%s", c->cmd);
    const cJSON *values[2] = { v->run.tuned, v->run.base };
    if (verify_build_match(c, values) != STEP_GO)
        return STEP_FAIL;
    rd_now_iso(v->run.created, sizeof v->run.created);
    if (verify_save(v, "done", "identical", c->err, sizeof c->err) < 0)
        return verify_fail(c, EXIT_FAILED);
    printf("verify: the tuned values of %s are its start values: nothing to verify (written to %s)\n", c->arg,
           v->path);
    c->rc = EXIT_DONE;
    return STEP_END;
}

/* The value files and the two engines: baked from the Ratchet source tree
 * of bin/ratchet, or the run's engine twice with the values sent as options. */
static int make_engines(VerifyCall *c)
{
    Verify *v = verify_of(c);
    int step = write_values(c);
    if (step != STEP_GO)
        return step;
    if ((step = verify_engine_cmd(c)) != STEP_GO)
        return step;
    char root[PATH_MAX];
    bool bakeable = v->bake != BAKE_NO && !conf_get(&v->run.rs.conf, "engine", "dir") &&
                    verify_ratchet_root(&v->run.rs, c->cmd, root, sizeof root);
    if (v->bake == BAKE_YES && !bakeable) {
        errmsg(c->err, sizeof c->err,
               "verify: -bake yes: the run's engine %s (%s) is not bin/ratchet of a Ratchet source "
               "tree; use -bake no to send the values as options",
               c->cmd, v->run.rs.engine);
        return STEP_FAIL;
    }
    if ((step = nothing_to_verify(c, bakeable)) != STEP_GO)
        return step;
    if (bakeable) {
        v->run.baked = true;
        if (verify_bake_engines(v, root, c->engines, c->err, sizeof c->err) < 0)
            return verify_fail(c, EXIT_FAILED);
    } else {
        snprintf(c->engines[0], sizeof c->engines[0], "%s", c->cmd);
        snprintf(c->engines[1], sizeof c->engines[1], "%s", c->cmd);
    }
    return STEP_GO;
}

/* The match: its configuration, the book, the engine check and the fresh openings. */
static int make_match(VerifyCall *c)
{
    Verify *v = verify_of(c);
    const cJSON *values[2] = { v->run.tuned, v->run.base };
    c->want_pairs = v->rounds;
    if (verify_make_match(c, values) != STEP_GO || verify_fresh_openings(v, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    return STEP_GO;
}

static int progress_from(VerifyCall *c)
{
    return verify_progress_from(verify_of(c), c->old, c->err, sizeof c->err);
}

/* The steps up to the match, in order; STEP_GO when the match is to be played. */
static int prepare(VerifyCall *c, int argc, char **argv)
{
    Verify *v = verify_of(c);
    int step;
    if ((step = verify_read_options(c, argc, argv)) != STEP_GO || (step = verify_open_run(c)) != STEP_GO)
        return step;
    snprintf(v->path, sizeof v->path, "%s", c->file);
    snprintf(v->sub, sizeof v->sub, "%s/%s", v->run.dir, VERIFY_SUBDIR);
    if ((step = verify_read_earlier(c)) != STEP_GO)
        return step;
    if (parse_args(v, &c->over, c->err, sizeof c->err) < 0 || verify_use_snapshot(v, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    if (v->run.tuned_file[0] && v->snapshot[0]) {
        errmsg(c->err, sizeof c->err, "-tuned and -snapshot both name the values to test; give one of them");
        return STEP_FAIL;
    }
    if (verify_use_value_files(&v->run, c->err, sizeof c->err) < 0)
        return STEP_FAIL;
    if ((step = continue_earlier(c)) != STEP_GO || (step = verify_settle_settings(c, progress_from)) != STEP_GO ||
        (step = make_engines(c)) != STEP_GO)
        return step;
    return make_match(c);
}

int verify_main(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-ablate"))
            return ablate_main(argc, argv);
    int pre = cli_preamble(argc, argv, VERIFY_USAGE, match_print_options, CLI_DIR_FIRST);
    if (pre >= 0)
        return pre;
    rules_init();
    static Verify v; /* large (the match configuration); one per process */
    static VerifyCall c; /* holds the path buffers; one per process */
    memset(&v, 0, sizeof v);
    verify_call_init(&c, &v.run, argv[1], &VERIFY_KIND);
    int step = prepare(&c, argc, argv);
    if (step == STEP_GO)
        c.rc = play(&v);
    free(v.pending);
    free(v.inflight);
    return verify_call_end(&c, step);
}
