/* A fake UCI engine for the match runner's tests and benchmark.  It plays
 * random legal moves (or the first legal move) with the rules library and can
 * be told to misbehave: crash, hang, cheat, babble, start slowly.
 *
 *   --seed N               random mover seed (default 1)
 *   --first                always play the first legal move
 *   --crash-after N        answer N `go`, then die by SIGKILL at the next one
 *   --hang-after N         answer N `go`, then stop reading and never answer
 *   --illegal-after N      answer N `go`, then answer with an illegal move
 *   --malformed-after N    answer N `go`, then answer "bestmove" with junk
 *   --malformed-bestmove   the same from the first `go`
 *   --orphan-after N       answer N `go`, then leave a child holding stdout and exit
 *   --garbage              print junk lines between the real ones
 *   --long-line            print a 2 MB line before `uciok`
 *   --slow-start MS        sleep before reading anything
 *   --no-uciok             never answer `uci` with `uciok`
 *   --die-on-ucinewgame    exit when `ucinewgame` arrives
 *   --score CP             report "info depth 1 score cp CP" before each move
 *   --mate N               report "score mate N" instead
 *   --resign-score         the same as --score -1000
 *   --info                 report a realistic info line (score cp 0) per move
 *   --wdl                  advertise UCI_ShowWDL and, once it is set true, report
 *                          "info depth 1 multipv 1 score cp 0 wdl W D L" per move,
 *                          W = 10 x the side to move's men plus the searches since
 *                          the last ucinewgame before this one (a hash that
 *                          remembers), D = 50, L = 10 x the other side's (a second
 *                          line with multipv 2 and wdl 0 0 1000 comes after it,
 *                          which a reader must ignore)
 *   --wdl-option-only      advertise UCI_ShowWDL but never report a wdl
 *   --bad-wdl-at N         with --wdl: at the Nth `go`, the multipv 1 line carries
 *                          "wdl TEXT" (--bad-wdl-text, default "0 0 0") instead
 *   --bad-wdl-text TEXT    what --bad-wdl-at reports after "wdl"
 *   --bad-wdl-count K      the same at the K `go` from the Nth on (default 1)
 *   --no-wdl-at N          with --wdl: answer the Nth `go` without any wdl line
 *   --think MS             sleep MS before each bestmove
 *   --nodes N              report "info depth 1 nodes N" before each bestmove (after
 *                          any other info line, so it is the last word on nodes)
 *   --nodestime-option     advertise a spin option nodestime (as bin/ratchet does)
 *   --options              advertise spin options Hash, Alpha, Beta and a button
 *   --option-log FILE      append "set NAME VALUE", "ucinewgame", "uci" and the `go`
 *                          lines it receives to FILE
 *   --ignore-quit          stay alive after `quit` and after end of input
 *   --name NAME            the `id name`
 */
#include "board.h"
#include "fakelib.h"

#include <gsl/gsl_rng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    unsigned long seed;
    bool first, garbage, long_line, no_uciok, die_on_newgame, options, ignore_quit, info;
    bool wdl, wdl_option, show_wdl;
    long since_newgame; /* searches since the last ucinewgame */
    long bad_wdl_at, bad_wdl_count, no_wdl_at;
    const char *bad_wdl_text;
    long crash_after, hang_after, illegal_after, malformed_after, orphan_after;
    long slow_start, think, nodes;
    bool nodestime_option;
    bool has_score, has_mate;
    int score, mate;
    const char *option_log;
    const char *name;
} cfg = { .seed = 1, .crash_after = -1, .hang_after = -1, .illegal_after = -1, .malformed_after = -1,
          .orphan_after = -1, .name = "fakeuci", .nodes = -1,
          .bad_wdl_at = -1, .bad_wdl_count = 1, .no_wdl_at = -1, .bad_wdl_text = "0 0 0" };

static void forever(void)
{
    for (;;)
        pause();
}

static void junk(void)
{
    static int k;
    static const char *lines[] = { "", "   ", "hello there", "info string garbage 1 2 3", "bestmovex e2e4",
                                   "\t", "id author nobody", "info depth", "bestmove_is_coming", "~~~~~" };
    if (cfg.garbage)
        printf("%s\n", lines[k++ % (int)(sizeof lines / sizeof *lines)]);
}

static void log_line(const char *fmt, const char *a, const char *b)
{
    if (!cfg.option_log)
        return;
    FILE *f = fopen(cfg.option_log, "a");
    if (!f)
        return;
    fprintf(f, fmt, a, b);
    fputc('\n', f);
    fclose(f);
}

/* Apply "position ..." to pos.  When the new command extends the previous
 * one, only the new moves are played. */
