/* `verify DIR -ablate` end to end against build/fake/fakeablate, an engine
 * whose pair results are a known linear function of its options (see
 * tests/fake/fakeablate.c): the ablation recovers each group's known effect
 * and tells the groups apart; the pairs are capped at the fresh openings at
 * a deterministic limit, each played once; a killed ablation continues with the same design
 * and results; `export -ablation keep=pays` keeps the groups that pay. */
#include <criterion/criterion.h>

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ablation.h"
#include "export.h"
#include "helpers.h"
#include "rd.h"
#include "run_cmd.h"
#include "state.h"
#include "verify.h"

#define FAKE "build/fake/fakeablate"

static void setup(void)
{
    tmp_create("/tmp/ratchet-ablate-XXXXXX");
}

TestSuite(ablate, .init = setup, .fini = tmp_remove, .timeout = 120);

/* The fake engine's effects (per unit of the option, on the probability of
 * collapsing) and the run's tuned values; the start values are all 100. */
#define EFFECTS "--effect LmrBase=0.002 --effect LmrScale=0.001 --effect NmpDepth=-0.003"
static const char *const TUNED_NAMES[] = { "LmrBase", "LmrScale", "NmpDepth", "RfpMargin" };
static const double TUNED_VALUES[] = { 150, 140, 130, 160 };

/* A group's true effect in pair score difference: 2 sum effect_i (tuned_i - start_i). */
static double true_beta(const char *group)
{
    if (!strcmp(group, "Lmr"))
        return 2 * (0.002 * 50 + 0.001 * 40);
    if (!strcmp(group, "Nmp"))
        return 2 * (-0.003 * 30);
    if (!strcmp(group, "Rfp"))
        return 0;
    cr_assert_fail("unexpected group %s", group);
    return NAN;
}

/* A run of the fake engine in tmp/DIR whose values then moved to TUNED_VALUES
 * (SeeMargin stays at its start): its games are one move each (-resign
 * movecount=1 score=1000 -maxmoves 1) at nodes=1. */
static void make_run_with(const char *dir, const char *engine_args, double holdout);

static void make_run(const char *dir, int think_ms, double holdout)
{
    char args[128];
    if (think_ms)
        snprintf(args, sizeof args, EFFECTS " --think %d", think_ms);
    else
        snprintf(args, sizeof args, EFFECTS);
    make_run_with(dir, args, holdout);
}

/* make_run with the fake's arguments as given. */
static void make_run_with(const char *dir, const char *engine_args, double holdout)
{
    cr_assert(access(FAKE, X_OK) == 0, "%s is missing: run `make %s` first", FAKE, FAKE);
    write_file("abl.txt", "LmrBase, int, 100, 0, 200, 10, 0.5\nLmrScale, int, 100, 0, 200, 10, 0.5\n"
                          "NmpDepth, int, 100, 0, 200, 10, 0.5\nRfpMargin, int, 100, 0, 200, 10, 0.5\n"
                          "SeeMargin, int, 100, 0, 200, 10, 0.5\n");
    /* 5000 distinct openings: the run holds 1000 out (its default 0.2), or holdout of them. */
    write_book("abl.epd", 5000);
    char book[PATH_MAX];
    snprintf(book, sizeof book, "%s/abl.epd", tmp);
    Args a = { .n = 0 };
    add(&a, "run");
    add(&a, "-engine");
    add(&a, "cmd=%s", FAKE);
    add(&a, "args=%s", engine_args);
    add(&a, "-params");
    add(&a, "file=%s/abl.txt", tmp);
    add(&a, "-each");
    add(&a, "nodes=1");
    add(&a, "-openings");
    add(&a, "file=%s", book);
    add(&a, "order=random");
    add(&a, "-resign");
    add(&a, "movecount=1");
    add(&a, "score=1000");
    add(&a, "-maxmoves");
    add(&a, "1");
    if (holdout > 0) {
        add(&a, "-validate");
        add(&a, "holdout=%g", holdout);
        add(&a, "games=0");
    }
    add(&a, "-spsa");
    add(&a, "games=4");
    add(&a, "form=far"); /* its export is theta itself, which the test sets below (settle's is an average) */
    add(&a, "-concurrency");
    add(&a, "2");
    add(&a, "-srand");
    add(&a, "7");
    add(&a, "-out");
    add(&a, "%s/%s", tmp, dir);
    cr_assert_eq(run_to_end(run_main, &a, "runlog"), 0, "the run failed:\n%s", slurp("runlog"));
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, dir);
    RunState rs;
    runstate_init(&rs);
    cr_assert_eq(runstate_load(&rs, path, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < rs.spsa.nparams; i++)
        for (size_t k = 0; k < sizeof TUNED_NAMES / sizeof *TUNED_NAMES; k++)
            if (!strcmp(rs.spsa.params[i].name, TUNED_NAMES[k]))
                rs.spsa.params[i].theta = TUNED_VALUES[k];
    cr_assert_eq(runstate_save(&rs, path, err, sizeof err), 0, "%s", err);
    runstate_free(&rs);
}

