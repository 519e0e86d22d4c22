/*
 * Trees over vranks 0..n-1, vrank 0 the root (pure, no MPI), in which
 * every subtree is a run [v, subtree_end) whose children's runs follow v
 * end to end: one message carries a whole subtree's blocks, up the tree
 * (a gather) or down it (a scatter).
 *
 *   linear     the root the parent of every other vrank
 *                n = 5:  0 <- 1, 2, 3, 4
 *   binomial   plans/binomial.h: v's children v + 1, v + 2, v + 4, ...
 *              below lowbit(v)
 *                n = 6:  0 <- 1   2 <- 3   4 <- 5   0 <- 2   0 <- 4
 */
#ifndef FTCOLL_PLANS_VRANK_TREE_H
#define FTCOLL_PLANS_VRANK_TREE_H

typedef struct {
    int (*parent)(int v, int n);        /* -1 at vrank 0 */
    int (*subtree_end)(int v, int n);   /* vranks [v, end) are v's subtree */
    int (*children)(int v, int n);
    int (*child)(int v, int n, int i);  /* the i-th, nearest first: its run starts
                                         * where the (i-1)-th's ends */
} ftc_vrank_tree;

extern const ftc_vrank_tree ftc_linear_vrank_tree;
extern const ftc_vrank_tree ftc_binomial_vrank_tree;

#endif
