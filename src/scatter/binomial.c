/*
 * Scatter, binomial (Open MPI's): vrank v's subtree is the run [v, v +
 * lowbit(v)) (the root's: everything). The root sends each child c the
 * blocks of c's whole subtree in one message, the farthest child (the
 * largest subtree) first; a rank that receives a subtree keeps its own
 * block and passes each of its children theirs the same way (the tree:
 * plans/binomial.h).
 *
 *   n = 6, blocks a..f     0->4 [ef]   0->2 [cd]   0->1 [b]
 *                          4->5 [f]    2->3 [d]
 *
 * A subtree travels packed: the root sends it straight from sendbuf where
 * its blocks lie end to end there (its ranks follow one another with no
 * rank dead among them and no wrap past the last rank: every run from
 * root 0 with nobody dead), else packs it into its room first; a rank
 * with children receives its run into room of its own and unpacks its
 * block; a leaf receives straight into recvbuf.
 *
 * Cost: ceil(log2 n) alpha + (n - 1) m beta at the root, m the bytes of
 * one block, against linear's (n - 1) alpha: fewer, larger messages,
 * which suits small blocks; about (n/2) log2 n blocks travel in all, each
 * rank with children copying its subtree's blocks once more.
 */
#include "algorithms.h"

const ftc_vrank_tree *const ftc_scatter_binomial_tree = &ftc_binomial_vrank_tree;
