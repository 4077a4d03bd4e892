/* The MPI messages as bytes (tuner/mpi/msg.h), without mpirun: every
 * field a worker sends is range-checked when it arrives at rank 0, a
 * malformed message is refused with a reason, and a result counts only for
 * the rank that was given its pair. */
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

#include "cli.h"
#include "helpers.h"
#include "msg.h"
#include "pgn.h"
#include "pgnscan.h"
#include "rd.h"
#include "hist.h"
#include "state.h"
#include "spsa.h"

static PairResult good_pair(void)
{
    PairResult r;
    memset(&r, 0, sizeof r);
    r.games = 2;
    r.score2[0] = 2;
    r.score2[1] = 1;
    r.ptnml_index = 3;
    r.result[0] = RESULT_WHITE;
    r.result[1] = RESULT_DRAW;
    r.term[0] = TERM_TIME;
    r.term[1] = TERM_REPETITION;
    r.plies[0] = 40;
    r.plies[1] = 90;
    r.time_losses[1] = 1; /* engine 1 lost game 1 on time */
    r.restarts[1] = 2;
    return r;
}

/* Decode r packed as a RESULT into *b (free b->p; m->text points into it):
 * the decoder's return, its reason in why. */
static int decode_result(const PairResult *r, Buf *b, CoordMsg *m, char *why, size_t whylen)
{
    const char *pgn = "[Event \"t\"]\n\n1. e4 1-0\n\n";
    msg_pack_result(b, 42, r, pgn, strlen(pgn));
    cr_assert(!b->oom);
    return msg_decode_coord(T_RESULT, b->p, b->len, m, why, whylen);
}

Test(dist, a_well_formed_result_is_accepted_as_sent)
{
    PairResult r = good_pair();
    CoordMsg m;
    Buf b = { 0 };
    char why[256] = "";
    cr_assert_eq(decode_result(&r, &b, &m, why, sizeof why), 0, "%s", why);
    cr_assert_eq(m.seq, 42);
    cr_assert_eq(memcmp(&m.res, &r, sizeof r), 0);
    cr_assert_eq(m.textlen, strlen("[Event \"t\"]\n\n1. e4 1-0\n\n"));
    cr_assert_eq(strncmp(m.text, "[Event", 6), 0);
    free(b.p);
}

/* Case i of the test below: r with one field broken; the name the refusal must give. */
static const char *break_field(int i, PairResult *r)
{
    switch (i) {
    case 0: r->crashes[0] = -1; return "crashes[0]";
    case 1: r->time_losses[1] = -2147483647; return "time_losses[1]";
    case 2: r->illegal[0] = 3; return "illegal[0]";
    case 3: r->restarts[0] = 5; return "restarts[0]";
    case 4: r->restarts[1] = -1; return "restarts[1]";
    case 5: r->games = 3; return "games";
    case 6: r->games = 0; return "games";
    case 7: r->score2[1] = 7; return "score2[1]";
    case 8: r->score2[0] = 1; return "score2[0]";
    case 9: r->result[0] = 9; return "result[0]";
    case 10: r->term[1] = TERM_STOPPED; return "term[1]";
    case 11: r->term[0] = (Termination)-3; return "term[0]";
    case 12: r->plies[0] = -1; return "plies[0]";
    case 13: r->plies[1] = GAME_MAX_PLIES + 1; return "plies[1]";
    case 14: r->ptnml_index = 4; return "ptnml_index";
    case 15: r->crashes[0] = 1; r->illegal[0] = 1; return "games lost";
    case 16: r->games = 1; r->ptnml_index = -1; return "game 2 of a single game";
    default: return NULL;
    }
}

