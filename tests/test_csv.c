/* CSV fields (tuner/tuning/csv.c), what history.csv headers hold, and
 * appendf (base/errmsg.h).  UCI option values are in test_uciopt.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "errmsg.h"

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
