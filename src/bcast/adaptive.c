#define _POSIX_C_SOURCE 200809L /* gethostname */
/*
 * ftc_bcast over a tree that follows the network.
 *
 *   set-up:      (ftc_bcast_configure, or ftc_comm_create with FTCOLL_BCAST
 *                or FTCOLL_TOPOLOGY set: before any broadcast, so that
 *                none pays for the measuring)
 *                agree on the settings, the topology and the sites
 *                measure every channel (monitor.c), publish the latencies
 *                mst: build the MST with GHS (mst.c); tree: only once the
 *                MST is predicted to beat the earliest-completion tree
 *   every call:  check=N and call % N == 0: measure again; the channels that
 *                moved beyond the threshold are changes; mst, tree: the
 *                distributed adaptation repairs the MST (adapt.c)
 *                root the chosen tree at the call's root (trees/shape.h's builders;
 *                "tree": the MST or the earliest-completion tree, whichever
 *                ftc_tree_predict says finishes first)
 *                the data down the tree, point to point: each rank receives
 *                from its parent, then sends to its children in order; with
 *                a topology each message is held until its channel's latency
 *                has passed since it was sent
 */
#include "adaptive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../comm.h"
#include "../error.h"
#include "../hash.h"
#include "trees/monitor.h"
#include "trees/mst.h"
#include "trees/net.h"
#include "trees/settings.h"
#include "trees/topology.h"
#include "trees/shape.h"

_Static_assert((int)FTC_BCAST_MESSAGE_KINDS == (int)FTC_MSG_KINDS,
               "ftcoll.h's count of message kinds");

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
    double *measured;
    double *smoothed;          /* the running estimate (smooth < 1) */
    ftc_adapt_change *changes;
    int measurements;          /* after the first: numbers the probes */
    ftc_mst mst;
    long version;              /* bumped whenever the latencies or the MST change */
    ftc_tree tree;             /* the last call's tree */
    int tree_root;
    long tree_version;
    ftc_bcast_stats stats;
};

/* --- settings ----------------------------------------------------------------- */

/* The hash of the file's bytes in *hash; 0 if the file cannot be read. */
static int read_file_hash(const char *path, unsigned *hash)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return 0;
    uint64_t h = FTC_HASH_START;
    unsigned char chunk[4096];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, file)) > 0;)
        h = ftc_hash_bytes(h, chunk, n);
    fclose(file);
    *hash = (unsigned)ftc_hash_int(h);
    return 1;
}

static void forget_setup(ftc_tree_comm *t)
{
    ftc_mst_free(&t->mst);
    ftc_tree_free(&t->tree);
    if (t->ready)
        ftc_net_free(&t->net);
    if (t->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&t->comm);
    free(t->site_of);
    free(t->latency);
    free(t->measured);
    free(t->smoothed);
    free(t->changes);
    t->site_of = NULL;
    t->latency = t->measured = t->smoothed = NULL;
    t->changes = NULL;
    t->ready = 0;
    t->comm = MPI_COMM_NULL;
}

static void tree_comm_destroy(ftc_tree_comm *t)
{
    if (!t)
        return;
    forget_setup(t);
    if (t->have_topology)
        ftc_topology_free(&t->topology);
    free(t);
}

/* FTCOLL_TOPOLOGY_SCALE replaces the file's time scale. */
static int apply_scale_override(ftc_topology *topology, char *why, size_t why_size)
{
    const char *text = getenv("FTCOLL_TOPOLOGY_SCALE");
    if (!text || !*text)
        return 1;
    char *end;
    const double scale = strtod(text, &end);
    if (end == text || *end || !(scale > 0) || scale > 1e6) {
        snprintf(why, why_size, "FTCOLL_TOPOLOGY_SCALE=\"%s\": expected a number > 0", text);
        return 0;
    }
    topology->scale = scale;
    return 1;
}