Test(dist, every_out_of_range_field_of_a_result_is_refused)
{
    const char *field;
    for (int i = 0; (field = break_field(i, &(PairResult){ 0 })); i++) {
        PairResult r = good_pair();
        break_field(i, &r);
        CoordMsg m;
        Buf b = { 0 };
        char why[256] = "";
        cr_expect_eq(decode_result(&r, &b, &m, why, sizeof why), -1, "case %d (%s) accepted", i, field);
        free(b.p);
        cr_expect(strstr(why, field), "case %d: '%s' does not name %s", i, why, field);
        cr_expect(m.has_seq && m.seq == 42, "case %d: the pair of a refused result is known", i);
    }
}

Test(dist, a_result_whose_framing_is_wrong_is_refused)
{
    PairResult r = good_pair();
    Buf b = { 0 };
    msg_pack_result(&b, 5, &r, "1-0", 3);
    CoordMsg m;
    char why[256];
    /* cut short, one byte too many, a length that does not match, a NUL in the text */
    cr_expect_eq(msg_decode_coord(T_RESULT, b.p, b.len - 1, &m, why, sizeof why), -1);
    cr_expect_eq(msg_decode_coord(T_RESULT, b.p, 4, &m, why, sizeof why), -1);
    cr_expect(!m.has_seq, "4 bytes hold no sequence number");
    msg_put(&b, "x", 1);
    cr_expect_eq(msg_decode_coord(T_RESULT, b.p, b.len, &m, why, sizeof why), -1);
    b.len--;
    b.p[b.len - 2] = '\0';
    cr_expect_eq(msg_decode_coord(T_RESULT, b.p, b.len, &m, why, sizeof why), -1);
    cr_expect(strstr(why, "NUL"), "%s", why);
    free(b.p);
}

Test(dist, want_done_and_abandon_are_range_checked)
{
    CoordMsg m;
    char why[256];
    Buf b = { 0 };
    msg_put_i32(&b, -3);
    msg_put_str(&b, "node1");
    cr_expect_eq(msg_decode_coord(T_WANT, b.p, b.len, &m, why, sizeof why), -1, "negative credits");
    b.len = 0;
    msg_put_i32(&b, 5);
    msg_put_str(&b, "node1");
    cr_expect_eq(msg_decode_coord(T_WANT, b.p, b.len, &m, why, sizeof why), 0, "%s", why);
    cr_expect_eq(m.n, 5);
    cr_expect_str_eq(m.host, "node1");
    b.len = 0;
    msg_put_i32(&b, 17);
    msg_put_str(&b, "node1");
    cr_expect_eq(msg_decode_coord(T_DONE, b.p, b.len, &m, why, sizeof why), -1, "a code match_play never returns");
    b.len = 0;
    char host[MSG_HOST_MAX + 1];
    memset(host, 'h', MSG_HOST_MAX);
    host[MSG_HOST_MAX] = '\0';
    msg_put_i32(&b, 0);
    msg_put_str(&b, host);
    cr_expect_eq(msg_decode_coord(T_DONE, b.p, b.len, &m, why, sizeof why), -1, "a host name longer than its field");
    b.len = 0;
    msg_put_u64(&b, 9);
    cr_expect_eq(msg_decode_coord(T_ABANDON, b.p, b.len, &m, why, sizeof why), 0, "%s", why);
    cr_expect_eq(m.seq, 9);
    cr_expect_eq(msg_decode_coord(T_ABANDON, b.p, b.len - 1, &m, why, sizeof why), -1);
    cr_expect_eq(msg_decode_coord(T_JOB, b.p, b.len, &m, why, sizeof why), -1, "rank 0 is sent no JOB");
    free(b.p);
}

