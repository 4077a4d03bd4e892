/* `ratchet-tune night` end to end on the fake engine build/fake/fakespsa:
 * the whole pipeline to the morning page, and the same night stopped after
 * every step (-until) and continued, which must end with the same files. */
#include <criterion/criterion.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "helpers.h"
#include "helpers_state.h"
#include "night.h"
#include "rd.h"
#include "report_cmd.h"
#include "setup.h"
#include "status.h"

static void night_setup(void)
{
    tmp_create("/tmp/ratchet-night-XXXXXX");
    write_book("book.epd", 2000); /* 400 held out: validation, 40 + 10 pairs */
    write_file("far.txt", "Alpha, int, 30, 0, 100, 8, 0.05\n"
                          "Beta, int, 70, 0, 100, 8, 0.05\n"
                          "Gamma, int, -30, -50, 50, 8, 0.05\n");
}

TestSuite(night, .init = night_setup, .fini = tmp_remove, .timeout = 240);

/* A new night of DIR: the options of a fake run (fake_run_args), one game
 * at a time so that the run, and so every later step, is a function of
 * the seed.  think_ms: the fake's time per move (0: none); engine: the
 * engine's program instead of the fake's own path (NULL: the fake's). */
static Args night_args_at(const char *dir, int think_ms, const char *engine, const char *target)
{
    Args a = fake_run_args(dir, 200, 0, 1);
    free(a.v[0]);
    a.v[0] = strdup("night");
    if (engine) { /* a.v[2] is fake_run_args' cmd= */
        char word[600];
        snprintf(word, sizeof word, "cmd=%s", engine);
        cr_assert(!strncmp(a.v[2], "cmd=", 4));
        free(a.v[2]);
        cr_assert_not_null(a.v[2] = strdup(word));
    }
    add(&a, "-engine");
    /* a game is a function of its opening */
    add(&a, "args=--think %d --width 60 --target %s --seed 5 --seed-each-game", think_ms, target);
    add(&a, "-params");
    add(&a, "file=%s/far.txt", tmp);
    add(&a, "-maxmoves");
    add(&a, "100");
    add(&a, "-games");
    add(&a, "200");
    add(&a, "-ablation-pairs");
    add(&a, "40");
    add(&a, "-confirm-pairs");
    add(&a, "10");
    return a;
}

/* night_args_at with the optimum away from the start: the games pay the moves. */
static Args night_args(const char *dir, int think_ms, const char *engine)
{
    return night_args_at(dir, think_ms, engine, "70,30,10");
}

/* A new night of DIR (night_args), or `night DIR` continuing it; until: ""
 * = to the end. */
static int night_of(const char *dir, bool fresh, const char *until, const char *engine)
{
    Args a = { .n = 0 };
    if (fresh) {
        a = night_args(dir, 0, engine);
    } else {
        add(&a, "night");
        add(&a, "%s/%s", tmp, dir);
        if (engine) {
            add(&a, "-engine");
            add(&a, "cmd=%s", engine);
        }
    }
    if (until[0]) {
        add(&a, "-until");
        add(&a, "%s", until);
    }
    char log[64];
    snprintf(log, sizeof log, "%s-%s.log", dir, until[0] ? until : "end");
    return run_to_end(night_main, &a, log);
}

static int night(const char *dir, bool fresh, const char *until) { return night_of(dir, fresh, until, NULL); }

static cJSON *json_of(const char *dir, const char *name)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/%s/%s", tmp, dir, name);
    cJSON *j = rd_read_json(path, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    return j;
}

/* j written back to tmp/dir/name, and freed. */
static void json_put_back(const char *dir, const char *name, cJSON *j)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/%s/%s", tmp, dir, name);
    cr_assert_eq(rd_write_json(path, j, err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
}

/* The status of the night's step k in tmp/dir/night.json set to status. */
static void step_status(const char *dir, int k, const char *status)
{
    cJSON *nj = json_of(dir, NIGHT_FILE);
    cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(nj, "steps"), k);
    cr_assert_not_null(st, "%s/%s has step %d", dir, NIGHT_FILE, k);
    cJSON_ReplaceItemInObjectCaseSensitive(st, "status", cJSON_CreateString(status));
    json_put_back(dir, NIGHT_FILE, nj);
}

/* The members of a and b at key are equal. */
static void same(const cJSON *a, const cJSON *b, const char *what, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, key), *y = cJSON_GetObjectItemCaseSensitive(b, key);
    cr_assert_not_null(x, "%s: %s is there", what, key);
    cr_assert(cJSON_Compare(x, y, true), "%s: %s differs between the night run through and the one continued", what,
              key);
}

/* The morning page from its second line on (the first names the night's creation time). */
static char *morning_body(const char *dir)
{
    char name[64];
    snprintf(name, sizeof name, "%s/morning.txt", dir);
    char *text = slurp(name);
    char *nl = strchr(text, '\n');
    cr_assert_not_null(nl);
    char *body = strdup(nl + 1);
    free(text);
    return body;
}

/* What `status DIR` printed (its log named log); want: its exit code (-1: any). */
static char *status_of(const char *dir, const char *log, int want)
{
    Args sa = { .n = 0 };
    add(&sa, "status");
    add(&sa, "%s/%s", tmp, dir);
    int rc = run_to_end(status_main, &sa, log);
    if (want >= 0)
        cr_assert_eq(rc, want, "status %s:\n%s", dir, slurp(log));
    return slurp(log);
}

