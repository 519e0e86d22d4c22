/*
 * Scatter, linear (Open MPI's basic_linear; its linear_nb is the same with
 * nonblocking sends, which these are): the root sends every rank its
 * block straight from sendbuf, typed as it gave it, in rank order from its
 * own, wrapping.
 *
 *   n = 5, root 0      0->1 [b]   0->2 [c]   0->3 [d]   0->4 [e]
 *                      (posted together; then the root waits for them)
 *
 * Cost: (n - 1) alpha + (n - 1) m beta at the root, alpha + m beta
 * elsewhere, m the bytes of one block. No block is copied on its way and
 * no rank but the root holds another's, which suits large blocks.
 * ftc_scatterv, whose block sizes only the root knows, runs it always.
 */
#include "algorithms.h"

const ftc_vrank_tree *const ftc_scatter_linear_tree = &ftc_linear_vrank_tree;
