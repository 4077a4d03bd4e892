/* Command-line options of the match runner: fastchess/cutechess-style
 * options into a MatchConfig.  See cli.h and match.h. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cliutil.h"
#include "errmsg.h"
#include "match.h"

enum {
    SPEC_CMD = 1 << 0, SPEC_NAME = 1 << 1, SPEC_ARGS = 1 << 2, SPEC_DIR = 1 << 3,
    SPEC_CLOCK = 1 << 4, SPEC_ST = 1 << 5, SPEC_NODES = 1 << 6, SPEC_DEPTH = 1 << 7,
    SPEC_MARGIN = 1 << 8, SPEC_STARTUP = 1 << 9, SPEC_WATCHDOG = 1 << 10, SPEC_NODESTIME = 1 << 11
};

#define DEFAULT_STARTUP_MS 10000
#define DEFAULT_WATCHDOG_MS 60000

/* ---- small parsers ------------------------------------------------------- */

static bool parse_bool(const char *s, bool *out)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1") || !strcasecmp(s, "on") || !strcasecmp(s, "yes"))
        *out = true;
    else if (!strcasecmp(s, "false") || !strcmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "no"))
        *out = false;
    else
        return false;
    return true;
}

/* Seconds (decimal) to milliseconds, rounded. */
static int64_t sec_ms(double s) { return (int64_t)llround(s * 1000.0); }

int cli_parse_tc(const char *s, TimeControl *tc, char *err, size_t errlen)
{
    if (!strcasecmp(s, "inf") || !strcasecmp(s, "infinite")) {
        tc->base_ms = tc->inc_ms = 0;
        tc->moves = 0;
        return 0;
    }
    const char *p = s;
    char *end;
    int moves = 0;
    const char *slash = strchr(s, '/');
    if (slash) {
        long m = strtol(s, &end, 10);
        if (end != slash || m < 0 || m > 100000)
            goto bad;
        moves = (int)m;
        p = slash + 1;
    }
    errno = 0;
    double base = strtod(p, &end);
    if (end == p || errno || base < 0)
        goto bad;
    if (*end == ':') {
        const char *q = end + 1;
        double secs = strtod(q, &end);
        if (end == q || secs < 0 || secs >= 60)
            goto bad;
        base = base * 60 + secs;
    }
    double inc = 0;
    if (*end == '+') {
        const char *q = end + 1;
        inc = strtod(q, &end);
        if (end == q || inc < 0)
            goto bad;
    }
    if (*end || !isfinite(base) || !isfinite(inc) || base > 1e7 || inc > 1e6 || (base == 0 && inc == 0))
        goto bad;
    tc->moves = moves;
    tc->base_ms = sec_ms(base);
    tc->inc_ms = sec_ms(inc);
    return 0;
bad:
    return errmsg(err, errlen, "bad time control '%s' (expected [moves/]seconds[+increment], e.g. 40/60, 10+0.1, 1:30+1)",
                  s);
}

/* ---- configuration ------------------------------------------------------- */

void match_config_init(MatchConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->concurrency = 1;
    cfg->book_start = 1;
    cfg->pgn_comments = true;
}

void match_config_free(MatchConfig *cfg)
{
    for (int i = 0; i < 2; i++) {
        ep_free_argv(cfg->eng[i].argv);
        cfg->eng[i].argv = NULL;
    }
    if (cfg->book)
        book_free(cfg->book);
    cfg->book = NULL;
    cfg->finished = false;
}

/* The first control character of s (a line break, an escape), or NULL. */
static const char *control_char(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return s;
    return NULL;
}

static int no_control(const char *v, const char *what, char *err, size_t errlen)
{
    const char *c = control_char(v);
    if (!c)
        return 0;
    return errmsg(err, errlen, "%s holds a control character (byte 0x%02x at position %zu): it would go raw into "
                               "UCI commands, PGN tags or the terminal",
                  what, (unsigned)(unsigned char)*c, (size_t)(c - v) + 1);
}