Test(night, runs_the_whole_night_and_continues_after_each_step)
{
    cr_assert_eq(night("a", true, ""), 0, "the night ran through:\n%s", slurp("a-end.log"));
    char *log = slurp("a-end.log");
    cr_assert(strstr(log, "== night: spsa ==") && strstr(log, "== night: ablation ==") &&
                  strstr(log, "== night: export ==") && strstr(log, "== night: confirm ==") &&
                  strstr(log, "== night: morning =="),
              "every step:\n%s", log);
    /* The steps leave what comes next to the night. */
    cr_assert(!strstr(log, "export the values with") && !strstr(log, "verify them"),
              "the SPSA step's closing hints are about a run the night goes on with:\n%s", log);
    free(log);
    cJSON *nj = json_of("a", NIGHT_FILE);
    const cJSON *st, *steps = cJSON_GetObjectItemCaseSensitive(nj, "steps");
    cr_assert_eq(cJSON_GetArraySize(steps), 5);
    cJSON_ArrayForEach(st, steps)
        cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(st, "status")->valuestring, "done");
    cJSON_Delete(nj);
    log = status_of("a", "status", 0);
    /* Each step with its figure, from the file it wrote. */
    cr_assert(strstr(log, "night (night.json):\n  spsa      done        200 of 200 games at 1 nodes\n") &&
                  strstr(log, "\n  ablation  done        40 of 40 pairs at 1 nodes; ") &&
                  strstr(log, "; additivity gap ") && strstr(log, "; no game ended by forfeit in its 40 pairs\n") &&
                  strstr(log, "\n  export    done        ") && strstr(log, " kept at the tuned value, ") &&
                  strstr(log, "\n  confirm   done        10 of 10 pairs at ") && strstr(log, " Elo (Ptnml [") &&
                  strstr(log, "\n  morning   done\n") && strstr(log, "the morning page: ") &&
                  !strstr(log, "left to play"),
              "status shows the night's steps and their figures:\n%s", log);
    free(log);
    /* The report shows the same steps. */
    Args ra = { .n = 0 };
    add(&ra, "report");
    add(&ra, "%s/a", tmp);
    add(&ra, "-o");
    add(&ra, "%s/a.html", tmp);
    cr_assert_eq(run_to_end(report_main, &ra, "report"), 0, "%s", slurp("report"));
    char *html = slurp("a.html");
    cr_assert(strstr(html, "<a href=\"#night\">Night</a>") && strstr(html, "<section id=\"night\">") &&
                  strstr(html, "<td>ablation</td><td>done</td><td>40 of 40 pairs at 1 nodes; "),
              "the report's night section");
    free(html);
    /* A step left "running" by a process that is gone is shown interrupted. */
    step_status("a", 3, "running");
    log = status_of("a", "status2", 0);
    cr_assert(strstr(log, "\n  confirm   interrupted 10 of 10 pairs"), "%s", log);
    cr_expect(!strstr(log, "left to play"), "its 10 pairs are played, so nothing is left:\n%s", log);
    free(log);
    char *page = morning_body("a");
    cr_assert(strstr(page, "What moved") && strstr(page, "The confirmation at") && strstr(page, "make PARAMS=") &&
                  strstr(page, "name, value lines") && strstr(page, "\n  no game ended by forfeit in its 40 pairs\n") &&
                  strstr(page, "\n  no game ended by forfeit\n") && strstr(page, "\nThe games (PGN):\n") &&
                  strstr(page, "/night/ablation.pgn\n") && strstr(page, "  the confirmation: ") &&
                  strstr(page, "  the machine was not checked before it played (not on the wall clock"),
              "the morning page:\n%s", page);
    /* Its readings follow its figures: the confirmation's interval against
     * 0, and its difference from the prediction against theirs. */
    double elo, cerr, pred, d, e;
    const char *c = strstr(page, "The confirmation at"), *g = strstr(page, "against the prediction (");
    cr_assert(c && g, "%s", page);
    cr_assert_eq(sscanf(strstr(c, ": ") + 2, "%lf +/- %lf", &elo, &cerr), 2, "%s", c);
    cr_assert_eq(sscanf(g, "against the prediction (%lf", &pred), 1, "%s", g);
    cr_assert_eq(sscanf(strstr(g, "minus the prediction ") + 21, "%lf +/- %lf", &d, &e), 2, "%s", g);
    cr_expect(fabs(d - (elo - pred)) < 0.11, "the difference is the confirmation minus the prediction:\n%s", page);
    cr_expect(strstr(c, elo - cerr > 0 ? "the gain is shown" : elo + cerr < 0 ? "a loss" : "the gain is not shown"),
              "%+.1f +/- %.1f:\n%s", elo, cerr, page);
    cr_expect(e > cerr && !!strstr(g, "they agree") == (fabs(d) <= e), "%s", page);

    /* The same night stopped after every step and continued. */
    cr_assert_eq(night("b", true, "spsa"), 0, "%s", slurp("b-spsa.log"));
    log = slurp("b-spsa.log");
    cr_assert(strstr(log, "-until") && !strstr(log, "== night: ablation =="), "stopped after spsa:\n%s", log);
    free(log);
    /* What is left: the ablation's 40 pairs and the confirmation's 10. */
    log = status_of("b", "status3", 0);
    cr_expect(strstr(log, "\n  left to play: 80 games at the run's limit (the ablation 80)") &&
                  strstr(log, "; the confirmation's 20 games (its rate not measured"),
              "%s", log);
    free(log);
    cr_assert_eq(night("b", false, "ablation"), 0, "%s", slurp("b-ablation.log"));
    /* An ablation an older build started has no -pgnout among its stored
     * options: the night continues it without one, not with options that
     * ask for -restart. */
    cJSON *ab = json_of("b", "ablation.json");
    cJSON *stored = cJSON_GetObjectItemCaseSensitive(ab, "args");
    cJSON *abl_args = cJSON_Duplicate(stored, true);
    for (int i = cJSON_GetArraySize(stored) - 2; i >= 0; i--)
        if (!strcmp(cJSON_GetArrayItem(stored, i)->valuestring, "-pgnout")) {
            cJSON_DeleteItemFromArray(stored, i + 1);
            cJSON_DeleteItemFromArray(stored, i);
        }
    cr_assert_eq(cJSON_GetArraySize(stored) + 2, cJSON_GetArraySize(abl_args), "the ablation had a -pgnout");
    json_put_back("b", "ablation.json", ab);
    step_status("b", 1, "stopped");
    cr_assert_eq(night("b", false, "ablation"), 0, "%s", slurp("b-ablation.log"));
    log = slurp("b-ablation.log");
    cr_assert(strstr(log, "finished earlier") && !strstr(log, "other options"), "%s", log);
    free(log);
    ab = json_of("b", "ablation.json");
    cJSON_ReplaceItemInObjectCaseSensitive(ab, "args", abl_args);
    json_put_back("b", "ablation.json", ab);
    log = status_of("b", "status4", 0);
    cr_expect(strstr(log, "\n  left to play: the confirmation's 20 games (its rate not measured"), "%s", log);
    free(log);
    cr_assert_eq(night("b", false, "export"), 0, "%s", slurp("b-export.log"));
    cr_assert_eq(night("b", false, "confirm"), 0, "%s", slurp("b-confirm.log"));
    cr_assert_eq(night("b", false, ""), 0, "%s", slurp("b-end.log"));
    log = slurp("b-end.log");
    cr_assert(!strstr(log, "== night: confirm ==") && strstr(log, "== night: morning =="),
              "a finished step is not played again:\n%s", log);
    free(log);

    const char *files[][2] = { { "ablation.json", "pairs" }, { "ablation.json", "groups" },
                               { "night/kept.json", "params" }, { "verify.json", "ptnml" },
                               { "verify.json", "openings" }, { "openings.json", "held_out" } };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        cJSON *x = json_of("a", files[i][0]), *y = json_of("b", files[i][0]);
        same(x, y, files[i][0], files[i][1]);
        cJSON_Delete(x);
        cJSON_Delete(y);
    }
    /* The ablation's and the confirmation's games, each pair's two once. */
    const char *pgns[][3] = { { "a", "night/ablation.pgn", "ratchet-tune ablation created " },
                              { "b", "night/ablation.pgn", "ratchet-tune ablation created " },
                              { "a", "night/confirm.pgn", "ratchet-tune verify created " },
                              { "b", "night/confirm.pgn", "ratchet-tune verify created " } };
    for (size_t i = 0; i < sizeof pgns / sizeof pgns[0]; i++) {
        char name[64];
        int games[41], rounds = strstr(pgns[i][1], "ablation") ? 40 : 10;
        snprintf(name, sizeof name, "%s/%s", pgns[i][0], pgns[i][1]);
        cr_assert_eq(pgn_games_by_round(name, pgns[i][2], games, rounds), 0, "%s: only its own games", name);
        cr_assert_eq(games[0], 0, "%s", name);
        for (int k = 1; k <= rounds; k++)
            cr_assert_eq(games[k], 2, "%s: pair %d has %d games", name, k, games[k]);
    }
    char *page_b = morning_body("b");
    /* The pages name their own directory; compare them with it taken out. */
    for (char *p; (p = strstr(page_b, "/b/"));)
        p[1] = 'a';
    cr_assert_str_eq(page, page_b, "the same morning page");
    free(page);
    free(page_b);

    /* A night in progress takes no run options; a directory with a night is
     * not a new night's. */
    Args a = { .n = 0 };
    add(&a, "night");
    add(&a, "%s/b", tmp);
    add(&a, "-games");
    add(&a, "10");
    cr_assert_eq(run_to_end(night_main, &a, "bad1"), 2, "%s", slurp("bad1"));
    a = (Args){ .n = 0 };
    add(&a, "night");
    add(&a, "%s/b", tmp);
    add(&a, "-each");
    add(&a, "nodes=2");
    cr_assert_eq(run_to_end(night_main, &a, "bad2"), 2);
    log = slurp("bad2");
    cr_assert(strstr(log, "takes only -until, -force, -idle-wait D, -engine cmd=PATH and, before its ablation, "
                          "-ablation-pairs P"),
              "%s", log);
    free(log);
}

