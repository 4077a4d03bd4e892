/* The rows of DIR/validation.csv and DIR/validation-limit.csv: a finished
 * point's row appended and synced (validate_record, validate_record_limit;
 * a file of an older build's 13 columns rewritten with all 17), the files
 * read and checked row by row (validate_read, validate_read_limit,
 * validate_parse), written whole (validate_format), and cut on resume to the
 * points the state counts (validate_trim, validate_trim_limit).  See
 * validate.h. */
#include "validate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "rd.h"
#include "stats.h"

/* The header, and that of the files of older builds (its first 13 columns: no forfeits). */
static const char HEADER[] = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws,time_losses,crashes,"
                             "illegal,stalls\n";
static const char OLD_HEADER[] = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n";

/* p as a row: all 17 columns, or the first 13 (old: a file of an older build). */
static int format_row(char *buf, size_t len, const ValidationPoint *p, bool old)
{
    int n = snprintf(buf, len, "%llu,%llu,%llu,%.2f,%.2f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
                     (unsigned long long)p->point, (unsigned long long)p->games, (unsigned long long)p->pairs,
                     p->elo, p->elo_err, (unsigned long long)p->ptnml[0], (unsigned long long)p->ptnml[1],
                     (unsigned long long)p->ptnml[2], (unsigned long long)p->ptnml[3],
                     (unsigned long long)p->ptnml[4], (unsigned long long)p->wins, (unsigned long long)p->losses,
                     (unsigned long long)p->draws);
    if (n < 0)
        return n;
    const ValidationForfeits *f = &p->forfeits;
    size_t used = (size_t)n < len ? (size_t)n : len;
    int m = old ? snprintf(buf ? buf + used : NULL, len - used, "\n")
                : snprintf(buf ? buf + used : NULL, len - used, ",%llu,%llu,%llu,%llu\n",
                           (unsigned long long)f->time_losses, (unsigned long long)f->crashes,
                           (unsigned long long)f->illegal, (unsigned long long)f->stalls);
    return m < 0 ? m : n + m;
}

/* A finished point's row: its counts, and its Elo from them.  Every pair in
 * one category has no interval: its error is written as inf (as is the Elo
 * of a point that scored 0 or 100%). */
static ValidationPoint point_row(uint64_t point, uint64_t games, uint64_t pairs, uint64_t wins, uint64_t losses,
                                 uint64_t draws, const uint64_t ptnml[5], const ValidationForfeits *forfeits)
{
    ValidationPoint p = { .point = point, .games = games, .pairs = pairs, .wins = wins, .losses = losses,
                          .draws = draws, .forfeits = *forfeits };
    memcpy(p.ptnml, ptnml, sizeof p.ptnml);
    EloEstimate e;
    bool interval = stats_from_ptnml(p.ptnml, &e) == 0;
    p.elo = e.elo;
    p.elo_err = interval || pairs == 0 ? e.elo_err : INFINITY;
    return p;
}

static int read_rows(const char *dir, const char *name, ValidationPoint **pts, size_t *n, bool *old, char *err,
                     size_t errlen);
static char *format_rows(const ValidationPoint *pts, size_t n, bool old, size_t *len);

/* Whether the file at path starts with the header of an older build's (13 columns). */
static bool old_columns(const char *path)
{
    size_t len;
    char err[8];
    char *text = rd_read_file(path, &len, err, sizeof err);
    bool old = text && !strncmp(text, OLD_HEADER, sizeof OLD_HEADER - 1);
    free(text);
    return old;
}

/* An older build's DIR/NAME (13 columns) with p after its rows, all of
 * them in 17 columns (no forfeits in the old ones), replaced atomically. */
static int append_upgrading(const char *dir, const char *name, const char *path, const ValidationPoint *p, char *err,
                            size_t errlen)
{
    ValidationPoint *pts;
    size_t n;
    if (read_rows(dir, name, &pts, &n, NULL, err, errlen) < 0)
        return -1;
    ValidationPoint *np = realloc(pts, (n + 1) * sizeof *np);
    if (!np) {
        free(pts);
        return errmsg(err, errlen, "%s: out of memory", path);
    }
    np[n++] = *p;
    size_t len;
    char *text = format_rows(np, n, false, &len);
    int rc = text ? rd_write_atomic(path, text, len, err, errlen) : errmsg(err, errlen, "%s: out of memory", path);
    free(text);
    free(np);
    return rc;
}

/* p appended to DIR/NAME (the header first in a new file) and synced; the
 * file opened without following a link, and only if regular.  A file of an
 * older build's columns is rewritten with all of them (append_upgrading). */
