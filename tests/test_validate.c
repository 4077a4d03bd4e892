/* Validation during a run, held-out openings, snapshots and the
 * classification of moves, end to end against the fake engine
 * build/fake/fakespsa (whose strength depends on Alpha, Beta, Gamma). */
#include <criterion/criterion.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "helpers.h"
#include "htmlreport.h"
#include "morning.h"
#include "run_cmd.h"
#include "state.h"
#include "status.h"
#include "validate.h"
#include "valpower.h"
#include "verify.h"

#define FAKE "build/fake/fakespsa"

static void setup(void)
{
    tmp_create("/tmp/ratchet-validate-XXXXXX");
}

TestSuite(validate, .init = setup, .fini = tmp_remove, .timeout = 120);


/* A run from a far start (8 c_end from the optimum; the landscape has a
 * slope there with --width 60) on a book of 20 openings. */
static Args far_run(const char *dir, int games, const char *engine_args)
{
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    write_file("far.txt", "Alpha, int, 30, 0, 100, 8, 0.05\n"
                          "Beta, int, 70, 0, 100, 8, 0.05\n"
                          "Gamma, int, -30, -50, 50, 8, 0.05\n");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp tests/data/book/first-moves.epd %s/book20.epd", tmp);
    cr_assert_eq(system(cmd), 0);
    Args a = { .n = 0 };
    add_line(&a, "run -engine cmd=%s", FAKE);
    add(&a, "args=--width 60 --target 70,30,10 %s", engine_args);
    add_line(&a, "-params file=%s/far.txt -each nodes=1 -openings file=%s/book20.epd order=random", tmp, tmp);
    add_line(&a, "-maxmoves 100 -spsa games=%d -concurrency 2 -srand 7 -out %s/%s", games, tmp, dir);
    return a;
}


static void read_points(const char *dir, ValidationPoint **pts, size_t *n)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, dir);
    cr_assert_eq(validate_read(path, pts, n, err, sizeof err), 0, "%s", err);
}

/* Every point 1..n once, at K * every of the budget, with its games. */
static void assert_points(const char *dir, size_t npoints, uint64_t budget, uint64_t games)
{
    ValidationPoint *p;
    size_t n;
    read_points(dir, &p, &n);
    cr_assert_eq(n, npoints, "validation.csv has %zu points, not %zu", n, npoints);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(p[i].point, i + 1, "point %zu is numbered %llu", i + 1, (unsigned long long)p[i].point);
        /* at the first batch after K * every of the budget when no point is in play */
        cr_assert_geq(p[i].games, (i + 1) * budget / npoints, "point %zu taken at %llu games", i + 1,
                      (unsigned long long)p[i].games);
        cr_assert(i == 0 || p[i].games > p[i - 1].games);
        cr_assert_eq(2 * p[i].pairs, games, "point %zu: %llu pairs", i + 1, (unsigned long long)p[i].pairs);
        cr_assert_eq(p[i].wins + p[i].losses + p[i].draws, games);
        uint64_t s = 0;
        for (int k = 0; k < 5; k++)
            s += p[i].ptnml[k];
        cr_assert_eq(s, p[i].pairs);
        char path[256];
        snprintf(path, sizeof path, "%s/%s/%s/%zu.json", tmp, dir, SNAPSHOT_DIR, i + 1);
        cr_assert_eq(access(path, R_OK), 0, "snapshot %s is missing", path);
    }
    free(p);
    RunState rs;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, dir);
    cr_assert_eq(runstate_load(&rs, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rs.val.done, npoints);
    cr_assert_not(rs.val.pending);
    runstate_free(&rs);
}

/* The points are recorded as configured, and on a landscape where theta
 * improves, the last points score well above the first (taken after 10% of
 * the budget, when theta has barely left the start).  The games are not the
 * same from run to run (the engines' timing), so the comparison is of the
 * first point against the mean of the last five, each point 200 games: in
 * four runs of the CLI with these settings the first point scored +60 to
 * +98 Elo and the last five +170 to +180, with error bars of about 30 a
 * point.  Fails if the
 * snapshot is not the current values (the start values score 0), or if the
 * sides are swapped (negative). */
Test(validate, records_the_points_and_their_elo_rises)
{
    Args a = far_run("r", 400, "");
    /* form=classic: small early steps, so the first points are near the start */
    add_line(&a, "-spsa form=classic -validate every=0.1 games=200");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "validation 10 at 400 games"), "%s", log);
    free(log);
    assert_points("r", 10, 400, 200);
    ValidationPoint *p;
    size_t n;
    read_points("r", &p, &n);
    double first = p[0].elo, last = 0;
    for (size_t i = n - 5; i < n; i++)
        last += p[i].elo / 5;
    cr_assert_gt(last, 80, "the last five points score %+.1f Elo over the start values", last);
    cr_assert_gt(last, first, "the Elo did not rise: first point %+.1f, last five %+.1f", first, last);
    free(p);
}

static bool state_has_pending_pairs(const char *dir)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, dir);
    RunState rs;
    if (runstate_load(&rs, path, err, sizeof err) < 0)
        return false;
    bool yes = rs.val.pending && rs.val.pairs >= 2 && rs.val.done >= 1;
    runstate_free(&rs);
    return yes;
}

/* The run of a (into tmp/r, its output in log) started, once r/state.json
 * holds a point in play with a pair played: the run's pid. */
static pid_t spawn_until_point_in_play(Args *a, const char *log)
{
    pid_t pid = spawn(run_main, a, log);
    for (int i = 0; !state_has_pending_pairs("r"); i++) {
        int st;
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the run ended before a point was in play");
        cr_assert_lt(i, 3000, "no point in play after 60 s");
        struct timespec ts = { 0, 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
    return pid;
}

/* Killed while a point is in play, and with that point's row already in
 * validation.csv but not in the state (the window between the two writes):
 * the resume keeps the finished pairs, drops the uncounted row, and every
 * point ends up recorded exactly once with exactly its games.  Fails without
 * validate_trim (the point twice). */
Test(validate, resumes_after_sigkill_with_no_point_lost_or_counted_twice)
{
    Args a = far_run("r", 80, "--think 1");
    add_line(&a, "-validate every=0.5 games=20 -maxmoves 30");
    pid_t pid = spawn_until_point_in_play(&a, "log1");
    kill(pid, SIGKILL);
    wait_child(pid);
    args_free(&a);
    RunState rs;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(runstate_load(&rs, path, err, sizeof err), 0, "%s", err);
    uint64_t pending = rs.val.done + 1;
    runstate_free(&rs);
    /* The row of the pending point, as if it had been written before the kill. */
    char row[256], csv[256];
    snprintf(csv, sizeof csv, "%s/r/%s", tmp, VALIDATION_FILE);
    FILE *f = fopen(csv, "a");
    cr_assert_not_null(f);
    snprintf(row, sizeof row, "%llu,80,10,10.00,5.00,0,0,10,0,0,0,0,20\n", (unsigned long long)pending);
    fputs(row, f);
    fclose(f);

    Args b = { .n = 0 };
    add_line(&b, "resume %s/r", tmp);
    int rc = run_to_end(resume_main, &b, "log2");
    char *log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    cr_assert(strstr(log, "continuing"), "the resume says it continues the point in play:\n%s", log);
    free(log);
    assert_points("r", 2, 80, 20);
}

/* -validate off: no point, no file; a book of one position holds none out. */
Test(validate, off_plays_no_point)
{
    Args a = far_run("r", 40, "");
    add_line(&a, "-validate off");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    char path[256];
    snprintf(path, sizeof path, "%s/r/%s", tmp, VALIDATION_FILE);
    cr_assert_neq(access(path, F_OK), 0, "-validate off wrote %s", path);
}

Test(validate, holdout_picks_never_meet_the_tuning)
{
    Validation v = { .holdout = 4 };
    for (uint64_t i = 0; i < 100; i++) {
        cr_assert_lt(validate_tuning_pick(&v, 20, i), 16u);
        cr_assert_geq(validate_holdout_pick(&v, 20, i), 16u);
        cr_assert_lt(validate_holdout_pick(&v, 20, i), 20u);
    }
    Validation old = { 0 };
    cr_assert_eq(validate_tuning_pick(&old, 20, 17), 17u, "a run without a holdout draws the whole book");
}

static cJSON *read_json_file(const char *name)
{
    char *text = slurp(name);
    cJSON *j = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(j, "%s is not JSON", name);
    return j;
}

static double param_of(const cJSON *j, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"), name);
    cr_assert(cJSON_IsNumber(v), "no number for %s", name);
    return v->valuedouble;
}

/* The fake engine ignores Gamma (--flat) and Beta starts at its optimum;
 * Alpha starts 40 from its optimum.  A deterministic run (one worker, the
 * engine's random numbers restarted every game) moves Alpha by 23 with
 * z 3.5, Gamma by 4 with z 0.6.  -keep-noise=start exports Alpha moved and
 * Gamma at its start; with the classification inverted, both fail. */
Test(validate, keep_noise_keeps_what_the_games_ignore_and_exports_what_matters)
{
    write_file("kn.txt", "Alpha, int, 30, 0, 100, 8, 0.05\n"
                         "Beta, int, 30, 0, 100, 8, 0.05\n"
                         "Gamma, int, -30, -50, 50, 8, 0.05\n");
    Args a = far_run("r", 500, "--flat Gamma --seed 5 --seed-each-game");
    add_line(&a, "-params file=%s/kn.txt -spsa form=classic -concurrency 1 -maxmoves 40 -srand 3 -validate off", tmp);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    for (int keep = 0; keep < 2; keep++) {
        Args e = { .n = 0 };
        add_line(&e, "export %s/r -o %s/%s", tmp, tmp, keep ? "kept.json" : "all.json");
        if (keep)
            add(&e, "-keep-noise=start");
        rc = run_to_end(export_main, &e, "elog");
        log = slurp("elog");
        cr_assert_eq(rc, 0, "export failed:\n%s", log);
        cr_assert(!keep || strstr(log, "Gamma -30"), "export names what it kept:\n%s", log);
        free(log);
    }
    cJSON *all = read_json_file("all.json"), *kept = read_json_file("kept.json");
    cr_assert_neq(param_of(all, "Gamma"), -30, "Gamma moved in this run (the test needs a move to undo)");
    cr_assert_eq(param_of(kept, "Gamma"), -30, "Gamma, ignored by the games, is kept at its start: %g",
                 param_of(kept, "Gamma"));
    cr_assert_gt(param_of(kept, "Alpha"), 45, "Alpha, which matters, is exported moved: %g", param_of(kept, "Alpha"));
    cr_assert_eq(param_of(kept, "Alpha"), param_of(all, "Alpha"));
    cJSON_Delete(all);
    cJSON_Delete(kept);
}

/* -snapshot K is snapshots/K.json; best warns of the selection bias; a point
 * that does not exist is refused naming the points there are. */
Test(validate, export_snapshots)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate every=0.5 games=4");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    static const char *const which[] = { "1", "best", "3" };
    for (int w = 0; w < 3; w++) {
        Args e = { .n = 0 };
        add_line(&e, "export %s/r -snapshot %s -o %s/snap.json", tmp, which[w], tmp);
        rc = run_to_end(export_main, &e, "elog");
        log = slurp("elog");
        if (w == 2) {
            cr_assert_eq(rc, 1);
            cr_assert(strstr(log, "-snapshot 3") && strstr(log, "2 validation points"), "%s", log);
        } else {
            cr_assert_eq(rc, 0, "%s", log);
            /* the fake engine's games decide whether one or both points have an interval */
            cr_assert(w == 0 || strstr(log, "optimistic") || strstr(log, "nothing to correct for selection"),
                      "best names the selection bias, or why there is none:\n%s", log);
            cJSON *got = read_json_file("snap.json");
            char name[64];
            int k = (int)cJSON_GetObjectItemCaseSensitive(got, "snapshot")->valuedouble;
            cr_assert(w == 1 || k == 1, "-snapshot 1 gave snapshot %d", k);
            snprintf(name, sizeof name, "r/%s/%d.json", SNAPSHOT_DIR, k);
            cJSON *want = read_json_file(name);
            cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(got, "params"),
                                    cJSON_GetObjectItemCaseSensitive(want, "params"), true));
            cJSON_Delete(got);
            cJSON_Delete(want);
        }
        free(log);
    }
}

/* The [FEN] tags of a PGN file, appended to set (a '\n'-separated list). */
static size_t fens_of(const char *name, char set[][128], size_t n, size_t cap)
{
    char *text = slurp(name);
    for (char *p = text; (p = strstr(p, "[FEN \"")) && n < cap; p++) {
        char *q = strchr(p + 6, '"');
        if (!q)
            break;
        snprintf(set[n++], 128, "%.*s", (int)(q - (p + 6)), p + 6);
    }
    free(text);
    return n;
}

/* verify plays by default only openings the run held out of its tuning (and
 * says so in verify.json): no start position of its games is one of the
 * run's tuning games.  Fails when verify plays the run's whole book. */
