/* The MPI messages as bytes; see msg.h. */
#include "msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

/* ---- packing ---- */

void msg_put(Buf *b, const void *d, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

void msg_put_u64(Buf *b, uint64_t v) { msg_put(b, &v, sizeof v); }
void msg_put_i32(Buf *b, int32_t v) { msg_put(b, &v, sizeof v); }

void msg_put_str(Buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    msg_put(b, &n, sizeof n);
    msg_put(b, s, n);
}

void msg_pack_job(Buf *b, uint64_t seq, const PairJob *j)
{
    msg_put_u64(b, seq);
    msg_put_u64(b, j->id);
    msg_put_u64(b, (uint64_t)j->opening);
    msg_put_i32(b, j->games);
    msg_put_i32(b, j->swap);
    msg_put_str(b, j->fen);
    msg_put_str(b, j->round);
    msg_put_str(b, j->names[0]);
    msg_put_str(b, j->names[1]);
    msg_put_str(b, j->event);
    msg_put_i32(b, j->has_tc);
    msg_put(b, &j->tc, sizeof j->tc);
    for (int e = 0; e < 2; e++) {
        int n = j->nopts[e] < MAX_JOB_OPTS ? j->nopts[e] : MAX_JOB_OPTS;
        msg_put_i32(b, n);
        for (int k = 0; k < n; k++) {
            msg_put_str(b, j->opts[e][k].name);
            msg_put_str(b, j->opts[e][k].value);
        }
    }
}

void msg_pack_result(Buf *b, uint64_t seq, const PairResult *res, const char *pgn, size_t pgnlen)
{
    msg_put_u64(b, seq);
    msg_put(b, res, sizeof *res);
    msg_put_u64(b, pgnlen);
    msg_put(b, pgn, pgnlen);
}

/* ---- reading ---- */

typedef struct {
    const char *p;
    size_t len, pos;
    bool bad;
} Rd;

static void get(Rd *r, void *d, size_t n)
{
    if (r->bad || r->len - r->pos < n) {
        r->bad = true;
        memset(d, 0, n);
        return;
    }
    memcpy(d, r->p + r->pos, n);
    r->pos += n;
}

static uint64_t get_u64(Rd *r)
{
    uint64_t v;
    get(r, &v, sizeof v);
    return v;
}

static int32_t get_i32(Rd *r)
{
    int32_t v;
    get(r, &v, sizeof v);
    return v;
}

/* A string into dst (cap bytes, always terminated): false when it does not
 * fit, holds a NUL or runs past the message. */
static bool get_str(Rd *r, char *dst, size_t cap)
{
    uint32_t n = 0;
    get(r, &n, sizeof n);
    dst[0] = '\0';
    if (r->bad)
        return false;
    if (n >= cap || r->len - r->pos < n || memchr(r->p + r->pos, '\0', n)) {
        r->bad = true;
        return false;
    }
    memcpy(dst, r->p + r->pos, n);
    dst[n] = '\0';
    r->pos += n;
    return true;
}

static const char *tag_name(int tag)
{
    static const char *const names[] = { "?", "CONFIG", "WANT", "JOB", "RESULT", "ABANDON",
                                         "END", "STOP", "DONE", "QUIT", "BYE" };
    return tag >= T_CONFIG && tag <= T_BYE ? names[tag] : "unknown";
}

/* ---- checks ---- */

static bool in(long v, long lo, long hi)
{
    return v >= lo && v <= hi;
}

int msg_check_result(const PairResult *r, char *why, size_t whylen)
{
    if (r->games != 1 && r->games != 2)
        return errmsg(why, whylen, "games = %d (1 or 2)", r->games);
    int losses = 0;
    for (int g = 0; g < 2; g++) {
        bool played = g < r->games;
        if (!played) {
            if (r->score2[g] != 0 || r->result[g] != 0 || r->term[g] != 0 || r->plies[g] != 0)
                return errmsg(why, whylen, "game %d of a single game has a score, result or plies", g + 1);
            continue;
        }
        if (!in(r->result[g], RESULT_WHITE, RESULT_DRAW))
            return errmsg(why, whylen, "result[%d] = %d (%d..%d)", g, r->result[g], RESULT_WHITE, RESULT_DRAW);
        if (!in(r->score2[g], 0, 2) || (r->score2[g] == 1) != (r->result[g] == RESULT_DRAW))
            return errmsg(why, whylen, "score2[%d] = %d does not fit result %d", g, r->score2[g], r->result[g]);
        if (!in((long)r->term[g], TERM_CHECKMATE, TERM_CRASH))
            return errmsg(why, whylen, "term[%d] = %d (%d..%d)", g, (int)r->term[g], TERM_CHECKMATE, TERM_CRASH);
        if (!in(r->plies[g], 0, GAME_MAX_PLIES))
            return errmsg(why, whylen, "plies[%d] = %d (0..%d)", g, r->plies[g], GAME_MAX_PLIES);
    }
    int want_ptnml = r->games == 2 ? r->score2[0] + r->score2[1] : -1;
    if (r->ptnml_index != want_ptnml)
        return errmsg(why, whylen, "ptnml_index = %d (%d from the scores)", r->ptnml_index, want_ptnml);
    static const char *const names[4] = { "time_losses", "crashes", "illegal", "restarts" };
    for (int e = 0; e < 2; e++) {
        const int v[4] = { r->time_losses[e], r->crashes[e], r->illegal[e], r->restarts[e] };
        for (int c = 0; c < 4; c++) {
            int hi = c == 3 ? 2 * r->games : r->games;
            if (!in(v[c], 0, hi))
                return errmsg(why, whylen, "%s[%d] = %d (0..%d)", names[c], e, v[c], hi);
            if (c < 3)
                losses += v[c];
        }
    }
    if (losses > r->games)
        return errmsg(why, whylen, "%d games lost on time, by a crash or an illegal move in %d game%s", losses,
                      r->games, r->games == 1 ? "" : "s");
    /* at most 10^17 nodes (an engine's moves of a pair, each read as at
     * most 10^15) and 10^10 ms (four months) */
    for (int e = 0; e < 2; e++)
        if (r->wall_nodes[e] < 0 || r->wall_nodes[e] > 100000000000000000LL || r->wall_ms[e] < 0 ||
            r->wall_ms[e] > 10000000000LL)
            return errmsg(why, whylen, "wall_nodes[%d] = %lld, wall_ms[%d] = %lld (0..1e17, 0..1e10)", e,
                          (long long)r->wall_nodes[e], e, (long long)r->wall_ms[e]);
    return 0;
}

int msg_decode_coord(int tag, const void *p, size_t len, CoordMsg *m, char *why, size_t whylen)
{
    memset(m, 0, sizeof *m);
    m->tag = tag;
    Rd r = { p, len, 0, false };
    switch (tag) {
    case T_WANT:
        m->n = get_i32(&r);
        if (!get_str(&r, m->host, sizeof m->host))
            break;
        if (!in(m->n, 0, MSG_MAX_CREDIT))
            return errmsg(why, whylen, "WANT: credits = %d (0..%d)", (int)m->n, MSG_MAX_CREDIT);
        break;
    case T_RESULT: {
        m->seq = get_u64(&r);
        m->has_seq = !r.bad;
        get(&r, &m->res, sizeof m->res);
        uint64_t n = get_u64(&r);
        if (r.bad)
            break;
        if (n != r.len - r.pos)
            return errmsg(why, whylen, "RESULT: PGN length %llu, %zu bytes left", (unsigned long long)n,
                          r.len - r.pos);
        if (n > MSG_MAX_PGN)
            return errmsg(why, whylen, "RESULT: PGN length %llu (at most %d)", (unsigned long long)n, MSG_MAX_PGN);
        m->text = r.p + r.pos;
        m->textlen = (size_t)n;
        r.pos += (size_t)n;
        if (memchr(m->text, '\0', m->textlen))
            return errmsg(why, whylen, "RESULT: a NUL byte in the PGN text");
        char e[160];
        if (msg_check_result(&m->res, e, sizeof e) < 0)
            return errmsg(why, whylen, "RESULT: %s", e);
        break;
    }
    case T_ABANDON:
        m->seq = get_u64(&r);
        m->has_seq = !r.bad;
        break;
    case T_DONE:
        m->n = get_i32(&r);
        if (!get_str(&r, m->host, sizeof m->host))
            break;
        if (!in(m->n, -1, 1))
            return errmsg(why, whylen, "DONE: code %d (-1, 0 or 1)", (int)m->n);
        break;
    case T_BYE:
        break;
    default:
        return errmsg(why, whylen, "tag %d (%s) is not a message for rank 0", tag, tag_name(tag));
    }
    if (r.bad)
        return errmsg(why, whylen, "%s: %zu bytes, too short or a string that does not fit", tag_name(tag), len);
    if (r.pos != r.len)
        return errmsg(why, whylen, "%s: %zu bytes left over", tag_name(tag), r.len - r.pos);
    return 0;
}

int msg_decode_job(const void *p, size_t len, uint64_t *seq, PairJob *j, char *why, size_t whylen)
{
    Rd r = { p, len, 0, false };
    *seq = get_u64(&r);
    j->id = get_u64(&r);
    j->opening = (size_t)get_u64(&r);
    j->games = get_i32(&r);
    int32_t swap = get_i32(&r);
    j->swap = swap != 0;
    j->nopts[0] = j->nopts[1] = 0;
    get_str(&r, j->fen, sizeof j->fen);
    get_str(&r, j->round, sizeof j->round);
    get_str(&r, j->names[0], sizeof j->names[0]);
    get_str(&r, j->names[1], sizeof j->names[1]);
    get_str(&r, j->event, sizeof j->event);
    int32_t has_tc = get_i32(&r);
    j->has_tc = has_tc != 0;
    get(&r, &j->tc, sizeof j->tc);
    if (r.bad)
        return errmsg(why, whylen, "JOB: %zu bytes, too short or a FEN, Round, name or Event that does not fit",
                      len);
    if (!in(j->games, 0, 2))
        return errmsg(why, whylen, "JOB: games = %d (0..2)", j->games);
    if (!in(swap, 0, 1))
        return errmsg(why, whylen, "JOB: swap = %d (0 or 1)", (int)swap);
    if (!in(has_tc, 0, 1))
        return errmsg(why, whylen, "JOB: has_tc = %d (0 or 1)", (int)has_tc);
    for (int e = 0; e < 2; e++) {
        int n = get_i32(&r);
        if (r.bad || !in(n, 0, MAX_JOB_OPTS))
            return errmsg(why, whylen, "JOB: engine %d has %d options (0..%d)", e, n, MAX_JOB_OPTS);
        for (int k = 0; k < n; k++) {
            if (!get_str(&r, j->opts[e][k].name, sizeof j->opts[e][k].name) ||
                !get_str(&r, j->opts[e][k].value, sizeof j->opts[e][k].value))
                return errmsg(why, whylen, "JOB: engine %d option %d does not fit", e, k);
        }
        j->nopts[e] = n;
    }
    if (r.pos != r.len)
        return errmsg(why, whylen, "JOB: %zu bytes left over", r.len - r.pos);
    return 0;
}

static void layout(uint32_t sizes[5])
{
    sizes[0] = (uint32_t)sizeof(MatchConfig);
    sizes[1] = (uint32_t)sizeof(PairResult);
    sizes[2] = (uint32_t)sizeof(EngineSpec);
    sizes[3] = (uint32_t)sizeof(TimeControl);
    sizes[4] = (uint32_t)sizeof(Adjudication);
}

void msg_config_head(ConfigHead *h, bool want_pgn, int concurrency)
{
    memset(h, 0, sizeof *h);
    h->magic = PROTO_MAGIC;
    layout(h->sizes);
    h->want_pgn = want_pgn;
    h->concurrency = concurrency;
}

static bool terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

#define TERMINATED(field) terminated((field), sizeof(field))

static int check_spec(const EngineSpec *s, const char *which, char *why, size_t whylen)
{
    if (!TERMINATED(s->name) || !TERMINATED(s->cmd) || !TERMINATED(s->args) || !TERMINATED(s->dir))
        return errmsg(why, whylen, "CONFIG: %s: a name, command, argument or directory is not terminated", which);
    if (!in(s->nopts, 0, MAX_ENGINE_OPTS))
        return errmsg(why, whylen, "CONFIG: %s: %d options (0..%d)", which, s->nopts, MAX_ENGINE_OPTS);
    for (int k = 0; k < s->nopts; k++)
        if (!TERMINATED(s->opts[k].name) || !TERMINATED(s->opts[k].value))
            return errmsg(why, whylen, "CONFIG: %s: option %d is not terminated", which, k);
    return 0;
}

int msg_decode_config(const void *p, size_t len, ConfigHead *h, MatchConfig *cfg, char *why, size_t whylen)
{
    ConfigHead mine;
    msg_config_head(&mine, false, 0);
    if (len != sizeof *h + sizeof *cfg)
        return errmsg(why, whylen, "CONFIG: %zu bytes (%zu in this build)", len, sizeof *h + sizeof *cfg);
    memcpy(h, p, sizeof *h);
    if (h->magic != PROTO_MAGIC || memcmp(h->sizes, mine.sizes, sizeof mine.sizes) != 0)
        return errmsg(why, whylen, "CONFIG: the layout differs from this build's");
    memcpy(cfg, (const char *)p + sizeof *h, sizeof *cfg);
    if (!in(h->want_pgn, 0, 1))
        return errmsg(why, whylen, "CONFIG: want_pgn = %d (0 or 1)", (int)h->want_pgn);
    if (!in(cfg->concurrency, 1, MSG_MAX_CREDIT) || cfg->concurrency != h->concurrency)
        return errmsg(why, whylen, "CONFIG: concurrency = %d (1..%d)", cfg->concurrency, MSG_MAX_CREDIT);
    if (cfg->nengines != 2)
        return errmsg(why, whylen, "CONFIG: %d engines (2)", cfg->nengines);
    if (check_spec(&cfg->eng[0], "engine 1", why, whylen) < 0 || check_spec(&cfg->eng[1], "engine 2", why, whylen) < 0 ||
        check_spec(&cfg->each, "-each", why, whylen) < 0)
        return -1;
    if (!TERMINATED(cfg->book_path) || !TERMINATED(cfg->book_format) || !TERMINATED(cfg->pgnout) ||
        !TERMINATED(cfg->log_path) || !TERMINATED(cfg->event) || !TERMINATED(cfg->site))
        return errmsg(why, whylen, "CONFIG: a file name, event or site is not terminated");
    return 0;
}

/* ---- the pairs at the workers ---- */

long out_find(const OutPair *v, size_t n, uint64_t seq, int src, int *owner)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].seq == seq) {
            if (owner)
                *owner = v[i].worker;
            return v[i].worker == src ? (long)i : OUT_NOT_YOURS;
        }
    return OUT_NONE;
}