static Args ablate_args(const char *dir, int rounds)
{
    Args a = { .n = 0 };
    add(&a, "verify");
    add(&a, "%s/%s", tmp, dir);
    add(&a, "-ablate");
    if (rounds > 0) {
        add(&a, "-rounds");
        add(&a, "%d", rounds);
    }
    add(&a, "-srand");
    add(&a, "3");
    add(&a, "-concurrency");
    add(&a, "2");
    return a;
}

static cJSON *ablation_json(const char *dir)
{
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/%s/ablation.json", tmp, dir);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    return j;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    cr_assert(cJSON_IsNumber(x), "%s is a number", k);
    return x->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    cr_assert(cJSON_IsString(x), "%s is a string", k);
    return x->valuestring;
}

/* The ablation finds each group's known effect: the right verdict (Lmr
 * pays, Nmp costs, Rfp, which the engine ignores, is unclear) and an
 * estimate near the truth.  The openings are fixed (the run's held-out
 * ones) and the engine's results a function of the opening and the
 * options, so the estimates are the same at every run of the test; the
 * truth is asked to lie within 3 standard errors (a 95% interval misses
 * 1 time in 20 whatever the code).  The groups' true effects lie far
 * outside each other's bands: a design applied to the wrong group fails. */
Test(ablate, recovers_known_group_effects)
{
    make_run("r", 0, 0.5); /* 2500 held out */
    Args a = ablate_args("r", 2400);
    int rc = run_to_end(verify_main, &a, "alog");
    char *log = slurp("alog");
    cr_assert_eq(rc, 0, "verify -ablate failed:\n%s", log);
    cr_assert(strstr(log, "Lmr") && strstr(log, "pays") && strstr(log, "costs"), "the table:\n%s", log);
    cr_assert(strstr(log, "held-out"), "the run's held-out openings:\n%s", log);
    free(log);
    cJSON *j = ablation_json("r");
    cr_assert_str_eq(str(j, "status"), "done");
    cr_assert_eq(num(j, "games"), 4800);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "pairs")), 2400);
    /* The additivity check: the fake's effects add, so its gap's interval holds 0. */
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(j, "additivity");
    cr_assert(cJSON_IsObject(ad), "ablation.json has the additivity check");
    cr_assert_eq(num(ad, "whole_pairs"), 300, "a whole couple in every 8");
    cr_assert_lt(num(ad, "gap_lo"), 0);
    cr_assert_gt(num(ad, "gap_hi"), 0);
    cr_assert_str_eq(str(ad, "verdict"), "adds up");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(j, "groups");
    cr_assert_eq(cJSON_GetArraySize(gs), 3, "Lmr, Nmp, Rfp; SeeMargin did not move: no See group");
    const char *names[3] = { "Lmr", "Nmp", "Rfp" };
    const char *verdicts[3] = { "pays", "costs", "unclear" };
    int nparams[3] = { 2, 1, 1 };
    double beta[3], se[3];
    for (int g = 0; g < 3; g++) {
        const cJSON *o = cJSON_GetArrayItem(gs, g);
        cr_assert_str_eq(str(o, "name"), names[g]);
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "params")), nparams[g]);
        beta[g] = num(o, "beta");
        se[g] = num(o, "se");
        double truth = true_beta(names[g]);
        cr_log_info("%s: beta %.4f se %.4f (true %.4f), Elo %.1f [%.1f, %.1f] (true %.1f), %s", names[g], beta[g],
                    se[g], truth, num(o, "elo"), num(o, "elo_lo"), num(o, "elo_hi"), ablation_elo(truth),
                    str(o, "verdict"));
        cr_assert_lt(fabs(beta[g] - truth), 3 * se[g], "%s: %.4f +/- %.4f, true %.4f", names[g], beta[g], 3 * se[g],
                     truth);
        cr_assert_str_eq(str(o, "verdict"), verdicts[g], "%s", names[g]);
        cr_assert_lt(num(o, "elo_lo"), num(o, "elo"));
        cr_assert_lt(num(o, "elo"), num(o, "elo_hi"));
    }
    /* The test has the power to catch estimates given to the wrong group. */
    for (int g = 0; g < 3; g++)
        for (int h = 0; h < 3; h++)
            if (g != h)
                cr_assert_gt(fabs(beta[g] - true_beta(names[h])), 3 * se[g]);
    cJSON_Delete(j);

    /* Finished: shown again, not played. */
    a = ablate_args("r", 2400);
    cr_assert_eq(run_to_end(verify_main, &a, "alog2"), 0);
    log = slurp("alog2");
    cr_assert(strstr(log, "finished earlier") && strstr(log, "pays"), "%s", log);
    free(log);
    /* Other options: refused, nothing played. */
    a = ablate_args("r", 2000);
    cr_assert_eq(run_to_end(verify_main, &a, "alog3"), 2);
    log = slurp("alog3");
    cr_assert(strstr(log, "other options") && strstr(log, "-restart"), "%s", log);
    free(log);

    /* export -ablation keep=pays: Lmr tuned, the rest at the start. */
    Args e = { .n = 0 };
    add(&e, "export");
    add(&e, "%s/r", tmp);
    add(&e, "-ablation");
    add(&e, "keep=pays");
    add(&e, "-o");
    add(&e, "%s/kept.json", tmp);
    cr_assert_eq(run_to_end(export_main, &e, "elog"), 0, "%s", slurp("elog"));
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/kept.json", tmp);
    cJSON *k = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(k, "%s", err);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(k, "params");
    cr_assert_eq(num(p, "LmrBase"), 150);
    cr_assert_eq(num(p, "LmrScale"), 140);
    cr_assert_eq(num(p, "NmpDepth"), 100, "Nmp costs: its start value");
    cr_assert_eq(num(p, "RfpMargin"), 100, "Rfp is unclear: its start value");
    cr_assert_eq(num(p, "SeeMargin"), 100);
    /* The prediction: Lmr alone, its estimate and interval, and the check's word. */
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "ablation"), "prediction");
    cr_assert(cJSON_IsObject(pr), "the export says what the kept groups predict");
    cr_assert_eq(num(pr, "groups"), 1);
    cr_assert_lt(fabs(num(pr, "elo") - ablation_elo(beta[0])), 1e-9, "Lmr's estimate");
    cr_assert_lt(num(pr, "elo_lo"), num(pr, "elo"));
    cr_assert_gt(num(pr, "elo_hi"), num(pr, "elo"));
    cr_assert(strstr(str(pr, "additivity"), "supported"), "%s", str(pr, "additivity"));
    char *elog = slurp("elog");
    cr_assert(strstr(elog, "kept group predicts"), "%s", elog);
    free(elog);
    cJSON_Delete(k);
    /* keep=pays,unclear keeps Rfp too; a bad keep= is refused. */
    e = (Args){ .n = 0 };
    add(&e, "export");
    add(&e, "%s/r", tmp);
    add(&e, "-ablation");
    add(&e, "keep=pays,unclear");
    add(&e, "-o");
    add(&e, "%s/kept2.json", tmp);
    cr_assert_eq(run_to_end(export_main, &e, "elog2"), 0, "%s", slurp("elog2"));
    snprintf(path, sizeof path, "%s/kept2.json", tmp);
    k = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(k, "%s", err);
    p = cJSON_GetObjectItemCaseSensitive(k, "params");
    cr_assert_eq(num(p, "RfpMargin"), 160);
    cr_assert_eq(num(p, "NmpDepth"), 100);
    cJSON_Delete(k);
    e = (Args){ .n = 0 };
    add(&e, "export");
    add(&e, "%s/r", tmp);
    add(&e, "-ablation");
    add(&e, "keep=costs");
    cr_assert_neq(run_to_end(export_main, &e, "elog3"), 0);
    log = slurp("elog3");
    cr_assert(strstr(log, "'costs' is not a verdict to keep"), "%s", log);
    free(log);
}