static int copy_str(char *dst, size_t len, const char *v, const char *what, char *err, size_t errlen)
{
    if (strlen(v) >= len)
        return errmsg(err, errlen, "%s is too long (at most %zu characters)", what, len - 1);
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

/* copy_str for a name or a line of text (no control characters). */
static int copy_text(char *dst, size_t len, const char *v, const char *what, char *err, size_t errlen)
{
    return no_control(v, what, err, errlen) < 0 ? -1 : copy_str(dst, len, v, what, err, errlen);
}

static int set_option(EngineOption *opts, int *n, int max, const char *name, const char *value, const char *opt,
                      char *err, size_t errlen)
{
    if (!*name)
        return errmsg(err, errlen, "%s: option. needs a name (option.NAME=VALUE)", opt);
    if (strlen(name) >= sizeof opts->name || strlen(value) >= sizeof opts->value)
        return errmsg(err, errlen, "%s: option '%s' name or value too long (63 characters at most)", opt, name);
    char what[96];
    snprintf(what, sizeof what, "%s: option.%.63s", opt, name);
    if (no_control(name, what, err, errlen) < 0 || no_control(value, what, err, errlen) < 0)
        return -1;
    int k = 0;
    while (k < *n && strcasecmp(opts[k].name, name) != 0)
        k++;
    if (k == *n) {
        if (*n >= max)
            return errmsg(err, errlen, "%s: more than %d options", opt, max);
        (*n)++;
    }
    snprintf(opts[k].name, sizeof opts[k].name, "%s", name);
    snprintf(opts[k].value, sizeof opts[k].value, "%s", value);
    return 0;
}

/* One key=value of -engine or -each. */
static int engine_kv(EngineSpec *s, const char *key, const char *v, const char *opt, char *err, size_t errlen)
{
    int64_t i64;
    double d;
    if (!strcmp(key, "cmd")) {
        if (!*v)
            return errmsg(err, errlen, "%s: cmd= is empty", opt);
        s->set |= SPEC_CMD;
        return copy_text(s->cmd, sizeof s->cmd, v, "cmd=", err, errlen);
    }
    if (!strcmp(key, "name")) {
        s->set |= SPEC_NAME;
        return copy_text(s->name, sizeof s->name, v, "name=", err, errlen);
    }
    if (!strcmp(key, "args") || !strcmp(key, "arg")) {
        s->set |= SPEC_ARGS;
        return copy_str(s->args, sizeof s->args, v, "args=", err, errlen);
    }
    if (!strcmp(key, "dir")) {
        s->set |= SPEC_DIR;
        return copy_str(s->dir, sizeof s->dir, v, "dir=", err, errlen);
    }
    if (!strcmp(key, "proto")) {
        if (strcasecmp(v, "uci") != 0)
            return errmsg(err, errlen, "%s: proto=%s is not supported (UCI is the only protocol)", opt, v);
        return 0;
    }
    if (!strncmp(key, "option.", 7))
        return set_option(s->opts, &s->nopts, MAX_ENGINE_OPTS, key + 7, v, opt, err, errlen);
    if (!strcmp(key, "tc")) {
        if (cli_parse_tc(v, &s->tc, err, errlen) < 0)
            return -1;
        s->set |= SPEC_CLOCK;
        return 0;
    }
    if (!strcmp(key, "st")) {
        if (!cli_parse_double(v, 0.001, 1e6, &d))
            return errmsg(err, errlen, "%s: bad st='%s' (seconds per move, e.g. st=0.5)", opt, v);
        s->tc.movetime_ms = sec_ms(d);
        s->set |= SPEC_ST;
        return 0;
    }
    if (!strcmp(key, "nodes")) {
        if (!cli_parse_i64(v, 1, INT64_MAX, &i64))
            return errmsg(err, errlen, "%s: bad nodes='%s' (a positive integer)", opt, v);
        s->tc.nodes = i64;
        s->set |= SPEC_NODES;
        return 0;
    }
    if (!strcmp(key, "depth") || !strcmp(key, "plies")) {
        if (!cli_parse_i64(v, 1, 1000, &i64))
            return errmsg(err, errlen, "%s: bad %s='%s' (an integer 1..1000)", opt, key, v);
        s->tc.depth = (int)i64;
        s->set |= SPEC_DEPTH;
        return 0;
    }
    if (!strcmp(key, "nodestime")) {
        if (!strcmp(v, "auto"))
            return errmsg(err, errlen, "%s: nodestime=auto is measured by `night` (at its confirmation's clock); "
                                       "give nodestime=N here", opt);
        if (!cli_parse_i64(v, 0, MAX_NODESTIME, &i64))
            return errmsg(err, errlen, "%s: bad nodestime='%s' (nodes per millisecond of the clock, 1..%d; 0 = the "
                                       "wall clock)", opt, v, MAX_NODESTIME);
        s->tc.nodestime = i64;
        s->set |= SPEC_NODESTIME;
        return 0;
    }
    if (!strcmp(key, "timemargin")) {
        if (!cli_parse_i64(v, 0, 3600000, &i64))
            return errmsg(err, errlen, "%s: bad timemargin='%s' (milliseconds)", opt, v);
        s->tc.margin_ms = i64;
        s->set |= SPEC_MARGIN;
        return 0;
    }
    if (!strcmp(key, "startup")) {
        if (!cli_parse_double(v, 0.01, 3600, &d))
            return errmsg(err, errlen, "%s: bad startup='%s' (seconds)", opt, v);
        s->startup_ms = sec_ms(d);
        s->set |= SPEC_STARTUP;
        return 0;
    }
    if (!strcmp(key, "watchdog")) {
        if (!cli_parse_double(v, 0.01, 86400, &d))
            return errmsg(err, errlen, "%s: bad watchdog='%s' (seconds)", opt, v);
        s->tc.watchdog_ms = sec_ms(d);
        s->set |= SPEC_WATCHDOG;
        return 0;
    }
    if (!strcmp(key, "restart")) {
        bool b;
        if (!parse_bool(v, &b))
            return errmsg(err, errlen, "%s: bad restart='%s' (on or off)", opt, v);
        if (b)
            fprintf(stderr, "ratchet-tune: note: restart=on ignored: engines are kept alive and restarted only "
                            "when they fail\n");
        return 0;
    }
    if (!strcmp(key, "ponder"))
        return errmsg(err, errlen, "%s: pondering is not supported", opt);
    return errmsg(err, errlen, "%s: unknown key '%s' (see --help)", opt, key);
}

static int kv_engine(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    return engine_kv(ctx, key, v, opt, err, errlen);
}

static int kv_openings(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    MatchConfig *cfg = ctx;
    int64_t n;
    if (!strcmp(key, "file"))
        return copy_str(cfg->book_path, sizeof cfg->book_path, v, "-openings file=", err, errlen);
    if (!strcmp(key, "format")) {
        if (strcmp(v, "epd") && strcmp(v, "pgn"))
            return errmsg(err, errlen, "-openings: format must be epd or pgn, not '%s'", v);
        snprintf(cfg->book_format, sizeof cfg->book_format, "%s", v);
        return 0;
    }
    if (!strcmp(key, "order")) {
        if (strcmp(v, "random") && strcmp(v, "sequential"))
            return errmsg(err, errlen, "-openings: order must be random or sequential, not '%s'", v);
        cfg->book_random = !strcmp(v, "random");
        return 0;
    }
    if (!strcmp(key, "plies")) {
        if (!cli_parse_i64(v, 0, 10000, &n))
            return errmsg(err, errlen, "-openings: bad plies='%s'", v);
        cfg->book_plies = (int)n;
        return 0;
    }
    if (!strcmp(key, "start")) {
        if (!cli_parse_i64(v, 1, INT64_MAX, &n))
            return errmsg(err, errlen, "-openings: bad start='%s' (1 is the first opening)", v);
        cfg->book_start = (uint64_t)n;
        return 0;
    }
    if (!strcmp(key, "policy")) {
        if (strcmp(v, "default") && strcmp(v, "round") && strcmp(v, "encounter"))
            return errmsg(err, errlen, "-openings: policy=%s is not supported (each pair shares one opening)", v);
        return 0;
    }
    return errmsg(err, errlen, "-openings: unknown key '%s'", key);
}

static int kv_draw(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    MatchConfig *cfg = ctx;
    int64_t n;
    if (!cli_parse_i64(v, 0, 100000, &n))
        return errmsg(err, errlen, "-draw: bad %s='%s' (a non-negative integer)", key, v);
    if (!strcmp(key, "movenumber"))
        cfg->adj.draw_movenumber = (int)n;
    else if (!strcmp(key, "movecount"))
        cfg->adj.draw_movecount = (int)n;
    else if (!strcmp(key, "score"))
        cfg->adj.draw_score = (int)n;
    else
        return errmsg(err, errlen, "-draw: unknown key '%s' (movenumber, movecount, score)", key);
    return 0;
}

static int kv_resign(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    MatchConfig *cfg = ctx;
    int64_t n;
    if (!strcmp(key, "twosided")) {
        if (!parse_bool(v, &cfg->adj.resign_twosided))
            return errmsg(err, errlen, "-resign: bad twosided='%s' (true or false)", v);
        return 0;
    }
    if (!cli_parse_i64(v, 0, 100000, &n))
        return errmsg(err, errlen, "-resign: bad %s='%s' (a non-negative integer)", key, v);
    if (!strcmp(key, "movecount"))
        cfg->adj.resign_movecount = (int)n;
    else if (!strcmp(key, "score"))
        cfg->adj.resign_score = (int)n;
    else
        return errmsg(err, errlen, "-resign: unknown key '%s' (movecount, score, twosided)", key);
    return 0;
}

static int kv_pgnout(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    MatchConfig *cfg = ctx;
    bool b;
    if (!strcmp(key, "file"))
        return copy_str(cfg->pgnout, sizeof cfg->pgnout, v, "-pgnout file=", err, errlen);
    if (!strcmp(key, "notation")) {
        if (strcmp(v, "san") != 0)
            return errmsg(err, errlen, "-pgnout: notation=%s is not supported (san)", v);
        return 0;
    }
    if (!strcmp(key, "min")) {
        if (!parse_bool(v, &b))
            return errmsg(err, errlen, "-pgnout: bad min='%s'", v);
        cfg->pgn_comments = !b;
        return 0;
    }
    if (!strcmp(key, "nodes") || !strcmp(key, "seldepth") || !strcmp(key, "nps") || !strcmp(key, "hashfull") ||
        !strcmp(key, "tbhits") || !strcmp(key, "timeleft") || !strcmp(key, "latency") || !strcmp(key, "match_line")) {
        fprintf(stderr, "ratchet-tune: note: -pgnout %s= ignored\n", key);
        return 0;
    }
    return errmsg(err, errlen, "-pgnout: unknown key '%s'", key);
}

static int kv_log(void *ctx, const char *opt, const char *key, const char *v, char *err, size_t errlen)
{
    (void)opt;
    MatchConfig *cfg = ctx;
    if (!strcmp(key, "file"))
        return copy_str(cfg->log_path, sizeof cfg->log_path, v, "-log file=", err, errlen);
    if (!strcmp(key, "level") || !strcmp(key, "compress") || !strcmp(key, "realtime") || !strcmp(key, "engine") ||
        !strcmp(key, "append"))
        return 0; /* the log always has the engine traffic, uncompressed, written as it happens */
    return errmsg(err, errlen, "-log: unknown key '%s'", key);
}

static int str_value(int argc, char **argv, int *i, char *dst, size_t len, char *err, size_t errlen)
{
    if (*i + 1 >= argc)
        return errmsg(err, errlen, "%s needs a value", argv[*i]);
    if (copy_text(dst, len, argv[*i + 1], argv[*i], err, errlen) < 0)
        return -1;
    *i += 2;
    return 1;
}

/* Options of fastchess or cutechess that make no difference here: accepted
 * with a note so that pasted command lines work.  Value count: 0, 1, or -1
 * for key=value words. */
static const struct { const char *name; int values; } ignored[] = {
    { "-recover", 0 }, { "-ratinginterval", 1 }, { "-scoreinterval", 1 }, { "-autosaveinterval", 1 },
    { "-output", -1 }, { "-report", -1 }, { "-show-latency", 0 }, { "-testEnv", 0 },
    { "-wait", 1 }, { "-variant", 1 }, { "-use-affinity", 0 }, { "-crc32", -1 }, { "-tournament", 1 },
};

int match_parse_option(MatchConfig *cfg, int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *a = argv[*i];
    int64_t n;
    if (!strcmp(a, "-engine")) {
        if (cfg->nengines >= 2)
            return errmsg(err, errlen, "more than two -engine options: a match is between two engines");
        EngineSpec *s = &cfg->eng[cfg->nengines];
        int rc = cli_key_values(argc, argv, i, kv_engine, s, err, errlen);
        if (rc == 1)
            cfg->nengines++;
        return rc;
    }
    if (!strcmp(a, "-each"))
        return cli_key_values(argc, argv, i, kv_engine, &cfg->each, err, errlen);
    if (!strcmp(a, "-openings"))
        return cli_key_values(argc, argv, i, kv_openings, cfg, err, errlen);
    if (!strcmp(a, "-draw")) {
        cfg->adj.draw = true;
        cfg->adj.draw_movecount = 1;
        return cli_key_values(argc, argv, i, kv_draw, cfg, err, errlen);
    }
    if (!strcmp(a, "-resign")) {
        cfg->adj.resign = true;
        cfg->adj.resign_movecount = 1;
        return cli_key_values(argc, argv, i, kv_resign, cfg, err, errlen);
    }
    if (!strcmp(a, "-maxmoves")) {
        int rc = cli_int_value(argc, argv, i, 1, 100000, &n, err, errlen);
        if (rc == 1)
            cfg->adj.maxmoves = (int)n;
        return rc;
    }
    if (!strcmp(a, "-force-concurrency")) {
        cfg->force_concurrency = true;
        (*i)++;
        return 1;
    }
    if (!strcmp(a, "-concurrency")) {
        int rc = cli_int_value(argc, argv, i, 1, 512, &n, err, errlen);
        if (rc == 1)
            cfg->concurrency = (int)n;
        return rc;
    }
    if (!strcmp(a, "-srand")) {
        if (*i + 1 >= argc)
            return errmsg(err, errlen, "-srand needs a number");
        char *end;
        errno = 0;
        unsigned long long v = strtoull(argv[*i + 1], &end, 10);
        if (errno || end == argv[*i + 1] || *end || argv[*i + 1][0] == '-')
            return errmsg(err, errlen, "-srand needs a non-negative integer, not '%s'", argv[*i + 1]);
        cfg->seed = v;
        cfg->seed_set = true;
        *i += 2;
        return 1;
    }
    if (!strcmp(a, "-pgnout") || !strcmp(a, "-log")) {
        char *dst = a[1] == 'p' ? cfg->pgnout : cfg->log_path;
        size_t len = a[1] == 'p' ? sizeof cfg->pgnout : sizeof cfg->log_path;
        if (*i + 1 < argc && argv[*i + 1][0] != '-' && !strchr(argv[*i + 1], '=')) {
            /* -pgnout FILE [min], as cutechess */
            if (copy_str(dst, len, argv[*i + 1], a, err, errlen) < 0)
                return -1;
            *i += 2;
            if (a[1] == 'p' && *i < argc && !strcmp(argv[*i], "min")) {
                cfg->pgn_comments = false;
                (*i)++;
            }
            return 1;
        }
        return cli_key_values(argc, argv, i, a[1] == 'p' ? kv_pgnout : kv_log, cfg, err, errlen);
    }
    if (!strcmp(a, "-event"))
        return str_value(argc, argv, i, cfg->event, sizeof cfg->event, err, errlen);
    if (!strcmp(a, "-site"))
        return str_value(argc, argv, i, cfg->site, sizeof cfg->site, err, errlen);
    if (!strcmp(a, "-noswap") || !strcmp(a, "-reverse") || !strcmp(a, "-tb") || !strcmp(a, "-config") ||
        !strcmp(a, "-quick") || !strcmp(a, "-epdout") || !strcmp(a, "-seeds"))
        return errmsg(err, errlen, "%s is not supported", a);
    for (size_t k = 0; k < sizeof ignored / sizeof *ignored; k++) {
        if (strcmp(a, ignored[k].name) != 0)
            continue;
        if (strcmp(a, "-variant") == 0 && (*i + 1 >= argc || strcmp(argv[*i + 1], "standard") != 0))
            return errmsg(err, errlen, "-variant: only standard chess is supported");
        fprintf(stderr, "ratchet-tune: note: %s ignored\n", a);
        (*i)++;
        if (ignored[k].values == 1 && *i < argc)
            (*i)++;
        while (ignored[k].values < 0 && *i < argc && argv[*i][0] != '-')
            (*i)++;
        return 1;
    }
    return 0;
}

int cli_check_limit(const TimeControl *t, const char *who, const char *where, char *err, size_t errlen)
{
    if (!tc_has_clock(t) && !t->movetime_ms && !t->nodes && !t->depth)
        return errmsg(err, errlen, "%s: no time control: give tc=, st=, nodes= or depth=%s", who, where);
    if (t->nodestime > 0 && !tc_has_clock(t) && !t->movetime_ms)
        return errmsg(err, errlen, "%s: nodestime=%lld needs a clock to count in nodes: give tc= or st= as well", who,
                      (long long)t->nodestime);
    return 0;
}

static void merge_each(EngineSpec *s, const EngineSpec *each, char *err, size_t errlen)
{
    unsigned take = each->set & ~s->set;
    if (take & SPEC_CMD) memcpy(s->cmd, each->cmd, sizeof s->cmd);
    if (take & SPEC_NAME) memcpy(s->name, each->name, sizeof s->name);
    if (take & SPEC_ARGS) memcpy(s->args, each->args, sizeof s->args);
    if (take & SPEC_DIR) memcpy(s->dir, each->dir, sizeof s->dir);
    if (take & SPEC_CLOCK) { s->tc.base_ms = each->tc.base_ms; s->tc.inc_ms = each->tc.inc_ms; s->tc.moves = each->tc.moves; }
    if (take & SPEC_ST) s->tc.movetime_ms = each->tc.movetime_ms;
    if (take & SPEC_NODES) s->tc.nodes = each->tc.nodes;
    if (take & SPEC_DEPTH) s->tc.depth = each->tc.depth;
    if (take & SPEC_MARGIN) s->tc.margin_ms = each->tc.margin_ms;
    if (take & SPEC_STARTUP) s->startup_ms = each->startup_ms;
    if (take & SPEC_WATCHDOG) s->tc.watchdog_ms = each->tc.watchdog_ms;
    if (take & SPEC_NODESTIME) s->tc.nodestime = each->tc.nodestime;
    s->set |= take;
    /* -each options first, the engine's own win. */
    EngineOption own[MAX_ENGINE_OPTS];
    int nown = s->nopts;
    memcpy(own, s->opts, sizeof(EngineOption) * (size_t)nown);
    s->nopts = 0;
    for (int k = 0; k < each->nopts; k++)
        set_option(s->opts, &s->nopts, MAX_ENGINE_OPTS, each->opts[k].name, each->opts[k].value, "-each", err, errlen);
    for (int k = 0; k < nown; k++)
        set_option(s->opts, &s->nopts, MAX_ENGINE_OPTS, own[k].name, own[k].value, "-engine", err, errlen);
}

int match_config_finish(MatchConfig *cfg, char *err, size_t errlen)
{
    if (cfg->nengines != 2)
        return errmsg(err, errlen, "two -engine options are needed (got %d)", cfg->nengines);
    for (int i = 0; i < 2; i++) {
        EngineSpec *s = &cfg->eng[i];
        merge_each(s, &cfg->each, err, errlen);
        if (!(s->set & SPEC_CMD))
            return errmsg(err, errlen, "engine %d: cmd= is missing", i + 1);
        if (!s->name[0]) {
            const char *base = strrchr(s->cmd, '/');
            snprintf(s->name, sizeof s->name, "%s", base ? base + 1 : s->cmd);
        }
        const TimeControl *t = &s->tc;
        char who[80];
        snprintf(who, sizeof who, "engine '%s'", s->name);
        if (cli_check_limit(t, who, " (in -each or -engine)", err, errlen) < 0)
            return -1;
        if (t->nodestime > 0 && (s->set & SPEC_NODESTIME)) {
            char v[32];
            snprintf(v, sizeof v, "%lld", (long long)t->nodestime);
            for (int k = 0; k < s->nopts; k++)
                if (!strcasecmp(s->opts[k].name, "nodestime") && strcmp(s->opts[k].value, v) != 0)
                    return errmsg(err, errlen, "engine '%s': option.%s=%s contradicts nodestime=%s (nodestime= sets "
                                               "the option itself)", s->name, s->opts[k].name, s->opts[k].value, v);
            if (set_option(s->opts, &s->nopts, MAX_ENGINE_OPTS, "nodestime", v, "nodestime=", err, errlen) < 0)
                return -1;
        }
        if (!(s->set & SPEC_STARTUP))
            s->startup_ms = DEFAULT_STARTUP_MS;
        if (!(s->set & SPEC_WATCHDOG))
            s->tc.watchdog_ms = DEFAULT_WATCHDOG_MS;
        ep_free_argv(s->argv);
        s->argv = ep_split_args(s->args, err, errlen);
        if (!s->argv)
            return -1;
        if (strchr(s->cmd, '/') && !s->dir[0] && access(s->cmd, X_OK) != 0)
            return errmsg(err, errlen, "engine '%s': cannot run '%s': %s", s->name, s->cmd, strerror(errno));
    }
    if (!strcmp(cfg->eng[0].name, cfg->eng[1].name))
        snprintf(cfg->eng[1].name + strnlen(cfg->eng[1].name, 60), 4, "-2");
    if (cfg->adj.resign && cfg->adj.resign_movecount < 1)
        return errmsg(err, errlen, "-resign: movecount must be at least 1");
    if (cfg->adj.draw && cfg->adj.draw_movecount < 1)
        return errmsg(err, errlen, "-draw: movecount must be at least 1");
    if (!cfg->seed_set) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        cfg->seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid();
    }
    if (cfg->book_path[0]) {
        if (cfg->book)
            book_free(cfg->book);
        cfg->book = book_load(cfg->book_path, cfg->book_format[0] ? cfg->book_format : NULL, cfg->book_plies, err,
                              errlen);
        if (!cfg->book)
            return -1;
        book_set_order(cfg->book, cfg->book_random, cfg->seed, (size_t)(cfg->book_start - 1));
    }
    cfg->finished = true;
    return 0;
}

