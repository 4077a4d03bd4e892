/* PGN export.  See pgn.h. */
#include "pgn.h"
#include "errmsg.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { LINE_WIDTH = 80 };

void pgn_text_free(PgnText *t)
{
    free(t->s);
    t->s = NULL;
    t->len = t->cap = 0;
}

static int reserve(PgnText *t, size_t extra)
{
    if (t->len + extra + 1 <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + extra + 1)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s)
        return -1;
    t->s = s;
    t->cap = cap;
    return 0;
}

static int add(PgnText *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(PgnText *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if (!t->s || t->len + (size_t)n + 1 > t->cap) {
        if (reserve(t, (size_t)n) < 0)
            return -1;
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)n;
    return 0;
}

/* A tag pair with '"' and '\' escaped, and a control character (a line
 * break or an escape sequence from an engine's name) as '?': a tag is one
 * line of printable text. */
static int tag(PgnText *t, const char *name, const char *value)
{
    char esc[512];
    size_t n = 0;
    for (const char *p = value ? value : "?"; *p && n + 2 < sizeof esc; p++) {
        if (*p == '"' || *p == '\\')
            esc[n++] = '\\';
        esc[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    }
    esc[n] = '\0';
    return add(t, "[%s \"%s\"]\n", name, esc);
}

/* Movetext words, wrapped at LINE_WIDTH. */
typedef struct { PgnText *t; int col; } Wrap;

static int word(Wrap *w, const char *s)
{
    int n = (int)strlen(s);
    if (w->col > 0 && w->col + 1 + n > LINE_WIDTH) {
        if (add(w->t, "\n") < 0)
            return -1;
        w->col = 0;
    }
    if (add(w->t, w->col > 0 ? " %s" : "%s", s) < 0)
        return -1;
    w->col += n + (w->col > 0);
    return 0;
}

static void comment(const GameRecord *r, int k, char *buf, size_t len)
{
    int32_t sc = r->score[k];
    if (sc == GAME_SCORE_NONE) {
        snprintf(buf, len, "{%.3fs}", r->ms[k] / 1000.0);
    } else if (sc > 30000 || sc < -30000) {
        int n = sc > 0 ? 32000 - sc : -32000 - sc;
        snprintf(buf, len, "{%sM%d/%d %.3fs}", sc > 0 ? "+" : "-", n < 0 ? -n : n, r->depth[k], r->ms[k] / 1000.0);
    } else {
        snprintf(buf, len, "{%+.2f/%d %.3fs}", sc / 100.0, r->depth[k], r->ms[k] / 1000.0);
    }
}

int pgn_format(const PgnTags *tags, const GameRecord *r, Position *pos, PgnText *out)
{
    char date[16] = "????.??.??", plies[16], why[160];
    struct tm tm;
    if (tags->date && localtime_r(&tags->date, &tm))
        strftime(date, sizeof date, "%Y.%m.%d", &tm);
    snprintf(plies, sizeof plies, "%d", r->nply);
    const char *result = game_result_text(r->result);

    int bad = 0;
    bad |= tag(out, "Event", tags->event ? tags->event : "?");
    bad |= tag(out, "Site", tags->site ? tags->site : "?");
    bad |= tag(out, "Date", date);
    bad |= tag(out, "Round", tags->round ? tags->round : "?");
    bad |= tag(out, "White", tags->white);
    bad |= tag(out, "Black", tags->black);
    bad |= tag(out, "Result", result);
    if (!r->startpos) {
        bad |= tag(out, "SetUp", "1");
        bad |= tag(out, "FEN", r->fen);
    }
    bad |= tag(out, "TimeControl", tags->timecontrol ? tags->timecontrol : "-");
    if (tags->limits && tags->limits[0])
        bad |= tag(out, "Limits", tags->limits);
    bad |= tag(out, "PlyCount", plies);
    bad |= tag(out, "Termination", game_pgn_termination(r->term));
    bad |= add(out, "\n");
    if (bad)
        return -1;

    if (r->startpos)
        pos_from_fen(pos, START_FEN, NULL, 0);
    else if (pos_from_fen(pos, r->fen, NULL, 0) < 0)
        return -1;
    Wrap w = { out, 0 };
    char san[16], num[24], com[64];
    for (int k = 0; k < r->nply; k++) {
        if (pos->side == WHITE || k == 0) {
            snprintf(num, sizeof num, pos->side == WHITE ? "%d." : "%d...", pos->fullmove);
            if (word(&w, num) < 0)
                return -1;
        }
        move_to_san(pos, r->moves[k], san);
        if (word(&w, san) < 0)
            return -1;
        if (tags->comments) {
            comment(r, k, com, sizeof com);
            if (word(&w, com) < 0)
                return -1;
        }
        pos_make(pos, r->moves[k]);
    }
    game_describe(r, why, sizeof why);
    char endc[176];
    snprintf(endc, sizeof endc, "{%s}", why);
    if (word(&w, endc) < 0 || word(&w, result) < 0 || add(out, "\n\n") < 0)
        return -1;
    return 0;
}

/* text[0..end), trailing white space aside, ends in a game's result token
 * (a word of its own), or holds nothing but white space. */
static bool ends_whole(const char *text, size_t end)
{
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == '\t'))
        end--;
    if (end == 0)
        return true;
    static const char *const results[] = { "1-0", "0-1", "1/2-1/2", "*" };
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(results[i]);
        if (end >= n && memcmp(text + end - n, results[i], n) == 0 &&
            (end == n || text[end - n - 1] == ' ' || text[end - n - 1] == '\n' || text[end - n - 1] == '\t')) {
            size_t line = end - n;
            while (line > 0 && text[line - 1] != '\n')
                line--;
            return text[line] != '['; /* movetext, not a tag cut short */
        }
    }
    return false;
}

