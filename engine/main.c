/* bin/ratchet: the UCI engine, plus the commands that tools and users call
 * from the shell:
 *   ratchet                 UCI on stdin/stdout
 *   ratchet bench [DEPTH]   the signature bench; last line `N nodes M nps`
 *   ratchet params          the parameter spec as JSON
 *   ratchet spsa            SPSA input lines `name, int, value, min, max, c_end, r_end`
 * Options before the command apply to all of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "paramfile.h"
#include "params.h"
#include "score.h"
#include "engine.h"
#include "uci.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ratchet [--params FILE.json] [COMMAND]\n"
            "  --params FILE   start with the parameter values of a value file (JSON)\n"
            "  (no command)    speak UCI on standard input and output\n"
            "  bench [DEPTH]   search the bench positions to DEPTH (default %d); last line: N nodes M nps\n"
            "  params          print the parameter spec as JSON\n"
            "  spsa            print SPSA input lines: name, int, value, min, max, c_end, r_end\n"
            "  help            this text\n",
            BENCH_DEFAULT_DEPTH);
}

int main(int argc, char **argv)
{
    engine_init();

    int i = 1;
    /* Options that precede the command (the parameter-file option goes here). */
    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--params")) {
            char err[1024];
            if (i + 1 == argc) {
                fprintf(stderr, "ratchet: --params needs a value file\n");
                return 2;
            }
            if (paramfile_apply(argv[++i], err, sizeof err) < 0) {
                fprintf(stderr, "ratchet: %s\n", err);
                return 1;
            }
            continue;
        }
        fprintf(stderr, "ratchet: unknown option '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }

    if (i == argc)
        return uci_loop(stdin, stdout);

    const char *cmd = argv[i++];
    int rest = argc - i;
    if (!strcmp(cmd, "bench")) {
        int depth = BENCH_DEFAULT_DEPTH;
        if (rest > 1) {
            fprintf(stderr, "ratchet bench: too many arguments\n");
            return 2;
        }
        if (rest == 1) {
            char *end;
            long d = strtol(argv[i], &end, 10);
            if (*end || d < 1 || d >= MAX_PLY) {
                fprintf(stderr, "ratchet bench: depth '%s' is not an integer in [1, %d]\n", argv[i], MAX_PLY - 1);
                return 2;
            }
            depth = (int)d;
        }
        BenchResult r;
        return bench_run(bench_fens, bench_count, depth, stdout, &r) == 0 ? 0 : 1;
    }
    if (rest > 0 && (!strcmp(cmd, "params") || !strcmp(cmd, "spsa"))) {
        fprintf(stderr, "ratchet %s: takes no arguments\n", cmd);
        return 2;
    }
    if (!strcmp(cmd, "params")) {
        char *json = params_spec_json();
        if (!json) {
            fprintf(stderr, "ratchet params: out of memory\n");
            return 1;
        }
        printf("%s\n", json);
        free(json);
        return 0;
    }
    if (!strcmp(cmd, "spsa")) {
        params_print_spsa(stdout);
        return 0;
    }
    if (!strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "ratchet: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