void match_print_options(FILE *out)
{
    fputs("Engines:\n"
          "  -engine cmd=PATH [name=NAME] [args=\"ARGS\"] [dir=DIR] [option.X=V ...] [proto=uci] [KEY=V ...]\n"
          "                       one of the two engines (give it twice); KEY as in -each\n"
          "  -each KEY=V ...      for both engines, where -engine does not say otherwise:\n"
          "      tc=[MOVES/]SECONDS[+INC]  clock (SECONDS may be MIN:SEC); tc=inf for none\n"
          "      st=SECONDS       fixed time per move          nodes=N   fixed nodes (go nodes)\n"
          "      depth=N          fixed depth (also plies=N)   option.X=V  a UCI option\n"
          "      nodestime=N      the clock of tc= or st= counts nodes, N per millisecond: the engine's UCI\n"
          "                       option nodestime is set to N (an engine without it is refused), each move\n"
          "                       is charged the nodes of its last info line / N ms (its wall time, with a\n"
          "                       warning, if it reported none); the games are deterministic and immune to\n"
          "                       load.  bin/ratchet at tc=2+0.02: N=500 gives a mean depth of 11 (as\n"
          "                       earlier 2+0.02 checks), N=250 that of a loaded machine (9.6); a quiet\n"
          "                       core is about N=1300-1600 (docs/match.md)\n"
          "      timemargin=MS    tolerated overrun of the clock or st= before a loss on time (default 0)\n"
          "      startup=SECONDS  deadline for uciok, and for readyok before each game (default 10)\n"
          "      watchdog=SECONDS longest wait for a move without tc= or st= (default 60); then the\n"
          "                       engine loses (stalled), is killed with its process group and restarted\n"
          "Openings and games:\n"
          "  -openings file=F [format=epd|pgn] [order=random|sequential] [plies=N] [start=N]\n"
          "                       start positions (default: the standard start); start=1 is the first\n"
          "  -srand N             seed of the random opening order (default: from the clock)\n"
          "  -concurrency N       games played at once (default 1); each uses its own two engines; on\n"
          "                       the wall clock, more than the CPUs is warned of (the games share\n"
          "                       cores): -force-concurrency plays so without the warning\n"
          "Adjudication:\n"
          "  -draw movenumber=N movecount=N score=CP   draw after N moves when both scores stay within\n"
          "                       CP of zero for movecount moves each\n"
          "  -resign movecount=N score=CP [twosided=true]   loss when an engine's score stays at or\n"
          "                       below -CP for movecount moves (twosided: and its opponent's at or above CP)\n"
          "  -maxmoves N          draw after N moves each\n"
          "Output:\n"
          "  -pgnout file=F [min=true]   append the games to F (also -pgnout F); min: no move comments\n"
          "  -log file=F          append every line to and from the engines to F (also -log F)\n"
          "  -event NAME, -site NAME     PGN tags\n",
          out);
}
