/* Move history: the one gravity update keeps entries bounded; a cutoff
 * gives the best quiet move a bonus in the butterfly and both continuation
 * tables and the quiet moves tried before it a malus; capture history
 * rewards the capture that cut and punishes the captures tried before; the
 * switches take each part out of the scores; the picker puts the last best
 * reply before or after the killers by LbrBeforeKillers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "history.h"
#include "lbr.h"
#include "movepick.h"
#include "params.h"
#include "engine.h"

static History *h;
static Position *pos;

static void setup(void)
{
    engine_init();
    h = calloc(1, sizeof *h);
    pos = malloc(sizeof *pos);
    cr_assert(h && pos);
}

static void teardown(void)
{
    free(h);
    free(pos);
    char err[128];
    param_set(PARAM_ID_HistContEnabled, 1, err, sizeof err);
    param_set(PARAM_ID_HistCaptureEnabled, 1, err, sizeof err);
    param_set(PARAM_ID_CorrEnabled, 0, err, sizeof err); /* its default */
}

TestSuite(history, .init = setup, .fini = teardown);

static Move move(const char *uci)
{
    Move m = parse_uci(pos, uci);
    cr_assert_neq(m, MOVE_NONE, "%s is not legal here", uci);
    return m;
}

Test(history, gravity_keeps_entries_within_the_bound)
{
    int16_t e = 0;
    for (int i = 0; i < 1000; i++)
        history_gravity(&e, 4000);
    cr_expect_leq(e, HIST_MAX);
    cr_expect_geq(e, HIST_MAX * 9 / 10, "saturates near the bound: %d", e);
    for (int i = 0; i < 1000; i++)
        history_gravity(&e, -HIST_MAX * 4);
    cr_expect_geq(e, -HIST_MAX);
    cr_expect_leq(e, -HIST_MAX * 9 / 10, "%d", e);
}

Test(history, a_quiet_cutoff_updates_butterfly_and_both_continuations)
{
    pos_startpos(pos);
    Move e4 = move("e2e4");
    ContTable *two_back = history_cont_table(h, pos, e4);
    pos_make(pos, e4);
    Move e5 = move("e7e5");
    ContTable *one_back = history_cont_table(h, pos, e5);
    pos_make(pos, e5);

    ContTables ct = {one_back, two_back};
    Move nf3 = move("g1f3"), d4 = move("d2d4");
    Move tried[] = {d4};
    int depth = 6, bonus = history_bonus(depth);
    cr_assert_gt(bonus, 0);
    history_on_cutoff(h, pos, &ct, 2, depth, nf3, tried, 1, NULL, 0);

    int wn = piece_make(WHITE, KNIGHT), wp = piece_make(WHITE, PAWN);
    cr_expect_eq(h->butterfly[WHITE][move_from(nf3)][move_to(nf3)], bonus);
    cr_expect_eq((*one_back)[wn][move_to(nf3)], bonus);
    cr_expect_eq((*two_back)[wn][move_to(nf3)], bonus);
    cr_expect_eq((*one_back)[wp][move_to(d4)], -bonus);
    cr_expect_eq((*two_back)[wp][move_to(d4)], -bonus);
    /* The tables of other earlier moves are untouched. */
    cr_expect_eq(h->cont[wp][move_to(d4)][wn][move_to(nf3)], 0);

    cr_expect_eq(history_score(h, pos, &ct, nf3), 3 * bonus);
    cr_expect_eq(history_score(h, pos, &ct, d4), -3 * bonus);
    ContTables only_one = {one_back, NULL};
    cr_expect_eq(history_score(h, pos, &only_one, nf3), 2 * bonus);
    cr_expect_eq(history_score(h, pos, NULL, nf3), bonus);
    cr_expect_eq(h->killers[2][0], nf3);

    char err[128];
    cr_assert_eq(param_set(PARAM_ID_HistContEnabled, 0, err, sizeof err), 0, "%s", err);
    cr_expect_eq(history_score(h, pos, &ct, nf3), bonus, "continuation history switched off");
}

Test(history, capture_history_rewards_the_cutting_capture)
{
    /* White can take on d5 with the pawn or the knight. */
    char err[256];
    cr_assert_eq(pos_from_fen(pos, "4k3/8/8/3pp3/4P3/2N5/8/4K3 w - - 0 1", err, sizeof err), 0, "%s", err);
    Move pxd5 = move("e4d5"), nxd5 = move("c3d5"), quiet = move("e1f2");
    Move noisy[] = {pxd5};
    int depth = 5, bonus = history_bonus(depth);
    history_on_cutoff(h, pos, NULL, 1, depth, nxd5, NULL, 0, noisy, 1);
    cr_expect_eq(history_capture(h, pos, nxd5), bonus);
    cr_expect_eq(history_capture(h, pos, pxd5), -bonus);
    cr_expect_eq(h->killers[1][0], MOVE_NONE, "a capture is no killer");

    /* A quiet cutoff punishes the captures tried before it. */
    history_on_cutoff(h, pos, NULL, 1, depth, quiet, NULL, 0, noisy, 1);
    cr_expect_lt(history_capture(h, pos, pxd5), -bonus);

    cr_assert_eq(param_set(PARAM_ID_HistCaptureEnabled, 0, err, sizeof err), 0, "%s", err);
    cr_expect_eq(history_capture(h, pos, nxd5), 0, "capture history switched off");
}