static double plan_num(const cJSON *plan, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(plan, key);
    cr_assert(cJSON_IsNumber(x), "night.json: plan.%s", key);
    return x->valuedouble;
}

/* A night sized by time: the rates measured at both limits (24 games
 * each), the confirmation cut to a third of the night, the ablation a
 * third of the games of the rest.  The SPSA games are given, so that only
 * they are played. */
Test(night, a_night_sized_by_time_splits_it_by_the_rule)
{
    Args a = fake_run_args("t", 200, 0, 1);
    free(a.v[0]);
    a.v[0] = strdup("night");
    add_line(&a, "-params file=%s/far.txt -games 200 -hours 1 -confirm nodes=1 -confirm-pairs 100000000", tmp);
    add_line(&a, "-until spsa");
    cr_assert_eq(run_to_end(night_main, &a, "t.log"), 0, "%s", slurp("t.log"));
    char *log = slurp("t.log");
    cr_assert(strstr(log, "measuring this machine's rate at the run's limit: 24 games") &&
                  strstr(log, "measuring this machine's rate at the user's limit: 24 games"),
              "%s", log);
    free(log);
    cJSON *nj = json_of("t", NIGHT_FILE);
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(nj, "plan");
    double run = plan_num(plan, "rate_run"), confirm = plan_num(plan, "rate_confirm");
    cr_assert(run > 0 && confirm > 0, "the rates: %g and %g games/s", run, confirm);
    double pairs = plan_num(plan, "confirm_pairs"), expect = floor(3600.0 / 3 * confirm / 2);
    cr_assert(fabs(pairs - (expect < 50 ? 50 : expect)) <= 1, "the confirmation at most a third: %g pairs, %g at "
              "%g games/s", pairs, expect, confirm);
    double t_confirm = 2 * pairs / confirm, abl = floor((3600 - t_confirm) * run / 3 / 2);
    cr_assert(fabs(plan_num(plan, "ablation_pairs") - (abl < 200 ? 200 : abl)) <= 1,
              "the ablation a third of the rest: %g pairs, %g expected", plan_num(plan, "ablation_pairs"), abl);
    cr_assert_eq(plan_num(plan, "spsa_games"), 200);
    cJSON_Delete(nj);
}

/* A night whose engine moved after its SPSA: the next step cannot start
 * its engine and says how to name it anew; `night DIR -engine cmd=PATH`
 * records the new path (through resume, the run being complete) and the
 * steps after play it. */
Test(night, a_night_whose_engine_moved_goes_on_with_it_named_anew)
{
    char eng[512], moved[512];
    snprintf(eng, sizeof eng, "%s/a/engine", tmp);
    snprintf(moved, sizeof moved, "%s/b/engine", tmp);
    cr_assert_eq(shell("mkdir -p %s/a %s/b && cp %s %s", tmp, tmp, FAKESPSA_PATH, eng), 0);
    cr_assert_eq(night_of("n", true, "spsa", eng), 0, "the SPSA step:\n%s", slurp("n-spsa.log"));
    cr_assert_eq(shell("sleep 0.01; cp %s %s && rm %s", eng, moved, eng), 0);
    cr_expect_neq(night_of("n", false, "ablation", NULL), 0, "the ablation cannot start the engine that is gone");
    char *log = slurp("n-ablation.log");
    cr_expect(strstr(log, "-engine cmd="), "the message says how to name the engine anew:\n%s", log);
    free(log);
    cr_assert_eq(night_of("n", false, "ablation", moved), 0, "named anew, the night goes on:\n%s",
                 slurp("n-ablation.log"));
    cJSON *st = json_of("n", "state.json");
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "config"), "engine"), "cmd");
    cr_expect(cJSON_IsString(cmd) && !strcmp(cmd->valuestring, moved), "state.json records %s", moved);
    cJSON_Delete(st);
    char path[600];
    snprintf(path, sizeof path, "%s/n/ablation.json", tmp);
    cr_expect_eq(access(path, F_OK), 0, "the ablation was played");
    cr_expect_neq(night_of("n", false, "export", "/x y"), 0, "a second word after -engine is refused");
}

