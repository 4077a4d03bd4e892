/* Opening books from EPD and PGN files; see book.h for the formats. */
#include "book.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "board.h"
#include "errmsg.h"
#include "growarray.h"
#include "pgnscan.h"

struct Book {
    char *text;          /* the FENs, each NUL-terminated, back to back */
    size_t text_len, text_cap;
    size_t *off;         /* start of each FEN in text */
    size_t n, cap;
    size_t *order;       /* a permutation of 0..n-1, or NULL for file order */
    size_t start;
    size_t norder;       /* entries of order that book_pick cycles through (book_keep); 0 = n */
};

/* What a loader needs while reading one file. */
typedef struct {
    const char *path;
    Book *b;
    Position *pos;
    int plies;
    long games;          /* PGN games read */
    bool oom;
} Loader;

static void warn(const Loader *L, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%ld: ", L->path, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Adds L->pos to the book if a game can start from it. */
static void add_position(Loader *L, long line, const char *what)
{
    MoveList ml;
    gen_legal(L->pos, &ml, GEN_ALL);
    if (ml.count == 0) {
        warn(L, line, "%s has no legal moves (%s); skipped", what,
             pos_in_check(L->pos) ? "checkmate" : "stalemate");
        return;
    }
    char fen[128];
    pos_to_fen(L->pos, fen, sizeof fen);
    size_t len = strlen(fen) + 1;
    Book *b = L->b;
    if (!grow_array((void **)&b->text, &b->text_cap, b->text_len + len, 1) ||
        !grow_array((void **)&b->off, &b->cap, b->n + 1, sizeof *b->off)) {
        L->oom = true;
        return;
    }
    memcpy(b->text + b->text_len, fen, len);
    b->off[b->n++] = b->text_len;
    b->text_len += len;
}

/* ------------------------------------------------------------------ */
/* EPD                                                                  */

/* The next token of s: ends at whitespace or ';'.  Returns its length and
 * sets *tok; 0 at the end of the line. */
static size_t next_token(const char **s, const char **tok)
{
    const char *p = *s;
    while (*p && isspace((unsigned char)*p))
        p++;
    const char *q = p;
    while (*q && !isspace((unsigned char)*q) && *q != ';')
        q++;
    *tok = p;
    *s = q;
    return (size_t)(q - p);
}

static bool is_count(const char *t, size_t len)
{
    if (len == 0 || len > 9)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)t[i]))
            return false;
    return true;
}

/* Looks through the EPD operations for the move counters (hmvc, fmvn).
 * Operations are `opcode operand...;`, operands possibly "quoted". */
static void epd_counters(const char *ops, int *half, int *full)
{
    const char *s = ops;
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == ';'))
            s++;
        const char *op;
        size_t oplen = next_token(&s, &op);
        if (!oplen)
            break;
        const char *arg;
        const char *a = s;
        size_t arglen = next_token(&a, &arg);
        if (oplen == 4 && is_count(arg, arglen) && !strncmp(op, "hmvc", 4))
            *half = atoi(arg);
        if (oplen == 4 && is_count(arg, arglen) && !strncmp(op, "fmvn", 4))
            *full = atoi(arg);
        /* Skip to the end of this operation, past quoted strings. */
        bool quoted = false;
        while (*s && (quoted || *s != ';')) {
            if (*s == '"')
                quoted = !quoted;
            s++;
        }
    }
}

static void epd_line(Loader *L, const char *line, long lineno)
{
    const char *s = line;
    while (*s && isspace((unsigned char)*s))
        s++;
    if (!*s || *s == '#')
        return;

    const char *f[4];
    size_t flen[4];
    for (int i = 0; i < 4; i++) {
        flen[i] = next_token(&s, &f[i]);
        if (!flen[i]) {
            warn(L, lineno, "expected a FEN (placement, side, castling, en passant), found %d field%s; skipped",
                 i, i == 1 ? "" : "s");
            return;
        }
    }
    int half = 0, full = 1;
    const char *after = s, *t;
    size_t tlen = next_token(&after, &t);
    bool counters = false;
    if (is_count(t, tlen)) {
        half = atoi(t);
        s = after;
        tlen = next_token(&after, &t);
        if (is_count(t, tlen)) {
            full = atoi(t);
            s = after;
        }
        counters = true;
    }
    if (!counters)
        epd_counters(s, &half, &full);

    char fen[512], err[256];
    int n = snprintf(fen, sizeof fen, "%.*s %.*s %.*s %.*s %d %d", (int)flen[0], f[0], (int)flen[1], f[1],
                     (int)flen[2], f[2], (int)flen[3], f[3], half, full);
    if (n < 0 || (size_t)n >= sizeof fen) {
        warn(L, lineno, "FEN too long; skipped");
        return;
    }
    if (pos_from_fen(L->pos, fen, err, sizeof err) != 0) {
        warn(L, lineno, "%s; skipped", err);
        return;
    }
    add_position(L, lineno, "the position");
}

