/* ratchet-genbook: writes a balanced opening book for self-play tuning.
 *
 * From the start position (or from each line of an input EPD in turn), play
 * a random number of plies; each ply is drawn uniformly among the legal
 * moves that a shallow search does not call blunders.  Keep the end position
 * when the engine's own search at a stated depth scores it within a window,
 * it is not in check, has no mate score, and is not already in the book.
 * Deterministic for a given seed and options. */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "book.h"
#include "rd.h"
#include "score.h"
#include "search.h"
#include "tt.h"
#include "engine.h"

typedef struct {
    const char *out, *from;
    long count;
    unsigned long seed;
    int min_plies, max_plies;
    int depth, window;
    int blunder_depth, blunder_margin;
} Options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: ratchet-genbook -o FILE -n COUNT [options]\n"
        "\n"
        "Writes COUNT distinct, balanced opening positions, one full FEN per line\n"
        "(six fields, move counters included; no EPD operations), which every\n"
        "runner reads.  Deterministic for a given seed and options.\n"
        "\n"
        "  -o, --out FILE           output file (written to FILE.tmp, then renamed)\n"
        "  -n, --count N            positions to write\n"
        "  -s, --seed N             random seed (default 1)\n"
        "  -p, --plies MIN-MAX      random plies played from each start (default 6-10)\n"
        "  -d, --depth D            depth of the balance search (default 7)\n"
        "  -w, --window CP          keep |score| <= CP for the side to move (default 60)\n"
        "  -b, --blunder-depth D    depth of the per-move blunder search (default 4)\n"
        "  -m, --blunder-margin CP  a move is a blunder when it scores more than CP\n"
        "                           below the best move (default 40)\n"
        "  -f, --from FILE.epd      start from each line of this book in turn\n"
        "                           instead of the start position\n"
        "\n"
        "The balance search runs like `ucinewgame` + `go depth D` in bin/ratchet\n"
        "with default parameters and Hash (a cleared table per position), so\n"
        "the engine reproduces every kept score.\n");
}