/* DIR's night.json with its first `from` replaced by `to`. */
static void night_json_edit(const char *dir, const char *from, const char *to)
{
    char name[64];
    snprintf(name, sizeof name, "%s/%s", dir, NIGHT_FILE);
    char *text = slurp(name);
    char *at = strstr(text, from);
    cr_assert_not_null(at, "%s holds %s", name, from);
    char *out = malloc(strlen(text) + strlen(to) + 1);
    cr_assert_not_null(out);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    write_file(name, out);
    free(out);
    free(text);
}

Test(night, a_night_json_it_did_not_write_is_refused_naming_the_entry)
{
    cr_assert_eq(night("n", true, "spsa"), 0, "the SPSA step:\n%s", slurp("n-spsa.log"));
    char *good = slurp("n/" NIGHT_FILE);
    static const struct {
        const char *from, *to, *says;
    } CASES[] = {
        { "\"ablation\"", "\"ablate\"", "step 2 of \"steps\" is named \"ablate\": not a step of a night" },
        { "\"export\"", "\"ablation\"", "step 3 of \"steps\" is named \"ablation\": a step listed twice" },
        { "\"todo\"", "\"later\"", "step ablation has the status \"later\", which a night does not give" },
        { "\"version\":\t1", "\"version\":\t2", "version 2, where this build reads a night of version 1: written by "
                                                 "a newer build" },
        { "\"version\":\t1,", "", "no \"version\"" },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        write_file("n/" NIGHT_FILE, good);
        night_json_edit("n", CASES[i].from, CASES[i].to);
        char *before = slurp("n/" NIGHT_FILE);
        cr_expect_eq(night("n", false, ""), 2, "case %zu is refused", i);
        char *log = slurp("n-end.log");
        cr_expect(strstr(log, "n/night.json: ") && strstr(log, CASES[i].says), "case %zu:\n%s", i, log);
        cr_expect(!strstr(log, "== night: "), "case %zu: no step played:\n%s", i, log);
        free(log);
        char *after = slurp("n/" NIGHT_FILE);
        cr_expect_str_eq(after, before, "case %zu: the file as it was", i);
        free(after);
        free(before);
        log = status_of("n", "status", -1);
        cr_expect(strstr(log, CASES[i].says), "status says it too, case %zu:\n%s", i, log);
        free(log);
    }
    free(good);
}

/* A night sized by time whose SPSA took longer than the 24 games measured
 * (its play time in state.json set to 70% of the night): the ablation gets
 * the hours left at SPSA's own rate, fewer pairs than the plan, and
 * night.json and the ablation record say so. */
/* A night of tmp/t sized by time (0.008 hours) played to the end of its
 * SPSA, whose play time in state.json is then set to 70% of the night:
 * its night.json (the plan as made), and that play time. */
static cJSON *night_whose_spsa_took_long(double *elapsed)
{
    Args a = fake_run_args("t", 200, 0, 1);
    free(a.v[0]);
    a.v[0] = strdup("night");
    add_line(&a, "-params file=%s/far.txt -hours 0.008 -confirm nodes=1 -confirm-pairs 50 -until spsa", tmp);
    cr_assert_eq(run_to_end(night_main, &a, "t.log"), 0, "%s", slurp("t.log"));
    cJSON *st = json_of("t", "state.json");
    *elapsed = 0.7 * 0.008 * 3600;
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "run"), "elapsed_s"),
                         *elapsed);
    json_put_back("t", "state.json", st);
    return json_of("t", NIGHT_FILE);
}

Test(night, a_night_sized_by_time_gives_the_ablation_the_hours_its_spsa_left)
{
    double elapsed;
    cJSON *nj = night_whose_spsa_took_long(&elapsed);
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(nj, "plan");
    double planned = plan_num(plan, "ablation_pairs"), rate_confirm = plan_num(plan, "rate_confirm");
    double t_confirm = 2 * plan_num(plan, "confirm_pairs") / rate_confirm;
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(plan, "by_time")), "the plan is sized by time");
    cJSON_Delete(nj);
    cJSON *st = json_of("t", "state.json");
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(st, "run");
    double games = cJSON_GetObjectItemCaseSensitive(run, "games")->valuedouble;
    double used = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "validation"), "used")
                      ->valuedouble;
    cJSON_Delete(st);
    double expect = floor((0.008 * 3600 - t_confirm - elapsed) * (games + 2 * used) / elapsed / 2);
    expect = expect < 200 ? 200 : expect;
    cr_assert(expect < planned, "the test's numbers shrink the ablation: %g pairs planned, %g left", planned, expect);
    Args c = { .n = 0 };
    add_line(&c, "night %s/t -until ablation", tmp);
    cr_assert_eq(run_to_end(night_main, &c, "t2.log"), 0, "%s", slurp("t2.log"));
    char *log = slurp("t2.log");
    cr_expect(strstr(log, "night: the ablation re-sized to the hours left: "), "%s", log);
    free(log);
    nj = json_of("t", NIGHT_FILE);
    double pairs = plan_num(cJSON_GetObjectItemCaseSensitive(nj, "plan"), "ablation_pairs");
    cr_expect(fabs(pairs - expect) <= 1, "night.json: %g pairs, %g expected (%g planned)", pairs, expect, planned);
    cJSON_Delete(nj);
    cJSON *ab = json_of("t", "ablation.json");
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(ab, "rounds")->valuedouble, pairs, "the ablation played them");
    cJSON_Delete(ab);
}

/* The same night continued with -ablation-pairs before its ablation: more
 * pairs than the plan are refused (the run held out openings for the
 * plan's), fewer are kept whatever hours SPSA left, and once the ablation
 * has started its pairs stay. */