/* Returns the number of lines read, or -1 on a read error. */
static long load_epd(Loader *L, FILE *fp)
{
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, lines = 0;
    while (getline(&line, &cap, fp) != -1 && !L->oom) {
        lineno++;
        lines++;
        epd_line(L, line, lineno);
    }
    free(line);
    return ferror(fp) ? -1 : lines;
}

/* ------------------------------------------------------------------ */
/* PGN (read by pgnscan.c)                                              */

/* One game while it is read. */
typedef struct {
    Loader *L;
    int number;          /* 1-based, for messages */
    long line;           /* where it started */
    char fen[256];
    bool has_fen, setup0;
    long fen_line;
    bool started;        /* L->pos holds the game's position */
    bool stopped;        /* no more moves are taken */
    bool skip;           /* not added to the book */
    int applied;
} Game;

/* The first event of game `number` starts it afresh. */
static void game_touch(Game *g, int number, long line)
{
    if (g->number != number) {
        Loader *L = g->L;
        memset(g, 0, sizeof *g);
        g->L = L;
        g->number = number;
        g->line = line;
    }
}

/* Sets up the game's start position; false (and the game skipped) on a bad
 * FEN tag. */
static bool game_start(Loader *L, Game *g)
{
    if (g->started)
        return true;
    if (g->has_fen && !g->setup0) {
        char err[256];
        if (pos_from_fen(L->pos, g->fen, err, sizeof err) != 0) {
            warn(L, g->fen_line, "game %d: bad FEN tag: %s; game skipped", g->number, err);
            g->skip = g->stopped = true;
            return false;
        }
    } else {
        pos_startpos(L->pos);
    }
    g->started = true;
    return true;
}

static void on_move(void *ctx, int number, const char *tok, size_t len, long line)
{
    Game *g = ctx;
    Loader *L = g->L;
    game_touch(g, number, line);
    if (g->stopped || !game_start(L, g))
        return;
    if (L->plies > 0 && g->applied >= L->plies) {
        g->stopped = true;
        return;
    }
    char san[32];
    snprintf(san, sizeof san, "%.*s", (int)(len < sizeof san ? len : sizeof san - 1), tok);
    Move m = len < sizeof san ? parse_san(L->pos, san) : MOVE_NONE;
    if (m == MOVE_NONE || !pos_has_room(L->pos)) {
        const char *why = m == MOVE_NONE ? "illegal or unreadable move" : "game too long at move";
        if (g->applied == 0) {
            warn(L, line, "game %d: %s '%.*s' at its first ply; game skipped", g->number, why, (int)len, tok);
            g->skip = true;
        } else {
            warn(L, line, "game %d: %s '%.*s' at ply %d; keeping the position before it", g->number, why,
                 (int)len, tok, g->applied + 1);
        }
        g->stopped = true;
        return;
    }
    pos_make(L->pos, m);
    g->applied++;
}

static void on_end(void *ctx, int number, const char *result, long line)
{
    (void)result;
    Game *g = ctx;
    Loader *L = g->L;
    game_touch(g, number, line);
    L->games++;
    if (!g->skip && !L->oom && game_start(L, g)) {
        char what[64];
        snprintf(what, sizeof what, "game %d's position", g->number);
        add_position(L, g->line, what);
    }
}

static void on_tag(void *ctx, int number, const char *name, const char *value, long line)
{
    Game *g = ctx;
    game_touch(g, number, line);
    if (!strcmp(name, "FEN")) {
        snprintf(g->fen, sizeof g->fen, "%s", value);
        g->has_fen = true;
        g->fen_line = line;
    } else if (!strcmp(name, "SetUp")) {
        g->setup0 = !strcmp(value, "0");
    }
}

static void on_warn(void *ctx, long line, const char *msg)
{
    const Game *g = ctx;
    warn(g->L, line, "%s", msg);
}

/* Returns the number of games read, or -1 if memory ran out. */
static long load_pgn(Loader *L, const char *buf, size_t n)
{
    Game g = {.L = L};
    PgnScanEvents ev = {&g, on_tag, on_move, on_end, on_warn};
    pgn_scan(buf, n, &ev);
    return L->oom ? -1 : L->games;
}