/* tmp/DIR/ablation.json's finished pairs (0 when it is absent or unreadable). */
static int pairs_done(const char *dir)
{
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/%s/ablation.json", tmp, dir);
    if (access(path, F_OK) != 0)
        return 0;
    cJSON *j = rd_read_json(path, err, sizeof err);
    int n = j ? cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "pairs")) : 0;
    cJSON_Delete(j);
    return n;
}

/* At nodes=1 a game is a function of its opening: the pairs are capped at
 * the run's fresh held-out openings (1000 held out, 2 played by its
 * validation points), one pair each. */
Test(ablate, capped_at_the_fresh_openings)
{
    make_run("r", 0, 0);
    Args a = ablate_args("r", 5000);
    cr_assert_eq(run_to_end(verify_main, &a, "alog"), 0, "%s", slurp("alog"));
    char *log = slurp("alog");
    cr_assert(strstr(log, "5000 pairs cut to 998 pairs, one for each of the 998 openings"), "%s", log);
    free(log);
    cJSON *j = ablation_json("r");
    cr_assert_eq(num(j, "rounds"), 998);
    cr_assert_eq(num(j, "rounds_asked"), 5000);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "capped")));
    /* the directory it was written in, which a copy's continued call takes its files from */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    cr_assert_str_eq(str(j, "dir"), dir);
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(j, "pairs"), *x;
    cr_assert_eq(cJSON_GetArraySize(pairs), 998);
    static bool seen[5000];
    cJSON_ArrayForEach(x, pairs)
    {
        int o = (int)num(x, "opening");
        cr_assert(o >= 0 && o < 5000 && !seen[o], "opening %d: played once", o);
        seen[o] = true;
    }
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(j, "openings"), "count"), 998);
    cJSON_Delete(j);
}