Test(night, a_night_in_progress_takes_the_ablations_pairs_before_it_starts)
{
    /* SPSA took 70% of the night: the rule would leave the ablation fewer pairs (the test above). */
    double elapsed;
    cJSON *nj = night_whose_spsa_took_long(&elapsed);
    double planned = plan_num(cJSON_GetObjectItemCaseSensitive(nj, "plan"), "ablation_pairs");
    cJSON_Delete(nj);
    Args c = { .n = 0 };
    add_line(&c, "night %s/t -ablation-pairs %.0f -until ablation", tmp, planned + 1);
    cr_assert_eq(run_to_end(night_main, &c, "t2.log"), 2, "%s", slurp("t2.log"));
    char *log = slurp("t2.log");
    cr_expect(strstr(log, "at most the plan's") && !strstr(log, "== night: ablation =="), "%s", log);
    free(log);
    uint64_t want = (uint64_t)planned - 10;
    c = (Args){ .n = 0 };
    add_line(&c, "night %s/t -ablation-pairs %llu -until ablation", tmp, (unsigned long long)want);
    cr_assert_eq(run_to_end(night_main, &c, "t3.log"), 0, "%s", slurp("t3.log"));
    log = slurp("t3.log");
    cr_expect(strstr(log, "not re-sized to the hours left") && !strstr(log, "re-sized to the hours left:"), "%s", log);
    free(log);
    nj = json_of("t", NIGHT_FILE);
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(nj, "plan");
    cr_expect_eq(plan_num(plan, "ablation_pairs"), want);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(plan, "by_time")), "sized in pairs from here");
    cJSON_Delete(nj);
    cJSON *ab = json_of("t", "ablation.json");
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(ab, "rounds")->valuedouble, want, "the ablation played them");
    cJSON_Delete(ab);
    c = (Args){ .n = 0 };
    add_line(&c, "night %s/t -ablation-pairs 300 -until ablation", tmp);
    cr_assert_eq(run_to_end(night_main, &c, "t4.log"), 2, "%s", slurp("t4.log"));
    log = slurp("t4.log");
    cr_expect(strstr(log, "its ablation has started with"), "%s", log);
    free(log);
}

/* One night at a time in a directory: while another process holds the
 * night's lock (DIR/night/lock, as a night does from its start to its
 * end), `night DIR` is refused, naming that process, and writes nothing;
 * once it is free, the night goes on. */
