/* The layering check, tools/layers.sh: on this tree, and on small trees
 * written for each rule it enforces. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

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
static void put(const char *path, const char *text)
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

/* The script over dir (NULL: this tree); its exit code, its output in out. */
static int layers(const char *dir, char *out, size_t len)
{
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "sh tools/layers.sh %s 2>&1", dir ? dir : "");
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(layers, this_tree_keeps_its_layers)
{
    char out[4096];
    cr_expect_eq(layers(NULL, out, sizeof out), 0, "%s", out);
    cr_expect_str_empty(out);
}

Test(layers, a_part_may_include_itself_and_the_parts_below)
{
    put("engine/rules/board.h", "int x;\n");
    put("engine/rules/board.c", "#include \"board.h\"\n");
    put("engine/eval.c", "#include \"board.h\"\n#include <stdio.h>\n");
    put("tuner/commands/main.c", "#include \"board.h\"\n#include \"spsa.h\"\n");
    put("tuner/spsa/spsa.h", "#include \"stats.h\"\n");
    put("tuner/runner/stats.h", "int y;\n");
    char out[4096];
    cr_expect_eq(layers(root, out, sizeof out), 0, "%s", out);
    cr_expect_str_empty(out);
}

Test(layers, a_lower_part_including_a_higher_one_fails)
{
    put("engine/eval.h", "int e;\n");
    put("engine/rules/board.c", "/* the position */\n#include \"eval.h\"\n");
    put("tuner/run/runstate.h", "int s;\n");
    put("tuner/runner/match.c", "#include \"runstate.h\"\n");
    char out[4096];
    cr_expect_eq(layers(root, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "engine/rules/board.c:2: layers: rules includes engine (\"eval.h\" is engine/eval.h)"),
              "%s", out);
    cr_expect(strstr(out, "tuner/runner/match.c:1: layers: runner includes run "
                          "(\"runstate.h\" is tuner/run/runstate.h)"),
              "%s", out);
}

Test(layers, an_include_cycle_fails)
{
    put("tuner/report/plot.h", "#include \"htmlreport.h\"\n");
    put("tuner/report/htmlreport.h", "int h;\n");
    put("tuner/report/htmlreport.c", "#include \"htmlreport.h\"\n#include \"plot.h\"\n");
    char out[4096];
    cr_expect_eq(layers(root, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "include cycle: tuner/report/htmlreport -> tuner/report/plot -> tuner/report/htmlreport") ||
                  strstr(out, "include cycle: tuner/report/plot -> tuner/report/htmlreport -> tuner/report/plot"),
              "%s", out);
}

Test(layers, a_folder_that_is_no_part_fails)
{
    put("tuner/misc/x.c", "int x;\n");
    char out[4096];
    cr_expect_eq(layers(root, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "tuner/misc/x.c is in no part"), "%s", out);
}