Test(validate, verify_plays_only_held_out_openings)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate holdout=0.5 games=0 -pgnout file=%s/run.pgn", tmp);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "held out for validation and verify"), "%s", log);
    free(log);
    Args v = { .n = 0 };
    /* -rounds 10: the 10 held-out openings, each once */
    add_line(&v, "verify %s/r -sprt off -rounds 10 -bake no -pgnout file=%s/verify.pgn", tmp, tmp);
    rc = run_to_end(verify_main, &v, "vlog");
    log = slurp("vlog");
    cr_assert_eq(rc, 0, "verify failed:\n%s", log);
    cr_assert(strstr(log, "held out of its tuning"), "verify says which openings it plays:\n%s", log);
    free(log);
    static char run_fens[200][128], ver_fens[200][128];
    size_t nr = fens_of("run.pgn", run_fens, 0, 200), nv = fens_of("verify.pgn", ver_fens, 0, 200);
    cr_assert_gt(nr, 20u);
    cr_assert_eq(nv, 20u, "verify played 10 pairs from [FEN] positions");
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nr; j++)
            cr_assert_str_neq(ver_fens[i], run_fens[j], "verify played an opening of the tuning: %s", ver_fens[i]);
    cJSON *j = read_json_file("r/verify.json");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "openings");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(op, "set")->valuestring, "held-out");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(op, "count")->valuedouble, 10);
    cJSON_Delete(j);
}

/* The distinct [FEN] tags of tmp/name in the order they first appear. */
static size_t distinct_fens(const char *name, char set[][128], size_t cap)
{
    static char all[400][128];
    size_t n = fens_of(name, all, 0, 400), k = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = !strcmp(set[j], all[i]);
        if (!seen && k < cap)
            snprintf(set[k++], 128, "%.127s", all[i]);
    }
    return k;
}

/* The opening of each of the 5 pairs of tmp/DIR/ablation.json. */
static void pair_openings(const char *dir, uint64_t op[5])
{
    char name[64];
    snprintf(name, sizeof name, "%s/ablation.json", dir);
    cJSON *j = read_json_file(name);
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(j, "pairs"), *p;
    cr_assert_eq(cJSON_GetArraySize(pairs), 5);
    cJSON_ArrayForEach(p, pairs)
    {
        int k = cJSON_GetObjectItemCaseSensitive(p, "pair")->valueint;
        cr_assert(k >= 0 && k < 5);
        op[k] = (uint64_t)cJSON_GetObjectItemCaseSensitive(p, "opening")->valuedouble;
    }
    cJSON_Delete(j);
}

static void verify_step(const char *dir, const char *log, const char *pgn, const char *extra)
{
    Args v = { .n = 0 };
    add_line(&v, "verify %s/%s", tmp, dir);
    if (strstr(extra, "ablate"))
        add_line(&v, "-ablate -rounds 5");
    else
        add_line(&v, "-sprt off -rounds 3 -bake no");
    if (strstr(extra, "tuned"))
        add_line(&v, "-tuned %s/keep.json -restart", tmp);
    else if (strstr(extra, "restart"))
        add_line(&v, "-restart");
    const char *seed = strstr(extra, "srand=");
    if (seed)
        add_line(&v, "-srand %s", seed + 6);
    add_line(&v, "-pgnout file=%s/%s", tmp, pgn);
    int rc = run_to_end(verify_main, &v, log);
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "verify %s failed:\n%s", extra, text);
    free(text);
}

/* Every step after the tuning plays openings no earlier step of the run
 * played: validation, verify, the ablation and the confirmation of kept
 * values each get a range of the held-out openings of their own
 * (openings.json), and -srand sets the order within it.  Fails when the
 * steps all start at the first held-out opening. */
Test(validate, no_step_replays_an_opening_another_step_played)
{
    Args a = far_run("r", 40, "");
    /* holdout=0.9: 18 of the 20 openings, 2 pairs of validation, then 3 + 5 + 3 */
    add_line(&a, "-validate holdout=0.9 games=2 final=2 -pgnout file=%s/run.pgn", tmp);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp -r %s/r %s/r2 && cp -r %s/r %s/r3", tmp, tmp, tmp, tmp);
    cr_assert_eq(system(cmd), 0);
    write_file("keep.json", "{\"params\": {\"Alpha\": 40}}");

    verify_step("r", "v1", "verify.pgn", "srand=11");
    verify_step("r", "v2", "ablate.pgn", "ablate srand=12");
    verify_step("r", "v3", "confirm.pgn", "tuned srand=13");
    static char sets[4][40][128];
    const char *pgns[4] = { "run.pgn", "verify.pgn", "ablate.pgn", "confirm.pgn" };
    size_t n[4];
    for (int s = 0; s < 4; s++)
        n[s] = distinct_fens(pgns[s], sets[s], 40);
    cr_assert_eq(n[1], 3u, "verify played 3 pairs on 3 openings");
    cr_assert_eq(n[2], 5u, "the ablation played 5 pairs on 5 openings");
    cr_assert_eq(n[3], 3u, "the confirmation played 3 pairs on 3 openings");
    for (int s = 0; s < 4; s++)
        for (int t = s + 1; t < 4; t++)
            for (size_t i = 0; i < n[s]; i++)
                for (size_t j = 0; j < n[t]; j++)
                    cr_assert_str_neq(sets[s][i], sets[t][j], "%s and %s both played %s", pgns[s], pgns[t],
                                      sets[s][i]);
    cJSON *j = read_json_file("r/openings.json");
    const cJSON *claims = cJSON_GetObjectItemCaseSensitive(j, "claims");
    cr_assert_eq(cJSON_GetArraySize(claims), 3, "openings.json records the three steps");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "validation")->valuedouble, 2);
    cJSON_Delete(j);

    /* The same ablation of two copies of the run with other seeds: the same
     * openings (the first claim past validation), in another order. */
    verify_step("r2", "v4", "ablate2.pgn", "ablate srand=21");
    verify_step("r3", "v5", "ablate3.pgn", "ablate srand=22");
    uint64_t op2[5], op3[5];
    pair_openings("r2", op2);
    pair_openings("r3", op3);
    bool same_set = true, same_order = true;
    for (size_t p = 0; p < 5; p++) {
        bool found = false;
        for (size_t k = 0; k < 5; k++)
            found = found || op2[p] == op3[k];
        same_set = same_set && found;
        same_order = same_order && op2[p] == op3[p];
    }
    cr_assert(same_set, "both copies claim the same held-out openings");
    cr_assert_not(same_order, "-srand 21 and -srand 22 play them in the same order");

    /* A longer budget adds a validation point: it plays past the claims,
     * and a verify after it claims past that point. */
    Args b = { .n = 0 };
    add_line(&b, "resume %s/r -spsa games=80", tmp);
    int rc2 = run_to_end(resume_main, &b, "log2");
    char *log2 = slurp("log2");
    cr_assert_eq(rc2, 0, "the resume failed:\n%s", log2);
    free(log2);
    verify_step("r", "v6", "verify2.pgn", "restart srand=14");
    static char more[2][40][128];
    size_t nmore[2] = { distinct_fens("run.pgn", more[0], 40), distinct_fens("verify2.pgn", more[1], 40) };
    cr_assert_eq(nmore[1], 3u, "the second verify played 3 pairs on 3 openings");
    for (int m = 0; m < 2; m++)
        for (int t = 0; t < 4; t++) {
            if (m == 0 && t == 0)
                continue; /* the run's own, before and after */
            for (size_t i = 0; i < nmore[m]; i++)
                for (size_t k = 0; k < n[t]; k++)
                    cr_assert_str_neq(more[m][i], sets[t][k], "%s (extended) and %s both played %s",
                                      m ? "verify2.pgn" : "run.pgn", pgns[t], more[m][i]);
        }
    for (size_t i = 0; i < nmore[1]; i++)
        for (size_t k = 0; k < nmore[0]; k++)
            cr_assert_str_neq(more[1][i], more[0][k], "the second verify replayed the extension's %s", more[1][i]);
}

/* A state written before held-out openings and validation existed reads as
 * neither: the tuning draws the whole book as it did, and no point is due. */
Test(validate, a_state_of_an_older_build_has_no_holdout_and_no_points)
{
    RunState rs;
    char err[512];
    cr_assert_eq(runstate_load(&rs, "tests/data/state_v1", err, sizeof err), 0, "%s", err);
    cr_assert_eq(rs.val.holdout, 0u);
    cr_assert_eq(validate_points(&rs.val, 1000000), 0u);
    cr_assert_not(validate_due(&rs.val, rs.games + 1000, 1000000));
    cr_assert_eq(validate_tuning_pick(&rs.val, 5000, 4999), 4999u);
    char *text = runstate_text(&rs);
    cr_assert_not_null(text);
    cr_assert_null(strstr(text, "\"validation\""), "nothing new is written for it");
    free(text);
    runstate_free(&rs);
}

/* Over the polylines of svg[0..end) drawn with stroke-width `width` (as
 * PLplot writes it): how many, and the largest y of their points (y up). */
static size_t polylines(const char *svg, const char *end, const char *width, double *ymax)
{
    char key[64];
    snprintf(key, sizeof key, "<polyline stroke-width=\"%s\"", width);
    size_t n = 0;
    *ymax = -1e300;
    for (const char *p = svg; (p = strstr(p, key)) && p < end; p++) {
        n++;
        const char *pts = strstr(p, "points=\"");
        cr_assert(pts && pts < end);
        pts += 8;
        double x, y;
        int used;
        while (sscanf(pts, "%lf,%lf%n", &x, &y, &used) == 2) {
            *ymax = y > *ymax ? y : *ymax;
            pts += used;
        }
    }
    return n;
}

/* Points of one pair each (every pair is in one pentanomial category, so no
 * point has an interval; one that won both games has an infinite Elo):
 * validation.csv keeps the inf, and every display of the points says "n/a"
 * with the pair and its category instead of "+inf +/- inf": the run's
 * validation lines, status, export -snapshot best and report.html, whose
 * chart leaves them out with a note naming them.  Then two of the rows
 * rewritten with finite intervals: the chart is drawn from those two and
 * the note names the other two.  Fails on any "inf" in these outputs. */
