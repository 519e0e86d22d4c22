/* An MPI program that knows nothing of ftcoll: the four collectives the PMPI
 * layer takes over, every element checked. Prints "unmodified: ok on P ranks"
 * on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { COUNT = 4096 };

static int check_allreduce(int rank, int size)
{
    static long long mine[COUNT], sum[COUNT];
    for (int i = 0; i < COUNT; i++)
        mine[i] = 7LL * rank + i;
    MPI_Allreduce(mine, sum, COUNT, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int wrong = 0;
    for (int i = 0; i < COUNT; i++)
        wrong += sum[i] != 7LL * size * (size - 1) / 2 + (long long)i * size;
    return wrong;
}

static int check_bcast(int rank, int size)
{
    static int data[COUNT];
    int root = size - 1, wrong = 0;
    for (int i = 0; i < COUNT; i++)
        data[i] = rank == root ? 3 * i + 1 : -1;
    MPI_Bcast(data, COUNT, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++)
        wrong += data[i] != 3 * i + 1;
    return wrong;
}

static int check_allgather(int rank, int size)
{
    double mine = rank + 0.5;
    double *all = malloc((size_t)size * sizeof *all);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    int wrong = 0;
    for (int r = 0; r < size; r++)
        wrong += all[r] != r + 0.5;
    free(all);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int wrong = check_allreduce(rank, size) + check_bcast(rank, size)
              + check_allgather(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    int wrong_anywhere = 0;
    MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (wrong_anywhere)
            printf("unmodified: %d wrong element(s)\n", wrong_anywhere);
        else
            printf("unmodified: ok on %d ranks\n", size);
    }
    MPI_Finalize();
    return wrong_anywhere != 0;
}
