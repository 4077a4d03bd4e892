/* Held-out openings and validation points of a run; see validate.h. */
#include "validate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elotext.h"
#include "errmsg.h"
#include "rd.h"
#include "stats.h"

enum { DEFAULT_COST_PCT = 10 };
static const double DEFAULT_EVERY = 0.2, DEFAULT_HOLDOUT = 0.2;

void validate_free(Validation *v)
{
    free(v->values);
    v->values = NULL;
    v->nvalues = 0;
}

int validate_setup(Validation *v, const RunConf *conf, const SpsaState *st, size_t nbook, char *err, size_t errlen)
{
    double every = DEFAULT_EVERY, holdout = DEFAULT_HOLDOUT;
    if (conf_get(conf, "validate", "every") &&
        conf_get_double(conf, "validate", "every", 0.001, 1.0, &every, err, errlen) < 0)
        return -1;
    if (conf_get(conf, "validate", "holdout") &&
        conf_get_double(conf, "validate", "holdout", 0.0, 0.9, &holdout, err, errlen) < 0)
        return -1;
    uint64_t total = st->cfg.iterations * 2 * (uint64_t)st->cfg.pairs_per;
    uint64_t points = (uint64_t)floor(1.0 / every + 1e-9);
    unsigned long long games;
    if (conf_get(conf, "validate", "games")) {
        if (conf_get_u64(conf, "validate", "games", 0, 1000000000ULL, &games, err, errlen) < 0)
            return -1;
        if (games % 2) {
            errmsg(err, errlen, "validate.games=%llu: validation plays game pairs, so games must be even", games);
            return -1;
        }
    } else {
        /* about DEFAULT_COST_PCT% of the budget over all points, at least one pair a point */
        games = 2 * (unsigned long long)ceil((double)total * DEFAULT_COST_PCT / 100.0 / (double)points / 2.0);
        if (games < 2)
            games = 2;
    }
    v->every = games ? every : 0;
    v->games = games;
    v->holdout = 0;
    if (nbook >= 2 && holdout > 0) {
        double h = floor(holdout * (double)nbook + 0.5);
        v->holdout = h < 1 ? 1 : h > (double)(nbook - 1) ? nbook - 1 : (uint64_t)h;
    }
    v->done = 0;
    v->pending = false;
    return 0;
}

uint64_t validate_tuning_pick(const Validation *v, size_t nbook, uint64_t i)
{
    if (v->holdout == 0 || v->holdout >= nbook)
        return i;
    return i % (nbook - v->holdout);
}

uint64_t validate_holdout_pick(const Validation *v, size_t nbook, uint64_t j)
{
    if (v->holdout == 0 || v->holdout >= nbook)
        return j;
    return (nbook - v->holdout) + j % v->holdout;
}

uint64_t validate_points(const Validation *v)
{
    return v->every > 0 && v->games > 0 ? (uint64_t)floor(1.0 / v->every + 1e-9) : 0;
}

bool validate_due(const Validation *v, uint64_t games, uint64_t total)
{
    if (v->pending || v->done >= validate_points(v))
        return false;
    double at = ceil((double)(v->done + 1) * v->every * (double)total - 1e-6);
    return (double)games >= at;
}

cJSON *validate_to_json(const Validation *v, const SpsaState *st)
{
    if (v->holdout == 0 && v->every <= 0)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddNumberToObject(o, "every", v->every) &&
              cJSON_AddNumberToObject(o, "games", (double)v->games) &&
              cJSON_AddNumberToObject(o, "holdout", (double)v->holdout) &&
              cJSON_AddNumberToObject(o, "done", (double)v->done);
    if (ok && v->pending) {
        cJSON *p = cJSON_AddObjectToObject(o, "pending");
        ok = p && cJSON_AddNumberToObject(p, "point", (double)(v->done + 1)) &&
             cJSON_AddNumberToObject(p, "at_games", (double)v->at_games) &&
             cJSON_AddNumberToObject(p, "pairs", (double)v->pairs) &&
             cJSON_AddNumberToObject(p, "wins", (double)v->wins) &&
             cJSON_AddNumberToObject(p, "losses", (double)v->losses) &&
             cJSON_AddNumberToObject(p, "draws", (double)v->draws);
        cJSON *pt = ok ? cJSON_AddArrayToObject(p, "ptnml") : NULL;
        for (int i = 0; pt && i < 5; i++)
            ok = ok && cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)v->ptnml[i]));
        cJSON *vals = ok && pt ? cJSON_AddObjectToObject(p, "values") : NULL;
        ok = ok && vals;
        for (size_t i = 0; ok && i < v->nvalues && i < st->nparams; i++)
            ok = cJSON_AddNumberToObject(vals, st->params[i].name, v->values[i]) != NULL;
    }
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

