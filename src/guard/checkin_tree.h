/*
 * Guarded collectives: the check-in tree and its timing. Pure C, no MPI.
 *
 * Before a guarded collective every rank checks in along a binomial tree
 * rooted at rank 0: O(log p) rounds, where a star around rank 0 would cost
 * p - 1 messages at one rank:
 *
 *   p = 8        0                up: a rank waits for its children's
 *              / | \                 reports (state, error and warning
 *             1  2  4                counts, silent ranks), adds its own,
 *                |  | \              reports to its parent
 *                3  5  6        down: rank 0 decides (go, stop, abort) and
 *                      |             the decision flows back down
 *                      7
 *
 *   parent(r)   r with its lowest set bit cleared
 *   children(r) r + 2^k for every 2^k below r's lowest set bit (any k for
 *               rank 0), while r + 2^k < p
 *
 * Timing: T is the window granted to a latecomer: ranks are expected to
 * arrive within T of each other.
 *   - A rank whose subtree has height h waits for its children at most
 *     h x T after it arrives. A child arriving up to T later that waits its
 *     own whole window, (h - 1) x T, still reports in time; so the rank
 *     that gives up on a child is always the silent rank's own parent, and
 *     the report names exactly the silent rank.
 *   - A rank waits for the decision at most 1.2 x (H + 1) x T after it
 *     arrives, H the root's height: rank 0 may arrive up to T after it and
 *     wait H x T; the factor 1.2 keeps a waiting rank from giving up
 *     before rank 0, which names the silent ranks, has decided.
 */
#ifndef FTCOLL_GUARD_CHECKIN_TREE_H
#define FTCOLL_GUARD_CHECKIN_TREE_H

enum { FTC_GUARD_MAX_CHILDREN = 31 };   /* log2 of INT_MAX: enough for any p */

typedef struct {
    int rank;
    int parent;                           /* -1 for rank 0 */
    int nchildren;
    int children[FTC_GUARD_MAX_CHILDREN]; /* ascending */
    int height;                           /* of its subtree: 0 for a leaf */
    int depth;                            /* edges from rank 0 */
} ftc_guard_node;

/* Rank `rank`'s place in the check-in tree of p ranks (0 <= rank < p). */
void ftc_guard_node_of(int rank, int p, ftc_guard_node *node);

/* The height of rank 0's subtree (at most ceil(log2 p); 0 for p = 1). */
int ftc_guard_tree_height(int p);

/* How long `node` waits for its children's reports after it arrives. */
double ftc_guard_children_window(const ftc_guard_node *node, double latecomer_window);

/* How long any rank of p waits for the decision after it arrives. */
double ftc_guard_decision_window(int p, double latecomer_window);

/* The window when a job deadline is known: 20% of the time left, so that a
 * check-in that times out still leaves most of the job's time. */
double ftc_guard_window_from_deadline(double seconds_left);

#endif