/* Killed with SIGKILL halfway, the ablation continues and ends with the
 * very pairs (design and result, pair by pair) of one that was never
 * stopped. */
Test(ablate, continues_after_sigkill_with_the_same_pairs)
{
    enum { PAIRS = 300 };
    make_run("r", 1, 0);
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "cp -r %s/r %s/s", tmp, tmp);
    cr_assert_eq(system(cmd), 0);

    /* r: uninterrupted. */
    Args a = ablate_args("r", PAIRS);
    cr_assert_eq(run_to_end(verify_main, &a, "alog"), 0, "%s", slurp("alog"));
    cJSON *full = ablation_json("r");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(full, "pairs")), PAIRS);

    /* s: killed, then continued with the stored options, its games in a PGN. */
    a = ablate_args("s", PAIRS);
    add(&a, "-pgnout");
    add(&a, "%s/s.pgn", tmp);
    pid_t pid = spawn(verify_main, &a, "slog1");
    for (;;) {
        if (pairs_done("s") >= 40)
            break;
        int st;
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the ablation ended before it was killed");
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    wait_child(pid);
    args_free(&a);
    cr_assert_lt(pairs_done("s"), PAIRS, "killed halfway");
    /* Another match's game in the same file stays as it is. */
    char other[PATH_MAX];
    snprintf(other, sizeof other, "%s/s.pgn", tmp);
    FILE *f = fopen(other, "a");
    cr_assert_not_null(f);
    fprintf(f, "[Event \"another match\"]\n[Round \"1\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n");
    fclose(f);
    Args b = { .n = 0 };
    add(&b, "verify");
    add(&b, "%s/s", tmp);
    add(&b, "-ablate");
    cr_assert_eq(run_to_end(verify_main, &b, "slog2"), 0, "%s", slurp("slog2"));
    char *log = slurp("slog2");
    const char *c = strstr(log, "continuing: ");
    int kept = -1;
    cr_assert(c && sscanf(c, "continuing: %d pairs played", &kept) == 1, "%s", log);
    cr_assert_geq(kept, 40, "the pairs saved before the kill are not played again:\n%s", log);
    free(log);
    /* The PGN holds every pair's two games once: those of the pairs played
     * again, or cut short, by the kill are taken out. */
    static int games[PAIRS + 1];
    cr_assert_eq(pgn_games_by_round("s.pgn", "ratchet-tune ablation created ", games, PAIRS), 1,
                 "the other match's game stays");
    cr_assert_eq(games[0], 0);
    for (int k = 1; k <= PAIRS; k++)
        cr_assert_eq(games[k], 2, "pair %d: %d games in the PGN", k, games[k]);
    cJSON *cont = ablation_json("s");
    cr_assert_str_eq(str(cont, "status"), "done");
    cr_assert_eq(num(cont, "sessions"), 2);
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(full, "pairs"), *pc = cJSON_GetObjectItemCaseSensitive(cont, "pairs");
    cr_assert_eq(cJSON_GetArraySize(pc), PAIRS, "every pair once");
    cr_assert_eq(num(cont, "forfeit_pairs"), PAIRS, "the forfeits of the pairs before the kill are counted on");
    /* Pair by pair. */
    static double diff_f[PAIRS], diff_c[PAIRS];
    static char design_f[PAIRS][8], design_c[PAIRS][8];
    const cJSON *x;
    cJSON_ArrayForEach(x, pf)
    {
        int k = (int)num(x, "pair");
        diff_f[k] = num(x, "diff");
        snprintf(design_f[k], sizeof design_f[k], "%s", str(x, "design"));
    }
    cJSON_ArrayForEach(x, pc)
    {
        int k = (int)num(x, "pair");
        diff_c[k] = num(x, "diff");
        snprintf(design_c[k], sizeof design_c[k], "%s", str(x, "design"));
    }
    for (int k = 0; k < PAIRS; k++) {
        cr_assert_str_eq(design_c[k], design_f[k], "pair %d: the same design", k);
        cr_assert_eq(diff_c[k], diff_f[k], "pair %d: the same result", k);
    }
    const cJSON *gf = cJSON_GetObjectItemCaseSensitive(full, "groups"), *gc = cJSON_GetObjectItemCaseSensitive(cont, "groups");
    for (int g = 0; g < 3; g++)
        cr_assert_eq(num(cJSON_GetArrayItem(gc, g), "beta"), num(cJSON_GetArrayItem(gf, g), "beta"));
    cJSON_Delete(full);
    cJSON_Delete(cont);
}

