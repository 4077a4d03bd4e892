/* The pieces under a tuning run (tuner/tuning): history.csv cut back to
 * the state, the state file's round trip and its refusals, settings from
 * the command line over a config file, the lock and atomic writes. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "export.h"
#include "helpers.h"
#include "hist.h"
#include "run_cmd.h"
#include "rd.h"
#include "state.h"

static void setup(void)
{
    tmp_create("/tmp/ratchet-state-XXXXXX");
}

TestSuite(state, .init = setup, .fini = tmp_remove, .timeout = 120);

static SpsaState small_state(void)
{
    SpsaParam p[2];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        snprintf(p[i].name, sizeof p[i].name, "P%d", i);
        p[i].theta = p[i].start = 10;
        p[i].min = 0;
        p[i].max = 20;
        p[i].c_end = 2;
        p[i].r_end = 0.002;
    }
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 100);
    SpsaState st;
    char err[256];
    cr_assert_eq(spsa_init(&st, p, 2, &cfg, 1, err, sizeof err), 0, "%s", err);
    return st;
}

Test(state, history_is_cut_back_to_the_state)
{
    SpsaState st = small_state();
    History h;
    char err[256];
    cr_assert_eq(hist_open(&h, tmp, &st, 0, err, sizeof err), 0, "%s", err);
    for (int k = 1; k <= 3; k++) {
        SpsaBatch b;
        cr_assert_eq(spsa_batch_begin(&st, &b), 1);
        cr_assert_eq(spsa_batch_apply_wld(&st, &b, 1, 0, 1), 0);
        HistRow r = { .row = (uint64_t)k, .k = b.k, .games = 2u * (uint64_t)k, .wins = 1, .draws = 1 };
        cr_assert_eq(hist_append(&h, &r, &st, &b, err, sizeof err), 0, "%s", err);
        spsa_batch_free(&b);
    }
    hist_close(&h);
    /* A half-written fourth row, as after a crash in the middle of a write. */
    char path[256];
    snprintf(path, sizeof path, "%s/history.csv", tmp);
    FILE *f = fopen(path, "a");
    fputs("4,4,8,1,", f);
    fclose(f);

    /* The state counts two batches: the third row and the partial line go. */
    cr_assert_eq(hist_open(&h, tmp, &st, 2, err, sizeof err), 0, "%s", err);
    hist_close(&h);
    HistData d;
    cr_assert_eq(hist_read(tmp, &st, 100, &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.nrows, 2u);
    cr_assert_eq(d.k[0], 1u);
    cr_assert_eq(d.k[1], 2u);
    hist_data_free(&d);
    char *text = slurp("history.csv");
    size_t lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 3u, "header and two rows:\n%s", text);
    cr_assert_eq(text[strlen(text) - 1], '\n');
    free(text);

    /* hist_read (line by line) ignores a half-written last line, and names
     * the line of one it cannot read. */
    f = fopen(path, "a");
    fputs("3,3,6,1,", f);
    fclose(f);
    cr_assert_eq(hist_read(tmp, &st, 100, &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.nrows, 2u);
    hist_data_free(&d);
    f = fopen(path, "a");
    fputs("x\n", f);
    fclose(f);
    cr_assert_eq(hist_read(tmp, &st, 100, &d, err, sizeof err), -1);
    cr_assert(strstr(err, "history.csv:4: unreadable row"), "%s", err);
    cr_assert_eq(d.nrows, 0u, "a failed read keeps no rows");

    /* A history of other parameters is refused. */
    write_file("history.csv", "row,k,games,wins,losses,draws,elapsed_s,X\n");
    cr_assert_eq(hist_open(&h, tmp, &st, 0, err, sizeof err), -1);
    cr_assert(strstr(err, "header"), "%s", err);
    spsa_free(&st);
}

