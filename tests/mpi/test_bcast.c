/*
 * ftc_bcast without failures: from every root, counts 0 to 100000 (past
 * the eager limit; with FTCOLL_BCAST_PLAN=scatter_ring, every count by
 * scatter and ring allgather), on doubles, on a strided type (every other int: the
 * gaps of every receiver's buffer must stay as they were) and with
 * different (count, type) pairs of one signature on different ranks
 * (as MPI allows: the scatter must cut alike everywhere), back to back so
 * that consecutive calls overlap in flight. Every element of every rank is
 * checked. Rank 0 prints one line:
 *   bcast p=P: N cases, all elements checked
 *
 * Usage: test_bcast [--large COUNT]   (counts above 1000 only up to COUNT)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"

enum { GAP = -7 };

static double element(int root, int count, int i) { return root * 1e6 + count + i * 0.5; }

static int check_doubles(ftc_comm_t comm, int rank, int root, int count)
{
    double *data = checked_malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    for (int i = 0; i < count; i++)
        data[i] = rank == root ? element(root, count, i) : -1.0;
    mpi_or_die(ftc_bcast(data, count, MPI_DOUBLE, root, comm), "ftc_bcast (doubles)");
    int wrong = 0;
    for (int i = 0; i < count && !wrong; i++) {
        if (data[i] != element(root, count, i)) {
            fprintf(stderr, "MISMATCH rank %d: root %d count %d element %d: %g\n", rank, root,
                    count, i, data[i]);
            wrong = 1;
        }
    }
    free(data);
    return wrong;
}

/* Every other int: the receivers' gaps keep GAP. */
static int check_strided(ftc_comm_t comm, int rank, int root, int count)
{
    MPI_Datatype every_other;
    MPI_Type_vector(count > 0 ? count : 1, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int *data = checked_malloc(sizeof(int) * (size_t)(2 * count + 1));
    for (int i = 0; i < 2 * count + 1; i++)
        data[i] = i % 2 == 0 && rank == root ? root * 100000 + i : GAP;
    mpi_or_die(ftc_bcast(data, count > 0 ? 1 : 0, every_other, root, comm), "ftc_bcast (strided)");
    int wrong = 0;
    for (int i = 0; i < 2 * count && !wrong; i++) {
        const int want = i % 2 == 0 ? root * 100000 + i : GAP;
        if (data[i] != want) {
            fprintf(stderr, "MISMATCH rank %d: strided root %d count %d int %d: %d, expected "
                    "%d\n", rank, root, count, i, data[i], want);
            wrong = 1;
        }
    }
    MPI_Type_free(&every_other);
    free(data);
    return wrong;
}

/* Same type signature, different (count, type) on different ranks, as MPI
 * allows: odd ranks pass one contiguous block of `count` doubles, even
 * ranks `count` doubles. */
static int check_mixed(ftc_comm_t comm, int rank, int root, int count)
{
    MPI_Datatype block;
    MPI_Type_contiguous(count > 0 ? count : 1, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
    double *data = checked_malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    for (int i = 0; i < count; i++)
        data[i] = rank == root ? element(root, count, i) : -1.0;
    const int rc = rank % 2 ? ftc_bcast(data, count > 0 ? 1 : 0, block, root, comm)
                            : ftc_bcast(data, count, MPI_DOUBLE, root, comm);
    mpi_or_die(rc, "ftc_bcast (mixed count and type)");
    int wrong = 0;
    for (int i = 0; i < count && !wrong; i++) {
        if (data[i] != element(root, count, i)) {
            fprintf(stderr, "MISMATCH rank %d: mixed root %d count %d element %d: %g\n", rank,
                    root, count, i, data[i]);
            wrong = 1;
        }
    }
    MPI_Type_free(&block);
    free(data);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p, large = 100000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc == 3 && strcmp(argv[1], "--large") == 0)
        large = atoi(argv[2]);
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    const int counts[] = { 0, 1, 7, 1000, 20000, 100000 };
    int wrong = 0, cases = 0;
    for (int c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); c++) {
        if (counts[c] > 1000 && counts[c] > large)
            continue;
        for (int root = 0; root < p; root++) {
            wrong += check_doubles(comm, rank, root, counts[c]);
            wrong += check_strided(comm, rank, root, counts[c] < 5000 ? counts[c] : 5000);
            wrong += check_mixed(comm, rank, root, counts[c]);
            cases += 3;
        }
    }
    int total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("bcast p=%d: %d cases, all elements checked\n", p, cases);
    else if (rank == 0)
        printf("FAIL bcast p=%d: %d wrong\n", p, total);
    ftc_comm_free(&comm);
    MPI_Finalize();
    return total != 0;
}
