/* The run directory against files planted by someone else: a lock, a
 * history or a temporary file that is a symbolic link, a FIFO or a second
 * name, at every path a command opens, is refused and never followed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "helpers.h"
#include "rd.h"
#include "hist.h"

/* ---- the run directory: files planted by someone else ---------------------------- */

#define TUNE "bin/ratchet-tune"
#define FAKESPSA "build/fake/fakespsa"

static void rundir_setup(void)
{
    tmp_create("/tmp/ratchet-rundir-XXXXXX");
}

TestSuite(rundir, .init = rundir_setup, .fini = tmp_remove, .timeout = 30);

/* tmp/name as a symbolic link to tmp/victim, which holds "precious\n". */
static void plant_link(const char *name)
{
    write_file("victim", "precious\n");
    char from[256], to[256];
    snprintf(to, sizeof to, "%s/victim", tmp);
    snprintf(from, sizeof from, "%s/%s", tmp, name);
    cr_assert_eq(symlink(to, from), 0, "symlink %s: %s", from, strerror(errno));
}

static void assert_victim_intact(void)
{
    char *v = slurp("victim");
    cr_assert_str_eq(v, "precious\n", "the link's target was written to");
    free(v);
}

static bool is_link(const char *name)
{
    char p[256];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    return lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode);
}

Test(rundir, a_lock_that_is_a_symbolic_link_is_refused_not_truncated)
{
    plant_link(RUNDIR_LOCK);
    char err[512] = "";
    int fd = rd_lock(tmp, err, sizeof err);
    if (fd >= 0)
        rd_unlock(fd);
    assert_victim_intact();
    cr_assert_lt(fd, 0, "a lock through a symbolic link was taken");
    cr_assert(strstr(err, "symbolic link") && strstr(err, "/lock"), "%s", err);
}

Test(rundir, a_lock_with_a_second_name_is_refused_not_truncated)
{
    write_file("victim", "precious\n");
    char from[256], to[256];
    snprintf(to, sizeof to, "%s/victim", tmp);
    snprintf(from, sizeof from, "%s/%s", tmp, RUNDIR_LOCK);
    cr_assert_eq(link(to, from), 0, "link: %s", strerror(errno));
    char err[512] = "";
    int fd = rd_lock(tmp, err, sizeof err);
    if (fd >= 0)
        rd_unlock(fd);
    assert_victim_intact();
    cr_assert_lt(fd, 0);
    cr_assert(strstr(err, "links to it"), "%s", err);
}

Test(rundir, a_planted_temporary_file_link_is_replaced_not_followed)
{
    plant_link("state.json.tmp");
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/state.json", tmp);
    cr_assert_eq(rd_write_atomic(path, "{}\n", 3, err, sizeof err), 0, "%s", err);
    assert_victim_intact();
    char *s = slurp("state.json");
    cr_assert_str_eq(s, "{}\n");
    free(s);
    cr_assert(!is_link("state.json"), "state.json is the link now");
    cr_assert_neq(access(path, F_OK), -1);

    /* the private form (report.html.tmp.PID) */
    char name[64];
    snprintf(name, sizeof name, "report.html.tmp.%ld", (long)getpid());
    char victim[256];
    snprintf(victim, sizeof victim, "%s/victim", tmp);
    unlink(victim);
    plant_link(name);
    snprintf(path, sizeof path, "%s/report.html", tmp);
    cr_assert_eq(rd_write_atomic_private(path, "<p>\n", 4, err, sizeof err), 0, "%s", err);
    assert_victim_intact();
    s = slurp("report.html");
    cr_assert_str_eq(s, "<p>\n");
    free(s);
}

/* A file written into a checked subdirectory (snapshots/K.json) lands in
 * the directory that was checked, even when its path is swapped for a
 * symbolic link to somewhere else between the check and the write. */
Test(rundir, a_subdirectory_swapped_for_a_link_after_its_check_is_not_followed)
{
    char sub[256], old[256], elsewhere[256], err[512] = "";
    snprintf(sub, sizeof sub, "%s/snapshots", tmp);
    snprintf(old, sizeof old, "%s/snapshots.old", tmp);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", tmp);
    cr_assert_eq(mkdir(elsewhere, 0755), 0);
    int dfd = rd_open_sub(sub, err, sizeof err);
    cr_assert_geq(dfd, 0, "%s", err);
    cr_assert_eq(rename(sub, old), 0);
    cr_assert_eq(symlink(elsewhere, sub), 0);
    cJSON *j = cJSON_Parse("{\"snapshot\": 1}");
    cr_assert_eq(rd_write_json_at(dfd, sub, "1.json", j, err, sizeof err), 0, "%s", err);
    cJSON_Delete(j);
    close(dfd);
    char path[300];
    snprintf(path, sizeof path, "%s/1.json", elsewhere);
    cr_assert_neq(access(path, F_OK), 0, "nothing written through the link");
    char *s = slurp("snapshots.old/1.json");
    cr_assert(strstr(s, "\"snapshot\":\t1"), "%s", s);
    free(s);
    /* The checked path that is a link now is refused, not followed. */
    cr_assert_lt(rd_open_sub(sub, err, sizeof err), 0);
    cr_assert(strstr(err, "a symbolic link: not followed"), "%s", err);
}