static int append_row(const char *dir, const char *name, const ValidationPoint *p, char *err, size_t errlen)
{
    char path[PATH_MAX + 32], row[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = rd_open_append(path, true, err, errlen);
    if (fd < 0)
        return -1;
    off_t end = lseek(fd, 0, SEEK_END);
    if (end > 0 && old_columns(path)) {
        close(fd);
        return append_upgrading(dir, name, path, p, err, errlen);
    }
    int n = format_row(row, sizeof row, p, false);
    bool ok = end >= 0 && (end > 0 || write(fd, HEADER, sizeof HEADER - 1) == (ssize_t)(sizeof HEADER - 1)) &&
              n > 0 && (size_t)n < sizeof row && write(fd, row, (size_t)n) == n && fsync(fd) == 0;
    int saved = errno;
    close(fd);
    if (!ok)
        return errmsg(err, errlen, "%s: cannot append the validation point: %s", path, strerror(saved));
    return 0;
}

int validate_record(Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen)
{
    ValidationPoint p = point_row(v->done + 1, v->at_games, v->pairs, v->wins, v->losses, v->draws, v->ptnml,
                                  &v->forfeits);
    if (append_row(dir, VALIDATION_FILE, &p, err, errlen) < 0)
        return -1;
    v->done++;
    v->last_at = v->due;
    v->last_known = true;
    v->used += v->pairs;
    v->pending = false;
    memset(&v->forfeits, 0, sizeof v->forfeits);
    memset(&v->lim, 0, sizeof v->lim);
    validate_free(v);
    if (out)
        *out = p;
    return 0;
}

/* A count field: digits only (no sign), at most 2^53 (what state.json's numbers hold exactly). */
static bool parse_count(const char *f, uint64_t *out)
{
    if (!*f || strspn(f, "0123456789") != strlen(f) || strlen(f) > 16)
        return false;
    unsigned long long u = strtoull(f, NULL, 10);
    if (u > 9007199254740992ULL)
        return false;
    *out = u;
    return true;
}

/* An Elo or its error as validate_record writes it: finite and within
 * VALIDATION_MAX_ELO, or inf / nan (a point without an interval). */
static bool parse_elo(const char *f, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(f, &end);
    if (end == f || *end != '\0' || (isfinite(x) && fabs(x) > VALIDATION_MAX_ELO))
        return false;
    *out = x;
    return true;
}

/* One row into *p: 17 fields, or the 13 of an older build's (no
 * forfeits), counts that agree with each other (wins, losses and draws make
 * 2 * pairs games, the pentanomial counts make pairs, the forfeits are some
 * of the games).  NULL, or what is wrong with it. */
static const char *parse_row(const char *line, ValidationPoint *p)
{
    char buf[1024];
    size_t n = strcspn(line, "\r\n");
    if (n >= sizeof buf)
        return "the row is too long";
    memcpy(buf, line, n);
    buf[n] = '\0';
    char *fld[18];
    int nf = 0;
    for (char *s = buf; nf < 18;) {
        fld[nf++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    if (nf != 13 && nf != 17)
        return "not 17 fields (nor the 13 of an older build)";
    uint64_t u[15] = { 0 };
    static const int count_fields[15] = { 0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    for (int i = 0; i < 15 && count_fields[i] < nf; i++)
        if (!parse_count(fld[count_fields[i]], &u[i]))
            return "a count that is not a whole number from 0 to 2^53";
    double elo, err;
    if (!parse_elo(fld[3], &elo) || !parse_elo(fld[4], &err) || err < 0)
        return "an Elo or error that is not a number within +/-1e6, inf or nan";
    *p = (ValidationPoint){ .point = u[0], .games = u[1], .pairs = u[2], .elo = elo, .elo_err = err,
                            .ptnml = { u[3], u[4], u[5], u[6], u[7] }, .wins = u[8], .losses = u[9], .draws = u[10],
                            .forfeits = { .time_losses = u[11], .crashes = u[12], .illegal = u[13], .stalls = u[14] } };
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++)
        sum += p->ptnml[i];
    if (p->point == 0 || sum != p->pairs || p->wins + p->losses + p->draws != 2 * p->pairs ||
        validate_forfeits(&p->forfeits) > 2 * p->pairs)
        return "counts that do not agree (wins + losses + draws must be 2 * pairs, the pentanomial counts pairs, the "
               "forfeits at most 2 * pairs)";
    return NULL;
}

int validate_parse(const char *text, const char *path, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    *pts = NULL;
    *n = 0;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        const char *next = nl ? nl + 1 : line + strlen(line);
        lineno++;
        const char *bad = NULL;
        ValidationPoint p;
        if ((lineno == 1 && strncmp(line, "point,", 6) == 0) || *line == '\n' || (line[0] == '\r' && line[1] == '\n')) {
            line = next;
            continue;
        }
        char row[1024];
        size_t len = (size_t)(next - line);
        if (len >= sizeof row) {
            bad = "the row is too long";
        } else {
            memcpy(row, line, len);
            row[len] = '\0';
            bad = parse_row(row, &p);
        }
        if (!bad && *n > 0 && p.point <= (*pts)[*n - 1].point)
            bad = "its point does not follow the row before";
        if (bad) {
            errmsg(err, errlen, "%s:%d: not a validation row: %s (expected %.*s)", path, lineno, bad,
                   (int)sizeof HEADER - 2, HEADER);
            rc = -1;
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            ValidationPoint *np = realloc(*pts, cap * sizeof *np);
            if (!np) {
                errmsg(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            *pts = np;
        }
        (*pts)[(*n)++] = p;
        line = next;
    }
    if (rc < 0) {
        free(*pts);
        *pts = NULL;
        *n = 0;
    }
    return rc;
}

/* DIR/NAME's rows (validate_parse); no file: none.  *old (when given):
 * whether the file has an older build's header (13 columns). */
static int read_rows(const char *dir, const char *name, ValidationPoint **pts, size_t *n, bool *old, char *err,
                     size_t errlen)
{
    *pts = NULL;
    *n = 0;
    if (old)
        *old = false;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = rd_read_file(path, &len, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    int rc = strlen(text) != len ? errmsg(err, errlen, "%s: a NUL byte: not a validation file", path)
                                 : validate_parse(text, path, pts, n, err, errlen);
    if (old)
        *old = !strncmp(text, OLD_HEADER, sizeof OLD_HEADER - 1);
    free(text);
    return rc;
}

int validate_read(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    return read_rows(dir, VALIDATION_FILE, pts, n, NULL, err, errlen);
}

/* validate_format, or in an older build's 13 columns (old). */
static char *format_rows(const ValidationPoint *pts, size_t n, bool old, size_t *len)
{
    /* the buffer holds what the rows print, measured first */
    size_t cap = sizeof HEADER;
    for (size_t i = 0; i < n; i++) {
        int w = format_row(NULL, 0, &pts[i], old);
        if (w < 0)
            return NULL;
        cap += (size_t)w;
    }
    char *text = malloc(cap);
    if (!text)
        return NULL;
    *len = (size_t)snprintf(text, cap, "%s", old ? OLD_HEADER : HEADER);
    for (size_t i = 0; i < n; i++) {
        int w = format_row(text + *len, cap - *len, &pts[i], old);
        if (w < 0 || (size_t)w >= cap - *len) {
            free(text);
            return NULL;
        }
        *len += (size_t)w;
    }
    return text;
}

char *validate_format(const ValidationPoint *pts, size_t n, size_t *len)
{
    return format_rows(pts, n, false, len);
}

/* DIR/NAME cut to the rows of the points the state counts (a row beyond
 * them: a kill between its append and the state's save), replaced
 * atomically in the columns it had; untouched when nothing goes. */
static int trim_rows(const Validation *v, const char *dir, const char *name, char *err, size_t errlen)
{
    ValidationPoint *pts;
    size_t n;
    bool old;
    if (read_rows(dir, name, &pts, &n, &old, err, errlen) < 0)
        return -1;
    size_t keep = 0;
    while (keep < n && pts[keep].point <= v->done)
        keep++;
    int rc = 0;
    if (keep < n) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t len;
        char *text = format_rows(pts, keep, old, &len);
        rc = text ? rd_write_atomic(path, text, len, err, errlen) : errmsg(err, errlen, "%s: out of memory", path);
        free(text);
    }
    free(pts);
    return rc;
}

int validate_trim(const Validation *v, const char *dir, char *err, size_t errlen)
{
    return trim_rows(v, dir, VALIDATION_FILE, err, errlen);
}

/* ---- the user's limit: DIR/validation-limit.csv ---------------------------------------
 * The same rows as validation.csv, in a file of their own, so that the
 * rows a reader of validation.csv expects are unchanged. */

int validate_record_limit(const Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen)
{
    ValidationPoint p = point_row(v->done + 1, v->at_games, v->lim.pairs, v->lim.wins, v->lim.losses, v->lim.draws,
                                  v->lim.ptnml, &v->lim.forfeits);
    if (append_row(dir, VALIDATION_LIMIT_FILE, &p, err, errlen) < 0)
        return -1;
    if (out)
        *out = p;
    return 0;
}

int validate_read_limit(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    return read_rows(dir, VALIDATION_LIMIT_FILE, pts, n, NULL, err, errlen);
}

int validate_trim_limit(const Validation *v, const char *dir, char *err, size_t errlen)
{
    return trim_rows(v, dir, VALIDATION_LIMIT_FILE, err, errlen);
}
