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
#include "msg.h"

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
    r.wall_nodes[0] = 123456;
    r.wall_ms[0] = 100;
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

Test(mpimsg, a_well_formed_result_is_accepted_as_sent)
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
    case 17: r->wall_nodes[1] = -1; return "wall_nodes[1]";
    case 19: r->wall_nodes[0] = 200000000000000000LL; return "wall_nodes[0]";
    case 18: r->wall_ms[0] = 20000000000LL; return "wall_ms[0]";
    default: return NULL;
    }
}

Test(mpimsg, every_out_of_range_field_of_a_result_is_refused)
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

Test(mpimsg, a_result_whose_framing_is_wrong_is_refused)
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

Test(mpimsg, want_done_and_abandon_are_range_checked)
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

Test(mpimsg, a_job_round_trips_and_a_bad_one_is_refused)
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

Test(mpimsg, a_configuration_with_an_unterminated_string_is_refused)
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

Test(mpimsg, a_result_counts_only_for_the_rank_that_holds_the_pair)
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