/* The games of tmp/FILE lost by an illegal move, from Round `from` on. */
static int illegal_in_pgn(const char *file, int from)
{
    char *pgn = slurp(file);
    int n = 0, round = 0;
    for (const char *p = pgn; *p; p++) {
        if (!strncmp(p, "[Round \"", 8))
            round = atoi(p + 8);
        else if (!strncmp(p, "[Termination \"illegal move\"]", 28) && round >= from)
            n++;
    }
    free(pgn);
    return n;
}

/* The games that end by forfeit are counted with the pairs, in
 * ablation.json and in the table: the fake answers an illegal move while
 * RfpMargin is at its tuned value, so in every pair one side plays it and
 * loses both games.  A file of an older build (no "forfeits") continues
 * counting from there and says of how many pairs. */
Test(ablate, counts_the_games_lost_by_forfeit)
{
    make_run_with("r", EFFECTS " --illegal-at RfpMargin=160", 0.5);
    Args a = ablate_args("r", 60);
    add(&a, "-pgnout");
    add(&a, "%s/abl.pgn", tmp);
    cr_assert_eq(run_to_end(verify_main, &a, "alog"), 0, "%s", slurp("alog"));
    /* The games the PGN says were lost by an illegal move (the side playing
     * Rfp tuned forfeits whenever it gets to move): all, and those of pairs
     * 40..59 (Round 41..60), which the continuation below plays again. */
    int lost = illegal_in_pgn("abl.pgn", 1), late = illegal_in_pgn("abl.pgn", 41);
    cr_assert_gt(late, 10);
    char want[128];
    snprintf(want, sizeof want, "%d games ended by forfeit (%d illegal moves) in its 60 pairs", lost, lost);
    char *log = slurp("alog");
    cr_assert(strstr(log, want), "%s in:\n%s", want, log);
    free(log);
    cJSON *j = ablation_json("r");
    cr_assert_eq(num(j, "forfeit_pairs"), 60);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "forfeits");
    cr_assert_eq(num(f, "illegal"), lost);
    cr_assert_eq(num(f, "time_losses") + num(f, "crashes") + num(f, "stalls"), 0);

    /* As an older build would have left it, stopped after its first 40 pairs. */
    cJSON_DeleteItemFromObjectCaseSensitive(j, "forfeits");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "forfeit_pairs");
    cJSON_ReplaceItemInObjectCaseSensitive(j, "status", cJSON_CreateString("stopped"));
    cJSON *pairs = cJSON_GetObjectItemCaseSensitive(j, "pairs");
    for (int i = cJSON_GetArraySize(pairs) - 1; i >= 0; i--)
        if (num(cJSON_GetArrayItem(pairs, i), "pair") >= 40)
            cJSON_DeleteItemFromArray(pairs, i);
    cr_assert_eq(cJSON_GetArraySize(pairs), 40);
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/r/ablation.json", tmp);
    cr_assert_eq(rd_write_json(path, j, err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
    Args b = { .n = 0 };
    add(&b, "verify");
    add(&b, "%s/r", tmp);
    add(&b, "-ablate");
    int rc = run_to_end(verify_main, &b, "alog2");
    log = slurp("alog2");
    cr_assert_eq(rc, 0, "%s", log);
    snprintf(want, sizeof want, "%d games ended by forfeit (%d illegal moves) in 20 of its 60 pairs", late, late);
    cr_assert(strstr(log, want), "%s in:\n%s", want, log);
    free(log);
    j = ablation_json("r");
    cr_assert_eq(num(j, "forfeit_pairs"), 20);
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(j, "forfeits"), "illegal"), late);
    cJSON_Delete(j);
}

