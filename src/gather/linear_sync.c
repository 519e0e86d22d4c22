/*
 * Gather, linear_sync (Open MPI's): linear's tree (linear.c), but a rank sends its
 * block only once the root asked for it with an empty message, so that
 * large blocks arrive one at a time into a posted receive instead of all
 * at once into the root's unexpected-message queue.
 *
 *   n = 4, root 0      0->1 [ ]  1->0 [b]   0->2 [ ]  2->0 [c]   0->3 [ ]  3->0 [d]
 *                      (the root posts every receive, then asks each rank in turn)
 *
 * Cost: 2 (n - 1) alpha + (n - 1) m beta at the root; the asks overlap
 * the blocks still on their way.
 */
#include "algorithms.h"

const ftc_gather_tree ftc_gather_linear_sync_tree = { &ftc_linear_vrank_tree, true };
