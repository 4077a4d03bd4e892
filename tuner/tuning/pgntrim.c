/* A -pgnout file cut to the games a record counts; see pgntrim.h. */
#include "pgntrim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "rd.h"

int pgn_games(const char *text, size_t n, PgnSpan **out, size_t *ngames)
{
    *out = NULL;
    *ngames = 0;
    size_t cap = 0;
    for (size_t i = 0; i < n;) {
        const char *next = strstr(text + i + 1, "\n\n[Event \"");
        size_t end = next ? (size_t)(next + 2 - text) : n;
        if (*ngames == cap) {
            cap = cap ? 2 * cap : 256;
            PgnSpan *g = realloc(*out, cap * sizeof *g);
            if (!g) {
                free(*out);
                *out = NULL;
                *ngames = 0;
                return -1;
            }
            *out = g;
        }
        (*out)[(*ngames)++] = (PgnSpan){ .start = i, .end = end };
        i = end;
    }
    return 0;
}

bool pgn_header_tag(const char *text, size_t n, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < n;) {
        const char *line = text + i;
        const char *eol = memchr(line, '\n', n - i);
        size_t ll = eol ? (size_t)(eol - line) : n - i;
        if (ll == 0)
            return false; /* the movetext */
        if (ll >= nl + 5 && line[0] == '[' && !strncmp(line + 1, name, nl) && line[nl + 1] == ' ' &&
            line[nl + 2] == '"') {
            size_t o = 0;
            for (size_t k = nl + 3; k < ll && line[k] != '"'; k++) {
                if (line[k] == '\\' && k + 1 < ll)
                    k++;
                if (o + 1 < len)
                    buf[o++] = line[k];
            }
            if (len)
                buf[o] = '\0';
            return true;
        }
        i += ll + 1;
    }
    return false;
}

/* A game of the mark's: its index and its Round (0: not a whole number). */
typedef struct {
    size_t game;
    uint64_t round;
} Marked;

static int by_round_then_place(const void *a, const void *b)
{
    const Marked *x = a, *y = b;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->game < y->game ? -1 : x->game > y->game;
}

int pgn_trim_pairs(const char *pgn, const char *mark, bool (*done)(void *ctx, uint64_t pair), void *ctx,
                   uint64_t *dropped, char *err, size_t errlen)
{
    *dropped = 0;
    struct stat sb;
    if (!pgn || !pgn[0] || lstat(pgn, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0; /* none yet, or not a file that can be rewritten (a link, /dev/null) */
    size_t n;
    char *text = rd_read_file(pgn, &n, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    PgnSpan *g = NULL;
    size_t ng = 0, nm = 0;
    Marked *m = NULL;
    bool *keep = NULL;
    int rc = -1;
    if (pgn_games(text, n, &g, &ng) < 0 || !(m = malloc((ng + 1) * sizeof *m)) ||
        !(keep = malloc((ng + 1) * sizeof *keep))) {
        rc = errmsg(err, errlen, "%s: out of memory", pgn);
        goto out;
    }
    size_t ml = strlen(mark);
    for (size_t i = 0; i < ng; i++) {
        char ev[256], round[32], *end;
        const char *t = text + g[i].start;
        size_t len = g[i].end - g[i].start;
        keep[i] = !(pgn_header_tag(t, len, "Event", ev, sizeof ev) && !strncmp(ev, mark, ml));
        if (keep[i])
            continue;
        uint64_t r = 0;
        if (pgn_header_tag(t, len, "Round", round, sizeof round) && round[0] >= '1' && round[0] <= '9') {
            errno = 0;
            unsigned long long v = strtoull(round, &end, 10);
            r = errno == 0 && *end == '\0' ? (uint64_t)v : 0;
        }
        m[nm++] = (Marked){ .game = i, .round = r };
    }
    /* Each Round's games in file order: the last two are its pair when the record counts it. */
    qsort(m, nm, sizeof *m, by_round_then_place);
    for (size_t i = 0; i < nm; i++) {
        bool last_two = i + 1 == nm || m[i + 1].round != m[i].round || i + 2 == nm || m[i + 2].round != m[i].round;
        bool whole = (i > 0 && m[i - 1].round == m[i].round) || (i + 1 < nm && m[i + 1].round == m[i].round);
        keep[m[i].game] = m[i].round > 0 && last_two && whole && done(ctx, m[i].round - 1);
    }
    size_t at = 0;
    for (size_t i = 0; i < ng; i++) {
        if (!keep[i]) {
            (*dropped)++;
            continue;
        }
        memmove(text + at, text + g[i].start, g[i].end - g[i].start);
        at += g[i].end - g[i].start;
    }
    rc = *dropped ? rd_write_atomic(pgn, text, at, err, errlen) : 0;
out:
    free(keep);
    free(m);
    free(g);
    free(text);
    return rc;
}