/* groups=FILE and groups=NAME:P1,P2;...: the groups as given, a group with
 * no moved parameter left out and named, a bad name refused with the file
 * and line (nothing played), a groups file that changed refused. */
/* -tuned FILE: the groups are those of the file's moves from the start
 * values (the run's own moves, Lmr and Rfp, are not played). */
Test(ablate, ablates_a_tuned_file)
{
    make_run("r", 0, 0);
    write_file("other.json", "{\"params\": {\"NmpDepth\": 130}}\n");
    Args a = ablate_args("r", 40);
    add(&a, "-tuned");
    add(&a, "%s/other.json", tmp);
    cr_assert_eq(run_to_end(verify_main, &a, "tlog"), 0, "%s", slurp("tlog"));
    cJSON *j = ablation_json("r");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(j, "groups");
    cr_assert_eq(cJSON_GetArraySize(gs), 1, "only the file's move");
    cr_assert_str_eq(str(cJSON_GetArrayItem(gs, 0), "name"), "Nmp");
    const cJSON *tuned = cJSON_GetObjectItemCaseSensitive(j, "tuned");
    cr_assert_eq(num(tuned, "NmpDepth"), 130);
    cr_assert_eq(num(tuned, "LmrBase"), 100, "the start value, not the run's 150");
    cr_assert(strstr(str(j, "tuned_file"), "other.json"));
    cJSON_Delete(j);

    /* It judged the file's moves, not the run's: export refuses it, naming why. */
    Args e = { .n = 0 };
    add(&e, "export");
    add(&e, "%s/r", tmp);
    add(&e, "-ablation");
    add(&e, "keep=pays");
    cr_assert_eq(run_to_end(export_main, &e, "telog"), 1);
    char *log = slurp("telog");
    cr_assert(strstr(log, "other.json (verify -ablate -tuned), not on the run's"), "%s", log);
    free(log);
}

