/* Golden outputs, compared byte for byte with the files in tests/golden/ (as
 * fastchess snapshots its command line): the text of every command's --help
 * and of `status` on a fixed run directory (tests/golden/status-run, a
 * 200-game run of build/fake/fakespsa with its validation points and a
 * verify).  A text changed on purpose: run the suite with
 * RATCHET_GOLDEN_UPDATE=1, which rewrites the files, and commit them with
 * the change. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define TUNE "bin/ratchet-tune"

static void setup(void)
{
    tmp_create("/tmp/ratchet-golden-XXXXXX");
    cr_assert(access(TUNE, X_OK) == 0, "run make all first");
}

TestSuite(golden, .init = setup, .fini = tmp_remove);

/* out (with the test's directory written DIR) against tests/golden/NAME;
 * with RATCHET_GOLDEN_UPDATE=1 the file is rewritten instead. */
static void compare(const char *name)
{
    char path[256], *text = out, *shown = NULL;
    snprintf(path, sizeof path, "tests/golden/%s", name);
    size_t tl = strlen(tmp);
    if (tl && strstr(out, tmp)) {
        shown = malloc(strlen(out) + 1);
        cr_assert_not_null(shown);
        char *w = shown;
        for (const char *r = out; *r;)
            if (!strncmp(r, tmp, tl)) {
                w += sprintf(w, "DIR");
                r += tl;
            } else {
                *w++ = *r++;
            }
        *w = '\0';
        text = shown;
    }
    const char *update = getenv("RATCHET_GOLDEN_UPDATE");
    if (update && !strcmp(update, "1")) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f, "cannot write %s", path);
        fputs(text, f);
        cr_assert_eq(fclose(f), 0);
        free(shown);
        return;
    }
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s is missing: make it with RATCHET_GOLDEN_UPDATE=1", path);
    static char want[1 << 17];
    size_t n = fread(want, 1, sizeof want - 1, f);
    want[n] = '\0';
    fclose(f);
    if (strcmp(text, want) != 0) {
        const char *a = text, *b = want;
        int line = 1;
        while (*a && *a == *b) {
            if (*a == '\n')
                line++;
            a++;
            b++;
        }
        while (a > text && a[-1] != '\n') {
            a--;
            b--;
        }
        cr_assert_fail("%s differs at line %d:\n  now:  %.*s\n  want: %.*s\n(a change on purpose: "
                       "RATCHET_GOLDEN_UPDATE=1 build/unit --filter 'golden/*')",
                       path, line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    }
    free(shown);
}

Test(golden, every_help_text)
{
    static const char *const cmds[] = { "", "match", "simulate", "run", "resume", "status",
                                        "export", "report", "verify", "night", NULL };
    for (int i = 0; cmds[i]; i++) {
        int rc = shell("%s %s --help", TUNE, cmds[i]);
        cr_assert_eq(rc, 0, "ratchet-tune %s --help: exit %d", cmds[i], rc);
        char name[64];
        snprintf(name, sizeof name, "help-%s.txt", cmds[i][0] ? cmds[i] : "ratchet-tune");
        compare(name);
    }
    cr_assert_eq(shell("%s verify DIR -ablate --help", TUNE), 0);
    compare("help-verify-ablate.txt");
}

Test(golden, status_of_a_finished_run)
{
    cr_assert_eq(shell("cp -r tests/golden/status-run %s/run", tmp), 0, "%s", out);
    int rc = shell("%s status %s/run", TUNE, tmp);
    cr_assert_eq(rc, 0, "status: exit %d: %s", rc, out);
    compare("status.txt");
    /* Under settle the moves table's final is what export writes (the
     * average of the last quarter), not the last theta. */
    char *table = strdup(out);
    cr_assert_not_null(table);
    cr_assert_eq(shell("%s export %s/run", TUNE, tmp), 0, "%s", out);
    static const char *const names[] = { "Alpha", "Beta", "Gamma" };
    for (int i = 0; i < 3; i++) {
        char key[32];
        snprintf(key, sizeof key, "\"%s\":", names[i]);
        const char *e = strstr(out, key);
        cr_assert_not_null(e, "export writes %s: %s", names[i], out);
        double exported = strtod(e + strlen(key), NULL);
        const char *row = strstr(table, "which moves are real");
        cr_assert_not_null(row);
        snprintf(key, sizeof key, "\n%s ", names[i]);
        row = strstr(row, key);
        cr_assert_not_null(row, "%s's row of the moves table", names[i]);
        double start, final;
        char name[32];
        cr_assert_eq(sscanf(row + 1, "%31s %lf %lf", name, &start, &final), 3);
        cr_assert_float_eq(final, exported, 1e-9, "%s: status's final %g, export writes %g", names[i], final, exported);
    }
    free(table);
}
