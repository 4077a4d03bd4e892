/* The layering check, tools/layers.sh, the stale-path, header and
 * unused-include checks (tools/paths.sh, headers.sh, includes.sh) and the
 * call-cycle check, tools/calls.sh: on this tree, and on small trees
 * written for each rule they enforce. */
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

/* How many times needle occurs in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* ---- every #include "x.h" of a .c file is used, tools/includes.sh ---- */

static int includes(const char *dir) { return shell("sh tools/includes.sh %s", dir ? dir : ""); }

Test(layers, this_tree_includes_only_headers_it_uses)
{
    cr_expect_eq(includes(NULL), 0, "%s", out);
    cr_expect_str_empty(out);
}

/* board.h declares a type, an enum constant, a macro and a function; eval.h
 * a function and includes board.h.  Each of board.h's names, used, is a use;
 * a name in a comment or a string is none.  An include none of whose names
 * the file uses is named with the file, its line and the header, and so is
 * eval.h included only for the board.h it includes; system headers are not
 * checked. */
Test(layers, an_unused_include_is_named_with_its_file_and_header)
{
    plant("engine/rules/board.h", "#ifndef B_H\n#define B_H\n#include <stdint.h>\ntypedef uint64_t Bits;\n"
                                  "enum { WHITE, BLACK };\n#define MAX_PLY 128\nvoid board_init(void);\n#endif\n");
    plant("engine/eval.h", "#include \"board.h\"\nint evaluate(const char *fen);\n");
    plant("engine/eval.c",
          "#include \"eval.h\"\n#include <stdio.h>\nint evaluate(const char *fen) { return fen[0]; }\n");
    const char *uses[] = {"Bits b;\n", "int side = BLACK;\n", "int plies[MAX_PLY];\n",
                          "void start(void) { board_init(); }\n"};
    for (size_t i = 0; i < sizeof uses / sizeof *uses; i++) {
        char text[256];
        snprintf(text, sizeof text, "#include <stdint.h>\n#include \"board.h\"\n%s", uses[i]);
        plant("engine/search.c", text);
        cr_expect_eq(includes(root), 0, "%s:\n%s", uses[i], out);
        cr_expect_str_empty(out);
    }

    plant("engine/search.c", "#include <stdint.h>\n#include \"eval.h\"\n/* board_init() first */\n"
                             "const char *s = \"MAX_PLY\";\nint search(void) { return evaluate(s); }\n"
                             "#include \"board.h\"\n");
    cr_expect_eq(includes(root), 1, "%s", out);
    cr_expect(strstr(out, "engine/search.c:6: includes: \"board.h\" is unused: engine/search.c names nothing "
                          "engine/rules/board.h declares\n"),
              "%s", out);
    cr_expect_eq(count(out, "includes:"), 1, "only board.h, once:\n%s", out);

    plant("engine/search.c", "#include \"eval.h\"\nBits b;\n");
    cr_expect_eq(includes(root), 1, "%s", out);
    cr_expect(strstr(out, "engine/search.c:1: includes: \"eval.h\" is unused: engine/search.c names nothing "
                          "engine/eval.h declares\n"),
              "%s", out);
}

/* tools/includes.allow allows an unused include, one "file.c header.h" a
 * line; a line whose include is used, or gone, fails, so the list only
 * shrinks. */
