/*
 * ftc_bcast over a tree that follows the network: every call (the set-up
 * before the first one is in adaptive_config.c).
 *
 *   measure:     check=N and call % N == 0: measure again (trees/monitor.c);
 *                the channels that moved beyond the threshold are changes;
 *                mst, tree: the distributed adaptation repairs the MST
 *                (trees/adapt.c)
 *   choose:      root the chosen tree at the call's root (trees/shape.h's
 *                builders; "tree": the MST or the earliest-completion tree,
 *                whichever ftc_tree_predict says finishes first; the MST is
 *                built by GHS, trees/mst.c, only once it wins)
 *   move:        the data down the tree, point to point: each rank receives
 *                from its parent, then sends to its children in order; with
 *                a topology each message is held until its channel's latency
 *                has passed since it was sent
 */
#include "adaptive_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../args.h"
#include "../comm.h"
#include "../error.h"
#include "../p2p.h"
#include "trees/monitor.h"

_Static_assert((int)FTC_BCAST_MESSAGE_KINDS == (int)FTC_MSG_KINDS,
               "ftcoll.h's count of message kinds");

/* --- measuring, building, adapting --------------------------------------------- */

/* How far the monitor is from the emulated truth: the measurement noise of
 * this host, which the floor setting must exceed. */
static void note_measurement_error(ftc_tree_comm *t, const double *measured)
{
    if (!t->have_topology)
        return;
    const int n = t->net.size;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            const double error = fabs(measured[a * n + b] - ftc_net_latency(&t->net, a, b));
            if (error > t->stats.worst_error)
                t->stats.worst_error = error;
        }
}

/* GHS over the current latencies (build time). */
static int build_mst(ftc_tree_comm *t)
{
    const double start = ftc_net_now();
    int rc = ftc_mst_build(&t->mst, &t->net, t->latency);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: building the minimum spanning tree failed "
                                "(the ranks' trees differ, or MPI failed)");
    t->version++;
    t->stats.build_seconds += ftc_net_now() - start;
    return MPI_SUCCESS;
}

int ftc_tree_comm_build(ftc_tree_comm *t)
{
    const double start = ftc_net_now();
    const size_t n = (size_t)t->net.size;
    int rc = ftc_monitor_measure(&t->net, &t->settings, t->site_of, NULL, 0, t->latency);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: measuring the latencies failed");
    memcpy(t->smoothed, t->latency, n * n * sizeof *t->latency);
    note_measurement_error(t, t->latency);
    t->stats.build_seconds += ftc_net_now() - start;
    if (t->alg == FTC_BCAST_ALG_MST)
        return build_mst(t);
    t->version++;
    return MPI_SUCCESS;
}

/* check=N: before broadcasts N, 2N, 3N, ...: a measurement costs several
 * broadcasts' time, so a larger N spends less of it measuring and follows
 * the network more slowly. */
static int check_due(const ftc_tree_comm *t)
{
    const int every = t->settings.check_every;
    return every > 0 && t->stats.calls % every == 0;
}

/* smooth=A: the estimate moves by A of the way to each measurement; the
 * changes are judged on the estimate. */
static void smooth(ftc_tree_comm *t)
{
    const double a = t->settings.smooth;
    const size_t cells = (size_t)t->net.size * (size_t)t->net.size;
    for (size_t i = 0; i < cells; i++) {
        t->smoothed[i] = a * t->measured[i] + (1 - a) * t->smoothed[i];
        t->measured[i] = t->smoothed[i];
    }
}

static int measure_and_adapt(ftc_tree_comm *t)
{
    const double start = ftc_net_now();
    int rc = ftc_monitor_measure(&t->net, &t->settings, t->site_of, t->latency,
                                 ++t->measurements, t->measured);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: measuring the latencies failed");
    const double measured = ftc_net_now();
    note_measurement_error(t, t->measured);
    smooth(t);
    t->stats.monitor_seconds += measured - start;
    const int nchanges = ftc_adapt_detect_changes(t->net.size, t->latency, t->measured,
                                                  t->settings.threshold, t->settings.floor,
                                                  t->changes);
    if (t->mst.ready) {
        rc = ftc_mst_adapt(&t->mst, &t->net, nchanges, t->changes);
        if (rc != MPI_SUCCESS)
            return ftc_fail_mpi(rc, "ftc_bcast: adapting the minimum spanning tree failed "
                                    "(the ranks' trees differ, or MPI failed)");
    }
    t->stats.adapt_seconds += ftc_net_now() - measured;
    if (nchanges > 0) {
        t->stats.rounds++;
        t->stats.changes += nchanges;
        t->version++;
    }
    return MPI_SUCCESS;
}

