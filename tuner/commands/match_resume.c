/* match -resume: the -pgnout file read back into rounds.  See match_resume.h. */
#include "match_resume.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "book.h"
#include "errmsg.h"
#include "game.h"
#include "growarray.h"
#include "pgn.h"
#include "pgnscan.h"
#include "rd.h"

typedef struct {
    size_t start, end;          /* the game's bytes in the file */
    long line;                  /* its first line */
    uint64_t id;                /* Round - 1 */
    int white;                  /* the engine (0 or 1) that had White */
    int result;                 /* RESULT_* */
    Termination term;           /* a forfeit's kind, else TERM_NONE (the tag says no more) */
    int plies;
} Game;

typedef struct {
    char round[32], white[512], black[512], result[16], term[32], plies[16], tc[64], fen[128], limits[64];
    bool has[9];
} Tags;

/* The tags before T_FEN are in every game the match writes; FEN only off the
 * standard start, Limits only with nodes= or depth= (and not from older builds). */
enum { T_ROUND, T_WHITE, T_BLACK, T_RESULT, T_TERM, T_PLIES, T_TC, T_FEN, T_LIMITS, T_COUNT };

/* The tags read, by T_*: each one's name and where its value goes in Tags. */
static const struct {
    const char *name;
    size_t at, size;
} TAGS[T_COUNT] = {
    { "Round", offsetof(Tags, round), sizeof ((Tags *)0)->round },
    { "White", offsetof(Tags, white), sizeof ((Tags *)0)->white },
    { "Black", offsetof(Tags, black), sizeof ((Tags *)0)->black },
    { "Result", offsetof(Tags, result), sizeof ((Tags *)0)->result },
    { "Termination", offsetof(Tags, term), sizeof ((Tags *)0)->term },
    { "PlyCount", offsetof(Tags, plies), sizeof ((Tags *)0)->plies },
    { "TimeControl", offsetof(Tags, tc), sizeof ((Tags *)0)->tc },
    { "FEN", offsetof(Tags, fen), sizeof ((Tags *)0)->fen },
    { "Limits", offsetof(Tags, limits), sizeof ((Tags *)0)->limits },
};

/* One tag line [Name "value"] (PGN escapes \" and \\) into t; false when
 * the line is not a tag.  Tags this reader does not use are skipped. */
static bool parse_tag(const char *s, size_t n, Tags *t)
{
    if (n < 5 || s[0] != '[' || s[n - 1] != ']')
        return false;
    size_t i = 1, name = i;
    while (i < n && s[i] != ' ')
        i++;
    size_t namelen = i - name;
    if (i + 2 >= n || s[i + 1] != '"')
        return false;
    i += 2;
    char val[512];
    size_t v = 0;
    for (; i < n - 1 && s[i] != '"'; i++) {
        if (s[i] == '\\' && i + 1 < n - 1)
            i++;
        if (v + 1 < sizeof val)
            val[v++] = s[i];
    }
    if (i != n - 2)
        return false;
    val[v] = '\0';
    for (int k = 0; k < T_COUNT; k++)
        if (strlen(TAGS[k].name) == namelen && !strncmp(s + name, TAGS[k].name, namelen)) {
            snprintf((char *)t + TAGS[k].at, TAGS[k].size, "%s", val);
            t->has[k] = true;
        }
    return true;
}

/* A name as the PGN writer puts it in a tag: control characters as '?'. */
static void pgn_name(const char *name, char *buf, size_t len)
{
    size_t n = 0;
    for (; name[n] && n + 1 < len; n++)
        buf[n] = (unsigned char)name[n] < 0x20 || name[n] == 0x7f ? '?' : name[n];
    buf[n] = '\0';
}

static Termination term_of(const char *t)
{
    if (!strcmp(t, "time forfeit"))
        return TERM_TIME;
    if (!strcmp(t, "stalled connection"))
        return TERM_STALL;
    if (!strcmp(t, "illegal move"))
        return TERM_ILLEGAL;
    if (!strcmp(t, "abandoned"))
        return TERM_CRASH;
    return TERM_NONE;
}

