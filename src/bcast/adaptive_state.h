/*
 * The state of the tree broadcast on one communicator, shared by its
 * configuration (adaptive_config.c: the request, the ranks' agreement, the
 * set-up) and its calls (adaptive.c: measuring, adapting, choosing the
 * tree, moving the data).
 */
#ifndef FTCOLL_BCAST_ADAPTIVE_STATE_H
#define FTCOLL_BCAST_ADAPTIVE_STATE_H

#include <mpi.h>

#include "adaptive.h"
#include "ftcoll.h"
#include "trees/adapt.h"
#include "trees/mst.h"
#include "trees/net.h"
#include "trees/settings.h"
#include "trees/shape.h"
#include "trees/topology.h"

struct ftc_tree_comm {
    /* as requested (environment or ftc_bcast_configure) */
    ftc_bcast_alg alg;
    ftc_tree_settings settings;
    ftc_topology topology;
    int have_topology;
    unsigned topology_hash;    /* of the file's text: ranks must use the same file */
    /* set up at configuration (measured and built there when the algorithm
     * needs latencies) */
    int ready;
    MPI_Comm comm;
    ftc_net net;
    int *site_of;
    double *latency;           /* the latencies the trees are built on */
    double *setup_latency;     /* those of the set-up: after a death the survivors' trees
                                * are built on them, which every rank holds alike whatever
                                * measurement the death cut short */
    double *measured;
    double *smoothed;          /* the running estimate (smooth < 1) */
    ftc_adapt_change *changes;
    int measurements;          /* after the first: numbers the probes */
    ftc_mst mst;
    long version;              /* bumped whenever the latencies or the MST change */
    ftc_tree tree;             /* the last call's tree, every rank alive */
    int tree_root;
    long tree_version;
    ftc_tree live_tree;        /* after a death: the survivors' (ULFM epoch places) */
    long live_tree_epoch;
    int live_tree_root;
    ftc_bcast_stats stats;
};

/* Whether `alg` builds its trees on measured latencies. */
static inline int ftc_tree_needs_latencies(ftc_bcast_alg alg)
{
    return alg == FTC_BCAST_ALG_MST || alg == FTC_BCAST_ALG_ECEF || alg == FTC_BCAST_ALG_TREE;
}

/* Sets up, measures and builds, once: before the first broadcast (at
 * configuration, so that no broadcast pays for it), with the latencies of
 * "broadcast 0". Collective. (adaptive_config.c) */
int ftc_tree_comm_ready(ftc_tree_comm *t, ftc_comm_t comm);

/* The first measurement, and with mst the MST built on it. Collective.
 * (adaptive.c) */
int ftc_tree_comm_build(ftc_tree_comm *t);

#endif