/* The move picker's place for the last best reply: by default first among
 * the quiet moves (after the killer), with LbrBeforeKillers before the
 * killer; either way every legal move comes exactly once. */
Test(history, last_best_reply_before_or_after_the_killers)
{
    LbrStore *lbr = calloc(1, sizeof *lbr);
    cr_assert_not_null(lbr);
    pos_startpos(pos);
    pos_make(pos, move("e2e4"));
    Move nf6 = move("g8f6"), nc6 = move("b8c6");
    lbr_store(lbr, pos, 1, nf6);
    history_on_cutoff(h, pos, NULL, 1, 4, nc6, NULL, 0, NULL, 0);
    char err[128];
    for (int early = 0; early <= 1; early++) {
        cr_assert_eq(param_set(PARAM_ID_LbrBeforeKillers, early, err, sizeof err), 0, "%s", err);
        MovePicker mp;
        mp_init(&mp, pos, MOVE_NONE, h, NULL, lbr, 1);
        Move order[MAX_MOVES], m;
        int n = 0;
        while ((m = mp_next(&mp)) != MOVE_NONE)
            order[n++] = m;
        cr_expect_eq(n, 20, "LbrBeforeKillers=%d: %d moves", early, n);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                cr_expect_neq(order[i], order[j], "a move came twice");
        cr_expect_eq(order[0], early ? nf6 : nc6, "LbrBeforeKillers=%d", early);
        cr_expect_eq(order[1], early ? nc6 : nf6, "LbrBeforeKillers=%d", early);
    }
    cr_assert_eq(param_set(PARAM_ID_LbrBeforeKillers, 0, err, sizeof err), 0, "%s", err);
    free(lbr);
}

/* The correction history learns result - eval for the side to move and the
 * pawn structure, and adds it to that structure's later evals. */
Test(history, correction_learns_the_result_minus_the_eval_per_pawn_structure)
{
    char err[128];
    const char *fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4";
    cr_assert_eq(param_set(PARAM_ID_CorrEnabled, 1, err, sizeof err), 0, "%s", err); /* off by default */
    cr_assert_eq(pos_from_fen(pos, fen, err, sizeof err), 0, "%s", err);
    cr_expect_eq(history_corrected_eval(h, pos, 30), 30, "nothing learned yet");
    cr_expect_eq(history_corrected_eval(h, pos, SCORE_NONE), SCORE_NONE, "no eval stays no eval");
    /* Searches that keep coming out 60 cp above an eval of 30. */
    for (int i = 0; i < 200; i++)
        history_correct(h, pos, 20, 30, 90);
    int c = history_corrected_eval(h, pos, 30);
    cr_expect(c >= 88 && c <= 90, "corrected eval %d, want about 90", c);
    cr_expect_eq(history_corrected_eval(h, pos, -100), -100 + c - 30, "the same shift for any eval");

    /* A move that leaves the pawns alone keeps the entry; the other side to
     * move has its own. */
    Position same = *pos;
    cr_assert_eq(pos_from_fen(&same, "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKBR1 w Qkq - 5 4", err,
                              sizeof err), 0, "%s", err);
    cr_expect_eq(history_corrected_eval(h, &same, 30), c, "same pawns, same side");
    cr_assert_eq(pos_from_fen(&same, "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4", err,
                              sizeof err), 0, "%s", err);
    cr_expect_eq(history_corrected_eval(h, &same, 30), 30, "black to move has its own entry");
    cr_assert_eq(pos_from_fen(&same, "r1bqkb1r/pppp1ppp/2n2n2/4p3/3PP3/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 0 4", err,
                              sizeof err), 0, "%s", err);
    cr_expect_eq(history_corrected_eval(h, &same, 30), 30, "other pawns, other entry");

    /* Shallow updates move the entry less than deep ones. */
    History *h2 = calloc(1, sizeof *h2);
    cr_assert(h2);
    for (int i = 0; i < 10; i++)
        history_correct(h2, pos, 1, 0, 100);
    int shallow = history_corrected_eval(h2, pos, 0);
    memset(h2, 0, sizeof *h2);
    for (int i = 0; i < 10; i++)
        history_correct(h2, pos, 10, 0, 100);
    int deep = history_corrected_eval(h2, pos, 0);
    cr_expect(shallow > 0 && deep > 2 * shallow, "ten updates: %d at depth 1, %d at depth 10", shallow, deep);
    /* One result far from the eval (a tactic) moves it by at most
     * CorrWeightMax/256 of the cap. */
    memset(h2, 0, sizeof *h2);
    history_correct(h2, pos, 30, 0, 3000);
    int one = history_corrected_eval(h2, pos, 0);
    cr_expect(one > 0 && one <= CorrMax * CorrWeightMax / 256, "one update of +3000: %d", one);
    /* The correction is capped at CorrMax. */
    for (int i = 0; i < 500; i++)
        history_correct(h2, pos, 20, 0, 2000);
    int capped = history_corrected_eval(h2, pos, 0);
    cr_expect(capped >= CorrMax - 1 && capped <= CorrMax, "%d, capped at %d", capped, CorrMax);
    free(h2);

    param_set(PARAM_ID_CorrEnabled, 0, err, sizeof err);
    cr_expect_eq(history_corrected_eval(h, pos, 30), 30, "switched off: the raw eval");
}
