/*
 * ftcoll-bench-native: the collectives as users time them. Back-to-back
 * calls, no barrier between them, through the PMPI layer (what an
 * unmodified program gets under ftcrun) against MPI's own (PMPI_), in the
 * same run.
 *
 *   mpirun -n P ftcoll-bench-native [--min-bytes 4] [--max-bytes 1M]
 *          [--rounds R] [--block-seconds S] [--csv FILE] [--only COLLECTIVE]
 *
 * Linked with libftcoll-pmpi: MPI_Allreduce & co. go through the layer,
 * PMPI_Allreduce & co. straight to MPI. Per collective and size:
 *
 *   check   one call of each side on a known pattern; the results must be
 *           equal byte for byte (a wrong result ends the run, status 1)
 *   size    the number of calls K of a block: as many as fit in S seconds
 *           of native calls (3..2000)
 *   rounds  R rounds, each a block of K calls through the layer and one of
 *           K native calls, their order alternating; a block's time is its
 *           slowest rank's, per call
 *
 * Reported: the median over the rounds of each side, and their ratio,
 * layer / native. Sizes are bytes per rank: the vector of an allreduce or
 * a reduce to root 0 (MPI_FLOAT, MPI_SUM), each rank's input of a scan or
 * an exscan (MPI_FLOAT, MPI_SUM), the block of a
 * reduce_scatter(_block) (MPI_FLOAT, MPI_SUM, p of them), of an allgather(v),
 * a gather(v) (to root 0), a scatter(v) (from root 0) or an alltoall(v)
 * (each rank's for each rank), the message of a
 * broadcast (MPI_BYTE, root 0); a barrier has none (0).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "median.h"

enum { MAX_ROUNDS = 200, MIN_CALLS = 3, MAX_CALLS = 2000 };

static int rank, size;
static char *send_buf, *layer_buf, *native_buf;

/* One collective at `bytes` bytes per rank, into `out`: through the layer
 * (MPI_) or to MPI itself (PMPI_). */
typedef int (*collective_call)(int bytes, char *out, int native);

