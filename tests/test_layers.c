/* The layering check, tools/layers.sh: on this tree, and on small trees
 * written for each rule it enforces. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static char root[64];

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/ratchet-layers-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(layers, .init = setup, .fini = teardown, .timeout = 60);

/* root/path with text, its folders made first. */
static void plant(const char *path, const char *text)
{
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%s/%s", root, path);
    for (char *s = full + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(full, 0755);
        *s = '/';
    }
    FILE *f = fopen(full, "w");
    cr_assert_not_null(f, "%s", full);
    fputs(text, f);
    fclose(f);
}

/* The script over dir (NULL: this tree); its exit code, its output in
 * helpers.h's out. */
static int layers(const char *dir) { return shell("sh tools/layers.sh %s", dir ? dir : ""); }

Test(layers, this_tree_keeps_its_layers)
{
    cr_expect_eq(layers(NULL), 0, "%s", out);
    cr_expect_str_empty(out);
}

Test(layers, a_part_may_include_itself_and_the_parts_below)
{
    plant("base/errmsg.h", "int m;\n");
    plant("engine/rules/board.h", "int x;\n");
    plant("engine/rules/board.c", "#include \"board.h\"\n#include \"errmsg.h\"\n");
    plant("engine/eval.c", "#include \"board.h\"\n#include <stdio.h>\n");
    plant("tuner/commands/main.c", "#include \"board.h\"\n#include \"spsa.h\"\n");
    plant("tuner/spsa/spsa.h", "#include \"stats.h\"\n");
    plant("tuner/match/stats.h", "int y;\n");
    cr_expect_eq(layers(root), 0, "%s", out);
    cr_expect_str_empty(out);
}

Test(layers, a_lower_part_including_a_higher_one_fails)
{
    plant("engine/eval.h", "int e;\n");
    plant("engine/rules/board.c", "/* the position */\n#include \"eval.h\"\n");
    plant("tuner/tuning/state.h", "int s;\n");
    plant("tuner/match/match.c", "#include \"state.h\"\n");
    plant("engine/rules/board.h", "int b;\n");
    plant("base/errmsg.c", "#include \"board.h\"\n");
    cr_expect_eq(layers(root), 1, "%s", out);
    cr_expect(strstr(out, "base/errmsg.c:1: layers: base includes rules (\"board.h\" is engine/rules/board.h)"),
              "%s", out);
    cr_expect(strstr(out, "engine/rules/board.c:2: layers: rules includes engine (\"eval.h\" is engine/eval.h)"),
              "%s", out);
    cr_expect(strstr(out, "tuner/match/match.c:1: layers: match includes tuning "
                          "(\"state.h\" is tuner/tuning/state.h)"),
              "%s", out);
}

Test(layers, an_include_cycle_fails)
{
    plant("tuner/report/plot.h", "#include \"htmlreport.h\"\n");
    plant("tuner/report/htmlreport.h", "int h;\n");
    plant("tuner/report/htmlreport.c", "#include \"htmlreport.h\"\n#include \"plot.h\"\n");
    cr_expect_eq(layers(root), 1, "%s", out);
    cr_expect(strstr(out, "include cycle: tuner/report/htmlreport -> tuner/report/plot -> tuner/report/htmlreport") ||
                  strstr(out, "include cycle: tuner/report/plot -> tuner/report/htmlreport -> tuner/report/plot"),
              "%s", out);
}

Test(layers, a_folder_that_is_no_part_fails)
{
    plant("tuner/misc/x.c", "int x;\n");
    cr_expect_eq(layers(root), 1, "%s", out);
    cr_expect(strstr(out, "tuner/misc/x.c is in no part"), "%s", out);
}

/* ---- the stale-path check, tools/paths.sh ---- */

static int paths(const char *dir) { return shell("sh tools/paths.sh %s", dir ? dir : ""); }

Test(layers, this_tree_names_no_stale_path)
{
    cr_expect_eq(paths(NULL), 0, "%s", out);
    cr_expect_str_empty(out);
}

/* A path is found from the root, from the naming file's folder or from a
 * top folder; one that is nowhere (a moved file, a part's former name) is
 * named with its file and line.  System headers and a run's files are not
 * the repository's. */