Test(validate, a_point_without_an_interval_reads_n_a_everywhere)
{
    Args a = far_run("r", 120, "");
    add_line(&a, "-validate every=0.25 games=2");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "validation 4 at "), "%s", log);
    cr_assert(strstr(log, "games: Elo n/a (1 pair, "), "%s", log);
    cr_assert_null(an_infinity(log), "the run's output shows an infinity:\n%s", log);
    free(log);
    char *csv = slurp("r/" VALIDATION_FILE);
    cr_assert(strstr(csv, ",inf,"), "validation.csv keeps the infinite error:\n%s", csv);
    free(csv);

    Args s = { .n = 0 };
    add_line(&s, "status %s/r", tmp);
    cr_assert_eq(run_to_end(status_main, &s, "status"), 0);
    char *st = slurp("status");
    cr_assert(strstr(st, "latest: point 4 at ") && strstr(st, "Elo n/a (1 pair, "), "%s", st);
    cr_assert(strstr(st, ", score ") && strstr(st, "%: too few games for an interval)"), "%s", st);
    cr_assert_null(an_infinity(st), "status shows an infinity:\n%s", st);
    free(st);

    Args x = { .n = 0 };
    add_line(&x, "export %s/r -snapshot best -o %s/best.json", tmp, tmp);
    cr_assert_eq(run_to_end(export_main, &x, "export"), 0);
    char *ex = slurp("export");
    cr_assert(strstr(ex, "validation points: Elo n/a (1 pair, "), "%s", ex);
    cr_assert_null(an_infinity(ex), "export shows an infinity:\n%s", ex);
    free(ex);

    char dir[256], out[300], err[512];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    snprintf(out, sizeof out, "%s/page.html", tmp);
    cr_assert_eq(htmlreport_run(dir, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    char *page = slurp("page.html");
    const char *inf, *sec = strstr(page, "<section id=\"validation\">");
    cr_assert_not_null(sec);
    const char *end = strstr(sec, "</section>");
    cr_assert_not_null(end);
    cr_assert(strstr(sec, "Not drawn: points 1, 2, 3, 4 have too few games for an interval"), "%.*s",
              (int)(end - sec), sec);
    cr_assert(strstr(sec, "<td>n/a (1 pair, "), "%.*s", (int)(end - sec), sec);
    inf = an_infinity(page);
    cr_assert_null(inf, "the page shows an infinity: %.200s", inf && inf - page > 100 ? inf - 100 : page);
    free(page);

    /* points 1 and 3 with an interval, 2 (WD: an Elo, no interval) and 4 (WW: no Elo) without */
    write_file("r/" VALIDATION_FILE, "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n"
                                     "1,30,1,12.50,40.00,0,0,1,0,0,0,0,2\n"
                                     "2,60,1,190.85,inf,0,0,0,1,0,1,0,1\n"
                                     "3,90,1,-20.00,35.00,0,0,1,0,0,1,1,0\n"
                                     "4,120,1,inf,inf,0,0,0,0,1,2,0,0\n");
    cr_assert_eq(htmlreport_run(dir, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    page = slurp("page.html");
    sec = strstr(page, "<section id=\"validation\">");
    end = strstr(sec, "</section>");
    const char *svg = strstr(sec, "<svg");
    cr_assert(svg && svg < end, "no chart of points 1 and 3");
    /* two error bars (width 2); the dashed line (width 1.5) joins 1 and 3
     * only, so it stays below the top of point 1's bar (+52.5) rather than
     * climbing towards point 2's +190.8 */
    double bar_top, line_top;
    cr_assert_eq(polylines(svg, end, "2.000000e+00", &bar_top), 2, "error bars of points without an interval");
    cr_assert_gt(polylines(svg, end, "1.500000e+00", &line_top), 0, "no line between the points");
    cr_assert_lt(line_top, bar_top, "the line reaches a point without an interval");
    cr_assert(strstr(sec, "Not drawn: points 2, 4 have too few games for an interval"), "%.*s",
              (int)(end - sec), sec);
    cr_assert(strstr(sec, "<td>+12.5 &plusmn; 40.0</td>"));
    cr_assert(strstr(sec, "<td>n/a (1 pair, WD, score 75.0%: too few games for an interval)</td>"));
    cr_assert(strstr(sec, "<td>n/a (1 pair, WW, score 100.0%: too few games for an interval)</td>"));
    inf = an_infinity(page);
    cr_assert_null(inf, "the page shows an infinity: %.200s", inf && inf - page > 100 ? inf - 100 : page);
    free(page);
}

/* The best point: a point that won its one pair (infinite Elo, no interval)
 * is not the best while a point with an interval exists; among those, the
 * highest Elo wins; with no interval anywhere, the highest finite Elo. */
Test(validate, the_best_point_has_an_interval)
{
    ValidationPoint p[4] = {
        { .point = 1, .elo = 12, .elo_err = 30 },
        { .point = 2, .elo = INFINITY, .elo_err = INFINITY },
        { .point = 3, .elo = 25, .elo_err = 20 },
        { .point = 4, .elo = 300, .elo_err = INFINITY },
    };
    cr_assert_eq(validate_best(p, 4), 2);
    cr_assert_eq(validate_best(p, 2), 0);
    ValidationPoint q[3] = {
        { .point = 1, .elo = INFINITY, .elo_err = INFINITY },
        { .point = 2, .elo = 40, .elo_err = INFINITY },
        { .point = 3, .elo = -INFINITY, .elo_err = INFINITY },
    };
    cr_assert_eq(validate_best(q, 3), 1);
    cr_assert_eq(validate_best(q, 1), 0);
}

/* The PGN names what each validation game was: Round point.pair, the
 * snapshot and the start values as the players, and an Event of its own
 * with the run's mark (its creation date); the tuning's games keep
 * whole-number Rounds (before: validation games were under the tuning
 * engines' names, with Rounds above 2^62). */
Test(validate, the_pgn_names_the_validation_games)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate every=0.5 games=8 -pgnout file=%s/g.pgn", tmp);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    RunState rs;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(runstate_load(&rs, path, err, sizeof err), 0, "%s", err);
    char created[sizeof rs.created];
    snprintf(created, sizeof created, "%s", rs.created);
    runstate_free(&rs);
    cr_assert(created[0], "the state has no creation date");
    char *pgn = slurp("g.pgn");
    int val = 0, tuning = 0, seen[3][5] = { { 0 } };
    for (char *ev = strstr(pgn, "[Event \""); ev; ev = strstr(ev + 1, "[Event \"")) {
        char event[200], round[40], white[80], black[80];
        cr_assert_eq(sscanf(ev, "[Event \"%199[^\"]\"]", event), 1);
        char *r = strstr(ev, "[Round \""), *w = strstr(ev, "[White \""), *b = strstr(ev, "[Black \"");
        cr_assert(r && w && b);
        cr_assert_eq(sscanf(r, "[Round \"%39[^\"]\"]", round), 1);
        cr_assert_eq(sscanf(w, "[White \"%79[^\"]\"]", white), 1);
        cr_assert_eq(sscanf(b, "[Black \"%79[^\"]\"]", black), 1);
        unsigned k, p;
        if (strncmp(event, "ratchet-tune validation point ", 30) == 0) {
            val++;
            cr_assert_eq(sscanf(round, "%u.%u", &k, &p), 2, "Round %s", round);
            cr_assert(k >= 1 && k <= 2 && p >= 1 && p <= 4, "Round %s", round);
            seen[k][p]++;
            char snap[40], want[200];
            snprintf(snap, sizeof snap, "snapshot %u", k);
            snprintf(want, sizeof want, "ratchet-tune validation point %u: snapshots/%u.json against the start values "
                     "(the run created %s)", k, k, created);
            cr_assert_str_eq(event, want);
            cr_assert((strcmp(white, snap) == 0 && strcmp(black, "start") == 0) ||
                          (strcmp(white, "start") == 0 && strcmp(black, snap) == 0),
                      "Round %s: %s against %s", round, white, black);
        } else {
            tuning++;
            char *end;
            unsigned long long n = strtoull(round, &end, 10);
            cr_assert(*end == '\0' && n >= 1 && n <= 80, "a tuning game's Round: %s", round);
            cr_assert_null(strstr(white, "snapshot"));
        }
    }
    free(pgn);
    cr_assert_eq(val, 16, "%d validation games in the PGN", val);
    cr_assert_geq(tuning, 80);
    for (int k = 1; k <= 2; k++)
        for (int p = 1; p <= 4; p++)
            cr_assert_eq(seen[k][p], 2, "pair %d.%d: %d games", k, p, seen[k][p]);
}

/* ---- the schedule follows the budget, the final values always validated (issue 44) ---- */

/* The games of the rows of DIR/validation.csv (at most cap), their pairs in pairs. */
static size_t row_games(const char *dir, uint64_t *games, uint64_t *pairs, size_t cap)
{
    ValidationPoint *p;
    size_t n;
    read_points(dir, &p, &n);
    for (size_t i = 0; i < n && i < cap; i++) {
        cr_assert_eq(p[i].point, i + 1, "row %zu is point %llu", i + 1, (unsigned long long)p[i].point);
        games[i] = p[i].games;
        pairs[i] = p[i].pairs;
    }
    free(p);
    return n;
}

static char *status_of(const char *dir, const char *log)
{
    Args s = { .n = 0 };
    add_line(&s, "status %s/%s", tmp, dir);
    cr_assert_eq(run_to_end(status_main, &s, log), 0);
    return slurp(log);
}

/* every=0.3 puts the points at 24, 48 and 72 of 80 games; the values the
 * run ends with (what export writes) get a point of their own at 80.  Fails
 * when the last point is the one at 72 (before: points = floor(1/every)). */
Test(validate, the_final_values_are_always_validated)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate every=0.3 games=4");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    uint64_t g[8], pairs[8];
    size_t n = row_games("r", g, pairs, 8);
    cr_assert_eq(n, 4, "%zu points, not 3 and the final values", n);
    cr_assert(g[0] >= 24 && g[1] >= 48 && g[2] >= 72 && g[2] < 80, "points at %llu, %llu, %llu",
              (unsigned long long)g[0], (unsigned long long)g[1], (unsigned long long)g[2]);
    cr_assert_eq(g[3], 80, "the last point at %llu games, not the run's 80", (unsigned long long)g[3]);
    cr_assert_eq(pairs[3], 2, "games=4 is every point's size when final= is not given");
    char *st = status_of("r", "status");
    cr_assert(strstr(st, "4 of 4 points") && strstr(st, "the final values (export's default) are point 4's snapshot"),
              "%s", st);
    free(st);
}

/* resume -spsa games=160 of an 80-game run with every=0.25: the extension
 * gets the multiples of 0.25 x 160 beyond the last point (120) and its own
 * final point (160).  Fails when no point is due after the first budget's
 * (before: status kept showing the point at 80 as the latest while export
 * wrote values 80 games newer). */
Test(validate, an_extension_validates_its_values)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate every=0.25 games=4");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    Args b = { .n = 0 };
    add_line(&b, "resume %s/r -spsa games=160", tmp);
    rc = run_to_end(resume_main, &b, "log2");
    log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    cr_assert(strstr(log, "validation 6 at 160 games"), "the extension's final values are validated:\n%s", log);
    free(log);
    uint64_t g[8], pairs[8];
    size_t n = row_games("r", g, pairs, 8);
    cr_assert_eq(n, 6, "%zu points, not 4 and 2 over the extension", n);
    cr_assert_eq(g[3], 80);
    cr_assert(g[4] >= 120 && g[4] < 160, "point 5 at %llu games", (unsigned long long)g[4]);
    cr_assert_eq(g[5], 160);
    char *st = status_of("r", "status");
    cr_assert(strstr(st, "6 of 6 points") && strstr(st, "latest: point 6 at 160 games"), "%s", st);
    free(st);
}

/* A run directory of an older build: its state has no final, last or used
 * (points of `games` each), and its every=0.3 left the final values
 * unvalidated.  status says so; resume keeps the 3 points as they were and
 * plays the final values' point, of `games` games, on the held-out openings
 * after those the 3 points played.  Fails when the resume calls the run
 * complete. */
Test(validate, an_older_builds_run_validates_its_final_values_on_resume)
{
    Args a = far_run("r", 80, "");
    /* one game at a time: a point's pairs come before the tuning's, so point 3
     * is taken at 72 games.  At concurrency 2 on a loaded machine point 2 can
     * still be in play while the other slot plays the rest of the budget, and
     * point 3 is then taken at 80, as the final point. */
    add_line(&a, "-concurrency 1 -validate every=0.3 games=4 -pgnout file=%s/g.pgn", tmp);
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    /* the state and the files as the older build left them */
    cJSON *j = read_json_file("r/state.json");
    cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "run"), "validation");
    cr_assert_not_null(v);
    cJSON_DeleteItemFromObjectCaseSensitive(v, "final");
    cJSON_DeleteItemFromObjectCaseSensitive(v, "last");
    cJSON_DeleteItemFromObjectCaseSensitive(v, "used");
    cJSON_ReplaceItemInObjectCaseSensitive(v, "done", cJSON_CreateNumber(3));
    char *text = cJSON_Print(j);
    write_file("r/state.json", text);
    free(text);
    cJSON_Delete(j);
    char *csv = slurp("r/" VALIDATION_FILE);
    char *row4 = strstr(csv, "\n4,");
    if (row4)
        row4[1] = '\0';
    write_file("r/" VALIDATION_FILE, csv);
    free(csv);
    char snap[300];
    snprintf(snap, sizeof snap, "%s/r/%s/4.json", tmp, SNAPSHOT_DIR);
    unlink(snap);

    char *st = status_of("r", "status");
    cr_assert(strstr(st, "3 of 4 points") && strstr(st, "the final values (export's default) were NOT validated"),
              "%s", st);
    free(st);
    Args b = { .n = 0 };
    add_line(&b, "resume %s/r", tmp);
    rc = run_to_end(resume_main, &b, "log2");
    log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    cr_assert(strstr(log, "validation 4 at 80 games"), "%s", log);
    free(log);
    uint64_t g[8], pairs[8];
    size_t n = row_games("r", g, pairs, 8);
    cr_assert_eq(n, 4);
    cr_assert(g[2] >= 72 && g[2] < 80, "point 3 at %llu games", (unsigned long long)g[2]);
    cr_assert_eq(g[3], 80);
    cr_assert_eq(pairs[3], 2, "an older build's final point has `games` games");
    cr_assert_eq(access(snap, R_OK), 0, "snapshot 4 is written");
    /* point 4 plays pairs 7 and 8 of the held-out order: Rounds 4.1 and 4.2 */
    char *pgn = slurp("g.pgn");
    cr_assert(strstr(pgn, "[Round \"4.1\"]") && strstr(pgn, "[Round \"4.2\"]"), "point 4's games are in the PGN");
    free(pgn);
}

/* ---- the default allocation and the best point's correction (issue 41) ---- */

/* The default, chosen on the simulator (docs/results/validation-power.md):
 * a point at half the budget and 80% of the validation games (10% of the
 * budget) in the final point.  games=N alone keeps its meaning: every point
 * has N.  Fails when the final point is not the large one. */
Test(validate, the_default_puts_most_games_in_the_final_point)
{
    Validation v = { 0 };
    char err[256];
    cr_assert_eq(validate_plan(&v, 0, -1, -1, 20000, err, sizeof err), 0, "%s", err);
    cr_assert_float_eq(v.every, 0.5, 1e-12);
    cr_assert_eq(v.games, 400);
    cr_assert_eq(v.final, 1600);
    uint64_t at, size;
    cr_assert(validate_next_point(&v, 0, 20000, &at, &size));
    cr_assert(at == 10000 && size == 400, "first point at %llu, %llu games", (unsigned long long)at,
              (unsigned long long)size);
    cr_assert(validate_next_point(&v, 10003, 20000, &at, &size));
    cr_assert(at == 20000 && size == 1600, "final point at %llu, %llu games", (unsigned long long)at,
              (unsigned long long)size);
    cr_assert_not(validate_next_point(&v, 20000, 20000, &at, &size));
    cr_assert_eq(validate_points(&v, 20000), 2);
    /* games=N alone: every point N, the final one too */
    cr_assert_eq(validate_plan(&v, 0.2, 400, -1, 20000, err, sizeof err), 0, "%s", err);
    cr_assert(v.games == 400 && v.final == 400 && validate_points(&v, 20000) == 5);
    cr_assert_eq(validate_plan(&v, 0.2, 100, 1600, 20000, err, sizeof err), 0, "%s", err);
    cr_assert(v.games == 100 && v.final == 1600);
    cr_assert_eq(validate_plan(&v, 0.2, 100, 1601, 20000, err, sizeof err), -1);
    cr_assert(strstr(err, "final=1601") && strstr(err, "even"), "%s", err);
    cr_assert_eq(validate_plan(&v, 0.2, 0, -1, 20000, err, sizeof err), 0);
    cr_assert_eq(validate_points(&v, 20000), 0, "games=0: no validation");
}