Test(dist, a_job_round_trips_and_a_bad_one_is_refused)
{
    static PairJob j, back;
    memset(&j, 0, sizeof j);
    j.id = 11;
    j.opening = 3;
    j.games = 1;
    j.swap = true;
    snprintf(j.fen, sizeof j.fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
    j.nopts[1] = 1;
    snprintf(j.opts[1][0].name, sizeof j.opts[1][0].name, "Alpha");
    snprintf(j.opts[1][0].value, sizeof j.opts[1][0].value, "12");
    snprintf(j.round, sizeof j.round, "3.17");
    snprintf(j.names[0], sizeof j.names[0], "snapshot 3");
    snprintf(j.names[1], sizeof j.names[1], "start");
    snprintf(j.event, sizeof j.event, "validation point 3");
    Buf b = { 0 };
    msg_pack_job(&b, 77, &j);
    uint64_t seq;
    char why[256] = "";
    cr_assert_eq(msg_decode_job(b.p, b.len, &seq, &back, why, sizeof why), 0, "%s", why);
    cr_expect_eq(seq, 77);
    cr_expect(back.id == 11 && back.opening == 3 && back.games == 1 && back.swap && back.nopts[0] == 0 &&
              back.nopts[1] == 1);
    cr_expect_str_eq(back.opts[1][0].value, "12");
    cr_expect_str_eq(back.round, "3.17");
    cr_expect_str_eq(back.names[0], "snapshot 3");
    cr_expect_str_eq(back.names[1], "start");
    cr_expect_str_eq(back.event, "validation point 3");
    cr_expect_eq(msg_decode_job(b.p, b.len - 1, &seq, &back, why, sizeof why), -1);
    /* games = 5: the i32 after seq, id, opening */
    int32_t five = 5;
    memcpy(b.p + 24, &five, sizeof five);
    cr_expect_eq(msg_decode_job(b.p, b.len, &seq, &back, why, sizeof why), -1);
    cr_expect(strstr(why, "games"), "%s", why);
    free(b.p);
}

Test(dist, a_configuration_with_an_unterminated_string_is_refused)
{
    static MatchConfig cfg;
    match_config_init(&cfg);
    cfg.nengines = 2;
    cfg.concurrency = 2;
    snprintf(cfg.eng[0].cmd, sizeof cfg.eng[0].cmd, "bin/ratchet");
    snprintf(cfg.eng[1].cmd, sizeof cfg.eng[1].cmd, "bin/ratchet");
    ConfigHead h;
    msg_config_head(&h, false, 2);
    Buf b = { 0 };
    msg_put(&b, &h, sizeof h);
    msg_put(&b, &cfg, sizeof cfg);
    static MatchConfig got;
    ConfigHead gh;
    char why[256] = "";
    cr_assert_eq(msg_decode_config(b.p, b.len, &gh, &got, why, sizeof why), 0, "%s", why);
    cr_expect_str_eq(got.eng[1].cmd, "bin/ratchet");
    memset(b.p + sizeof h + offsetof(MatchConfig, eng[1].cmd), 'x', sizeof cfg.eng[1].cmd);
    cr_expect_eq(msg_decode_config(b.p, b.len, &gh, &got, why, sizeof why), -1);
    cr_expect(strstr(why, "engine 2"), "%s", why);
    cr_expect_eq(msg_decode_config(b.p, b.len - 1, &gh, &got, why, sizeof why), -1);
    free(b.p);
    match_config_free(&cfg);
}

Test(dist, a_result_counts_only_for_the_rank_that_holds_the_pair)
{
    OutPair out[3] = { { .seq = 1, .worker = 1 }, { .seq = 2, .worker = 2 }, { .seq = 3, .worker = 1 } };
    int owner = 0;
    cr_expect_eq(out_find(out, 3, 2, 2, &owner), 1);
    cr_expect_eq(out_find(out, 3, 3, 1, &owner), 2);
    cr_expect_eq(out_find(out, 3, 2, 1, &owner), OUT_NOT_YOURS, "rank 1 reports rank 2's pair");
    cr_expect_eq(owner, 2);
    cr_expect_eq(out_find(out, 3, 1, 2, &owner), OUT_NOT_YOURS);
    cr_expect_eq(owner, 1);
    cr_expect_eq(out_find(out, 3, 4, 1, NULL), OUT_NONE);
}

/* ---- the run directory: files planted by someone else ---------------------------- */

static void rundir_setup(void)
{
    tmp_create("/tmp/ratchet-dist-XXXXXX");
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

/* ---- the PGN: a write that fails, a game cut short --------------------------------- */

#define TUNE "bin/ratchet-tune"
#define FAKESPSA "build/fake/fakespsa"
#define FAKEUCI "build/fake/fakeuci"

TestSuite(pgnfile, .init = rundir_setup, .fini = tmp_remove, .timeout = 60);

typedef struct {
    long games, unfinished, warnings;
} ScanCount;

static void count_end(void *ctx, int game, const char *result, long line)
{
    (void)game;
    (void)line;
    ScanCount *c = ctx;
    c->games++;
    c->unfinished += result == NULL;
}

static void count_warn(void *ctx, long line, const char *msg)
{
    ScanCount *c = ctx;
    c->warnings++;
    cr_log_warn("line %ld: %s", line, msg);
}

/* tmp/name read as PGN: it must hold only whole games; their number. */
static long whole_games(const char *name)
{
    char *text = slurp(name);
    ScanCount c = { 0 };
    PgnScanEvents ev = { .ctx = &c, .end = count_end, .warn = count_warn };
    pgn_scan(text, strlen(text), &ev);
    free(text);
    cr_assert_eq(c.warnings, 0, "%s: the PGN reader warns", name);
    cr_assert_eq(c.unfinished, 0, "%s: a game without a result", name);
    return c.games;
}

static const char GAME[] = "[Event \"t\"]\n[Site \"?\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 {+0.10/3 0.001s} Qh4# "
                           "{Black mates} 0-1\n\n";

Test(pgnfile, the_whole_prefix_ends_after_the_last_result)
{
    size_t n = strlen(GAME);
    char two[1024];
    snprintf(two, sizeof two, "%s%s", GAME, GAME);
    cr_expect_eq(pgn_whole_prefix(two, 2 * n, true), 2 * n);
    cr_expect_eq(pgn_whole_prefix(two, 2 * n - 2, true), 2 * n - 2, "without the blank line");
    cr_expect_eq(pgn_whole_prefix(two, 2 * n - 5, true), n, "cut in the result");
    cr_expect_eq(pgn_whole_prefix(two, n + 50, true), n, "cut in the movetext");
    cr_expect_eq(pgn_whole_prefix(two, n + 30, true), n, "cut in a tag");
    cr_expect_eq(pgn_whole_prefix(two, n + 1, true), n, "only its first byte");
    cr_expect_eq(pgn_whole_prefix(two, 50, true), 0, "the first game cut short");
    cr_expect_eq(pgn_whole_prefix(two, 50, false), (size_t)-1, "not the file's start: no place to cut");
    cr_expect_eq(pgn_whole_prefix("", 0, true), 0);
    const char *tag = "[Event \"a 1-0";
    cr_expect_eq(pgn_whole_prefix(tag, strlen(tag), true), 0, "a result inside a tag is not a game's end");
}

Test(pgnfile, opening_a_file_that_ends_in_a_partial_game_cuts_it_back)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s%.*s", GAME, GAME, 60, GAME);
    write_file("g.pgn", text);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/g.pgn", tmp);
    StderrCapture cap;
    char said[1024];
    stderr_capture_begin(&cap);
    PgnFile *f = pgn_open(path, err, sizeof err);
    stderr_capture_end(&cap, said, sizeof said);
    cr_assert_not_null(f, "%s", err);
    cr_expect(strstr(said, "partial game") && strstr(said, "g.pgn"), "%s", said);
    PgnText t = { (char *)GAME, strlen(GAME), strlen(GAME) };
    cr_assert_eq(pgn_append(f, &t), 0);
    pgn_close(f);
    cr_assert_eq(whole_games("g.pgn"), 3);

    stderr_capture_begin(&cap); /* a whole file is left as it is, silently */
    f = pgn_open(path, err, sizeof err);
    stderr_capture_end(&cap, said, sizeof said);
    cr_assert_not_null(f, "%s", err);
    pgn_close(f);
    cr_expect_str_eq(said, "");
    cr_assert_eq(whole_games("g.pgn"), 3);
}

/* In a child with a file size limit (EFBIG, SIGXFSZ ignored): games are
 * appended until one does not fit; that one is cut off again. */
Test(pgnfile, a_failed_write_leaves_only_whole_games)
{
    char path[256];
    snprintf(path, sizeof path, "%s/g.pgn", tmp);
    size_t n = strlen(GAME);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        child_output("log");
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { (rlim_t)(3 * n + n / 2), (rlim_t)(3 * n + n / 2) };
        setrlimit(RLIMIT_FSIZE, &rl);
        char err[256];
        PgnFile *f = pgn_open(path, err, sizeof err);
        if (!f)
            _exit(2);
        PgnText t = { (char *)GAME, n, n };
        int ok = 0;
        while (ok < 10 && pgn_append(f, &t) == 0)
            ok++;
        int again = pgn_append(f, &t);
        pgn_close(f);
        _exit(ok == 3 && again == -1 ? 0 : 10 + ok);
    }
    int rc = wait_child(pid);
    char *log = slurp("log");
    cr_assert_eq(rc, 0, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "File too large") && strstr(log, "cut back to its last whole game"), "%s", log);
    free(log);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_expect_eq((size_t)sb.st_size, 3 * n, "half a game is left in the file");
    cr_assert_eq(whole_games("g.pgn"), 3);
}