/* The start position this match plays in round id, as the PGN's FEN tag
 * has it ("" for the standard start, which has no FEN tag). */
static void expected_fen(const MatchConfig *cfg, uint64_t id, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!cfg->book)
        return;
    const char *fen = book_fen(cfg->book, book_pick(cfg->book, id) % book_size(cfg->book));
    Position p;
    if (!fen || !strcmp(fen, START_FEN) || pos_from_fen(&p, fen, NULL, 0) < 0) {
        snprintf(buf, len, "%s", fen && strcmp(fen, START_FEN) ? fen : "");
        return;
    }
    pos_to_fen(&p, buf, len);
    if (!strcmp(buf, START_FEN))
        buf[0] = '\0';
}

typedef struct {
    const MatchConfig *cfg;
    const char *path;
    int games;
    uint64_t rounds;
    char names[2][512];
    Position *pos;              /* where each game's moves are replayed */
    char *err;
    size_t errlen;
} Reader;

/* One game's moves replayed from its start position (pgn_scan's events). */
typedef struct {
    Position *pos;
    long line0;                 /* the file's line of the text's first line, less one */
    int plies;                  /* moves made */
    char why[200];              /* the first fault, "" when none */
} Replay;

static void replay_move(void *ctx, int game, const char *san, size_t len, long line)
{
    (void)game;
    Replay *r = ctx;
    if (r->why[0])
        return;
    char text[32];
    snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), san);
    Move m = len < sizeof text ? parse_san(r->pos, text) : MOVE_NONE;
    if (m == MOVE_NONE) {
        snprintf(r->why, sizeof r->why, "ply %d '%.*s' (line %ld) is not a legal move there", r->plies + 1,
                 (int)(len < 24 ? len : 24), san, r->line0 + line);
        return;
    }
    if (!pos_has_room(r->pos))
        pos_trim_history(r->pos);
    pos_make(r->pos, m);
    r->plies++;
}

static void replay_warn(void *ctx, long line, const char *msg)
{
    Replay *r = ctx;
    if (!r->why[0])
        snprintf(r->why, sizeof r->why, "line %ld: %s", r->line0 + line, msg);
}

/* The game's movetext replayed from fen ("" for the standard start): -1
 * with a message when a move is not legal, the text holds what a PGN
 * writer does not write, or the moves are not its PlyCount. */
static int replay_game(const Reader *R, const char *text, const Game *g, long number, const char *fen)
{
    Replay r = { .pos = R->pos, .line0 = g->line - 1 };
    if (fen[0] ? pos_from_fen(R->pos, fen, NULL, 0) < 0 : (pos_startpos(R->pos), false))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): its FEN \"%s\" is not a position", R->path,
                      number, g->line, fen);
    PgnScanEvents ev = { .ctx = &r, .move = replay_move, .warn = replay_warn };
    pgn_scan(text + g->start, g->end - g->start, &ev);
    if (!r.why[0] && r.plies != g->plies)
        snprintf(r.why, sizeof r.why, "it has %d move%s where its PlyCount says %d", r.plies,
                 r.plies == 1 ? "" : "s", g->plies);
    if (r.why[0])
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): %s: its moves were changed or damaged inside the "
                      "file; -resume reads the match's own -pgnout file as the match wrote it", R->path, number,
                      g->line, r.why);
    return 0;
}

/* Whether the game's text ends, white space aside, in its result token. */
static bool ends_in(const char *text, const Game *g, const char *result)
{
    size_t end = g->end, n = strlen(result);
    while (end > g->start && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' ||
                              text[end - 1] == '\r'))
        end--;
    return end - g->start > n && !memcmp(text + end - n, result, n) &&
           (text[end - n - 1] == ' ' || text[end - n - 1] == '\n');
}

/* The tags of one game (text[g->start, g->end)) into g: -1 with a message
 * naming the game. */
