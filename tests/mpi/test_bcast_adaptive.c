/*
 * ftc_bcast over the trees (binomial, two-level, mst, ecef, tree), on an
 * emulated topology or on the real network: every rank checks every element
 * of the buffer from every root, before and after the topology's scheduled
 * changes (with check=N the MST is re-measured and adapted on the way), for
 * a contiguous type and a strided derived type.
 *
 *   test_bcast_adaptive ALGORITHM SETTINGS TOPOLOGY ROUNDS
 *       TOPOLOGY "-" for none; one round is one broadcast from every root
 *   test_bcast_adaptive --bad WHAT     bad inputs: root, topology, disagree
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"

enum { COUNT = 1000 };

static int value(long call, int root, int i)
{
    return (int)(call * 7919 + root * 104729 + i);
}

/* One broadcast of COUNT ints; returns the number of wrong elements here. */
static int check_contiguous(ftc_comm_t comm, int rank, int root, long call)
{
    int *buf = checked_malloc(COUNT * sizeof *buf);
    for (int i = 0; i < COUNT; i++)
        buf[i] = rank == root ? value(call, root, i) : -1;
    int rc = ftc_bcast(buf, COUNT, MPI_INT, root, comm);
    int wrong = 0;
    if (rc != MPI_SUCCESS) {
        printf("FAIL rank %d: ftc_bcast from %d returned %s: %s\n", rank, root,
               class_name(class_of(rc)), ftc_error_message());
        wrong = COUNT;
    }
    for (int i = 0; i < COUNT && !wrong; i++)
        if (buf[i] != value(call, root, i))
            wrong++;
    if (wrong && rc == MPI_SUCCESS)
        printf("MISMATCH rank %d: call %ld from root %d: %d elements wrong\n", rank, call, root,
               wrong);
    free(buf);
    return wrong;
}

/* Every other int of a 2 x COUNT array: the gaps must stay untouched. */
static int check_strided(ftc_comm_t comm, int rank, int root, long call)
{
    MPI_Datatype every_other;
    mpi_or_die(MPI_Type_vector(COUNT, 1, 2, MPI_INT, &every_other), "MPI_Type_vector");
    mpi_or_die(MPI_Type_commit(&every_other), "MPI_Type_commit");
    int *buf = checked_malloc(2 * COUNT * sizeof *buf);
    for (int i = 0; i < 2 * COUNT; i++)
        buf[i] = rank == root && i % 2 == 0 ? value(call, root, i) : -5;
    int rc = ftc_bcast(buf, 1, every_other, root, comm);
    int wrong = rc == MPI_SUCCESS ? 0 : 2 * COUNT;
    for (int i = 0; i < 2 * COUNT && !wrong; i++)
        if (buf[i] != (i % 2 == 0 ? value(call, root, i) : -5))
            wrong++;
    if (wrong)
        printf("MISMATCH rank %d: strided call %ld from root %d: %d elements wrong (rc %s)\n",
               rank, call, root, wrong, class_name(class_of(rc)));
    free(buf);
    MPI_Type_free(&every_other);
    return wrong;
}

static int run(const char *algorithm, const char *settings, const char *topology, int rounds)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    int rc = ftc_bcast_configure(comm, algorithm, settings, strcmp(topology, "-") ? topology : "");
    if (rc != MPI_SUCCESS) {
        printf("FAIL rank %d: ftc_bcast_configure: %s\n", rank, ftc_error_message());
        return 1;
    }
    int wrong = 0;
    long call = 0;
    for (int round = 0; round < rounds; round++)
        for (int root = 0; root < p; root++)
            wrong += check_contiguous(comm, rank, root, ++call);
    wrong += check_strided(comm, rank, p - 1, ++call);
    ftc_bcast_stats stats;
    ftc_bcast_get_stats(comm, &stats);
    int total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("tree bcast OK: %s, %ld calls from every root, last tree %s, %d changes in %d "
               "rounds\n", algorithm, call, stats.last_tree, stats.changes, stats.rounds);
    ftc_comm_free(&comm);
    return total != 0;
}

/* Bad inputs end alike on every rank with a clear error. */
static int run_bad(const char *what, const char *topology)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    int expected = MPI_ERR_ARG, rc;
    int buf[4] = {1, 2, 3, 4};
    if (strcmp(what, "root") == 0) {
        mpi_or_die(ftc_bcast_configure(comm, "mst", "", topology), "ftc_bcast_configure");
        rc = ftc_bcast(buf, 4, MPI_INT, p, comm);
        expected = MPI_ERR_ROOT;
    } else if (strcmp(what, "topology") == 0) {
        rc = ftc_bcast_configure(comm, "mst", "", topology);
    } else if (strcmp(what, "settings") == 0) {
        rc = ftc_bcast_configure(comm, "mst", "check=-1", "");
    } else {   /* disagree: rank 0 asks for another algorithm (or the topology's size
                * is not the communicator's): configuring fails, or else the call */
        rc = ftc_bcast_configure(comm, rank == 0 ? "binomial" : "mst", "", topology);
        if (rc == MPI_SUCCESS)
            rc = ftc_bcast(buf, 4, MPI_INT, 0, comm);
    }
    int ok = class_of(rc) == expected;
    if (!ok)
        printf("FAIL rank %d: %s: expected %s, got %s (%s)\n", rank, what, class_name(expected),
               class_name(class_of(rc)), ftc_error_message());
    else if (rank == 0)
        printf("message: %s\n", ftc_error_message());
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("tree bcast bad input OK: %s is %s on every rank\n", what, class_name(expected));
    ftc_comm_free(&comm);
    return !all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int failed;
    if (argc == 4 && strcmp(argv[1], "--bad") == 0)
        failed = run_bad(argv[2], strcmp(argv[3], "-") ? argv[3] : "");
    else if (argc == 5)
        failed = run(argv[1], argv[2], argv[3], atoi(argv[4]));
    else {
        fprintf(stderr, "usage: %s ALGORITHM SETTINGS TOPOLOGY|- ROUNDS\n"
                        "       %s --bad root|topology|settings|disagree TOPOLOGY\n",
                argv[0], argv[0]);
        failed = 1;
    }
    MPI_Finalize();
    return failed;
}
