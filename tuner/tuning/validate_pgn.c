/* The validation games in the -pgnout file: their Event, which names the
 * point, the limit and the run (validate_event), and the file cut on resume
 * to the validation games the state counts, whole pairs only
 * (validate_trim_pgn, with its helpers: which game is which point's Round,
 * and each point's quota of pairs).  See validate.h. */
#include "validate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "match.h"
#include "pgntrim.h"
#include "rd.h"

const char *validate_event(const Validation *v, const char *run, uint64_t point, bool at_limit, char *buf,
                           size_t len)
{
    char mark[64] = "";
    if (run && run[0])
        snprintf(mark, sizeof mark, " (the run created %.40s)", run);
    if (at_limit)
        snprintf(buf, len, "ratchet-tune validation point %llu at %.40s: snapshot %llu against the start values%s",
                 (unsigned long long)point, v->limit_text, (unsigned long long)point, mark);
    else
        snprintf(buf, len, "ratchet-tune validation point %llu: %s/%llu.json against the start values%s",
                 (unsigned long long)point, SNAPSHOT_DIR, (unsigned long long)point, mark);
    return buf;
}

typedef struct {
    size_t start, end;          /* the game's bytes */
    uint64_t point, pair;       /* its Round P.J; point 0: not one of this run's validation games */
    bool limit;                 /* a game at the user's limit */
    bool keep;
} PgnGame;

/* Whether the tag line `line` (len bytes) is [NAME "value"]. */
static bool tag_is(const char *line, size_t len, const char *name, const char *value)
{
    size_t n = strlen(name), m = strlen(value);
    return len == n + m + 5 && line[0] == '[' && !strncmp(line + 1, name, n) && line[n + 1] == ' ' &&
           line[n + 2] == '"' && !strncmp(line + n + 3, value, m) && line[n + 3 + m] == '"' && line[len - 1] == ']';
}

/* Whether the game text[0..n) (its header ends at the first blank line) is
 * one of this run's validation games (validate_trim_pgn): *point, *pair
 * from its Round P.J, *limit whether it was played at the user's limit;
 * *point 0 when it is not. */
static void game_round(const Validation *v, const char *run, const char *text, size_t n, uint64_t *point,
                       uint64_t *pair, bool *limit)
{
    *point = *pair = 0;
    *limit = false;
    const char *event = NULL, *white = NULL, *black = NULL;
    size_t elen = 0, wlen = 0, blen = 0;
    unsigned long long p = 0, j = 0;
    for (size_t i = 0; i < n;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', n - i);
        size_t len = nl ? (size_t)(nl - line) : n - i;
        if (len == 0)
            break; /* the movetext */
        char close, round[48];
        if (len > 8 && !strncmp(line, "[Round \"", 8)) {
            /* sscanf measures the string it reads: the line alone, not the
             * rest of the file (which made a trim quadratic in the PGN). */
            size_t rl = len - 8 < sizeof round - 1 ? len - 8 : sizeof round - 1;
            memcpy(round, line + 8, rl);
            round[rl] = '\0';
            if (sscanf(round, "%llu.%llu%c", &p, &j, &close) != 3 || close != '"')
                p = 0;
        } else if (!strncmp(line, "[Event ", 7)) {
            event = line;
            elen = len;
        } else if (!strncmp(line, "[White ", 7)) {
            white = line;
            wlen = len;
        } else if (!strncmp(line, "[Black ", 7)) {
            black = line;
            blen = len;
        }
        i += len + 1;
    }
    if (p == 0 || !event || !white || !black)
        return;
    char snap[32], want[PAIR_JOB_EVENT];
    snprintf(snap, sizeof snap, "snapshot %llu", p);
    bool players = (tag_is(white, wlen, "White", snap) && tag_is(black, blen, "Black", "start")) ||
                   (tag_is(white, wlen, "White", "start") && tag_is(black, blen, "Black", snap));
    bool tuning = players && tag_is(event, elen, "Event", validate_event(v, run, p, false, want, sizeof want));
    bool at_limit = players && !tuning && v->has_limit &&
                    tag_is(event, elen, "Event", validate_event(v, run, p, true, want, sizeof want));
    if (tuning || at_limit) {
        *point = p;
        *pair = j;
        *limit = at_limit;
    }
}

/* A validation game's place in the sort by point, leg, Round and place in
 * the file; a whole pair of them (its games: indices into the games). */
typedef struct {
    uint64_t point, pair;
    bool limit;
    size_t first, second; /* a game: first is its index; a pair: its games, second the one that ended it */
} PgnRound;

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static bool same_round(const PgnRound *a, const PgnRound *b)
{
    return a->point == b->point && a->limit == b->limit && a->pair == b->pair;
}

static int by_round(const void *a, const void *b)
{
    const PgnRound *x = a, *y = b;
    int c = cmp_u64(x->point, y->point);
    c = c ? c : cmp_u64(x->limit, y->limit);
    c = c ? c : cmp_u64(x->pair, y->pair);
    return c ? c : cmp_u64(x->first, y->first);
}