/* ------------------------------------------------------------------ */
/* Public interface                                                     */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

Book *book_load(const char *path, const char *format, int plies, char *err, size_t errlen)
{
    char dummy[1];
    if (!err) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (!path || !*path) {
        errmsg(err, errlen, "no openings file given");
        return NULL;
    }
    bool pgn;
    if (!format || !*format)
        pgn = ends_with(path, ".pgn");
    else if (!strcmp(format, "pgn") || !strcmp(format, "epd"))
        pgn = !strcmp(format, "pgn");
    else {
        errmsg(err, errlen, "%s: unknown openings format '%s' (expected epd or pgn)", path, format);
        return NULL;
    }
    if (plies < 0) {
        errmsg(err, errlen, "%s: plies must be >= 0 (0 = whole games), got %d", path, plies);
        return NULL;
    }

    rules_init();
    FILE *fp = fopen(path, "re");
    if (!fp) {
        errmsg(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    Book *b = calloc(1, sizeof *b);
    Position *pos = malloc(sizeof *pos);
    Loader L = {path, b, pos, plies, 0, false};
    long units = -1;
    if (b && pos) {
        if (pgn) {
            size_t len = 0;
            char *buf = pgn_read_file(fp, &len);
            if (buf)
                units = load_pgn(&L, buf, len);
            free(buf);
        } else {
            units = load_epd(&L, fp);
        }
    }
    bool read_error = ferror(fp);
    fclose(fp);
    free(pos);

    if (!b || !pos || L.oom) {
        errmsg(err, errlen, "%s: out of memory while reading the openings", path);
    } else if (read_error || units < 0) {
        errmsg(err, errlen, "%s: read error", path);
    } else if (b->n == 0) {
        errmsg(err, errlen, "%s: no usable opening position (%ld %s read)", path, units,
               pgn ? (units == 1 ? "game" : "games") : (units == 1 ? "line" : "lines"));
    } else {
        return b;
    }
    book_free(b);
    return NULL;
}

size_t book_size(const Book *b) { return b ? b->n : 0; }

const char *book_fen(const Book *b, size_t i)
{
    return b && i < b->n ? b->text + b->off[i] : NULL;
}

void book_set_order(Book *b, bool random, uint64_t seed, size_t start)
{
    free(b->order);
    b->order = NULL;
    b->norder = 0;
    b->start = b->n ? start % b->n : 0;
    if (!random || b->n < 2)
        return;
    b->order = malloc(b->n * sizeof *b->order);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!b->order || !r) {
        fprintf(stderr, "openings: out of memory for the random order; using file order\n");
        free(b->order);
        b->order = NULL;
        if (r)
            gsl_rng_free(r);
        return;
    }
    for (size_t i = 0; i < b->n; i++)
        b->order[i] = i;
    gsl_rng_set(r, (unsigned long)seed);
    gsl_ran_shuffle(r, b->order, b->n, sizeof *b->order);
    gsl_rng_free(r);
}

size_t book_pick(const Book *b, uint64_t k)
{
    if (!b || b->n == 0)
        return 0;
    size_t m = b->norder ? b->norder : b->n;
    size_t i = (size_t)((b->start + k % m) % m);
    return b->order ? b->order[i] : i;
}

int book_shuffle_picks(Book *b, uint64_t seed)
{
    if (!b || !b->order || b->norder < 2)
        return b && b->order ? 0 : -1;
    size_t n = b->norder;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return -1;
    gsl_rng_set(r, (unsigned long)seed);
    gsl_ran_shuffle(r, b->order, n, sizeof *b->order);
    gsl_rng_free(r);
    b->start = 0;
    return 0;
}

int book_keep(Book *b, uint64_t first, size_t count)
{
    if (!b || count == 0 || b->n == 0)
        return -1;
    size_t *sel = malloc(count * sizeof *sel);
    if (!sel)
        return -1;
    for (size_t i = 0; i < count; i++)
        sel[i] = book_pick(b, first + i);
    free(b->order);
    b->order = sel;
    b->norder = count;
    b->start = 0;
    return 0;
}

size_t book_picks(const Book *b)
{
    return !b ? 0 : b->norder ? b->norder : b->n;
}

void book_free(Book *b)
{
    if (!b)
        return;
    free(b->text);
    free(b->off);
    free(b->order);
    free(b);
}
