/* The search.  Read top to bottom: tables, helpers, making and unmaking
 * moves, quiescence search, the alpha-beta search with its selectivity
 * (each step a block named after the idea), and iterative deepening with
 * aspiration windows. */
#include "errmsg.h"
#include "search.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "history.h"
#include "lbr.h"
#include "movepick.h"
#include "params.h"
#include "see.h"
#include "timeman.h"
#include "tt.h"

/* Node types (Knuth and Moore): the first child of a PV node is PV, the
 * others expected cut nodes; the first child of a cut node is an expected
 * all node, its later children cut nodes again; children of all nodes are
 * cut nodes. */
enum { NODE_PV, NODE_CUT, NODE_ALL };

/* The search stack: per ply, the node's static eval and the continuation
 * table that follows the move being searched from it (NULL for a null
 * move), so that a node's move ordering sees the moves one and two plies
 * back. */
typedef struct {
    int static_eval;  /* SCORE_NONE when in check */
    ContTable *cont;
    Move excluded;    /* the hash move, while a singular extension test searches without it */
    int double_ext;   /* double extensions on the path to the child of the move being searched */
} Frame;

struct Searcher {
    Position pos;
    /* Learned move ordering; survives between searches until cleared. */
    History hist;
    /* Reset at the start of each search. */
    LbrStore lbr;
    Frame stack[MAX_PLY + 1];
    Move pv[MAX_PLY + 1][MAX_PLY + 1];
    int pv_len[MAX_PLY + 1];
    uint64_t nodes;
    uint64_t fhr, fhr_after_null; /* fail-high reductions (and after a failed null move) */
    uint64_t singular[4];         /* see SearchResult */
    /* The root move that last beat alpha at full depth in this iteration,
     * played if the iteration is cut short. */
    Move root_best;
    /* Nodes spent under each root move in this search, by from and to. */
    uint64_t root_nodes[64 * 64];
    bool restrict_root; /* go searchmoves with at least one legal move */
    int seldepth, root_depth;
    bool stopped;
    /* The current search's limits. */
    const SearchLimits *lim;
    atomic_bool *stop;
    TimeManager tm;
    int64_t wall_start;  /* tm_now() at the start: the time the info lines report */
    uint64_t info_nodes; /* the node count of the last info line printed */
};

/* ---- Lookups in the tables derived from the parameters (params.h) ------- */

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

int search_lmr_base(bool noisy, int depth, int moves)
{
    return params_lmr_table[noisy][clampi(depth, 1, LMR_DIM - 1)][clampi(moves, 1, LMR_DIM - 1)];
}

int search_lmp_limit(bool improving, int depth) { return params_lmp_table[improving][clampi(depth, 0, LMP_DIM - 1)]; }

/* ---- Helpers ------------------------------------------------------------ */

void search_limits_init(SearchLimits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->time[WHITE] = lim->time[BLACK] = -1;
}

Searcher *searcher_new(void)
{
    Searcher *s = calloc(1, sizeof *s);
    if (s)
        searcher_clear(s);
    return s;
}

void searcher_free(Searcher *s) { free(s); }

void searcher_clear(Searcher *s)
{
    history_clear(&s->hist);
    lbr_clear(&s->lbr);
}

/* Polled at every node: a wall clock is read every TM_POLL_NODES nodes, a
 * clock that counts nodes at every node.  The first iteration always
 * completes so that there is a best move. */
static bool out_of_time(Searcher *s)
{
    if (s->stopped)
        return true;
    if (s->root_depth <= 1)
        return false;
    if (s->stop && atomic_load_explicit(s->stop, memory_order_relaxed))
        s->stopped = true;
    else if (s->lim->nodes && s->nodes >= s->lim->nodes)
        s->stopped = true;
    else if (s->tm.hard >= 0 && (s->tm.nodes_per_ms || (s->nodes & (TM_POLL_NODES - 1)) == 0)
             && tm_hard_done(&s->tm, tm_reading(&s->tm, s->nodes)))
        s->stopped = true;
    return s->stopped;
}

/* Dead material; a repetition whose earlier occurrence lies strictly after
 * the root (ply plies back is the root itself), or a third occurrence
 * counting the game before the root; or the fifty-move rule, unless the
 * move that reached the hundredth ply gave checkmate. */