static int by_end(const void *a, const void *b)
{
    const PgnRound *x = a, *y = b;
    int c = cmp_u64(x->point, y->point);
    c = c ? c : cmp_u64(x->limit, y->limit);
    return c ? c : cmp_u64(x->second, y->second);
}

/* The pairs of point p's row in pts[0..n) (rows in point order); false when it has none. */
static bool row_pairs(const ValidationPoint *pts, size_t n, uint64_t p, uint64_t *pairs)
{
    for (size_t i = 0; i < n && pts[i].point <= p; i++)
        if (pts[i].point == p) {
            *pairs = pts[i].pairs;
            return true;
        }
    return false;
}

/* The whole pairs of a point's leg that the state counts: a recorded
 * point's, those of its row (of validation.csv, or of validation-limit.csv
 * for the leg at the user's limit; all of them when the row is missing, so
 * that nothing counted goes); the pending point's, those it counts; none of
 * a later point. */
static uint64_t pgn_quota(const Validation *v, uint64_t point, bool limit, const ValidationPoint *rows, size_t nrows,
                          const ValidationPoint *lrows, size_t nlrows)
{
    uint64_t q;
    if (point <= v->done)
        return row_pairs(limit ? lrows : rows, limit ? nlrows : nrows, point, &q) ? q : UINT64_MAX;
    if (point == v->done + 1 && v->pending)
        return limit ? v->lim.pairs : v->pairs;
    return 0;
}

int validate_trim_pgn(const Validation *v, const char *dir, const char *run, const char *pgn, PgnTrim *out,
                      char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!pgn || !pgn[0])
        return 0;
    size_t n;
    char *text = rd_read_file(pgn, &n, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    ValidationPoint *rows = NULL, *lrows = NULL;
    size_t nrows = 0, nlrows = 0;
    if (validate_read(dir, &rows, &nrows, err, errlen) < 0 || validate_read_limit(dir, &lrows, &nlrows, err, errlen) < 0) {
        free(rows);
        free(text);
        return -1;
    }
    PgnGame *g = NULL;
    PgnSpan *span = NULL;
    size_t ng = 0, nval = 0;
    int rc = -1;
    PgnRound *val = NULL, *pairs = NULL;
    if (pgn_games(text, n, &span, &ng) < 0 || !(g = malloc((ng + 1) * sizeof *g)))
        goto oom;
    for (size_t i = 0; i < ng; i++) {
        g[i] = (PgnGame){ .start = span[i].start, .end = span[i].end, .keep = true };
        game_round(v, run, text + g[i].start, g[i].end - g[i].start, &g[i].point, &g[i].pair, &g[i].limit);
        nval += g[i].point != 0;
    }
    /* The validation games by point, leg and Round: a Round's last two
     * games are its pair (an earlier one is of a pair cut short); the pairs
     * of each point's leg in the order they ended, up to its quota. */
    val = malloc((nval + 1) * sizeof *val);
    pairs = malloc((nval / 2 + 1) * sizeof *pairs);
    if (!val || !pairs)
        goto oom;
    size_t k = 0, np = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].point) {
            g[i].keep = false;
            val[k++] = (PgnRound){ .point = g[i].point, .pair = g[i].pair, .limit = g[i].limit, .first = i };
        }
    qsort(val, nval, sizeof *val, by_round);
    for (size_t i = 0; i + 1 < nval; i++)
        if (same_round(&val[i], &val[i + 1]) && (i + 2 == nval || !same_round(&val[i + 1], &val[i + 2]))) {
            pairs[np] = val[i];
            pairs[np++].second = val[i + 1].first;
        }
    qsort(pairs, np, sizeof *pairs, by_end);
    uint64_t kept = 0;
    for (size_t i = 0; i < np; i++) {
        const PgnRound *q = &pairs[i];
        if (i == 0 || q->point != pairs[i - 1].point || q->limit != pairs[i - 1].limit)
            kept = 0;
        if (kept >= pgn_quota(v, q->point, q->limit, rows, nrows, lrows, nlrows))
            continue;
        kept++;
        g[q->first].keep = g[q->second].keep = true;
        if (q->point == v->done + 1 && !q->limit && q->pair > out->last_pair)
            out->last_pair = q->pair;
        if (q->point == v->done + 1 && q->limit && q->pair > v->size / 2 && q->pair - v->size / 2 > out->last_lim_pair)
            out->last_lim_pair = q->pair - v->size / 2;
    }
    size_t len = 0;
    for (size_t i = 0; i < ng; i++) {
        if (!g[i].keep) {
            out->dropped++;
            continue;
        }
        memmove(text + len, text + g[i].start, g[i].end - g[i].start);
        len += g[i].end - g[i].start;
    }
    rc = out->dropped ? rd_write_atomic(pgn, text, len, err, errlen) : 0;
    goto done;
oom:
    rc = errmsg(err, errlen, "%s: out of memory", pgn);
done:
    free(span);
    free(pairs);
    free(val);
    free(g);
    free(rows);
    free(lrows);
    free(text);
    return rc;
}