static int parse_options(int argc, char **argv, Options *o)
{
    static const struct option longopts[] = {
        {"out", required_argument, 0, 'o'},           {"count", required_argument, 0, 'n'},
        {"seed", required_argument, 0, 's'},          {"plies", required_argument, 0, 'p'},
        {"depth", required_argument, 0, 'd'},         {"window", required_argument, 0, 'w'},
        {"blunder-depth", required_argument, 0, 'b'}, {"blunder-margin", required_argument, 0, 'm'},
        {"from", required_argument, 0, 'f'},          {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (Options){.count = 0, .seed = 1, .min_plies = 6, .max_plies = 10, .depth = 7,
                   .window = 60, .blunder_depth = 4, .blunder_margin = 40};
    int c;
    while ((c = getopt_long(argc, argv, "o:n:s:p:d:w:b:m:f:h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'f': o->from = optarg; break;
        case 'n': o->count = strtol(optarg, &end, 10); break;
        case 's': o->seed = strtoul(optarg, &end, 10); break;
        case 'd': o->depth = (int)strtol(optarg, &end, 10); break;
        case 'w': o->window = (int)strtol(optarg, &end, 10); break;
        case 'b': o->blunder_depth = (int)strtol(optarg, &end, 10); break;
        case 'm': o->blunder_margin = (int)strtol(optarg, &end, 10); break;
        case 'p':
            if (sscanf(optarg, "%d-%d", &o->min_plies, &o->max_plies) != 2) {
                fprintf(stderr, "ratchet-genbook: --plies wants MIN-MAX, got '%s'\n", optarg);
                return -1;
            }
            end = optarg + strlen(optarg);
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
        if (end && *end) {
            fprintf(stderr, "ratchet-genbook: -%c wants a number, got '%s'\n", c, optarg);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ratchet-genbook: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (!o->out || o->count <= 0) {
        fprintf(stderr, "ratchet-genbook: -o FILE and -n COUNT (> 0) are required\n");
        return -1;
    }
    if (o->min_plies < 0 || o->max_plies < o->min_plies || o->max_plies > 200 || o->depth < 1 ||
        o->depth > 30 || o->window < 0 || o->blunder_depth < 1 || o->blunder_depth > 10 ||
        o->blunder_margin < 0) {
        fprintf(stderr, "ratchet-genbook: option out of range (plies 0..200 with MIN <= MAX, depth 1..30, "
                        "blunder depth 1..10, window and margin >= 0)\n");
        return -1;
    }
    return 0;
}

/* Keys of the positions kept so far: open addressing, grows when half full. */
typedef struct {
    uint64_t *slots;
    size_t cap, used;
} KeySet;

static bool keyset_add(KeySet *s, uint64_t key)
{
    key |= 1; /* 0 marks an empty slot */
    if (2 * (s->used + 1) > s->cap) {
        KeySet bigger = {calloc(s->cap ? 2 * s->cap : 1024, sizeof(uint64_t)), s->cap ? 2 * s->cap : 1024, 0};
        if (!bigger.slots) {
            fprintf(stderr, "ratchet-genbook: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i])
                keyset_add(&bigger, s->slots[i]);
        free(s->slots);
        *s = bigger;
    }
    size_t i = key & (s->cap - 1);
    while (s->slots[i]) {
        if (s->slots[i] == key)
            return false;
        i = (i + 1) & (s->cap - 1);
    }
    s->slots[i] = key;
    s->used++;
    return true;
}

static int search_score(Searcher *s, const Position *p, int depth)
{
    SearchLimits lim;
    SearchResult res;
    search_limits_init(&lim);
    lim.depth = depth;
    search_run(s, p, &lim, NULL, NULL, &res);
    return res.score;
}

/* A random move among those within `margin` of the best at `depth`. */
static Move pick_move(Searcher *s, Position *p, const Options *o, gsl_rng *rng)
{
    MoveList l, ok;
    int scores[MAX_MOVES], best = -SCORE_INF;
    gen_legal(p, &l, GEN_ALL);
    for (int i = 0; i < l.count; i++) {
        pos_make(p, l.moves[i]);
        MoveList replies;
        gen_legal(p, &replies, GEN_ALL);
        if (replies.count == 0)
            scores[i] = pos_in_check(p) ? SCORE_MATE : 0;
        else
            scores[i] = o->blunder_depth > 1 ? -search_score(s, p, o->blunder_depth - 1) : 0;
        pos_unmake(p);
        if (scores[i] > best)
            best = scores[i];
    }
    ok.count = 0;
    for (int i = 0; i < l.count; i++)
        if (scores[i] >= best - o->blunder_margin)
            ok.moves[ok.count++] = l.moves[i];
    return ok.count ? ok.moves[gsl_rng_uniform_int(rng, (unsigned long)ok.count)] : MOVE_NONE;
}

int main(int argc, char **argv)
{
    Options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    engine_init();

    Book *starts = NULL;
    char err[512];
    if (o.from && !(starts = book_load(o.from, "epd", 0, err, sizeof err))) {
        fprintf(stderr, "ratchet-genbook: %s\n", err);
        return 2;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", o.out);
    int tmpfd = rd_create_temp(tmp, err, sizeof err);
    FILE *out = tmpfd >= 0 ? fdopen(tmpfd, "w") : NULL;
    if (!out) {
        if (tmpfd >= 0) {
            fprintf(stderr, "ratchet-genbook: cannot write %s: %s\n", tmp, strerror(errno));
            close(tmpfd);
        } else {
            fprintf(stderr, "ratchet-genbook: %s\n", err);
        }
        return 1;
    }

    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, o.seed);
    Searcher *s = searcher_new();
    Position *p = malloc(sizeof *p);
    KeySet keys = {0};
    long kept = 0, tries = 0, max_tries = 200 * o.count + 1000;
    long rejected_score = 0, rejected_dup = 0, rejected_other = 0;

    while (kept < o.count && tries < max_tries) {
        tries++;
        if (starts)
            pos_from_fen(p, book_fen(starts, (size_t)(tries - 1) % book_size(starts)), NULL, 0);
        else
            pos_startpos(p);
        int plies = o.min_plies + (int)gsl_rng_uniform_int(rng, (unsigned long)(o.max_plies - o.min_plies + 1));
        bool ok = true;
        for (int i = 0; i < plies && ok; i++) {
            Move m = pick_move(s, p, &o, rng);
            ok = m != MOVE_NONE && pos_has_room(p);
            if (ok)
                pos_make(p, m);
        }
        MoveList l;
        gen_legal(p, &l, GEN_ALL);
        if (!ok || l.count == 0 || pos_in_check(p) || pos_insufficient_material(p)) {
            rejected_other++;
            continue;
        }
        /* The balance search: a fresh table, as after ucinewgame. */
        tt_clear();
        searcher_clear(s);
        int score = search_score(s, p, o.depth);
        if (score_is_mate(score) || abs(score) > o.window) {
            rejected_score++;
            continue;
        }
        if (!keyset_add(&keys, pos_key(p))) {
            rejected_dup++;
            continue;
        }
        char fen[128];
        pos_to_fen(p, fen, sizeof fen);
        fprintf(out, "%s\n", fen);
        kept++;
        if (isatty(STDERR_FILENO) || kept % 500 == 0 || kept == o.count)
            fprintf(stderr, "\rgenbook: %ld/%ld kept, %ld tries%s", kept, o.count, tries,
                    isatty(STDERR_FILENO) && kept < o.count ? "" : "\n");
    }

    int rc = 0;
    if (fflush(out) != 0 || fsync(fileno(out)) != 0) {
        fprintf(stderr, "ratchet-genbook: writing %s failed: %s\n", tmp, strerror(errno));
        rc = 1;
    }
    fclose(out);
    if (rc == 0 && kept < o.count) {
        fprintf(stderr, "ratchet-genbook: only %ld of %ld positions after %ld tries; widen --window or --plies\n",
                kept, o.count, tries);
        rc = 1;
    }
    if (rc == 0 && rename(tmp, o.out) != 0) {
        fprintf(stderr, "ratchet-genbook: cannot rename %s to %s: %s\n", tmp, o.out, strerror(errno));
        rc = 1;
    }
    if (rc != 0)
        unlink(tmp);
    else
        fprintf(stderr, "genbook: wrote %ld positions to %s (%ld tries: %ld outside the window, %ld duplicates, %ld other)\n",
                kept, o.out, tries, rejected_score, rejected_dup, rejected_other);

    free(keys.slots);
    free(p);
    searcher_free(s);
    gsl_rng_free(rng);
    book_free(starts);
    tt_free();
    return rc;
}