/* -validate games=0 turns validation off: with every=, final= or a limit of
 * its own it is a contradiction, refused before anything is played.  Fails
 * if such a run starts (it would validate nothing the user asked for). */
Test(validate, games_0_with_a_schedule_is_refused)
{
    static const char *const extra[] = { "every=0.5", "final=200", "tc=10+0.1" };
    for (int i = 0; i < 3; i++) {
        char dir[16];
        snprintf(dir, sizeof dir, "r%d", i);
        Args a = far_run(dir, 40, "");
        add_line(&a, "-validate games=0 %s", extra[i]);
        int rc = run_to_end(run_main, &a, "log");
        char *log = slurp("log");
        cr_assert_eq(rc, 2, "games=0 %s: exit %d\n%s", extra[i], rc, log);
        cr_assert(strstr(log, "validate.games=0 turns validation off") && strstr(log, extra[i]), "%s", log);
        free(log);
    }
}

/* The correction of the best point is its expected estimate, given that it
 * came out highest, at one strength: 1.16296 SE for 5 equal points; for two,
 * s_b^2 sqrt(2 / pi) / sqrt(s1^2 + s2^2), larger when the wide one won;
 * points without an interval are left out.  Fails if the integral, the
 * conditioning or the standard errors (elo_err / 1.96) are wrong. */
Test(validate, the_best_point_is_corrected_for_selection)
{
    ValidationPoint p[6];
    for (int i = 0; i < 5; i++)
        p[i] = (ValidationPoint){ .point = (uint64_t)i + 1, .elo = 10.0 * i, .elo_err = 1.959963984540054 * 10 };
    p[5] = (ValidationPoint){ .point = 6, .elo = INFINITY, .elo_err = INFINITY, .ptnml = { 0, 0, 0, 0, 1 } };
    cr_assert_float_eq(validate_selection_bias(p, 5), 11.6296, 1e-3, "%g", validate_selection_bias(p, 5));
    cr_assert_float_eq(validate_selection_bias(p, 6), 11.6296, 1e-3, "a point without an interval is left out");
    ValidationPoint q[2] = { { .elo = 5, .elo_err = 1.959963984540054 * 14 },
                             { .elo = 1, .elo_err = 1.959963984540054 * 7 } };
    /* the wide point won: E[X1 | X1 > X2] = s1^2 sqrt(2 / pi) / sqrt(s1^2 + s2^2) */
    cr_assert_float_eq(validate_selection_bias(q, 2), 14.0 * 14 * sqrt(2 / M_PI) / sqrt(14.0 * 14 + 7 * 7), 1e-4,
                       "%g", validate_selection_bias(q, 2));
    q[1].elo = 9; /* the narrow one won: s2^2 in place of s1^2 */
    cr_assert_float_eq(validate_selection_bias(q, 2), 7.0 * 7 * sqrt(2 / M_PI) / sqrt(14.0 * 14 + 7 * 7), 1e-4,
                       "%g", validate_selection_bias(q, 2));
    q[1].elo = 1;
    cr_assert_float_eq(validate_selection_bias(q, 1), 0, 1e-12, "one point: no selection");
}

/* The simulator (valpower.h) against what is known of it: 5 points of 200
 * pairs find a -20 Elo walk about 30% of the time and one point of 1000
 * pairs about 89%; the final point is significant about 5% of the time with
 * nothing gained; the best of 5 equal points is biased by about +16 Elo and
 * its corrected Elo is unbiased.  2000 seeds (the bounds are 4 standard
 * errors wide or more).  Fails if the pentanomial draws are not tilted to
 * the trajectory, or the correction is off. */
