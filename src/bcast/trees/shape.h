/*
 * The shape of a broadcast tree, pure C (no MPI): who receives from whom,
 * in what order each rank sends to its children, and how long the
 * broadcast should take over given latencies. The MPI side
 * (bcast/adaptive.c) only walks these.
 *
 * Builders (one file each):
 *   binomial.c   the binomial tree on ranks relative to the root
 *   two_level.c  one wide-area message per site: root -> one coordinator
 *                per other site (flat), then a binomial tree inside each site
 *   ecef.c       earliest completing edge first over measured latencies
 *   shape.c      any spanning tree given as edges (the MST), rooted anywhere
 *
 * The cost model, used by ftc_tree_predict and ecef.c: a rank that got the
 * data at time t sends to its children one after the other, each send
 * taking `gap` seconds of the sender's time; its k-th child (k = 1, 2, ...)
 * has the data at t + k * gap + latency(rank, child).
 */
#ifndef FTCOLL_BCAST_TREES_SHAPE_H
#define FTCOLL_BCAST_TREES_SHAPE_H

typedef struct {
    int n, root;
    int *parent;        /* n: -1 at the root */
    int *child_start;   /* n + 1: children of r are children[child_start[r] .. child_start[r+1]) */
    int *children;      /* n - 1 entries, in each parent's send order */
} ftc_tree;

/* 0 on success, -1 if out of memory (or n < 1). A zeroed ftc_tree may be freed. */
int ftc_tree_alloc(ftc_tree *tree, int n);
void ftc_tree_free(ftc_tree *tree);

/* Fills child_start/children from parent[] (root's parent -1). With `latency`
 * (n x n, row-major, seconds) each rank sends first to the child whose
 * subtree takes longest to finish (then by rank); without, by rank.
 * -1 if parent[] is not a spanning tree rooted at tree->root (or no memory). */
int ftc_tree_index_children(ftc_tree *tree, const double *latency, double gap);

/* The time, from the root's start, at which the last rank has the data
 * (latency may be NULL: all zero); -1 without memory. */
double ftc_tree_predict(const ftc_tree *tree, const double *latency, double gap);

/* 1 if parent[] and the child lists form one spanning tree rooted at root. */
int ftc_tree_is_valid(const ftc_tree *tree);

/* Every rank's arrival time (arrival: n doubles) under the cost model, for a
 * valid tree; latency may be NULL (all zero). 0, or -1 without memory. */
int ftc_tree_arrivals(const ftc_tree *tree, const double *latency, double gap, double *arrival);

/* The cost model's one step: the k-th child of a rank that had the data at
 * `start`. ecef.c and the predictor both use it, so that the predictor
 * reproduces ECEF's arrival times to the last bit. */
static inline double ftc_tree_send_arrival(double start, int k, double gap, double latency)
{
    return start + k * gap + latency;
}

/* The builders: 0 on success, -1 on bad arguments or no memory. Each
 * allocates *tree (free it with ftc_tree_free), overwriting what was there;
 * on failure *tree is left zeroed. */
int ftc_tree_binomial(ftc_tree *tree, int n, int root);
int ftc_tree_two_level(ftc_tree *tree, int n, int root, const int *site_of);
int ftc_tree_ecef(ftc_tree *tree, int n, int root, const double *latency, double gap);
/* adjacency: n x n bytes, symmetric, exactly n - 1 edges forming a tree. */
/* The minimum spanning tree of `latency` by Prim's algorithm, with the
 * weights' tie-breaking of weight.h (so it is the tree GHS builds):
 * for predicting the MST's time without building it. 0, or -1 if no memory. */
int ftc_tree_prim(int n, const double *latency, unsigned char *adjacency);
int ftc_tree_from_edges(ftc_tree *tree, int n, int root, const unsigned char *adjacency,
                        const double *latency, double gap);

/*
 * The network as the survivors of a death see it: the latencies (n x n)
 * and sites of the k live ranks `live` (ascending) of an n-rank network,
 * renumbered 0 .. k - 1 in that order (sub_latency: k x k), so that every
 * builder above makes a tree over the survivors. The MST of those
 * latencies is the network's MST with each dead rank's subtrees
 * re-attached by their cheapest channels: the network's MST edges between
 * survivors all stay (a cheapest edge across a cut of the network is
 * cheapest across the survivors' part of it), and the fewest cheapest
 * channels join what a death cut apart. (survivors.c)
 */
void ftc_tree_restrict(int n, const double *latency, const int *site_of, const int *live, int k,
                       double *sub_latency, int *sub_site_of);

/*
 * Helpers for the builders.
 *
 * Child lists are filled in two passes: count each rank's children, then
 * ftc_tree_start_lists turns the counts into child_start and sets next[r]
 * to the start of r's list (count and next may be the same array), and
 * ftc_tree_add_child appends in send order.
 */
void ftc_tree_start_lists(ftc_tree *tree, const int *count, int *next);
void ftc_tree_add_child(ftc_tree *tree, int *next, int parent, int child);

/* The binomial tree over `size` ranks numbered relative to its root: how
 * many children relative rank v has, and attaching the whole tree,
 * members[v] being the absolute rank of relative rank v (members[0] the
 * subtree's root, whose own parent is left alone). Children are appended
 * largest subtree first, so that the longest branch starts earliest. */
int ftc_tree_binomial_nchildren(int v, int size);
void ftc_tree_binomial_attach(ftc_tree *tree, int *next, const int *members, int size);

#endif
