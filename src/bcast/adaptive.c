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
#include "../ft/ft.h"
#include "../p2p.h"
#include "ft_bcast.h"
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

/* A protocol of the trees' that a death ended: the net's stop said so, or
 * MPI failed a transfer with the dead (ULFM); the broadcast then meets it
 * as every survivor does, so that all still count the call alike. */
static bool stopped_by_a_death(int rc)
{
    return rc == FTC_DETECTED || ftc_ft_is_process_failure(rc);
}

/* GHS over the current latencies (build time). */
static int build_mst(ftc_tree_comm *t)
{
    const double start = ftc_net_now();
    int rc = ftc_mst_build(&t->mst, &t->net, t->latency);
    if (stopped_by_a_death(rc))
        return FTC_DETECTED;
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: building the minimum spanning tree failed "
                                "(the ranks' trees differ, or MPI failed)");
    t->version++;
    t->stats.build_seconds += ftc_net_now() - start;
    return MPI_SUCCESS;
}

/* The set-up is collective over every rank: a death there is not
 * survived, the call that set up fails with the failure's class. */
static int died_in_set_up(void)
{
    return ftc_fail(ftc_ft_failed_class(), "ftc_bcast: a rank died while the tree broadcast "
                                           "was set up (measuring the latencies, building "
                                           "the tree)");
}