Test(validate, the_power_simulator_reproduces_the_known_figures)
{
    ValPowerConf c = { .budget = 20000, .walk = -20, .flat = 25, .collapse = -50, .seed0 = 1, .seeds = 2000 };
    Validation five = { 0 }, one = { 0 };
    char err[256];
    cr_assert_eq(validate_plan(&five, 0.2, 400, -1, 20000, err, sizeof err), 0);
    cr_assert_eq(validate_plan(&one, 1.0, 2, 2000, 20000, err, sizeof err), 0);
    ValPowerResult r;
    cr_assert_eq(valpower_run(&five, &c, &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.points, 5);
    cr_assert(r.walk_loss > 0.25 && r.walk_loss < 0.36, "walk %g", r.walk_loss);
    cr_assert(r.flat_gain > 0.38 && r.flat_gain < 0.50, "flat %g", r.flat_gain);
    cr_assert(r.null_loss + r.null_gain > 0.03 && r.null_loss + r.null_gain < 0.075, "null %g",
              r.null_loss + r.null_gain);
    cr_assert(r.best_mean > 14 && r.best_mean < 19, "best %g", r.best_mean);
    cr_assert(fabs(r.corr_mean) < 1.5, "corrected best %g", r.corr_mean);
    cr_assert(r.early_warning > 0.95, "a -50 Elo collapse shows in the points before the last: %g", r.early_warning);
    cr_assert_eq(valpower_run(&one, &c, &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.points, 1);
    cr_assert_eq(r.final_games, 2000);
    cr_assert(r.walk_loss > 0.85 && r.walk_loss < 0.93, "walk %g", r.walk_loss);
    cr_assert_float_eq(r.early_warning, 0, 1e-12, "no point before the last");
}

/* ---- validation at the limit the user plays (issue 43 §3) ---- */

/* tmp/DIR's validation.csv and validation-limit.csv, two points each. */
static void two_points_at_both_limits(const char *dir, ValidationPoint **p, ValidationPoint **u)
{
    size_t n, nu;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, dir);
    cr_assert_eq(validate_read(path, p, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(validate_read_limit(path, u, &nu, err, sizeof err), 0, "%s", err);
    cr_assert(n == 2 && nu == 2, "%zu and %zu points", n, nu);
}

/* The fake engine's optimum moves with the limit: at nodes=1 it is
 * 70,30,10 (where the run tunes), on a clock it is the start values
 * 30,70,-30 (--clock-target).  With -validate tc=10+0.1 every point is
 * also played at that clock, on the same openings: the points gain at the
 * tuning's limit and lose at the clock, and the run's summary, status and
 * the report say so.  The same run with an engine that plays alike at both
 * limits prints no warning.  Fails if the warning is never printed, or the
 * pairs at the user's limit are played at the tuning's. */
static char *limit_run(const char *dir, const char *engine_args)
{
    Args a = far_run(dir, 400, engine_args);
    add_line(&a, "-spsa form=classic -validate every=0.5 games=100 tc=10+0.1 -pgnout file=%s/%s.pgn", tmp, dir);
    char log[64];
    snprintf(log, sizeof log, "%s.log", dir);
    int rc = run_to_end(run_main, &a, log);
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "run failed:\n%s", text);
    return text;
}

Test(validate, validation_at_the_users_limit_warns_when_it_disagrees)
{
    char *log = limit_run("r", "--clock-target 30,70,-30");
    cr_assert(strstr(log, "validation 2 at 400 games: ") && strstr(log, " at 1 nodes; at 10+0.1: "), "%s", log);
    /* Whether the loss at the clock is also significant depends on its 50
     * pairs (the fake plays the clock on wall time): either wording says
     * that the gain does not carry over. */
    cr_assert(strstr(log, "WARNING: point 2 ") && strstr(log, ": the gain does not carry over to the limit you play"),
              "%s", log);
    free(log);
    ValidationPoint *p, *u;
    two_points_at_both_limits("r", &p, &u);
    /* Each point scores far below the tuning's limit at the clock (over 12 runs, about +150 against -50 at
     * point 1, whose values are still near the start; +180 against -90 at point 2), and the last point loses
     * there: the pairs at the clock are played at the clock.  Point 1's 50 pairs at the clock can land above
     * 0, so only the last is asked to lose. */
    for (size_t i = 0; i < 2; i++) {
        cr_assert(u[i].point == p[i].point && u[i].games == p[i].games && u[i].pairs == 50);
        cr_assert_gt(p[i].elo, 0, "point %zu at the tuning's limit: %+.1f", i + 1, p[i].elo);
        cr_assert_lt(u[i].elo, p[i].elo - 50, "point %zu: %+.1f at the clock, %+.1f at the tuning's limit", i + 1,
                     u[i].elo, p[i].elo);
    }
    cr_assert_lt(u[1].elo, 0, "the last point at the clock: %+.1f", u[1].elo);
    free(p);
    free(u);
    char *st = status_of("r", "status");
    cr_assert(strstr(st, "at 10+0.1 (your limit; the tuning's: 1 nodes): point 2: "), "%s", st);
    cr_assert(strstr(st, "WARNING: point 2 "), "%s", st);
    free(st);
    char *pgn = slurp("r.pgn");
    cr_assert(strstr(pgn, "[Event \"ratchet-tune validation point 2 at 10+0.1: snapshot 2 against the start values "
                          "(the run created "),
              "the games at the user's limit are named in the PGN");
    cr_assert(strstr(pgn, "[TimeControl \"10+0.1\"]"), "they are played on the clock");
    free(pgn);
    char out[300], path[256], err[512];
    snprintf(out, sizeof out, "%s/page.html", tmp);
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(htmlreport_run(path, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    char *page = slurp("page.html");
    cr_assert(strstr(page, "At your limit, 10+0.1") && strstr(page, "<p class=\"warn\">WARNING: point 2 "));
    free(page);

    log = limit_run("same", "");
    cr_assert(strstr(log, " at 1 nodes; at 10+0.1: "), "%s", log);
    cr_assert_null(strstr(log, "WARNING"), "the limits agree:\n%s", log);
    free(log);
}

/* A run of one parameter and 200 games whose final point (40 games, with a
 * user's limit) is in play: the state the pending-point tests save and load. */
static void final_point_in_play(SpsaState *st, Validation *v)
{
    SpsaParam ps[1] = { { .name = "Alpha", .start = 30, .theta = 30, .min = 0, .max = 100, .c_end = 8, .r_end = 0.05 } };
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 200);
    char err[512];
    cr_assert_eq(spsa_init(st, ps, 1, &cfg, 1, err, sizeof err), 0, "%s", err);
    *v = (Validation){ 0 };
    cr_assert_eq(validate_plan(v, 0.5, 20, 40, 200, err, sizeof err), 0);
    v->holdout = 4;
    v->has_limit = true;
    double x = 41;
    cr_assert_eq(validate_take(v, &x, 1, 200, 200), 0);
}

/* A point in play keeps its pairs at the user's limit in the state
 * (pending.limit) through a save and a load; counts that do not add up are
 * refused.  Fails if a resume would lose or mistake them. */
Test(validate, a_pending_point_keeps_its_pairs_at_the_users_limit)
{
    SpsaState st;
    Validation v;
    char err[512];
    final_point_in_play(&st, &v);
    cr_assert_eq(v.size, 40, "the final point has final= games");
    v.pairs = 20;
    v.wins = v.losses = 10;
    v.draws = 20;
    v.ptnml[2] = 20;
    v.lim = (ValidationLeg){ .pairs = 3, .wins = 1, .losses = 3, .draws = 2, .ptnml = { 1, 1, 1, 0, 0 } };
    cJSON *j = validate_to_json(&v, &st);
    cr_assert_not_null(j);
    Validation w = { 0 };
    cr_assert_eq(validate_from_json(&w, j, &st, "test", err, sizeof err), 0, "%s", err);
    cr_assert(w.pending && w.size == 40 && w.pairs == 20 && w.lim.pairs == 3 && w.lim.losses == 3 &&
              w.lim.ptnml[0] == 1 && w.lim.next == 3);
    /* pairs at a user's limit in a run whose settings name none: refused
     * when the settings are read, with what is wrong (the next save used to
     * fail with no word of it) */
    RunConf none;
    conf_init(&none);
    cr_assert_eq(validate_limit_from_conf(&w, &none, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "pending.limit") && strstr(err, "settings name none"), "%s", err);
    RunConf tc;
    conf_init(&tc);
    conf_set(&tc, "validate", "tc", "10+0.1", "test");
    cr_assert_eq(validate_limit_from_conf(&w, &tc, NULL, err, sizeof err), 0, "%s", err);
    conf_free(&none);
    conf_free(&tc);
    cJSON *l = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "pending"), "limit");
    cJSON_ReplaceItemInObjectCaseSensitive(l, "wins", cJSON_CreateNumber(2));
    cr_assert_eq(validate_from_json(&w, j, &st, "test", err, sizeof err), -1);
    cr_assert(strstr(err, "pending.limit"), "%s", err);
    cJSON_Delete(j);
    validate_free(&v);
    validate_free(&w);
    spsa_free(&st);
}

/* The best point's text: corrected without an interval when there is a
 * choice; as measured when it is the only point with an interval.  Fails if
 * the raw interval is shown for a selected point. */
Test(validate, the_best_points_text_shows_no_raw_interval)
{
    ValidationPoint p[2] = { { .point = 1, .games = 100, .elo = 30, .elo_err = 1.959963984540054 * 10 },
                             { .point = 2, .games = 200, .elo = 10, .elo_err = 1.959963984540054 * 10 } };
    char buf[600];
    morning_best_text(p, 2, buf, sizeof buf);
    cr_assert(strstr(buf, "+30.0 Elo as measured, +24.4 corrected for selection") && !strstr(buf, "+/-"), "%s", buf);
    morning_best_text(p, 1, buf, sizeof buf);
    cr_assert(strstr(buf, "+30.0 +/- 19.6 Elo (the only point with an interval"), "%s", buf);
}

/* validation.csv as a resume finds it: the rows text, and state's done = 1
 * with a row beyond it (a kill between the row's append and the state's
 * save), so validate_trim rewrites the file. */
static int trim_rows(const char *rows, char *err, size_t errlen)
{
    char text[4096];
    snprintf(text, sizeof text, "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n%s", rows);
    write_file(VALIDATION_FILE, text);
    Validation v = { .done = 1 };
    return validate_trim(&v, tmp, err, errlen);
}

/* A kept row that prints long (an Elo of 1e308: 309 digits) made
 * validate_trim's fixed-size buffer overflow: the length grew by what
 * snprintf wanted, cap - len wrapped, and the whole "length" was written
 * (heap overflow under ASan, garbage in the file without).  Now such a row is
 * refused where it is read, naming the file and line, and the file is left as
 * it was. */
Test(validate, trim_refuses_an_elo_that_cannot_be_a_point)
{
    const char *rows = "1,100,2,1e308,5.00,0,0,2,0,0,2,2,0\n"
                       "2,200,2,10.00,5.00,0,0,2,0,0,2,2,0\n";
    char err[512] = "";
    cr_assert_eq(trim_rows(rows, err, sizeof err), -1, "a row with an Elo of 1e308 was kept");
    cr_assert(strstr(err, VALIDATION_FILE ":2: not a validation row"), "%s", err);
    char *s = slurp(VALIDATION_FILE);
    cr_assert(strstr(s, rows), "the file was changed:\n%s", s);
    free(s);
}

/* Twenty-digit counts (beyond 2^53, what state.json can hold) in every field
 * of several kept rows: each row printed longer than the 256 bytes the buffer
 * allowed it, so snprintf wrote past the buffer.  Refused when read. */
Test(validate, trim_refuses_counts_beyond_2_to_the_53)
{
    char rows[3000] = "", row[400];
    const char *big = "18446744073709551615";
    for (int i = 1; i <= 4; i++) {
        snprintf(row, sizeof row, "%d,%s,%s,1.00,1.00,%s,%s,%s,%s,%s,%s,%s,%s\n", i, big, big, big, big, big, big, big,
                 big, big, big);
        strcat(rows, row);
    }
    char err[512] = "";
    cr_assert_eq(trim_rows(rows, err, sizeof err), -1, "rows with 20-digit counts were kept");
    cr_assert(strstr(err, VALIDATION_FILE ":2: not a validation row: a count"), "%s", err);
}

/* Rows a run could have written are kept byte for byte, also the longest
 * (16-digit counts, an infinite error); a row with a sign, too few fields,
 * counts that disagree or a point out of order is refused. */
Test(validate, trim_keeps_long_real_rows_and_refuses_malformed_ones)
{
    const char *keep = "1,9007199254740992,4503599627370496,999999.99,inf,0,0,0,0,4503599627370496,"
                       "9007199254740992,0,0\n";
    char rows[1024], err[512] = "";
    snprintf(rows, sizeof rows, "%s2,8,4,0.00,1.00,0,0,4,0,0,0,0,8\n", keep);
    cr_assert_eq(trim_rows(rows, err, sizeof err), 0, "%s", err);
    char *s = slurp(VALIDATION_FILE);
    char want[1024];
    snprintf(want, sizeof want, "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n%s", keep);
    cr_assert_str_eq(s, want);
    free(s);
    static const char *const bad[] = {
        "1,8,4,0.00,1.00,0,0,4,0,0,0,0,-8\n",     /* a sign */
        "1,8,4,0.00,1.00,0,0,4,0,0,0,0\n",        /* 12 fields */
        "1,8,4,0.00,1.00,0,0,4,0,0,0,0,8,1\n",    /* 14 fields */
        "1,8,4,0.00,1.00,0,0,3,0,0,0,0,8\n",      /* the pentanomial counts 3 pairs */
        "1,8,4,0.00,1.00,0,0,4,0,0,0,0,7\n",      /* 7 games */
        "1,8,4,x,1.00,0,0,4,0,0,0,0,8\n",         /* not a number */
        "1,8,4,0.00,-1.00,0,0,4,0,0,0,0,8\n",     /* a negative error */
        "1,8,4,0.00,1.00,0,0,4,0,0,0,0,8\n1,8,4,0.00,1.00,0,0,4,0,0,0,0,8\n", /* point 1 twice */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(rows, sizeof rows, "%s3,8,4,0.00,1.00,0,0,4,0,0,0,0,8\n", bad[i]);
        err[0] = '\0';
        cr_expect_eq(trim_rows(rows, err, sizeof err), -1, "kept: %s", bad[i]);
        cr_expect(strstr(err, "not a validation row"), "%s: %s", bad[i], err);
    }
}

/* A pending point that already holds all its pairs was never saved by a run
 * (the last pair records it before the state is written); resume used to
 * hand out no pair for it and never record it, looping for ever.  Refused
 * with a message. */
Test(validate, a_pending_point_with_all_its_pairs_is_refused)
{
    SpsaState st;
    memset(&st, 0, sizeof st);
    cJSON *j = cJSON_Parse("{\"every\":0.5,\"games\":4,\"holdout\":2,\"done\":0,\"pending\":{\"point\":1,"
                           "\"at_games\":40,\"pairs\":2,\"wins\":2,\"losses\":2,\"draws\":0,\"ptnml\":[0,0,2,0,0],"
                           "\"values\":{}}}");
    cr_assert_not_null(j);
    Validation v;
    memset(&v, 0, sizeof v);
    char err[512] = "";
    cr_expect_eq(validate_from_json(&v, j, &st, "r/state.json", err, sizeof err), -1, "the state was taken");
    cr_expect(strstr(err, "r/state.json: run.validation.pending: point 1 holds 2 pairs"), "%s", err);
    validate_free(&v);
    cJSON_Delete(j);
}

/* export -snapshot K and verify -snapshot K check the snapshot against the
 * run's spec as -base files are: a string, 1e400 (inf), null or 70.5 for an
 * integer parameter, a name the run does not have, a missing or repeated
 * parameter, a value outside the range, or games that are not a count, are
 * refused naming the file and the parameter; export writes nothing and
 * verify plays nothing.  Before, export wrote null, the unknown name or the
 * float and dropped the missing parameter, and verify sent 0 or inf to the
 * engine and wrote a verdict. */
Test(validate, a_snapshot_that_does_not_fit_the_spec_is_refused)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate every=0.5 games=4");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    static const struct {
        const char *params, *games, *says;
    } bad[] = {
        { "\"Alpha\": \"70\", \"Beta\": 30, \"Gamma\": 10", "40", "Alpha = \"70\" is not an integer" },
        { "\"Alpha\": 1e400, \"Beta\": 30, \"Gamma\": 10", "40", "Alpha = " },
        { "\"Alpha\": null, \"Beta\": 30, \"Gamma\": 10", "40", "Alpha = null is not an integer" },
        { "\"Alpha\": 70.5, \"Beta\": 30, \"Gamma\": 10", "40", "Alpha = 70.5 is not an integer" },
        { "\"Alpha\": 70, \"Beta\": 30, \"Gamma\": 10, \"Bogus\": 1", "40", "'Bogus' is not a parameter of the run" },
        { "\"Alpha\": 70, \"Beta\": 30", "40", "no value for 'Gamma'" },
        { "\"Alpha\": 70, \"Alpha\": 71, \"Beta\": 30, \"Gamma\": 10", "40", "'Alpha' is given twice" },
        { "\"Alpha\": 170, \"Beta\": 30, \"Gamma\": 10", "40", "Alpha = 170 is outside its range [0, 100]" },
        { "\"Alpha\": 70, \"Beta\": 30, \"Gamma\": 10", "-4", "not a whole number of games" },
    };
    char snap[256];
    snprintf(snap, sizeof snap, "r/%s/1.json", SNAPSHOT_DIR);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put(snap, "{\"params\": {%s}, \"games\": %s, \"snapshot\": 1}\n", bad[i].params, bad[i].games);
        unlink("out.json");
        char outpath[256];
        snprintf(outpath, sizeof outpath, "%s/out.json", tmp);
        unlink(outpath);
        Args e = { .n = 0 };
        add_line(&e, "export %s/r -snapshot 1 -o %s", tmp, outpath);
        rc = run_to_end(export_main, &e, "elog");
        log = slurp("elog");
        cr_expect_eq(rc, 1, "export took {%s}:\n%s", bad[i].params, log);
        cr_expect(strstr(log, snap) && strstr(log, bad[i].says), "export of {%s}, games %s: %s", bad[i].params,
                  bad[i].games, log);
        cr_expect_neq(access(outpath, F_OK), 0, "export wrote {%s}", bad[i].params);
        free(log);

        Args v = { .n = 0 };
        add_line(&v, "verify %s/r -snapshot 1 -sprt off -rounds 2 -bake no -restart", tmp);
        rc = run_to_end(verify_main, &v, "vlog");
        log = slurp("vlog");
        cr_expect_neq(rc, 0, "verify played {%s}:\n%s", bad[i].params, log);
        cr_expect(strstr(log, snap) && strstr(log, bad[i].says), "verify of {%s}: %s", bad[i].params, log);
        char vj[256];
        snprintf(vj, sizeof vj, "%s/r/verify.json", tmp);
        cr_expect_neq(access(vj, F_OK), 0, "verify wrote a verdict for {%s}", bad[i].params);
        free(log);
    }
}

/* -validate off with every= or games= contradicts itself: refused naming
 * the setting (before, 'off every=0.5' silently ran without validation);
 * off with holdout= is fine. */
Test(validate, off_with_a_point_setting_is_refused)
{
    static const char *const bad[] = { "every=0.5", "games=20" };
    for (int i = 0; i < 2; i++) {
        Args a = far_run("r", 40, "");
        add_line(&a, "-validate off %s", bad[i]);
        int rc = run_to_end(run_main, &a, "log");
        char *log = slurp("log");
        cr_expect_neq(rc, 0, "-validate off %s was taken:\n%s", bad[i], log);
        cr_expect(strstr(log, bad[i]) && strstr(log, "contradicts"), "%s", log);
        free(log);
    }
    Args a = far_run("h", 40, "");
    add_line(&a, "-validate off holdout=0.3");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "-validate off holdout=0.3:\n%s", log);
    free(log);
}

/* With holdout=0 validation plays the tuning's own openings: the run, status
 * and the report say so (before: "on the 0 held-out openings"). */
Test(validate, holdout_0_says_validation_is_in_sample)
{
    Args a = far_run("r", 40, "");
    add_line(&a, "-validate holdout=0 every=0.5 games=4");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "on the tuning's own openings (none held out: in sample)"), "%s", log);
    free(log);
    Args s = { .n = 0 };
    add_line(&s, "status %s/r", tmp);
    cr_assert_eq(run_to_end(status_main, &s, "slog"), 0);
    log = slurp("slog");
    cr_assert(strstr(log, "on the tuning's own openings: none held out"), "%s", log);
    cr_assert_null(strstr(log, "0 held-out"), "%s", log);
    free(log);
    char *html = slurp("r/report.html");
    cr_assert(strstr(html, "the tuning's own openings (none held out: in sample)"), "the report says otherwise");
    cr_assert_null(strstr(html, "on the 0 openings"));
    free(html);
}

/* The validation games of tmp/name per point (1..2) and per Round: the
 * counts into games[point] and the largest number of games of one Round. */
static int validation_games(const char *name, int games[3])
{
    char *pgn = slurp(name);
    int most = 0;
    games[0] = games[1] = games[2] = 0;
    for (char *r = strstr(pgn, "\n[Round \""); r; r = strstr(r + 1, "\n[Round \"")) {
        unsigned p, j;
        if (sscanf(r, "\n[Round \"%u.%u\"]", &p, &j) != 2)
            continue;
        cr_assert(p >= 1 && p <= 2, "Round %u.%u", p, j);
        games[p]++;
        char needle[64];
        snprintf(needle, sizeof needle, "\n[Round \"%u.%u\"]", p, j);
        int same = 0;
        for (char *s = strstr(pgn, needle); s; s = strstr(s + 1, needle))
            same++;
        most = same > most ? same : most;
    }
    free(pgn);
    return most;
}

