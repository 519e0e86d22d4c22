/*
 * Holdings: which original ranks' contributions a partial result covers, as
 * a set of ranks. Pure C, no MPI.
 *
 * The fault-tolerant allreduce tracks, for every partial value, the set of
 * original ranks whose inputs it combines. Sets only ever grow by the union
 * of disjoint sets, so a value never counts a contribution twice, and after
 * a failure the survivors' holdings say exactly which contributions still
 * exist somewhere.
 */
#ifndef FTCOLL_FT_HOLDINGS_H
#define FTCOLL_FT_HOLDINGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int size;          /* ranks 0..size-1 */
    uint64_t *words;   /* bit r set: rank r's contribution is included */
} ftc_holdings;

static inline int ftc_holdings_words(int size) { return (size + 63) / 64; }

/* Empty set over `size` ranks; false if out of memory. */
bool ftc_holdings_init(ftc_holdings *h, int size);
void ftc_holdings_destroy(ftc_holdings *h);

int ftc_holdings_count(const ftc_holdings *h);

/* Inline: every call of a collective clears, adds, asks or copies a set. */
static inline void ftc_holdings_clear(ftc_holdings *h)
{
    for (int w = 0; w < ftc_holdings_words(h->size); w++)
        h->words[w] = 0;
}

static inline void ftc_holdings_add(ftc_holdings *h, int rank)
{
    h->words[rank / 64] |= UINT64_C(1) << (rank % 64);
}

static inline bool ftc_holdings_has(const ftc_holdings *h, int rank)
{
    return (h->words[rank / 64] >> (rank % 64)) & 1u;
}

/* Keeps the ranks below `end` only. */
static inline void ftc_holdings_keep_below(ftc_holdings *h, int end)
{
    for (int w = 0; w < ftc_holdings_words(h->size); w++) {
        const int first = 64 * w;
        if (first >= end)
            h->words[w] = 0;
        else if (end - first < 64)
            h->words[w] &= (UINT64_C(1) << (end - first)) - 1;
    }
}

static inline void ftc_holdings_copy(ftc_holdings *to, const ftc_holdings *from)
{
    for (int w = 0; w < ftc_holdings_words(from->size); w++)
        to->words[w] = from->words[w];
}

void ftc_holdings_unite(ftc_holdings *into, const ftc_holdings *other);
bool ftc_holdings_equal(const ftc_holdings *a, const ftc_holdings *b);
bool ftc_holdings_disjoint(const ftc_holdings *a, const ftc_holdings *b);
bool ftc_holdings_subset(const ftc_holdings *inner, const ftc_holdings *outer);

#endif
