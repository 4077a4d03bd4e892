/* The messages of bin/ratchet-tune-mpi (tuner/mpi/mpi.c), as bytes: how
 * they are packed, and how a received one is decoded and checked.  No MPI
 * here: a decoder is a function of the bytes alone, so the unit tests and
 * the fuzz harness (tests/fuzz/fuzz_mpimsg.c) call it without mpirun.
 *
 * A received message is trusted for nothing: every field is range-checked
 * (a RESULT's counts against the games it says were played, a JOB's option
 * count, every string terminated within its field), and a message that
 * fails is refused with a reason, which the caller prints with the rank it
 * came from.  Layouts (host byte order):
 *   WANT    i32 credits, str host
 *   JOB     u64 seq, u64 id, u64 opening, i32 games, i32 swap, str fen,
 *           2 x (i32 n, n x (str name, str value))
 *   RESULT  u64 seq, PairResult (raw), u64 len, len bytes of PGN text
 *   ABANDON u64 seq
 *   DONE    i32 rc, str host
 *   CONFIG  ConfigHead, MatchConfig (raw)
 *   END, STOP, QUIT, BYE: empty
 * where str is u32 n and n bytes. */
#ifndef RATCHET_MSG_H
#define RATCHET_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match.h"

enum {
    T_CONFIG = 1, T_WANT, T_JOB, T_RESULT, T_ABANDON, T_END, T_STOP, T_DONE, T_QUIT, T_BYE
};

enum {
    PROTO_MAGIC = 0x52544d31,   /* "RTM1" in host order: a byte-order mismatch shows */
    MSG_HOST_MAX = 256,         /* a host name, with its terminator (MPI_MAX_PROCESSOR_NAME in Open MPI) */
    MSG_MAX_CREDIT = 1 << 16,   /* a WANT asks for at most this many pairs */
    MSG_MAX_PGN = 64 << 20      /* bytes of PGN text in one RESULT */
};

/* ---- packing ---- */

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} Buf;

void msg_put(Buf *b, const void *d, size_t n);
void msg_put_u64(Buf *b, uint64_t v);
void msg_put_i32(Buf *b, int32_t v);
void msg_put_str(Buf *b, const char *s);

void msg_pack_job(Buf *b, uint64_t seq, const PairJob *j);
void msg_pack_result(Buf *b, uint64_t seq, const PairResult *res, const char *pgn, size_t pgnlen);

/* ---- decoding ---- */

/* A message rank 0 receives, decoded.  text points into the decoded buffer. */
typedef struct {
    int tag;
    uint64_t seq;               /* RESULT, ABANDON */
    int32_t n;                  /* WANT: credits; DONE: the worker's match_play code (-1, 0, 1) */
    char host[MSG_HOST_MAX];    /* WANT, DONE */
    PairResult res;             /* RESULT */
    const char *text;           /* RESULT: the games' PGN text (len bytes, no NUL among them) */
    size_t textlen;
    bool has_seq;               /* seq was read, even when a later field was refused */
} CoordMsg;

/* Decode a message of tag `tag` that a worker sent to rank 0 (WANT, RESULT,
 * ABANDON, DONE, BYE).  0, or -1 with the reason in why (which names the
 * field and its value; m->has_seq says whether m->seq was read before). */
int msg_decode_coord(int tag, const void *p, size_t len, CoordMsg *m, char *why, size_t whylen);

/* A PairResult's fields against each other: games 1 or 2, scores, results
 * and terminations of the games played, plies, and per-engine counts that
 * are not negative and fit the games (each game is lost at most once; an
 * engine is restarted at most twice per game).  0, or -1 with the reason. */
int msg_check_result(const PairResult *r, char *why, size_t whylen);

/* Decode a JOB (worker side).  0, or -1 with the reason. */
int msg_decode_job(const void *p, size_t len, uint64_t *seq, PairJob *job, char *why, size_t whylen);

/* The configuration's header: the layout that is sent raw. */
typedef struct {
    uint32_t magic;
    uint32_t sizes[5];          /* the layout this build sends raw */
    int32_t want_pgn;           /* rank 0 writes a PGN: send the games' text */
    int32_t concurrency;
} ConfigHead;

void msg_config_head(ConfigHead *h, bool want_pgn, int concurrency);
/* Decode a CONFIG into h and cfg: the header must match this build's layout,
 * every string of the configuration be terminated within its field, and the
 * counts be in range.  The pointers in *cfg (book, argv, stop) are garbage
 * from the sender: the caller replaces them.  0, or -1 with the reason. */
int msg_decode_config(const void *p, size_t len, ConfigHead *h, MatchConfig *cfg, char *why, size_t whylen);

/* ---- the pairs at the workers (rank 0) ---- */

typedef struct {
    uint64_t seq;
    int worker;                 /* the rank that was given the pair */
    PairJob *job;
    int64_t sent_ms;            /* when it was sent (ep_now_ms): its deadline counts from then */
} OutPair;

enum { OUT_NONE = -1, OUT_NOT_YOURS = -2 };
/* The index of pair seq in v[0..n) when rank src holds it; OUT_NONE when no
 * such pair is out (finished, or given back when its worker was retired);
 * OUT_NOT_YOURS when another rank holds it (*owner set, if not NULL). */
long out_find(const OutPair *v, size_t n, uint64_t seq, int src, int *owner);

#endif