Test(night, a_second_night_in_the_same_directory_is_refused)
{
    cr_assert_eq(night("a", true, "spsa"), 0, "%s", slurp("a-spsa.log"));
    char sub[600], err[600];
    snprintf(sub, sizeof sub, "%s/a/night", tmp);
    int fd = rd_lock(sub, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    char *before = slurp("a/night.json");
    cr_assert_eq(night("a", false, "ablation"), 1, "%s", slurp("a-ablation.log"));
    char *log = slurp("a-ablation.log"), pid[64];
    snprintf(pid, sizeof pid, "in use by process %ld", (long)getpid());
    cr_expect(strstr(log, "another night is playing in it") && strstr(log, pid) &&
                  !strstr(log, "== night: ablation =="), "%s", log);
    free(log);
    char *after = slurp("a/night.json");
    cr_expect_str_eq(after, before, "night.json as the other night left it");
    free(after);
    free(before);
    rd_unlock(fd);
    cr_assert_eq(night("a", false, "ablation"), 0, "%s", slurp("a-ablation.log"));
}

/* A -confirm limit that verify could not play is refused before the night
 * measures a rate or plays a game, and it leaves no directory behind. */
Test(night, a_confirm_limit_it_cannot_play_is_refused_before_any_game)
{
    static const struct {
        const char *limit, *says;
    } CASES[] = {
        { "tc=abc", "-confirm: bad time control 'abc'" },
        { "colour=white", "-confirm: unknown key 'colour'" },
        { "nodestime=500", "-confirm: no time control" },
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        Args a = fake_run_args("c", 200, 0, 1);
        free(a.v[0]);
        a.v[0] = strdup("night");
        add_line(&a, "-params file=%s/far.txt -confirm %s", tmp, CASES[k].limit);
        cr_expect_eq(run_to_end(night_main, &a, "c.log"), 2, "-confirm %s", CASES[k].limit);
        char *log = slurp("c.log");
        cr_expect(strstr(log, CASES[k].says) && !strstr(log, "measuring"), "-confirm %s:\n%s", CASES[k].limit, log);
        free(log);
        char path[600];
        snprintf(path, sizeof path, "%s/c", tmp);
        cr_expect_neq(access(path, F_OK), 0, "-confirm %s: no directory", CASES[k].limit);
    }
}

/* -each nodestime=auto: the run's clock counts what a ms of the user's clock
 * is worth in nodes, measured in the games at the confirmation's limit on
 * the wall clock.  The fake searches 50 nodes a ms of its 4 ms moves, so the
 * run plays at most nodestime=50 (the runner's wall ms also hold the pipe
 * and the fake's own work), and its state keeps no wall_search: its games
 * count nodes. */
Test(night, nodestime_auto_is_measured_at_the_users_clock)
{
    Args a = { .n = 0 };
    add_line(&a, "night -engine cmd=%s", FAKESPSA_PATH);
    add(&a, "args=--think 4 --nodes-per-ms 50 --nodestime");
    add_line(&a, "-params file=%s/far.txt -each tc=10+0.1 nodestime=auto -openings file=%s/book.epd order=random", tmp,
             tmp);
    add_line(&a, "-maxmoves 10 -concurrency 2 -srand 7 -games 200 -ablation-pairs 40 -confirm-pairs 10 -until spsa");
    add_line(&a, "-out %s/na", tmp);
    int rc = run_to_end(night_main, &a, "na.log");
    char *log = slurp("na.log");
    cr_assert_eq(rc, 0, "%s", log);
    cJSON *nj = json_of("na", NIGHT_FILE);
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(nj, "plan");
    const cJSON *ntj = cJSON_GetObjectItemCaseSensitive(plan, "nodestime");
    const cJSON *npj = cJSON_GetObjectItemCaseSensitive(plan, "wall_nodes_per_ms");
    cr_assert(cJSON_IsNumber(ntj) && cJSON_IsNumber(npj), "the plan names its nodestime:\n%s", log);
    double nt = ntj->valuedouble, npms = npj->valuedouble;
    cr_expect(npms > 10 && npms <= 50, "50 nodes a ms of thinking, measured as %g:\n%s", npms, log);
    cr_expect_eq(nt, round(npms));
    char said[64];
    snprintf(said, sizeof said, "the run plays nodestime=%.0f", nt);
    cr_expect(strstr(log, said), "%s", log);
    RunState rs;
    load_state("na", &rs);
    const char *v = conf_get(&rs.conf, "each", "nodestime");
    cr_expect(v && atof(v) == nt, "the run's nodestime %s, the plan's %g", v ? v : "(none)", nt);
    cr_expect(rs.games == 200 && rs.wall_nodes == 0 && rs.wall_ms == 0, "games %llu, wall_search %llu / %llu",
              (unsigned long long)rs.games, (unsigned long long)rs.wall_nodes, (unsigned long long)rs.wall_ms);
    runstate_free(&rs);
    cJSON_Delete(nj);
    free(log);

    /* An engine faster than nodestime= takes is refused with its figure, before SPSA. */
    Args f = { .n = 0 };
    add_line(&f, "night -engine cmd=%s", FAKESPSA_PATH);
    add(&f, "args=--think 4 --nodes-per-ms 1000000 --nodestime");
    add_line(&f, "-params file=%s/far.txt -each tc=10+0.1 nodestime=auto -openings file=%s/book.epd", tmp, tmp);
    add_line(&f, "-maxmoves 10 -concurrency 2 -games 200 -ablation-pairs 40 -out %s/nf", tmp);
    cr_expect_eq(run_to_end(night_main, &f, "nf.log"), 1);
    log = slurp("nf.log");
    cr_expect(strstr(log, "nodestime=auto: the engines searched ") && strstr(log, "more than nodestime= takes (100000)"),
              "%s", log);
    free(log);
    char state[600];
    snprintf(state, sizeof state, "%s/nf/state.json", tmp);
    cr_expect_neq(access(state, F_OK), 0, "no run started");

    /* Refused before any game where the confirmation is not on the wall clock. */
    Args b = { .n = 0 };
    add_line(&b, "night -engine cmd=%s -params file=%s/far.txt -each tc=10+0.1 nodestime=auto", FAKESPSA_PATH, tmp);
    add_line(&b, "-openings file=%s/book.epd -confirm nodes=100 -games 200 -out %s/nb", tmp, tmp);
    cr_expect_eq(run_to_end(night_main, &b, "nb.log"), 1);
    log = slurp("nb.log");
    cr_expect(strstr(log, "nodestime=auto measures the nodes a ms of the user's clock is worth") &&
                  !strstr(log, "measuring"),
              "%s", log);
    free(log);
}

/* The rate measurements in a directory whose name has a quote and spaces:
 * each leaves its output in a log and its run removed, and the night's own
 * output is not theirs. */
Test(night, its_rate_runs_leave_a_log_and_are_removed_whatever_the_name)
{
    Args a = fake_run_args("q", 200, 0, 1);
    free(a.v[0]);
    a.v[0] = strdup("night");
    for (int i = 0; i + 1 < a.n; i++)
        if (!strcmp(a.v[i], "-out")) {
            char dir[600];
            snprintf(dir, sizeof dir, "%s/it's a night", tmp);
            free(a.v[i + 1]);
            cr_assert_not_null(a.v[i + 1] = strdup(dir));
        }
    add_line(&a, "-params file=%s/far.txt -games 200 -hours 1 -confirm nodes=1 -until spsa", tmp);
    cr_assert_eq(run_to_end(night_main, &a, "q.log"), 0, "%s", slurp("q.log"));
    char *log = slurp("q.log");
    cr_expect(strstr(log, "games/s at the run's limit") && strstr(log, "games/s at the user's limit") &&
                  !strstr(log, "calibrate-run -o") && !strstr(log, "calibrate-user -o"),
              "%s", log);
    free(log);
    static const char *const TAGS[] = { "run", "user" };
    for (int k = 0; k < 2; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/it's a night/night/calibrate-%s", tmp, TAGS[k]);
        cr_expect_neq(access(path, F_OK), 0, "%s is removed", path);
        snprintf(path, sizeof path, "it's a night/night/calibrate-%s.log", TAGS[k]);
        char *out = slurp(path);
        cr_expect(strstr(out, "24 games"), "%s holds the run's output:\n%s", path, out);
        free(out);
    }
}

/* A rate run that fails: the night says what the run said last, and where
 * all of it is. */
Test(night, a_rate_run_that_fails_shows_the_end_of_its_output)
{
    Args a = { .n = 0 };
    add_line(&a, "night -engine cmd=/bin/false -params file=%s/far.txt -each nodes=1 -openings file=%s/book.epd "
                 "-out %s/f", tmp, tmp, tmp);
    cr_expect_neq(run_to_end(night_main, &a, "f.log"), 0);
    char *log = slurp("f.log");
    cr_expect(strstr(log, "did not finish") && strstr(log, "f/night/calibrate-run.log):\n") &&
                  strstr(log, "exited with code 1 while waiting for"),
              "%s", log);
    free(log);
}

Test(night, a_night_stopped_in_a_step_says_to_continue_the_night)
{
    Args a = night_args("s", 5, NULL);
    pid_t pid = spawn(night_main, &a, "s1.log");
    wait_rows("s", 3, pid);
    kill(pid, SIGTERM);
    int rc = wait_child(pid);
    args_free(&a);
    char *log = slurp("s1.log");
    char want[600];
    snprintf(want, sizeof want, "continue with: %s night %s/s\n", setup_prog(), tmp);
    cr_assert_eq(rc, 128 + SIGTERM, "exit %d:\n%s", rc, log);
    cr_assert(strstr(log, "night: the spsa step was stopped") && strstr(log, want),
              "the night names itself to go on with:\n%s", log);
    cr_assert(!strstr(log, "resume with:"), "not the SPSA step's own resume, which ends after the step:\n%s", log);
    free(log);
}

/* A night that keeps nothing says so on its morning page, with no
 * confirmation and no bake of the start values, and status says the
 * confirmation had nothing to play: when nothing moved (the optimum is the
 * start: no ablation either), and when the ablation found nothing that
 * pays (the optimum near the start). */
static char *night_keeping_nothing(const char *dir, const char *target)
{
    Args a = night_args_at(dir, 0, NULL, target);
    char log[64];
    snprintf(log, sizeof log, "%s.log", dir);
    cr_assert_eq(run_to_end(night_main, &a, log), 0, "%s", slurp(log));
    char *page = morning_body(dir);
    cr_assert(!strstr(page, "The confirmation at") && !strstr(page, "Bake it into") && !strstr(page, "predicted"),
              "no confirmation, no bake:\n%s", page);
    snprintf(log, sizeof log, "%s-status", dir);
    char *st = status_of(dir, log, 0);
    cr_assert(strstr(st, "\n  confirm   done        nothing to play: the kept values are the start values\n"),
              "%s", st);
    free(st);
    return page;
}

Test(night, a_night_that_keeps_nothing_says_there_is_nothing_to_bake)
{
    char *page = night_keeping_nothing("z", "30,70,-30");
    cr_assert(strstr(page, "Nothing moved: SPSA left every parameter at its start value"), "%s", page);
    free(page);
    char *log = slurp("z.log");
    cr_assert(strstr(log, "night: no parameter moved from its start value: nothing to ablate"), "%s", log);
    free(log);
    log = slurp("z-status");
    cr_assert(strstr(log, "\n  ablation  done        nothing to ablate: no parameter moved from its start value\n"),
              "the skipped ablation says why:\n%s", log);
    free(log);
    page = night_keeping_nothing("y", "36,64,-24");
    cr_assert(strstr(page, "What moved") &&
                  strstr(page, "Kept (keep=pays): no group; every moved parameter stays at its start value"),
              "%s", page);
    free(page);
    log = slurp("y.log");
    cr_assert(strstr(log, "-ablation keep=pays: no group kept") && !strstr(log, "groups predict") &&
                  !strstr(log, "group predicts"),
              "nothing kept, nothing predicted:\n%s", log);
    free(log);
}

/* A night stopped while its final validation point plays (as a run stopped
 * there leaves it): status shows that point's games and counts only its
 * games not yet played as left, even where validation.csv was lost. */
Test(night, status_counts_the_validation_point_being_played)
{
    cr_assert_eq(night("v", true, "spsa"), 0, "%s", slurp("v-spsa.log"));
    cJSON *sj = json_of("v", "state.json");
    cJSON *val = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sj, "run"), "validation");
    cr_assert_not_null(val);
    double done = cJSON_GetObjectItemCaseSensitive(val, "done")->valuedouble;
    double used = cJSON_GetObjectItemCaseSensitive(val, "used")->valuedouble;
    double final = cJSON_GetObjectItemCaseSensitive(val, "final")->valuedouble;
    cr_assert(done >= 1 && final >= 8, "done %g, final %g", done, final);
    /* The final point back to pending, 3 of its pairs played (LD, DD, WD). */
    cJSON *snap = json_of("v", "snapshots/2.json");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "point", done);
    cJSON_AddNumberToObject(p, "at_games", 200);
    cJSON_AddNumberToObject(p, "due", 200);
    cJSON_AddNumberToObject(p, "size", final);
    cJSON_AddNumberToObject(p, "pairs", 3);
    cJSON_AddNumberToObject(p, "wins", 1);
    cJSON_AddNumberToObject(p, "losses", 1);
    cJSON_AddNumberToObject(p, "draws", 4);
    const double ptnml[5] = { 0, 1, 1, 1, 0 };
    cJSON_AddItemToObject(p, "ptnml", cJSON_CreateDoubleArray(ptnml, 5));
    cJSON *ff = cJSON_AddObjectToObject(p, "forfeits");
    static const char *const kinds[] = { "time_losses", "crashes", "illegal", "stalls" };
    for (int k = 0; k < 4; k++)
        cJSON_AddNumberToObject(ff, kinds[k], 0);
    cJSON *values = cJSON_GetObjectItemCaseSensitive(snap, "params");
    cr_assert(cJSON_IsObject(values), "snapshots/2.json has params");
    cJSON_AddItemToObject(p, "values", cJSON_Duplicate(values, true));
    cJSON_AddItemToObject(val, "pending", p);
    cJSON_ReplaceItemInObjectCaseSensitive(val, "done", cJSON_CreateNumber(done - 1));
    cJSON_ReplaceItemInObjectCaseSensitive(val, "last", cJSON_CreateNumber(100));
    cJSON_ReplaceItemInObjectCaseSensitive(val, "used", cJSON_CreateNumber(used - final / 2));
    json_put_back("v", "state.json", sj);
    cJSON_Delete(snap);
    char path[512];
    snprintf(path, sizeof path, "%s/v/validation.csv", tmp);
    cr_assert_eq(unlink(path), 0);
    step_status("v", 0, "stopped");

    char *log = status_of("v", "v-status", 0);
    char want[256];
    snprintf(want, sizeof want, "\n  point %.0f being played: 6 of %.0f games\n", done, final);
    cr_expect(strstr(log, want), "the point's games (%s):\n%s", want, log);
    snprintf(want, sizeof want, "\n  left to play: %.0f games at the run's limit (validation %.0f, the ablation 80)",
             final - 6 + 80, final - 6);
    cr_expect(strstr(log, want), "its games not yet played (%s):\n%s", want, log);
    free(log);
    /* The report says both too. */
    Args ra = { .n = 0 };
    add_line(&ra, "report %s/v -o %s/v.html", tmp, tmp);
    cr_assert_eq(run_to_end(report_main, &ra, "v-report"), 0, "%s", slurp("v-report"));
    char *html = slurp("v.html");
    snprintf(want, sizeof want, "<p>Point %.0f being played: 6 of %.0f games.</p>", done, final);
    cr_expect(strstr(html, want), "the report's validation section has %s", want);
    cr_expect(strstr(html, "no point in validation.csv, but the state counts ") && !strstr(html, "No point yet"),
              "the report names the points lost with validation.csv");
    free(html);
}

