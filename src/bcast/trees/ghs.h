/*
 * Distributed minimum spanning tree (the GHS algorithm), in which each rank
 * decides from its own channels' latencies and the messages it gets, so the
 * ranks build one tree without a coordinator.
 * Each rank holds one ftc_ghs_node that
 * knows only the latencies of its own channels; nodes exchange Connect,
 * Initiate, Test, Accept, Reject, Report, Change-root and Gosleep until each
 * knows which of its channels are tree edges. Pure C, no MPI: messages leave
 * through an ftc_send_fn (the unit tests' simulator, or the MPI transport)
 * and arrive through ftc_ghs_receive. Channels must be FIFO.
 *
 *   wakeup:  every node at once; its lightest channel becomes Branch, Connect(0)
 *   Connect(L) from j:  L < level  -> absorb: Initiate back
 *                       L == level and j is my Branch -> merge: new core,
 *                                   Initiate(level + 1, core weight, Find)
 *                       otherwise   -> defer until my level rises
 *   Initiate:  adopt level, fragment id, state; pass on along Branch edges;
 *              Find -> test my lightest Basic channel
 *   Test(L, F): L > level -> defer; same fragment -> Reject (or, if I am
 *              testing that channel myself, just mark it Rejected); else Accept
 *   Report(w): convergecast of the fragment's lightest outgoing edge to the core;
 *              both core nodes infinite -> done: the core's lower rank is the
 *              root, Gosleep(root) down the tree; else Change-root towards the
 *              best edge, whose end sends Connect across it
 *
 * Messages that cannot be handled yet are kept in the node and retried
 * whenever its level, fragment or state changes: handling them early would
 * answer for a fragment the node has not joined yet.
 */
#ifndef FTCOLL_BCAST_TREES_GHS_H
#define FTCOLL_BCAST_TREES_GHS_H

#include "msg.h"

typedef enum { FTC_EDGE_BASIC = 0, FTC_EDGE_BRANCH, FTC_EDGE_REJECTED } ftc_edge_state;
typedef enum { FTC_GHS_SLEEPING = 0, FTC_GHS_FIND, FTC_GHS_FOUND } ftc_ghs_state;

typedef struct {
    int self, n;
    double *latency;          /* n: one-way latency of each channel (own copy) */
    unsigned char *edge;      /* n: ftc_edge_state of each channel */
    int *order;               /* n - 1: the peers, lightest channel first */
    int next_basic;           /* index in `order` before which no channel is Basic */
    int level;
    ftc_weight fid;           /* fragment identity: its core edge */
    int state;                /* ftc_ghs_state */
    int best_edge;            /* -1: none yet */
    ftc_weight best_wt;
    int test_edge;            /* -1: none being tested */
    int in_branch;            /* towards the core; after Gosleep, towards the root */
    int find_count;
    ftc_msg *deferred;        /* messages waiting for a higher level etc. */
    int ndeferred, deferred_capacity;
    int done;                 /* Gosleep seen (or sent): `edge` is final */
    int out_of_memory;        /* a message could not be kept: the driver must stop the job */
    int root;                 /* the tree's root, once done */
    int parent;               /* once done: in_branch, -1 at the root */
} ftc_ghs_node;

/* Copies `latency` (n entries; latency[self] ignored). MPI_SUCCESS-style:
 * 0 on success, -1 if out of memory. */
int ftc_ghs_init(ftc_ghs_node *node, int self, int n, const double *latency);
void ftc_ghs_free(ftc_ghs_node *node);

/* Starts the node (every node wakes up at once: the ranks start building
 * together, after the first measurement, so nobody waits to be woken). With
 * n == 1 the node is done at once. */
void ftc_ghs_wakeup(ftc_ghs_node *node, ftc_send_fn send, void *ctx);

/* Handles one message addressed to this node (and whatever it unblocks). */
void ftc_ghs_receive(ftc_ghs_node *node, const ftc_msg *msg, ftc_send_fn send, void *ctx);

static inline int ftc_ghs_done(const ftc_ghs_node *node) { return node->done; }
static inline int ftc_ghs_is_branch(const ftc_ghs_node *node, int peer)
{
    return node->edge[peer] == FTC_EDGE_BRANCH;
}

#endif