Test(layers, a_stale_path_is_named_with_its_file_and_line)
{
    plant("tuner/spsa/spsa.c", "/* see tuner/spsa/spsa.h and spsa/spsa.h */\n#include <sys/stat.h>\n");
    plant("tuner/spsa/spsa.h", "int x;\n");
    plant("docs/guide.md", "The runs go to runs/night/state.json; the picture is img/a.png.\n");
    plant("docs/img/a.png", "");
    cr_expect_eq(paths(root), 0, "a clean tree:\n%s", out);
    plant("docs/guide.md", "The SPSA math: tuner/spsa.c.\nThe run: run/run.h\n");
    cr_expect_eq(paths(root), 1, "%s", out);
    cr_expect(strstr(out, "docs/guide.md:1: tuner/spsa.c does not exist"), "%s", out);
    cr_expect(strstr(out, "docs/guide.md:2: run/run.h does not exist"), "%s", out);
}

/* ---- every header compiles on its own, tools/headers.sh ---- */

/* A header that uses a type it does not include is named; the same header
 * with its include passes. */
Test(layers, a_header_that_does_not_compile_alone_is_named)
{
    plant("Makefile", "PARTS    := engine/rules engine\n");
    plant("engine/rules/board.h", "#ifndef B_H\n#define B_H\n#include <stdint.h>\ntypedef uint64_t Bits;\n#endif\n");
    plant("engine/eval.h", "#ifndef E_H\n#define E_H\n#include \"board.h\"\nBits eval_bits(void);\n#endif\n");
    cr_expect_eq(shell("sh tools/headers.sh %s", root), 0, "a clean tree:\n%s", out);
    plant("engine/eval.h", "#ifndef E_H\n#define E_H\nBits eval_bits(void);\n#endif\n");
    cr_expect_eq(shell("sh tools/headers.sh %s", root), 1, "%s", out);
    cr_expect(strstr(out, "headers: engine/eval.h does not compile on its own"), "%s", out);
}

/* ---- the scripts of tools/: no temporary file at a name another user can guess ---- */

TestSuite(toolscripts, .init = setup, .fini = teardown, .timeout = 60);

/* tools/bench/options.sh wrote its table to $TMPDIR/options.$$: whoever
 * planted a symbolic link at that name (the PID is easy to guess) had the
 * script truncate and write the link's target.  Here the link is planted at
 * exactly that name (exec keeps the PID of the shell that planted it): the
 * victim must stay as it was, and the script still prints the options that
 * differ.  Fails with the old script (the victim holds the defaults table,
 * then the link is gone). */
Test(toolscripts, options_sh_writes_no_predictable_temporary_file)
{
    cr_assert(access("bin/ratchet", X_OK) == 0, "run make first");
    char victim[128];
    snprintf(victim, sizeof victim, "%s/victim", root);
    plant("victim", "precious\n");
    /* a value file as export writes it: one member per line, one value off the default */
    FILE *p = popen("bin/ratchet spsa | head -1", "r");
    cr_assert_not_null(p);
    char line[256] = "";
    cr_assert_not_null(fgets(line, sizeof line, p));
    pclose(p);
    char name[64];
    int def;
    cr_assert_eq(sscanf(line, "%63[^,], int, %d", name, &def), 2, "bin/ratchet spsa: %s", line);
    char json[256];
    snprintf(json, sizeof json, "{\n  \"params\": {\n    \"%s\": %d\n  }\n}\n", name, def + 1);
    plant("values.json", json);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "TMPDIR=%s sh -c 'ln -s \"$TMPDIR/victim\" \"$TMPDIR/options.$$\" && exec sh tools/bench/options.sh "
             "%s/values.json' 2>&1",
             root, root);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    char got[512] = "";
    size_t n = fread(got, 1, sizeof got - 1, p);
    got[n] = '\0';
    int st = pclose(p);
    FILE *v = fopen(victim, "r");
    cr_assert_not_null(v);
    char text[64] = "";
    size_t m = fread(text, 1, sizeof text - 1, v);
    text[m] = '\0';
    fclose(v);
    cr_assert_str_eq(text, "precious\n", "options.sh wrote through a link planted at its temporary file");
    char want[128];
    snprintf(want, sizeof want, "option.%s=%d\n", name, def + 1);
    cr_assert_eq(st, 0, "%s", got);
    cr_assert_str_eq(got, want);
}
