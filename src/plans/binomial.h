/*
 * The binomial tree over vranks 0..n-1 (vrank 0 the root): pure, no MPI.
 * Vrank v's subtree is the run [v, v + lowbit(v)) cut at n (the root's:
 * everything); its children are v + 1, v + 2, v + 4, ... below lowbit(v),
 * and its parent v - lowbit(v). A gather forwards a subtree's blocks up it,
 * a reduce their combination.
 *
 *   n = 6:   0 <- 1      2 <- 3      4 <- 5
 *            0 <- 2      0 <- 4           (depth ceil(log2 n))
 */
#ifndef FTCOLL_PLANS_BINOMIAL_H
#define FTCOLL_PLANS_BINOMIAL_H

static inline int ftc_binomial_lowest_bit(int v) { return v & -v; }

/* -1 at vrank 0. */
static inline int ftc_binomial_parent(int v)
{
    return v == 0 ? -1 : v - ftc_binomial_lowest_bit(v);
}

/* Vranks [v, end) are v's subtree. */
static inline int ftc_binomial_subtree_end(int v, int n)
{
    if (v == 0)
        return n;
    const int end = v + ftc_binomial_lowest_bit(v);
    return end < n ? end : n;
}

/* How many children v has: every v + 2^i below lowbit(v) (any, at the
 * root) that is a vrank. */
static inline int ftc_binomial_children(int v, int n)
{
    int count = 0;
    for (int reach = 1; v + reach < n && (v == 0 || reach < ftc_binomial_lowest_bit(v));
         reach <<= 1)
        count++;
    return count;
}

/* The i-th child, nearest first: v + 2^i. Its subtree is the run
 * [v + 2^i, v + 2^(i+1)) cut at n. */
static inline int ftc_binomial_child(int v, int i) { return v + (1 << i); }

#endif
