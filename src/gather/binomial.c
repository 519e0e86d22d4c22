/*
 * Gather, binomial: vrank v's subtree is the run [v, v + lowbit(v)) (the
 * root's: everything). v waits for its children v + 1, v + 2, v + 4, ...
 * (each below lowbit(v)), each bringing its own subtree behind v's block,
 * then sends the whole run to v - lowbit(v) in one message.
 *
 *   n = 6, blocks a..f     1->0 [b]  3->2 [d]  5->4 [f]
 *                          2->0 [cd] 4->0 [ef]        (0 holds [abcdef])
 *
 * Cost: ceil(log2 n) alpha + (n - 1) m beta at the root, m the bytes of
 * one block; a rank forwards its subtree once, so about (n/2) log2 n
 * blocks travel in all, each rank but the leaves copying its own block
 * beside those it forwards.
 */
#include "algorithms.h"

static int lowest_bit(int v) { return v & -v; }

static int parent(int v, int n)
{
    (void)n;
    return v == 0 ? -1 : v - lowest_bit(v);
}

static int subtree_end(int v, int n)
{
    if (v == 0)
        return n;
    const int end = v + lowest_bit(v);
    return end < n ? end : n;
}

/* v's children are v + 2^i for every 2^i below lowbit(v) (any, at the
 * root) that is a vrank. */
static int children(int v, int n)
{
    int count = 0;
    for (int reach = 1; v + reach < n && (v == 0 || reach < lowest_bit(v)); reach <<= 1)
        count++;
    return count;
}

static int child(int v, int n, int i)
{
    (void)n;
    return v + (1 << i);
}

const ftc_gather_tree ftc_gather_binomial_tree = { parent, subtree_end, children, child, false };