size_t pgn_whole_prefix(const char *text, size_t n, bool at_start)
{
    if (ends_whole(text, n))
        return n;
    /* The last game starts at a tag line after a whole game. */
    for (size_t p = n; p-- > 0;) {
        if (text[p] != '[' || (p > 0 && text[p - 1] != '\n'))
            continue;
        if (p == 0 ? at_start : ends_whole(text, p))
            return p;
    }
    return (size_t)-1;
}

enum { PGN_TAIL = 4 << 20 }; /* bytes read from the end of a PGN file to find its last whole game */

/* Cut a file that ends in a partial game (a write cut short by a kill or a
 * full disk) back to its last whole game, so the next game starts cleanly. */
static void cut_partial(int fd, const char *path, off_t *size)
{
    if (*size == 0)
        return;
    size_t n = *size > PGN_TAIL ? PGN_TAIL : (size_t)*size;
    off_t base = *size - (off_t)n;
    char *buf = malloc(n);
    if (!buf)
        return;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, base + (off_t)got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == n) {
        size_t keep = pgn_whole_prefix(buf, n, base == 0);
        if (keep == (size_t)-1) {
            fprintf(stderr, "ratchet-tune: warning: PGN file '%s' ends in a partial game that could not be told apart "
                            "from the game before; it is left as it is\n", path);
        } else if (keep < n) {
            if (ftruncate(fd, base + (off_t)keep) == 0) {
                fprintf(stderr, "ratchet-tune: PGN file '%s' ended in a partial game (%zu bytes, from a write cut "
                                "short): cut back to its last whole game\n", path, n - keep);
                *size = base + (off_t)keep;
            } else {
                fprintf(stderr, "ratchet-tune: warning: PGN file '%s' ends in a partial game and could not be cut "
                                "back: %s\n", path, strerror(errno));
            }
        }
    }
    free(buf);
}

struct PgnFile {
    int fd;
    off_t whole;                /* the file's size after the last whole game */
    long games;                 /* games appended */
    pthread_mutex_t mu;
    char *path;
    bool failed;
};

PgnFile *pgn_open(const char *path, char *err, size_t errlen)
{
    PgnFile *p = calloc(1, sizeof *p);
    if (!p) {
        errmsg(err, errlen, "out of memory");
        return NULL;
    }
    const char *why;
    p->fd = open_regular(path, O_RDWR | O_APPEND | O_CREAT, 0644, &why);
    struct stat sb;
    if (p->fd < 0 || fstat(p->fd, &sb) < 0) {
        errmsg(err, errlen, "cannot open PGN file '%s': %s", path, p->fd < 0 ? why : strerror(errno));
        if (p->fd >= 0)
            close(p->fd);
        free(p);
        return NULL;
    }
    p->whole = sb.st_size;
    cut_partial(p->fd, path, &p->whole);
    p->path = strdup(path);
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

int pgn_append(PgnFile *p, const PgnText *t)
{
    pthread_mutex_lock(&p->mu);
    if (p->failed) {
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    size_t off = 0;
    int e = 0;
    while (off < t->len) {
        ssize_t n = write(p->fd, t->s + off, t->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            break;
        }
        off += (size_t)n;
    }
    int rc = 0;
    if (off < t->len) {
        /* Half a game would run into the next one: cut the file back. */
        bool cut = ftruncate(p->fd, p->whole) == 0;
        fprintf(stderr, "ratchet-tune: writing PGN file '%s' failed: %s; %s\n", p->path ? p->path : "?", strerror(e),
                cut ? "the file is cut back to its last whole game and no more games are written to it"
                    : "it could not be cut back to its last whole game: it ends in a partial game");
        p->failed = true;
        rc = -1;
    } else {
        p->whole += (off_t)t->len;
        p->games++;
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

bool pgn_failed(PgnFile *p)
{
    pthread_mutex_lock(&p->mu);
    bool f = p->failed;
    pthread_mutex_unlock(&p->mu);
    return f;
}

void pgn_close(PgnFile *p)
{
    if (!p)
        return;
    close(p->fd);
    pthread_mutex_destroy(&p->mu);
    free(p->path);
    free(p);
}