/* verify.json's elapsed_s set to secs. */
static void verify_elapsed(const char *dir, double secs)
{
    cJSON *v = json_of(dir, "verify.json");
    cJSON_ReplaceItemInObjectCaseSensitive(v, "elapsed_s", cJSON_CreateNumber(secs));
    json_put_back(dir, "verify.json", v);
}

/* A confirmation under way is timed by its own play once it has played a
 * minute: a night sized in games (or one that adopted a run) measured no
 * rate at the user's limit, and its status said only "not measured". */
Test(night, the_confirmation_left_is_timed_by_its_own_play)
{
    cr_assert_eq(night("c", true, ""), 0, "%s", slurp("c-end.log"));
    /* Its confirmation half played: 10 of 20 pairs. */
    cJSON *nj = json_of("c", NIGHT_FILE);
    cJSON *plan = cJSON_GetObjectItemCaseSensitive(nj, "plan");
    cr_assert_eq(plan_num(plan, "rate_confirm"), 0, "a night sized in games measures no rate");
    cJSON_ReplaceItemInObjectCaseSensitive(plan, "confirm_pairs", cJSON_CreateNumber(20));
    json_put_back("c", NIGHT_FILE, nj);
    step_status("c", 3, "stopped");
    /* 20 games in 100 s: the 20 left take 100 s more. */
    verify_elapsed("c", 100);
    char *log = status_of("c", "c-status", 0);
    cr_expect(strstr(log, "\n  left to play: the confirmation's 20 games, about 1m40s at 0.20 games/s (its play so "
                          "far)"),
              "%s", log);
    free(log);
    /* Under a minute of play is no measure. */
    verify_elapsed("c", 30);
    log = status_of("c", "c-status2", 0);
    cr_expect(strstr(log, "\n  left to play: the confirmation's 20 games (its rate not measured"), "%s", log);
    free(log);
}