/* Killed (SIGKILL) while a point is in play, with a game of a pair cut short
 * in the PGN and a whole pair that ended after the last save (both are
 * planted too, so that the case is there whatever the kill caught): the
 * resume takes out of the -pgnout file the validation games the state does
 * not count, so that at the end each point has exactly its 20 games in the
 * PGN, each Round P.J exactly 2.  Before, the PGN kept them (41-42 games for
 * a 40-game point, a Round three times). */
Test(validate, after_sigkill_the_pgn_holds_exactly_the_counted_validation_games)
{
    /* 2 ms a move: the final point stays in play long enough for the poll
     * below to see it on a loaded machine (at 1 ms a CI run missed it). */
    Args a = far_run("r", 80, "--think 2");
    add_line(&a, "-validate every=0.5 games=20 -maxmoves 30 -pgnout file=%s/g.pgn", tmp);
    pid_t pid = spawn_until_point_in_play(&a, "log1");
    kill(pid, SIGKILL);
    wait_child(pid);
    args_free(&a);
    RunState rs;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(runstate_load(&rs, path, err, sizeof err), 0, "%s", err);
    unsigned point = (unsigned)(rs.val.done + 1);
    runstate_free(&rs);
    /* a copy of a counted game of the point, as a lone game of pair 9 and a whole pair 8 */
    char *pgn = slurp("g.pgn");
    char needle[64];
    snprintf(needle, sizeof needle, "[Round \"%u.1\"]", point);
    char *round = strstr(pgn, needle);
    cr_assert_not_null(round, "no game of pair %u.1 in the PGN", point);
    char *start = round;
    while (start > pgn && strncmp(start, "[Event ", 7) != 0)
        start--;
    char *end = strstr(round, "\n\n[Event ");
    end = end ? end + 2 : pgn + strlen(pgn);
    char *end_moves = strstr(round, "\n\n");
    cr_assert(end_moves && end_moves < end);
    size_t glen = (size_t)(end - start);
    char gpath[256];
    snprintf(gpath, sizeof gpath, "%s/g.pgn", tmp);
    FILE *f = fopen(gpath, "a");
    cr_assert_not_null(f);
    static const unsigned extra[] = { 9, 8, 8 };
    for (int k = 0; k < 3; k++) {
        char *copy = strndup(start, glen);
        char *r = strstr(copy, needle);
        fwrite(copy, 1, (size_t)(r - copy), f);
        fprintf(f, "[Round \"%u.%u\"]", point, extra[k]);
        fputs(r + strlen(needle), f);
        free(copy);
    }
    fclose(f);
    free(pgn);

    Args b = { .n = 0 };
    add_line(&b, "resume %s/r", tmp);
    int rc = run_to_end(resume_main, &b, "log2");
    char *log = slurp("log2");
    cr_assert_eq(rc, 0, "resume failed:\n%s", log);
    cr_expect(strstr(log, "validation game"), "the resume says what it took out of the PGN:\n%s", log);
    free(log);
    assert_points("r", 2, 80, 20);
    int games[3];
    int most = validation_games("g.pgn", games);
    cr_expect_eq(games[1], 20, "point 1 has %d games in the PGN", games[1]);
    cr_expect_eq(games[2], 20, "point 2 has %d games in the PGN", games[2]);
    cr_expect_eq(most, 2, "a Round has %d games", most);
}

/* The progress line counts a point in play: its games so far, and the time
 * left counts the validation's games beside the tuning's.  A run stopped
 * while a point plays shows them on its last line; before, the line had
 * only the tuning's games, so the final point played in silence under
 * "ETA 0s". */
Test(validate, the_progress_line_shows_the_point_in_play)
{
    Args a = far_run("r", 80, "--think 2");
    add_line(&a, "-validate every=0.5 games=20 -maxmoves 30");
    pid_t pid = spawn_until_point_in_play(&a, "log1");
    kill(pid, SIGTERM);
    wait_child(pid);
    args_free(&a);
    char *log = slurp("log1");
    const char *line = NULL;
    for (const char *s = strstr(log, "iter "); s; s = strstr(s + 1, "\niter "))
        line = s;
    cr_assert_not_null(line, "no progress line:\n%s", log);
    unsigned point, played, size;
    const char *v = strstr(line, "  validation ");
    cr_assert(v && sscanf(v, "  validation %u: %u of %u games", &point, &played, &size) == 3,
              "the last progress line names the point in play:\n%s", log);
    cr_expect(point >= 1 && played >= 2 && played < size && size == 20, "point %u: %u of %u games:\n%s", point,
              played, size, log);
    free(log);
}

/* run.validation as validate_from_json reads it from r/state.json: 0, or -1
 * with the message in err. */
static int validation_from(const char *json, char *err, size_t errlen)
{
    SpsaState st;
    memset(&st, 0, sizeof st);
    cJSON *j = cJSON_Parse(json);
    cr_assert_not_null(j, "%s", json);
    Validation v;
    memset(&v, 0, sizeof v);
    int rc = validate_from_json(&v, j, &st, "r/state.json", err, errlen);
    validate_free(&v);
    cJSON_Delete(j);
    return rc;
}

/* A schedule finer than -validate every= takes (0.001) has 1/every points:
 * every=1e-300 made status, report and resume count points for ever (and
 * validate_next_point's search for the next multiple never ended once the
 * step was below a double's resolution).  Refused when read, naming the
 * file and the field; 0 (no points) and the setting's range still load. */
Test(validate, a_schedule_finer_than_the_setting_takes_is_refused, .timeout = 10)
{
    static const char *const bad[] = { "1e-300", "0.0009", "5e-324" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[256], err[512] = "";
        snprintf(json, sizeof json, "{\"every\":%s,\"games\":4,\"final\":20,\"holdout\":2,\"done\":0}", bad[i]);
        cr_expect_eq(validation_from(json, err, sizeof err), -1, "every=%s was taken", bad[i]);
        cr_expect(strstr(err, "r/state.json: run.validation.every"), "every=%s: %s", bad[i], err);
    }
    static const char *const good[] = { "0", "0.001", "0.25", "1" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char json[256], err[512] = "";
        snprintf(json, sizeof json, "{\"every\":%s,\"games\":4,\"final\":20,\"holdout\":2,\"done\":0}", good[i]);
        cr_expect_eq(validation_from(json, err, sizeof err), 0, "every=%s: %s", good[i], err);
    }
}

/* A point in play of 0 games has no pair to hand out and is never
 * recorded: resume looped for ever, calling the runner again while the
 * point was pending.  Refused when read, naming the file and the field:
 * size 0, an odd size (a run plays pairs), and no size in a state whose
 * points have 0 games (the size an older build's state gets). */