bool search_is_draw(const Position *p, int ply)
{
    if (pos_insufficient_material(p) || pos_repeated_within(p, ply - 1) || pos_repetitions(p) >= 2)
        return true;
    if (!pos_fifty(p))
        return false;
    if (!pos_in_check(p))
        return true;
    MoveList legal;
    gen_legal(p, &legal, GEN_ALL);
    return legal.count > 0;
}

/* Is m one of the root moves `go searchmoves` allows? */
static bool root_allows(const SearchLimits *lim, Move m)
{
    if (lim->nsearchmoves == 0)
        return true;
    for (int i = 0; i < lim->nsearchmoves; i++)
        if (lim->searchmoves[i] == m)
            return true;
    return false;
}

static bool tt_cuts(const TTHit *tt, int alpha, int beta)
{
    return tt->bound == BOUND_EXACT || (tt->bound == BOUND_LOWER && tt->score >= beta)
           || (tt->bound == BOUND_UPPER && tt->score <= alpha);
}

/* Is the static eval better than two plies ago (four if then in check)? */
static bool is_improving(const Searcher *s, int ply)
{
    int now = s->stack[ply].static_eval, before = SCORE_NONE;
    if (ply >= 2)
        before = s->stack[ply - 2].static_eval;
    if (before == SCORE_NONE && ply >= 4)
        before = s->stack[ply - 4].static_eval;
    return before == SCORE_NONE || now > before;
}

/* The static eval the search works with: the raw eval corrected by the
 * correction history and damped by the fifty-move count. */
static int search_eval(Searcher *s, const Position *p, int raw)
{
    int v = history_corrected_eval(&s->hist, p, raw);
    if (Rule50Enabled)
        v = v * (Rule50Plies - pos_halfmove(p)) / Rule50Plies;
    return v;
}

static void update_pv(Searcher *s, int ply, Move m)
{
    s->pv[ply][0] = m;
    memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)s->pv_len[ply + 1] * sizeof(Move));
    s->pv_len[ply] = s->pv_len[ply + 1] + 1;
}

/* ---- Making and unmaking moves ------------------------------------------ */

/* Plays m and prefetches the table entry of the position it leads to. */
static void make_move(Searcher *s, Move m)
{
    pos_make(&s->pos, m);
    tt_prefetch(pos_key(&s->pos));
}

/* Plays m from the alpha-beta node at `ply`: records in the node's frame
 * the continuation table that follows m (the children's move ordering reads
 * it) and makes it.  The quiescence search
 * plays its moves with make_move alone: its nodes read no frame. */
static void do_move(Searcher *s, int ply, Move m)
{
    s->stack[ply].cont = history_cont_table(&s->hist, &s->pos, m);
    make_move(s, m);
}

/* Takes back the move made by do_move or make_move.  The frame is left as
 * it is: the next move made from the node overwrites it. */
static void undo_move(Searcher *s) { pos_unmake(&s->pos); }

/* Passes the move at the alpha-beta node at `ply` (null move pruning): no
 * continuation table follows a null move. */
static void do_null_move(Searcher *s, int ply)
{
    s->stack[ply].cont = NULL;
    pos_make_null(&s->pos);
    tt_prefetch(pos_key(&s->pos));
}

static void undo_null_move(Searcher *s) { pos_unmake_null(&s->pos); }

/* ---- Quiescence search -------------------------------------------------- */