static int read_game(const Reader *R, const Tags *t, const char *text, long number, Game *g)
{
    const char *path = R->path;
    for (int k = 0; k < T_FEN; k++)
        if (!t->has[k])
            return errmsg(R->err, R->errlen, "%s: game %ld (line %ld) has no %s tag: not a game ratchet-tune match "
                          "wrote; -resume reads the match's own -pgnout file", path, number, g->line, TAGS[k].name);
    char *end;
    errno = 0;
    unsigned long long r = strtoull(t->round, &end, 10);
    if (errno || end == t->round || *end || t->round[0] == '-' || r == 0 || r > (1ULL << 53))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): Round \"%s\" is not a round number of a match",
                      path, number, g->line, t->round);
    if (R->rounds && r > R->rounds)
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): round %llu is past this match's %llu round%s "
                      "(give -rounds as the match that wrote the file had it, or more)", path, number, g->line, r,
                      (unsigned long long)R->rounds, R->rounds == 1 ? "" : "s");
    g->id = r - 1;
    int w = !strcmp(t->white, R->names[0]) ? 0 : !strcmp(t->white, R->names[1]) ? 1 : -1;
    if (w < 0 || strcmp(t->black, R->names[!w]))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): White \"%s\" and Black \"%s\" are not this "
                      "match's engines \"%s\" and \"%s\"", path, number, g->line, t->white, t->black, R->names[0],
                      R->names[1]);
    g->white = w;
    int expect = R->games == 1 ? (int)(g->id & 1) : -1;
    if (expect >= 0 && w != expect)
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): round %llu has \"%s\" as White, where this "
                      "match gives White to \"%s\" (single games alternate colours)", path, number, g->line, r,
                      t->white, R->names[expect]);
    g->result = !strcmp(t->result, "1-0") ? RESULT_WHITE : !strcmp(t->result, "0-1") ? RESULT_BLACK
                : !strcmp(t->result, "1/2-1/2") ? RESULT_DRAW : RESULT_NONE;
    if (g->result == RESULT_NONE)
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): Result \"%s\" is not a finished game", path,
                      number, g->line, t->result);
    if (!ends_in(text, g, t->result))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): its moves do not end in its result %s: a game "
                      "cut short or overwritten inside the file", path, number, g->line, t->result);
    long plies = strtol(t->plies, &end, 10);
    if (end == t->plies || *end || plies < 0 || plies > 100000)
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): PlyCount \"%s\" is not a count of plies", path,
                      number, g->line, t->plies);
    g->plies = (int)plies;
    g->term = term_of(t->term);
    char tc[64], fen[128];
    tc_format_pgn(&R->cfg->eng[w].tc, tc, sizeof tc);
    if (strcmp(tc, t->tc))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): TimeControl \"%s\", where this match plays \"%s\"",
                      path, number, g->line, t->tc, tc);
    char limits[64];
    tc_format_limits(&R->cfg->eng[w].tc, limits, sizeof limits);
    if (t->has[T_LIMITS] && strcmp(limits, t->limits))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): Limits \"%s\", where this match plays %s%s%s: "
                      "-resume goes on with the limits the match was started with", path, number, g->line,
                      t->limits, limits[0] ? "\"" : "", limits[0] ? limits : "no nodes= or depth= limit",
                      limits[0] ? "\"" : "");
    expected_fen(R->cfg, g->id, fen, sizeof fen);
    if (strcmp(fen, t->has[T_FEN] ? t->fen : ""))
        return errmsg(R->err, R->errlen, "%s: game %ld (line %ld): round %llu started from \"%s\", where this match "
                      "plays \"%s\" (another -openings file, order or -srand?): -resume goes on with the options "
                      "the match was started with", path, number, g->line, r, t->has[T_FEN] ? t->fen : "startpos",
                      fen[0] ? fen : "startpos");
    return replay_game(R, text, g, number, fen);
}

