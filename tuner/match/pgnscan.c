/* The PGN scanner; see pgnscan.h. */
#include "pgnscan.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "growarray.h"
#include "readfile.h"

typedef struct {
    const char *s, *end;
    long line;
    const PgnScanEvents *ev;
    int game;      /* 1-based */
    bool any;      /* the game has a tag or a move */
    bool in_moves; /* movetext begun: the next tag starts a new game */
} Scan;

static void warn(const Scan *x, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(const Scan *x, long line, const char *fmt, ...)
{
    if (!x->ev->warn)
        return;
    char msg[320];
    int n = snprintf(msg, sizeof msg, "game %d: ", x->game);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    x->ev->warn(x->ev->ctx, line, msg);
}

static void touch(Scan *x) { x->any = true; }

static void finish(Scan *x, const char *result, long line)
{
    if (x->any && x->ev->end)
        x->ev->end(x->ev->ctx, x->game, result, line);
    x->game += x->any;
    x->any = x->in_moves = false;
}

/* Reads `[Name "value"]` starting at '['. */
static void tag(Scan *x)
{
    long line = x->line;
    const char *s = x->s + 1;
    while (s < x->end && (*s == ' ' || *s == '\t'))
        s++;
    const char *name = s;
    while (s < x->end && (isalnum((unsigned char)*s) || *s == '_'))
        s++;
    size_t nlen = (size_t)(s - name);
    while (s < x->end && (*s == ' ' || *s == '\t'))
        s++;
    char value[256];
    size_t vlen = 0;
    bool ok = nlen > 0 && s < x->end && *s == '"';
    if (ok) {
        for (s++; s < x->end && *s != '"' && *s != '\n'; s++) {
            if (*s == '\\' && s + 1 < x->end && s[1] != '\n')
                s++;
            if (vlen < sizeof value - 1)
                value[vlen++] = *s;
        }
        ok = s < x->end && *s == '"';
        if (ok)
            s++;
        while (s < x->end && (*s == ' ' || *s == '\t'))
            s++;
        ok = ok && s < x->end && *s == ']';
    }
    value[vlen] = '\0';
    if (!ok) {
        warn(x, line, "malformed tag; ignored");
        while (s < x->end && *s != '\n' && *s != ']')
            s++;
        if (s < x->end && *s == ']')
            s++;
        x->s = s;
        return;
    }
    x->s = s + 1;
    touch(x);
    if (x->ev->tag) {
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)nlen, name);
        x->ev->tag(x->ev->ctx, x->game, nm, value, line);
    }
}

static bool is_result(const char *t, size_t len)
{
    return (len == 3 && (!strncmp(t, "1-0", 3) || !strncmp(t, "0-1", 3))) ||
           (len == 7 && !strncmp(t, "1/2-1/2", 7)) || (len == 1 && *t == '*');
}

/* A movetext symbol: a move, a move number, a result or an annotation. */
static void symbol(Scan *x, const char *t, size_t len, long line)
{
    if (is_result(t, len)) {
        char result[8];
        snprintf(result, sizeof result, "%.*s", (int)len, t);
        touch(x);
        finish(x, result, line);
        return;
    }
    /* A move number "12." or "12..." (possibly glued to the move: "12.e4");
     * "0-0" is castling, not a number. */
    if (isdigit((unsigned char)*t) && strncmp(t, "0-0", 3) != 0) {
        size_t i = 0;
        while (i < len && isdigit((unsigned char)t[i]))
            i++;
        while (i < len && t[i] == '.')
            i++;
        t += i;
        len -= i;
    }
    while (len && *t == '.')
        t++, len--;
    size_t core = 0; /* ignore tokens that are only annotation glyphs */
    for (size_t i = 0; i < len; i++)
        core += t[i] != '!' && t[i] != '?';
    if (!core)
        return;
    touch(x);
    x->in_moves = true;
    if (x->ev->move)
        x->ev->move(x->ev->ctx, x->game, t, len, line);
}

static bool symbol_char(char c)
{
    return isalnum((unsigned char)c) || strchr("_+#=:-/!?.", c);
}

