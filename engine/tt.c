/* Transposition table.  See tt.h for the scheme. */
#include "tt.h"

#include <stdlib.h>
#include <string.h>

#include "score.h"

typedef struct {
    uint64_t key;
    Move move;
    int16_t score;
    int16_t eval;
    uint8_t depth;
    uint8_t genbound;  /* generation in the upper 6 bits, bound in the lower 2 */
} TTEntry;

#define BUCKET_SIZE 4
typedef struct {
    TTEntry e[BUCKET_SIZE];
} TTBucket;

_Static_assert(sizeof(TTEntry) == 16, "TT entries are 16 bytes");
_Static_assert(sizeof(TTBucket) == 64, "a TT bucket is one cache line");

static TTBucket *table;
static size_t bucket_count;
static size_t table_mb;
static uint8_t generation; /* steps of 4, so the low two bits stay free for the bound */

static TTBucket *bucket_of(uint64_t key)
{
    /* Multiply-high maps the key uniformly onto any table size. */
    return &table[(size_t)(((unsigned __int128)key * bucket_count) >> 64)];
}

int tt_resize(size_t mb)
{
    if (mb < 1 || mb > TT_MAX_MB)
        return -1;
    size_t count = mb * 1024 * 1024 / sizeof(TTBucket);
    TTBucket *fresh = aligned_alloc(64, count * sizeof(TTBucket));
    if (!fresh)
        return -1;
    free(table);
    table = fresh;
    bucket_count = count;
    table_mb = mb;
    tt_clear();
    return 0;
}

size_t tt_size_mb(void) { return table_mb; }

static void ensure_table(void)
{
    if (!table && tt_resize(TT_DEFAULT_MB) != 0)
        abort(); /* 16 MB must be available at start-up */
}

void tt_clear(void)
{
    if (table)
        memset(table, 0, bucket_count * sizeof(TTBucket));
    generation = 0;
}

void tt_new_search(void) { generation = (uint8_t)(generation + 4); }

void tt_free(void)
{
    free(table);
    table = NULL;
    bucket_count = 0;
    table_mb = 0;
}

int tt_score_to(int score, int ply)
{
    if (score >= SCORE_MATE_IN_MAX)
        return score + ply;
    if (score <= -SCORE_MATE_IN_MAX)
        return score - ply;
    return score;
}

int tt_score_from(int score, int ply)
{
    if (score >= SCORE_MATE_IN_MAX)
        return score - ply;
    if (score <= -SCORE_MATE_IN_MAX)
        return score + ply;
    return score;
}

void tt_prefetch(uint64_t key)
{
    if (table)
        __builtin_prefetch(bucket_of(key));
}

bool tt_probe(uint64_t key, int ply, TTHit *hit)
{
    ensure_table();
    TTBucket *b = bucket_of(key);
    for (int i = 0; i < BUCKET_SIZE; i++) {
        TTEntry *e = &b->e[i];
        if (e->key != key || (e->genbound & 3) == BOUND_NONE)
            continue;
        e->genbound = (uint8_t)(generation | (e->genbound & 3)); /* refresh its age */
        hit->move = e->move;
        hit->score = tt_score_from(e->score, ply);
        hit->eval = e->eval;
        hit->depth = e->depth;
        hit->bound = e->genbound & 3;
        return true;
    }
    return false;
}

/* How many searches ago the entry was written. */
static int entry_age(const TTEntry *e) { return ((uint8_t)(generation - (e->genbound & 0xFC))) >> 2; }

void tt_store(uint64_t key, int ply, Move move, int score, int eval, int depth, int bound)
{
    ensure_table();
    TTBucket *b = bucket_of(key);
    TTEntry *slot = NULL;
    for (int i = 0; i < BUCKET_SIZE && !slot; i++)
        if (b->e[i].key == key)
            slot = &b->e[i];

    if (slot) {
        /* Same position: keep a deeper result of this search unless the new one is exact. */
        if (move == MOVE_NONE)
            move = slot->move;
        if (bound != BOUND_EXACT && entry_age(slot) == 0 && depth + 3 < slot->depth) {
            slot->move = move;
            return;
        }
    } else {
        /* Replace the entry worth least: shallow and old. */
        slot = &b->e[0];
        for (int i = 1; i < BUCKET_SIZE; i++) {
            TTEntry *e = &b->e[i];
            if (e->depth - 8 * entry_age(e) < slot->depth - 8 * entry_age(slot))
                slot = e;
        }
    }

    if (depth < 0)
        depth = 0;
    slot->key = key;
    slot->move = move;
    slot->score = (int16_t)tt_score_to(score, ply);
    slot->eval = (int16_t)eval;
    slot->depth = (uint8_t)(depth > 255 ? 255 : depth);
    slot->genbound = (uint8_t)(generation | bound);
}

int tt_hashfull(void)
{
    if (!table)
        return 0;
    size_t buckets = bucket_count < 250 ? bucket_count : 250;
    int used = 0;
    for (size_t i = 0; i < buckets; i++)
        for (int j = 0; j < BUCKET_SIZE; j++)
            if ((table[i].e[j].genbound & 3) != BOUND_NONE && entry_age(&table[i].e[j]) == 0)
                used++;
    return (int)(used * 1000 / (int)(buckets * BUCKET_SIZE));
}