Test(ablate, groups_from_a_file_or_inline)
{
    make_run("r", 0, 0);
    write_file("groups.txt", "# two groups\nboth: LmrBase, NmpDepth\nrfp: RfpMargin\nidle: SeeMargin\n");
    Args a = { .n = 0 };
    add(&a, "verify");
    add(&a, "%s/r", tmp);
    add(&a, "-ablate");
    add(&a, "groups=%s/groups.txt", tmp);
    add(&a, "-rounds");
    add(&a, "40");
    cr_assert_eq(run_to_end(verify_main, &a, "glog"), 0, "%s", slurp("glog"));
    char *log = slurp("glog");
    cr_assert(strstr(log, "left out, none of its parameters moved: idle"), "%s", log);
    free(log);
    cJSON *j = ablation_json("r");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(j, "groups");
    cr_assert_eq(cJSON_GetArraySize(gs), 2);
    cr_assert_str_eq(str(cJSON_GetArrayItem(gs, 0), "name"), "both");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(gs, 0), "params")), 2);
    cr_assert_str_eq(str(cJSON_GetArrayItem(gs, 1), "name"), "rfp");
    cr_assert_eq(strlen(str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "pairs"), 0), "design")), 2);
    cJSON_Delete(j);

    /* The file changed: the stored options are the same, the groups not. */
    write_file("groups.txt", "rfp: RfpMargin\n");
    a = (Args){ .n = 0 };
    add(&a, "verify");
    add(&a, "%s/r", tmp);
    add(&a, "-ablate");
    cr_assert_eq(run_to_end(verify_main, &a, "glog2"), 2);
    log = slurp("glog2");
    cr_assert(strstr(log, "the groups differ") && strstr(log, "-restart"), "%s", log);
    free(log);

    /* A name that is not a parameter, inline and in a file: refused, nothing played. */
    write_file("bad.txt", "ok: RfpMargin\nbad: LmrBase Nope\n");
    a = (Args){ .n = 0 };
    add(&a, "verify");
    add(&a, "%s/r", tmp);
    add(&a, "-ablate");
    add(&a, "groups=%s/bad.txt", tmp);
    add(&a, "-restart");
    cr_assert_eq(run_to_end(verify_main, &a, "glog3"), 2);
    log = slurp("glog3");
    cr_assert(strstr(log, "bad.txt, line 2: group bad: 'Nope' is not a parameter of the run"), "%s", log);
    free(log);
    a = (Args){ .n = 0 };
    add(&a, "verify");
    add(&a, "%s/r", tmp);
    add(&a, "-ablate");
    add(&a, "groups=a:LmrBase;b:Nope");
    add(&a, "-restart");
    cr_assert_eq(run_to_end(verify_main, &a, "glog4"), 2);
    log = slurp("glog4");
    cr_assert(strstr(log, "groups=, line 1: group b: 'Nope' is not a parameter of the run"), "%s", log);
    free(log);
}

/* A groups= file the user names that is a FIFO is refused at once, not
 * waited on while the run's lock is held; one through a symbolic link is read. */