/* bin/ratchet-tune with a's words, output into tmp/log; with fsize > 0 under
 * that file size limit.  The exit code, the log in *out (free it). */
static int tune(Args *a, long fsize, char **out)
{
    cr_assert(access(TUNE, X_OK) == 0, "%s is missing: run make first", TUNE);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        child_output("log");
        if (fsize > 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = { (rlim_t)fsize, (rlim_t)fsize };
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(TUNE, a->v);
        _exit(127);
    }
    int rc = wait_child(pid);
    *out = slurp("log");
    args_free(a);
    return rc;
}

Test(pgnfile, a_match_stops_on_a_failed_pgn_write_with_exit_1)
{
    cr_assert(access(FAKEUCI, X_OK) == 0, "%s is missing", FAKEUCI);
    Args a = { .n = 0 };
    add(&a, TUNE);
    add(&a, "match");
    for (int e = 0; e < 2; e++) {
        add(&a, "-engine");
        add(&a, "cmd=%s", FAKEUCI);
        add(&a, "name=%c", 'A' + e);
    }
    add(&a, "-each");
    add(&a, "nodes=10");
    add(&a, "-rounds");
    add(&a, "40");
    add(&a, "-maxmoves");
    add(&a, "30");
    add(&a, "-pgnout");
    add(&a, "%s/m.pgn", tmp);
    char *log;
    int rc = tune(&a, 16384, &log);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "m.pgn") && strstr(log, "cut back to its last whole game"), "%s", log);
    cr_expect(strstr(log, "the PGN file could not be written"), "%s", log);
    free(log);
    long games = whole_games("m.pgn");
    cr_expect(games > 0 && games < 80, "%ld games", games);
}