static int qsearch(Searcher *s, int alpha, int beta, int ply)
{
    Position *p = &s->pos;
    s->pv_len[ply] = 0;
    if (out_of_time(s))
        return 0;
    s->nodes++;
    if (ply > s->seldepth)
        s->seldepth = ply;

    if (search_is_draw(p, ply))
        return SCORE_DRAW;
    const bool in_check = pos_in_check(p);
    if (ply >= MAX_PLY - 1 || !pos_has_room(p))
        return in_check ? SCORE_DRAW : evaluate(p);

    TTHit tt;
    bool tt_hit = tt_probe(pos_key(p), ply, &tt);
    if (tt_hit && tt_cuts(&tt, alpha, beta))
        return tt.score;

    const int old_alpha = alpha;
    int best = -SCORE_INF, stand = SCORE_NONE, raw_eval = SCORE_NONE;
    if (!in_check) {
        /* Stand pat: the side to move need not capture. */
        raw_eval = tt_hit && tt.eval != SCORE_NONE ? tt.eval : evaluate(p);
        stand = search_eval(s, p, raw_eval);
        if (stand >= beta)
            return stand;
        if (stand > alpha)
            alpha = stand;
        best = stand;
    }

    MovePicker mp;
    if (in_check)
        mp_init(&mp, p, tt_hit ? tt.move : MOVE_NONE, NULL, NULL, NULL, ply);
    else
        mp_init_qsearch(&mp, p, tt_hit ? tt.move : MOVE_NONE);

    Move m, best_move = MOVE_NONE;
    int played = 0;
    while ((m = mp_next(&mp)) != MOVE_NONE) {
        if (!in_check) {
            /* Delta pruning: even the captured material cannot reach alpha. */
            if (QsFutilityEnabled && stand + see_capture_gain(p, m) + QsFutilityMargin <= alpha)
                continue;
            /* SEE pruning: the exchange loses material. */
            if (QsSeeEnabled && !see_ge(p, m, QsSeeThreshold))
                continue;
        }

        make_move(s, m);
        int score = -qsearch(s, -beta, -alpha, ply + 1);
        undo_move(s);
        if (s->stopped)
            return 0;
        played++;

        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                update_pv(s, ply, m);
                if (score >= beta)
                    break;
                alpha = score;
            }
        }
    }

    if (in_check && played == 0)
        return score_mated_in(ply);

    int bound = best >= beta ? BOUND_LOWER : best > old_alpha ? BOUND_EXACT : BOUND_UPPER;
    tt_store(pos_key(p), ply, best_move, best, raw_eval, 0, bound);
    return best;
}

/* Sets s up to search p without limits (no clock, nodes or stop flag), as
 * if an iteration of depth root_depth were running. */
static void start_unlimited(Searcher *s, const Position *p, int root_depth)
{
    static const SearchLimits unlimited = {.depth = 0};
    /* The states after the current one are never read: not copied. */
    memcpy(&s->pos, p, offsetof(Position, st) + (size_t)(p->hist + 1) * sizeof p->st[0]);
    s->lim = &unlimited;
    s->stop = NULL;
    s->stopped = false;
    s->nodes = 0;
    s->seldepth = 0;
    s->root_depth = root_depth;
    tm_init(&s->tm, &(TmLimits){.start = tm_now(), .time_left = -1});
}

int search_static_eval(Searcher *s, const Position *p) { return search_eval(s, p, evaluate(p)); }

int search_qsearch(Searcher *s, const Position *p)
{
    start_unlimited(s, p, 0);
    return qsearch(s, -SCORE_INF, SCORE_INF, 0);
}

/* ---- Alpha-beta search -------------------------------------------------- */