/* A confirmation on the wall clock waits -idle-wait for a busy machine
 * (given to a night in progress, kept in night.json), and the morning page
 * says how the machine was when each sitting started. */
Test(night, a_confirmation_on_the_wall_clock_waits_for_a_busy_machine, .timeout = 150)
{
    Args a = night_args("w", 0, NULL);
    add_line(&a, "-confirm tc=2+0.05 -until export");
    cr_assert_eq(run_to_end(night_main, &a, "w1.log"), 0, "%s", slurp("w1.log"));
    cJSON *nj = json_of("w", NIGHT_FILE);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(nj, "idle_wait")->valuedouble, 1800, "30 minutes unless told");
    cJSON_Delete(nj);

    a = (Args){ .n = 0 };
    add_line(&a, "night %s/w -idle-wait soon", tmp);
    cr_expect_eq(run_to_end(night_main, &a, "w2.log"), 2);
    char *log = slurp("w2.log");
    cr_expect(strstr(log, "-idle-wait soon: give a duration"), "%s", log);
    free(log);

    a = (Args){ .n = 0 };
    add_line(&a, "night %s/w -idle-wait 12s", tmp);
    int rc = run_while_busy(night_main, &a, "w3.log", "; waiting up to 12s for it");
    log = slurp("w3.log");
    cr_assert_eq(rc, 0, "%s", log);
    cr_expect(strstr(log, "verify: the machine is busy: ") && strstr(log, "; waiting up to 12s for it"), "%s", log);
    free(log);
    nj = json_of("w", NIGHT_FILE);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(nj, "idle_wait")->valuedouble, 12, "a night in progress takes it");
    cJSON_Delete(nj);
    cJSON *vj = json_of("w", "verify.json");
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(vj, "machine"), 0);
    cr_assert_not_null(c, "verify.json keeps the check");
    bool idle = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "idle"));
    cJSON_Delete(vj);
    char *page = slurp("w/morning.txt");
    cr_expect(idle ? strstr(page, "  the machine was free before each of its 1 sitting (at most ") != NULL
                   : strstr(page, "  WARNING: the sitting that started ") != NULL,
              "%s", page);
    free(page);
    /* status names the sittings that started on a busy machine */
    log = status_of("w", "status", 0);
    cr_expect(idle == !strstr(log, "started on a busy machine"), "%s", log);
    free(log);
    vj = json_of("w", "verify.json");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(vj, "machine");
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(m, 0), "idle", cJSON_CreateFalse());
    cJSON_AddItemToArray(m, cJSON_Duplicate(cJSON_GetArrayItem(m, 0), true));
    json_put_back("w", "verify.json", vj);
    log = status_of("w", "status", 0);
    cr_expect(strstr(log, " time losses; 2 sittings started on a busy machine\n"), "%s", log);
    free(log);

    /* The nodes a ms of the confirmation's clock was worth, and against the
     * run's clock in nodes what a move of SPSA had (the morning page is
     * written again by `night DIR`). */
    vj = json_of("w", "verify.json");
    const cJSON *had = cJSON_GetObjectItemCaseSensitive(vj, "wall_search");
    cr_expect(cJSON_GetObjectItemCaseSensitive(had, "nodes") &&
                  cJSON_GetObjectItemCaseSensitive(had, "nodes")->valuedouble >= 1,
              "verify.json counts the nodes its moves reported (the fake's 1 a move)");
    cJSON *ws = cJSON_CreateObject();
    cJSON_AddNumberToObject(ws, "nodes", 1500000);
    cJSON_AddNumberToObject(ws, "ms", 1000);
    if (!cJSON_ReplaceItemInObjectCaseSensitive(vj, "wall_search", ws))
        cJSON_AddItemToObject(vj, "wall_search", ws);
    json_put_back("w", "verify.json", vj);
    cJSON *sj = json_of("w", "state.json");
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sj, "config"), "each"),
                            "nodestime", "500");
    json_put_back("w", "state.json", sj);
    a = (Args){ .n = 0 };
    add_line(&a, "night %s/w", tmp);
    cr_assert_eq(run_to_end(night_main, &a, "w4.log"), 0, "%s", slurp("w4.log"));
    page = slurp("w/morning.txt");
    cr_expect(strstr(page, "  its engines searched 1500 nodes a ms of the clock (the first 40 plies of each game); "
                           "the run's clock counted 500 (nodestime), so a move of SPSA and the ablation had 0.33 "
                           "times the nodes of one here: they tuned a shallower search than this one"),
              "%s", page);
    free(page);
}

/* The rates that size a night measured on a busy machine would be low: the
 * night says so before it measures them. */
Test(night, a_plan_measured_on_a_busy_machine_is_warned_of)
{
    Args a = fake_run_args("p", 200, 0, 2);
    free(a.v[0]);
    a.v[0] = strdup("night");
    add_line(&a, "-params file=%s/far.txt -games 200 -hours 1 -confirm nodes=1 -until spsa", tmp);
    int rc = run_while_busy(night_main, &a, "p.log", "night: warning: the machine is busy: ");
    char *log = slurp("p.log");
    cr_assert_eq(rc, 0, "%s", log);
    const char *w = strstr(log, "night: warning: the machine is busy: ");
    cr_expect(w && strstr(w, "beside 2 games; the rates measured now size the night") &&
                  w < strstr(log, "games/s at the run's limit"),
              "%s", log);
    free(log);
}
