/* The small command-line helpers every subcommand shares; see cliutil.h. */
#include "cliutil.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"

bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || !*s)
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int cli_long_arg(const char *prog, const char *opt, const char *s, long lo, long hi, long *out)
{
    int64_t x;
    if (!cli_parse_i64(s, lo, hi, &x)) {
        fprintf(stderr, "%s: %s wants an integer from %ld to %ld, got '%s'\n", prog, opt, lo, hi, s);
        return -1;
    }
    *out = (long)x;
    return 0;
}

bool cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The key=value words after argv[*i], each to fn: up to the next option
 * (each must be key=value), or with leading, up to the first word that is
 * not key=value (a key may then be empty). */
static int key_values(int argc, char **argv, int *i, bool leading, CliKvFn fn, void *ctx, char *err, size_t errlen)
{
    const char *opt = argv[*i];
    int j = *i + 1;
    for (; j < argc && argv[j][0] != '-'; j++) {
        const char *eq = strchr(argv[j], '=');
        if (leading && !eq)
            break;
        if (!eq || (eq == argv[j] && !leading))
            return errmsg(err, errlen, "%s: expected key=value, got '%s'", opt, argv[j]);
        char key[128];
        size_t kl = (size_t)(eq - argv[j]);
        if (kl >= sizeof key)
            return errmsg(err, errlen, "%s: key too long in '%s'", opt, argv[j]);
        memcpy(key, argv[j], kl);
        key[kl] = '\0';
        if (fn(ctx, opt, key, eq + 1, err, errlen) < 0)
            return -1;
    }
    if (j == *i + 1)
        return errmsg(err, errlen, "%s needs key=value arguments", opt);
    *i = j;
    return 1;
}

int cli_key_values(int argc, char **argv, int *i, CliKvFn fn, void *ctx, char *err, size_t errlen)
{
    return key_values(argc, argv, i, false, fn, ctx, err, errlen);
}

int cli_leading_key_values(int argc, char **argv, int *i, CliKvFn fn, void *ctx, char *err, size_t errlen)
{
    return key_values(argc, argv, i, true, fn, ctx, err, errlen);
}

int cli_int_value(int argc, char **argv, int *i, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen)
{
    if (*i + 1 >= argc || !cli_parse_i64(argv[*i + 1], lo, hi, out))
        return errmsg(err, errlen, "%s needs an integer %lld..%lld%s%s", argv[*i], (long long)lo, (long long)hi,
                      *i + 1 < argc ? ", not " : "", *i + 1 < argc ? argv[*i + 1] : "");
    *i += 2;
    return 1;
}

bool cli_live_progress(void)
{
    static const char *const launcher[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK" };
    for (size_t i = 0; i < sizeof launcher / sizeof launcher[0]; i++)
        if (getenv(launcher[i]))
            return false;
    return isatty(STDOUT_FILENO);
}

bool cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-help") || !strcmp(arg, "-h");
}

int cli_preamble(int argc, char **argv, const char *usage, void (*more)(FILE *), CliFirst first)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(usage, stdout);
            if (more)
                more(stdout);
            return 0;
        }
    bool ok = first == CLI_ANY || (argc >= 2 && (first == CLI_ARGS || argv[1][0] != '-') &&
                                   (first != CLI_DIR_ONLY || argc == 2));
    if (ok)
        return -1;
    fputs(usage, stderr);
    return 2;
}

int cli_usage_error(const char *who, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", who);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see ratchet-tune %s --help)\n", cmd);
    va_end(ap);
    return 2;
}

int cli_dir_output(int argc, char **argv, const char *usage, const char **dir, const char **out)
{
    *dir = *out = NULL;
    int rc = cli_preamble(argc, argv, usage, NULL, CLI_ANY);
    if (rc >= 0)
        return rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") && i + 1 < argc)
            *out = argv[++i];
        else if (a[0] != '-' && !*dir)
            *dir = a;
        else {
            fprintf(stderr, "ratchet-tune: %s: unexpected argument '%s'\n\n%s", argv[0], a, usage);
            return 2;
        }
    }
    if (!*dir) {
        fputs(usage, stderr);
        return 2;
    }
    return -1;
}