static void set_position(Position *pos, const char *cmd, char **last, size_t *lastcap)
{
    size_t lastlen = *last ? strlen(*last) : 0;
    const char *moves;
    if (*last && lastlen > 0 && strncmp(cmd, *last, lastlen) == 0 && (cmd[lastlen] == ' ' || cmd[lastlen] == '\0')) {
        moves = cmd + lastlen;
    } else {
        const char *p = cmd + strlen("position");
        while (*p == ' ')
            p++;
        const char *mv = strstr(p, " moves");
        if (strncmp(p, "startpos", 8) == 0) {
            pos_startpos(pos);
        } else if (strncmp(p, "fen ", 4) == 0) {
            char fen[256];
            size_t n = mv ? (size_t)(mv - (p + 4)) : strlen(p + 4);
            if (n >= sizeof fen)
                n = sizeof fen - 1;
            memcpy(fen, p + 4, n);
            fen[n] = '\0';
            char err[128];
            if (pos_from_fen(pos, fen, err, sizeof err) < 0) {
                printf("info string bad fen: %s\n", err);
                pos_startpos(pos);
            }
        }
        moves = mv ? mv + strlen(" moves") : "";
    }
    char tok[16];
    const char *p = moves;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        if (n < sizeof tok) {
            memcpy(tok, p, n);
            tok[n] = '\0';
            if (strcmp(tok, "moves") != 0) {
                Move m = parse_uci(pos, tok);
                if (m == MOVE_NONE || !pos_has_room(pos))
                    printf("info string illegal move %s\n", tok);
                else
                    pos_make(pos, m);
            }
        }
        p += n;
    }
    size_t len = strlen(cmd);
    if (len + 1 > *lastcap) {
        *lastcap = (len + 1) * 2;
        *last = realloc(*last, *lastcap);
    }
    memcpy(*last, cmd, len + 1);
}

static void play(Position *pos, gsl_rng *rng, long gocount)
{
    if (cfg.crash_after >= 0 && gocount > cfg.crash_after)
        kill(getpid(), SIGKILL);
    if (cfg.hang_after >= 0 && gocount > cfg.hang_after)
        forever();
    if (cfg.orphan_after >= 0 && gocount > cfg.orphan_after) {
        pid_t child = fork();
        if (child == 0)
            forever();
        printf("info string orphan %d\n", (int)child);
        fflush(stdout);
        _exit(0);
    }
    if (cfg.think > 0)
        fake_sleep_ms(cfg.think);
    MoveList list;
    gen_legal(pos, &list, GEN_ALL);
    char uci[8] = "0000";
    if (list.count > 0) {
        Move m = cfg.first ? list.moves[0] : list.moves[gsl_rng_uniform_int(rng, (unsigned long)list.count)];
        move_to_uci(m, uci);
    }
    junk();
    if (cfg.has_mate)
        printf("info depth 1 score mate %d pv %s\n", cfg.mate, uci);
    else if (cfg.has_score)
        printf("info depth 1 score cp %d pv %s\n", cfg.score, uci);
    else if (cfg.info)
        printf("info depth 1 seldepth 1 multipv 1 score cp 0 nodes 20 nps 20000 hashfull 0 tbhits 0 time 1 pv %s\n",
               uci);
    if (cfg.wdl && cfg.show_wdl && cfg.bad_wdl_at >= 0 && gocount >= cfg.bad_wdl_at
        && gocount < cfg.bad_wdl_at + cfg.bad_wdl_count) {
        printf("info depth 1 multipv 1 score cp 0 wdl %s pv %s\n", cfg.bad_wdl_text, uci);
    } else if (cfg.wdl && cfg.show_wdl && gocount != cfg.no_wdl_at) {
        int us = bb_count(pos->by_color[pos->side]), them = bb_count(pos->by_color[!pos->side]);
        printf("info depth 1 multipv 1 score cp 0 wdl %ld 50 %d pv %s\n", 10 * us + cfg.since_newgame, 10 * them,
               uci);
        printf("info depth 1 multipv 2 score cp -900 wdl 0 0 1000\n");
    }
    if (cfg.nodes >= 0)
        printf("info depth 1 nodes %ld\n", cfg.nodes);
    junk();
    if (cfg.illegal_after >= 0 && gocount > cfg.illegal_after) {
        /* A well-formed move that is not legal here. */
        for (int from = 0; from < 64; from++)
            for (int to = 0; to < 64; to++) {
                char t[8];
                move_to_uci(move_make(from, to, MF_QUIET), t);
                if (from != to && parse_uci(pos, t) == MOVE_NONE) {
                    printf("bestmove %s\n", t);
                    return;
                }
            }
    }
    if (cfg.malformed_after >= 0 && gocount > cfg.malformed_after) {
        printf("bestmove %s\n", gocount % 2 ? "" : "zz9");
        return;
    }
    printf("bestmove %s\n", uci);
}

