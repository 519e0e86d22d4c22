/*
 * Broadcast, binomial tree: blind to the network, the baseline the
 * network-aware trees are measured against.
 *
 * Ranks are renumbered relative to the root, v = (r - root + n) % n, so the
 * root is 0. A rank receives from v with its lowest set bit cleared, then
 * sends to v + 2^k for every 2^k below its lowest set bit (any 2^k for the
 * root) that stays below n, the largest 2^k first: that child heads the
 * largest subtree, so it should start earliest.
 *
 *   n = 8, root 0     step 1: 0 -> 4
 *          0          step 2: 0 -> 2, 4 -> 6
 *        / | \        step 3: 0 -> 1, 2 -> 3, 4 -> 5, 6 -> 7
 *       4  2  1
 *      / \  \         root's send order 4, 2, 1; 4's: 6, 5; 2's: 3
 *     6   5  3
 *     |
 *     7               depth of v: its number of set bits, <= ceil(log2 n)
 *
 * For another root every label shifts by root (mod n).
 */
#include <stdlib.h>
#include <string.h>

#include "shape.h"

/* The largest 2^k v may send to: half its lowest set bit, or, for the
 * subtree's root, the largest power of two below size. 0: a leaf. */
static long top_step(long v, long size)
{
    if (v > 0)
        return (v & -v) >> 1;
    long step = size > 1 ? 1 : 0;
    while (step > 0 && 2 * step < size)
        step *= 2;
    return step;
}

int ftc_tree_binomial_nchildren(int v, int size)
{
    int count = 0;
    for (long step = top_step(v, size); step > 0; step >>= 1)
        count += (long)v + step < size;
    return count;
}

void ftc_tree_binomial_attach(ftc_tree *tree, int *next, const int *members, int size)
{
    for (int v = 0; v < size; v++)
        for (long step = top_step(v, size); step > 0; step >>= 1)
            if ((long)v + step < size)
                ftc_tree_add_child(tree, next, members[v], members[v + step]);
}

int ftc_tree_binomial(ftc_tree *tree, int n, int root)
{
    if (!tree)
        return -1;
    if (n < 1 || root < 0 || root >= n || ftc_tree_alloc(tree, n) != 0) {
        memset(tree, 0, sizeof(*tree));
        return -1;
    }
    int *members = malloc((size_t)n * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    if (!members || !next) {
        free(members);
        free(next);
        ftc_tree_free(tree);
        return -1;
    }
    tree->root = root;
    for (int v = 0; v < n; v++) {
        members[v] = (int)(((long)v + root) % n);
        next[members[v]] = ftc_tree_binomial_nchildren(v, n);
    }
    ftc_tree_start_lists(tree, next, next);
    ftc_tree_binomial_attach(tree, next, members, n);
    free(members);
    free(next);
    return 0;
}