/* The file's games, split at the tag lines that follow movetext. */
static int split_games(const Reader *R, const char *text, size_t n, Game **out, size_t *ngames)
{
    Game *gs = NULL;
    size_t ng = 0, cap = 0;
    Tags t;
    bool in_tags = false, any = false;
    long line = 1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', n - i);
        size_t len = nl ? (size_t)(nl - s) : n - i;
        size_t next = i + len + (nl ? 1 : 0);
        if (len && s[len - 1] == '\r')
            len--;
        bool blank = true;
        for (size_t k = 0; k < len && blank; k++)
            blank = s[k] == ' ' || s[k] == '\t';
        if (len && s[0] == '[') {
            if (!in_tags) {
                if (any) {
                    gs[ng - 1].end = i;
                    if ((rc = read_game(R, &t, text, (long)ng, &gs[ng - 1])) < 0)
                        break;
                }
                if (!grow_array((void **)&gs, &cap, ng + 1, sizeof *gs)) {
                    rc = errmsg(R->err, R->errlen, "out of memory reading %s", R->path);
                    break;
                }
                memset(&gs[ng], 0, sizeof gs[ng]);
                gs[ng].start = i;
                gs[ng].line = line;
                ng++;
                memset(&t, 0, sizeof t);
                in_tags = any = true;
            }
            if (!parse_tag(s, len, &t))
                rc = errmsg(R->err, R->errlen, "%s:%ld: not a PGN tag line: -resume reads the match's own -pgnout "
                            "file", R->path, line);
        } else if (!blank) {
            if (!any)
                rc = errmsg(R->err, R->errlen, "%s:%ld: text before the first game's tags: -resume reads the "
                            "match's own -pgnout file", R->path, line);
            in_tags = false;
        }
        i = next;
        line++;
    }
    if (rc == 0 && any) {
        gs[ng - 1].end = n;
        rc = read_game(R, &t, text, (long)ng, &gs[ng - 1]);
    }
    if (rc < 0) {
        free(gs);
        return -1;
    }
    *out = gs;
    *ngames = ng;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const Game *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int by_start(const void *a, const void *b)
{
    const Game *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Round id's games gs[0..k) into a result: -1 with a message when they are
 * more than a round, or two of them had the same colours. */
static int round_result(const Reader *R, const Game *gs, size_t k, PairResult *res)
{
    if (k > (size_t)R->games || (k == 2 && gs[0].white == gs[1].white))
        return errmsg(R->err, R->errlen, "%s: round %llu has %zu games%s (lines %ld and %ld): more than a round of "
                      "this match; -resume reads the PGN of one match alone", R->path,
                      (unsigned long long)gs[0].id + 1, k, k == 2 ? " with the same colours" : "", gs[0].line,
                      gs[1].line);
    memset(res, 0, sizeof *res);
    res->games = (int)k;
    res->ptnml_index = -1;
    for (size_t j = 0; j < k; j++) {
        const Game *g = &gs[j];
        int slot = R->games == 2 ? g->white : 0; /* a pair's game g has engine g as White */
        int e0_white = g->white == 0;
        int pts = g->result == RESULT_DRAW ? 1 : (g->result == RESULT_WHITE) == e0_white ? 2 : 0;
        res->score2[slot] = pts;
        res->result[slot] = g->result;
        res->term[slot] = g->term;
        res->plies[slot] = g->plies;
        if (g->term != TERM_NONE) {
            int loser = g->result == RESULT_WHITE ? !g->white : g->white;
            if (g->term == TERM_TIME || g->term == TERM_STALL)
                res->time_losses[loser]++;
            else if (g->term == TERM_CRASH)
                res->crashes[loser]++;
            else
                res->illegal[loser]++;
        }
    }
    if (R->games == 2)
        res->ptnml_index = res->score2[0] + res->score2[1];
    return 0;
}

/* The file without the games of unfinished rounds (keep[i] false), replaced atomically. */
static int cut_games(const Reader *R, const char *text, const Game *gs, size_t ng, const bool *keep)
{
    size_t n = 0;
    for (size_t i = 0; i < ng; i++)
        n += keep[i] ? gs[i].end - gs[i].start : 0;
    char *out = malloc(n + 1);
    if (!out)
        return errmsg(R->err, R->errlen, "out of memory rewriting %s", R->path);
    size_t at = 0;
    for (size_t i = 0; i < ng; i++)
        if (keep[i]) {
            memcpy(out + at, text + gs[i].start, gs[i].end - gs[i].start);
            at += gs[i].end - gs[i].start;
        }
    int rc = rd_write_atomic(R->path, out, at, R->err, R->errlen);
    free(out);
    return rc;
}

int match_resume_read(const MatchConfig *cfg, int games, uint64_t rounds, MatchResume *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    Reader R = { .cfg = cfg, .path = cfg->pgnout, .games = games == 1 ? 1 : 2, .rounds = rounds, .err = err,
                 .errlen = errlen };
    if (!cfg->pgnout[0])
        return errmsg(err, errlen, "-resume needs -pgnout FILE: the PGN of the match is its record");
    pgn_name(cfg->eng[0].name, R.names[0], sizeof R.names[0]);
    pgn_name(cfg->eng[1].name, R.names[1], sizeof R.names[1]);
    if (!strcmp(R.names[0], R.names[1]))
        return errmsg(err, errlen, "-resume: both engines are named \"%s\": the PGN cannot tell their games apart "
                      "(give each a name=)", R.names[0]);
    if (access(cfg->pgnout, F_OK) != 0 && errno == ENOENT)
        return 0;
    size_t n = 0;
    char *text = rd_read_file(cfg->pgnout, &n, err, errlen);
    if (!text)
        return -1;
    if (!(R.pos = malloc(sizeof *R.pos))) {
        free(text);
        return errmsg(err, errlen, "out of memory reading %s", cfg->pgnout);
    }
    /* A game cut short by a kill: the PGN writer cuts it when it opens the file. */
    size_t whole = pgn_whole_prefix(text, n, true);
    Game *gs = NULL;
    size_t ng = 0;
    int rc = split_games(&R, text, whole == (size_t)-1 ? 0 : whole, &gs, &ng);
    bool *keep = rc == 0 ? calloc(ng + 1, sizeof *keep) : NULL;
    if (rc == 0 && !keep)
        rc = errmsg(err, errlen, "out of memory reading %s", cfg->pgnout);
    size_t cap_done = 0, cap_res = 0;
    if (rc == 0 && ng > 0) { /* an empty file: no game, and qsort is not given a null array */
        qsort(gs, ng, sizeof *gs, by_id);
        for (size_t i = 0; i < ng && rc == 0;) {
            size_t k = 1;
            while (i + k < ng && gs[i + k].id == gs[i].id)
                k++;
            PairResult res;
            rc = round_result(&R, gs + i, k, &res);
            if (rc == 0 && k == (size_t)R.games) {
                if (!grow_array((void **)&out->done, &cap_done, out->ndone + 1, sizeof *out->done) ||
                    !grow_array((void **)&out->res, &cap_res, out->ndone + 1, sizeof *out->res)) {
                    rc = errmsg(err, errlen, "out of memory reading %s", cfg->pgnout);
                    break;
                }
                out->done[out->ndone] = gs[i].id;
                out->res[out->ndone++] = res;
                for (size_t j = 0; j < k; j++)
                    gs[i + j].white |= 2; /* kept (marked until the games are put back in file order) */
            } else if (rc == 0) {
                out->cut_rounds++;
                out->cut_games += k;
            }
            i += k;
        }
    }
    if (rc == 0 && out->cut_games) {
        qsort(gs, ng, sizeof *gs, by_start);
        for (size_t i = 0; i < ng; i++)
            keep[i] = (gs[i].white & 2) != 0;
        rc = cut_games(&R, text, gs, ng, keep);
    }
    free(keep);
    free(gs);
    free(text);
    free(R.pos);
    if (rc < 0)
        match_resume_free(out);
    return rc < 0 ? -1 : 0;
}

bool match_resume_done(const MatchResume *r, uint64_t id)
{
    size_t lo = 0, hi = r->ndone;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->done[mid] == id)
            return true;
        if (r->done[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

void match_resume_free(MatchResume *r)
{
    free(r->done);
    free(r->res);
    memset(r, 0, sizeof *r);
}