static void run_words(Args *a, const char *cmd, const char *dir, int games)
{
    cr_assert(access(FAKESPSA, X_OK) == 0, "%s is missing", FAKESPSA);
    add(a, TUNE);
    add(a, "%s", cmd);
    if (!strcmp(cmd, "resume")) {
        add(a, "%s/%s", tmp, dir);
        return;
    }
    add(a, "-engine");
    add(a, "cmd=%s", FAKESPSA);
    if (games > 200)
        add(a, "args=--think 5");
    add(a, "-params");
    add(a, "file=%s/spec.txt", tmp);
    add(a, "-each");
    add(a, "nodes=1");
    add(a, "-openings");
    add(a, "file=%s/book.epd", tmp);
    add(a, "-maxmoves");
    add(a, "30");
    add(a, "-spsa");
    add(a, "games=%d", games);
    add(a, "-concurrency");
    add(a, "2");
    add(a, "-srand");
    add(a, "7");
    add(a, "-out");
    add(a, "%s/%s", tmp, dir);
    add(a, "-pgnout");
    add(a, "file=%s/%s.pgn", tmp, dir);
}

/* A run whose PGN cannot grow stops with exit 1 and says why; its PGN holds
 * whole games.  A resume cuts a game left half-written (a kill during a
 * write) and finishes with a PGN of whole games. */
