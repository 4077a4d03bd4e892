/* `bench`: a fixed set of positions searched to a fixed depth, one thread,
 * with the hash table and all move-ordering memory cleared before each
 * position, so the total node count is the build's signature: the same
 * source and parameters give the same count on every machine.  No clock
 * influences the search.  The last line is `N nodes M nps`. */
#include "bench.h"

#include <inttypes.h>
#include <stdlib.h>

#include "search.h"
#include "timeman.h"
#include "tt.h"

/* Openings, middlegames with tactics and quiet manoeuvring, endgames with
 * passed pawns, promotions and mates. */
const char *const bench_fens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "r4k2/pb2bp1r/1p1qp2p/3pNp2/3P1P2/2N3P1/PPP1Q2P/2KRR3 w - - 0 1",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 1",
    "r2qnrnk/p2b2b1/1p1p2pp/2pPpp2/1PP1P3/PRNBB3/3QNPPP/5RK1 w - - 0 1",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp3ppp/4pn2/2pp4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 0 5",
    "r1bqk2r/ppp2ppp/2n2n2/2bpp3/4P3/2PP1N2/PP1NBPPP/R1BQK2R b KQkq - 1 6",
    "rn1qkb1r/pp2pppp/2p2n2/5b2/P1pP4/2N2N2/1P2PPPP/R1BQKB1R w KQkq - 1 6",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/P1N1PN2/1P3PPP/R2QKB1R w KQ - 1 10",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/1p1r1k2/p1pPN1p1/P3KnP1/1P6/8/3R4 b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 1",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
};
const int bench_count = (int)(sizeof bench_fens / sizeof bench_fens[0]);

int bench_run(const char *const *fens, int count, int depth, FILE *out, BenchResult *res)
{
    return bench_run_until(fens, count, depth, out, NULL, res);
}

int bench_run_until(const char *const *fens, int count, int depth, FILE *out, atomic_bool *stop,
                    BenchResult *res)
{
    Position *pos = malloc(sizeof *pos);
    Searcher *s = searcher_new();
    if (!pos || !s) {
        free(pos);
        searcher_free(s);
        if (out)
            fprintf(out, "bench: out of memory\n");
        return -1;
    }
    size_t old_mb = tt_size_mb();
    if (old_mb != BENCH_HASH_MB && tt_resize(BENCH_HASH_MB) != 0) {
        free(pos);
        searcher_free(s);
        if (out)
            fprintf(out, "bench: cannot allocate %d MB of hash\n", BENCH_HASH_MB);
        return -1;
    }

    SearchLimits lim;
    search_limits_init(&lim);
    lim.depth = depth;

    res->nodes = 0;
    int64_t start = tm_now();
    int done = 0;
    for (int i = 0; i < count && !(stop && atomic_load(stop)); i++) {
        char err[256];
        if (pos_from_fen(pos, fens[i], err, sizeof err) != 0) {
            if (out)
                fprintf(out, "bench: position %d: %s\n", i + 1, err);
            free(pos);
            searcher_free(s);
            return -1;
        }
        tt_clear();
        searcher_clear(s);
        SearchResult r;
        search_run(s, pos, &lim, stop, NULL, &r);
        res->nodes += r.nodes;
        done++;
        if (out) {
            char mv[8];
            move_to_uci(r.best, mv);
            fprintf(out, "position %2d/%d: bestmove %-6s score %6d nodes %10" PRIu64 "\n", i + 1, count, mv,
                    r.score, r.nodes);
            fflush(out);
        }
    }
    res->ms = tm_now() - start;
    res->nps = res->nodes * 1000 / (uint64_t)(res->ms > 0 ? res->ms : 1);
    if (out) {
        if (stop && atomic_load(stop))
            fprintf(out, "info string bench: stopped after %d of %d positions (the last may be cut short); the totals"
                    " cover those\n", done, count);
        fprintf(out, "%" PRIu64 " nodes %" PRIu64 " nps\n", res->nodes, res->nps);
        fflush(out);
    }
    free(pos);
    searcher_free(s);
    /* Give a UCI session its own hash size back (emptied). */
    if (old_mb && old_mb != BENCH_HASH_MB && tt_resize(old_mb) != 0 && out)
        fprintf(out, "info string bench: could not restore the hash to %zu MB; it stays at %d MB\n", old_mb,
                BENCH_HASH_MB);
    return 0;
}
