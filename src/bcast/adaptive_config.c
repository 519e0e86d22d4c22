#define _POSIX_C_SOURCE 200809L /* gethostname */
/*
 * ftc_bcast over a tree that follows the network: its configuration.
 *
 *   request:     ftc_bcast_configure's arguments, or FTCOLL_BCAST, FTCOLL_TREE
 *                and FTCOLL_TOPOLOGY at ftc_comm_create, parsed; a topology
 *                file loaded and hashed
 *   set-up:      before any broadcast, so that none pays for the measuring:
 *                agree on the settings, the topology and the sites;
 *                a private communicator and the emulated network on it;
 *                then the first measurement and construction (adaptive.c)
 *
 * What every call does is in adaptive.c.
 */
#include "adaptive_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../comm.h"
#include "../error.h"
#include "../hash.h"

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

int ftc_tree_comm_prepare(ftc_comm_t comm)
{
    return ftc_tree_bcast_wanted(comm) ? ftc_tree_comm_ready(comm->tree, comm) : MPI_SUCCESS;
}
