/*
 * The minimum spanning tree over MPI: GHS (ghs.c) to build it, the
 * adaptation (adapt.c) to repair it, both driven over the emulated network
 * (net.c) until the rank's part is done; then every rank publishes its tree
 * edges, so that each can root the tree anywhere and predict its broadcast
 * time, and all check they hold the same tree.
 */
#ifndef FTCOLL_BCAST_TREES_MST_H
#define FTCOLL_BCAST_TREES_MST_H

#include "adapt.h"
#include "net.h"

typedef struct {
    int n, root, parent;
    unsigned char *adjacency;   /* n x n: every rank's tree edges, published */
    ftc_adapt_node adapt;       /* this rank's part, kept between rounds */
    int ready;
} ftc_mst;

/* Builds the tree on the latencies `latency` (n x n, the same on every
 * rank; each rank uses only its own row). Collective. */
int ftc_mst_build(ftc_mst *mst, ftc_net *net, const double *latency);

/* Handles the changes (the same list on every rank). Collective. */
int ftc_mst_adapt(ftc_mst *mst, ftc_net *net, int nchanges, const ftc_adapt_change *changes);

void ftc_mst_free(ftc_mst *mst);

#endif