Test(rundir, a_history_that_is_a_symbolic_link_is_refused)
{
    SpsaParam p[1] = { { .name = "A", .start = 5, .theta = 5, .min = 0, .max = 10, .c_end = 1, .r_end = 0.002 } };
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 20);
    SpsaState st;
    char err[512] = "";
    cr_assert_eq(spsa_init(&st, p, 1, &cfg, 1, err, sizeof err), 0, "%s", err);
    /* a dangling link: a new history would be created at its target */
    char from[256], to[256];
    snprintf(to, sizeof to, "%s/victim", tmp);
    snprintf(from, sizeof from, "%s/%s", tmp, HISTORY_FILE);
    cr_assert_eq(symlink(to, from), 0);
    History h;
    cr_assert_eq(hist_open(&h, tmp, &st, 0, err, sizeof err), -1, "a history through a symbolic link was opened");
    cr_assert(strstr(err, "symbolic link") && strstr(err, HISTORY_FILE), "%s", err);
    cr_assert_neq(access(to, F_OK), 0, "the link's target was created");
    spsa_free(&st);
}

/* ---- every path of a run directory: a planted link or FIFO is refused ---------------- */

TestSuite(rundirpaths, .init = rundir_setup, .fini = tmp_remove, .timeout = 300);

/* Which commands touch a path of a run directory (CASE stands for the copy
 * under test); status and report only report (their exit code is not
 * checked: they show what they can and say what they left out). */
typedef struct {
    const char *path;
    const char *cmds[6];
} PathCase;

static const PathCase PATH_CASES[] = {
    { "state.json", { "resume CASE -spsa games=60", "status CASE", "export CASE", "report CASE",
                      "verify CASE -rounds 2 -sprt off -restart" } },
    { "history.csv", { "resume CASE -spsa games=60", "status CASE", "report CASE" } },
    { "games.pgn", { "resume CASE -spsa games=60" } },
    { "log", { "resume CASE -spsa games=60" } },
    { "lock", { "resume CASE -spsa games=60", "verify CASE -rounds 2 -sprt off -restart" } },
    { "validation.csv", { "resume CASE -spsa games=60", "status CASE", "export CASE -snapshot best", "report CASE" } },
    { "snapshots", { "resume CASE -spsa games=60", "export CASE -snapshot 1",
                     "verify CASE -snapshot 1 -rounds 2 -sprt off -restart" } },
    { "snapshots/1.json", { "export CASE -snapshot 1", "verify CASE -snapshot 1 -rounds 2 -sprt off -restart" } },
    { "verify.json", { "verify CASE -rounds 2 -sprt off", "status CASE" } },
    { "verify", { "verify CASE -rounds 2 -sprt off -restart" } },
    { "verify/tuned.json", { "verify CASE -rounds 2 -sprt off -restart" } },
    { "report.html", { "report CASE" } },
};

/* The victim a link points to: a file, or a directory holding one. */
static void victims_create(void)
{
    write_file("victim", "precious\n");
    char d[256];
    snprintf(d, sizeof d, "%s/victimdir", tmp);
    cr_assert_eq(mkdir(d, 0755), 0);
    write_file("victimdir/precious", "precious\n");
}

static void victims_intact(const char *what)
{
    char *v = slurp("victim");
    cr_assert_str_eq(v, "precious\n", "%s: the link's target was written to", what);
    free(v);
    cr_assert_eq(shell("ls -A %s/victimdir", tmp), 0);
    cr_assert_str_eq(out, "precious\n", "%s: the linked directory now holds:\n%s", what, out);
    v = slurp("victimdir/precious");
    cr_assert_str_eq(v, "precious\n", "%s: a file in the linked directory was written to", what);
    free(v);
}

/* A run with everything a run directory can hold (history, PGN and log
 * inside it, validation points and their snapshots, a verify, a report;
 * 10 openings held out: validation plays 4, the verifies claim 2 each) in
 * tmp/r; then for each path of PATH_CASES and each command that touches it,
 * a copy of tmp/r with that path a symbolic link (to a file or directory
 * outside) or a FIFO: the command says which path it refused and why,
 * within 20 s (timeout(1) kills a hang: exit 124), exits non-zero (status
 * aside), and writes nothing through the link.  Before, resume appended to
 * a planted validation.csv link and wrote snapshots into a linked
 * directory, and status and export -snapshot best hung on a FIFO. */
