/* The small command-line helpers every subcommand of bin/ratchet-tune
 * shares: number parsers, key=value words, --help and usage errors, and
 * whether progress may be redrawn on a terminal. */
#ifndef RATCHET_CLIUTIL_H
#define RATCHET_CLIUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* A whole-string integer in lo..hi. */
bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* A whole-string number in lo..hi, without a sign. */
bool cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A getopt option's integer argument s in lo..hi: 0 with *out, or -1
 * after "PROG: OPT wants an integer from LO to HI, got 'S'" on stderr. */
int cli_long_arg(const char *prog, const char *opt, const char *s, long lo, long hi, long *out);
/* A whole-string finite number in lo..hi. */
bool cli_parse_double(const char *s, double lo, double hi, double *out);

/* Does a person watch stdout, so that progress may be one line redrawn with
 * a carriage return?  Only on a terminal, and not under mpirun: Open MPI
 * gives every rank a pseudo-terminal even when mpirun's own output goes to
 * a file (an sbatch log), which would fill with redrawn lines.  Under an MPI
 * launcher (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK set) progress is
 * printed as plain lines, as into a file. */
bool cli_live_progress(void);

/* "--help", "-help" or "-h": every subcommand answers these with its usage. */
bool cli_is_help(const char *arg);
/* What a subcommand's arguments must start with, for cli_preamble. */
typedef enum {
    CLI_ANY,       /* anything: the command parses them */
    CLI_ARGS,      /* at least one argument */
    CLI_DIR_FIRST, /* a directory (not an option) first */
    CLI_DIR_ONLY,  /* a directory and nothing else */
} CliFirst;
/* The preamble every subcommand starts with: any --help among the
 * arguments prints usage (then more(stdout), if more) to stdout and returns
 * 0; arguments that do not start as `first` says print usage to stderr and
 * return 2, the exit code of a usage error; else -1: go on. */
int cli_preamble(int argc, char **argv, const char *usage, void (*more)(FILE *), CliFirst first);
/* A usage error of a subcommand: "WHO: " and the message, then "(see
 * ratchet-tune CMD --help)", on stderr.  Returns 2, the exit code of a
 * usage error. */
int cli_usage_error(const char *who, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The arguments of a `COMMAND DIR [-o FILE]` subcommand (export, report).
 * -1: parsed (*out NULL without -o); 0: --help was printed to stdout; 2: a
 * usage error, printed to stderr with the usage. */
int cli_dir_output(int argc, char **argv, const char *usage, const char **dir, const char **out);

/* One key=value word of an option such as "-engine"; 0 or -1 with err set. */
typedef int (*CliKvFn)(void *ctx, const char *opt, const char *key, const char *value, char *err, size_t errlen);
/* The key=value words after argv[*i] (up to the next word starting with
 * '-'), each given to fn.  Returns 1 with *i past them, or -1 with err set
 * (no words, a word without '=', or fn's error). */
int cli_key_values(int argc, char **argv, int *i, CliKvFn fn, void *ctx, char *err, size_t errlen);
/* The same for the key=value words right after argv[*i], up to the first
 * word that is none (it starts with '-' or has no '='): 1 with *i past them,
 * or -1 with err set (no such word, or fn's error). */
int cli_leading_key_values(int argc, char **argv, int *i, CliKvFn fn, void *ctx, char *err, size_t errlen);
/* "-NAME N": N an integer in lo..hi.  1 with *i past it, or -1 with err set. */
int cli_int_value(int argc, char **argv, int *i, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen);

/* ---- option tables ------------------------------------------------------------
 * A command's options as a table, one entry an option, in the manner of git's
 * parse-options.h: cli_options walks the arguments with it.  For example
 *
 *     static const char *const BAKE[] = { "auto", "yes", "no", NULL };
 *     const CliOpt opts[] = {
 *         { "-restart", CLI_OPT_FLAG, .target = &restart },
 *         { "-rounds", CLI_OPT_UINT, .target = &rounds, .min = 1, .max = 1000 },
 *         { "-bake", CLI_OPT_CHOICE, .target = &bake, .choices = BAKE },
 *         { "-base|-tuned", CLI_OPT_STRING, .target = file, .size = sizeof file, .want = "a file" },
 *         { "-sprt", CLI_OPT_CALL, .target = &sprt, .call = sprt_option },
 *         { NULL },
 *     };
 *
 * (.target named: an entry of positional fields only draws -Wextra's
 * missing-initializer warning). */
typedef enum {
    CLI_OPT_FLAG,       /* -NAME: target is a bool, made true */
    CLI_OPT_STRING,     /* -NAME S: S into target, a char[size] (size 0: target is a const char *,
                         * pointed at S); with want, a word starting with '-' is no value */
    CLI_OPT_UINT,       /* -NAME N: N a whole number in min..max, into target, a uint64_t */
    CLI_OPT_DOUBLE,     /* -NAME X: X a finite number in lo..hi, into target, a double */
    CLI_OPT_CHOICE,     /* -NAME WORD: WORD one of choices, its index into target, an int */
    CLI_OPT_KV,         /* -NAME k=v ...: the words up to the next option, each to kv(target, ...),
                         * as cli_key_values */
    CLI_OPT_KV_LEADING, /* -NAME k=v ...: the key=value words that follow, up to the first other
                         * word, each to kv(target, ...), as cli_leading_key_values */
    CLI_OPT_CALL,       /* -NAME ...: call does it all */
} CliOptKind;

typedef struct CliOpt CliOpt;
/* A CLI_OPT_CALL entry's work on argv[*i], its option: *i past what it took,
 * and 0 to go on, 1 to stop the walk (--help was answered), -1 with err set. */
typedef int (*CliOptFn)(const CliOpt *opt, int argc, char **argv, int *i, char *err, size_t errlen);

struct CliOpt {
    const char *name;            /* "-rounds", or alternatives: "-base|-tuned"; NULL ends a table */
    CliOptKind kind;
    void *target;                /* what the kind fills (KV, CALL: what kv or call is given) */
    size_t size;                 /* STRING: the size of the char array target */
    uint64_t min, max;           /* UINT */
    double lo, hi;               /* DOUBLE */
    const char *const *choices;  /* CHOICE: the words, NULL last */
    const char *want;            /* STRING: what S is, for "-NAME needs WANT" */
    bool *set;                   /* if not NULL: made true when the option is taken */
    CliKvFn kv;                  /* KV, KV_LEADING */
    CliOptFn call;               /* CALL */
};

/* How a table's value errors read. */
typedef enum {
    CLI_SAY_NEEDS, /* each kind's own: "-rounds needs an integer 1..9, not x", "-bake needs auto,
                    * yes or no, not 'x'", "-base needs WANT" (a value missing: "-NAME needs a value") */
    CLI_SAY_BAD,   /* "-seeds needs a value", "bad value \"x\" for -seeds" */
} CliSay;

/* Walks argv[0..argc) with the table opts.  A word that names no option goes
 * to rest (nrest counts them; rest must hold argc), or, with rest NULL, is an
 * error: unknown option "WORD".  Returns 0 when every word is taken, 1 when a
 * CLI_OPT_CALL entry stopped the walk, -1 with err set (the first error). */
int cli_options(const CliOpt *opts, CliSay say, int argc, char **argv, char **rest, int *nrest, char *err,
                size_t errlen);

#endif
