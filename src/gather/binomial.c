/*
 * Gather, binomial: vrank v's subtree is the run [v, v + lowbit(v)) (the
 * root's: everything). v waits for its children v + 1, v + 2, v + 4, ...
 * (each below lowbit(v)), each bringing its own subtree behind v's block,
 * then sends the whole run to v - lowbit(v) in one message (the tree:
 * plans/binomial.h).
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

const ftc_gather_tree ftc_gather_binomial_tree = { &ftc_binomial_vrank_tree, false };