Test(rundirpaths, a_link_or_fifo_at_any_path_of_a_run_directory_is_refused)
{
    command_fixture();
    char run[2048];
    snprintf(run, sizeof run,
             TUNE " run -engine cmd=" FAKESPSA " -params file=%s/spec2.txt -each nodes=1 -maxmoves 20 "
                  "-openings file=tests/data/book/first-moves.epd -spsa games=40 -validate every=0.5 games=4 holdout=0.5 "
                  "-concurrency 2 -pgnout file=%s/r/games.pgn -log file=%s/r/log -out %s/r",
             tmp, tmp, tmp, tmp);
    cr_assert_eq(shell("%s", run), 0, "%s", out);
    cr_assert_eq(shell(TUNE " verify %s/r -rounds 2 -sprt off", tmp), 0, "%s", out);
    cr_assert_eq(shell(TUNE " report %s/r", tmp), 0, "%s", out);
    victims_create();
    int checked = 0;
    for (size_t i = 0; i < sizeof PATH_CASES / sizeof PATH_CASES[0]; i++) {
        const PathCase *pc = &PATH_CASES[i];
        for (int kind = 0; kind < 2; kind++) {
            for (int c = 0; c < 6 && pc->cmds[c]; c++) {
                char what[1024], cmd[1024], casedir[256], target[256];
                snprintf(casedir, sizeof casedir, "%s/c", tmp);
                snprintf(target, sizeof target, "%s/c/%s", tmp, pc->path);
                /* the copy's state names its own PGN and log (the run's settings hold absolute paths) */
                cr_assert_eq(shell("rm -rf %s && cp -a %s/r %s && sed -i 's#%s/r/#%s/c/#g' %s/state.json && rm -rf %s",
                                   casedir, tmp, casedir, tmp, tmp, casedir, target),
                             0, "%s", out);
                bool dir = strcmp(pc->path, "snapshots") == 0 || strcmp(pc->path, "verify") == 0;
                if (kind == 0)
                    cr_assert_eq(shell("ln -s %s/%s %s", tmp, dir ? "victimdir" : "victim", target), 0, "%s", out);
                else
                    cr_assert_eq(mkfifo(target, 0644), 0, "mkfifo %s: %s", target, strerror(errno));
                /* CASE -> the copy */
                char args[512];
                const char *at = strstr(pc->cmds[c], "CASE");
                snprintf(args, sizeof args, "%.*s%s%s", (int)(at - pc->cmds[c]), pc->cmds[c], casedir, at + 4);
                snprintf(what, sizeof what, "%s as a %s, `%s`", pc->path, kind ? "FIFO" : "symbolic link", args);
                snprintf(cmd, sizeof cmd, "timeout 20 " TUNE " %s", args);
                int rc = shell("%s", cmd);
                cr_assert_neq(rc, 124, "%s: hung (killed after 20 s):\n%s", what, out);
                if (strncmp(args, "status", 6) != 0 && strncmp(args, "report", 6) != 0)
                    cr_expect_neq(rc, 0, "%s: exit 0:\n%s", what, out);
                if (strncmp(args, "report", 6) == 0 && strcmp(pc->path, "report.html") != 0) {
                    /* the page says what it left out */
                    char *html = slurp("c/report.html");
                    strncat(out, html, sizeof out - strlen(out) - 1);
                    free(html);
                }
                const char *base = strrchr(pc->path, '/') ? strrchr(pc->path, '/') + 1 : pc->path;
                bool named = strstr(out, base) != NULL;
                bool why = strstr(out, "symbolic link") || strstr(out, "not a regular file") ||
                           strstr(out, "not a directory");
                cr_expect(named && why, "%s: no message naming the path and why:\n%s", what, out);
                struct stat sb;
                cr_expect(lstat(target, &sb) == 0 && (kind ? S_ISFIFO(sb.st_mode) : S_ISLNK(sb.st_mode)),
                          "%s: the planted %s was replaced", what, kind ? "FIFO" : "link");
                victims_intact(what);
                checked++;
            }
        }
    }
    cr_assert_geq(checked, 40);
}

/* rd_remove_tree: the tree gone, depth first, a link in it removed and not
 * followed (what it names outside stays), a name with a quote and spaces
 * as any other, an absent tree no error. */
Test(rundir, a_tree_is_removed_without_following_its_links)
{
    cr_assert_eq(shell("mkdir -p \"%s/it's a tree/a/b\" && echo x > \"%s/it's a tree/a/b/f\" && echo keep > %s/outside"
                       " && ln -s %s/outside \"%s/it's a tree/a/link\" && ln -s %s \"%s/it's a tree/up\"",
                       tmp, tmp, tmp, tmp, tmp, tmp, tmp),
                 0);
    char dir[600], err[512];
    snprintf(dir, sizeof dir, "%s/it's a tree", tmp);
    cr_assert_eq(rd_remove_tree(dir, err, sizeof err), 0, "%s", err);
    cr_expect_neq(access(dir, F_OK), 0, "the tree is gone");
    char *kept = slurp("outside");
    cr_expect_str_eq(kept, "keep\n", "what a link named is still there");
    free(kept);
    cr_expect_eq(rd_remove_tree(dir, err, sizeof err), 0, "an absent tree: %s", err);
}