Test(state, state_round_trips)
{
    RunState rs;
    runstate_init(&rs);
    rs.spsa = small_state();
    SpsaBatch b;
    cr_assert_eq(spsa_batch_begin(&rs.spsa, &b), 1);
    spsa_batch_free(&b);
    conf_set(&rs.conf, "engine", "cmd", "/bin/engine", "test");
    conf_set(&rs.conf, "engine", "option.Hash", "16", "test");
    conf_set(&rs.conf, "concurrency", "", "2", "test");
    rs.fixed = calloc(1, sizeof *rs.fixed);
    snprintf(rs.fixed[0].name, SPSA_NAME_MAX, "Fixed");
    rs.fixed[0].value = -3;
    rs.nfixed = 1;
    rs.order = calloc(3, sizeof *rs.order);
    snprintf(rs.order[0], SPSA_NAME_MAX, "P0");
    snprintf(rs.order[1], SPSA_NAME_MAX, "Fixed");
    snprintf(rs.order[2], SPSA_NAME_MAX, "P1");
    rs.norder = 3;
    rs.games = 12;
    rs.ptnml[2] = 6;
    rs.pairs_issued = 7;
    rs.elapsed = 3.5;
    snprintf(rs.engine, sizeof rs.engine, "Engine 1.0");
    char err[256];
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    char tmpfile[256];
    snprintf(tmpfile, sizeof tmpfile, "%s/state.json.tmp", tmp);
    cr_assert_neq(access(tmpfile, F_OK), 0, "no temporary file is left");

    RunState back;
    cr_assert_eq(runstate_load(&back, tmp, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.games, 12u);
    cr_assert_eq(back.ptnml[2], 6u);
    cr_assert_eq(back.pairs_issued, 7u);
    cr_assert_eq(back.spsa.k, 1u);
    cr_assert_eq(back.spsa.ninflight, 1u, "the batch in flight is kept");
    cr_assert_str_eq(conf_get(&back.conf, "engine", "option.Hash"), "16");
    cr_assert_str_eq(conf_get(&back.conf, "concurrency", ""), "2");
    cr_assert_str_eq(back.engine, "Engine 1.0");
    double v;
    cr_assert_eq(runstate_value(&back, "Fixed", &v, NULL), 0);
    cr_assert_eq(v, -3);
    cr_assert_eq(runstate_value(&back, "P1", &v, NULL), 0);
    cr_assert_eq(v, 10);
    cr_assert_eq(runstate_value(&back, "Nope", &v, NULL), -1);
    cJSON *ex = export_values(&back, "night");
    cJSON *first = cJSON_GetObjectItemCaseSensitive(ex, "params")->child;
    cr_assert_str_eq(first->string, "P0");
    cr_assert_str_eq(first->next->string, "Fixed", "spec order, fixed parameters included");
    cJSON_Delete(ex);
    runstate_free(&back);
    runstate_free(&rs);
}

/* The writer never writes what its reader refuses: a count past 2^53 (a
 * negative count cast to uint64) fails the save, names the field, and the
 * state.json on disk stays as it was. */
Test(state, a_state_its_reader_would_refuse_is_not_written)
{
    RunState rs;
    runstate_init(&rs);
    rs.spsa = small_state();
    conf_set(&rs.conf, "engine", "cmd", "/bin/engine", "test");
    rs.games = 12;
    rs.pairs_issued = 7;
    char err[1024];
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    char *before = slurp("state.json");
    rs.time_losses = (uint64_t)(int64_t)-1;
    rs.games = 14;
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), -1, "a state with time_losses 1.8e19 was written");
    cr_assert(strstr(err, "time_losses") && strstr(err, "state.json"), "%s", err);
    char *after = slurp("state.json");
    cr_assert_str_eq(after, before, "the state on disk changed");
    free(before);
    free(after);
    RunState back;
    cr_assert_eq(runstate_load(&back, tmp, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.games, 12u);
    runstate_free(&back);
    rs.time_losses = 3;
    rs.per_engine[ENG_CRASHES][1] = (uint64_t)(int64_t)-5;
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), -1, "a state with per_engine.crashes 1.8e19 was written");
    runstate_free(&rs);
}