static int search(Searcher *s, int alpha, int beta, int depth, int ply, int node)
{
    Position *p = &s->pos;
    const bool pv_node = node == NODE_PV, root = ply == 0;

    if (depth <= 0)
        return qsearch(s, alpha, beta, ply);

    s->pv_len[ply] = 0;
    if (!root && out_of_time(s))
        return 0;
    s->nodes++;
    if (ply > s->seldepth)
        s->seldepth = ply;
    const bool in_check = pos_in_check(p);

    if (!root) {
        /* Draw detection. */
        if (search_is_draw(p, ply))
            return SCORE_DRAW;
        if (ply >= MAX_PLY - 1 || !pos_has_room(p))
            return in_check ? SCORE_DRAW : evaluate(p);
        /* Mate distance pruning: no line from here beats a shorter mate. */
        alpha = alpha > score_mated_in(ply) ? alpha : score_mated_in(ply);
        beta = beta < score_mate_in(ply + 1) ? beta : score_mate_in(ply + 1);
        if (alpha >= beta)
            return alpha;
    }

    /* A singular extension test searches this node again without its hash
     * move: no cutoff by the table, no pruning by the static eval, nothing
     * stored (the result is not the node's). */
    Frame *f = &s->stack[ply];
    const Move excluded = f->excluded;
    const int path_double_ext = ply > 0 ? s->stack[ply - 1].double_ext : 0;
    f->double_ext = path_double_ext;

    /* Transposition table: a deep enough result ends a non-PV node. */
    TTHit tt;
    const bool tt_hit = tt_probe(pos_key(p), ply, &tt);
    const Move tt_move = tt_hit && tt.move != MOVE_NONE && pos_is_legal(p, tt.move) ? tt.move : MOVE_NONE;
    const bool tt_noisy = tt_move != MOVE_NONE && move_is_noisy(tt_move);
    if (tt_hit && !pv_node && !excluded && tt.depth >= depth && tt_cuts(&tt, alpha, beta))
        return tt.score;

    /* Static evaluation (the table keeps it raw, the search uses it
     * corrected), sharpened by a TT bound (not in a singular test: the
     * bound is the excluded move's), and the improving flag. */
    int eval = SCORE_NONE, raw_eval = SCORE_NONE;
    if (in_check) {
        f->static_eval = SCORE_NONE;
    } else {
        raw_eval = tt_hit && tt.eval != SCORE_NONE ? tt.eval : evaluate(p);
        f->static_eval = eval = search_eval(s, p, raw_eval);
        if (tt_hit && !excluded && !score_is_mate(tt.score)
            && (tt.bound == BOUND_EXACT || (tt.bound == BOUND_LOWER && tt.score > eval)
                || (tt.bound == BOUND_UPPER && tt.score < eval)))
            eval = tt.score;
    }
    const bool improving = !in_check && is_improving(s, ply);
    bool null_failed = false; /* a null-move search here failed low: a threat */

    if (!pv_node && !in_check && !excluded) {
        /* Reverse futility pruning: the eval beats beta by a margin per ply. */
        if (RfpEnabled && depth <= RfpDepth && !score_is_mate(beta)
            && eval - RfpMargin * (depth - improving) >= beta)
            return eval;

        /* Razoring: far below alpha at low depth, let the quiescence
         * search confirm that nothing but captures could help. */
        if (RazorEnabled && depth <= RazorDepth && eval + RazorMargin * depth < alpha) {
            int score = qsearch(s, alpha, alpha + 1, ply);
            if (s->stopped)
                return 0;
            if (score <= alpha)
                return score;
        }

        /* Null move pruning: if passing still fails high, a move will too.
         * Not without pieces (zugzwang) nor twice in a row. */
        if (NmpEnabled && depth >= NmpMinDepth && eval >= beta && f->static_eval >= beta
            && !score_is_mate(beta) && pos_last_move(p, 0) != MOVE_NULL
            && has_non_pawn_material(p, p->side)) {
            int eval_r = (eval - beta) / NmpEvalScale;
            int r = NmpBase + depth / NmpDepthDivisor + (eval_r < NmpEvalCap ? eval_r : NmpEvalCap);
            do_null_move(s, ply);
            int score = -search(s, -beta, -beta + 1, depth - r, ply + 1, NODE_ALL);
            undo_null_move(s);
            if (s->stopped)
                return 0;
            if (score >= beta)
                return score >= SCORE_MATE_IN_MAX ? beta : score;
            null_failed = true;
        }

        /* ProbCut: a capture that beats beta by a margin in a quiescence
         * and then a reduced search will very likely beat beta at full
         * depth.  Not when the table already says it will not. */
        const int pbeta = beta + ProbcutMargin;
        if (ProbcutEnabled && depth >= ProbcutMinDepth && !score_is_mate(beta) && pbeta < SCORE_MATE_IN_MAX
            && !(tt_hit && tt.depth >= depth - ProbcutReduction + 1 && tt.score < pbeta)) {
            MovePicker pc;
            mp_init_qsearch(&pc, p, tt_noisy ? tt_move : MOVE_NONE);
            Move m;
            while ((m = mp_next(&pc)) != MOVE_NONE) {
                if (!see_ge(p, m, pbeta - eval))
                    continue;
                do_move(s, ply, m);
                int score = -qsearch(s, -pbeta, -pbeta + 1, ply + 1);
                if (score >= pbeta && !s->stopped)
                    score = -search(s, -pbeta, -pbeta + 1, depth - ProbcutReduction, ply + 1, node == NODE_CUT ? NODE_ALL : NODE_CUT);
                undo_move(s);
                if (s->stopped)
                    return 0;
                if (score >= pbeta) {
                    tt_store(pos_key(p), ply, m, score, raw_eval, depth - ProbcutReduction + 1, BOUND_LOWER);
                    return score;
                }
            }
        }
    }

    /* Internal iterative reductions: without a hash move this node was not
     * searched well before; search it shallower.  Reduce more if it was
     * searched before at least as deep as now (its stored depth is the
     * reduced one) and still left no move. */
    if (!root && !excluded && IirEnabled && tt_move == MOVE_NONE && depth >= IirMinDepth
        && (node != NODE_ALL || IirAllNodes)) {
        depth -= IirReduction;
        if (tt_hit && tt.depth >= depth)
            depth -= IirExtraReduction;
        depth = depth < 1 ? 1 : depth;
    }

    /* Fail-high reductions (Feldmann): at an expected cut node whose eval
     * beats beta even after the static threat against us, search one ply
     * shallower; there is no re-search. */
    if (FhrEnabled && node == NODE_CUT && !in_check && !excluded && depth >= FhrMinDepth && !score_is_mate(beta)
        && !(FhrSkipAfterNull && null_failed) && eval - FhrMargin >= beta && eval - eval_threat(p) - FhrMargin >= beta) {
        s->fhr++;
        s->fhr_after_null += null_failed;
        depth -= FhrReduction;
        depth = depth < 1 ? 1 : depth;
    }

    const ContTables ct = {ply >= 1 ? s->stack[ply - 1].cont : NULL, ply >= 2 ? s->stack[ply - 2].cont : NULL};
    CheckInfo ci;
    check_info_init(p, &ci);
    MovePicker mp;
    mp_init(&mp, p, tt_move, &s->hist, &ct, &s->lbr, ply);
    const int old_alpha = alpha;
    int best = -SCORE_INF, played = 0, nquiets = 0, nnoisy = 0;
    Move m, best_move = MOVE_NONE, quiets[64], noisy[32];

    while ((m = mp_next(&mp)) != MOVE_NONE) {
        if ((root && s->restrict_root && !root_allows(s->lim, m)) || m == excluded)
            continue;
        const bool quiet = !move_is_noisy(m);
        const bool gives_check = pos_gives_check_fast(p, &ci, m);

        if (!root && best > -SCORE_MATE_IN_MAX) {
            if (quiet && !gives_check && !in_check && !pv_node) {
                /* Late move pruning: late quiet moves at low depth are skipped. */
                if (LmpEnabled && depth <= LmpDepth && played >= params_lmp_table[improving][depth])
                    continue;
                /* Futility pruning: a quiet move will not lift the eval to alpha,
                 * judged at the depth LMR would search it at. */
                const int fdepth = FutilityLmrDepth ? depth - search_lmr_base(false, depth, played + 1) / 100 : depth;
                if (FutilityEnabled && fdepth <= FutilityDepth
                    && eval + FutilityBase + FutilityMargin * (fdepth > 0 ? fdepth : 0) <= alpha)
                    continue;
            }
            /* SEE pruning: the move loses too much material to matter. */
            if (SeePruneEnabled && depth <= SeePruneDepth
                && !see_ge(p, m, quiet ? -SeeQuietMargin * depth : -SeeNoisyMargin * depth * depth))
                continue;
        }

        /* Singular extension: is the hash move the only good one?  Search
         * the others at half depth against a bound just below its score. */
        int ext = CheckExtEnabled && gives_check;
        if (SeEnabled && !root && m == tt_move && !excluded && depth >= SeMinDepth && ply < 2 * s->root_depth
            && (tt.bound & BOUND_LOWER) && tt.depth >= depth - SeTtDepthMargin && !score_is_mate(tt.score)) {
            int sbeta = tt.score - SeMargin * depth;
            sbeta = sbeta > -SCORE_MATE_IN_MAX ? sbeta : -SCORE_MATE_IN_MAX + 1; /* not a mate bound */
            f->excluded = m;
            const int v = search(s, sbeta - 1, sbeta, (depth - 1) / 2, ply, pv_node ? NODE_ALL : node);
            f->excluded = MOVE_NONE;
            if (s->stopped)
                return 0;
            if (v < sbeta) {
                ext = !pv_node && v < sbeta - SeDoubleMargin && path_double_ext < SeDoubleLimit ? 2 : 1;
                s->singular[ext - 1]++;
            } else if (SeMultiCut && sbeta >= beta) {
                s->singular[2]++;
                return sbeta; /* another move beats beta too */
            } else if (SeNegativeExt && tt.score >= beta) {
                s->singular[3]++;
                ext = -1;
            }
        }
        f->double_ext = path_double_ext + (ext == 2);
        const int new_depth = depth - 1 + ext;
        const int child = pv_node ? NODE_CUT : (node == NODE_CUT && played == 0) ? NODE_ALL : NODE_CUT;

        /* Late move reductions: late moves are searched shallower first;
         * never below depth 1, never an extension. */
        int r = 0;
        if (LmrEnabled && depth >= LmrMinDepth && played >= LmrMinMoves) {
            int c = search_lmr_base(!quiet, depth, played + 1);
            if (gives_check)
                c -= LmrCheckAdj;
            if (quiet && mp_is_refutation(&mp, m))
                c -= LmrKillerAdj;
            if (m == mp.lbr)
                c -= LmrLbrAdj;
            if (pv_node)
                c -= LmrPvAdj;
            if (node == NODE_CUT)
                c += LmrCutAdj;
            if (!improving)
                c += LmrImprovingAdj;
            if (quiet && tt_noisy)
                c += LmrTtCaptureAdj;
            if (quiet)
                c -= history_score(&s->hist, p, &ct, m) * 100 / LmrHistDivisor;
            r = clampi(c / 100, 0, new_depth - 1);
        }

        do_move(s, ply, m);
        const uint64_t nodes_before = s->nodes;
        int score = -SCORE_INF;
        const Move root_best_before = s->root_best;
        /* Principal variation search with the triple re-search: reduced null
         * window, then full depth null window, then (PV) the full window. */
        if (r > 0) {
            score = -search(s, -alpha - 1, -alpha, new_depth - r, ply + 1, NODE_CUT);
            if (score > alpha)
                score = -search(s, -alpha - 1, -alpha, new_depth, ply + 1, child);
        } else if (!pv_node || played > 0) {
            score = -search(s, -alpha - 1, -alpha, new_depth, ply + 1, child);
        }
        /* A root move that fails high at full depth is the best so far, even
         * if time runs out during its re-search. */
        if (root && !s->stopped && score > alpha && score > -SCORE_INF)
            s->root_best = m;
        if (pv_node && (played == 0 || (score > alpha && (root || score < beta)))) {
            score = -search(s, -beta, -alpha, new_depth, ply + 1, NODE_PV);
            if (root && !s->stopped)
                s->root_best = score > alpha ? m : root_best_before;
        }
        undo_move(s);
        if (root)
            s->root_nodes[m & 4095] += s->nodes - nodes_before;

        if (s->stopped)
            return 0;
        played++;

        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                if (pv_node)
                    update_pv(s, ply, m);
                if (score >= beta)
                    break;
                alpha = score;
            }
        }
        if (quiet && m != best_move && nquiets < 64)
            quiets[nquiets++] = m;
        else if (!quiet && m != best_move && nnoisy < 32)
            noisy[nnoisy++] = m;
    }

    /* No legal move: mate or stalemate; no other move than the excluded one. */
    if (played == 0)
        return excluded ? alpha : in_check ? score_mated_in(ply) : SCORE_DRAW;

    if (best >= beta)
        history_on_cutoff(&s->hist, p, &ct, ply, depth, best_move, quiets, nquiets, noisy, nnoisy);
    /* Neither the table nor the last best reply learns from a singular
     * test: its best move is the best without the hash move, not the
     * node's. */
    if (!excluded) {
        if (best_move != MOVE_NONE)
            lbr_store(&s->lbr, p, ply, best_move);
        int bound = best >= beta ? BOUND_LOWER : best > old_alpha ? BOUND_EXACT : BOUND_UPPER;
        tt_store(pos_key(p), ply, best_move, best, raw_eval, depth, bound);
        /* Correction history learns where the result says how wrong the
         * static eval was: not after a capture (the eval does not see it),
         * not from a bound on the eval's side of the result. */
        if (!in_check && (best_move == MOVE_NONE || !move_is_noisy(best_move)) && !score_is_mate(best)
            && !(bound == BOUND_LOWER && best <= f->static_eval) && !(bound == BOUND_UPPER && best >= f->static_eval))
            history_correct(&s->hist, p, depth, raw_eval, best);
    }
    return best;
}

