/*
 * An iterative solver, as an unmodified MPI program would write it: Jacobi
 * iterations on A x = b, A diagonally dominant (n x n, generated the same
 * way on every rank), each rank owning a block of rows.
 *
 *   per iteration:  x_new[my rows] = (b - (A - D) x) / D     local
 *                   MPI_Allreduce(SUM) of the vector (zeros outside my rows)
 *                   MPI_Allreduce(MAX) of my largest change
 *
 * Usage: jacobi [n] [tolerance]    prints iterations and the solution's sums
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double entry(int i, int j, int n)
{
    if (i == j)
        return 2.0 * n;
    return 1.0 + (double)((i * 7 + j * 13) % 10) / 10.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 200;
    double tolerance = argc > 2 ? atof(argv[2]) : 1e-10;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&tolerance, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    const int first = (int)((long)n * rank / size), last = (int)((long)n * (rank + 1) / size);
    double *x = calloc((size_t)n, sizeof(double)), *next = calloc((size_t)n, sizeof(double));
    int iterations = 0;
    double change = INFINITY;
    while (change > tolerance && iterations < 1000) {
        double mine = 0;
        for (int i = 0; i < n; i++)
            next[i] = 0;
        for (int i = first; i < last; i++) {
            double sum = (double)(i % 17) - 8.0;   /* b[i] */
            for (int j = 0; j < n; j++)
                if (j != i)
                    sum -= entry(i, j, n) * x[j];
            next[i] = sum / entry(i, i, n);
            mine = fmax(mine, fabs(next[i] - x[i]));
        }
        MPI_Allreduce(next, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        iterations++;
    }
    double total = 0, weighted = 0;
    for (int i = 0; i < n; i++) {
        total += x[i];
        weighted += x[i] * (i + 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("jacobi n=%d: %d iterations, sum(x)=%.12e, sum(i*x)=%.12e\n", n, iterations,
               total, weighted);
    free(x);
    free(next);
    MPI_Finalize();
    return 0;
}
