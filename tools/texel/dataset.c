/* Positions for the evaluation tuner; see dataset.h. */
#include "dataset.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "growarray.h"
#include "pgnscan.h"
#include "search.h"
#include "engine.h"

/* The engine's tables, set up once, and the searcher of the quiet filter. */
static Searcher *searcher;
static void setup_once(void)
{
    engine_init();
    searcher = searcher_new();
}
static void setup(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup_once);
}

void dataset_free(Dataset *d)
{
    free(d->pos);
    free(d->idx);
    free(d->val);
    memset(d, 0, sizeof *d);
}

int dataset_add(Dataset *d, const Position *p, double label, uint32_t game)
{
    setup();
    EvalTrace t;
    eval_trace(p, &t);
    size_t cap = d->nnz_cap;
    if (!grow_array((void **)&d->idx, &cap, d->nnz + EVAL_NWEIGHTS, sizeof *d->idx) ||
        !grow_array((void **)&d->val, &d->nnz_cap, d->nnz + EVAL_NWEIGHTS, sizeof *d->val) ||
        !grow_array((void **)&d->pos, &d->cap, d->n + 1, sizeof *d->pos))
        return -1;
    TexelPos *tp = &d->pos[d->n++];
    tp->first = (uint32_t)d->nnz;
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        int f = t.count[i][WHITE] - t.count[i][BLACK];
        if (f) {
            d->idx[d->nnz] = (uint16_t)i;
            d->val[d->nnz++] = (int16_t)f;
        }
    }
    tp->nf = (uint16_t)(d->nnz - tp->first);
    tp->phase = (uint8_t)t.phase;
    tp->eg_scale = (uint8_t)t.eg_scale;
    tp->mg_scale = (uint8_t)t.mg_scale;
    tp->nonlinear_mg = (int16_t)(t.nonlinear_mg[WHITE] - t.nonlinear_mg[BLACK]);
    tp->label = (float)label;
    tp->game = game;
    return 0;
}

/* Counts p under the filters and adds it if it passes. */
static int consider(Dataset *d, const Position *p, const ExtractOptions *o, ExtractStats *st, double label,
                    uint32_t game)
{
    st->positions++;
    MoveList ml;
    gen_legal(p, &ml, GEN_ALL);
    if (ml.count == 0 || pos_in_check(p)) {
        st->in_check++;
        return 0;
    }
    if (!searcher)
        return -1;
    if (!o->all_positions && search_qsearch(searcher, p) != search_static_eval(searcher, p)) {
        st->not_quiet++;
        return 0;
    }
    st->kept++;
    return dataset_add(d, p, label, game);
}

/* ---- PGN ---------------------------------------------------------------- */

typedef struct {
    Dataset *d;
    const char *path;
    const ExtractOptions *o;
    ExtractStats *st;
    int messages;
    bool oom, full;
    PgnGame g; /* the game being read */
    Position *pos;
} Reader;

