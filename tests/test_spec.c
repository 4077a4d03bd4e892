/* Parameter spec parser (tuner/spsa/spec.c): Ratchet JSON and OpenBench lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"

static SpsaParam *ps;
static size_t n;
static char err[512];

static int parse(const char *text)
{
    free(ps);
    ps = NULL;
    err[0] = '\0';
    return spec_parse(text, "spec.txt", &ps, &n, err, sizeof err);
}

static void teardown(void)
{
    free(ps);
    ps = NULL;
}

static void assert_param(size_t i, const char *name, double v, double lo, double hi, double c,
                         double r)
{
    cr_assert_lt(i, n);
    cr_assert_str_eq(ps[i].name, name);
    cr_assert_eq(ps[i].start, v);
    cr_assert_eq(ps[i].theta, v);
    cr_assert_eq(ps[i].min, lo);
    cr_assert_eq(ps[i].max, hi);
    cr_assert_float_eq(ps[i].c_end, c, 1e-12);
    cr_assert_float_eq(ps[i].r_end, r, 1e-12);
}

/* The error names the file and the line (or parameter) and contains `what`. */
static void assert_error(const char *where, const char *what)
{
    cr_assert_null(ps);
    cr_assert(strstr(err, where), "message \"%s\" should name \"%s\"", err, where);
    cr_assert(strstr(err, what), "message \"%s\" should say \"%s\"", err, what);
}

TestSuite(spec, .fini = teardown);

Test(spec, openbench_lines)
{
    cr_assert_eq(parse("# tuned by hand\n"
                       "LmrQuietBase, int, 135, 0, 300, 10, 0.002\n"
                       "\n"
                       "LmpBase,3,0,12,1,0.002\r\n"
                       "  NullMoveBase ,INT, 3 , 1 , 6 , 0.5 , 0.0025  \n"),
                 0, "%s", err);
    cr_assert_eq(n, 3);
    assert_param(0, "LmrQuietBase", 135, 0, 300, 10, 0.002);
    assert_param(1, "LmpBase", 3, 0, 12, 1, 0.002);
    assert_param(2, "NullMoveBase", 3, 1, 6, 0.5, 0.0025);
}

Test(spec, json_array_and_object)
{
    cr_assert_eq(parse("[{\"name\":\"A\",\"value\":5,\"min\":0,\"max\":10,\"c_end\":1,\"r_end\":0.002},"
                       " {\"name\":\"B\",\"default\":-3,\"min\":-5,\"max\":5,\"c_end\":0.5,"
                       "\"r_end\":0.001,\"type\":\"int\",\"comment\":\"ignored\"}]"),
                 0, "%s", err);
    cr_assert_eq(n, 2);
    assert_param(0, "A", 5, 0, 10, 1, 0.002);
    assert_param(1, "B", -3, -5, 5, 0.5, 0.001);

    cr_assert_eq(parse("{\"engine\":\"ratchet\",\"params\":[{\"name\":\"A\",\"value\":5,\"min\":0,"
                       "\"max\":10,\"c_end\":1,\"r_end\":0.002}]}"),
                 0, "%s", err);
    cr_assert_eq(n, 1);
    assert_param(0, "A", 5, 0, 10, 1, 0.002);
}

Test(spec, min_greater_than_max)
{
    cr_assert_eq(parse("A, int, 5, 0, 10, 1, 0.002\nB, int, 5, 10, 1, 1, 0.002\n"), -1);
    assert_error("spec.txt:2", "min 10 > max 1");
    cr_assert_eq(parse("[{\"name\":\"A\",\"value\":5,\"min\":9,\"max\":1,\"c_end\":1,\"r_end\":1}]"), -1);
    assert_error("params[0]", "min 9 > max 1");
}

Test(spec, value_out_of_range)
{
    cr_assert_eq(parse("A, int, 11, 0, 10, 1, 0.002\n"), -1);
    assert_error("spec.txt:1", "value 11 outside");
    cr_assert_eq(parse("[{\"name\":\"A\",\"value\":-1,\"min\":0,\"max\":10,\"c_end\":1,\"r_end\":1}]"), -1);
    assert_error("params[0]", "outside");
}

Test(spec, bad_lines)
{
    cr_assert_eq(parse("A, int, 5, 0, 10, 1, 0.002\nB, int, 5, 0, 10\n"), -1);
    assert_error("spec.txt:2", "got 5 fields");
    cr_assert_eq(parse("A, int, 5, 0, 10, 1, 0.002\nB, int, five, 0, 10, 1, 0.002\n"), -1);
    assert_error("spec.txt:2", "value \"five\" is not a number");
    cr_assert_eq(parse("A, int, 5, 0, 10, 1, 0.002\nB, int, 5.5, 0, 10, 1, 0.002\n"), -1);
    assert_error("spec.txt:2", "integers");
    cr_assert_eq(parse("A, double, 0.5, 0, 1, 0.1, 0.002\n"), -1);
    assert_error("spec.txt:1", "\"int\" or \"float\"");
    cr_assert_eq(parse("A, int, 5, 0, 10, 0, 0.002\n"), -1);
    assert_error("spec.txt:1", "c_end must be > 0");
    cr_assert_eq(parse("A, int, 5, 0, 10, 1, -1\n"), -1);
    assert_error("spec.txt:1", "r_end must be > 0");
    cr_assert_eq(parse("A, int, 5, 0, 10, 1, 0.002\nA, int, 5, 0, 10, 1, 0.002\n"), -1);
    assert_error("spec.txt", "A appears twice");
}

