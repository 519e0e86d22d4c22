/* An outside program calling ftcoll's API: allreduce and allgather, every
 * element of every rank checked. Prints "uses_api: ok on P ranks" on rank 0. */
#include <ftcoll.h>
#include <stdio.h>
#include <stdlib.h>

enum { COUNT = 1000 };

static void fail(const char *what, int rc)
{
    fprintf(stderr, "uses_api: %s failed (%d): %s\n", what, rc, ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int check_allreduce(ftc_comm_t comm, int rank, int size)
{
    static long long mine[COUNT], sum[COUNT];
    for (int i = 0; i < COUNT; i++)
        mine[i] = 1000LL * rank + i;
    int rc = ftc_allreduce(mine, sum, COUNT, MPI_LONG_LONG, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        fail("ftc_allreduce", rc);
    int wrong = 0;
    for (int i = 0; i < COUNT; i++)
        wrong += sum[i] != 1000LL * size * (size - 1) / 2 + (long long)i * size;
    return wrong;
}

static int check_allgather(ftc_comm_t comm, int rank, int size)
{
    int mine[2] = {rank, -rank};
    int *all = malloc(2 * (size_t)size * sizeof *all);
    if (!all)
        fail("malloc", MPI_ERR_NO_MEM);
    int rc = ftc_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    if (rc != MPI_SUCCESS)
        fail("ftc_allgather", rc);
    int wrong = 0;
    for (int r = 0; r < size; r++)
        wrong += all[2 * r] != r || all[2 * r + 1] != -r;
    free(all);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ftc_comm_t comm;
    int rc = ftc_comm_create(MPI_COMM_WORLD, &comm);
    if (rc != MPI_SUCCESS)
        fail("ftc_comm_create", rc);
    int wrong = check_allreduce(comm, rank, size) + check_allgather(comm, rank, size);
    rc = ftc_comm_free(&comm);
    if (rc != MPI_SUCCESS)
        fail("ftc_comm_free", rc);
    int wrong_anywhere = 0;
    MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (wrong_anywhere)
            printf("uses_api: %d wrong element(s)\n", wrong_anywhere);
        else
            printf("uses_api: ok on %d ranks\n", size);
    }
    MPI_Finalize();
    return wrong_anywhere != 0;
}
