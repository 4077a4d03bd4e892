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
/* "-NAME N": N an integer in lo..hi.  1 with *i past it, or -1 with err set. */
int cli_int_value(int argc, char **argv, int *i, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen);

#endif
