/*
 * ftc_bcast over a tree that follows the network: its configuration.
 *
 *   request:     ftc_bcast_configure's arguments, or FTCOLL_BCAST, FTCOLL_TREE
 *                and FTCOLL_TOPOLOGY at ftc_comm_create, parsed; a topology
 *                file loaded and hashed; every rank must ask alike (agreed
 *                with the communicator's settings, or by ftc_bcast_configure)
 *   set-up:      before any broadcast, so that none pays for the measuring:
 *                one host when a topology is emulated, the sites;
 *                a private communicator and the emulated network on it;
 *                then the first measurement and construction (adaptive.c)
 *
 * What every call does is in adaptive.c.
 */
#include "adaptive_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../hash.h"
#include "../agree.h"
#include "../module.h"

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
    ftc_tree_free(&t->live_tree);
    if (t->ready)
        ftc_net_free(&t->net);
    if (t->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&t->comm);
    free(t->site_of);
    free(t->latency);
    free(t->setup_latency);
    free(t->measured);
    free(t->smoothed);
    free(t->changes);
    t->site_of = NULL;
    t->latency = t->setup_latency = t->measured = t->smoothed = NULL;
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

static int tree_read_settings(ftc_comm_t comm)
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

static int tree_quiesce(ftc_comm_t comm);
static void tree_release(ftc_comm_t comm);
static int tree_start(ftc_comm_t comm);

static const char *alg_name(int alg) { return ftc_bcast_alg_name((ftc_bcast_alg)alg); }

/* What every rank must ask for alike: else the trees would differ and the
 * ranks wait for each other forever. No request counts as the defaults. */
static int request_values(const ftc_tree_comm *t, ftc_equal_value *values)
{
    ftc_tree_settings defaults;
    char why[64];
    ftc_tree_settings_parse(NULL, &defaults, why, sizeof why);
    const ftc_tree_settings *s = t ? &t->settings : &defaults;
    int n = 0;
    values[n++] = (ftc_equal_value){ "the broadcast algorithm (FTCOLL_BCAST)",
                                     t ? (int)t->alg : (int)FTC_BCAST_ALG_AUTO, alg_name };
    values[n++] = (ftc_equal_value){ "the tree setting check", s->check_every, NULL };
    values[n++] = (ftc_equal_value){ "the tree setting threshold (ppm)",
                                     (int)(s->threshold * 1e6 + 0.5), NULL };
    values[n++] = (ftc_equal_value){ "the tree setting probe", s->probe_cliques, NULL };
    values[n++] = (ftc_equal_value){ "the tree setting pings", s->pings, NULL };
    values[n++] = (ftc_equal_value){ "the tree setting floor (ns)", (int)(s->floor * 1e9 + 0.5),
                                     NULL };
    values[n++] = (ftc_equal_value){ "the tree setting smooth (ppm)",
                                     (int)(s->smooth * 1e6 + 0.5), NULL };
    values[n++] = (ftc_equal_value){ "the topology file (its hash)",
                                     t ? (int)t->topology_hash : 0, NULL };
    return n;
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
    ftc_equal_value values[FTC_MODULE_AGREED_MAX];
    const int n = request_values(t, values);
    rc = ftc_agree_equal(comm->comm, rc, values, n, "ftc_bcast_configure",
                         "rejected its arguments");
    if (rc != MPI_SUCCESS) {
        tree_comm_destroy(t);
        return rc;
    }
    rc = tree_quiesce(comm);   /* the old trees' stragglers, before their comm goes */
    tree_release(comm);
    comm->tree = t;
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast_configure: retiring the old trees failed");
    return tree_start(comm);
}

/* After a death the trees' messages stopped where they were, and a
 * barrier over the dead would only fail: nothing is drained. */
static int tree_quiesce(ftc_comm_t comm)
{
    ftc_tree_comm *t = comm->tree;
    const bool everyone_lives = ftc_ft_live_count(comm->ft) == comm->size;
    return t && t->ready && everyone_lives ? ftc_net_quiesce(&t->net) : MPI_SUCCESS;
}

static void tree_release(ftc_comm_t comm)
{
    tree_comm_destroy(comm->tree);
    comm->tree = NULL;
}