static int count_of(const cJSON *o, const char *key, uint64_t *out, const char *origin, char *err, size_t errlen)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(c) || !(c->valuedouble >= 0) || c->valuedouble > 9007199254740992.0 ||
        c->valuedouble != floor(c->valuedouble)) {
        errmsg(err, errlen, "%s: run.validation.%s is not a non-negative integer", origin, key);
        return -1;
    }
    *out = (uint64_t)c->valuedouble;
    return 0;
}

int validate_from_json(Validation *v, const cJSON *j, const SpsaState *st, const char *origin, char *err,
                       size_t errlen)
{
    validate_free(v);
    memset(v, 0, sizeof *v);
    if (!j)
        return 0;
    const cJSON *every = cJSON_GetObjectItemCaseSensitive(j, "every");
    if (!cJSON_IsNumber(every) || !(every->valuedouble >= 0) || every->valuedouble > 1) {
        errmsg(err, errlen, "%s: run.validation.every must be a fraction in [0, 1]", origin);
        return -1;
    }
    v->every = every->valuedouble;
    if (count_of(j, "games", &v->games, origin, err, errlen) < 0 ||
        count_of(j, "holdout", &v->holdout, origin, err, errlen) < 0 ||
        count_of(j, "done", &v->done, origin, err, errlen) < 0)
        return -1;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pending");
    if (!p)
        return 0;
    uint64_t point;
    if (count_of(p, "point", &point, origin, err, errlen) < 0 || count_of(p, "at_games", &v->at_games, origin, err, errlen) < 0 ||
        count_of(p, "pairs", &v->pairs, origin, err, errlen) < 0 || count_of(p, "wins", &v->wins, origin, err, errlen) < 0 ||
        count_of(p, "losses", &v->losses, origin, err, errlen) < 0 ||
        count_of(p, "draws", &v->draws, origin, err, errlen) < 0)
        return -1;
    if (v->games > 0 && 2 * v->pairs >= v->games) {
        /* validate_record counts a point when its last pair ends, before the state is saved */
        errmsg(err, errlen, "%s: run.validation.pending: point %llu holds %llu pairs, all of its %llu games, but was "
               "never recorded: this state was not written by a run (edit or remove run.validation.pending)",
               origin, (unsigned long long)point, (unsigned long long)v->pairs, (unsigned long long)v->games);
        return -1;
    }
    if (point != v->done + 1 || 2 * v->pairs > v->games || v->wins + v->losses + v->draws != 2 * v->pairs) {
        errmsg(err, errlen, "%s: run.validation.pending: point %llu with %llu pairs (+%llu -%llu =%llu) does not "
               "follow %llu done points of %llu games", origin, (unsigned long long)point,
               (unsigned long long)v->pairs, (unsigned long long)v->wins, (unsigned long long)v->losses,
               (unsigned long long)v->draws, (unsigned long long)v->done, (unsigned long long)v->games);
        return -1;
    }
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(p, "ptnml");
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++) {
        const cJSON *c = cJSON_GetArrayItem(pt, i);
        if (cJSON_GetArraySize(pt) != 5 || !cJSON_IsNumber(c) || !(c->valuedouble >= 0) ||
            c->valuedouble != floor(c->valuedouble)) {
            errmsg(err, errlen, "%s: run.validation.pending.ptnml must hold 5 counts", origin);
            return -1;
        }
        sum += v->ptnml[i] = (uint64_t)c->valuedouble;
    }
    if (sum != v->pairs) {
        errmsg(err, errlen, "%s: run.validation.pending.ptnml counts %llu pairs, not %llu", origin,
               (unsigned long long)sum, (unsigned long long)v->pairs);
        return -1;
    }
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values");
    v->values = calloc(st->nparams + 1, sizeof *v->values);
    if (!v->values) {
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    v->nvalues = st->nparams;
    for (size_t i = 0; i < st->nparams; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(vals, st->params[i].name);
        if (!cJSON_IsNumber(x)) {
            errmsg(err, errlen, "%s: run.validation.pending.values has no number for '%s'", origin,
                   st->params[i].name);
            return -1;
        }
        v->values[i] = x->valuedouble;
    }
    v->pending = true;
    v->next = v->pairs;
    return 0;
}