Test(validate, a_pending_point_of_no_games_is_refused, .timeout = 10)
{
    static const char *const PENDING = "\"pending\":{\"point\":1,\"at_games\":40,%s\"pairs\":0,\"wins\":0,"
                                       "\"losses\":0,\"draws\":0,\"ptnml\":[0,0,0,0,0],\"values\":{}}";
    static const struct { const char *head, *size; } bad[] = {
        { "\"every\":0.5,\"games\":4,\"final\":20", "\"size\":0," },
        { "\"every\":0.5,\"games\":4,\"final\":20", "\"size\":3," },
        { "\"every\":0,\"games\":0,\"final\":0", "" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char pending[512], json[1024], err[512] = "";
        snprintf(pending, sizeof pending, PENDING, bad[i].size);
        snprintf(json, sizeof json, "{%s,\"holdout\":2,\"done\":0,%s}", bad[i].head, pending);
        cr_expect_eq(validation_from(json, err, sizeof err), -1, "taken: %s", json);
        cr_expect(strstr(err, "r/state.json: run.validation.pending.size"), "%s: %s", json, err);
    }
    char pending[512], json[1024], err[512] = "";
    snprintf(pending, sizeof pending, PENDING, "\"size\":20,");
    snprintf(json, sizeof json, "{\"every\":0.5,\"games\":4,\"final\":20,\"holdout\":2,\"done\":0,%s}", pending);
    cr_expect_eq(validation_from(json, err, sizeof err), 0, "%s", err);
}

/* ---- the -pgnout file on resume (validate_trim_pgn) ---- */

/* The mark of the run whose -pgnout file the tests below trim (state.json's
 * "created"), and its limit's text. */
#define RUN "2025-01-01T00:00:00Z"
#define LIMIT "10+0.1"

/* A PGN game appended to tmp/g.pgn: with event NULL, of validation point
 * `point`, pair `pair`, as the run marked `run` writes it (at the user's
 * limit when `limit`), with the players white and black (NULL: the
 * snapshot and the start values); with point 0 a tuning game (Round
 * "pair"). */
static void pgn_game_as(const char *run, const char *event, unsigned point, unsigned pair, bool limit,
                        const char *white, const char *black)
{
    char path[256], ev[256], round[32], snap[32];
    snprintf(path, sizeof path, "%s/g.pgn", tmp);
    Validation v = { .has_limit = true, .limit_text = LIMIT };
    if (event)
        snprintf(ev, sizeof ev, "%s", event);
    else if (point == 0)
        snprintf(ev, sizeof ev, "ratchet-tune match");
    else
        validate_event(&v, run, point, limit, ev, sizeof ev);
    if (point)
        snprintf(round, sizeof round, "%u.%u", point, pair);
    else
        snprintf(round, sizeof round, "%u", pair);
    snprintf(snap, sizeof snap, point ? "snapshot %u" : "theta+c", point);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fprintf(f, "[Event \"%s\"]\n[Site \"?\"]\n[Date \"2025.01.01\"]\n[Round \"%s\"]\n[White \"%s\"]\n[Black \"%s\"]\n"
               "[Result \"1/2-1/2\"]\n[TimeControl \"-\"]\n[PlyCount \"1\"]\n[Termination \"adjudication\"]\n\n"
               "1. e4 {draw by agreement} 1/2-1/2\n\n",
            ev, round, white ? white : snap, black ? black : point ? "start" : "theta-c");
    fclose(f);
}

/* A game of this run's (RUN). */
static void pgn_game(unsigned point, unsigned pair, bool limit)
{
    pgn_game_as(RUN, NULL, point, pair, limit, NULL, NULL);
}

/* Both games of a pair. */
static void pgn_pair(unsigned point, unsigned pair, bool limit)
{
    pgn_game(point, pair, limit);
    pgn_game(point, pair, limit);
}

/* The games of tmp/g.pgn with Round `round`. */
static int round_games(const char *round)
{
    char *pgn = slurp("g.pgn"), needle[64];
    snprintf(needle, sizeof needle, "[Round \"%s\"]\n", round);
    int n = 0;
    for (char *s = strstr(pgn, needle); s; s = strstr(s + 1, needle))
        n++;
    free(pgn);
    return n;
}

/* validate_trim_pgn over tmp/g.pgn for the run RUN, with the rows of
 * tmp/validation.csv and tmp/validation-limit.csv. */
static PgnTrim trim_pgn(const Validation *v)
{
    char pgn[256], err[512] = "";
    snprintf(pgn, sizeof pgn, "%s/g.pgn", tmp);
    PgnTrim t;
    cr_assert_eq(validate_trim_pgn(v, tmp, RUN, pgn, &t, err, sizeof err), 0, "%s", err);
    return t;
}

/* A resume after a plain stop keeps every counted validation game.  Point 1
 * (an intermediate point, 4 games) and point 2 (the final values, 20
 * games, before `resume -spsa games=...` extended the budget) are recorded,
 * each also at the user's limit (Rounds numbered after the others); point
 * 3 is in play with 1 pair counted and a game of a pair cut short.  Only
 * that game goes.  Before, every recorded point kept games/2 pairs: 4 of
 * point 1's 8 games and 4 of point 2's 40 went, and the resume said they
 * were played again, which they were not. */
Test(validate, a_resume_keeps_the_pgn_games_of_the_final_point_and_at_the_users_limit)
{
    write_file(VALIDATION_FILE, "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n"
                                "1,40,2,0.00,inf,0,0,2,0,0,0,0,4\n"
                                "2,80,10,0.00,inf,0,0,10,0,0,0,0,20\n");
    write_file(VALIDATION_LIMIT_FILE, "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n"
                                      "1,40,2,0.00,inf,0,0,2,0,0,0,0,4\n"
                                      "2,80,10,0.00,inf,0,0,10,0,0,0,0,20\n");
    for (unsigned k = 1; k <= 20; k++)
        pgn_pair(0, k, false);
    for (unsigned j = 1; j <= 2; j++)
        pgn_pair(1, j, false);
    for (unsigned j = 3; j <= 4; j++)
        pgn_pair(1, j, true);
    for (unsigned j = 1; j <= 10; j++)
        pgn_pair(2, j, false);
    for (unsigned j = 11; j <= 20; j++)
        pgn_pair(2, j, true);
    pgn_pair(3, 1, false);
    pgn_game(3, 2, false);
    Validation v = { .every = 0.3, .games = 4, .final = 20, .holdout = 4, .done = 2, .last_at = 80,
                     .last_known = true, .used = 12, .pending = true, .at_games = 96, .due = 96, .size = 4,
                     .pairs = 1, .wins = 1, .losses = 1, .ptnml = { 0, 0, 1, 0, 0 }, .has_limit = true,
                     .limit_text = LIMIT };
    PgnTrim t = trim_pgn(&v);
    cr_expect_eq(t.dropped, 1, "%zu games taken out, not the 1 of the pair cut short", t.dropped);
    char round[32];
    for (unsigned j = 1; j <= 4; j++) {
        snprintf(round, sizeof round, "1.%u", j);
        cr_expect_eq(round_games(round), 2, "Round %s has %d games", round, round_games(round));
    }
    for (unsigned j = 1; j <= 20; j++) {
        snprintf(round, sizeof round, "2.%u", j);
        cr_expect_eq(round_games(round), 2, "Round %s has %d games", round, round_games(round));
    }
    cr_expect_eq(round_games("3.1"), 2);
    cr_expect_eq(round_games("3.2"), 0, "the game of a pair cut short is kept");
    cr_expect_eq(round_games("7"), 2, "a tuning game went");
    cr_expect_eq(t.last_pair, 1);
    cr_expect_eq(t.last_lim_pair, 0);
}

/* The point in play counts its pairs at each limit apart: 2 pairs at the
 * tuning's limit, 1 at the user's (Round 1.3, which ended before 1.2), and
 * a pair at the user's limit that ended after the last save (1.4).  Only
 * 1.4 goes, and the next pair at the user's limit is numbered after 1.3.
 * Before, the point kept its first 2 pairs to end whatever their limit
 * (1.1 and 1.3) and dropped 1.2, which the state counts. */
Test(validate, a_resume_keeps_the_pending_points_pairs_at_each_limit)
{
    pgn_pair(0, 1, false);
    pgn_pair(1, 1, false);
    pgn_game(1, 2, false);
    pgn_pair(1, 3, true);
    pgn_game(1, 2, false);
    pgn_pair(1, 4, true);
    Validation v = { .every = 0.5, .games = 4, .final = 20, .holdout = 4, .done = 0, .last_known = true,
                     .pending = true, .at_games = 40, .due = 40, .size = 4, .pairs = 2, .draws = 4,
                     .ptnml = { 0, 0, 2, 0, 0 }, .has_limit = true, .limit_text = LIMIT,
                     .lim = { .pairs = 1, .draws = 2, .ptnml = { 0, 0, 1, 0, 0 } } };
    PgnTrim t = trim_pgn(&v);
    cr_expect_eq(t.dropped, 2, "%zu games taken out, not the 2 of pair 1.4", t.dropped);
    cr_expect(round_games("1.1") == 2 && round_games("1.2") == 2 && round_games("1.3") == 2,
              "a counted pair went: %d %d %d games", round_games("1.1"), round_games("1.2"), round_games("1.3"));
    cr_expect_eq(round_games("1.4"), 0);
    cr_expect_eq(t.last_pair, 2);
    cr_expect_eq(t.last_lim_pair, 1, "the next pair at the user's limit follows pair %llu",
                 (unsigned long long)t.last_lim_pair);
}

/* The occurrences of `text` in tmp/g.pgn. */
static int pgn_count(const char *text)
{
    char *pgn = slurp("g.pgn");
    int n = 0;
    for (char *s = strstr(pgn, text); s; s = strstr(s + 1, text))
        n++;
    free(pgn);
    return n;
}

/* A -pgnout file shared with another run (its games as this build writes
 * them, under another run's mark, also at a limit this run does not play),
 * with another program's games whose Rounds look like P.J, and with a game
 * an older build wrote (no mark): a resume takes out only this run's
 * uncounted games (a pair of point 2 that ended after the last save and a
 * game of a pair cut short).  Before, every P.J Round counted as this
 * run's: the other run's point 3, the pairs beyond point 1's and point 2's
 * quota whoever played them, and the other program's games went. */
Test(validate, a_resume_takes_only_this_runs_games_out_of_a_shared_pgn)
{
    static const char *const OTHER = "2024-06-01T12:00:00Z";
    write_file(VALIDATION_FILE, "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n"
                                "1,40,2,0.00,inf,0,0,2,0,0,0,0,4\n");
    for (unsigned p = 1; p <= 3; p++)
        for (unsigned j = 1; j <= 2; j++) {
            char snap[32];
            snprintf(snap, sizeof snap, "snapshot %u", p);
            pgn_game_as(OTHER, NULL, p, j, false, NULL, NULL);
            pgn_game_as(OTHER, NULL, p, j, false, "start", snap);
            if (p == 1) {
                pgn_pair(1, j, false);
                pgn_game_as(RUN, "Club championship", 1, j, false, "Alice", "Bob");
            }
        }
    pgn_pair(2, 1, false);
    pgn_game_as(OTHER, NULL, 2, 3, true, NULL, NULL);
    pgn_game_as(OTHER, NULL, 2, 3, true, NULL, NULL);
    pgn_pair(2, 2, false);
    pgn_game(2, 3, false);
    pgn_game_as(RUN, "ratchet-tune validation point 2: snapshots/2.json against the start values", 2, 4, false, NULL,
                NULL);
    pgn_game_as(RUN, "Club championship", 3, 1, false, "Alice", "Bob");
    int before = pgn_count("[Event ");
    Validation v = { .every = 0.5, .games = 4, .final = 20, .holdout = 4, .done = 1, .last_at = 40,
                     .last_known = true, .used = 2, .pending = true, .at_games = 80, .due = 80, .size = 4,
                     .pairs = 1, .draws = 2, .ptnml = { 0, 0, 1, 0, 0 } };
    PgnTrim t = trim_pgn(&v);
    cr_expect_eq(t.dropped, 3, "%zu games taken out, not this run's pair 2.2 and game 2.3", t.dropped);
    cr_expect_eq(pgn_count("[Event "), before - 3);
    cr_expect_eq(pgn_count("(the run created 2024-06-01T12:00:00Z)\"]"), 14, "another run's game went");
    cr_expect_eq(pgn_count("[Event \"Club championship\"]"), 3, "another program's game went");
    cr_expect_eq(pgn_count("against the start values\"]"), 1, "the older build's game went");
    cr_expect_eq(t.last_pair, 1);
    char mark[64];
    snprintf(mark, sizeof mark, "(the run created %s)\"]", RUN);
    cr_expect_eq(pgn_count(mark), 6, "this run keeps pairs 1.1, 1.2 and 2.1");
}

/* ---- what the engine is told at the user's limit (hardening: F) ---- */

#define FAKEUCI "build/fake/fakeuci"

/* A run of build/fake/fakeuci (spin option Alpha; reporting 10 nodes a
 * move; `engine_args` besides, e.g. --nodestime-option), every setoption
 * and `go` it receives logged to tmp/DIR.opt, tuning at `tuning` (-each
 * words) with -validate every=0.5 games=2 final=2 plus `limit`: a point
 * half-way, whose pairs at the user's limit are followed by tuning pairs,
 * and the final point.  Its exit code; the log in tmp/DIR.log. */
static int optlog_run(const char *dir, const char *engine_args, const char *tuning, const char *limit)
{
    cr_assert(access(FAKEUCI, X_OK) == 0, "%s is missing: run `make %s` first", FAKEUCI, FAKEUCI);
    write_file("alpha.txt", "Alpha, int, 0, -100, 100, 8, 0.05\n");
    Args a = { .n = 0 };
    add_line(&a, "run -engine cmd=%s", FAKEUCI);
    add(&a, "args=--options --nodes 10 --option-log %s/%s.opt %s", tmp, dir, engine_args);
    add_line(&a, "-params file=%s/alpha.txt -each %s", tmp, tuning);
    add_line(&a, "-openings file=%s/book.epd -maxmoves 10 -spsa games=8 -concurrency 1 -srand 7", tmp);
    add_line(&a, "-validate every=0.5 games=2 final=2 %s -out %s/%s", limit, tmp, dir);
    char log[64];
    snprintf(log, sizeof log, "%s.log", dir);
    return run_to_end(run_main, &a, log);
}

/* The engine's nodestime at each `go` of tmp/DIR.opt (the last `set
 * nodestime` before it, or never set: the option's default, 0; both
 * engines of a pair are made ready before its first move): `go` lines that
 * start with `limit_go` must see `limit_nt` set, the others `tuning_nt`.  Fails unless both kinds were
 * played and a tuning `go` came after a limit's. */
static void assert_nodestime_at_go(const char *dir, const char *limit_go, const char *limit_nt, const char *tuning_nt)
{
    char name[64];
    snprintf(name, sizeof name, "%s.opt", dir);
    char *text = slurp(name);
    char cur[32] = "";
    bool set = false, after_limit = false;
    int nlimit = 0, ntuning = 0, restored = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (sscanf(line, "set nodestime %31s", cur) == 1) {
            set = true;
            continue;
        }
        if (strncmp(line, "go", 2) != 0)
            continue;
        const char *now = set ? cur : NULL;
        if (!strncmp(line, limit_go, strlen(limit_go))) {
            cr_assert(now && !strcmp(now, limit_nt), "%s: '%s' at the user's limit with nodestime %s, not %s", dir,
                      line, now ? now : "(never set)", limit_nt);
            nlimit++;
            after_limit = true;
        } else {
            cr_assert(!strcmp(now ? now : "0", tuning_nt), "%s: '%s' at the tuning's limit with nodestime %s, not %s",
                      dir, line, now ? now : "(never set)", tuning_nt);
            ntuning++;
            restored += after_limit;
        }
    }
    free(text);
    cr_assert(nlimit > 0 && ntuning > 0 && restored > 0, "%s: %d moves at the user's limit, %d at the tuning's (%d "
              "after the user's)", dir, nlimit, ntuning, restored);
}

/* Tuning at nodes=1 with -validate tc=10+0.1 nodestime=50: the runner
 * charged the limit's moves in nodes while the engine kept its clock on the
 * wall (bin/ratchet lost both of its games at that limit on time); tuning
 * at tc=10+0.1 nodestime=10 with -validate st=0.05, the engine kept
 * counting nodes (bin/ratchet searched 400 nodes instead of 50 ms).  The
 * engine is set to the limit's nodestime (0 for none) before each pair at
 * the user's limit, and back to the tuning's after.  Fails if a pair at
 * either limit plays with the other's nodestime. */
Test(validate, a_pair_at_the_users_limit_sets_the_engines_nodestime_and_sets_it_back)
{
    int rc = optlog_run("a", "--nodestime-option", "nodes=1", "tc=10+0.1 nodestime=50");
    cr_assert_eq(rc, 0, "run failed:\n%s", slurp("a.log"));
    assert_nodestime_at_go("a", "go wtime", "50", "0");

    rc = optlog_run("b", "--nodestime-option", "tc=10+0.1 nodestime=10", "st=0.05");
    cr_assert_eq(rc, 0, "run failed:\n%s", slurp("b.log"));
    assert_nodestime_at_go("b", "go movetime", "0", "10");
    ValidationPoint *u;
    size_t nu;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/b", tmp);
    cr_assert_eq(validate_read_limit(path, &u, &nu, err, sizeof err), 0, "%s", err);
    cr_assert_eq(nu, 2, "%zu points at the user's limit", nu);
    free(u);
}

/* A limit with nodestime= for an engine that has no nodestime option:
 * refused before any game, naming the engine; the same run without
 * nodestime= in -validate starts. */
Test(validate, a_users_limit_with_nodestime_is_refused_for_an_engine_without_the_option)
{
    int rc = optlog_run("a", "", "nodes=1", "tc=10+0.1 nodestime=50");
    char *log = slurp("a.log");
    cr_assert_neq(rc, 0, "the run started:\n%s", log);
    cr_assert(strstr(log, "validate.nodestime=50: engine 'fakeuci+' (") &&
                  strstr(log, FAKEUCI ") has no UCI option 'nodestime'"), "%s", log);
    free(log);
    char path[256];
    snprintf(path, sizeof path, "%s/a/state.json", tmp);
    cr_assert_neq(access(path, F_OK), 0, "no run directory is made");
    rc = optlog_run("b", "", "nodes=1", "tc=10+0.1");
    cr_assert_eq(rc, 0, "run failed:\n%s", slurp("b.log"));
}

/* -validate nodestime=N without a clock, -validate tc=inf and the like were
 * taken and sent a bare `go` (bin/ratchet's games ended "stalled
 * connection" at ply 0, counted as a drawn pair).  Refused as -each refuses
 * them, with its words, when a run is to play; a saved state's limit still
 * loads (status, report).  Fails if any is taken, or a limit that can be
 * played is refused. */
