/* One refereed game between two engine processes.  See game.h. */
#include "errmsg.h"
#include "game.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    GRACE_MS = 1000,      /* after a forfeit on time: how long `stop` may take */
    MATE_CP = 32000,
    MATE_MAX = 1000,      /* longest mate distance read from an engine, moves */
    GO_MAX = 256          /* room for the "\ngo ...\n" tail */
};

/* The most nodes read from one info line: far beyond any search, and a
 * clock in nodes (at most 10^10 ms x 10^5 nodes per ms) cannot overflow
 * when charged it. */
#define NODES_MAX 1000000000000000LL

/* ---- time controls ------------------------------------------------------ */

static void fmt_seconds(char *buf, size_t len, int64_t ms)
{
    if (ms % 1000 == 0)
        snprintf(buf, len, "%lld", (long long)(ms / 1000));
    else
        snprintf(buf, len, "%g", (double)ms / 1000.0);
}

void tc_format(const TimeControl *t, char *buf, size_t len)
{
    char a[32], b[32];
    size_t n = 0;
    buf[0] = '\0';
    if (tc_has_clock(t)) {
        fmt_seconds(a, sizeof a, t->base_ms);
        fmt_seconds(b, sizeof b, t->inc_ms);
        if (t->moves > 0)
            n = appendf(buf, len, n, "%d/", t->moves);
        n = appendf(buf, len, n, t->inc_ms > 0 ? "%s+%s" : "%s", a, b);
    } else if (t->movetime_ms > 0) {
        fmt_seconds(a, sizeof a, t->movetime_ms);
        n = appendf(buf, len, n, "%s/move", a);
    }
    if (t->depth > 0 && n < len)
        n = appendf(buf, len, n, "%s%d plies", n ? ", " : "", t->depth);
    if (t->nodes > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld nodes", n ? ", " : "", (long long)t->nodes);
    if (t->nodestime > 0 && n < len)
        snprintf(buf + n, len - n, " nodestime=%lld", (long long)t->nodestime);
}

void tc_format_pgn(const TimeControl *t, char *buf, size_t len)
{
    char a[32], b[32];
    if (tc_has_clock(t)) {
        fmt_seconds(a, sizeof a, t->base_ms);
        fmt_seconds(b, sizeof b, t->inc_ms);
        if (t->moves > 0)
            snprintf(buf, len, "%d/%s", t->moves, a);
        else if (t->inc_ms > 0)
            snprintf(buf, len, "%s+%s", a, b);
        else
            snprintf(buf, len, "%s", a);
    } else if (t->movetime_ms > 0) {
        fmt_seconds(a, sizeof a, t->movetime_ms);
        snprintf(buf, len, "1/%s", a);
    } else {
        snprintf(buf, len, "-");
        return;
    }
    size_t n = strlen(buf);
    if (t->nodestime > 0 && n < len)
        snprintf(buf + n, len - n, " nodestime=%lld", (long long)t->nodestime);
}

void tc_format_limits(const TimeControl *t, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (t->nodes > 0)
        n = appendf(buf, len, n, "nodes=%lld", (long long)t->nodes);
    if (t->depth > 0)
        appendf(buf, len, n, "%sdepth=%d", n ? " " : "", t->depth);
}

bool time_losses_alarming(uint64_t losses, uint64_t games)
{
    return losses > 0 && losses * 100 > games * TIME_LOSS_ALARM_PERCENT;
}

void time_losses_text(char *buf, size_t len, uint64_t losses, uint64_t games)
{
    snprintf(buf, len, "%llu time loss%s in %llu games: the machine may be too loaded for this clock; use nodestime= "
             "(a clock that counts nodes, see docs/match.md)", (unsigned long long)losses, losses == 1 ? "" : "es",
             (unsigned long long)games);
}

/* ---- texts -------------------------------------------------------------- */

const char *game_result_text(int result)
{
    switch (result) {
    case RESULT_WHITE: return "1-0";
    case RESULT_BLACK: return "0-1";
    case RESULT_DRAW: return "1/2-1/2";
    default: return "*";
    }
}

const char *game_pgn_termination(Termination t)
{
    switch (t) {
    case TERM_CHECKMATE: case TERM_STALEMATE: case TERM_REPETITION: case TERM_FIFTY: case TERM_MATERIAL:
        return "normal";
    case TERM_ADJ_DRAW: case TERM_ADJ_RESIGN: case TERM_MAXMOVES: return "adjudication";
    case TERM_TIME: return "time forfeit";
    case TERM_STALL: return "stalled connection";
    case TERM_ILLEGAL: return "illegal move";
    case TERM_CRASH: return "abandoned";
    default: return "unterminated";
    }
}

void game_describe(const GameRecord *r, char *buf, size_t len)
{
    static const char *side[2] = { "White", "Black" };
    int winner = r->result == RESULT_WHITE ? WHITE : BLACK;
    int loser = r->culprit >= 0 ? r->culprit : !winner;
    const char *d = r->detail;
    switch (r->term) {
    case TERM_CHECKMATE: snprintf(buf, len, "%s mates", side[winner]); break;
    case TERM_STALEMATE: snprintf(buf, len, "Draw by stalemate"); break;
    case TERM_REPETITION: snprintf(buf, len, "Draw by 3-fold repetition"); break;
    case TERM_FIFTY: snprintf(buf, len, "Draw by fifty moves rule"); break;
    case TERM_MATERIAL: snprintf(buf, len, "Draw by insufficient mating material"); break;
    case TERM_ADJ_DRAW: snprintf(buf, len, "Draw by adjudication"); break;
    case TERM_ADJ_RESIGN: snprintf(buf, len, "%s wins by adjudication", side[winner]); break;
    case TERM_MAXMOVES: snprintf(buf, len, "Draw by adjudication: %s", d[0] ? d : "maximum number of moves"); break;
    case TERM_TIME:
        if (r->result == RESULT_DRAW)
            snprintf(buf, len, "Draw: %s runs out of time, %s has a bare king", side[loser], side[!loser]);
        else
            snprintf(buf, len, "%s loses on time", side[loser]);
        break;
    case TERM_STALL: snprintf(buf, len, "%s's connection stalls", side[loser]); break;
    case TERM_ILLEGAL: snprintf(buf, len, "%s makes an illegal move: %s", side[loser], d); break;
    case TERM_CRASH: snprintf(buf, len, "%s disconnects (%s)", side[loser], d); break;
    case TERM_STOPPED: snprintf(buf, len, "Game interrupted"); break;
    case TERM_BAD_START: snprintf(buf, len, "Invalid start position: %s", d); break;
    default: snprintf(buf, len, "No result"); break;
    }
}

/* ---- the referee -------------------------------------------------------- */

int game_scratch_init(GameScratch *w)
{
    w->pos = malloc(sizeof *w->pos);
    w->cap = 256 + 6 * (size_t)GAME_MAX_PLIES + GO_MAX;
    w->cmd = malloc(w->cap);
    if (!w->pos || !w->cmd) {
        game_scratch_free(w);
        return -1;
    }
    return 0;
}

void game_scratch_free(GameScratch *w)
{
    free(w->pos);
    free(w->cmd);
    w->pos = NULL;
    w->cmd = NULL;
}

bool game_rules_end(const Position *pos, int *result, Termination *term)
{
    MoveList list;
    gen_legal(pos, &list, GEN_ALL);
    if (list.count == 0) {
        if (pos_in_check(pos)) {
            *result = pos->side == WHITE ? RESULT_BLACK : RESULT_WHITE;
            *term = TERM_CHECKMATE;
        } else {
            *result = RESULT_DRAW;
            *term = TERM_STALEMATE;
        }
        return true;
    }
    Termination t;
    if (pos_insufficient_material(pos))
        t = TERM_MATERIAL;
    else if (pos_repetitions(pos) >= 2)
        t = TERM_REPETITION;
    else if (pos_fifty(pos))
        t = TERM_FIFTY;
    else
        return false;
    *result = RESULT_DRAW;
    *term = t;
    return true;
}

static void forfeit(GameRecord *r, int side, Termination t)
{
    r->result = side == WHITE ? RESULT_BLACK : RESULT_WHITE;
    r->term = t;
    r->culprit = side;
}

/* Out of time against a bare king: the opponent cannot win, so a draw. */
static void time_forfeit(GameRecord *r, const Position *pos, int side)
{
    forfeit(r, side, TERM_TIME);
    if (pos->by_color[!side] == pos_pieces(pos, !side, KING))
        r->result = RESULT_DRAW;
}

/* An engine over its time may still be thinking: ask it to stop; if it
 * does not answer at once, it is hung and goes. */
static void recover(EngineProc *e, GameRecord *r, int side)
{
    if (ep_send(e, "stop") == 0 && ep_wait_for(e, "bestmove", ep_now_ms() + GRACE_MS, NULL) == EP_LINE)
        return;
    ep_kill(e);
    r->dead[side] = true;
}

/* "info ... score cp X | mate N ... depth D ... nodes N": the mover's evaluation and work. */
static void parse_info(const char *s, int32_t *score, int16_t *depth, int64_t *nodes);

bool game_engine_line(const char *line, int32_t *score, int16_t *depth, int64_t *nodes, const char **bm)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (line[0] == 'b' && strncmp(line, "bestmove", 8) == 0 && (line[8] == ' ' || line[8] == '\t' || line[8] == '\0')) {
        *bm = line + 8;
        return true;
    }
    if (line[0] == 'i' && strncmp(line, "info ", 5) == 0 && strncmp(line + 5, "string", 6) != 0)
        parse_info(line, score, depth, nodes);
    return false;
}