int validate_take(Validation *v, const double *values, size_t n, uint64_t games)
{
    double *nv = malloc((n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    memcpy(nv, values, n * sizeof *nv);
    validate_free(v);
    v->values = nv;
    v->nvalues = n;
    v->pending = true;
    v->at_games = games;
    v->pairs = v->wins = v->losses = v->draws = 0;
    memset(v->ptnml, 0, sizeof v->ptnml);
    v->inflight = 0;
    v->next = 0;
    return 0;
}

static const char HEADER[] = "point,games,pairs,elo,elo_err,ll,ld,dd_wl,wd,ww,wins,losses,draws\n";

static int format_row(char *buf, size_t len, const ValidationPoint *p)
{
    return snprintf(buf, len, "%llu,%llu,%llu,%.2f,%.2f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
                    (unsigned long long)p->point, (unsigned long long)p->games, (unsigned long long)p->pairs,
                    p->elo, p->elo_err, (unsigned long long)p->ptnml[0], (unsigned long long)p->ptnml[1],
                    (unsigned long long)p->ptnml[2], (unsigned long long)p->ptnml[3],
                    (unsigned long long)p->ptnml[4], (unsigned long long)p->wins, (unsigned long long)p->losses,
                    (unsigned long long)p->draws);
}

int validate_record(Validation *v, const char *dir, ValidationPoint *out, char *err, size_t errlen)
{
    ValidationPoint p = { .point = v->done + 1, .games = v->at_games, .pairs = v->pairs, .wins = v->wins,
                          .losses = v->losses, .draws = v->draws };
    memcpy(p.ptnml, v->ptnml, sizeof p.ptnml);
    EloEstimate e;
    /* Every pair in one category has no interval: its error is written as inf (as is the Elo of a
     * point that scored 0 or 100%). */
    bool interval = stats_from_ptnml(v->ptnml, &e) == 0;
    p.elo = e.elo;
    p.elo_err = interval || v->pairs == 0 ? e.elo_err : INFINITY;
    char path[PATH_MAX + 32], row[512];
    snprintf(path, sizeof path, "%s/%s", dir, VALIDATION_FILE);
    int fd = rd_open_append(path, true, err, errlen);
    if (fd < 0)
        return -1;
    off_t end = lseek(fd, 0, SEEK_END);
    int n = format_row(row, sizeof row, &p);
    bool ok = end >= 0 && (end > 0 || write(fd, HEADER, sizeof HEADER - 1) == (ssize_t)(sizeof HEADER - 1)) &&
              n > 0 && write(fd, row, (size_t)n) == n && fsync(fd) == 0;
    int saved = errno;
    close(fd);
    if (!ok) {
        errmsg(err, errlen, "%s: cannot append the validation point: %s", path, strerror(saved));
        return -1;
    }
    v->done++;
    v->pending = false;
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

/* One row into *p: 13 fields, counts that agree with each other (wins,
 * losses and draws make 2 * pairs games, the pentanomial counts make pairs).
 * NULL, or what is wrong with it. */
static const char *parse_row(const char *line, ValidationPoint *p)
{
    char buf[1024];
    size_t n = strcspn(line, "\r\n");
    if (n >= sizeof buf)
        return "the row is too long";
    memcpy(buf, line, n);
    buf[n] = '\0';
    char *fld[14];
    int nf = 0;
    for (char *s = buf; nf < 14;) {
        fld[nf++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    if (nf != 13)
        return "not 13 fields";
    uint64_t u[11];
    static const int count_fields[11] = { 0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12 };
    for (int i = 0; i < 11; i++)
        if (!parse_count(fld[count_fields[i]], &u[i]))
            return "a count that is not a whole number from 0 to 2^53";
    double elo, err;
    if (!parse_elo(fld[3], &elo) || !parse_elo(fld[4], &err) || err < 0)
        return "an Elo or error that is not a number within +/-1e6, inf or nan";
    *p = (ValidationPoint){ .point = u[0], .games = u[1], .pairs = u[2], .elo = elo, .elo_err = err,
                            .ptnml = { u[3], u[4], u[5], u[6], u[7] }, .wins = u[8], .losses = u[9], .draws = u[10] };
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++)
        sum += p->ptnml[i];
    if (p->point == 0 || sum != p->pairs || p->wins + p->losses + p->draws != 2 * p->pairs)
        return "counts that do not agree (wins + losses + draws must be 2 * pairs, the pentanomial counts pairs)";
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

int validate_read(const char *dir, ValidationPoint **pts, size_t *n, char *err, size_t errlen)
{
    *pts = NULL;
    *n = 0;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, VALIDATION_FILE);
    size_t len;
    char *text = rd_read_file(path, &len, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    int rc = strlen(text) != len ? errmsg(err, errlen, "%s: a NUL byte: not a validation file", path)
                                 : validate_parse(text, path, pts, n, err, errlen);
    free(text);
    return rc;
}

char *validate_format(const ValidationPoint *pts, size_t n, size_t *len)
{
    /* the buffer holds what the rows print, measured first */
    size_t cap = sizeof HEADER;
    for (size_t i = 0; i < n; i++) {
        int w = format_row(NULL, 0, &pts[i]);
        if (w < 0)
            return NULL;
        cap += (size_t)w;
    }
    char *text = malloc(cap);
    if (!text)
        return NULL;
    *len = (size_t)snprintf(text, cap, "%s", HEADER);
    for (size_t i = 0; i < n; i++) {
        int w = format_row(text + *len, cap - *len, &pts[i]);
        if (w < 0 || (size_t)w >= cap - *len) {
            free(text);
            return NULL;
        }
        *len += (size_t)w;
    }
    return text;
}

int validate_trim(const Validation *v, const char *dir, char *err, size_t errlen)
{
    ValidationPoint *pts;
    size_t n;
    if (validate_read(dir, &pts, &n, err, errlen) < 0)
        return -1;
    size_t keep = 0;
    while (keep < n && pts[keep].point <= v->done)
        keep++;
    int rc = 0;
    if (keep < n) {
        size_t len;
        char *text = validate_format(pts, keep, &len);
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", dir, VALIDATION_FILE);
        rc = text ? rd_write_atomic(path, text, len, err, errlen) : errmsg(err, errlen, "%s: out of memory", path);
        free(text);
    }
    free(pts);
    return rc;
}

typedef struct {
    size_t start, end;          /* the game's bytes */
    uint64_t point, pair;       /* its Round P.J; point 0: not a validation game */
    bool keep;
} PgnGame;

/* The Round "P.J" of the game text[0..n) (its header ends at the first blank line). */
static void game_round(const char *text, size_t n, uint64_t *point, uint64_t *pair)
{
    *point = *pair = 0;
    for (size_t i = 0; i < n;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', n - i);
        size_t len = nl ? (size_t)(nl - line) : n - i;
        if (len == 0)
            return; /* the movetext */
        unsigned long long p, j;
        char close;
        if (len > 8 && !strncmp(line, "[Round \"", 8) && sscanf(line + 8, "%llu.%llu%c", &p, &j, &close) == 3 &&
            close == '"') {
            *point = p;
            *pair = j;
            return;
        }
        i += len + 1;
    }
}

int validate_trim_pgn(const Validation *v, const char *pgn, size_t *dropped, uint64_t *last_pair, char *err,
                      size_t errlen)
{
    *dropped = 0;
    *last_pair = 0;
    if (!pgn || !pgn[0])
        return 0;
    size_t n;
    char *text = rd_read_file(pgn, &n, err, errlen);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    /* the games: each starts with [Event at the start of the file or after a blank line */
    PgnGame *g = NULL;
    size_t ng = 0, cap = 0;
    for (size_t i = 0; i < n;) {
        const char *next = NULL;
        for (const char *p = text + i + 1; (p = strstr(p, "\n\n[Event \"")); p++) {
            next = p + 2;
            break;
        }
        size_t end = next ? (size_t)(next - text) : n;
        if (ng == cap) {
            cap = cap ? 2 * cap : 256;
            PgnGame *ngs = realloc(g, cap * sizeof *ngs);
            if (!ngs) {
                free(g);
                free(text);
                return errmsg(err, errlen, "out of memory");
            }
            g = ngs;
        }
        g[ng] = (PgnGame){ .start = i, .end = end, .keep = true };
        game_round(text + i, end - i, &g[ng].point, &g[ng].pair);
        ng++;
        i = end;
    }
    /* Per validation point, its whole pairs in the order they ended (the
     * position of their second game), up to what the state counts. */
    uint64_t kept_of_point = 0, cur = 0;
    bool any = false;
    for (size_t i = 0; i < ng; i++)
        if (g[i].point)
            g[i].keep = false;
    for (;;) {
        /* the smallest point not done yet */
        uint64_t p = 0;
        for (size_t i = 0; i < ng; i++)
            if (g[i].point > cur && (p == 0 || g[i].point < p))
                p = g[i].point;
        if (p == 0)
            break;
        cur = p;
        uint64_t quota = p <= v->done ? v->games / 2 : (p == v->done + 1 && v->pending) ? v->pairs : 0;
        kept_of_point = 0;
        for (size_t i = 0; i < ng && kept_of_point < quota; i++) {
            if (g[i].point != p)
                continue;
            /* game i ends a pair when an earlier game has its Round and no later one does */
            size_t first = i;
            bool later = false;
            for (size_t k = 0; k < i; k++)
                if (g[k].point == p && g[k].pair == g[i].pair)
                    first = k;
            for (size_t k = i + 1; k < ng && !later; k++)
                later = g[k].point == p && g[k].pair == g[i].pair;
            if (first == i || later)
                continue;
            g[first].keep = g[i].keep = true;
            kept_of_point++;
            if (p == v->done + 1 && g[i].pair > *last_pair)
                *last_pair = g[i].pair;
        }
    }
    size_t len = 0;
    for (size_t i = 0; i < ng; i++) {
        if (!g[i].keep) {
            (*dropped)++;
            any = true;
            continue;
        }
        memmove(text + len, text + g[i].start, g[i].end - g[i].start);
        len += g[i].end - g[i].start;
    }
    int rc = any ? rd_write_atomic(pgn, text, len, err, errlen) : 0;
    free(g);
    free(text);
    return rc;
}

const char *validate_elo_text(const ValidationPoint *p, char *buf, size_t len)
{
    if (elo_has_interval(p->elo, p->elo_err)) {
        snprintf(buf, len, "%+.1f +/- %.1f Elo", p->elo, p->elo_err);
    } else {
        char na[160];
        snprintf(buf, len, "Elo %s", elo_na_text(na, sizeof na, p->ptnml, p->wins, p->losses, p->draws));
    }
    return buf;
}

/* A point's rank for validate_best: with an interval above without one,
 * then the Elo; a non-finite Elo ranks last. */
static int best_class(const ValidationPoint *p)
{
    return elo_has_interval(p->elo, p->elo_err) ? 2 : isfinite(p->elo) ? 1 : 0;
}

size_t validate_best(const ValidationPoint *pts, size_t n)
{
    size_t b = n - 1;
    for (size_t i = 0; i < n; i++) {
        int ci = best_class(&pts[i]), cb = best_class(&pts[b]);
        if (ci > cb || (ci == cb && ci > 0 && pts[i].elo > pts[b].elo))
            b = i;
    }
    return b;
}
