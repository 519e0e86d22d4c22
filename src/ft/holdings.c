#include "holdings.h"

#include <stdlib.h>
#include <string.h>

bool ftc_holdings_init(ftc_holdings *h, int size)
{
    h->size = size;
    h->words = calloc((size_t)ftc_holdings_words(size > 0 ? size : 1), sizeof(uint64_t));
    return h->words != NULL;
}

void ftc_holdings_destroy(ftc_holdings *h)
{
    free(h->words);
    h->words = NULL;
    h->size = 0;
}

/* The bits set in x, without the library call __builtin_popcountll makes
 * where the target may lack the instruction (every report counts a set). */
static int bits_set(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

int ftc_holdings_count(const ftc_holdings *h)
{
    int n = 0;
    for (int w = 0; w < ftc_holdings_words(h->size); w++)
        n += bits_set(h->words[w]);
    return n;
}

void ftc_holdings_unite(ftc_holdings *into, const ftc_holdings *other)
{
    for (int w = 0; w < ftc_holdings_words(into->size); w++)
        into->words[w] |= other->words[w];
}

bool ftc_holdings_equal(const ftc_holdings *a, const ftc_holdings *b)
{
    return memcmp(a->words, b->words, sizeof(uint64_t) * (size_t)ftc_holdings_words(a->size)) == 0;
}

bool ftc_holdings_disjoint(const ftc_holdings *a, const ftc_holdings *b)
{
    for (int w = 0; w < ftc_holdings_words(a->size); w++)
        if (a->words[w] & b->words[w])
            return false;
    return true;
}

bool ftc_holdings_subset(const ftc_holdings *inner, const ftc_holdings *outer)
{
    for (int w = 0; w < ftc_holdings_words(inner->size); w++)
        if (inner->words[w] & ~outer->words[w])
            return false;
    return true;
}
