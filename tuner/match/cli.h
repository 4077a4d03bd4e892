/* The command-line face of the match runner: fastchess/cutechess-style
 * options into a MatchConfig (match_parse_option and friends) and the time
 * control parser.  The helpers every subcommand shares are in cliutil.h. */
#ifndef RATCHET_CLI_H
#define RATCHET_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "match.h"

/* The largest nodestime= (nodes per ms of the clock) -each takes. */
#define MAX_NODESTIME 100000

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
/* Whether t is a limit a game can be played at, as match_config_finish
 * checks each engine's: a clock (tc= other than inf), st=, nodes= or
 * depth=, and under nodestime= a clock or st= to count in nodes (without,
 * `go` would get no limit at all).  0, or -1 with a message that starts
 * with `who` ("engine 'X'"); `where` follows the words of the first case
 * (" (in -each or -engine)"). */
int cli_check_limit(const TimeControl *t, const char *who, const char *where, char *err, size_t errlen);

#endif