/* ---- option tables ---------------------------------------------------------- */

/* Does the option word arg name opt (one of its '|' alternatives)? */
static bool names(const CliOpt *opt, const char *arg)
{
    size_t n = strlen(arg);
    for (const char *p = opt->name;;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, arg, n))
            return true;
        if (!bar)
            return false;
        p = bar + 1;
    }
}

/* Entry o's value v (NULL: none) is missing or bad: the message as say says. */
static int value_error(const CliOpt *o, CliSay say, const char *opt, const char *v, char *err, size_t errlen)
{
    if (say == CLI_SAY_BAD)
        return v ? errmsg(err, errlen, "bad value \"%s\" for %s", v, opt)
                 : errmsg(err, errlen, "%s needs a value", opt);
    switch (o->kind) {
    case CLI_OPT_UINT:
        return errmsg(err, errlen, "%s needs an integer %llu..%llu%s%s", opt, (unsigned long long)o->min,
                      (unsigned long long)o->max, v ? ", not " : "", v ? v : "");
    case CLI_OPT_DOUBLE:
        return errmsg(err, errlen, "%s needs a number from %g to %g%s%s", opt, o->lo, o->hi, v ? ", not " : "",
                      v ? v : "");
    case CLI_OPT_CHOICE: {
        char list[256] = "";
        for (size_t k = 0; o->choices[k]; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     k == 0 ? "" : o->choices[k + 1] ? ", " : " or ", o->choices[k]);
        return errmsg(err, errlen, "%s needs %s, not '%s'", opt, list, v ? v : "");
    }
    default:
        return errmsg(err, errlen, "%s needs %s", opt, o->want ? o->want : "a value");
    }
}

/* argv[*i] names entry o: take it and its value.  0, 1 (stop) or -1 as cli_options. */
static int take(const CliOpt *o, CliSay say, int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *opt = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    bool ok = v != NULL;
    switch (o->kind) {
    case CLI_OPT_FLAG:
        *(bool *)o->target = true;
        *i += 1;
        return 0;
    case CLI_OPT_KV:
        return cli_key_values(argc, argv, i, o->kv, o->target, err, errlen) < 0 ? -1 : 0;
    case CLI_OPT_KV_LEADING:
        return cli_leading_key_values(argc, argv, i, o->kv, o->target, err, errlen) < 0 ? -1 : 0;
    case CLI_OPT_CALL:
        return o->call(o, argc, argv, i, err, errlen);
    case CLI_OPT_STRING:
        if (v && o->want && v[0] == '-')
            v = NULL;
        if (!v)
            ok = false;
        else if (o->size)
            snprintf((char *)o->target, o->size, "%s", v);
        else
            *(const char **)o->target = v;
        break;
    case CLI_OPT_UINT:
        ok = ok && cli_parse_u64(v, o->min, o->max, o->target);
        break;
    case CLI_OPT_DOUBLE:
        ok = ok && cli_parse_double(v, o->lo, o->hi, o->target);
        break;
    case CLI_OPT_CHOICE:
        ok = false;
        for (int k = 0; v && o->choices[k] && !ok; k++)
            if (!strcmp(v, o->choices[k])) {
                *(int *)o->target = k;
                ok = true;
            }
        break;
    }
    if (!ok)
        return value_error(o, say, opt, v, err, errlen);
    *i += 2;
    return 0;
}

int cli_options(const CliOpt *opts, CliSay say, int argc, char **argv, char **rest, int *nrest, char *err,
                size_t errlen)
{
    if (nrest)
        *nrest = 0;
    for (int i = 0; i < argc;) {
        const CliOpt *o = opts;
        while (o->name && !names(o, argv[i]))
            o++;
        if (!o->name) {
            if (!rest)
                return errmsg(err, errlen, "unknown option \"%s\"", argv[i]);
            rest[(*nrest)++] = argv[i++];
            continue;
        }
        int rc = take(o, say, argc, argv, &i, err, errlen);
        if (rc)
            return rc;
        if (o->set)
            *o->set = true;
    }
    return 0;
}
