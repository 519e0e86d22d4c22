/*
 * ftcoll-bench allreduce: ftc_allreduce against the MPI library's
 * MPI_Allreduce, MPI_SUM on MPI_DOUBLE, failure-free.
 *
 * A size is the whole vector per rank in bytes (8 B = one double); it must
 * be a multiple of 8. The measurement is common.c's, the same as the
 * allgather's: a checked call of each side, a warm-up, then interleaved
 * timed iterations, the sample being the max over ranks after a barrier.
 *
 * The check: element i of rank r is a multiple of 1/4 of magnitude below
 * 128 (pattern_value), so every partial sum is exact in a double whatever
 * order either library adds in, and the result must equal the sum computed
 * here bit for bit. The output is poisoned with NaN first: an element never
 * written, or one that was summed into the poison, cannot pass.
 *
 * The native side is Open MPI's own selection, not forced: the label says
 * "ompi:default", or "tuned:allreduce_algorithm=N" when the environment
 * forces coll/tuned (OMPI_MCA_coll_tuned_use_dynamic_rules with
 * OMPI_MCA_coll_tuned_allreduce_algorithm).
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "ftcoll.h"

#define SUBCOMMAND "allreduce"

/* What ftc_allreduce runs (include/ftcoll.h): recursive doubling, with the
 * extra ranks folded in first when p is not a power of two. */
#define OURS_ALGORITHM "recursive_doubling"

static void print_usage(void)
{
    printf("Usage: mpirun -n RANKS ftcoll-bench allreduce [OPTIONS]\n\n"
           "Times ftc_allreduce against MPI_Allreduce (MPI_SUM on MPI_DOUBLE), interleaved.\n"
           "A size is the vector per rank in bytes, a multiple of 8.\n\n"
           "Options:\n");
    bench_print_common_options("vector", "tuned:allreduce_algorithm=N when Open MPI is forced\n"
                               BENCH_USAGE_INDENT "through OMPI_MCA_coll_tuned_*, else "
                               "ompi:default");
}

static void native_label(bench_session *s, char *label, size_t size)
{
    (void)s;
#ifdef OPEN_MPI
    const char *forced = getenv("OMPI_MCA_coll_tuned_allreduce_algorithm");
    if (bench_env_is_true("OMPI_MCA_coll_tuned_use_dynamic_rules") && forced && *forced) {
        snprintf(label, size, "tuned:allreduce_algorithm=%s", forced);
        return;
    }
#endif
    bench_default_native_label(label, size);
}

/* ---- the calls ------------------------------------------------------------------------ */

static int count_of(size_t bytes) { return (int)(bytes / sizeof(double)); }

static int call_ours(bench_session *s, size_t bytes)
{
    return ftc_allreduce(s->send, s->recv, count_of(bytes), MPI_DOUBLE, MPI_SUM, s->ours);
}

static int call_native(bench_session *s, size_t bytes)
{
    return MPI_Allreduce(s->send, s->recv, count_of(bytes), MPI_DOUBLE, MPI_SUM, s->native);
}

/* Whole doubles, and a count that fits MPI's int. */
static int buffer_bytes(const bench_session *s, size_t *send_bytes, size_t *recv_bytes)
{
    const bench_options *o = s->opts;
    const char *problem = o->min_bytes % (long long)sizeof(double) != 0
                            ? "--min-bytes must be a multiple of 8 (whole doubles)"
                        : o->max_bytes / (long long)sizeof(double) > INT32_MAX
                            ? "--max-bytes exceeds INT_MAX doubles"
                            : NULL;
    if (problem) {
        if (s->rank == 0)
            fprintf(stderr, "ftcoll-bench allreduce: %s\n", problem);
        return BENCH_USAGE;
    }
    *send_bytes = *recv_bytes = (size_t)o->max_bytes;
    return BENCH_OK;
}

/* ---- correctness ------------------------------------------------------------------ */

/* Element i of rank r: differs between ranks and along the vector; a multiple
 * of 0.25 in [-127.5, 127.5], so sums of up to 2^44 of them are exact. */
static double pattern_value(int rank, size_t i)
{
    const unsigned k = (unsigned)(rank * 37u + i * 11u + (i >> 8) + 1u) % 1021u;
    return ((double)k - 510.0) * 0.25;
}

static void fill_send(bench_session *s, size_t bytes)
{
    double *send = (double *)s->send;
    for (size_t i = 0; i < bytes / sizeof(double); i++)
        send[i] = pattern_value(s->rank, i);
}

static void poison_recv(bench_session *s, size_t bytes)
{
    double *recv = (double *)s->recv;
    for (size_t i = 0; i < bytes / sizeof(double); i++)
        recv[i] = NAN;
}

/* Returns true, or false after describing the first wrong element in `why`. */
static bool recv_is_correct(const bench_session *s, size_t bytes, char *why, size_t why_size)
{
    const double *recv = (const double *)s->recv;
    for (size_t i = 0; i < bytes / sizeof(double); i++) {
        double expected = 0.0;
        for (int rank = 0; rank < s->size; rank++)
            expected += pattern_value(rank, i);
        if (!(recv[i] == expected)) {   /* NaN compares false */
            snprintf(why, why_size, "element %zu: got %.17g, expected %.17g", i, recv[i],
                     expected);
            return false;
        }
    }
    return true;
}

/* ---- what ftcoll ran ------------------------------------------------------------------ */

static void describe_ours(bench_session *s, bench_ours_description *out)
{
    (void)s;
    snprintf(out->call, sizeof(out->call), "ftc_allreduce");
    snprintf(out->label, sizeof(out->label), OURS_ALGORITHM);
    out->note[0] = '\0';
}

static void write_csv_fields(const bench_session *s, FILE *csv)
{
    (void)s;
    fprintf(csv, "%s,MPI_SUM,MPI_DOUBLE", OURS_ALGORITHM);
}

static int run(bench_session *s)
{
    return bench_measure_sizes(s, "ftc_allreduce MPI_SUM on MPI_DOUBLE");
}

static const bench_collective allreduce = {
    .name = SUBCOMMAND,
    .ours_call = "ftc_allreduce",
    .native_call = "MPI_Allreduce",
    .csv_columns = "algorithm,op,datatype",
    .print_usage = print_usage,
    .native_label = native_label,
    .buffer_bytes = buffer_bytes,
    .run = run,
    .call_ours = call_ours,
    .call_native = call_native,
    .fill_input = fill_send,
    .poison_output = poison_recv,
    .output_is_correct = recv_is_correct,
    .describe_ours = describe_ours,
    .write_csv_fields = write_csv_fields,
};

int bench_allreduce_main(int argc, char **argv)
{
    return bench_collective_main(argc, argv, &allreduce, NULL);
}
