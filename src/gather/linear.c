/*
 * Gather, linear (Open MPI's basic_linear): every rank sends its block
 * straight to the root, which waits for them in rank order.
 *
 *   n = 5, root 0      1->0 [b]   2->0 [c]   3->0 [d]   4->0 [e]
 *                      (posted together; the root takes them in order)
 *
 * Cost: (n - 1) alpha + (n - 1) m beta at the root, m the bytes of one
 * block: every message ends at the root. The fewest hops a block can
 * make, and no rank but the root touches another's block.
 */
#include "algorithms.h"

const ftc_gather_tree ftc_gather_linear_tree = { &ftc_linear_vrank_tree, false };