static int allreduce(int bytes, char *out, int native)
{
    const int count = bytes / (int)sizeof(float);
    return native ? PMPI_Allreduce(send_buf, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
                  : MPI_Allreduce(send_buf, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* The vector of an allreduce, to root 0. */
static int reduce(int bytes, char *out, int native)
{
    const int count = bytes / (int)sizeof(float);
    return native ? PMPI_Reduce(send_buf, out, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD)
                  : MPI_Reduce(send_buf, out, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}

static int allgather(int bytes, char *out, int native)
{
    return native ? PMPI_Allgather(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, MPI_COMM_WORLD)
                  : MPI_Allgather(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, MPI_COMM_WORLD);
}

/* Every rank's block `bytes`, end to end in rank order, as most programs
 * lay them out: the counts and displacements of the v collectives, made
 * once per size, outside the timed calls; false when out of memory. */
static bool end_to_end(int bytes, int **counts_out, int **displs_out)
{
    static int *counts, *displs, made_for = -1;
    if (!counts) {
        counts = malloc(sizeof(int) * (size_t)size);
        displs = malloc(sizeof(int) * (size_t)size);
        if (!counts || !displs)
            return false;
    }
    if (made_for != bytes) {
        for (int r = 0; r < size; r++) {
            counts[r] = bytes;
            displs[r] = r * bytes;
        }
        made_for = bytes;
    }
    *counts_out = counts;
    *displs_out = displs;
    return true;
}

static int allgatherv(int bytes, char *out, int native)
{
    int *counts, *displs;
    if (!end_to_end(bytes, &counts, &displs))
        return MPI_ERR_NO_MEM;
    return native ? PMPI_Allgatherv(send_buf, bytes, MPI_BYTE, out, counts, displs, MPI_BYTE,
                                    MPI_COMM_WORLD)
                  : MPI_Allgatherv(send_buf, bytes, MPI_BYTE, out, counts, displs, MPI_BYTE,
                                   MPI_COMM_WORLD);
}

/* Every rank's block `bytes` to root 0, in rank order there. */
static int gather(int bytes, char *out, int native)
{
    return native ? PMPI_Gather(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, MPI_COMM_WORLD)
                  : MPI_Gather(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/* Every rank's block `bytes` to root 0, end to end in rank order there. */
static int gatherv(int bytes, char *out, int native)
{
    int *counts, *displs;
    if (!end_to_end(bytes, &counts, &displs))
        return MPI_ERR_NO_MEM;
    return native ? PMPI_Gatherv(send_buf, bytes, MPI_BYTE, out, counts, displs, MPI_BYTE, 0,
                                 MPI_COMM_WORLD)
                  : MPI_Gatherv(send_buf, bytes, MPI_BYTE, out, counts, displs, MPI_BYTE, 0,
                                MPI_COMM_WORLD);
}

/* Root 0's send buffer, `bytes` for each rank in rank order, each rank's
 * into `out`. */
static int scatter(int bytes, char *out, int native)
{
    return native ? PMPI_Scatter(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0,
                                 MPI_COMM_WORLD)
                  : MPI_Scatter(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0,
                                MPI_COMM_WORLD);
}

/* Root 0's send buffer, `bytes` for each rank end to end in rank order,
 * each rank's into `out`. */
static int scatterv(int bytes, char *out, int native)
{
    int *counts, *displs;
    if (!end_to_end(bytes, &counts, &displs))
        return MPI_ERR_NO_MEM;
    return native ? PMPI_Scatterv(send_buf, counts, displs, MPI_BYTE, out, bytes, MPI_BYTE, 0,
                                  MPI_COMM_WORLD)
                  : MPI_Scatterv(send_buf, counts, displs, MPI_BYTE, out, bytes, MPI_BYTE, 0,
                                 MPI_COMM_WORLD);
}

/* The vector of p blocks of `bytes` (MPI_FLOAT, MPI_SUM), each rank's
 * block of the result into `out`. */
static int reduce_scatter_block(int bytes, char *out, int native)
{
    const int count = bytes / (int)sizeof(float);
    return native ? PMPI_Reduce_scatter_block(send_buf, out, count, MPI_FLOAT, MPI_SUM,
                                              MPI_COMM_WORLD)
                  : MPI_Reduce_scatter_block(send_buf, out, count, MPI_FLOAT, MPI_SUM,
                                             MPI_COMM_WORLD);
}

/* The same with the blocks' counts as MPI_Reduce_scatter takes them. */
static int reduce_scatter(int bytes, char *out, int native)
{
    int *counts, *displs;
    if (!end_to_end(bytes / (int)sizeof(float), &counts, &displs))
        return MPI_ERR_NO_MEM;
    return native ? PMPI_Reduce_scatter(send_buf, out, counts, MPI_FLOAT, MPI_SUM,
                                        MPI_COMM_WORLD)
                  : MPI_Reduce_scatter(send_buf, out, counts, MPI_FLOAT, MPI_SUM,
                                       MPI_COMM_WORLD);
}

/* Each rank's vector of `bytes` (MPI_FLOAT, MPI_SUM), its prefix into `out`. */
static int scan(int bytes, char *out, int native)
{
    const int count = bytes / (int)sizeof(float);
    return native ? PMPI_Scan(send_buf, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
                  : MPI_Scan(send_buf, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int exscan(int bytes, char *out, int native)
{
    const int count = bytes / (int)sizeof(float);
    return native ? PMPI_Exscan(send_buf, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
                  : MPI_Exscan(send_buf, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* Every rank's block `bytes` for every rank, in rank order both ways. */
static int alltoall(int bytes, char *out, int native)
{
    return native ? PMPI_Alltoall(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE,
                                  MPI_COMM_WORLD)
                  : MPI_Alltoall(send_buf, bytes, MPI_BYTE, out, bytes, MPI_BYTE, MPI_COMM_WORLD);
}

/* The same blocks, as counts and displacements, end to end both ways. */
static int alltoallv(int bytes, char *out, int native)
{
    int *counts, *displs;
    if (!end_to_end(bytes, &counts, &displs))
        return MPI_ERR_NO_MEM;
    return native ? PMPI_Alltoallv(send_buf, counts, displs, MPI_BYTE, out, counts, displs,
                                   MPI_BYTE, MPI_COMM_WORLD)
                  : MPI_Alltoallv(send_buf, counts, displs, MPI_BYTE, out, counts, displs,
                                  MPI_BYTE, MPI_COMM_WORLD);
}

/* The root sends its send buffer; the others receive into `out`. */
static int bcast(int bytes, char *out, int native)
{
    char *buf = rank == 0 ? send_buf : out;
    return native ? PMPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD)
                  : MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static int barrier(int bytes, char *out, int native)
{
    (void)bytes, (void)out;
    return native ? PMPI_Barrier(MPI_COMM_WORLD) : MPI_Barrier(MPI_COMM_WORLD);
}

typedef struct {
    const char *name;
    collective_call call;
    int sized;          /* 0: one size only (barrier) */
    int out_per_rank;   /* the result holds a block per rank (allgather) */
} collective;

static const collective collectives[] = {
    { "allreduce", allreduce, 1, 0 },
    { "reduce", reduce, 1, 0 },
    { "reduce_scatter_block", reduce_scatter_block, 1, 0 },
    { "reduce_scatter", reduce_scatter, 1, 0 },
    { "scan", scan, 1, 0 },
    { "exscan", exscan, 1, 0 },
    { "allgather", allgather, 1, 1 },
    { "allgatherv", allgatherv, 1, 1 },
    { "gather", gather, 1, 1 },
    { "gatherv", gatherv, 1, 1 },
    { "scatter", scatter, 1, 0 },
    { "scatterv", scatterv, 1, 0 },
    { "alltoall", alltoall, 1, 1 },
    { "alltoallv", alltoallv, 1, 1 },
    { "bcast", bcast, 1, 0 },
    { "barrier", barrier, 0, 0 },
};
enum { COLLECTIVES = sizeof(collectives) / sizeof(collectives[0]) };

static _Noreturn void fail(const char *what, const collective *c, int bytes)
{
    fprintf(stderr, "ftcoll-bench-native: rank %d: %s %d B: %s\n", rank, c->name, bytes, what);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Seconds per call of a block of `calls` back-to-back calls, the slowest
 * rank's. Only the block is timed: one barrier before, one max after. */
static double time_block(const collective *c, int bytes, int calls, int native)
{
    char *out = native ? native_buf : layer_buf;
    PMPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        if (c->call(bytes, out, native) != MPI_SUCCESS)
            fail("a call failed", c, bytes);
    double mine = (MPI_Wtime() - start) / calls, slowest;
    PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* Small integers in floats: every sum is exact, so both sides agree bit for bit. */
static void fill_pattern(int bytes)
{
    float *f = (float *)send_buf;
    for (int i = 0; i < bytes / (int)sizeof(float); i++)
        f[i] = (float)((rank * 7 + i) % 64);
    for (int i = bytes - bytes % (int)sizeof(float); i < bytes; i++)
        send_buf[i] = (char)(rank + i);
}

static void check(const collective *c, int bytes)
{
    const size_t out_bytes = (size_t)bytes * (c->out_per_rank ? (size_t)size : 1);
    fill_pattern(bytes * size);   /* a block per rank, where the call sends that many */
    memset(layer_buf, 0x5a, out_bytes);
    memset(native_buf, 0xa5, out_bytes);
    if (c->call(bytes, layer_buf, 0) != MPI_SUCCESS)
        fail("the call through the layer failed", c, bytes);
    if (c->call(bytes, native_buf, 1) != MPI_SUCCESS)
        fail("the native call failed", c, bytes);
    if (c->call == bcast && rank == 0)   /* the root's result is its own data */
        memcpy(layer_buf, native_buf, out_bytes);
    if ((c->call == gather || c->call == gatherv || c->call == reduce) && rank != 0)
        return;   /* only the root has a result */
    if (c->call == exscan && rank == 0)
        return;   /* MPI leaves rank 0's undefined */
    if (memcmp(layer_buf, native_buf, out_bytes) != 0)
        fail("the layer's result differs from MPI's", c, bytes);
}

/* Calls per block: as many as fit in `seconds` of native calls. */
static int calls_per_block(const collective *c, int bytes, double seconds)
{
    time_block(c, bytes, MIN_CALLS, 1);   /* first contact */
    const double one = time_block(c, bytes, MIN_CALLS, 1);
    double wanted = one > 0 ? seconds / one : MAX_CALLS;
    PMPI_Bcast(&wanted, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);   /* every rank alike */
    return wanted < MIN_CALLS ? MIN_CALLS : wanted > MAX_CALLS ? MAX_CALLS : (int)wanted;
}

typedef struct {
    long min_bytes, max_bytes;
    int rounds;
    double block_seconds;
    const char *csv;
    const char *only;   /* one collective's name, or NULL: all of them */
} options;

static void measure(const collective *c, int bytes, const options *o, FILE *csv)
{
    check(c, bytes);
    const int calls = calls_per_block(c, bytes, o->block_seconds);
    time_block(c, bytes, calls, 0);   /* warm the layer's side too */
    double layer[MAX_ROUNDS], native[MAX_ROUNDS];
    for (int r = 0; r < o->rounds; r++) {
        const int native_first = r % 2;
        if (native_first)
            native[r] = time_block(c, bytes, calls, 1);
        layer[r] = time_block(c, bytes, calls, 0);
        if (!native_first)
            native[r] = time_block(c, bytes, calls, 1);
    }
    const double l = bench_median(layer, o->rounds) * 1e6;
    const double n = bench_median(native, o->rounds) * 1e6;
    if (rank != 0)
        return;
    printf("%-10s %9d %6d %12.2f %12.2f %8.3f\n", c->name, c->sized ? bytes : 0, calls, l, n,
           l / n);
    fflush(stdout);
    if (csv)
        fprintf(csv, "%d,%s,%d,%d,%d,%.3f,%.3f,%.4f\n", size, c->name, c->sized ? bytes : 0,
                o->rounds, calls, l, n, l / n);
}

static long parse_bytes(const char *text)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end == 'K' || *end == 'k')
        value *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        value *= 1024 * 1024, end++;
    return *end ? -1 : value;
}

static int usage(void)
{
    fprintf(stderr, "usage: ftcoll-bench-native [--min-bytes N (>= 4)] [--max-bytes N (<= 16M)] "
                    "[--rounds R (1..%d)] [--block-seconds S (> 0)] [--csv FILE] "
                    "[--only allreduce|reduce|reduce_scatter_block|reduce_scatter|scan|exscan|allgather|"
                    "allgatherv|gather|gatherv|scatter|scatterv|alltoall|alltoallv|bcast|barrier]\n", MAX_ROUNDS);
    return 2;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){ .min_bytes = 4, .max_bytes = 1024 * 1024, .rounds = 15,
                    .block_seconds = 0.01, .csv = NULL, .only = NULL };
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value)
            return usage();
        if (strcmp(argv[i], "--min-bytes") == 0)
            o->min_bytes = parse_bytes(value);
        else if (strcmp(argv[i], "--max-bytes") == 0)
            o->max_bytes = parse_bytes(value);
        else if (strcmp(argv[i], "--rounds") == 0)
            o->rounds = atoi(value);
        else if (strcmp(argv[i], "--block-seconds") == 0)
            o->block_seconds = atof(value);
        else if (strcmp(argv[i], "--csv") == 0)
            o->csv = value;
        else if (strcmp(argv[i], "--only") == 0)
            o->only = value;
        else
            return usage();
        i++;
    }
    int known = o->only == NULL;
    for (int c = 0; c < COLLECTIVES; c++)
        known |= o->only && strcmp(o->only, collectives[c].name) == 0;
    if (!known || o->min_bytes < 4 || o->max_bytes > 16L * 1024 * 1024 || o->min_bytes > o->max_bytes
        || o->rounds < 1 || o->rounds > MAX_ROUNDS || !(o->block_seconds > 0))
        return usage();
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    const int bad = parse(argc, argv, &o);
    if (bad)
        return bad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    send_buf = calloc((size_t)o.max_bytes, (size_t)size);   /* a scatterv root's: p blocks */
    layer_buf = malloc((size_t)o.max_bytes * (size_t)size);
    native_buf = malloc((size_t)o.max_bytes * (size_t)size);
    if (!send_buf || !layer_buf || !native_buf) {
        fprintf(stderr, "ftcoll-bench-native: out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    FILE *csv = NULL;
    if (rank == 0 && o.csv) {
        csv = fopen(o.csv, "a");
        if (csv && ftell(csv) == 0)
            fprintf(csv, "ranks,collective,bytes,rounds,calls,layer_us,native_us,ratio\n");
    }
    if (rank == 0)
        printf("%-10s %9s %6s %12s %12s %8s\n", "collective", "bytes", "calls", "layer us",
               "native us", "ratio");
    for (int c = 0; c < COLLECTIVES; c++) {
        if (o.only && strcmp(o.only, collectives[c].name) != 0)
            continue;
        if (!collectives[c].sized) {
            measure(&collectives[c], 0, &o, csv);
            continue;
        }
        for (long bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2)
            measure(&collectives[c], (int)bytes, &o, csv);
    }
    if (csv)
        fclose(csv);
    free(send_buf);
    free(layer_buf);
    free(native_buf);
    MPI_Finalize();
    return 0;
}