int search_excluding(Searcher *s, const Position *p, Move excluded, int beta, int depth)
{
    start_unlimited(s, p, depth + 1);
    s->stack[0] = (Frame){.static_eval = SCORE_NONE};
    s->stack[1] = (Frame){.excluded = excluded};
    int v = search(s, beta - 1, beta, depth, 1, NODE_CUT);
    s->stack[1].excluded = MOVE_NONE;
    return v;
}

Move search_lbr_reply(const Searcher *s, const Position *p, int ply) { return lbr_probe(&s->lbr, p, ply); }

/* ---- Iterative deepening ------------------------------------------------ */

static void print_info(Searcher *s, FILE *out, int depth, int score)
{
    char buf[4096], mv[8];
    int64_t ms = tm_now() - s->wall_start;
    uint64_t nps = s->nodes * 1000 / (uint64_t)(ms > 0 ? ms : 1);
    char sc[32];
    if (score >= SCORE_MATE_IN_MAX)
        snprintf(sc, sizeof sc, "mate %d", (SCORE_MATE - score + 1) / 2);
    else if (score <= -SCORE_MATE_IN_MAX)
        snprintf(sc, sizeof sc, "mate -%d", (SCORE_MATE + score) / 2);
    else
        snprintf(sc, sizeof sc, "cp %d", score);
    int n = snprintf(buf, sizeof buf,
                     "info depth %d seldepth %d multipv 1 score %s nodes %" PRIu64 " nps %" PRIu64
                     " hashfull %d time %" PRId64 " pv",
                     depth, s->seldepth, sc, s->nodes, nps, tt_hashfull(), ms);
    for (int i = 0; i < s->pv_len[0] && n < (int)sizeof buf - 8; i++) {
        move_to_uci(s->pv[0][i], mv);
        n = appendf(buf, sizeof buf, n, " %s", mv);
    }
    fprintf(out, "%s\n", buf);
    fflush(out);
    s->info_nodes = s->nodes;
}