Test(layers, the_allowlist_allows_an_unused_include_and_only_shrinks)
{
    plant("tuner/match/stats.h", "double elo(double score);\n");
    plant("tuner/match/match.c", "#include \"stats.h\"\nint match(void) { return 0; }\n");
    cr_expect_eq(includes(root), 1, "%s", out);
    cr_expect(strstr(out, "tuner/match/match.c:1: includes: \"stats.h\" is unused"), "%s", out);

    plant("tools/includes.allow", "# being changed\ntuner/match/match.c stats.h # stats.h: unused for now\n");
    cr_expect_eq(includes(root), 0, "%s", out);
    cr_expect_str_empty(out);

    plant("tuner/match/match.c", "#include \"stats.h\"\ndouble match(void) { return elo(0.5); }\n");
    cr_expect_eq(includes(root), 1, "%s", out);
    cr_expect(strstr(out, "tools/includes.allow:2: includes: tuner/match/match.c uses \"stats.h\""), "%s", out);

    plant("tuner/match/match.c", "int match(void) { return 0; }\n");
    cr_expect_eq(includes(root), 1, "%s", out);
    cr_expect(strstr(out, "tools/includes.allow:2: includes: tuner/match/match.c no longer includes \"stats.h\""),
              "%s", out);
}

/* ---- no call cycle between modules, tools/calls.sh ---- */

/* root/src compiled to root/obj (cc -c), its folder made first; extra: more flags. */
static void compile(const char *src, const char *obj, const char *extra)
{
    cr_assert_eq(shell("cd '%s' && mkdir -p \"$(dirname '%s')\" && ${CC:-cc} -std=c11 -Wall -Werror %s -c '%s' -o '%s'",
                       root, obj, extra, src, obj),
                 0, "%s: %s", src, out);
}

/* The script over root's objects in root/build (dir NULL: this tree's build/). */
static int calls(const char *dir) { return dir ? shell("sh tools/calls.sh %s build", dir) : shell("sh tools/calls.sh"); }

Test(layers, this_tree_has_no_call_cycle)
{
    cr_assert(access("build/engine/rules/board.o", R_OK) == 0, "run make first");
    cr_expect_eq(calls(NULL), 0, "%s", out);
    cr_expect_str_empty(out);
}

/* Two sources that call each other: the cycle is named once, with the
 * function behind each call.  The same tree with the calls one way (board.c
 * starts both up, attacks.c calls nothing of board.c) passes. */
Test(layers, a_call_cycle_fails_and_the_same_calls_one_way_pass)
{
    plant("engine/rules/attacks.c", "void zobrist_init(void);\nvoid attacks_init(void) { zobrist_init(); }\n");
    plant("engine/rules/board.c", "void attacks_init(void);\nvoid zobrist_init(void) {}\n"
                                  "void rules_init(void) { attacks_init(); }\n");
    compile("engine/rules/attacks.c", "build/engine/rules/attacks.o", "");
    compile("engine/rules/board.c", "build/engine/rules/board.o", "");
    cr_expect_eq(calls(root), 1, "%s", out);
    cr_expect(strstr(out, "calls: call cycle: engine/rules/attacks -> engine/rules/board -> engine/rules/attacks\n") ||
                  strstr(out, "calls: call cycle: engine/rules/board -> engine/rules/attacks -> engine/rules/board\n"),
              "%s", out);
    cr_expect(strstr(out, "engine/rules/attacks -> engine/rules/board: zobrist_init\n"), "%s", out);
    cr_expect(strstr(out, "engine/rules/board -> engine/rules/attacks: attacks_init\n"), "%s", out);
    cr_expect_eq(count(out, "call cycle"), 1, "%s", out);

    plant("engine/rules/attacks.c", "void attacks_init(void) {}\n");
    plant("engine/rules/board.c", "void attacks_init(void);\nstatic void zobrist_init(void) {}\n"
                                  "void rules_init(void) { attacks_init(); zobrist_init(); }\n");
    compile("engine/rules/attacks.c", "build/engine/rules/attacks.o", "");
    compile("engine/rules/board.c", "build/engine/rules/board.o", "");
    cr_expect_eq(calls(root), 0, "%s", out);
    cr_expect_str_empty(out);
}