Test(spec, names_with_spaces)
{
    /* The OpenBench form splits on commas: the name keeps its spaces. */
    cr_assert_eq(parse("Skill Level, int, 5, 0, 20, 1, 0.002\n"
                       "  Move   Overhead , 10, 0, 5000, 10, 0.002\n"
                       "UCI_Elo, int, 1500, 1320, 3190, 50, 0.002\n"),
                 0, "%s", err);
    cr_assert_eq(n, 3);
    assert_param(0, "Skill Level", 5, 0, 20, 1, 0.002);
    assert_param(1, "Move Overhead", 10, 0, 5000, 10, 0.002); /* the words, as UCI has them */
    assert_param(2, "UCI_Elo", 1500, 1320, 3190, 50, 0.002);
    cr_assert_eq(parse("[{\"name\":\"Slow Mover\",\"value\":100,\"min\":10,\"max\":1000,\"c_end\":10,"
                       "\"r_end\":0.002}]"),
                 0, "%s", err);
    assert_param(0, "Slow Mover", 100, 10, 1000, 10, 0.002);
    /* What UCI cannot carry, or only= cannot select. */
    cr_assert_eq(parse("Draw value, int, 5, 0, 20, 1, 0.002\n"), -1);
    assert_error("spec.txt:1", "the word \"value\"");
    cr_assert_eq(parse("[{\"name\":\"A type B\",\"value\":5,\"min\":0,\"max\":10,\"c_end\":1,\"r_end\":1}]"), -1);
    assert_error("params[0]", "the word \"type\"");
    cr_assert_eq(parse("[{\"name\":\"A,B\",\"value\":5,\"min\":0,\"max\":10,\"c_end\":1,\"r_end\":1}]"), -1);
    assert_error("params[0]", "comma");
    cr_assert_eq(parse("[{\"name\":\"A\\\"B\",\"value\":5,\"min\":0,\"max\":10,\"c_end\":1,\"r_end\":1}]"), -1);
    assert_error("params[0]", "double quote");
    cr_assert_eq(parse("Skill Level, int, 5, 0, 20, 1, 0.002\nskill  level, int, 5, 0, 20, 1, 0.002\n"), -1);
    assert_error("spec.txt", "appears twice");
}

Test(spec, float_parameters)
{
    cr_assert_eq(parse("LmrBase, float, 0.75, 0.25, 1.5, 0.05, 0.002\nLmpBase, int, 3, 0, 12, 1, 0.002\n"), 0,
                 "%s", err);
    cr_assert_eq(n, 2);
    assert_param(0, "LmrBase", 0.75, 0.25, 1.5, 0.05, 0.002);
    cr_assert(ps[0].is_float);
    cr_assert(!ps[1].is_float);
    cr_assert_eq(parse("[{\"name\":\"X\",\"type\":\"float\",\"value\":0.5,\"min\":-1.5,\"max\":2.25,"
                       "\"c_end\":0.1,\"r_end\":0.002}]"),
                 0, "%s", err);
    assert_param(0, "X", 0.5, -1.5, 2.25, 0.1, 0.002);
    cr_assert(ps[0].is_float);
    /* Without "type": "float" a fraction is still refused, and float keeps its checks. */
    cr_assert_eq(parse("[{\"name\":\"X\",\"value\":0.5,\"min\":0,\"max\":1,\"c_end\":0.1,\"r_end\":0.002}]"), -1);
    assert_error("params[0]", "integers");
    cr_assert_eq(parse("A, float, 1.5, 0, 1, 0.1, 0.002\n"), -1);
    assert_error("spec.txt:1", "value 1.5 outside");
    cr_assert_eq(parse("A, float, 0.5, 0.75, 0.25, 0.1, 0.002\n"), -1);
    assert_error("spec.txt:1", "min 0.75 > max 0.25");
}

Test(spec, bad_json)
{
    cr_assert_eq(parse("[{\"name\":\"A\",\n\"value\":5,,}]"), -1);
    assert_error("spec.txt:2", "malformed JSON");
    cr_assert_eq(parse("[{\"name\":\"A\",\"value\":5,\"min\":0,\"max\":10,\"r_end\":1}]"), -1);
    assert_error("params[0]", "\"c_end\" is missing");
    cr_assert_eq(parse("[{\"name\":\"A\",\"value\":\"5\",\"min\":0,\"max\":10,\"c_end\":1,\"r_end\":1}]"), -1);
    assert_error("params[0]", "\"value\" is not a number");
    cr_assert_eq(parse("[{\"value\":5}]"), -1);
    assert_error("params[0]", "\"name\"");
    cr_assert_eq(parse("[]"), -1);
    assert_error("spec.txt", "no parameters");
}

Test(spec, unknown_format)
{
    cr_assert_eq(parse("<params><p name=\"A\"/></params>\n"), -1);
    assert_error("spec.txt", "unknown format");
    cr_assert_eq(parse("{\"values\": {\"A\": 3}}"), -1);
    assert_error("spec.txt", "unknown format");
    cr_assert_eq(parse("\n# only a comment\n"), -1);
    assert_error("spec.txt", "no parameters");
}

Test(spec, load_file)
{
    char path[] = "/tmp/ratchet-spec-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *text = "LmpBase, int, 3, 0, 12, 1, 0.002\nLmpDepth, int, 8, 1, 16, 1, 0.002\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    cr_assert_eq(spec_load(path, &ps, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 2);
    assert_param(1, "LmpDepth", 8, 1, 16, 1, 0.002);
    free(ps);
    ps = NULL;
    unlink(path);
    cr_assert_eq(spec_load(path, &ps, &n, err, sizeof err), -1);
    assert_error(path, "cannot open");
}