/* One iteration, with an aspiration window around the previous score that
 * widens on a fail; returns the exact score (or anything when stopped). */
static int aspiration(Searcher *s, int depth, int prev)
{
    int delta = AspDelta, alpha = -SCORE_INF, beta = SCORE_INF;
    if (AspEnabled && depth >= AspMinDepth) {
        alpha = prev - delta > -SCORE_INF ? prev - delta : -SCORE_INF;
        beta = prev + delta < SCORE_INF ? prev + delta : SCORE_INF;
    }
    for (;;) {
        int score = search(s, alpha, beta, depth, 0, NODE_PV);
        if (s->stopped)
            return score;
        if (score <= alpha) {
            beta = (alpha + beta) / 2;
            alpha = score - delta > -SCORE_INF ? score - delta : -SCORE_INF;
        } else if (score >= beta) {
            beta = score + delta < SCORE_INF ? score + delta : SCORE_INF;
        } else {
            return score;
        }
        delta += delta / 2;
    }
}

void search_run(Searcher *s, const Position *root, const SearchLimits *lim,
                atomic_bool *stop, FILE *out, SearchResult *res)
{
    memcpy(&s->pos, root, sizeof *root);
    s->lim = lim;
    s->stop = stop;
    s->stopped = false;
    s->nodes = 0;
    s->fhr = s->fhr_after_null = 0;
    memset(s->singular, 0, sizeof s->singular);
    s->seldepth = 0;
    s->root_depth = 0;
    memset(s->root_nodes, 0, sizeof s->root_nodes);
    history_new_search(&s->hist);
    lbr_clear(&s->lbr);
    tt_new_search();

    int us = root->side;
    s->wall_start = lim->start > 0 ? lim->start : tm_now();
    s->info_nodes = 0;
    int64_t clock_start = lim->nodestime > 0 ? 0 : lim->clock ? lim->clock(0, lim->clock_ctx) : s->wall_start;
    /* go infinite: no time limit, only the clock's units. */
    TmLimits tlim = {.start = clock_start, .time_left = -1, .nodes_per_ms = lim->nodestime};
    if (!lim->infinite) {
        tlim.time_left = lim->time[us];
        tlim.inc = lim->inc[us] > 0 ? lim->inc[us] : 0;
        tlim.movestogo = lim->movestogo;
        tlim.movetime = lim->movetime;
        tlim.overhead = lim->overhead;
    }
    tm_init(&s->tm, &tlim);
    s->tm.clock = lim->clock;
    s->tm.clock_ctx = lim->clock_ctx;

    MoveList all, legal;
    gen_legal(root, &all, GEN_ALL);
    legal.count = 0;
    for (int i = 0; i < all.count; i++)
        if (root_allows(lim, all.moves[i]))
            legal.moves[legal.count++] = all.moves[i];
    s->restrict_root = legal.count > 0 && lim->nsearchmoves > 0;
    if (!s->restrict_root)
        legal = all;
    memset(res, 0, sizeof *res);
    res->best = legal.count > 0 ? legal.moves[0] : MOVE_NONE;
    if (all.count == 0) {
        /* Mated or stalemated: say so before `bestmove 0000`. */
        res->score = pos_in_check(root) ? -SCORE_MATE : SCORE_DRAW;
        if (out) {
            fprintf(out, "info depth 0 score %s\n", pos_in_check(root) ? "mate 0" : "cp 0");
            fflush(out);
        }
        return;
    }

    int max_depth = lim->depth > 0 && lim->depth < MAX_PLY - 1 ? lim->depth : MAX_PLY - 1;
    /* A single legal reply under a clock: answer at once. */
    if (legal.count == 1 && s->tm.hard >= 0)
        max_depth = 1;

    int score = 0, stable = 0, scores[MAX_PLY];
    for (int depth = 1; depth <= max_depth; depth++) {
        s->root_depth = depth;
        s->seldepth = 0;
        s->root_best = MOVE_NONE;
        int v = aspiration(s, depth, score);
        if (s->stopped) {
            /* A move that beat the last iteration's choice at this depth. */
            if (s->root_best != MOVE_NONE && s->root_best != res->best) {
                res->best = s->root_best;
                res->ponder = MOVE_NONE;
            }
            break;
        }
        score = v;
        if (s->pv_len[0] > 0) {
            stable = depth > 1 && s->pv[0][0] == res->best ? stable + 1 : 0;
            res->best = s->pv[0][0];
            res->ponder = s->pv_len[0] > 1 ? s->pv[0][1] : MOVE_NONE;
        }
        res->score = score;
        res->depth = depth;
        scores[depth] = score;
        if (out)
            print_info(s, out, depth, score);

        /* Past the soft limit another iteration would likely not finish.
         * The limit scales with the best move's stability, its share of
         * the nodes and the score's fall since two iterations ago. */
        const int best_permille = s->nodes ? (int)(s->root_nodes[res->best & 4095] * 1000 / s->nodes) : -1;
        const int drop = depth > 2 && !score_is_mate(score) && !score_is_mate(scores[depth - 2])
                             ? scores[depth - 2] - score : 0;
        if (tm_soft_done(&s->tm, tm_scale_percent(stable, best_permille, drop), tm_reading(&s->tm, s->nodes))
            || (lim->nodes && s->nodes >= lim->nodes))
            break;
        if (stop && atomic_load(stop))
            break;
    }
    /* The nodes of an iteration cut short: the last info line counts them
     * all (a referee whose clock counts nodes charges that count). */
    if (out && s->nodes != s->info_nodes) {
        int64_t ms = tm_now() - s->wall_start;
        fprintf(out, "info nodes %" PRIu64 " nps %" PRIu64 " time %" PRId64 "\n", s->nodes,
                s->nodes * 1000 / (uint64_t)(ms > 0 ? ms : 1), ms);
        fflush(out);
    }
    res->nodes = s->nodes;
    res->fhr = s->fhr;
    res->fhr_after_null = s->fhr_after_null;
    memcpy(res->singular, s->singular, sizeof res->singular);
    res->time_ms = tm_now() - s->wall_start;
}
