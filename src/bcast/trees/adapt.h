/*
 * Distributed adaptation of the minimum spanning tree when channels get
 * slower (a "failure" of a tree channel) or faster (a "recovery" of a
 * channel off the tree), and the detection of its end. A repair involves
 * only the fragment a change cuts off or the cycle it closes, where
 * rebuilding would run GHS over every channel again, so the tree can follow
 * a changing network at a small cost. Pure C, no MPI.
 *
 * Every rank starts a round with the same list of changed channels, sorted
 * by their ranks (the monitor publishes its measurements to every rank, so
 * every rank knows them). The changes are handled one after the other; each
 * is a single-edge update of an MST, which needs at most one swap:
 *
 *   change k of (a, b), started by a (Privilege from change k-1's last rank)
 *   |
 *   +- tree channel, slower:  C = the child end, P = the parent end
 *   |    C (told by Failure if a is P) cuts its subtree off and becomes its root
 *   |    Reiden     down the cut-off fragment      Reiden-ack  up: its members
 *   |    Findmoe    down, with the members         Moe-report  up: lightest
 *   |               channel leaving the fragment (it may be (C, P) itself)
 *   |    Moe-change down to its end u, turning parents round; u's parent is v
 *   |    Moe-connect across (u, v)    Detach  from v to P, which drops C
 *   |
 *   +- channel off the tree, faster:
 *   |    Id-check   a -> b;   Recovery from a and from b up to the root,
 *   |               each carrying its path and the path's channel latencies
 *   |    the root finds the cycle's heaviest channel (x, y), y below x;
 *   |    if it is heavier than (a, b):
 *   |    Replace    root -> x (drops y) -> y -> ... -> the end below y,
 *   |               each turning its parent round
 *   |    Replace-connect across (a, b)
 *   |
 *   +- otherwise (tree channel faster, channel off the tree slower): nothing
 *   |
 *   the rank that ends change k sends Privilege(k + 1) to its first rank;
 *   after the last change it sends Gosleep-rec to every rank: no rank uses
 *   the tree before that (termination detection).
 *
 * While change k is handled every rank weighs channel j with its new
 * latency if j's change is k or earlier, its old latency otherwise, so each
 * change is handled on the MST of the weights before it: the tree at the end
 * is the MST of the new latencies. A round without changes sends nothing.
 */
#ifndef FTCOLL_BCAST_TREES_ADAPT_H
#define FTCOLL_BCAST_TREES_ADAPT_H

#include <stdint.h>

#include "msg.h"

typedef struct {
    int a, b;           /* a < b */
    double latency;     /* the new one-way latency, seconds */
} ftc_adapt_change;

typedef struct {
    int self, n, root;
    int parent;               /* -1 at the root */
    unsigned char *tree;      /* n: 1 if channel (self, j) is a tree edge */
    double *latency;          /* n: latencies before the round (after it: the new ones) */
    double *new_latency;      /* n: during a round */
    int *change_of;           /* n: index of channel j's change this round, or -1 */
    int nchanges;
    ftc_adapt_change *changes;
    int finished;             /* the round is over here: the tree may be used */
    int out_of_memory;        /* a message could not be built: the driver must stop the job */
    int nwords;               /* 64-bit words of a member bitmap */
    /* the cut-off fragment of a tree channel that got slower */
    int fragment_step;        /* the change it is for, -1 if none */
    int fragment_child, fragment_parent;  /* C and P */
    int pending;              /* acks or reports still awaited */
    uint64_t *members;        /* nwords */
    ftc_weight best;          /* lightest outgoing channel found below */
    int best_via;             /* the child it came from, self if mine */
    /* the root's two Recovery paths of a channel that got faster */
    int recovery_step;
    int recovery_paths;
    uint64_t *path[2];
    int path_words[2];
} ftc_adapt_node;

/* From the construction's result: the tree's root, this rank's parent (-1
 * at the root), which channels are tree edges (n bytes) and the latencies
 * the tree was built on (n). 0 on success, -1 if out of memory. */
int ftc_adapt_init(ftc_adapt_node *node, int self, int n, int root, int parent,
                   const unsigned char *tree, const double *latency);
void ftc_adapt_free(ftc_adapt_node *node);

/* Starts a round on every rank with the same changes, sorted by (a, b),
 * each channel at most once. Without changes the round is over at once.
 * 0 on success, -1 if the list is not sorted or out of memory. */
int ftc_adapt_begin(ftc_adapt_node *node, int nchanges, const ftc_adapt_change *changes,
                    ftc_send_fn send, void *ctx);

void ftc_adapt_receive(ftc_adapt_node *node, const ftc_msg *msg, ftc_send_fn send, void *ctx);

/* The changes from `current` to `measured` (n x n latencies): channels
 * whose latency moved by more than `threshold` (a fraction of the current
 * latency) and more than `floor` seconds, sorted by (a, b); `current` takes
 * their new latencies. Returns how many were written to `changes` (room for
 * n(n-1)/2). */
int ftc_adapt_detect_changes(int n, double *current, const double *measured, double threshold,
                             double floor, ftc_adapt_change *changes);

static inline int ftc_adapt_finished(const ftc_adapt_node *node) { return node->finished; }

#endif