Move game_bestmove(const Position *pos, const char **bm, size_t *mlen)
{
    while (**bm == ' ' || **bm == '\t')
        (*bm)++;
    *mlen = strcspn(*bm, " \t");
    char text[8];
    if (*mlen == 0 || *mlen >= sizeof text)
        return MOVE_NONE;
    memcpy(text, *bm, *mlen);
    text[*mlen] = '\0';
    return parse_uci(pos, text);
}

static long clampl(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Numbers out of range (an engine may print anything) are clamped, keeping
 * their signs: a cp score to the mate range, a mate distance to MATE_MAX. */
static void parse_info(const char *s, int32_t *score, int16_t *depth, int64_t *nodes)
{
    const char *p = strstr(s, " score ");
    if (p) {
        p += 7;
        if (strncmp(p, "cp ", 3) == 0) {
            *score = (int32_t)clampl(strtol(p + 3, NULL, 10), -MATE_CP, MATE_CP);
        } else if (strncmp(p, "mate ", 5) == 0) {
            long n = clampl(strtol(p + 5, NULL, 10), -MATE_MAX, MATE_MAX);
            *score = (int32_t)(n > 0 ? MATE_CP - n : -MATE_CP - n);
        }
    }
    p = strstr(s, " depth ");
    if (p)
        *depth = (int16_t)clampl(strtol(p + 7, NULL, 10), 0, INT16_MAX);
    p = nodes ? strstr(s, " nodes ") : NULL;
    if (p) {
        long long v = strtoll(p + 7, NULL, 10);
        *nodes = v < 0 ? 0 : v > NODES_MAX ? NODES_MAX : v;
    }
}

/* Write "\ngo ...\n" at buf; returns its length. */
static size_t format_go(char *buf, const GameSetup *s, const int64_t left[2], const int moves_by[2], int side)
{
    const TimeControl *t = s->tc[side];
    size_t n = 0;
    n = appendf(buf, GO_MAX, n, "\ngo");
    if (tc_has_clock(t)) {
        n = appendf(buf, GO_MAX, n, " wtime %lld btime %lld winc %lld binc %lld", (long long)left[WHITE],
                              (long long)left[BLACK], (long long)s->tc[WHITE]->inc_ms, (long long)s->tc[BLACK]->inc_ms);
        if (t->moves > 0)
            n = appendf(buf, GO_MAX, n, " movestogo %d", t->moves - moves_by[side] % t->moves);
    }
    if (t->movetime_ms > 0)
        n = appendf(buf, GO_MAX, n, " movetime %lld", (long long)t->movetime_ms);
    if (t->nodes > 0)
        n = appendf(buf, GO_MAX, n, " nodes %lld", (long long)t->nodes);
    if (t->depth > 0)
        n = appendf(buf, GO_MAX, n, " depth %d", t->depth);
    buf[n++] = '\n';
    return n;
}

/* Adjudication state across the plies of one game. */
typedef struct {
    int draw_plies;          /* consecutive plies with |score| <= draw score */
    int lose_moves[2];       /* consecutive own moves with score <= -resign score */
    int win_moves[2];        /* ... with score >= resign score */
} AdjState;

/* Called after each move; `irreversible` when it was a capture or a pawn
 * move, which restarts the draw count (as fastchess does). */
static bool adjudicate(const Adjudication *a, AdjState *st, int side, int32_t score, int nply, bool irreversible,
                       GameRecord *r)
{
    if (!a)
        return false;
    bool known = score != GAME_SCORE_NONE;
    if (a->resign) {
        st->lose_moves[side] = known && score <= -a->resign_score ? st->lose_moves[side] + 1 : 0;
        st->win_moves[side] = known && score >= a->resign_score ? st->win_moves[side] + 1 : 0;
        for (int c = 0; c < 2; c++) {
            bool lost = st->lose_moves[c] >= a->resign_movecount &&
                        (!a->resign_twosided || st->win_moves[!c] >= a->resign_movecount);
            if (lost) {
                r->result = c == WHITE ? RESULT_BLACK : RESULT_WHITE;
                r->term = TERM_ADJ_RESIGN;
                return true;
            }
        }
    }
    if (a->draw) {
        bool small = known && score <= a->draw_score && score >= -a->draw_score;
        if (irreversible)
            st->draw_plies = 0;
        st->draw_plies = small ? st->draw_plies + 1 : 0;
        if (nply / 2 >= a->draw_movenumber && st->draw_plies >= 2 * a->draw_movecount) {
            r->result = RESULT_DRAW;
            r->term = TERM_ADJ_DRAW;
            return true;
        }
    }
    if (a->maxmoves > 0 && nply >= 2 * a->maxmoves) {
        r->result = RESULT_DRAW;
        r->term = TERM_MAXMOVES;
        return true;
    }
    return false;
}

/* The game's clocks in each side's units: ms, or with nodestime nodes (the
 * engine is sent the whole ms they are worth). */
typedef struct {
    int64_t unit[2];         /* units per ms: 1, or the side's nodestime */
    int64_t clk[2];          /* what is left on each clock */
    int moves_by[2];         /* moves each side has made on its clock (for movestogo) */
} GameClock;

static void clock_start(GameClock *gc, const GameSetup *s)
{
    for (int c = 0; c < 2; c++) {
        gc->unit[c] = s->tc[c]->nodestime > 0 ? s->tc[c]->nodestime : 1;
        gc->clk[c] = s->tc[c]->base_ms * gc->unit[c];
        gc->moves_by[c] = 0;
    }
}

/* The clock after a move of `side` (as fastchess's TimeControl::updateTime):
 * the move costs its wall time, or with nodestime the nodes it reported
 * (its wall time when it reported none, counted in *unmetered); *spent is
 * that cost in the side's units.  False when it is over the clock or the
 * movetime (plus margin): a loss on time, the clock left as it was.
 * Otherwise the clock is charged, given its increment, and its base again
 * when a period of moves ends. */
static bool clock_update(GameClock *gc, const TimeControl *t, int side, int64_t elapsed, int64_t nodes,
                         int64_t *spent, int *unmetered)
{
    const int64_t u = gc->unit[side];
    *spent = elapsed;
    if (t->nodestime > 0) {
        if (nodes >= 0) {
            *spent = nodes;
        } else {
            *spent = elapsed * u;
            (*unmetered)++;
        }
    }
    if (tc_has_clock(t)) {
        if (*spent > gc->clk[side] + t->margin_ms * u)
            return false;
        gc->clk[side] = (gc->clk[side] > *spent ? gc->clk[side] - *spent : 0) + t->inc_ms * u;
        gc->moves_by[side]++;
        if (t->moves > 0 && gc->moves_by[side] % t->moves == 0)
            gc->clk[side] += t->base_ms * u;
    } else if (t->movetime_ms > 0 && *spent > (t->movetime_ms + t->margin_ms) * u) {
        return false;
    }
    return true;
}

/* The end of the wait for the move asked for at t0; `left` is the mover's
 * clock in ms. */
static int64_t turn_deadline(const TimeControl *t, int64_t left, int64_t t0)
{
    /* A node clock's ms are nodes / nodestime: an engine that searches at
     * a quarter of that rate or more spends them in at most 4x the ms,
     * so its move is waited for that long, or the watchdog when longer. */
    int64_t node_ms = tc_has_clock(t) ? left : t->movetime_ms;
    int64_t node_wall = node_ms < INT64_MAX / 8 ? 4 * node_ms + t->margin_ms : INT64_MAX / 2;
    return t->nodestime > 0  ? t0 + (node_wall > t->watchdog_ms ? node_wall : t->watchdog_ms)
           : tc_has_clock(t) ? t0 + left + t->margin_ms
           : t->movetime_ms ? t0 + t->movetime_ms + t->margin_ms
                            : t0 + t->watchdog_ms;
}

/* One move of the side to move, as the referee takes it. */
typedef struct {
    Move m;
    size_t mlen;             /* its length in UCI notation */
    int32_t score;           /* the mover's last reported score, or GAME_SCORE_NONE */
    int16_t depth;
    int64_t spent;           /* its cost on the clock, in the side's units */
} Turn;

/* The engine of `side` is gone (its pipe closed): killed with its group,
 * how it ended in r->detail, the game lost by it; false, as play_turn. */
static bool crashed(EngineProc *e, GameRecord *r, int side)
{
    ep_kill(e);
    ep_describe_exit(e, r->detail, sizeof r->detail);
    forfeit(r, side, TERM_CRASH);
    r->dead[side] = true;
    return false;
}

/* One turn of the side to move (as fastchess's playMove): the position
 * (w->cmd, len bytes) and `go` sent, the engine's lines read up to its
 * bestmove, the move checked for legality and charged to the clock.  The
 * move in *tn, not yet made; false when the game ended in the turn (a
 * crash, a loss on time, a stall, an illegal move, or the stop flag): r
 * says how. */
static bool play_turn(const GameSetup *s, GameScratch *w, size_t len, GameClock *gc, GameRecord *r, Turn *tn)
{
    const Position *pos = w->pos;
    int side = pos->side;
    EngineProc *e = s->eng[side];
    const TimeControl *t = s->tc[side];

    int64_t left[2];
    for (int c = 0; c < 2; c++)
        left[c] = gc->clk[c] / gc->unit[c];
    size_t glen = format_go(w->cmd + len, s, left, gc->moves_by, side);
    int64_t t0 = ep_now_ms();
    int64_t deadline = turn_deadline(t, left[side], t0);
    if (ep_write(e, w->cmd, len + glen, deadline) < 0) {
        return crashed(e, r, side);
    }

    tn->score = GAME_SCORE_NONE;
    tn->depth = 0;
    int64_t nodes = -1;
    const char *line, *bm;
    for (;;) {
        EpWait wt = ep_read_line(e, deadline, s->stop, &line);
        if (wt == EP_LINE) {
            if (game_engine_line(line, &tn->score, &tn->depth, &nodes, &bm))
                break;
            continue;
        }
        if (wt == EP_STOPPED) {
            r->term = TERM_STOPPED;
            r->dead[side] = true; /* still thinking: not fit for another game */
            return false;
        }
        if (wt == EP_EOF) {
            return crashed(e, r, side);
        }
        if ((tc_has_clock(t) || t->movetime_ms) && !t->nodestime)
            time_forfeit(r, pos, side);
        else
            forfeit(r, side, TERM_STALL);
        recover(e, r, side);
        return false;
    }
    int64_t elapsed = ep_now_ms() - t0;

    /* The move must be a legal move in UCI notation. */
    tn->m = game_bestmove(pos, &bm, &tn->mlen);
    if (tn->m == MOVE_NONE) {
        snprintf(r->detail, sizeof r->detail, "%.*s", tn->mlen ? (int)(tn->mlen < 40 ? tn->mlen : 40) : 6,
                 tn->mlen ? bm : "(none)");
        forfeit(r, side, TERM_ILLEGAL);
        return false;
    }

    if (!clock_update(gc, t, side, elapsed, nodes, &tn->spent, &r->unmetered[side])) {
        time_forfeit(r, pos, side);
        return false;
    }
    if (tc_is_wall_clock(t) && nodes >= 0 && r->nply < GAME_WALL_PLIES) {
        r->wall_nodes[side] += nodes;
        r->wall_ms[side] += elapsed;
    }
    return true;
}

/* The record cleared and the start position set up, w->cmd holding its
 * "position ..." command (*len bytes).  False if the FEN is not a legal
 * position (TERM_BAD_START). */
static bool game_start(const GameSetup *s, GameScratch *w, GameRecord *r, size_t *len)
{
    Position *pos = w->pos;
    r->nply = 0;
    r->result = RESULT_NONE;
    r->term = TERM_NONE;
    r->culprit = -1;
    r->dead[0] = r->dead[1] = false;
    r->detail[0] = '\0';
    r->unmetered[0] = r->unmetered[1] = 0;
    r->wall_nodes[0] = r->wall_nodes[1] = r->wall_ms[0] = r->wall_ms[1] = 0;

    if (!s->fen || strcmp(s->fen, START_FEN) == 0) {
        pos_from_fen(pos, START_FEN, NULL, 0);
        r->startpos = true;
        *len = (size_t)snprintf(w->cmd, w->cap, "position startpos");
    } else {
        if (pos_from_fen(pos, s->fen, r->detail, sizeof r->detail) < 0) {
            r->term = TERM_BAD_START;
            snprintf(r->fen, sizeof r->fen, "%s", s->fen);
            return false;
        }
        r->startpos = false;
        *len = (size_t)snprintf(w->cmd, w->cap, "position fen %s", s->fen);
    }
    pos_to_fen(pos, r->fen, sizeof r->fen);
    return true;
}

void game_play(const GameSetup *s, GameScratch *w, GameRecord *r)
{
    Position *pos = w->pos;
    size_t len;
    if (!game_start(s, w, r, &len))
        return;
    GameClock gc;
    clock_start(&gc, s);
    AdjState adj = { 0, { 0, 0 }, { 0, 0 } };

    if (game_rules_end(pos, &r->result, &r->term))
        return;
    for (;;) {
        int side = pos->side;
        if (s->stop && *s->stop) {
            r->term = TERM_STOPPED;
            return;
        }
        Turn tn;
        if (!play_turn(s, w, len, &gc, r, &tn))
            return;

        int k = r->nply++;
        const int64_t u = gc.unit[side];
        r->moves[k] = tn.m;
        r->score[k] = tn.score;
        r->depth[k] = tn.depth;
        r->ms[k] = (int32_t)(tn.spent / u < INT32_MAX ? tn.spent / u : INT32_MAX);
        if (k == 0) {
            memcpy(w->cmd + len, " moves", 6);
            len += 6;
        }
        w->cmd[len++] = ' ';
        move_to_uci(tn.m, w->cmd + len);
        len += tn.mlen;
        pos_make(pos, tn.m);

        if (game_rules_end(pos, &r->result, &r->term))
            return;
        if (adjudicate(s->adj, &adj, side, tn.score, r->nply, pos_halfmove(pos) == 0, r))
            return;
        if (r->nply >= GAME_MAX_PLIES || !pos_has_room(pos)) {
            r->result = RESULT_DRAW;
            r->term = TERM_MAXMOVES;
            snprintf(r->detail, sizeof r->detail, "game longer than %d plies", GAME_MAX_PLIES);
            return;
        }
    }
}