int ftc_tree_bcast_wanted(ftc_comm_t comm)
{
    return comm->tree && comm->tree->alg != FTC_BCAST_ALG_AUTO;
}

/* --- set-up, at configuration ------------------------------------------------- */

/* The emulation's clock is this host's: every rank must be on it. */
static int check_one_host(ftc_comm_t comm)
{
    const ftc_equal_value host_hash = {
        "the host (an emulated topology's delays use one host's clock: every rank must run "
        "on it)", ftc_hash_int(ftc_hash_host()), NULL };
    return ftc_agree_equal(comm->comm, MPI_SUCCESS, &host_hash, 1, "ftc_bcast",
                           "could not check its host");
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

#ifdef FTCOLL_HAVE_ULFM
/*
 * The net's stop: a death in the epoch, which the broadcast then meets.
 * The trees' communicator is revoked: every transfer in flight on it
 * completes (with an error) on every rank, so a measurement's publication
 * left behind writes into no freed buffer, and a rank still measuring
 * stops too, even before its own sentinel says why. The trees never use
 * it again: after a death nothing is measured.
 */
static int stop_on_a_death(void *context)
{
    ftc_comm_t comm = context;
    if (!ftc_ft_failure_noticed(comm->ft))
        return 0;
    MPIX_Comm_revoke(comm->tree->comm);
    return FTC_DETECTED;
}
#endif

static int set_up(ftc_tree_comm *t, ftc_comm_t comm)
{
    int rc;
    if (t->have_topology && t->topology.nranks != comm->size)
        return ftc_fail(MPI_ERR_ARG, "ftc_bcast: the topology has %d ranks, the communicator %d",
                        t->topology.nranks, comm->size);
    if (t->have_topology && (rc = check_one_host(comm)) != MPI_SUCCESS)
        return rc;
    if ((rc = find_sites(t, comm)) != MPI_SUCCESS)
        return rc;
    const size_t n = (size_t)comm->size;
    t->latency = calloc(n * n, sizeof *t->latency);
    t->setup_latency = calloc(n * n, sizeof *t->setup_latency);
    t->measured = calloc(n * n, sizeof *t->measured);
    t->smoothed = calloc(n * n, sizeof *t->smoothed);
    t->changes = calloc(n * n / 2 + 1, sizeof *t->changes);
    if (!t->latency || !t->setup_latency || !t->measured || !t->smoothed || !t->changes)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_bcast: out of memory for %zu x %zu latencies", n, n);
    rc = PMPI_Comm_dup(comm->comm, &t->comm);
    if (rc != MPI_SUCCESS) {
        t->comm = MPI_COMM_NULL;
        return ftc_fail_mpi(rc, "ftc_bcast: MPI_Comm_dup failed");
    }
    PMPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    ftc_net_init(&t->net, t->comm, t->have_topology ? &t->topology : NULL);
#ifdef FTCOLL_HAVE_ULFM
    t->net.stop = stop_on_a_death;
    t->net.stop_context = comm;
#endif
    t->ready = 1;
    return MPI_SUCCESS;
}

int ftc_tree_comm_ready(ftc_tree_comm *t, ftc_comm_t comm)
{
    if (t->ready)
        return MPI_SUCCESS;
    int rc = set_up(t, comm);
    if (rc == MPI_SUCCESS && ftc_tree_needs_latencies(t->alg))
        rc = ftc_tree_comm_build(t);
    if (rc != MPI_SUCCESS)
        forget_setup(t);
    return rc;
}

/* Measures and builds the trees now, before any broadcast pays for it. */
static int tree_start(ftc_comm_t comm)
{
    return ftc_tree_bcast_wanted(comm) ? ftc_tree_comm_ready(comm->tree, comm) : MPI_SUCCESS;
}

static int tree_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    return request_values(comm->tree, values);
}

const ftc_module ftc_bcast_tree_module = {
    .name = "bcast trees",
    .read_settings = tree_read_settings,
    .agreed = tree_agreed,
    .start = tree_start,
    .quiesce = tree_quiesce,
    .release = tree_release,
};
