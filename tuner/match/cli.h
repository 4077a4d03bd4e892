/* The command-line face of the match runner: fastchess/cutechess-style
 * options into a MatchConfig (match_parse_option and friends), plus the
 * small parsers the `match` command and others share. */
#ifndef RATCHET_CLI_H
#define RATCHET_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "match.h"

void match_config_init(MatchConfig *cfg);
/* Parse the shared option at argv[*i] (-engine, -each, -openings, -draw,
 * -resign, -maxmoves, -concurrency, -pgnout, -srand, -log, -event, -site and
 * a few fastchess/cutechess options accepted for compatibility).  Returns 1
 * when consumed, with *i moved past the option and its values; 0 when
 * argv[*i] is not a match option (*i unchanged); -1 with a message in err. */
int match_parse_option(MatchConfig *cfg, int argc, char **argv, int *i, char *err, size_t errlen);
/* Check the configuration, apply -each, split args, load the book and set
 * its order.  Call rules_init() first.  0, or -1 with a message in err. */
int match_config_finish(MatchConfig *cfg, char *err, size_t errlen);
void match_config_free(MatchConfig *cfg);
/* The options match_parse_option understands, for --help texts. */
void match_print_options(FILE *out);

/* tc=[moves/]base[+inc] with base as seconds or minutes:seconds, or inf. */
int cli_parse_tc(const char *s, TimeControl *tc, char *err, size_t errlen);

/* One key=value word of an option such as "-engine"; 0 or -1 with err set. */
typedef int (*CliKvFn)(void *ctx, const char *opt, const char *key, const char *value, char *err, size_t errlen);
/* The key=value words after argv[*i] (up to the next word starting with
 * '-'), each given to fn.  Returns 1 with *i past them, or -1 with err set
 * (no words, a word without '=', or fn's error). */
int cli_key_values(int argc, char **argv, int *i, CliKvFn fn, void *ctx, char *err, size_t errlen);
/* "-NAME N": N an integer in lo..hi.  1 with *i past it, or -1 with err set. */
int cli_int_value(int argc, char **argv, int *i, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen);
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
/* A usage error of a subcommand: "WHO: " and the message, then "(see
 * ratchet-tune CMD --help)", on stderr.  Returns 2, the exit code of a
 * usage error. */
int cli_usage_error(const char *who, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The arguments of a `COMMAND DIR [-o FILE]` subcommand (export, report).
 * -1: parsed (*out NULL without -o); 0: --help was printed to stdout; 2: a
 * usage error, printed to stderr with the usage. */
int cli_dir_output(int argc, char **argv, const char *usage, const char **dir, const char **out);

#endif