Test(state, settings_from_the_command_line_override_the_file)
{
    RunConf file, cl;
    conf_init(&file);
    conf_init(&cl);
    char err[256];
    cJSON *j = cJSON_Parse("{\"engine\": {\"cmd\": \"a\", \"option\": {\"Hash\": 16}}, \"concurrency\": 4,"
                           " \"params\": {\"file\": \"s.json\", \"only\": [\"X\", \"Y\"]}, \"pgnout\": \"g.pgn\"}");
    cr_assert_eq(conf_from_json(&file, j, "run.json", err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
    char *argv[] = { "-engine", "cmd=b", "-concurrency", "2", "-spsa", "games=100", "pairs-per=2", NULL };
    cr_assert_eq(conf_parse_args(&cl, 7, argv, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(conf_merge(&file, &cl), 0);
    cr_assert_str_eq(conf_get(&file, "engine", "cmd"), "b");
    cr_assert_str_eq(conf_get(&file, "engine", "option.Hash"), "16");
    cr_assert_str_eq(conf_get(&file, "concurrency", ""), "2");
    cr_assert_str_eq(conf_get(&file, "params", "only"), "X,Y");
    cr_assert_str_eq(conf_get(&file, "pgnout", "file"), "g.pgn");
    cr_assert_str_eq(conf_get(&file, "spsa", "pairs-per"), "2");
    cr_assert_str_eq(conf_find(&file, "engine", "option.Hash")->origin, "run.json");
    cr_assert_str_eq(conf_find(&file, "engine", "cmd")->origin, "command line");

    /* Back to JSON and in again: the same settings. */
    cJSON *out = conf_to_json(&file);
    RunConf again;
    conf_init(&again);
    cr_assert_eq(conf_from_json(&again, out, "state", err, sizeof err), 0, "%s", err);
    cJSON_Delete(out);
    cr_assert_eq(again.n, file.n);
    for (size_t i = 0; i < file.n; i++)
        cr_assert_str_eq(conf_get(&again, file.v[i].sec, file.v[i].key), file.v[i].val);

    /* The match runner's words for a section. */
    int argc = 0;
    char **words = NULL;
    cr_assert_eq(conf_section_argv(&file, "engine", "x+", &argc, &words), 2);
    cr_assert_eq(argc, 4);
    cr_assert_str_eq(words[0], "-engine");
    cr_assert_str_eq(words[1], "cmd=b");
    cr_assert_str_eq(words[2], "option.Hash=16");
    cr_assert_str_eq(words[3], "name=x+");
    conf_free_argv(argc, words);
    conf_free(&again);
    conf_free(&file);
    conf_free(&cl);
}

Test(state, settings_errors_name_the_option)
{
    RunConf c;
    conf_init(&c);
    char err[256];
    char *a1[] = { "-spsa", "gamez=3", NULL };
    cr_assert_eq(conf_parse_args(&c, 2, a1, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "spsa.gamez"), "%s", err);
    char *a2[] = { "-colour", "x", NULL };
    cr_assert_eq(conf_parse_args(&c, 2, a2, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "-colour"), "%s", err);
    char *a3[] = { "-concurrency", NULL };
    cr_assert_eq(conf_parse_args(&c, 1, a3, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "-concurrency"), "%s", err);
    static const char *const only_spsa[] = { "spsa", NULL };
    char *a4[] = { "-engine", "cmd=x", NULL };
    cr_assert_eq(conf_parse_args(&c, 2, a4, only_spsa, err, sizeof err), -1);
    cr_assert(strstr(err, "-engine"), "%s", err);
    cJSON *j = cJSON_Parse("{\"params\": {\"file\": \"x\", \"onyl\": \"A\"}}");
    cr_assert_eq(conf_from_json(&c, j, "run.json", err, sizeof err), -1);
    cr_assert(strstr(err, "run.json") && strstr(err, "params.onyl"), "%s", err);
    cJSON_Delete(j);
    write_file("bad.json", "{\"spsa\": {\"games\": 10,}\n");
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", tmp);
    cr_assert_eq(conf_load_file(&c, path, err, sizeof err), -1);
    cr_assert(strstr(err, "bad.json:1:"), "malformed JSON with line and column: %s", err);
    conf_free(&c);
}

Test(state, a_stale_lock_file_does_not_block)
{
    /* A lock file left by a process that died: its pid is in it, no flock. */
    write_file("lock", "999999\n");
    char err[256];
    int fd = rd_lock(tmp, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_assert_eq(rd_lock(tmp, err, sizeof err), -1, "but a live one does");
    rd_unlock(fd);
    fd = rd_lock(tmp, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    rd_unlock(fd);
}

Test(state, atomic_write_replaces_the_whole_file)
{
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/f.json", tmp);
    cr_assert_eq(rd_write_atomic(path, "first version, long\n", 20, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rd_write_atomic(path, "second\n", 7, err, sizeof err), 0, "%s", err);
    char *s = slurp("f.json");
    cr_assert_str_eq(s, "second\n");
    free(s);
    cr_assert_eq(rd_write_atomic("/nonexistent-dir/x", "a", 1, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent-dir/x"), "%s", err);
}


/* state.json with field `key` of spsa.params[0] (or of spsa itself when
 * param is false) replaced by the number text `value`, written raw (1e400
 * reads as inf); a state of form far, so that "m" and "v" are there. */
static void write_state_with(const char *base, bool param, const char *key, const char *value)
{
    cJSON *j = cJSON_Parse(base);
    cr_assert_not_null(j);
    cJSON *spsa = cJSON_GetObjectItemCaseSensitive(j, "spsa");
    cJSON *o = param ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(spsa, "params"), 0) : spsa;
    cr_assert(cJSON_GetObjectItemCaseSensitive(o, key), "the state has no %s", key);
    cr_assert(cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateRaw(value)));
    char *text = cJSON_Print(j);
    write_file("state.json", text);
    free(text);
    cJSON_Delete(j);
}

/* The reader restores a parameter's start, avg, m and the state's v as the
 * file holds them.  A start outside the parameter's [min, max] reached the
 * engine (validation plays the start values); an m, avg or v of 1e400
 * (inf) or -1e400 was taken, and the next save failed as "malformed JSON".
 * Each is refused, naming state.json and the field; the state as written
 * still loads. */
Test(state, a_start_out_of_range_or_a_moment_that_is_not_finite_is_refused)
{
    RunState rs;
    runstate_init(&rs);
    SpsaState st = small_state();
    SpsaParam ps[2];
    memcpy(ps, st.params, sizeof ps);
    SpsaConfig cfg = st.cfg;
    spsa_free(&st);
    spsa_config_set_form(&cfg, SPSA_FORM_RMS);
    char err[1024];
    cr_assert_eq(spsa_init(&rs.spsa, ps, 2, &cfg, 1, err, sizeof err), 0, "%s", err);
    conf_set(&rs.conf, "engine", "cmd", "/bin/engine", "test");
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    runstate_free(&rs);
    char *good = slurp("state.json");
    static const struct { bool param; const char *key, *value; } bad[] = {
        { true, "start", "1e6" },   { true, "start", "-1" },     { true, "start", "20.5" },
        { true, "start", "1e400" }, { true, "avg", "1e400" },    { true, "avg", "-1e400" },
        { true, "m", "1e400" },     { true, "m", "-1e400" },     { false, "v", "1e400" },
        { false, "v", "-1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_state_with(good, bad[i].param, bad[i].key, bad[i].value);
        RunState back;
        err[0] = '\0';
        int rc = runstate_load(&back, tmp, err, sizeof err);
        runstate_free(&back);
        char field[32];
        snprintf(field, sizeof field, "\"%s\"", bad[i].key);
        cr_expect_eq(rc, -1, "%s %s was taken", bad[i].key, bad[i].value);
        cr_expect(strstr(err, "state.json") && strstr(err, field), "%s %s: %s", bad[i].key, bad[i].value, err);
    }
    /* A budget that wraps the counts: 2^53 iterations of 1999999999 pairs. */
    cJSON *j = cJSON_Parse(good);
    cJSON *cfgj = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "spsa"), "config");
    cr_assert_not_null(cfgj);
    cJSON_ReplaceItemInObjectCaseSensitive(cfgj, "iterations", cJSON_CreateNumber(9007199254740992.0));
    cJSON_ReplaceItemInObjectCaseSensitive(cfgj, "pairs_per", cJSON_CreateNumber(1999999999));
    char *wrapped = cJSON_Print(j);
    cJSON_Delete(j);
    write_file("state.json", wrapped);
    free(wrapped);
    {
        RunState back;
        cr_expect_eq(runstate_load(&back, tmp, err, sizeof err), -1, "a wrapping budget was taken");
        cr_expect(strstr(err, "state.json") && strstr(err, "beyond any run's budget"), "%s", err);
        runstate_free(&back);
    }
    write_file("state.json", good);
    RunState back;
    cr_assert_eq(runstate_load(&back, tmp, err, sizeof err), 0, "%s", err);
    runstate_free(&back);
    free(good);
}

/* Run counters no run could have counted (games 1e15, more games than
 * pairs handed out, more pentanomial pairs or failures than games) are
 * refused by name, not shown as they are. */
Test(state, run_counters_that_disagree_are_refused)
{
    RunState rs;
    runstate_init(&rs);
    rs.spsa = small_state();
    conf_set(&rs.conf, "engine", "cmd", "/bin/engine", "test");
    rs.games = 40;
    rs.pairs_issued = 22;
    rs.ptnml[2] = 20;
    rs.crashes = 1;
    char err[1024];
    cr_assert_eq(runstate_save(&rs, tmp, err, sizeof err), 0, "%s", err);
    runstate_free(&rs);
    char *good = slurp("state.json");
    static const char *const bad[][2] = { { "games", "1e15" }, { "games", "46" }, { "ptnml", "[0,0,21,0,0]" },
                                          { "time_losses", "41" }, { "crashes", "41" }, { "illegal", "41" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *j = cJSON_Parse(good);
        cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
        cr_assert(cJSON_ReplaceItemInObjectCaseSensitive(run, bad[i][0], cJSON_Parse(bad[i][1])));
        char *text = cJSON_Print(j);
        cJSON_Delete(j);
        write_file("state.json", text);
        free(text);
        RunState back;
        err[0] = '\0';
        int rc = runstate_load(&back, tmp, err, sizeof err);
        runstate_free(&back);
        cr_expect_eq(rc, -1, "run.%s %s was taken", bad[i][0], bad[i][1]);
        cr_expect(strstr(err, "state.json") && strstr(err, "the counters disagree"), "%s %s: %s", bad[i][0],
                  bad[i][1], err);
    }
    write_file("state.json", good);
    RunState back;
    cr_assert_eq(runstate_load(&back, tmp, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.games, 40u);
    runstate_free(&back);
    free(good);
}

/* A state.json far larger than any run writes (a sparse 3 GB file took 6 s
 * and 3 GB of memory to refuse) is refused at once by its size, and one
 * with a NUL byte, which would have ended the text early and silently, is
 * refused naming the offset. */
Test(state, a_huge_or_nul_state_is_refused_by_name)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/%s", tmp, STATE_FILE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)3 << 30), 0);
    close(fd);
    RunState rs;
    runstate_init(&rs);
    time_t t0 = time(NULL);
    cr_assert_lt(runstate_load(&rs, tmp, err, sizeof err), 0);
    cr_assert(strstr(err, STATE_FILE) && strstr(err, "larger than"), "%s", err);
    cr_assert_leq(time(NULL) - t0, 2, "refused by its size, not read");
    runstate_free(&rs);

    static const char text[] = "{\"version\": 1}\0{\"junk\": 2}";
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose(f);
    runstate_init(&rs);
    cr_assert_lt(runstate_load(&rs, tmp, err, sizeof err), 0);
    cr_assert(strstr(err, STATE_FILE) && strstr(err, "NUL byte at offset 14"), "%s", err);
    runstate_free(&rs);
}

/* The "updated" line of a state's text taken out (the only line two writes
 * of one state may differ in). */
static void drop_updated(char *text)
{
    char *p = strstr(text, "\"updated\"");
    cr_assert_not_null(p);
    char *e = strchr(p, '\n');
    cr_assert_not_null(e);
    memmove(p, e, strlen(e) + 1);
}

static void assert_same_text(const char *what, char *a, char *b)
{
    drop_updated(a);
    drop_updated(b);
    if (strcmp(a, b) != 0) {
        size_t k = 0;
        while (a[k] && a[k] == b[k])
            k++;
        cr_assert_fail("%s: the second write differs at byte %zu: ...%.80s... against ...%.80s...", what, k,
                       a + (k > 20 ? k - 20 : 0), b + (k > 20 ? k - 20 : 0));
    }
}

/* A state written by a run, read and written again, is byte for byte what
 * the run wrote ("updated" aside): every field written is read back into
 * its own place.  The run's file comes from its state in memory, so a field
 * the reader drops or puts elsewhere shows (tried: "wins" read into
 * "draws" fails).  The same holds for the states in the tree, each written
 * twice by this build (a finished settle run, a night at a node clock with
 * validation, a night in progress, the oldest format). */
Test(state, a_state_written_read_and_written_again_is_the_same)
{
    Args a = fake_run_args("r", 40, 0, 2);
    add(&a, "-validate");
    add(&a, "games=4");
    cr_assert_eq(run_to_end(run_main, &a, "log"), 0, "%s", slurp("log"));
    char *written = slurp("r/" STATE_FILE);
    RunState rs;
    char err[1024], dir[256];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    cr_assert_eq(runstate_load(&rs, dir, err, sizeof err), 0, "%s", err);
    char *again = runstate_text(&rs);
    runstate_free(&rs);
    assert_same_text("a run's state.json", written, again);
    free(written);
    free(again);

    static const char *const dirs[] = { "tests/golden/status-run", "docs/results/runs/night3",
                                        "docs/results/runs/night4", "tests/data/state_v1" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        cr_assert_eq(runstate_load(&rs, dirs[i], err, sizeof err), 0, "%s: %s", dirs[i], err);
        char *t1 = runstate_text(&rs);
        cr_assert_not_null(t1);
        write_file(STATE_FILE, t1);
        runstate_free(&rs);
        cr_assert_eq(runstate_load(&rs, tmp, err, sizeof err), 0, "%s rewritten: %s", dirs[i], err);
        char *t2 = runstate_text(&rs);
        cr_assert_not_null(t2);
        runstate_free(&rs);
        assert_same_text(dirs[i], t1, t2);
        free(t1);
        free(t2);
    }
}