static long num(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "fakeuci: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return strtol(argv[++*i], NULL, 10);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--seed")) cfg.seed = (unsigned long)num(argc, argv, &i);
        else if (!strcmp(a, "--first")) cfg.first = true;
        else if (!strcmp(a, "--crash-after")) cfg.crash_after = num(argc, argv, &i);
        else if (!strcmp(a, "--hang-after")) cfg.hang_after = num(argc, argv, &i);
        else if (!strcmp(a, "--illegal-after")) cfg.illegal_after = num(argc, argv, &i);
        else if (!strcmp(a, "--malformed-after")) cfg.malformed_after = num(argc, argv, &i);
        else if (!strcmp(a, "--malformed-bestmove")) cfg.malformed_after = 0;
        else if (!strcmp(a, "--orphan-after")) cfg.orphan_after = num(argc, argv, &i);
        else if (!strcmp(a, "--garbage")) cfg.garbage = true;
        else if (!strcmp(a, "--long-line")) cfg.long_line = true;
        else if (!strcmp(a, "--slow-start")) cfg.slow_start = num(argc, argv, &i);
        else if (!strcmp(a, "--no-uciok")) cfg.no_uciok = true;
        else if (!strcmp(a, "--die-on-ucinewgame")) cfg.die_on_newgame = true;
        else if (!strcmp(a, "--score")) { cfg.has_score = true; cfg.score = (int)num(argc, argv, &i); }
        else if (!strcmp(a, "--mate")) { cfg.has_mate = true; cfg.mate = (int)num(argc, argv, &i); }
        else if (!strcmp(a, "--resign-score")) { cfg.has_score = true; cfg.score = -1000; }
        else if (!strcmp(a, "--info")) cfg.info = true;
        else if (!strcmp(a, "--wdl")) cfg.wdl = cfg.wdl_option = true;
        else if (!strcmp(a, "--wdl-option-only")) cfg.wdl_option = true;
        else if (!strcmp(a, "--bad-wdl-at")) cfg.bad_wdl_at = num(argc, argv, &i);
        else if (!strcmp(a, "--bad-wdl-text") && i + 1 < argc) cfg.bad_wdl_text = argv[++i];
        else if (!strcmp(a, "--bad-wdl-count")) cfg.bad_wdl_count = num(argc, argv, &i);
        else if (!strcmp(a, "--no-wdl-at")) cfg.no_wdl_at = num(argc, argv, &i);
        else if (!strcmp(a, "--think")) cfg.think = num(argc, argv, &i);
        else if (!strcmp(a, "--options")) cfg.options = true;
        else if (!strcmp(a, "--nodes")) cfg.nodes = num(argc, argv, &i);
        else if (!strcmp(a, "--nodestime-option")) cfg.nodestime_option = true;
        else if (!strcmp(a, "--option-log") && i + 1 < argc) cfg.option_log = argv[++i];
        else if (!strcmp(a, "--ignore-quit")) cfg.ignore_quit = true;
        else if (!strcmp(a, "--name") && i + 1 < argc) cfg.name = argv[++i];
        else {
            fprintf(stderr, "fakeuci: unknown argument '%s'\n", a);
            return 2;
        }
    }
    if (cfg.slow_start > 0)
        fake_sleep_ms(cfg.slow_start);

    rules_init();
    Position *pos = malloc(sizeof *pos);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, cfg.seed);
    pos_startpos(pos);
    char *line = NULL, *last = NULL;
    size_t cap = 0, lastcap = 0;
    long gocount = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!strcmp(line, "uci")) {
            log_line("%s%s", "uci", "");
            junk();
            printf("id name %s\nid author ratchet tests\n", cfg.name);
            if (cfg.options)
                printf("option name Hash type spin default 16 min 1 max 1024\n"
                       "option name Alpha type spin default 0 min -1000 max 1000\n"
                       "option name Beta type spin default 0 min -1000 max 1000\n"
                       "option name Clear Hash type button\n");
            if (cfg.wdl_option)
                printf("option name UCI_ShowWDL type check default false\n");
            if (cfg.nodestime_option)
                printf("option name nodestime type spin default 0 min 0 max 100000\n");
            if (cfg.long_line) {
                for (int i = 0; i < 2 * 1024 * 1024; i++)
                    putchar('x');
                putchar('\n');
            }
            junk();
            if (!cfg.no_uciok)
                printf("uciok\n");
        } else if (!strcmp(line, "isready")) {
            junk();
            printf("readyok\n");
        } else if (!strncmp(line, "setoption name ", 15)) {
            char *name = line + 15, *val = strstr(name, " value ");
            if (val) {
                *val = '\0';
                val += 7;
            }
            log_line("set %s %s", name, val ? val : "");
            if (!strcmp(name, "UCI_ShowWDL"))
                cfg.show_wdl = val && !strcmp(val, "true");
        } else if (!strcmp(line, "ucinewgame")) {
            log_line("%s%s", "ucinewgame", "");
            cfg.since_newgame = 0;
            if (cfg.die_on_newgame)
                return 0;
            free(last);
            last = NULL;
            lastcap = 0;
        } else if (!strncmp(line, "position", 8)) {
            set_position(pos, line, &last, &lastcap);
        } else if (!strncmp(line, "go", 2)) {
            log_line("%s%s", line, "");
            play(pos, rng, ++gocount);
            cfg.since_newgame++;
        } else if (!strcmp(line, "quit")) {
            if (!cfg.ignore_quit)
                break;
        }
        fflush(stdout);
    }
    if (cfg.ignore_quit)
        forever();
    free(line);
    free(last);
    free(pos);
    gsl_rng_free(rng);
    return 0;
}