/* A new request; errors name the setting and the reason. */
static int make_request(const char *algorithm, const char *settings, const char *topology,
                        const char *who, ftc_tree_comm **out)
{
    *out = NULL;
    ftc_tree_comm *t = calloc(1, sizeof *t);
    if (!t)
        return ftc_fail(MPI_ERR_NO_MEM, "%s: out of memory", who);
    t->comm = MPI_COMM_NULL;
    char why[512];
    if (!ftc_bcast_alg_parse(algorithm, &t->alg, why, sizeof why)) {
        tree_comm_destroy(t);
        return ftc_fail(MPI_ERR_ARG, "%s: %s", who, why);
    }
    if (!ftc_tree_settings_parse(settings, &t->settings, why, sizeof why)) {
        tree_comm_destroy(t);
        return ftc_fail(MPI_ERR_ARG, "%s: tree settings \"%s\": %s", who, settings, why);
    }
    if (topology && *topology) {
        if (ftc_topology_load(topology, &t->topology, why, sizeof why) != 0) {
            tree_comm_destroy(t);
            return ftc_fail(MPI_ERR_ARG, "%s: topology %s: %s", who, topology, why);
        }
        t->have_topology = 1;
        if (!apply_scale_override(&t->topology, why, sizeof why)) {
            tree_comm_destroy(t);
            return ftc_fail(MPI_ERR_ARG, "%s: %s", who, why);
        }
        if (!read_file_hash(topology, &t->topology_hash))
            t->topology_hash = (unsigned)ftc_hash_int(ftc_hash_text(topology));
        if (t->alg == FTC_BCAST_ALG_AUTO)
            t->alg = FTC_BCAST_ALG_TREE;
    }
    *out = t;
    return MPI_SUCCESS;
}

static const char *env(const char *name)
{
    const char *value = getenv(name);
    return value && *value ? value : NULL;
}

/* The environment's topology applies to the communicators that span every
 * process (their ranks are the file's); others get the algorithm alone. */
static const char *environment_topology(ftc_comm_t comm)
{
    const char *path = env("FTCOLL_TOPOLOGY");
    if (!path || comm->comm == MPI_COMM_NULL)
        return path;
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(comm->comm, MPI_COMM_WORLD, &same);
    return same == MPI_CONGRUENT || same == MPI_IDENT ? path : NULL;
}

int ftc_tree_comm_read_environment(ftc_comm_t comm)
{
    const char *alg = env("FTCOLL_BCAST"), *settings = env("FTCOLL_TREE");
    const char *topology = environment_topology(comm);
    if (!alg && !settings && !topology)
        return MPI_SUCCESS;
    ftc_tree_comm *t;
    int rc = make_request(alg, settings, topology, "FTCOLL_BCAST/FTCOLL_TREE/FTCOLL_TOPOLOGY", &t);
    if (rc != MPI_SUCCESS)
        return rc;
    comm->tree = t;
    return MPI_SUCCESS;
}

int ftc_bcast_configure(ftc_comm_t comm, const char *algorithm, const char *settings,
                        const char *topology)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_bcast_configure: the communicator is NULL");
    ftc_tree_comm *t = NULL;
    int rc = make_request(algorithm ? algorithm : env("FTCOLL_BCAST"),
                          settings ? settings : env("FTCOLL_TREE"),
                          topology ? topology : env("FTCOLL_TOPOLOGY"), "ftc_bcast_configure", &t);
    int bad = rc != MPI_SUCCESS, any_bad = bad;
    int agreed = PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm->comm);
    if (rc == MPI_SUCCESS && (agreed != MPI_SUCCESS || any_bad)) {
        tree_comm_destroy(t);
        return agreed != MPI_SUCCESS
                   ? ftc_fail_mpi(agreed, "ftc_bcast_configure: agreeing failed")
                   : ftc_fail(MPI_ERR_ARG, "ftc_bcast_configure: another rank rejected its "
                                           "arguments");
    }
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ftc_tree_comm_quiesce(comm);   /* the old trees' stragglers, before their comm goes */
    ftc_tree_comm_release(comm);
    comm->tree = t;
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast_configure: retiring the old trees failed");
    return ftc_tree_comm_prepare(comm);
}