static void say(Reader *r, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(Reader *r, long line, const char *fmt, ...)
{
    if (r->messages++ >= r->o->max_messages) {
        if (r->messages == r->o->max_messages + 1)
            fprintf(stderr, "%s: further messages about this file left out\n", r->path);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%ld: ", r->path, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void on_tag(void *ctx, int number, const char *name, const char *value, long line)
{
    pgn_game_on_tag(&((Reader *)ctx)->g, number, name, value, line);
}

static void on_move(void *ctx, int number, const char *san, size_t len, long line)
{
    Reader *r = ctx;
    if (!pgn_game_on_move(&r->g, number, san, len, line))
        r->oom = true;
}

static double result_value(const char *s)
{
    return !strcmp(s, "1-0") ? 1.0 : !strcmp(s, "0-1") ? 0.0 : !strcmp(s, "1/2-1/2") ? 0.5 : -1.0;
}

static void on_end(void *ctx, int number, const char *end, long line)
{
    Reader *r = ctx;
    pgn_game_begin(&r->g, number, line);
    if (r->oom || r->full)
        return;
    r->st->games++;
    /* The result: the Result tag, which the movetext's end must not contradict. */
    double tag = result_value(r->g.result), text = end ? result_value(end) : -1.0;
    if (tag < 0 && text < 0) {
        say(r, r->g.line, "game %d: no result (Result \"%s\", movetext ends with %s); game skipped", number,
            r->g.result, end ? end : "nothing");
        r->st->no_result++;
        return;
    }
    if (tag >= 0 && text >= 0 && tag != text) {
        say(r, line, "game %d: the movetext ends with %s but the Result tag says %s; game skipped", number, end,
            r->g.result);
        r->st->no_result++;
        return;
    }
    double label = tag >= 0 ? tag : text;

    Position *p = r->pos;
    char err[160];
    if (pgn_game_start(&r->g, p, err, sizeof err) != 0) {
        say(r, r->g.line, "game %d: bad FEN tag: %s; game skipped", number, err);
        r->st->bad++;
        return;
    }
    /* Replay first: a game with an illegal move gives nothing. */
    for (size_t k = 0; k < r->g.nply; k++) {
        Move m = pos_has_room(p) ? parse_san(p, r->g.plies[k].san) : MOVE_NONE;
        if (m == MOVE_NONE) {
            say(r, r->g.plies[k].line, "game %d: %s '%s' at ply %zu; game skipped", number,
                pos_has_room(p) ? "illegal or unreadable move" : "game too long at move", r->g.plies[k].san, k + 1);
            r->st->bad++;
            return;
        }
        pos_make(p, m);
    }
    while (p->hist > 0)
        pos_unmake(p);

    uint32_t game = r->d->games++;
    bool adjudicated = !strcmp(r->g.termination, "adjudication");
    long kept = r->st->kept;
    for (size_t k = 0; k <= r->g.nply; k++) {
        if (k > 0)
            pos_make(p, parse_san(p, r->g.plies[k - 1].san));
        if ((long)k < r->o->skip_plies) {
            r->st->opening++;
            r->st->positions++;
        } else if (adjudicated && k + (size_t)r->o->adj_tail > r->g.nply) {
            r->st->adjudicated++;
            r->st->positions++;
        } else if (consider(r->d, p, r->o, r->st, label, game) < 0) {
            r->oom = true;
            return;
        }
    }
    r->st->used += r->st->kept > kept;
    if (r->o->max_games > 0 && r->st->games >= r->o->max_games)
        r->full = true;
}

static void on_warn(void *ctx, long line, const char *msg)
{
    say(ctx, line, "%s", msg);
}

/* Reads the whole file; NULL with err filled. */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    setup();
    FILE *f = fopen(path, "re");
    if (!f) {
        errmsg(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = pgn_read_file(f, len);
    if (!buf)
        errmsg(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
    fclose(f);
    return buf;
}

int dataset_add_pgn(Dataset *d, const char *path, const ExtractOptions *o, ExtractStats *st, char *err,
                    size_t errlen)
{
    size_t len;
    char *buf = slurp(path, &len, err, errlen);
    if (!buf)
        return -1;
    Reader r = {.d = d, .path = path, .o = o, .st = st};
    r.full = o->max_games > 0 && st->games >= o->max_games;
    r.pos = malloc(sizeof *r.pos);
    if (r.pos) {
        PgnScanEvents ev = {&r, on_tag, on_move, on_end, on_warn};
        pgn_scan(buf, len, &ev);
    }
    int rc = 0;
    if (!r.pos || r.oom) {
        errmsg(err, errlen, "%s: out of memory", path);
        rc = -1;
    }
    free(r.pos);
    pgn_game_free(&r.g);
    free(buf);
    return rc;
}

/* ---- EPD with results --------------------------------------------------- */

/* A label "[x]" with x a number in [0, 1]: an expected score, such as a
 * stronger engine's win + draw / 2 (the fixed forms above are its 0, 0.5
 * and 1).  -1 when the token is not one, -2 when x is out of range. */
static double epd_expected_score(const char *t, size_t len)
{
    char num[32], *end;
    if (len < 3 || len - 2 >= sizeof num || t[0] != '[' || t[len - 1] != ']')
        return -1.0;
    memcpy(num, t + 1, len - 2);
    num[len - 2] = '\0';
    double x = strtod(num, &end);
    if (end == num || *end)
        return -1.0;
    return x >= 0.0 && x <= 1.0 ? x : -2.0;
}

/* The result in the text after the FEN fields, or -1 (-2: a label out of
 * range). */
static double epd_result(const char *s)
{
    static const struct {
        const char *text;
        double v;
    } forms[] = {{"1/2-1/2", 0.5}, {"1-0", 1.0}, {"0-1", 0.0}, {"[1.0]", 1.0}, {"[0.5]", 0.5}, {"[0.0]", 0.0},
                 {"[1]", 1.0},     {"[0]", 0.0}};
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == '"' || *s == ';'))
            s++;
        const char *t = s;
        while (*s && !isspace((unsigned char)*s) && *s != '"' && *s != ';')
            s++;
        for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
            if ((size_t)(s - t) == strlen(forms[i].text) && !strncmp(t, forms[i].text, (size_t)(s - t)))
                return forms[i].v;
        double x = epd_expected_score(t, (size_t)(s - t));
        if (x != -1.0)
            return x;
    }
    return -1.0;
}

int dataset_add_epd(Dataset *d, const char *path, const ExtractOptions *o, ExtractStats *st, char *err,
                    size_t errlen)
{
    size_t len;
    char *buf = slurp(path, &len, err, errlen);
    if (!buf)
        return -1;
    Position *p = malloc(sizeof *p);
    Reader r = {.d = d, .path = path, .o = o, .st = st};
    int rc = 0;
    long lineno = 0;
    for (char *line = buf; p && line && *line && rc == 0 && !(o->max_games > 0 && st->games >= o->max_games);) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s && *s != '#') {
            /* The four FEN fields. */
            char *e = s;
            for (int field = 0; field < 4 && *e; field++) {
                while (*e && !isspace((unsigned char)*e))
                    e++;
                while (field < 3 && isspace((unsigned char)*e))
                    e++;
            }
            char fen[128], why[160];
            snprintf(fen, sizeof fen, "%.*s 0 1", (int)(e - s < 100 ? e - s : 100), s);
            double label = epd_result(e);
            st->games++;
            if (label == -2.0) {
                say(&r, lineno, "the label in brackets is not an expected score in [0, 1]; line skipped");
                st->no_result++;
            } else if (label < 0) {
                say(&r, lineno, "no result (1-0, 0-1, 1/2-1/2, or an expected score in brackets: [1.0], [0.5], [0.73]); line skipped");
                st->no_result++;
            } else if (pos_from_fen(p, fen, why, sizeof why) != 0) {
                say(&r, lineno, "bad position: %s; line skipped", why);
                st->bad++;
            } else {
                long kept = st->kept;
                rc = consider(d, p, o, st, label, d->games++);
                st->used += st->kept > kept;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!p || rc < 0) {
        errmsg(err, errlen, "%s: out of memory", path);
        rc = -1;
    }
    free(p);
    free(buf);
    return rc;
}