/* The first measurement and the construction were made at set-up. */
static int refresh(ftc_tree_comm *t)
{
    return ftc_tree_needs_latencies(t->alg) && check_due(t) ? measure_and_adapt(t) : MPI_SUCCESS;
}

/* --- choosing the tree ----------------------------------------------------------- */

static int build_tree(ftc_tree_comm *t, ftc_bcast_alg alg, int root, ftc_tree *tree)
{
    const int n = t->net.size;
    switch (alg) {
    case FTC_BCAST_ALG_BINOMIAL:
        return ftc_tree_binomial(tree, n, root);
    case FTC_BCAST_ALG_TWO_LEVEL:
        return ftc_tree_two_level(tree, n, root, t->site_of);
    case FTC_BCAST_ALG_MST:
        return ftc_tree_from_edges(tree, n, root, t->mst.adjacency, t->latency, 0.0);
    case FTC_BCAST_ALG_ECEF:
        return ftc_tree_ecef(tree, n, root, t->latency, 0.0);
    default:
        return -1;
    }
}

/* The MST rooted at `root`: GHS's tree, or, before GHS ran, Prim's on the
 * same latencies (the same tree: weights are unique) for its prediction. */
static int mst_tree(ftc_tree_comm *t, int root, ftc_tree *tree)
{
    if (t->mst.ready)
        return build_tree(t, FTC_BCAST_ALG_MST, root, tree);
    const int n = t->net.size;
    unsigned char *adjacency = malloc((size_t)n * (size_t)n);
    int rc = adjacency ? ftc_tree_prim(n, t->latency, adjacency) : -1;
    if (rc == 0)
        rc = ftc_tree_from_edges(tree, n, root, adjacency, t->latency, 0.0);
    free(adjacency);
    return rc;
}

/* "tree": the MST or the earliest-completion tree, whichever is predicted
 * to finish first (the earliest-completion tree on a tie: it needs no
 * construction). The MST is built by GHS only once it wins. Every rank
 * decides alike: the latencies are the same everywhere. */
static int build_selected(ftc_tree_comm *t, int root, ftc_tree *tree, ftc_bcast_alg *used,
                          int *rc)
{
    *rc = MPI_SUCCESS;
    if (t->alg != FTC_BCAST_ALG_TREE) {
        *used = t->alg;
        return build_tree(t, t->alg, root, tree);
    }
    ftc_tree mst;
    memset(&mst, 0, sizeof mst);
    if (build_tree(t, FTC_BCAST_ALG_ECEF, root, tree) != 0 || mst_tree(t, root, &mst) != 0) {
        ftc_tree_free(&mst);
        return -1;
    }
    *used = FTC_BCAST_ALG_ECEF;
    if (ftc_tree_predict(&mst, t->latency, 0.0) < ftc_tree_predict(tree, t->latency, 0.0)) {
        ftc_tree_free(tree);
        *tree = mst;
        *used = FTC_BCAST_ALG_MST;
        if (!t->mst.ready)
            *rc = build_mst(t);
    } else {
        ftc_tree_free(&mst);
    }
    return 0;
}

static int choose_tree(ftc_tree_comm *t, int root)
{
    if (t->tree.parent && t->tree_root == root && t->tree_version == t->version)
        return MPI_SUCCESS;
    ftc_tree_free(&t->tree);
    ftc_bcast_alg used;
    int rc;
    if (build_selected(t, root, &t->tree, &used, &rc) != 0)
        return ftc_fail(MPI_ERR_INTERN, "ftc_bcast: cannot build the %s tree rooted at %d",
                        ftc_bcast_alg_name(t->alg), root);
    if (rc != MPI_SUCCESS)
        return rc;
    t->tree_root = root;
    t->tree_version = t->version;
    snprintf(t->stats.last_tree, sizeof t->stats.last_tree, "%s", ftc_bcast_alg_name(used));
    t->stats.last_predicted = ftc_tree_needs_latencies(t->alg) || t->have_topology
                                  ? ftc_tree_predict(&t->tree, t->latency, 0.0) : 0.0;
    return MPI_SUCCESS;
}