int ftc_tree_comm_quiesce(ftc_comm_t comm)
{
    ftc_tree_comm *t = comm->tree;
    return t && t->ready ? ftc_net_quiesce(&t->net) : MPI_SUCCESS;
}

void ftc_tree_comm_release(ftc_comm_t comm)
{
    tree_comm_destroy(comm->tree);
    comm->tree = NULL;
}

int ftc_tree_bcast_wanted(ftc_comm_t comm)
{
    return comm->tree && comm->tree->alg != FTC_BCAST_ALG_AUTO;
}

/* --- set-up, at configuration ------------------------------------------------- */

/* Every rank must ask for the same thing: else the trees would differ and
 * the ranks wait for each other forever. */
static int agree_on_request(ftc_tree_comm *t, ftc_comm_t comm)
{
    const ftc_tree_settings *s = &t->settings;
    const int threshold_ppm = (int)(s->threshold * 1e6 + 0.5);
    const int floor_ns = (int)(s->floor * 1e9 + 0.5);
    const int smooth_ppm = (int)(s->smooth * 1e6 + 0.5);
    enum { SETTINGS = 8 };
    const int mine[SETTINGS] = {(int)t->alg, s->check_every, threshold_ppm, s->probe_cliques,
                                s->pings, floor_ns, smooth_ppm, (int)t->topology_hash};
    int both[2 * SETTINGS], most[2 * SETTINGS];
    for (int i = 0; i < SETTINGS; i++) {
        both[2 * i] = mine[i];
        both[2 * i + 1] = -mine[i];
    }
    int rc = PMPI_Allreduce(both, most, 2 * SETTINGS, MPI_INT, MPI_MAX, comm->comm);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: agreeing on the tree settings failed");
    static const char *const what[SETTINGS] = {"the algorithm (FTCOLL_BCAST)", "check",
                                               "threshold", "probe", "pings", "floor", "smooth",
                                               "the topology file"};
    for (int i = 0; i < SETTINGS; i++)
        if (most[2 * i] != -most[2 * i + 1])
            return ftc_fail(MPI_ERR_ARG, "ftc_bcast: the ranks disagree on %s of the tree "
                            "broadcast: set it alike on every rank", what[i]);
    return MPI_SUCCESS;
}

/* The emulation's clock is this host's: every rank must be on it. */
static int check_one_host(ftc_comm_t comm)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const int h = ftc_hash_int(ftc_hash_text(host)), pair[2] = {h, -h};
    int most[2];
    int rc = PMPI_Allreduce(pair, most, 2, MPI_INT, MPI_MAX, comm->comm);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: comparing hosts failed");
    if (most[0] != -most[1])
        return ftc_fail(MPI_ERR_ARG, "ftc_bcast: an emulated topology needs every rank on one "
                        "host (the delays use its clock); these ranks run on several");
    return MPI_SUCCESS;
}