Test(ablate, a_groups_fifo_is_refused_without_blocking, .timeout = 60)
{
    make_run("r", 0, 0);
    char fifo[PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/groups.fifo", tmp);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    Args a = { .n = 0 };
    add(&a, "verify");
    add(&a, "%s/r", tmp);
    add(&a, "-ablate");
    add(&a, "groups=%s", fifo);
    add(&a, "-rounds");
    add(&a, "20");
    int rc = run_to_end(verify_main, &a, "flog");
    char *log = slurp("flog");
    cr_assert_neq(rc, 0, "%s", log);
    cr_assert(strstr(log, "groups.fifo: not a regular file"), "%s", log);
    free(log);

    write_file("groups.txt", "lmr: LmrBase, LmrScale\n");
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/groups.txt", tmp);
    snprintf(to, sizeof to, "%s/groups-link.txt", tmp);
    cr_assert_eq(symlink(from, to), 0);
    a = (Args){ .n = 0 };
    add(&a, "verify");
    add(&a, "%s/r", tmp);
    add(&a, "-ablate");
    add(&a, "groups=%s", to);
    add(&a, "-rounds");
    add(&a, "20");
    rc = run_to_end(verify_main, &a, "llog");
    log = slurp("llog");
    cr_assert_eq(rc, 0, "%s", log);
    cr_assert(strstr(log, "lmr"), "%s", log);
    free(log);
}

/* -rounds beyond MAX_PAIRS is refused before anything is played or
 * allocated (a pair costs memory and every save walks them all). */
Test(ablate, rounds_beyond_the_cap_are_refused)
{
    make_run("r", 0, 0);
    Args a = ablate_args("r", 0);
    add(&a, "-rounds");
    add(&a, "4294967296");
    int rc = run_to_end(verify_main, &a, "log");
    char *log = slurp("log");
    cr_assert_eq(rc, 2, "%s", log);
    cr_assert(strstr(log, "-rounds needs an integer 2..4194304"), "%s", log);
    free(log);
}

/* export -ablation writes ablation.json's start values for the groups it
 * does not keep: a start value the run cannot play (out of its range, not a
 * number, missing) is refused with the file and the parameter, not
 * written. */
Test(ablate, export_refuses_start_values_the_run_cannot_play)
{
    make_run("r", 0, 0);
    static const char *const bad[][2] = { { "1000000", "LmrBase = 1e+06 is outside its range [0, 200]" },
                                          { "null", "LmrBase is not a number" },
                                          { "100.5", "LmrBase = 100.5 is not an integer" } };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        put("r/ablation.json",
            "{\"status\": \"done\", \"tc\": \"nodes=1\", \"pairs\": [],\n"
            " \"tuned\": {\"LmrBase\": 150, \"LmrScale\": 140, \"NmpDepth\": 130, \"RfpMargin\": 160, \"SeeMargin\": 100},\n"
            " \"base\": {\"LmrBase\": %s, \"LmrScale\": 100, \"NmpDepth\": 100, \"RfpMargin\": 100, \"SeeMargin\": 100},\n"
            " \"groups\": [{\"name\": \"Lmr\", \"params\": [\"LmrBase\", \"LmrScale\"], \"verdict\": \"costs\",\n"
            "              \"beta\": -0.1, \"se\": 0.02}]}\n",
            bad[c][0]);
        Args e = { .n = 0 };
        add_line(&e, "export %s/r -ablation keep=pays -o %s/kept.json", tmp, tmp);
        int rc = run_to_end(export_main, &e, "elog");
        char *log = slurp("elog");
        cr_assert_eq(rc, 1, "base LmrBase %s is refused:\n%s", bad[c][0], log);
        cr_assert(strstr(log, "ablation.json: base: ") && strstr(log, bad[c][1]), "%s", log);
        free(log);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/kept.json", tmp);
        cr_assert_neq(access(path, F_OK), 0, "nothing written");
    }
}

/* The child pid (its output in tmp/LOG), stopped with SIGTERM once
 * tmp/DIR/ablation.json counts `pairs` pairs; a (its arguments) is freed. */
static void stop_after_pairs(pid_t pid, Args *a, const char *log, const char *dir, int pairs)
{
    while (pairs_done(dir) < pairs) {
        int st;
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the ablation ended before %d pairs:\n%s", pairs, slurp(log));
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGTERM);
    wait_child(pid);
    args_free(a);
}

/* At a wall clock an ablation reads the machine before each sitting, as
 * verify does, and ablation.json keeps every sitting's check. */
Test(ablate, keeps_each_sittings_machine_check_at_a_wall_clock)
{
    make_run("r", 1, 0);
    Args a = ablate_args("r", 300);
    add_line(&a, "-each tc=2+0.05 -idle-wait 0");
    stop_after_pairs(spawn_while_busy(verify_main, &a, "alog1", "warning: playing on a busy machine: "), &a, "alog1",
                     "r", 2);
    char *log = slurp("alog1");
    cr_expect(strstr(log, "ratchet-tune: ablate: warning: playing on a busy machine: "), "%s", log);
    free(log);
    /* continued with the stored options; this sitting's check is added */
    Args b = { .n = 0 };
    add_line(&b, "verify %s/r -ablate -idle-wait 0", tmp);
    stop_after_pairs(spawn(verify_main, &b, "alog2"), &b, "alog2", "r", pairs_done("r") + 2);
    cJSON *j = ablation_json("r");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "machine");
    cr_assert_eq(cJSON_GetArraySize(m), 2, "%s", slurp("alog2"));
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(m, 0), "idle")));
    cJSON_Delete(j);
}
