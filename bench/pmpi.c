/*
 * ftcoll-bench-pmpi: what the PMPI layer adds to a call (docs/pmpi.md).
 *
 *   mpirun -n P ftcoll-bench-pmpi [--rounds R] [--calls K] [--csv FILE]
 *
 * Linked with libftcoll-pmpi, so MPI_Allreduce & co. go through the layer.
 * Per case, two variants of the same call on MPI_COMM_WORLD, interleaved
 * in every round (K calls each, the slowest rank's time per call):
 *
 *   forwarded allreduce  MPI_Allreduce vs PMPI_Allreduce, a user op (not
 *                        commutative: the layer passes it to MPI untouched)
 *   allreduce, allgather, bcast, barrier
 *                        MPI_X through the layer vs ftc_X on the layer's own
 *                        ftcoll communicator
 *
 * The overhead is the difference of the medians over R rounds; the target
 * is below 2% or 0.2 us, whichever is larger.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "median.h"
#include "pmpi/layer.h"

enum { DOUBLES = 8, BCAST_BYTES = 1024, MAX_ROUNDS = 1000 };

static void plain_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((double *)inout)[i] += ((double *)in)[i];
}

typedef struct {
    const char *name;
    int (*through_layer)(void);
    int (*direct)(void);
    const char *direct_name;
} bench_case;

static double in[DOUBLES], out[DOUBLES];
static int *gathered;
static char bytes[BCAST_BYTES];
static MPI_Op user_sum;

static ftc_comm_t world(void) { return layer.world->ftc; }

static int forwarded_layer(void)
{
    return MPI_Allreduce(in, out, 1, MPI_DOUBLE, user_sum, MPI_COMM_WORLD);
}
static int forwarded_native(void)
{
    return PMPI_Allreduce(in, out, 1, MPI_DOUBLE, user_sum, MPI_COMM_WORLD);
}
static int allreduce_layer(void)
{
    return MPI_Allreduce(in, out, DOUBLES, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static int allreduce_api(void)
{
    return ftc_allreduce(in, out, DOUBLES, MPI_DOUBLE, MPI_SUM, world());
}
static int allgather_layer(void)
{
    return MPI_Allgather(&layer.world_rank, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD);
}
static int allgather_api(void)
{
    return ftc_allgather(&layer.world_rank, 1, MPI_INT, gathered, 1, MPI_INT, world());
}
static int bcast_layer(void) { return MPI_Bcast(bytes, BCAST_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD); }
static int bcast_api(void) { return ftc_bcast(bytes, BCAST_BYTES, MPI_BYTE, 0, world()); }
static int barrier_layer(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int barrier_api(void) { return ftc_barrier(world()); }

static const bench_case cases[] = {
    { "forwarded allreduce (user op)", forwarded_layer, forwarded_native, "PMPI_Allreduce" },
    { "allreduce 8 doubles", allreduce_layer, allreduce_api, "ftc_allreduce" },
    { "allgather 1 int", allgather_layer, allgather_api, "ftc_allgather" },
    { "bcast 1 KiB", bcast_layer, bcast_api, "ftc_bcast" },
    { "barrier", barrier_layer, barrier_api, "ftc_barrier" },
};
enum { CASES = sizeof(cases) / sizeof(cases[0]) };

/* Seconds per call of `call` (the slowest rank's), over `calls` calls. */
static double time_calls(int (*call)(void), int calls)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        if (call() != MPI_SUCCESS) {
            fprintf(stderr, "ftcoll-bench-pmpi: a call failed\n");
            PMPI_Abort(MPI_COMM_WORLD, 1);
        }
    double mine = (MPI_Wtime() - start) / calls, slowest;
    PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    int rounds = 30, calls = 200;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: ftcoll-bench-pmpi [--rounds R (1..%d)] [--calls K (>= 1)] "
                            "[--csv FILE]\n", MAX_ROUNDS);
            return 2;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || calls < 1) {
        fprintf(stderr, "ftcoll-bench-pmpi: --rounds must be 1..%d and --calls >= 1\n", MAX_ROUNDS);
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (!layer.world || !layer.world->ftc) {
        fprintf(stderr, "ftcoll-bench-pmpi: the PMPI layer is not active\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Op_create(plain_sum, 0, &user_sum);
    gathered = malloc(sizeof(int) * (size_t)layer.world_size);
    static double layered[CASES][MAX_ROUNDS], direct[CASES][MAX_ROUNDS];
    for (int c = 0; c < CASES; c++) {   /* warm-up: plans, first-use checks */
        time_calls(cases[c].through_layer, 10);
        time_calls(cases[c].direct, 10);
    }
    for (int r = 0; r < rounds; r++) {
        for (int c = 0; c < CASES; c++) {   /* alternate which goes first */
            if (r % 2) {
                direct[c][r] = time_calls(cases[c].direct, calls);
                layered[c][r] = time_calls(cases[c].through_layer, calls);
            } else {
                layered[c][r] = time_calls(cases[c].through_layer, calls);
                direct[c][r] = time_calls(cases[c].direct, calls);
            }
        }
    }
    if (layer.world_rank == 0) {
        FILE *out_csv = csv ? fopen(csv, "a") : NULL;
        if (out_csv && ftell(out_csv) == 0)
            fprintf(out_csv, "ranks,case,direct,layer_us,direct_us,overhead_us,overhead_pct,"
                             "target\n");
        printf("%-30s %-15s %10s %10s %10s %8s %7s\n", "case", "compared with", "layer us",
               "direct us", "overhead", "%", "target");
        for (int c = 0; c < CASES; c++) {
            const double l = bench_median(layered[c], rounds) * 1e6;
            const double d = bench_median(direct[c], rounds) * 1e6;
            const double over = l - d, pct = 100.0 * over / d;
            const double allowed = 0.02 * d > 0.2 ? 0.02 * d : 0.2;
            const char *verdict = over <= allowed ? "PASS" : "MISS";
            printf("%-30s %-15s %10.2f %10.2f %10.3f %8.2f %7s\n", cases[c].name,
                   cases[c].direct_name, l, d, over, pct, verdict);
            if (out_csv)
                fprintf(out_csv, "%d,%s,%s,%.3f,%.3f,%.3f,%.2f,%s\n", layer.world_size,
                        cases[c].name, cases[c].direct_name, l, d, over, pct, verdict);
        }
        printf("ranks %d, medians of %d rounds of %d calls; target: overhead below 2%% or "
               "0.2 us, whichever is larger\n", layer.world_size, rounds, calls);
        if (out_csv)
            fclose(out_csv);
    }
    MPI_Op_free(&user_sum);
    free(gathered);
    MPI_Finalize();
    return 0;
}