/* Sites: the topology's, or else the hosts (ranks sharing memory). */
static int find_sites(ftc_tree_comm *t, ftc_comm_t comm)
{
    const int n = comm->size;
    t->site_of = malloc((size_t)n * sizeof *t->site_of);
    if (!t->site_of)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_bcast: out of memory");
    if (t->have_topology) {
        memcpy(t->site_of, t->topology.site_of, (size_t)n * sizeof *t->site_of);
        return MPI_SUCCESS;
    }
    MPI_Comm node;
    int rc = PMPI_Comm_split_type(comm->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int leader = comm->rank;
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Allreduce(&comm->rank, &leader, 1, MPI_INT, MPI_MIN, node);
        PMPI_Comm_free(&node);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allgather(&leader, 1, MPI_INT, t->site_of, 1, MPI_INT, comm->comm);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: finding the hosts failed");
    return MPI_SUCCESS;
}

static int set_up(ftc_tree_comm *t, ftc_comm_t comm)
{
    int rc = agree_on_request(t, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (t->have_topology && t->topology.nranks != comm->size)
        return ftc_fail(MPI_ERR_ARG, "ftc_bcast: the topology has %d ranks, the communicator %d",
                        t->topology.nranks, comm->size);
    if (t->have_topology && (rc = check_one_host(comm)) != MPI_SUCCESS)
        return rc;
    if ((rc = find_sites(t, comm)) != MPI_SUCCESS)
        return rc;
    const size_t n = (size_t)comm->size;
    t->latency = calloc(n * n, sizeof *t->latency);
    t->measured = calloc(n * n, sizeof *t->measured);
    t->smoothed = calloc(n * n, sizeof *t->smoothed);
    t->changes = calloc(n * n / 2 + 1, sizeof *t->changes);
    if (!t->latency || !t->measured || !t->smoothed || !t->changes)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_bcast: out of memory for %zu x %zu latencies", n, n);
    rc = PMPI_Comm_dup(comm->comm, &t->comm);
    if (rc != MPI_SUCCESS) {
        t->comm = MPI_COMM_NULL;
        return ftc_fail_mpi(rc, "ftc_bcast: MPI_Comm_dup failed");
    }
    PMPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    ftc_net_init(&t->net, t->comm, t->have_topology ? &t->topology : NULL);
    t->ready = 1;
    return MPI_SUCCESS;
}

/* --- measuring, building, adapting --------------------------------------------- */

static int needs_latencies(ftc_bcast_alg alg)
{
    return alg == FTC_BCAST_ALG_MST || alg == FTC_BCAST_ALG_ECEF || alg == FTC_BCAST_ALG_TREE;
}

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

static int build_mst(ftc_tree_comm *t);

static int build(ftc_tree_comm *t)
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
    return needs_latencies(t->alg) && check_due(t) ? measure_and_adapt(t) : MPI_SUCCESS;
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
    t->stats.last_predicted = needs_latencies(t->alg) || t->have_topology
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
    int rc = PMPI_Irecv(&sent, 1, MPI_DOUBLE, parent, FTC_NET_TAG_STAMP, t->comm, &stamp);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_wait(&stamp);   /* a spinning MPI_Recv would starve the senders */
    if (rc == MPI_SUCCESS)
        rc = PMPI_Irecv(buf, count, type, parent, FTC_NET_TAG_DATA, t->comm, &data);
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
        rc = PMPI_Isend(&stamps[i], 1, MPI_DOUBLE, child, FTC_NET_TAG_STAMP, t->comm,
                        &requests[posted]);
        if (rc == MPI_SUCCESS)
            posted++;
        if (rc == MPI_SUCCESS)
            rc = PMPI_Isend(buf, count, type, child, FTC_NET_TAG_DATA, t->comm, &requests[posted]);
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

/* Set up, measure and build: before the first broadcast (at configuration,
 * so that no broadcast pays for it), with the latencies of "broadcast 0".
 * Collective. */
static int prepare(ftc_tree_comm *t, ftc_comm_t comm)
{
    if (t->ready)
        return MPI_SUCCESS;
    int rc = set_up(t, comm);
    if (rc == MPI_SUCCESS && needs_latencies(t->alg))
        rc = build(t);
    if (rc != MPI_SUCCESS)
        forget_setup(t);
    return rc;
}

int ftc_tree_comm_prepare(ftc_comm_t comm)
{
    return ftc_tree_bcast_wanted(comm) ? prepare(comm->tree, comm) : MPI_SUCCESS;
}

int ftc_tree_bcast(void *buf, int count, MPI_Datatype type, int root, ftc_comm_t comm)
{
    ftc_tree_comm *t = comm->tree;
    int rc = prepare(t, comm);
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
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_bcast_get_stats: the communicator is NULL");
    if (!stats)
        return ftc_fail(MPI_ERR_ARG, "ftc_bcast_get_stats: stats is NULL");
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
