/* CSV fields (tuner/tuning/csv.c) and UCI option names and values (tuner/match/uciopt.c,
 * probe_parse_option): what history.csv headers and setoption lines hold. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "errmsg.h"
#include "probe.h"
#include "uciopt.h"

static char *field(const char *prefix, const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    cr_assert_not_null(m);
    int w = csv_put_field2(m, prefix, s);
    fclose(m);
    cr_assert_eq((size_t)w, n, "the count of bytes written");
    return buf;
}

Test(csv, fields_are_quoted_as_needed)
{
    static const char *const cases[][3] = {
        { "", "Hash", "Hash" },
        { "", "Skill Level", "\"Skill Level\"" },
        { "c_k.", "Skill Level", "\"c_k.Skill Level\"" },
        { "R_k.", "UCI_Elo", "R_k.UCI_Elo" },
        { "", "a,b", "\"a,b\"" },
        { "", "say \"hi\"", "\"say \"\"hi\"\"\"" },
        { "", "two\nlines", "\"two\nlines\"" },
        { "", "", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = field(cases[i][0], cases[i][1]);
        cr_assert_str_eq(got, cases[i][2]);
        free(got);
    }
}

Test(csv, split_reads_back_what_was_written)
{
    const char *names[] = { "row", "Skill Level", "c_k.Skill Level", "Hash", "a,b", "say \"hi\"", "" };
    size_t n = sizeof names / sizeof *names;
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', m);
        csv_put_field(m, names[i]);
    }
    fclose(m);
    char *f[16];
    cr_assert_eq(csv_split(line, f, 16), (int)n, "%s", line);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(f[i], names[i]);
    free(line);
}

Test(csv, split_refuses_malformed_records)
{
    const char *bad[] = { "a,\"b", "a,b\"c", "\"a\"b,c", "a,b,c,d,e" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char buf[32], *f[4];
        snprintf(buf, sizeof buf, "%s", bad[i]);
        cr_assert_eq(csv_split(buf, f, 4), -1, "%s", bad[i]);
    }
    char ok[] = "1,,3", *f[4];
    cr_assert_eq(csv_split(ok, f, 4), 3);
    cr_assert_str_eq(f[1], "");
}

Test(uciopt, names_are_the_words_between_name_and_type)
{
    ProbeOption o;
    cr_assert_eq(probe_parse_option("option name Skill Level type spin default 20 min 0 max 20", &o), 0);
    cr_assert_str_eq(o.name, "Skill Level");
    cr_assert_str_eq(o.type, "spin");
    cr_assert(o.has_min && o.has_max && o.min == 0 && o.max == 20);
    cr_assert_eq(probe_parse_option("option name   Move \t Overhead  type spin default 10 min 0 max 5000", &o), 0);
    cr_assert_str_eq(o.name, "Move Overhead");
    cr_assert_eq(probe_parse_option("option name Slow Mover type string default 0.8", &o), 0);
    cr_assert_str_eq(o.type, "string");
    cr_assert(uciopt_same("Skill Level", "skill  level"));
    cr_assert(uciopt_same(" Move Overhead", "Move Overhead "));
    cr_assert_not(uciopt_same("Skill Level", "SkillLevel"));
    cr_assert_not(uciopt_same("Skill Level", "Skill Level 2"));
}

Test(uciopt, values_as_setoption_sends_them)
{
    static const struct {
        double v;
        bool decimal;
        const char *text;
    } cases[] = {
        { 12, false, "12" },       { -3, false, "-3" },          { 0.8125, true, "0.8125" }, { 2, true, "2.0" },
        { -0.25, true, "-0.25" },  { 1e-12, true, "0.0" },       { -1e-12, true, "0.0" },    { 1e-7, true, "0.0000001" },
        { 123456.5, true, "123456.5" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[64];
        uciopt_format(cases[i].v, cases[i].decimal, buf, sizeof buf);
        cr_assert_str_eq(buf, cases[i].text, "%.17g", cases[i].v);
    }
}

Test(uciopt, rounding_for_spin_options)
{
    cr_assert_eq(uciopt_round(5.3, 0.5, 0, 20), 5);
    cr_assert_eq(uciopt_round(5.3, 0.75, 0, 20), 6);
    cr_assert_eq(uciopt_round(0.6, 0.2, 0.5, 20), 1, "within the integers of the range");
    cr_assert_eq(uciopt_round(19.9, 0.9, 0, 19.5), 19);
    /* Unbiased: the mean over u is x. */
    double sum = 0;
    for (int i = 0; i < 1000; i++)
        sum += uciopt_round(7.3, (i + 0.5) / 1000.0, 0, 20);
    cr_assert_float_eq(sum / 1000, 7.3, 1e-9);
}

/* appendf (errmsg.h), the form every 'n += snprintf(buf + n, cap - n, ...)'
 * of the tree now takes: text that does not fit is cut short and
 * terminated, the length never passes cap - 1, and later calls write
 * nothing (the bytes after the buffer stay as they were).  The old form's n
 * grew by what snprintf wanted, so cap - n wrapped and the next call wrote
 * past the buffer. */
Test(csv, appendf_never_writes_past_its_buffer)
{
    char mem[32];
    memset(mem, 'x', sizeof mem);
    char *buf = mem; /* the first 16 bytes are the buffer, the rest must stay 'x' */
    size_t n = 0;
    n = appendf(buf, 16, n, "%s", "abc");
    cr_assert_eq(n, 3);
    cr_assert_str_eq(buf, "abc");
    n = appendf(buf, 16, n, "%s", "0123456789abcdefghij");
    cr_assert_eq(n, 15, "the length is cap - 1 once the text is cut: %zu", n);
    cr_assert_str_eq(buf, "abc0123456789ab");
    n = appendf(buf, 16, n, "%s", "more");
    n = appendf(buf, 16, n, "%d", 12345);
    cr_assert_eq(n, 15);
    cr_assert_str_eq(buf, "abc0123456789ab");
    for (size_t i = 16; i < sizeof mem; i++)
        cr_assert_eq(mem[i], 'x', "byte %zu after the buffer was written", i);
    cr_assert_eq(appendf(NULL, 16, 0, "x"), 0u);
    cr_assert_eq(appendf(buf, 0, 0, "x"), 0u);
}
