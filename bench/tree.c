#define _POSIX_C_SOURCE 200809L /* nanosleep */
/*
 * ftcoll-bench tree: one scenario of the thesis's chapter 4, one broadcast
 * algorithm: a synthetic application that broadcasts N times from one root
 * over an emulated network whose latencies change on the topology file's
 * schedule. Prints one line of results (scripts/bench-tree.sh makes the
 * table and the chart of all scenarios):
 *
 *   RESULT algorithm=mst check=4 threshold=0 bcasts=20 build=... monitor=...
 *          adapt=... bcast=... total=... changes=... rounds=... messages by kind
 *
 * Times are seconds, the largest over the ranks (as the thesis reports);
 * message counts are summed over the ranks. Every broadcast's data is
 * checked on every rank. The ranks meet (MPI_Barrier, outside the emulated
 * network) before each broadcast, as after a step of computation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "bench.h"
#include "ftcoll.h"

typedef struct {
    const char *topology, *algorithm, *settings;
    int bcasts, root, count;
} tree_options;

static int parse_options(int argc, char **argv, tree_options *o)
{
    *o = (tree_options){NULL, "tree", "", 16, 12, 6};   /* 24 bytes, as the thesis */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!next)
            return bench_usage_error("tree", "option %s needs a value", arg);
        if (strcmp(arg, "--topology") == 0)
            o->topology = next;
        else if (strcmp(arg, "--algorithm") == 0)
            o->algorithm = next;
        else if (strcmp(arg, "--settings") == 0)
            o->settings = next;
        else if (strcmp(arg, "--bcasts") == 0)
            o->bcasts = atoi(next);
        else if (strcmp(arg, "--root") == 0)
            o->root = atoi(next);
        else if (strcmp(arg, "--count") == 0)
            o->count = atoi(next);
        else
            return bench_usage_error("tree", "unknown option %s (--topology FILE --algorithm A "
                                     "--settings S --bcasts N --root R --count INTS)", arg);
        i++;
    }
    if (!o->topology || o->bcasts < 1 || o->count < 1)
        return bench_usage_error("tree", "--topology is required; --bcasts and --count >= 1");
    return BENCH_OK;
}

/* MPI_Barrier without spinning: 24 ranks spinning on 2 cores would make
 * the barrier, not the broadcasts, the application's cost. */
static void meet(void)
{
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    for (int done = 0; !done;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (!done) {
            struct timespec nap = {0, 100000};
            nanosleep(&nap, NULL);
        }
    }
}

static int broadcast_all(ftc_comm_t comm, const tree_options *o, int rank, double *total)
{
    int *buf = malloc((size_t)o->count * sizeof *buf);
    if (!buf)
        return 1;
    int wrong = 0;
    const double start = MPI_Wtime() - *total;
    for (int call = 1; call <= o->bcasts && !wrong; call++) {
        for (int i = 0; i < o->count; i++)
            buf[i] = rank == o->root ? call * 1000 + i : -1;
        /* an application step between broadcasts: without it consecutive
         * broadcasts pipeline and the trees' times cannot be told apart */
        meet();
        if (ftc_bcast(buf, o->count, MPI_INT, o->root, comm) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL rank %d: ftc_bcast: %s\n", rank, ftc_error_message());
            wrong = 1;
        }
        for (int i = 0; i < o->count && !wrong; i++)
            wrong = buf[i] != call * 1000 + i;
    }
    *total = MPI_Wtime() - start;
    free(buf);
    return wrong;
}

static void report(const tree_options *o, const ftc_bcast_stats *s, double total, int rank)
{
    double mine[7] = {s->build_seconds, s->monitor_seconds, s->adapt_seconds, s->bcast_seconds,
                      total, s->worst_error, s->last_predicted}, most[7];
    long sent[FTC_BCAST_MESSAGE_KINDS];
    MPI_Reduce(mine, most, 7, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(s->sent, sent, FTC_BCAST_MESSAGE_KINDS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    printf("RESULT algorithm=%s settings=%s bcasts=%d build=%.4f monitor=%.4f adapt=%.4f "
           "bcast=%.4f total=%.4f changes=%d rounds=%d tree=%s predicted=%.4f worst_error=%.5f",
           o->algorithm, *o->settings ? o->settings : "-", o->bcasts, most[0], most[1], most[2],
           most[3], most[4], s->changes, s->rounds, s->last_tree, most[6], most[5]);
    for (int k = 0; k < FTC_BCAST_MESSAGE_KINDS; k++)
        if (sent[k])
            printf(" %s=%ld", ftc_bcast_message_name(k), sent[k]);
    printf("\n");
}

int bench_tree_main(int argc, char **argv)
{
    tree_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != BENCH_OK)
        return rc;
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    ftc_comm_t comm;
    int failed = ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD);
    const double configured = MPI_Wtime();
    if (!failed && ftc_bcast_configure(comm, o.algorithm, o.settings, o.topology) != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "ftcoll-bench tree: %s\n", ftc_error_message());
        failed = 1;
    }
    if (!failed && (o.root < 0 || o.root >= p))
        o.root = 0;
    double total = MPI_Wtime() - configured;   /* the construction is the application's */
    if (!failed)
        failed = broadcast_all(comm, &o, rank, &total);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) {
        ftc_bcast_stats stats;
        ftc_bcast_get_stats(comm, &stats);
        report(&o, &stats, total, rank);
    }
    if (comm)
        ftc_comm_free(&comm);
    MPI_Finalize();
    return any ? BENCH_FAILED : BENCH_OK;
}