/* A cycle round three sources in two parts is found, and named once. */
Test(layers, a_longer_call_cycle_is_named_once)
{
    plant("tuner/report/plot.c", "void htmlreport_run(void);\nvoid plot_svg(void) { htmlreport_run(); }\n");
    plant("tuner/report/htmlreport.c", "void rd_now_iso(void);\nvoid htmlreport_run(void) { rd_now_iso(); }\n");
    plant("tuner/tuning/rd.c", "void plot_svg(void);\nvoid rd_now_iso(void) { plot_svg(); }\n");
    plant("base/errmsg.c", "void errmsg(void) {}\n");
    plant("tuner/tuning/hist.c", "void errmsg(void);\nvoid rd_now_iso(void);\nvoid hist_scan(void) { errmsg(); rd_now_iso(); }\n");
    compile("tuner/report/plot.c", "build/tuner/report/plot.o", "");
    compile("tuner/report/htmlreport.c", "build/tuner/report/htmlreport.o", "");
    compile("tuner/tuning/rd.c", "build/tuner/tuning/rd.o", "");
    compile("base/errmsg.c", "build/base/errmsg.o", "");
    compile("tuner/tuning/hist.c", "build/tuner/tuning/hist.o", "");
    cr_expect_eq(calls(root), 1, "%s", out);
    cr_expect(strstr(out, "calls: call cycle: tuner/report/htmlreport -> tuner/tuning/rd -> tuner/report/plot -> "
                          "tuner/report/htmlreport\n") ||
                  strstr(out, "calls: call cycle: tuner/tuning/rd -> tuner/report/plot -> tuner/report/htmlreport -> "
                              "tuner/tuning/rd\n") ||
                  strstr(out, "calls: call cycle: tuner/report/plot -> tuner/report/htmlreport -> tuner/tuning/rd -> "
                              "tuner/report/plot\n"),
              "%s", out);
    cr_expect_eq(count(out, "call cycle"), 1, "%s", out);
    cr_expect(!strstr(out, "errmsg") && !strstr(out, "hist"), "only the cycle's modules:\n%s", out);
}

/* The MPI build's objects (build/mpi/) are tuner/mpi/'s sources, and its
 * main.o is tuner/commands/main.c compiled again: a cycle through them is
 * named with the sources. */
Test(layers, a_call_cycle_through_the_mpi_build_names_its_sources)
{
    plant("tuner/mpi/mpi.c", "int ratchet_tune_main(void);\nint mpi_rank(void) { return 0; }\n"
                             "int main(void) { return ratchet_tune_main(); }\n");
    plant("tuner/commands/main.c", "int mpi_rank(void);\nint main(void) { return mpi_rank(); }\n");
    compile("tuner/mpi/mpi.c", "build/mpi/mpi.o", "");
    compile("tuner/commands/main.c", "build/mpi/main.o", "-Dmain=ratchet_tune_main");
    cr_expect_eq(calls(root), 1, "%s", out);
    cr_expect(strstr(out, "calls: call cycle: tuner/commands/main -> tuner/mpi/mpi -> tuner/commands/main\n") ||
                  strstr(out, "calls: call cycle: tuner/mpi/mpi -> tuner/commands/main -> tuner/mpi/mpi\n"),
              "%s", out);
}

/* An object whose source is gone (a moved file's leftover in build/) is not
 * read; with no objects at all the check says it was skipped. */
Test(layers, a_leftover_object_is_not_read)
{
    cr_expect_eq(calls(root), 0, "%s", out);
    cr_expect(strstr(out, "calls: no objects"), "%s", out);
    plant("engine/search.c", "void eval(void);\nvoid search(void) { eval(); }\n");
    plant("engine/eval.c", "void search(void);\nvoid eval(void) { search(); }\n");
    compile("engine/search.c", "build/engine/search.o", "");
    compile("engine/eval.c", "build/engine/eval.o", "");
    cr_expect_eq(calls(root), 1, "%s", out);
    char gone[PATH_MAX];
    snprintf(gone, sizeof gone, "%s/engine/eval.c", root);
    cr_assert_eq(unlink(gone), 0);
    cr_expect_eq(calls(root), 0, "%s", out);
    cr_expect_str_empty(out);
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
