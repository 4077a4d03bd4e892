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

int cli_key_values(int argc, char **argv, int *i, CliKvFn fn, void *ctx, char *err, size_t errlen)
{
    const char *opt = argv[*i];
    int j = *i + 1;
    if (j >= argc || argv[j][0] == '-')
        return errmsg(err, errlen, "%s needs key=value arguments", opt);
    for (; j < argc && argv[j][0] != '-'; j++) {
        const char *eq = strchr(argv[j], '=');
        if (!eq || eq == argv[j])
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
    *i = j;
    return 1;
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