/* --- moving the data --------------------------------------------------------------- */

/* From the parent: its send time first, then the data; held until the
 * channel's latency has passed. */
static int receive_from_parent(ftc_tree_comm *t, void *buf, int count, MPI_Datatype type,
                               int parent)
{
    double sent = 0;
    MPI_Request stamp, data;
    int rc = ftc_p2p_irecv(&sent, 1, MPI_DOUBLE, parent, FTC_TAG_TREE_STAMP, t->comm, &stamp);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_wait(&stamp);   /* a spinning MPI_Recv would starve the senders */
    if (rc == MPI_SUCCESS)
        rc = ftc_p2p_irecv(buf, count, type, parent, FTC_TAG_TREE_DATA, t->comm, &data);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_wait(&data);
    if (rc == MPI_SUCCESS)
        ftc_net_sleep_until(sent + ftc_net_latency(&t->net, parent, t->net.rank));
    return rc;
}

static int send_to_children(ftc_tree_comm *t, void *buf, int count, MPI_Datatype type)
{
    const ftc_tree *tree = &t->tree;
    const int self = t->net.rank;
    const int first = tree->child_start[self], nchildren = tree->child_start[self + 1] - first;
    if (nchildren == 0)
        return MPI_SUCCESS;
    double *stamps = malloc((size_t)nchildren * sizeof *stamps);
    MPI_Request *requests = malloc((size_t)nchildren * 2 * sizeof *requests);
    if (!stamps || !requests) {
        free(stamps);
        free(requests);
        return MPI_ERR_NO_MEM;
    }
    int rc = MPI_SUCCESS, posted = 0;
    for (int i = 0; i < nchildren && rc == MPI_SUCCESS; i++) {
        const int child = tree->children[first + i];
        stamps[i] = ftc_net_now();
        rc = ftc_p2p_isend(&stamps[i], 1, MPI_DOUBLE, child, FTC_TAG_TREE_STAMP, t->comm,
                           &requests[posted]);
        if (rc == MPI_SUCCESS)
            posted++;
        if (rc == MPI_SUCCESS)
            rc = ftc_p2p_isend(buf, count, type, child, FTC_TAG_TREE_DATA, t->comm,
                               &requests[posted]);
        if (rc == MPI_SUCCESS)
            posted++;
    }
    int rc2 = MPI_SUCCESS;
    for (int i = 0; i < posted && rc2 == MPI_SUCCESS; i++)
        rc2 = ftc_net_wait(&requests[i]);
    t->net.counts[FTC_MSG_BCAST] += nchildren;
    free(stamps);
    free(requests);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int move_data(ftc_tree_comm *t, void *buf, int count, MPI_Datatype type)
{
    const double start = ftc_net_now();
    const int parent = t->tree.parent[t->net.rank];
    int rc = parent < 0 ? MPI_SUCCESS : receive_from_parent(t, buf, count, type, parent);
    if (rc == MPI_SUCCESS)
        rc = send_to_children(t, buf, count, type);
    t->stats.bcast_seconds += ftc_net_now() - start;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_bcast: moving the data down "
                                                              "the tree failed");
}

int ftc_tree_bcast(void *buf, int count, MPI_Datatype type, int root, ftc_comm_t comm)
{
    ftc_tree_comm *t = comm->tree;
    int rc = ftc_tree_comm_ready(t, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    t->stats.calls++;
    t->net.epoch = (int)t->stats.calls;
    rc = refresh(t);
    if (rc == MPI_SUCCESS)
        rc = choose_tree(t, root);
    if (rc == MPI_SUCCESS)
        rc = move_data(t, buf, count, type);
    return rc;
}

int ftc_bcast_get_stats(ftc_comm_t comm, ftc_bcast_stats *stats)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_bcast_get_stats", comm, stats, "stats");
    if (rc != MPI_SUCCESS)
        return rc;
    memset(stats, 0, sizeof *stats);
    if (!comm->tree)
        return MPI_SUCCESS;
    *stats = comm->tree->stats;
    memcpy(stats->sent, comm->tree->net.counts, sizeof stats->sent);
    return MPI_SUCCESS;
}

const char *ftc_bcast_message_name(int kind)
{
    return ftc_msg_kind_name((ftc_msg_kind)kind);
}