Test(pgnfile, a_run_stops_on_a_failed_pgn_write_and_resume_leaves_whole_games)
{
    Args a = { .n = 0 };
    run_words(&a, "run", "r", 100);
    char *log;
    int rc = tune(&a, 40000, &log);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "cut back to its last whole game"), "%s", log);
    cr_expect(strstr(log, "stopped after") && strstr(log, "the PGN file could not be written"), "%s", log);
    free(log);
    long before = whole_games("r.pgn");
    cr_assert_gt(before, 0);

    /* half a game, as a kill during a write leaves it */
    char path[256];
    snprintf(path, sizeof path, "%s/r.pgn", tmp);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("[Event \"ratchet-tune match\"]\n[Site \"?\"]\n\n1. e4 {+0.10/1 0.000s} e5 {+0.", f);
    fclose(f);

    Args b = { .n = 0 };
    run_words(&b, "resume", "r", 0);
    rc = tune(&b, 0, &log);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, log);
    cr_expect(strstr(log, "ended in a partial game") && strstr(log, "r.pgn"), "%s", log);
    free(log);
    long after = whole_games("r.pgn");
    cr_expect_geq(after, 100, "%ld games before the resume, %ld after", before, after);
}

/* After a failed save the stop line tells what is on disk: the games the
 * state there counts, the batches a resume replays. */
Test(pgnfile, after_a_failed_save_the_stop_line_counts_what_is_on_disk)
{
    Args a = { .n = 0 };
    run_words(&a, "run", "s", 400);
    cr_assert(access(TUNE, X_OK) == 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        child_output("log");
        execv(TUNE, a.v);
        _exit(127);
    }
    /* A directory where the state's temporary file goes: the next save fails. */
    char hist[256], blocker[256];
    snprintf(hist, sizeof hist, "%s/s/%s", tmp, HISTORY_FILE);
    snprintf(blocker, sizeof blocker, "%s/s/state.json.tmp", tmp);
    for (int i = 0; i < 2000; i++) {
        struct stat sb;
        if (stat(hist, &sb) == 0 && sb.st_size > 200)
            break;
        usleep(5000);
    }
    int made = -1;
    for (int i = 0; i < 1000 && made < 0; i++) /* the saver's own temporary file may be there for a moment */
        if ((made = mkdir(blocker, 0755)) < 0)
            usleep(1000);
    cr_assert_eq(made, 0, "%s", strerror(errno));
    int rc = wait_child(pid);
    args_free(&a);
    rmdir(blocker);
    char *log = slurp("log");
    cr_assert_eq(rc, 1, "exit %d: %s", rc, log);
    RunState disk;
    char err[1024], sdir[256];
    snprintf(sdir, sizeof sdir, "%s/s", tmp);
    cr_assert_eq(runstate_load(&disk, sdir, err, sizeof err), 0, "%s", err);
    char want[256];
    snprintf(want, sizeof want, "the one on disk counts %llu of 400 games and has %zu batch%s in flight",
             (unsigned long long)disk.games, disk.spsa.ninflight, disk.spsa.ninflight == 1 ? "" : "es");
    cr_expect(strstr(log, want), "expected '%s' in:\n%s", want, log);
    runstate_free(&disk);
    free(log);
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
 * inside it, validation points and their snapshots, a verify, a report) in
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
                  "-openings file=tests/data/book/first-moves.epd -spsa games=40 -validate every=0.5 games=4 "
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
