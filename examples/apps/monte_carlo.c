/*
 * An embarrassingly parallel Monte Carlo estimate of pi, as an unmodified
 * MPI program would write it: rank 0 broadcasts the settings, every rank
 * throws darts with its own generator, the hits are summed by
 * MPI_Allreduce after every batch.
 *
 * Usage: monte_carlo [batches] [darts per batch per rank]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* splitmix64: the same stream on every machine */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long settings[3] = { argc > 1 ? atol(argv[1]) : 20, argc > 2 ? atol(argv[2]) : 20000, 12345 };
    MPI_Bcast(settings, 3, MPI_LONG, 0, MPI_COMM_WORLD);
    uint64_t state = (uint64_t)settings[2] * 1000003u + (uint64_t)rank;
    long long totals[2] = { 0, 0 };   /* hits, darts: of the ranks alive at each batch */
    for (long batch = 0; batch < settings[0]; batch++) {
        long long mine[2] = { 0, settings[1] }, sums[2];
        for (long d = 0; d < settings[1]; d++) {
            const double x = (double)(next_random(&state) >> 11) / 9007199254740992.0;
            const double y = (double)(next_random(&state) >> 11) / 9007199254740992.0;
            mine[0] += x * x + y * y <= 1.0;
        }
        MPI_Allreduce(mine, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        totals[0] += sums[0];
        totals[1] += sums[1];
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("monte_carlo: %lld hits of %lld darts, pi ~ %.10f\n", totals[0], totals[1],
               4.0 * (double)totals[0] / (double)totals[1]);
    MPI_Finalize();
    return 0;
}
