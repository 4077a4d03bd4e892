/* UCI option names and values (tuner/match/uciopt.c): names are the words
 * between "name" and "type", values as setoption sends them, rounding for
 * spin options. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "uciopt.h"

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