int ftc_tree_comm_build(ftc_tree_comm *t)
{
    const double start = ftc_net_now();
    const size_t n = (size_t)t->net.size;
    int rc = ftc_monitor_measure(&t->net, &t->settings, t->site_of, NULL, 0, t->latency);
    if (stopped_by_a_death(rc))
        return died_in_set_up();
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: measuring the latencies failed");
    memcpy(t->smoothed, t->latency, n * n * sizeof *t->latency);
    memcpy(t->setup_latency, t->latency, n * n * sizeof *t->latency);
    note_measurement_error(t, t->latency);
    t->stats.build_seconds += ftc_net_now() - start;
    if (t->alg != FTC_BCAST_ALG_MST) {
        t->version++;
        return MPI_SUCCESS;
    }
    rc = build_mst(t);
    return rc == FTC_DETECTED ? died_in_set_up() : rc;
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
    if (stopped_by_a_death(rc))
        return FTC_DETECTED;
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
        if (stopped_by_a_death(rc))
            return FTC_DETECTED;
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

/* What a tree is built on: the whole network, or the survivors' part of it. */
typedef struct {
    int n;
    const double *latency;         /* n x n */
    const int *site_of;
    const unsigned char *mst;      /* GHS's tree of those latencies, or NULL: Prim's */
    bool may_run_ghs;              /* "tree" choosing the MST builds it by GHS (every rank
                                    * alive: the distributed algorithm needs them all) */
} tree_input;

static tree_input whole_network(const ftc_tree_comm *t)
{
    return (tree_input){ t->net.size, t->latency, t->site_of,
                         t->mst.ready ? t->mst.adjacency : NULL, true };
}

/* The MST rooted at `root`: GHS's tree, or Prim's on the same latencies
 * (the same tree: weights are unique). */
static int mst_tree(const tree_input *in, int root, ftc_tree *tree)
{
    if (in->mst)
        return ftc_tree_from_edges(tree, in->n, root, in->mst, in->latency, 0.0);
    unsigned char *adjacency = malloc((size_t)in->n * (size_t)in->n);
    int rc = adjacency ? ftc_tree_prim(in->n, in->latency, adjacency) : -1;
    if (rc == 0)
        rc = ftc_tree_from_edges(tree, in->n, root, adjacency, in->latency, 0.0);
    free(adjacency);
    return rc;
}

static int build_tree(const tree_input *in, ftc_bcast_alg alg, int root, ftc_tree *tree)
{
    switch (alg) {
    case FTC_BCAST_ALG_BINOMIAL:
        return ftc_tree_binomial(tree, in->n, root);
    case FTC_BCAST_ALG_TWO_LEVEL:
        return ftc_tree_two_level(tree, in->n, root, in->site_of);
    case FTC_BCAST_ALG_MST:
        return mst_tree(in, root, tree);
    case FTC_BCAST_ALG_ECEF:
        return ftc_tree_ecef(tree, in->n, root, in->latency, 0.0);
    default:
        return -1;
    }
}

/* "tree": the MST or the earliest-completion tree, whichever is predicted
 * to finish first (the earliest-completion tree on a tie: it needs no
 * construction). The MST is built by GHS only once it wins. Every rank
 * decides alike: the latencies are the same everywhere. */
static int build_selected(ftc_tree_comm *t, const tree_input *in, int root, ftc_tree *tree,
                          ftc_bcast_alg *used, int *rc)
{
    *rc = MPI_SUCCESS;
    if (t->alg != FTC_BCAST_ALG_TREE) {
        *used = t->alg;
        return build_tree(in, t->alg, root, tree);
    }
    ftc_tree mst;
    memset(&mst, 0, sizeof mst);
    if (build_tree(in, FTC_BCAST_ALG_ECEF, root, tree) != 0 || mst_tree(in, root, &mst) != 0) {
        ftc_tree_free(&mst);
        return -1;
    }
    *used = FTC_BCAST_ALG_ECEF;
    if (ftc_tree_predict(&mst, in->latency, 0.0) < ftc_tree_predict(tree, in->latency, 0.0)) {
        ftc_tree_free(tree);
        *tree = mst;
        *used = FTC_BCAST_ALG_MST;
        if (in->may_run_ghs && !t->mst.ready)
            *rc = build_mst(t);
    } else {
        ftc_tree_free(&mst);
    }
    return 0;
}

/* Into `tree`, for the statistics: the tree's name and predicted time. */
static int build_for_call(ftc_tree_comm *t, const tree_input *in, int root, ftc_tree *tree)
{
    ftc_tree_free(tree);
    ftc_bcast_alg used;
    int rc;
    if (build_selected(t, in, root, tree, &used, &rc) != 0)
        return ftc_fail(MPI_ERR_INTERN, "ftc_bcast: cannot build the %s tree rooted at %d",
                        ftc_bcast_alg_name(t->alg), root);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(t->stats.last_tree, sizeof t->stats.last_tree, "%s", ftc_bcast_alg_name(used));
    t->stats.last_predicted = ftc_tree_needs_latencies(t->alg) || t->have_topology
                                  ? ftc_tree_predict(tree, in->latency, 0.0) : 0.0;
    return MPI_SUCCESS;
}

static int choose_tree(ftc_tree_comm *t, int root)
{
    if (t->tree.parent && t->tree_root == root && t->tree_version == t->version)
        return MPI_SUCCESS;
    const tree_input whole = whole_network(t);
    const int rc = build_for_call(t, &whole, root, &t->tree);
    if (rc == MPI_SUCCESS) {
        t->tree_root = root;
        t->tree_version = t->version;
    }
    return rc;
}

/* --- moving the data (without ULFM: a death is not survived) ------------------------ */

#ifndef FTCOLL_HAVE_ULFM

/* From the parent: its send time first, then the data; held until the
 * channel's latency has passed. */
static int receive_from_parent(ftc_tree_comm *t, void *buf, int count, MPI_Datatype type,
                               int parent)
{
    double sent = 0;
    MPI_Request stamp, data;
    int rc = ftc_p2p_irecv(&sent, 1, MPI_DOUBLE, parent, FTC_TAG_TREE_STAMP, t->comm, &stamp);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_wait(&t->net, &stamp);   /* a spinning MPI_Recv would starve the senders */
    if (rc == MPI_SUCCESS)
        rc = ftc_p2p_irecv(buf, count, type, parent, FTC_TAG_TREE_DATA, t->comm, &data);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_wait(&t->net, &data);
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
        rc2 = ftc_net_wait(&t->net, &requests[i]);
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

#endif

#ifdef FTCOLL_HAVE_ULFM
/* --- surviving deaths ------------------------------------------------------------- */

/* The tree over the survivors (places in the epoch's live ranks), built on
 * the set-up's latencies: every rank holds those alike, whatever
 * measurement a death cut short. Kept while the epoch and root stay. */
static int choose_survivors_tree(ftc_tree_comm *t, const ftc_ft *ft, int root)
{
    const long epoch = ftc_ft_epoch(ft);
    if (t->live_tree.parent && t->live_tree_epoch == epoch && t->live_tree_root == root)
        return MPI_SUCCESS;
    const int k = ftc_ft_live_count(ft);
    double *latency = malloc((size_t)k * (size_t)k * sizeof *latency);
    int *site_of = malloc((size_t)k * sizeof *site_of);
    int rc = MPI_SUCCESS;
    if (!latency || !site_of) {
        rc = ftc_fail(MPI_ERR_NO_MEM, "ftc_bcast: out of memory for the survivors' tree");
    } else {
        ftc_tree_restrict(t->net.size, t->setup_latency, t->site_of, ftc_ft_live_ranks(ft), k,
                          latency, site_of);
        const tree_input survivors = { k, latency, site_of, NULL, false };
        rc = build_for_call(t, &survivors, ftc_ft_epoch_rank(ft, root), &t->live_tree);
    }
    free(latency);
    free(site_of);
    t->live_tree_epoch = rc == MPI_SUCCESS ? epoch : -1;
    t->live_tree_root = root;
    return rc;
}

/* The emulated latency between two places of the epoch. */
typedef struct {
    const ftc_net *net;
    const int *live;
} live_channels;

static double live_latency(const void *context, int from, int to)
{
    const live_channels *c = context;
    return ftc_net_latency(c->net, c->live[from], c->live[to]);
}

/*
 * With ULFM the data moves through the fault-tolerant broadcast, over the
 * tree of this epoch's live ranks: the whole network's while every rank
 * lives (measured, built and adapted as without ULFM), the survivors'
 * after a death. A death inside a call ends it in the engine's recovery,
 * so every survivor ends alike; a measurement or adaptation it cuts short
 * stops on every survivor (the net's stop), and none runs after it.
 */
static int tree_bcast_surviving(ftc_tree_comm *t, void *buf, int count, MPI_Datatype type,
                                const ftc_type_shape *shape, int root, ftc_comm_t comm)
{
    ftc_ft *ft = comm->ft;
    const bool everyone_lives = ftc_ft_live_count(ft) == t->net.size;
    int rc = everyone_lives ? refresh(t) : MPI_SUCCESS;
    bool on_tree = ftc_ft_is_alive(ft, root);
    if (rc == MPI_SUCCESS && on_tree)
        rc = everyone_lives ? choose_tree(t, root) : choose_survivors_tree(t, ft, root);
    if (rc == FTC_DETECTED) {
        /* a death stopped the measurement, the adaptation or GHS, which
         * may have ended elsewhere: this rank's latencies and tree may be
         * other ranks' no more, so it sends nothing and meets the death */
        ftc_ft_note_failure(ft);
        rc = MPI_SUCCESS;
        on_tree = false;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    const live_channels channels = { &t->net, ftc_ft_live_ranks(ft) };
    const ftc_bcast_tree_plan plan = { everyone_lives ? &t->tree : &t->live_tree,
                                       t->have_topology ? live_latency : NULL, &channels };
    if (on_tree) {   /* counted before the call: a recovery may change the epoch */
        const int me = ftc_ft_live_index(ft);
        t->net.counts[FTC_MSG_BCAST] += plan.tree->child_start[me + 1] - plan.tree->child_start[me];
    }
    const double start = ftc_net_now();
    rc = ftc_bcast_fault_tolerant(buf, count, type, shape, root, comm, on_tree ? &plan : NULL);
    t->stats.bcast_seconds += ftc_net_now() - start;
    return rc;
}
#endif

void ftc_tree_bcast_skip(ftc_comm_t comm)
{
    if (!ftc_tree_bcast_wanted(comm))
        return;
    ftc_tree_comm *t = comm->tree;
    t->stats.calls++;
    t->net.epoch = (int)t->stats.calls;
}

int ftc_tree_bcast(void *buf, int count, MPI_Datatype type, const ftc_type_shape *shape, int root,
                   ftc_comm_t comm)
{
    ftc_tree_comm *t = comm->tree;
    int rc = ftc_tree_comm_ready(t, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    t->stats.calls++;
    t->net.epoch = (int)t->stats.calls;
#ifdef FTCOLL_HAVE_ULFM
    return tree_bcast_surviving(t, buf, count, type, shape, root, comm);
#else
    (void)shape;
    rc = refresh(t);
    if (rc == MPI_SUCCESS)
        rc = choose_tree(t, root);
    if (rc == MPI_SUCCESS)
        rc = move_data(t, buf, count, type);
    return rc;
#endif
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
