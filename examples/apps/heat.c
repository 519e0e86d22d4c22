/*
 * Collectives mixed with point-to-point, as an unmodified MPI program would
 * write them: explicit time steps of the 1-D heat equation, each rank
 * owning a block of cells.
 *
 *   start:          MPI_Bcast of the settings from rank 0
 *   phase 1 (steps): halo exchange with both neighbours (MPI_Sendrecv),
 *                   update, MPI_Allreduce(MAX) of the largest change
 *   phase 2 (rounds): MPI_Allgather of every rank's heat, MPI_Allreduce(SUM)
 *                   of it, MPI_Bcast of rank 0's verdict, MPI_Barrier
 *
 * Usage: heat [cells per rank] [steps] [rounds]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int settings[3] = { argc > 1 ? atoi(argv[1]) : 64, argc > 2 ? atoi(argv[2]) : 50,
                        argc > 3 ? atoi(argv[3]) : 10 };
    MPI_Bcast(settings, 3, MPI_INT, 0, MPI_COMM_WORLD);
    const int cells = settings[0];
    double *u = calloc((size_t)cells + 2, sizeof(double));
    double *v = calloc((size_t)cells + 2, sizeof(double));
    for (int i = 1; i <= cells; i++)
        u[i] = (double)((rank * cells + i) % 29);
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double change = 0;
    for (int step = 0; step < settings[1]; step++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[cells + 1], 1, MPI_DOUBLE, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[cells], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (left == MPI_PROC_NULL)
            u[0] = u[1];
        if (right == MPI_PROC_NULL)
            u[cells + 1] = u[cells];
        double mine = 0;
        for (int i = 1; i <= cells; i++) {
            v[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
            mine = fmax(mine, fabs(v[i] - u[i]));
        }
        for (int i = 1; i <= cells; i++)
            u[i] = v[i];
        MPI_Allreduce(&mine, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    double *heat = malloc(sizeof(double) * (size_t)size);
    long verdict = 0;
    for (int round = 0; round < settings[2]; round++) {
        double mine = 0;
        for (int i = 1; i <= cells; i++)
            mine += u[i] * (round + 1);
        for (int r = 0; r < size; r++)
            heat[r] = -1;   /* a dead rank's block keeps it */
        MPI_Allgather(&mine, 1, MPI_DOUBLE, heat, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        long hot = 0, hottest;
        for (int r = 0; r < size; r++)
            hot += heat[r] > mine;
        MPI_Allreduce(&hot, &hottest, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0)
            verdict = hottest * 1000 + round;
        MPI_Bcast(&verdict, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        printf("heat: last change %.12e, verdict %ld, heat by rank:", change, verdict);
        for (int r = 0; r < size; r++)
            printf(" %.6f", heat[r]);
        printf("\n");
    }
    free(u);
    free(v);
    free(heat);
    MPI_Finalize();
    return 0;
}
