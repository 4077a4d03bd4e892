/* Value files (engine/paramfile.c), `bin/ratchet --params`, `setoption name
 * ParamsFile`, bin/ratchet-bake, params/engine.json, and baked builds that
 * must search exactly like the runtime engine given the same values.
 *
 * The baked engines come from `make baked-test-engines` (part of `make
 * test`): build/params-test/{defaults,moved-all,moved-live}/ratchet, baked
 * from the value files of the same names there. */
#include <criterion/criterion.h>

#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "helpers.h"
#include "paramfile.h"
#include "params.h"

#define ENGINE "bin/ratchet"
#define BAKE "bin/ratchet-bake"
#define TEST_DIR "build/params-test"
#define SPEC_FILE "params/engine.json"

static char tmpdir[64];

static void setup(void)
{
    strcpy(tmpdir, "/tmp/ratchet-pf-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir), "cannot create a temporary directory");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    if (tmpdir[0])
        nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- Helpers ------------------------------------------------------------- */

/* Writes len bytes to tmpdir/name; path receives the file's path. */
static void put_bytes(char *path, size_t size, const char *name, const char *text, size_t len)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static void put_text(char *path, size_t size, const char *name, const char *text)
{
    put_bytes(path, size, name, text, strlen(text));
}


/* Runs a shell command with `input` on stdin; returns its exit code (-1 if
 * it died from a signal) and its stdout and stderr (malloc'd). */
static int run(const char *cmd, const char *input, char **out, char **err)
{
    char in_path[128], out_path[128], err_path[128], line[2048];
    put_text(in_path, sizeof in_path, "stdin.txt", input ? input : "");
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", tmpdir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmpdir);
    snprintf(line, sizeof line, "%s < %s > %s 2> %s", cmd, in_path, out_path, err_path);
    int status = system(line);
    cr_assert_neq(status, -1, "cannot run %s", cmd);
    *out = read_text(out_path);
    *err = read_text(err_path);
    cr_assert(*out && *err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void need(const char *path, const char *how)
{
    cr_assert(access(path, X_OK) == 0, "%s is missing: run `%s` first", path, how);
}

/* Node count from bench's last line, `N nodes M nps`. */
static uint64_t bench_nodes(const char *engine, const char *args, int depth)
{
    char cmd[512], *out, *err;
    snprintf(cmd, sizeof cmd, "%s %s bench %d", engine, args, depth);
    int rc = run(cmd, NULL, &out, &err);
    cr_assert_eq(rc, 0, "`%s` failed (%d): %s", cmd, rc, err);
    uint64_t nodes = 0, nps = 0;
    size_t len = strlen(out);
    while (len > 0 && out[len - 1] == '\n')
        out[--len] = '\0';
    char *last = strrchr(out, '\n');
    last = last ? last + 1 : out;
    cr_assert_eq(sscanf(last, "%" SCNu64 " nodes %" SCNu64 " nps", &nodes, &nps), 2,
                 "`%s`: last line \"%s\" is not `N nodes M nps`", cmd, last);
    free(out);
    free(err);
    cr_assert_gt(nodes, 0);
    return nodes;
}

/* ---- Bad input: one table for the loader, the engine, UCI and the bake
 * tool.  `expect` is part of the message. */

typedef struct {
    char name[32];
    char text[256];
    size_t len; /* 0: strlen(text) */
    char expect[160];
} BadCase;

static int bad_cases(BadCase *c)
{
    const ParamSpec *lmr = &param_specs[PARAM_ID_LmrQuietBase];
    int n = 0;
#define CASE(nm, txt, exp)                                                                   \
    do {                                                                                     \
        c[n] = (BadCase){.len = 0};                                                          \
        snprintf(c[n].name, sizeof c[n].name, "%s", nm);                                     \
        snprintf(c[n].text, sizeof c[n].text, "%s", txt);                                    \
        snprintf(c[n].expect, sizeof c[n].expect, "%s", exp);                                \
        n++;                                                                                 \
    } while (0)
    CASE("empty", "", ": empty file");
    CASE("blank", " \n\t\n", ": empty file");
    CASE("trailing_comma", "{\n  \"params\": {\n    \"LmrQuietBase\": 120,\n  }\n}\n",
         ":4:4: malformed JSON near '}'");
    CASE("truncated", "{\"params\": {\"LmrQuietBase\": 12",
         ":1:31: malformed JSON: unexpected end of file");
    CASE("garbage_after", "{\"params\": {}} }", ":1:16: malformed JSON near");
    CASE("root_number", "42", ": expected a JSON object with a \"params\" member, got 42");
    CASE("no_params", "{\"source\": \"by hand\"}", ": no \"params\" member");
    CASE("params_string", "{\"params\": \"LmrQuietBase=120\"}",
         ": \"params\" must be an object of \"Name\": integer members or an array of parameter "
         "objects, got the string \"LmrQuietBase=120\"");
    CASE("games_string", "{\"games\": \"many\", \"params\": {}}",
         ": \"games\" must be a non-negative integer, got the string \"many\"");
    CASE("source_number", "{\"source\": 7, \"params\": {}}", ": \"source\" must be a string, got 7");
    CASE("misplaced", "{\"params\": {}, \"LmrQuietBase\": 120}",
         ": \"LmrQuietBase\" is a parameter: put it inside \"params\"");
    CASE("fraction", "{\"params\": {\"LmrQuietBase\": 1.5}}",
         ": params.LmrQuietBase: 1.5 is not an integer");
    CASE("string_value", "{\"params\": {\"LmrQuietBase\": \"3\"}}",
         ": params.LmrQuietBase: expected an integer, got the string \"3\"");
    CASE("bool_value", "{\"params\": {\"LmrQuietBase\": true}}",
         ": params.LmrQuietBase: expected an integer, got true");
    CASE("null_value", "{\"params\": {\"LmrQuietBase\": null}}",
         ": params.LmrQuietBase: expected an integer, got null");
    CASE("huge", "{\"params\": {\"LmrQuietBase\": 1e12}}",
         ": params.LmrQuietBase: 1000000000000 is outside the range of an integer");
    CASE("typo", "{\"params\": {\"LmrQuietBse\": 120}}",
         ": params.LmrQuietBse: unknown parameter \"LmrQuietBse\" (did you mean LmrQuietBase?)");
    CASE("unknown", "{\"params\": {\"Xyzzy\": 1}}",
         ": params.Xyzzy: unknown parameter \"Xyzzy\" (`bin/ratchet params` lists them)");
    CASE("twice", "{\"params\": {\"LmrQuietBase\": 120, \"lmrquietbase\": 121}}",
         ": params.lmrquietbase: LmrQuietBase is given twice");
    CASE("spec_item", "[3]", ": [0]: expected an object with \"name\" and \"value\", got 3");
    CASE("spec_no_value", "{\"params\": [{\"name\": \"LmrQuietBase\"}]}",
         ": params[0] (LmrQuietBase): no \"value\" member");
    CASE("spec_name_type", "[{\"name\": 5, \"value\": 1}]", ": [0]: \"name\" must be a string, got 5");
    CASE("spec_fraction", "[{\"name\": \"LmrQuietBase\", \"value\": 2.25}]",
         ": [0] (LmrQuietBase): 2.25 is not an integer");

    char text[256], expect[160];
    snprintf(text, sizeof text, "{\"params\": {\"LmrQuietBase\": %d}}", lmr->max + 1);
    snprintf(expect, sizeof expect, ": params.LmrQuietBase: %d is outside [%d, %d]", lmr->max + 1,
             lmr->min, lmr->max);
    CASE("above_max", text, expect);
    snprintf(text, sizeof text, "{\"params\": {\"LmrQuietBase\": %d}}", lmr->min - 1);
    snprintf(expect, sizeof expect, ": params.LmrQuietBase: %d is outside [%d, %d]", lmr->min - 1,
             lmr->min, lmr->max);
    CASE("below_min", text, expect);

    /* A NUL byte inside the text. */
    CASE("nul_byte", "{\"params\":\n {}", ":2:4: a NUL byte: not a JSON text file");
    c[n - 1].text[14] = '\0';
    c[n - 1].text[15] = '}';
    c[n - 1].len = 16;
#undef CASE
    return n;
}

/* Writes the case to tmpdir/<name>.json. */
static void put_case(char *path, size_t size, const BadCase *c)
{
    char name[64];
    snprintf(name, sizeof name, "%.40s.json", c->name);
    put_bytes(path, size, name, c->text, c->len ? c->len : strlen(c->text));
}

/* The message the loader gives for the file at path (it must fail). */
static void loader_message(const char *path, char *err, size_t errlen)
{
    int values[PARAM_COUNT];
    err[0] = '\0';
    cr_assert_eq(paramfile_load(path, values, NULL, err, errlen), -1, "%s was accepted", path);
}

/* ---- The loader ---------------------------------------------------------- */

TestSuite(paramfile, .init = setup, .fini = teardown, .timeout = 120);

Test(paramfile, bad_input_rejected_with_file_and_problem)
{
    BadCase cases[40];
    int n = bad_cases(cases);
    for (int k = 0; k < n; k++) {
        char path[128], err[512];
        put_case(path, sizeof path, &cases[k]);
        int values[PARAM_COUNT];
        bool given[PARAM_COUNT];
        for (int i = 0; i < PARAM_COUNT; i++)
            values[i] = -12345, given[i] = true;
        int rc = paramfile_load(path, values, given, err, sizeof err);
        cr_expect_eq(rc, -1, "%s: accepted", cases[k].name);
        cr_expect(strncmp(err, path, strlen(path)) == 0, "%s: message \"%s\" should start with %s",
                  cases[k].name, err, path);
        cr_expect(strstr(err, cases[k].expect) != NULL, "%s: message \"%s\" should contain \"%s\"",
                  cases[k].name, err, cases[k].expect);
        for (int i = 0; i < PARAM_COUNT; i++)
            cr_expect(values[i] == -12345 && given[i], "%s: output changed on error", cases[k].name);
    }
}

Test(paramfile, missing_file_and_directory)
{
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/nowhere.json", tmpdir);
    loader_message(path, err, sizeof err);
    cr_expect(strstr(err, path) && strstr(err, "cannot open"), "%s", err);
    loader_message(tmpdir, err, sizeof err);
    cr_expect(strstr(err, tmpdir) && strstr(err, "Is a directory"), "%s", err);
}

Test(paramfile, several_problems_are_counted)
{
    char path[128], err[512];
    put_text(path, sizeof path, "many.json",
        "{\"games\": -1, \"params\": {\"Xyzzy\": 1, \"LmrQuietBase\": 0.5, \"LmpBase\": 3}}");
    loader_message(path, err, sizeof err);
    cr_expect(strstr(err, "\"games\" must be a non-negative integer, got -1 (and 2 more problems)"),
              "%s", err);
}

Test(paramfile, subset_gives_defaults_for_the_rest)
{
    char path[128], err[512];
    const ParamSpec *a = &param_specs[PARAM_ID_LmrQuietBase], *b = &param_specs[PARAM_ID_LmpBase];
    char text[256];
    int va = a->def == a->max ? a->def - 1 : a->def + 1, vb = b->min;
    snprintf(text, sizeof text,
             "{\"source\": \"runs/x\", \"games\": 4000, \"date\": \"2024-05-01\", \"comment\": "
             "\"by hand\", \"iterations\": 10, \"anything\": [1, {}],\n"
             " \"params\": {\"lmrquietbase\": %d, \"LmpBase\": %d}}",
             va, vb);
    put_text(path, sizeof path, "subset.json", text);
    int values[PARAM_COUNT];
    bool given[PARAM_COUNT];
    cr_assert_eq(paramfile_load(path, values, given, err, sizeof err), 2, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++) {
        bool named = i == PARAM_ID_LmrQuietBase || i == PARAM_ID_LmpBase;
        cr_expect_eq(given[i], named, "%s", param_specs[i].name);
        if (!named)
            cr_expect_eq(values[i], param_specs[i].def, "%s", param_specs[i].name);
    }
    cr_expect_eq(values[PARAM_ID_LmrQuietBase], va);
    cr_expect_eq(values[PARAM_ID_LmpBase], vb);
}

Test(paramfile, spec_format_is_a_value_file)
{
    const char *texts[] = {
        "[{\"name\": \"LmrQuietBase\", \"value\": 111, \"min\": 0, \"max\": 9},"
        " {\"name\": \"LmpBase\", \"default\": 222}]",
        "{\"engine\": \"ratchet\", \"baked\": false, \"params\": [{\"name\": \"LmrQuietBase\","
        " \"value\": 111, \"default\": 5}, {\"name\": \"LmpBase\", \"default\": 222}]}",
    };
    for (int k = 0; k < 2; k++) {
        char path[128], err[512];
        int values[PARAM_COUNT];
        put_text(path, sizeof path, "spec.json", texts[k]);
        cr_assert_eq(paramfile_load(path, values, NULL, err, sizeof err), 2, "%d: %s", k, err);
        cr_expect_eq(values[PARAM_ID_LmrQuietBase], 111, "\"value\" wins over \"default\"");
        cr_expect_eq(values[PARAM_ID_LmpBase], 222, "\"default\" when there is no \"value\"");
        cr_expect_eq(values[PARAM_ID_LmrQuietDivisor], param_specs[PARAM_ID_LmrQuietDivisor].def);
    }
}

Test(paramfile, parse_from_memory_names_the_source)
{
    char err[512];
    int values[PARAM_COUNT];
    const char *text = "{\"params\": {\"Xyzzy\": 1}}";
    cr_assert_eq(paramfile_parse(text, strlen(text), "inline", values, NULL, err, sizeof err), -1);
    cr_expect(strncmp(err, "inline: params.Xyzzy", 20) == 0, "%s", err);
    text = "{\"params\": {}}";
    cr_expect_eq(paramfile_parse(text, strlen(text), "inline", values, NULL, err, sizeof err), 0);
}

Test(paramfile, nearest_name)
{
    cr_expect_str_eq(paramfile_nearest("LmrQuietBse"), "LmrQuietBase");
    cr_expect_str_eq(paramfile_nearest("lmrquietbase"), "LmrQuietBase");
    cr_expect_str_eq(paramfile_nearest("LmrQuietBaseX"), "LmrQuietBase");
    cr_expect_null(paramfile_nearest("Xyzzy"));
    cr_expect_null(paramfile_nearest(""));
}

Test(paramfile, tag_is_fnv1a_of_the_bytes)
{
    char tag[PARAMFILE_TAG_LEN];
    /* FNV-1a 64-bit test vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c. */
    paramfile_tag("", 0, tag);
    cr_expect_str_eq(tag, "cbf29ce4");
    paramfile_tag("a", 1, tag);
    cr_expect_str_eq(tag, "af63dc4c");
    paramfile_tag("{\"params\": {}}", 14, tag);
    char other[PARAMFILE_TAG_LEN];
    paramfile_tag("{\"params\": {} }", 15, other);
    cr_expect_str_neq(tag, other);
}

/* Every parameter moved by a quarter of its range, as the tests below use. */
static void moved_values(int *v)
{
    for (int i = 0; i < PARAM_COUNT; i++) {
        const ParamSpec *s = &param_specs[i];
        int d = (s->max - s->min) / 4 > 0 ? (s->max - s->min) / 4 : 1;
        v[i] = s->def + d <= s->max ? s->def + d : s->def - d;
    }
}

static void put_values(char *path, size_t size, const char *name, const int *v)
{
    cJSON *root = cJSON_CreateObject(), *params = cJSON_AddObjectToObject(root, "params");
    for (int i = 0; i < PARAM_COUNT; i++)
        cJSON_AddNumberToObject(params, param_specs[i].name, v[i]);
    char *text = cJSON_Print(root);
    put_text(path, size, name, text);
    cJSON_free(text);
    cJSON_Delete(root);
}

Test(paramfile, apply_is_all_or_nothing)
{
    char path[128], err[512];
    int moved[PARAM_COUNT];
    moved_values(moved);
    put_values(path, sizeof path, "moved.json", moved);
    cr_assert_eq(paramfile_apply(path, err, sizeof err), PARAM_COUNT, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(param_get(i), moved[i], "%s", param_specs[i].name);

    /* A good value next to a bad one: nothing changes. */
    const ParamSpec *b = &param_specs[PARAM_ID_LmpBase];
    char text[256];
    snprintf(text, sizeof text, "{\"params\": {\"LmpBase\": %d, \"LmrQuietBase\": 1.5}}",
             moved[PARAM_ID_LmpBase] == b->min ? b->max : b->min);
    put_text(path, sizeof path, "half.json", text);
    cr_assert_eq(paramfile_apply(path, err, sizeof err), -1);
    cr_expect(strstr(err, "params.LmrQuietBase: 1.5 is not an integer"), "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(param_get(i), moved[i], "%s changed by a rejected file", param_specs[i].name);

    /* A subset: the parameters it does not name go back to their defaults. */
    put_text(path, sizeof path, "one.json", "{\"params\": {\"LmpBase\": 100}}");
    cr_assert_eq(paramfile_apply(path, err, sizeof err), 1, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(param_get(i), i == PARAM_ID_LmpBase ? 100 : param_specs[i].def, "%s",
                     param_specs[i].name);
    params_reset();
}

Test(paramfile, spec_json_loads_back)
{
    char path[128], err[512];
    int moved[PARAM_COUNT];
    moved_values(moved);
    put_values(path, sizeof path, "moved.json", moved);
    cr_assert_eq(paramfile_apply(path, err, sizeof err), PARAM_COUNT, "%s", err);
    char *spec = params_spec_json();
    cr_assert_not_null(spec);
    put_text(path, sizeof path, "spec.json", spec);
    free(spec);
    params_reset();
    cr_assert_eq(paramfile_apply(path, err, sizeof err), PARAM_COUNT, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(param_get(i), moved[i], "%s", param_specs[i].name);
    params_reset();
}

/* ---- The engine and the bake tool as programs ---------------------------- */

TestSuite(paramfile_cli, .init = setup, .fini = teardown, .timeout = 120);

Test(paramfile_cli, engine_rejects_bad_files)
{
    need(ENGINE, "make");
    BadCase cases[40];
    int n = bad_cases(cases);
    for (int k = 0; k <= n; k++) {
        char path[128], msg[512], cmd[256], *out, *err;
        if (k < n)
            put_case(path, sizeof path, &cases[k]);
        else
            snprintf(path, sizeof path, "%s/missing.json", tmpdir);
        loader_message(path, msg, sizeof msg);
        snprintf(cmd, sizeof cmd, "%s --params %s params", ENGINE, path);
        int rc = run(cmd, NULL, &out, &err);
        cr_expect_eq(rc, 1, "%s: exit code %d", path, rc);
        cr_expect(strstr(err, msg) != NULL, "%s: stderr \"%s\" should hold \"%s\"", path, err, msg);
        cr_expect_str_empty(out, "%s: the engine printed \"%s\"", path, out);
        free(out);
        free(err);
    }
}

Test(paramfile_cli, bake_rejects_bad_files)
{
    need(BAKE, "make");
    BadCase cases[40];
    int n = bad_cases(cases);
    char header[128];
    snprintf(header, sizeof header, "%s/params_baked.h", tmpdir);
    for (int k = 0; k <= n; k++) {
        char path[128], msg[512], cmd[384], *out, *err;
        if (k < n)
            put_case(path, sizeof path, &cases[k]);
        else
            snprintf(path, sizeof path, "%s/missing.json", tmpdir);
        loader_message(path, msg, sizeof msg);
        snprintf(cmd, sizeof cmd, "%s %s %s", BAKE, path, header);
        int rc = run(cmd, NULL, &out, &err);
        cr_expect_eq(rc, 1, "%s: exit code %d", path, rc);
        cr_expect(strstr(err, msg) != NULL, "%s: stderr \"%s\" should hold \"%s\"", path, err, msg);
        cr_expect_neq(access(header, F_OK), 0, "%s: a header was written", path);
        free(out);
        free(err);
    }
}

/* The `option name LmrQuietBase ... default V` value of each `uci` answer. */
static int uci_values(const char *out, int *v, int max)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, "option name LmrQuietBase type spin default ")); p++)
        if (n < max)
            v[n++] = atoi(p + strlen("option name LmrQuietBase type spin default "));
    return n;
}

Test(paramfile_cli, uci_paramsfile_keeps_values_on_error)
{
    need(ENGINE, "make");
    const ParamSpec *a = &param_specs[PARAM_ID_LmrQuietBase];
    int good_value = a->def == a->max ? a->min : a->max;
    char good[128], text[128];
    snprintf(text, sizeof text, "{\"params\": {\"LmrQuietBase\": %d}}", good_value);
    put_text(good, sizeof good, "good.json", text);

    BadCase cases[40];
    int n = bad_cases(cases);
    char *input = malloc(64 * 1024), msgs[40][512];
    size_t len = (size_t)sprintf(input, "uci\nsetoption name ParamsFile value %s\nuci\n", good);
    for (int k = 0; k < n; k++) {
        char path[128];
        put_case(path, sizeof path, &cases[k]);
        loader_message(path, msgs[k], sizeof msgs[k]);
        len += (size_t)sprintf(input + len, "setoption name ParamsFile value %s\n", path);
    }
    sprintf(input + len, "uci\nquit\n");

    char *out, *err;
    cr_assert_eq(run(ENGINE, input, &out, &err), 0, "%s", err);
    int v[4];
    cr_assert_eq(uci_values(out, v, 4), 3, "three `uci` answers with LmrQuietBase:\n%s", out);
    cr_expect_eq(v[0], a->def);
    cr_expect_eq(v[1], good_value, "ParamsFile applied the good file");
    cr_expect_eq(v[2], good_value, "the bad files left the values alone");
    cr_expect(strstr(out, "option name ParamsFile type string"), "ParamsFile is advertised");
    for (int k = 0; k < n; k++) {
        char want[600];
        snprintf(want, sizeof want, "info string %.511s", msgs[k]);
        cr_expect(strstr(out, want) != NULL, "%s: no \"%s\" in the output", cases[k].name, want);
    }
    free(input);
    free(out);
    free(err);
}

/* `bin/ratchet [--params FILE] params`; the output (malloc'd). */
static char *engine_params(const char *file)
{
    char cmd[256], *out, *err;
    snprintf(cmd, sizeof cmd, "%s %s%s params", ENGINE, file ? "--params " : "", file ? file : "");
    int rc = run(cmd, NULL, &out, &err);
    cr_assert_eq(rc, 0, "`%s` failed: %s", cmd, err);
    free(err);
    return out;
}

Test(paramfile_cli, params_round_trip)
{
    need(ENGINE, "make");
    char path[128], err[512];
    char *first = engine_params(NULL);
    put_text(path, sizeof path, "first.json", first);
    char *again = engine_params(path);
    cr_expect_str_eq(again, first, "defaults: params -> --params -> params differs");

    int moved[PARAM_COUNT], got[PARAM_COUNT];
    moved_values(moved);
    put_values(path, sizeof path, "moved.json", moved);
    char *spec = engine_params(path);
    cr_expect_str_neq(spec, first, "--params changed nothing");
    cr_assert_eq(paramfile_parse(spec, strlen(spec), "params output", got, NULL, err, sizeof err),
                 PARAM_COUNT, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(got[i], moved[i], "%s", param_specs[i].name);
    put_text(path, sizeof path, "spec.json", spec);
    char *spec_again = engine_params(path);
    cr_expect_str_eq(spec_again, spec, "moved: params -> --params -> params differs");
    free(first);
    free(again);
    free(spec);
    free(spec_again);
}

Test(paramfile_cli, committed_spec_matches_the_engine)
{
    need(ENGINE, "make");
    char *committed = read_text(SPEC_FILE);
    cr_assert_not_null(committed, "cannot read %s", SPEC_FILE);
    char *printed = engine_params(NULL);
    cr_expect_str_eq(committed, printed,
                     "%s differs from `bin/ratchet params`: if the parameter list changed on "
                     "purpose, run `bin/ratchet params > %s`",
                     SPEC_FILE, SPEC_FILE);
    free(committed);
    free(printed);
}

/* The tag `ratchet-bake --tag` prints for the file. */
static void bake_tag(const char *path, char tag[PARAMFILE_TAG_LEN])
{
    char cmd[256], *out, *err;
    snprintf(cmd, sizeof cmd, "%s --tag %s", BAKE, path);
    cr_assert_eq(run(cmd, NULL, &out, &err), 0, "%s", err);
    cr_assert_eq(strlen(out), PARAMFILE_TAG_LEN, "tag line \"%s\"", out);
    memcpy(tag, out, PARAMFILE_TAG_LEN - 1);
    tag[PARAMFILE_TAG_LEN - 1] = '\0';
    free(out);
    free(err);
}

Test(paramfile_cli, bake_writes_header_only_when_changed)
{
    need(BAKE, "make");
    const ParamSpec *a = &param_specs[PARAM_ID_LmrQuietBase];
    int value = a->def == a->max ? a->min : a->max;
    char path[128], header[128], text[256], cmd[384], *out, *err;
    snprintf(text, sizeof text, "{\"source\": \"test\", \"params\": {\"LmrQuietBase\": %d}}", value);
    put_text(path, sizeof path, "v.json", text);
    snprintf(header, sizeof header, "%s/params_baked.h", tmpdir);
    snprintf(cmd, sizeof cmd, "%s %s %s", BAKE, path, header);
    cr_assert_eq(run(cmd, NULL, &out, &err), 0, "%s", err);
    free(out);
    free(err);

    char tag[PARAMFILE_TAG_LEN], want[128];
    paramfile_tag(text, strlen(text), tag);
    char *h = read_text(header);
    cr_assert_not_null(h);
    snprintf(want, sizeof want, "#define PARAMS_BAKED_TAG \"%s\"\n", tag);
    cr_expect(strstr(h, want), "no %s in\n%s", want, h);
    for (int i = 0; i < PARAM_COUNT; i++) {
        int v = i == PARAM_ID_LmrQuietBase ? value : param_specs[i].def;
        snprintf(want, sizeof want, v < 0 ? "#define BAKED_%s (%d)" : "#define BAKED_%s %d",
                 param_specs[i].name, v);
        const char *at = strstr(h, want);
        cr_expect(at && (at[strlen(want)] == '\n' || at[strlen(want)] == ' '), "no \"%s\"", want);
    }
    char shown[PARAMFILE_TAG_LEN];
    bake_tag(path, shown);
    cr_expect_str_eq(shown, tag);

    /* The same values again: the header is left alone (same inode and time). */
    struct stat before, after;
    cr_assert_eq(stat(header, &before), 0);
    usleep(20000);
    cr_assert_eq(run(cmd, NULL, &out, &err), 0, "%s", err);
    cr_assert_eq(stat(header, &after), 0);
    cr_expect(before.st_ino == after.st_ino && before.st_mtim.tv_sec == after.st_mtim.tv_sec
                  && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec,
              "an unchanged header was rewritten");
    free(out);
    free(err);

    /* New values: a new header with a new tag. */
    snprintf(text, sizeof text, "{\"params\": {\"LmrQuietBase\": %d}}", a->def);
    put_text(path, sizeof path, "v.json", text);
    cr_assert_eq(run(cmd, NULL, &out, &err), 0, "%s", err);
    free(out);
    free(err);
    char *h2 = read_text(header);
    cr_assert_not_null(h2);
    char tag2[PARAMFILE_TAG_LEN];
    paramfile_tag(text, strlen(text), tag2);
    cr_expect_str_neq(tag2, tag);
    snprintf(want, sizeof want, "#define PARAMS_BAKED_TAG \"%s\"\n", tag2);
    cr_expect(strstr(h2, want), "no %s in\n%s", want, h2);
    free(h);
    free(h2);

    cr_expect_eq(run(BAKE, NULL, &out, &err), 2, "no arguments is a usage error");
    cr_expect(strstr(err, "usage"), "%s", err);
    free(out);
    free(err);
}

/* ---- Baked builds -------------------------------------------------------- */

TestSuite(baked, .init = setup, .fini = teardown, .timeout = 120);

static void baked_paths(const char *v, char *engine, char *values)
{
    sprintf(engine, "%s/%s/ratchet", TEST_DIR, v);
    sprintf(values, "%s/%s.json", TEST_DIR, v);
    need(engine, "make baked-test-engines");
    cr_assert(access(values, R_OK) == 0, "%s is missing: run `make baked-test-engines`", values);
}

/* The baked engine and `bin/ratchet --params` with the same file: the same
 * bench node count. */
static uint64_t same_bench(const char *v, int depth)
{
    need(ENGINE, "make");
    char engine[128], values[128], args[160];
    baked_paths(v, engine, values);
    snprintf(args, sizeof args, "--params %s", values);
    uint64_t baked = bench_nodes(engine, "", depth);
    uint64_t runtime = bench_nodes(ENGINE, args, depth);
    /* make builds bin/ratchet but not these engines: after a source change
     * (an evaluation refit too) only `make baked-test-engines`, which `make
     * test` runs first, brings them up to date. */
    cr_expect_eq(baked, runtime,
                 "%s, depth %d: baked %" PRIu64 " nodes, runtime %" PRIu64
                 " (a baked engine from before the last source change? `make baked-test-engines`)",
                 v, depth, baked, runtime);
    return baked;
}

Test(baked, moved_files_move_every_parameter)
{
    char engine[128], values[128], err[512];
    int v[PARAM_COUNT];
    bool given[PARAM_COUNT];
    baked_paths("moved-all", engine, values);
    cr_assert_eq(paramfile_load(values, v, given, err, sizeof err), PARAM_COUNT, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_neq(v[i], param_specs[i].def, "moved-all: %s not moved", param_specs[i].name);
    baked_paths("moved-live", engine, values);
    cr_assert_geq(paramfile_load(values, v, given, err, sizeof err), 1, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++) {
        bool wide = param_specs[i].max - param_specs[i].min >= 2;
        cr_expect_eq(given[i], wide, "moved-live: %s", param_specs[i].name);
        cr_expect_eq(v[i] != param_specs[i].def, wide, "moved-live: %s", param_specs[i].name);
    }
}

Test(baked, defaults_bench_like_runtime)
{
    uint64_t baked = same_bench("defaults", 6);
    cr_expect_eq(baked, bench_nodes(ENGINE, "", 6), "the defaults file is the plain engine");
}

Test(baked, moved_values_bench_like_runtime)
{
    uint64_t live = same_bench("moved-live", 6);
    char engine[128], values[128];
    baked_paths("defaults", engine, values);
    cr_expect_neq(live, bench_nodes(engine, "", 6), "the moved values change the search");
    /* Every technique off as well: slower, so a smaller depth. */
    same_bench("moved-all", 4);
}

Test(baked, baked_engine_reports_itself)
{
    char engine[128], values[128], cmd[384], err[512], tag[PARAMFILE_TAG_LEN], *out, *errout;
    baked_paths("moved-live", engine, values);
    bake_tag(values, tag);

    /* `params`: marked baked, with the tag and the file's values. */
    snprintf(cmd, sizeof cmd, "%s params", engine);
    cr_assert_eq(run(cmd, NULL, &out, &errout), 0, "%s", errout);
    cJSON *spec = cJSON_Parse(out);
    cr_assert_not_null(spec, "`params` is not JSON");
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(spec, "baked")), "\"baked\": true");
    const cJSON *t = cJSON_GetObjectItem(spec, "baked_tag");
    cr_expect(cJSON_IsString(t) && !strcmp(t->valuestring, tag), "\"baked_tag\": \"%s\"", tag);
    cJSON_Delete(spec);
    int want[PARAM_COUNT], got[PARAM_COUNT];
    cr_assert_geq(paramfile_load(values, want, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(paramfile_parse(out, strlen(out), "baked params", got, NULL, err, sizeof err),
                 PARAM_COUNT, "%s", err);
    for (int i = 0; i < PARAM_COUNT; i++)
        cr_expect_eq(got[i], want[i], "%s", param_specs[i].name);
    free(out);
    free(errout);

    /* UCI: the tag in `id name`, no parameter options, setting one refused. */
    const char *input = "uci\nsetoption name LmrQuietBase value 100\n"
                        "setoption name ParamsFile value params/engine.json\nquit\n";
    cr_assert_eq(run(engine, input, &out, &errout), 0, "%s", errout);
    char *id = strstr(out, "id name ");
    cr_assert_not_null(id);
    char *eol = strchr(id, '\n');
    cr_assert_not_null(eol);
    *eol = '\0';
    cr_expect(strstr(id, tag), "\"%s\" lacks the tag %s", id, tag);
    *eol = '\n';
    cr_expect_null(strstr(out, "option name LmrQuietBase"), "a baked build advertised a parameter");
    cr_expect_null(strstr(out, "option name ParamsFile"), "a baked build advertised ParamsFile");
    cr_expect(strstr(out, "info string LmrQuietBase: parameters are baked"), "%s", out);
    cr_expect(strstr(out, "info string params/engine.json: not loaded: the parameters are baked"),
              "%s", out);
    free(out);
    free(errout);

    /* --params on a baked build: refused, non-zero. */
    snprintf(cmd, sizeof cmd, "%s --params %s params", engine, values);
    cr_expect_eq(run(cmd, NULL, &out, &errout), 1);
    cr_expect(strstr(errout, "baked"), "%s", errout);
    free(out);
    free(errout);
}