long pgn_scan(const char *buf, size_t n, const PgnScanEvents *ev)
{
    Scan x = {buf, buf + n, 1, ev, 1, false, false};
    int depth = 0; /* variation nesting */
    long var_line = 0;
    bool bol = true; /* at the beginning of a line */
    if (n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
        x.s += 3;

    while (x.s < x.end) {
        char c = *x.s;
        if (c == '\n') {
            x.line++;
            x.s++;
            bol = true;
            continue;
        }
        bool at_bol = bol;
        bol = false;
        if (isspace((unsigned char)c)) {
            x.s++;
            bol = at_bol;
        } else if (c == '%' && at_bol) {
            while (x.s < x.end && *x.s != '\n')
                x.s++;
        } else if (c == ';') {
            while (x.s < x.end && *x.s != '\n')
                x.s++;
        } else if (c == '{') {
            long line = x.line;
            while (x.s < x.end && *x.s != '}')
                x.line += *x.s++ == '\n';
            if (x.s == x.end)
                warn(&x, line, "comment never closed");
            else
                x.s++;
        } else if (c == '(') {
            if (depth++ == 0)
                var_line = x.line;
            x.s++;
        } else if (c == ')') {
            if (depth > 0)
                depth--;
            else
                warn(&x, x.line, "')' without '('; ignored");
            x.s++;
        } else if (c == '[' && at_bol && depth > 0) {
            /* A tag line inside a variation: the variation was never closed;
             * do not let it swallow the following games. */
            warn(&x, var_line, "variation never closed");
            depth = 0;
        } else if (c == '[' && depth == 0) {
            if (x.in_moves) {
                warn(&x, x.line, "no result before the next game's tags");
                finish(&x, NULL, x.line);
            }
            tag(&x);
        } else if (c == '$') {
            x.s++;
            while (x.s < x.end && isdigit((unsigned char)*x.s))
                x.s++;
        } else if (symbol_char(c) || c == '*') {
            const char *t = x.s;
            if (c == '*')
                x.s++;
            else
                while (x.s < x.end && symbol_char(*x.s))
                    x.s++;
            if (depth == 0)
                symbol(&x, t, (size_t)(x.s - t), x.line);
        } else {
            if (depth == 0)
                warn(&x, x.line, "unexpected character '%c'; ignored", c);
            x.s++;
        }
    }
    if (depth > 0)
        warn(&x, var_line, "variation never closed");
    long games = x.game - 1 + x.any;
    finish(&x, NULL, x.line);
    return games;
}

char *pgn_read_file(FILE *fp, size_t *len) { return read_stream(fp, 0, len); }

void pgn_game_begin(PgnGame *g, int number, long line)
{
    if (g->number == number)
        return;
    g->number = number;
    g->line = line;
    g->result[0] = g->fen[0] = g->termination[0] = '\0';
    g->has_fen = g->setup0 = false;
    g->nply = 0;
}

void pgn_game_tag(PgnGame *g, const char *name, const char *value)
{
    if (!strcmp(name, "Result"))
        snprintf(g->result, sizeof g->result, "%s", value);
    else if (!strcmp(name, "FEN")) {
        snprintf(g->fen, sizeof g->fen, "%s", value);
        g->has_fen = true;
    } else if (!strcmp(name, "SetUp"))
        g->setup0 = !strcmp(value, "0");
    else if (!strcmp(name, "Termination"))
        snprintf(g->termination, sizeof g->termination, "%s", value);
}

bool pgn_game_move(PgnGame *g, const char *san, size_t len, long line)
{
    if (!grow_array((void **)&g->plies, &g->cap, g->nply + 1, sizeof *g->plies))
        return false;
    PgnPly *pt = &g->plies[g->nply++];
    snprintf(pt->san, sizeof pt->san, "%.*s", (int)(len < sizeof pt->san ? len : sizeof pt->san - 1), san);
    if (len >= sizeof pt->san)
        pt->san[0] = '?';
    pt->line = line;
    return true;
}

void pgn_game_on_tag(PgnGame *g, int number, const char *name, const char *value, long line)
{
    pgn_game_begin(g, number, line);
    pgn_game_tag(g, name, value);
}

bool pgn_game_on_move(PgnGame *g, int number, const char *san, size_t len, long line)
{
    pgn_game_begin(g, number, line);
    return pgn_game_move(g, san, len, line);
}

void pgn_game_free(PgnGame *g)
{
    free(g->plies);
    g->plies = NULL;
    g->nply = g->cap = 0;
}

int pgn_game_start(const PgnGame *g, Position *p, char *err, size_t errlen)
{
    if (g->has_fen && !g->setup0)
        return pos_from_fen(p, g->fen, err, errlen) != 0 ? -1 : 0;
    pos_startpos(p);
    return 0;
}