Test(validate, a_users_limit_that_is_no_limit_is_refused_as_each_refuses_it)
{
    static const struct { const char *words, *says; } bad[] = {
        { "nodestime=50", "no time control: give tc=, st=, nodes= or depth=" },
        { "tc=inf", "no time control: give tc=, st=, nodes= or depth=" },
        { "tc=infinite nodestime=50", "no time control: give tc=, st=, nodes= or depth=" },
        { "nodes=400 nodestime=50", "nodestime=50 needs a clock to count in nodes: give tc= or st= as well" },
        { "tc=inf depth=3 nodestime=5", "nodestime=5 needs a clock to count in nodes: give tc= or st= as well" },
    };
    static const char *const good[] = { "tc=inf nodes=100", "st=0.05 nodestime=10", "tc=1+0.01 nodestime=50",
                                        "depth=3", "tc=10+0.1", "nodestime=0 nodes=5" };
    TimeControl base = { .nodes = 1, .watchdog_ms = 60000 };
    for (size_t i = 0; i < sizeof bad / sizeof *bad + sizeof good / sizeof *good; i++) {
        bool ok = i >= sizeof bad / sizeof *bad;
        const char *words = ok ? good[i - sizeof bad / sizeof *bad] : bad[i].words;
        RunConf c;
        conf_init(&c);
        char buf[128];
        snprintf(buf, sizeof buf, "%s", words);
        for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
            char *eq = strchr(w, '=');
            *eq = '\0';
            cr_assert_eq(conf_set(&c, "validate", w, eq + 1, "test"), 0);
        }
        Validation v = { 0 };
        char err[512] = "";
        int rc = validate_limit_from_conf(&v, &c, &base, err, sizeof err);
        if (ok) {
            cr_expect_eq(rc, 0, "-validate %s: %s", words, err);
            cr_expect(v.has_limit, "-validate %s", words);
        } else {
            cr_expect_eq(rc, -1, "-validate %s was taken (%s)", words, v.limit_text);
            cr_expect(!strncmp(err, "validate: ", 10) && strstr(err, bad[i].says), "-validate %s: %s", words, err);
            /* the limit of a saved state is read as it was written */
            cr_expect_eq(validate_limit_from_conf(&v, &c, NULL, err, sizeof err), 0, "-validate %s: %s", words, err);
        }
        conf_free(&c);
    }

    /* A run is refused before it makes its directory. */
    Args a = far_run("r", 40, "");
    add_line(&a, "-validate nodestime=50");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_neq(rc, 0, "the run started:\n%s", log);
    cr_assert(strstr(log, "validate: no time control: give tc=, st=, nodes= or depth= (in -validate)"), "%s", log);
    free(log);
    char path[256];
    snprintf(path, sizeof path, "%s/r/state.json", tmp);
    cr_assert_neq(access(path, F_OK), 0, "no run directory is made");
}

/* ---- games of validation that end by forfeit (hardening: I) ---- */

/* Tuning at nodes=1, validating at st=0.005 an engine that thinks 30 ms a
 * move: every game at the user's limit is lost on time at its first move,
 * one by each side of a pair, so each pair scores 1-1.  Eight such games
 * showed as "score 50%" with "time losses 0": now each point's forfeits
 * are counted by cause in its row, the run warns when the point ends, and
 * status and the report name the point.  Fails if a forfeit goes
 * uncounted, is counted at the other limit, or is not shown. */
Test(validate, forfeits_at_the_users_limit_are_counted_and_shown)
{
    int rc = optlog_run("r", "--think 30", "nodes=1", "st=0.005");
    char *log = slurp("r.log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    cr_assert(strstr(log, "ratchet-tune: warning: validation point 1: games ended by forfeit, not over the board: "
                          "2 of 2 games at 0.005/move (2 time losses)"), "%s", log);
    free(log);
    ValidationPoint *p, *u;
    two_points_at_both_limits("r", &p, &u);
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq(validate_forfeits(&p[i].forfeits), 0, "point %zu at nodes=1", i + 1);
        cr_expect(u[i].forfeits.time_losses == 2 && validate_forfeits(&u[i].forfeits) == 2,
                  "point %zu at st=0.005: %llu time losses, %llu forfeits", i + 1,
                  (unsigned long long)u[i].forfeits.time_losses, (unsigned long long)validate_forfeits(&u[i].forfeits));
        cr_expect(u[i].wins == 1 && u[i].losses == 1, "each side loses one game on time");
    }
    free(p);
    free(u);
    char *csv = slurp("r/" VALIDATION_LIMIT_FILE);
    static const char header[] = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws,time_losses,"
                                 "crashes,illegal,stalls\n";
    cr_assert(!strncmp(csv, header, sizeof header - 1) && strstr(csv, ",1,1,0,2,0,0,0\n"), "%s", csv);
    free(csv);

    char *st = status_of("r", "status");
    cr_assert(strstr(st, "  WARNING: validation games ended by forfeit, not over the board: point 1 at 0.005/move: 2 "
                         "of 2 games (2 time losses); point 2 at 0.005/move: 2 of 2 games (2 time losses)"), "%s", st);
    cr_assert_null(strstr(st, "point 1 at 1 nodes:"), "no forfeit at the tuning's limit:\n%s", st);
    free(st);
    char out[300], path[256], err[512];
    snprintf(out, sizeof out, "%s/page.html", tmp);
    snprintf(path, sizeof path, "%s/r", tmp);
    cr_assert_eq(htmlreport_run(path, out, HTML_RUN_FINAL, err, sizeof err), 0, "%s", err);
    char *page = slurp("page.html");
    cr_assert(strstr(page, "<p class=\"warn\">WARNING: validation games ended by forfeit, not over the board: point 1 "
                           "at 0.005/move: 2 of 2 games (2 time losses)"), "the report names them");
    free(page);

    /* A run without forfeits says nothing of them. */
    rc = optlog_run("q", "", "nodes=1", "st=5");
    cr_assert_eq(rc, 0, "run failed:\n%s", slurp("q.log"));
    log = slurp("q.log");
    cr_assert_null(strstr(log, "forfeit"), "%s", log);
    free(log);
    st = status_of("q", "status");
    cr_assert_null(strstr(st, "forfeit"), "%s", st);
    free(st);
}

/* The pending point's forfeits at each limit go through state.json
 * (pending.forfeits, pending.limit.forfeits); a state of an older build
 * without them loads with none; more forfeits than games is refused.
 * Fails if a resume would lose them. */
Test(validate, a_pending_point_keeps_its_forfeits)
{
    SpsaState st;
    Validation v;
    char err[512];
    final_point_in_play(&st, &v);
    v.pairs = 3;
    v.wins = v.losses = 3;
    v.ptnml[2] = 3;
    v.forfeits = (ValidationForfeits){ .crashes = 1, .illegal = 2, .stalls = 1 };
    v.lim = (ValidationLeg){ .pairs = 2, .wins = 2, .losses = 2, .ptnml = { 0, 0, 2, 0, 0 },
                             .forfeits = { .time_losses = 4 } };
    cJSON *j = validate_to_json(&v, &st);
    cr_assert_not_null(j);
    Validation w = { 0 };
    cr_assert_eq(validate_from_json(&w, j, &st, "test", err, sizeof err), 0, "%s", err);
    cr_assert(w.forfeits.crashes == 1 && w.forfeits.illegal == 2 && w.forfeits.stalls == 1 &&
              w.forfeits.time_losses == 0 && w.lim.forfeits.time_losses == 4 && validate_forfeits(&w.lim.forfeits) == 4);
    char why[160];
    cr_assert_str_eq(validate_forfeit_text(&w.forfeits, why, sizeof why), "1 crash, 2 illegal moves, 1 stall");

    cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pending");
    cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "limit");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "forfeits");
    cJSON_DeleteItemFromObjectCaseSensitive(l, "forfeits");
    cr_assert_eq(validate_from_json(&w, j, &st, "test", err, sizeof err), 0, "an older build's state: %s", err);
    cr_assert(validate_forfeits(&w.forfeits) == 0 && validate_forfeits(&w.lim.forfeits) == 0);

    cJSON *f = cJSON_AddObjectToObject(l, "forfeits");
    cJSON_AddNumberToObject(f, "time_losses", 3);
    cJSON_AddNumberToObject(f, "crashes", 2);
    cJSON_AddNumberToObject(f, "illegal", 0);
    cJSON_AddNumberToObject(f, "stalls", 0);
    cr_assert_eq(validate_from_json(&w, j, &st, "test", err, sizeof err), -1, "5 forfeits in 4 games were taken");
    cr_assert(strstr(err, "test: run.validation.pending.limit.forfeits"), "%s", err);
    cJSON_Delete(j);
    validate_free(&v);
    validate_free(&w);
    spsa_free(&st);
}

/* validation.csv rows of 17 columns, and the 13 of an older build's (no
 * forfeits), in one reader; forfeits beyond the games are refused.  A
 * point recorded into an older build's file rewrites it with all 17
 * columns, its old rows with none.  Fails if either column set is refused
 * or a forfeit is lost on the way through the file. */
Test(validate, the_validation_files_keep_the_forfeits_and_read_an_older_builds)
{
    const char *old_header = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n";
    const char *header = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws,time_losses,crashes,"
                         "illegal,stalls\n";
    char text[1024], err[512] = "";
    snprintf(text, sizeof text, "%s1,40,2,0.00,inf,0,0,2,0,0,2,2,0\n2,80,2,0.00,inf,0,0,2,0,0,2,2,0,1,0,2,1\n",
             header);
    ValidationPoint *pts;
    size_t n;
    cr_assert_eq(validate_parse(text, "v.csv", &pts, &n, err, sizeof err), 0, "%s", err);
    cr_assert(n == 2 && validate_forfeits(&pts[0].forfeits) == 0 && pts[1].forfeits.time_losses == 1 &&
              pts[1].forfeits.illegal == 2 && pts[1].forfeits.stalls == 1);
    size_t len;
    char *again = validate_format(pts, n, &len);
    cr_assert(again && strstr(again, "\n1,40,2,0.00,inf,0,0,2,0,0,2,2,0,0,0,0,0\n2,80,2,0.00,inf,0,0,2,0,0,2,2,0,1,0,2,1\n"),
              "%s", again ? again : "(null)");
    free(again);
    free(pts);
    snprintf(text, sizeof text, "%s1,40,2,0.00,inf,0,0,2,0,0,2,2,0,3,0,2,0\n", header);
    cr_assert_eq(validate_parse(text, "v.csv", &pts, &n, err, sizeof err), -1, "5 forfeits in 4 games were taken");
    cr_assert(strstr(err, "v.csv:2: not a validation row: counts that do not agree"), "%s", err);
    snprintf(text, sizeof text, "%s1,40,2,0.00,inf,0,0,2,0,0,2,2,0,0,0,0\n", header);
    cr_assert_eq(validate_parse(text, "v.csv", &pts, &n, err, sizeof err), -1, "16 fields were taken");

    /* point 2 recorded into an older build's file of point 1 */
    char old[256];
    snprintf(old, sizeof old, "%s1,40,2,0.00,inf,0,0,2,0,0,2,2,0\n", old_header);
    write_file(VALIDATION_FILE, old);
    Validation v = { .done = 1, .pending = true, .at_games = 80, .size = 4, .pairs = 2, .wins = 2, .losses = 2,
                     .ptnml = { 0, 0, 2, 0, 0 }, .forfeits = { .time_losses = 3 } };
    ValidationPoint rec;
    cr_assert_eq(validate_record(&v, tmp, &rec, err, sizeof err), 0, "%s", err);
    cr_assert(rec.forfeits.time_losses == 3 && validate_forfeits(&v.forfeits) == 0, "the next point starts with none");
    char *csv = slurp(VALIDATION_FILE);
    snprintf(text, sizeof text, "%s1,40,2,0.00,inf,0,0,2,0,0,2,2,0,0,0,0,0\n2,80,2,0.00,inf,0,0,2,0,0,2,2,0,3,0,0,0\n",
             header);
    cr_assert_str_eq(csv, text);
    free(csv);
    cr_assert_eq(validate_read(tmp, &pts, &n, err, sizeof err), 0, "%s", err);
    cr_assert(n == 2 && pts[1].forfeits.time_losses == 3);
    free(pts);
}

/* validation.csv emptied or cut after the points were counted: status says
 * how many rows the state counts and the file lacks, not "no point yet". */
Test(validate, a_cut_validation_csv_is_named_in_status)
{
    Args a = far_run("r", 80, "");
    add_line(&a, "-validate games=4");
    int rc = run_to_end(run_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "run failed:\n%s", log);
    free(log);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "head -n 2 %s/r/validation.csv > %s/v && mv %s/v %s/r/validation.csv", tmp, tmp, tmp, tmp);
    cr_assert_eq(system(cmd), 0);
    char *st = status_of("r", "status");
    cr_assert(strstr(st, "validation.csv holds 1 of the 2 finished points the state counts"), "%s", st);
    free(st);
    snprintf(cmd, sizeof cmd, "head -n 1 %s/r/validation.csv > %s/v && mv %s/v %s/r/validation.csv", tmp, tmp, tmp, tmp);
    cr_assert_eq(system(cmd), 0);
    st = status_of("r", "status2");
    cr_assert(strstr(st, "no point in validation.csv, but the state counts 2 finished") && !strstr(st, "no point yet"),
              "%s", st);
    free(st);
}
