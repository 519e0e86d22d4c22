/*
 * ftcoll-bench allgather: ftc_allgather against the MPI library's MPI_Allgather.
 *
 * For each algorithm asked for and each block size (bytes per rank, from
 * --min-bytes to --max-bytes, times --factor each time):
 *
 *  1. Check: one call of each side on a known pattern, compared byte by byte
 *     on every rank. A wrong result, or an error from ftcoll, stops the run:
 *     a broken call is never timed. An MPI error from the native call only
 *     marks the native side "n/a" (Open MPI refuses a forced two_proc on
 *     p != 2 with MPI_ERR_UNSUPPORTED_OPERATION) and ours is timed alone.
 *  2. Warm-up: WARMUP_PAIRS iterations, timed on rank 0 to size the run:
 *     --iterations, or as many as fit in --seconds-per-size (more for small
 *     blocks), within [MIN_ADAPTIVE_ITERATIONS, MAX_ADAPTIVE_ITERATIONS].
 *  3. Iterations: each times one call of ours and one native call back to
 *     back, and which goes first alternates, so that neither side always
 *     finds the caches and the shared-memory queues as the other left them,
 *     nor always runs right after a barrier released by the other's traffic.
 *
 * Timing of one call, the same for both sides: MPI_Barrier on
 * MPI_COMM_WORLD, then MPI_Wtime around the call on every rank. The sample
 * of an iteration is the MAX over ranks — the time until the last rank has
 * its result, which is what the collective costs the application. The
 * samples are kept locally and reduced with one MPI_Reduce(MAX) after the
 * loop, so no reduction sits between the timed calls. Barrier exit skew
 * lands in both sides' samples alike.
 *
 * Reported: the median over iterations (with mean, p90 and min), and the
 * ratio ours/native of the medians: medians, because on an oversubscribed
 * node a few descheduled iterations would dominate a mean. Also the
 * "paired" ratio, the median over iterations of ours_i / native_i, which
 * cancels slow spells that hit both calls of an iteration.
 */
#include <ctype.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ftcoll.h"

#define SUBCOMMAND "allgather"

enum {
    WARMUP_PAIRS = 6,
    WARMUP_SETTLING = 3,         /* warm-up pairs left out of the estimate */
    MIN_ADAPTIVE_ITERATIONS = 20,
    MAX_ADAPTIVE_ITERATIONS = 1000,
};

/* ---- options ------------------------------------------------------------------ */

typedef struct {
    ftc_allgather_algorithm algorithms[FTC_ALLGATHER_ALGORITHM_COUNT];
    int algorithm_count;
    long long min_bytes, max_bytes;
    int factor;
    int iterations;              /* 0: adapt to the block size */
    double seconds_per_size;     /* the budget that adapting aims at */
    const char *csv_path;        /* NULL: no CSV */
    const char *native_label;    /* NULL: derived from the environment */
    bool help;
} options;

static const options default_options = {
    .algorithms = { FTC_ALLGATHER_AUTO },
    .algorithm_count = 1,
    .min_bytes = 8,
    .max_bytes = 1 << 20,
    .factor = 2,
    .iterations = 0,
    .seconds_per_size = 1.5,
};

static void print_usage(void)
{
    printf("Usage: mpirun -n RANKS ftcoll-bench allgather [OPTIONS]\n\n"
           "Times ftc_allgather against MPI_Allgather on MPI_BYTE blocks, interleaved.\n\n"
           "Options:\n"
           "  --algorithm NAME|auto|all  ftcoll's algorithm: a name or Open MPI number\n"
           "                             (linear, bruck, recursive_doubling, ring,\n"
           "                             neighbor_exchange, two_proc, sparbit), auto for\n"
           "                             the decision table, all for each of them and\n"
           "                             auto in turn (default: auto)\n"
           "  --min-bytes N              smallest block, bytes per rank (default 8;\n"
           "                             K, M, G suffixes: x1024)\n"
           "  --max-bytes N              largest block (default 1M)\n"
           "  --factor F                 next block = F x this one (default 2)\n"
           "  --iterations N             timed iterations per size (default: adapt, as\n"
           "                             many as fit in --seconds-per-size, %d..%d)\n"
           "  --seconds-per-size S       time budget of one size when adapting (default %.1f)\n"
           "  --csv FILE                 append one row per size to FILE (header if new)\n"
           "  --native-label TEXT        name of the native side in the output (default:\n"
           "                             tuned:<algorithm> when Open MPI is forced through\n"
           "                             OMPI_MCA_coll_tuned_*, else ompi:default)\n"
           "  --help                     this text\n\n"
           "Each iteration times both calls after a barrier; the sample is the max over\n"
           "ranks; reported: medians and ratio = ours / native.\n",
           MIN_ADAPTIVE_ITERATIONS, MAX_ADAPTIVE_ITERATIONS, default_options.seconds_per_size);
}

static bool set_algorithms(options *o, const char *text)
{
    if (strcmp(text, "all") == 0) {
        o->algorithm_count = 0;
        for (int id = FTC_ALLGATHER_LINEAR; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++)
            o->algorithms[o->algorithm_count++] = (ftc_allgather_algorithm)id;
        o->algorithms[o->algorithm_count++] = FTC_ALLGATHER_AUTO;
        return true;
    }
    o->algorithm_count = 1;
    return ftc_allgather_algorithm_parse(text, &o->algorithms[0]) == MPI_SUCCESS;
}

static bool set_min_bytes(options *o, const char *text) { return bench_parse_bytes(text, &o->min_bytes); }
static bool set_max_bytes(options *o, const char *text) { return bench_parse_bytes(text, &o->max_bytes); }
static bool set_iterations(options *o, const char *text) { return bench_parse_positive_int(text, &o->iterations); }
static bool set_csv(options *o, const char *text) { o->csv_path = text; return *text != '\0'; }
static bool set_native_label(options *o, const char *text) { o->native_label = text; return *text != '\0'; }

static bool set_factor(options *o, const char *text)
{
    return bench_parse_positive_int(text, &o->factor) && o->factor >= 2;
}

static bool set_seconds(options *o, const char *text)
{
    return bench_parse_positive_seconds(text, &o->seconds_per_size);
}

typedef struct {
    const char *name;
    bool (*set)(options *o, const char *value);
    const char *expected;   /* for the message when `set` refuses a value */
} option_spec;

static const option_spec option_specs[] = {
    { "--algorithm", set_algorithms, NULL /* the parser's own message lists the names */ },
    { "--min-bytes", set_min_bytes, "a positive byte count (8, 4K, 1M)" },
    { "--max-bytes", set_max_bytes, "a positive byte count (8, 4K, 1M)" },
    { "--factor", set_factor, "an integer >= 2" },
    { "--iterations", set_iterations, "a positive integer" },
    { "--seconds-per-size", set_seconds, "seconds, > 0 and <= 3600" },
    { "--csv", set_csv, "a file name" },
    { "--native-label", set_native_label, "a non-empty text" },
};

/* Handles argv[*i] if it is one of option_specs; returns BENCH_OK, or
 * BENCH_USAGE after a message, or -1 when it is none of them. */
static int apply_option(int argc, char **argv, int *i, options *o)
{
    for (size_t k = 0; k < sizeof(option_specs) / sizeof(option_specs[0]); k++) {
        const option_spec *spec = &option_specs[k];
        const char *value = NULL;
        if (!bench_option_value(argc, argv, i, spec->name, &value))
            continue;
        if (!value)
            return bench_usage_error(SUBCOMMAND, "%s needs a value", spec->name);
        if (spec->set(o, value))
            return BENCH_OK;
        if (!spec->expected)
            return bench_usage_error(SUBCOMMAND, "%s: %s", spec->name, ftc_error_message());
        return bench_usage_error(SUBCOMMAND, "%s \"%s\": expected %s", spec->name, value,
                                 spec->expected);
    }
    return -1;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = default_options;
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
            return BENCH_OK;
        }
        const int rc = apply_option(argc, argv, &i, o);
        if (rc == -1)
            return bench_usage_error(SUBCOMMAND, "unknown option \"%s\"", argv[i]);
        if (rc != BENCH_OK)
            return rc;
    }
    if (o->min_bytes > o->max_bytes)
        return bench_usage_error(SUBCOMMAND, "--min-bytes %lld is larger than --max-bytes %lld",
                                 o->min_bytes, o->max_bytes);
    return BENCH_OK;
}

/* ---- the native side ------------------------------------------------------------- */

typedef struct {
    char label[64];
    ftc_allgather_algorithm forced;   /* what Open MPI's tuned was told to run, or AUTO */
} native_config;

static bool equal_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Open MPI's spellings of a true boolean MCA value. */
static bool env_is_true(const char *name)
{
    const char *text = getenv(name);
    static const char *const yes[] = { "1", "true", "yes", "t", "y", "enabled" };
    for (size_t i = 0; text && i < sizeof(yes) / sizeof(yes[0]); i++)
        if (equal_ignoring_case(text, yes[i]))
            return true;
    return false;
}

/* The algorithm forced on Open MPI's coll/tuned through the environment;
 * ftcoll numbers its algorithms as Open MPI does, so its parser reads it. */
static ftc_allgather_algorithm forced_native_algorithm(void)
{
    const char *text = getenv("OMPI_MCA_coll_tuned_allgather_algorithm");
    ftc_allgather_algorithm forced = FTC_ALLGATHER_AUTO;
    if (!env_is_true("OMPI_MCA_coll_tuned_use_dynamic_rules") || !text
        || ftc_allgather_algorithm_parse(text, &forced) != MPI_SUCCESS)
        return FTC_ALLGATHER_AUTO;
    return forced;
}

static native_config read_native_config(const char *label_option)
{
    native_config n = { .forced = FTC_ALLGATHER_AUTO };
#ifdef OPEN_MPI
    n.forced = forced_native_algorithm();
    if (n.forced != FTC_ALLGATHER_AUTO)
        snprintf(n.label, sizeof(n.label), "tuned:%s", ftc_allgather_algorithm_name(n.forced));
    else
        snprintf(n.label, sizeof(n.label), "ompi:default");
#else
    snprintf(n.label, sizeof(n.label), "native");
#endif
    if (label_option)
        snprintf(n.label, sizeof(n.label), "%s", label_option);
    return n;
}

/* ---- the benchmark state ------------------------------------------------------------ */

typedef struct {
    const options *opts;
    int rank, size;
    ftc_comm_t ours;
    MPI_Comm native;             /* a duplicate of MPI_COMM_WORLD returning errors */
    unsigned char *send;         /* max_bytes */
    unsigned char *recv;         /* p x max_bytes, shared by both sides */
    native_config native_cfg;
    FILE *csv;                   /* rank 0, with --csv */
} bench;

/* What one block size gave. */
typedef struct {
    size_t bytes;
    int iterations;
    ftc_allgather_choice choice;
    bool native_ok;
    char native_status[320];     /* "ok", or "n/a: why" */
    bench_stats ours, native;    /* rank 0 */
    double pair_ratio;           /* rank 0: median of per-iteration ours/native */
} size_result;

typedef int (*allgather_call)(bench *b, size_t bytes);

static int call_ours(bench *b, size_t bytes)
{
    return ftc_allgather(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, b->ours);
}

static int call_native(bench *b, size_t bytes)
{
    return MPI_Allgather(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, b->native);
}

/* Stops every rank: for failures that can only be bugs, after the check. */
static void abort_run(const bench *b, const char *what, size_t bytes, const char *why)
{
    fprintf(stderr, "ftcoll-bench allgather: rank %d: %s failed at %zu bytes: %s\n", b->rank,
            what, bytes, why);
    MPI_Abort(MPI_COMM_WORLD, BENCH_FAILED);
}

static void mpi_error_text(int rc, char *text, size_t size)
{
    char words[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(rc, words, &length) != MPI_SUCCESS)
        snprintf(words, sizeof(words), "MPI error %d", rc);
    snprintf(text, size, "%s", words);
}

/* ---- correctness ------------------------------------------------------------------ */

/* Byte i of rank r's block: differs between ranks and along the block. */
static unsigned char pattern_byte(int rank, size_t i)
{
    return (unsigned char)(rank * 37u + i * 11u + (i >> 8) + 1u);
}

static void fill_send(bench *b, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        b->send[i] = pattern_byte(b->rank, i);
}

/* The complement of the expected bytes: a block never written cannot pass. */
static void poison_recv(bench *b, size_t bytes)
{
    for (int block = 0; block < b->size; block++)
        for (size_t i = 0; i < bytes; i++)
            b->recv[(size_t)block * bytes + i] = (unsigned char)~pattern_byte(block, i);
}

/* Returns true, or false after describing the first wrong byte in `why`. */
static bool recv_is_correct(const bench *b, size_t bytes, char *why, size_t why_size)
{
    for (int block = 0; block < b->size; block++) {
        for (size_t i = 0; i < bytes; i++) {
            const unsigned char got = b->recv[(size_t)block * bytes + i];
            if (got != pattern_byte(block, i)) {
                snprintf(why, why_size, "block of rank %d, byte %zu: got 0x%02x, expected 0x%02x",
                         block, i, got, pattern_byte(block, i));
                return false;
            }
        }
    }
    return true;
}

typedef enum { CHECK_OK = 0, CHECK_CALL_FAILED = 1, CHECK_WRONG_RESULT = 2 } check_outcome;

/*
 * One call on poisoned output, checked on every rank; the ranks agree on the
 * worst outcome. `rc` and `why` are this rank's own (why: "" when fine).
 */
static check_outcome check_call(bench *b, size_t bytes, allgather_call call, int *rc, char *why,
                                size_t why_size)
{
    why[0] = '\0';
    poison_recv(b, bytes);
    *rc = call(b, bytes);
    int local = CHECK_OK;
    if (*rc != MPI_SUCCESS)
        local = CHECK_CALL_FAILED;
    else if (!recv_is_correct(b, bytes, why, why_size))
        local = CHECK_WRONG_RESULT;
    int worst = CHECK_OK;
    MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return (check_outcome)worst;
}

static int check_ours(bench *b, size_result *r)
{
    int rc;
    char why[200];
    const check_outcome outcome = check_call(b, r->bytes, call_ours, &rc, why, sizeof(why));
    ftc_allgather_last_choice(b->ours, &r->choice);
    if (outcome == CHECK_OK)
        return BENCH_OK;
    const char *name = ftc_allgather_algorithm_name(r->choice.executed);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "ftcoll-bench allgather: rank %d: ftc_allgather (%s) failed at %zu bytes: "
                "%s\n", b->rank, name, r->bytes, ftc_error_message());
    else if (why[0])
        fprintf(stderr, "ftcoll-bench allgather: rank %d: ftc_allgather (%s) gave a wrong result "
                "at %zu bytes: %s\n", b->rank, name, r->bytes, why);
    return BENCH_FAILED;
}

/* Why the native call cannot be timed, in words, from rank 0's point of view. */
static void explain_native_failure(const bench *b, int rc, char *status, size_t size)
{
    char words[MPI_MAX_ERROR_STRING];
    int error_class = MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        snprintf(status, size, "n/a: MPI_Allgather failed on other ranks than 0");
        return;
    }
    mpi_error_text(rc, words, sizeof(words));
    MPI_Error_class(rc, &error_class);
    if (error_class == MPI_ERR_UNSUPPORTED_OPERATION && b->native_cfg.forced != FTC_ALLGATHER_AUTO)
        snprintf(status, size, "n/a: Open MPI does not support %s on p=%d (%.200s)",
                 ftc_allgather_algorithm_name(b->native_cfg.forced), b->size, words);
    else
        snprintf(status, size, "n/a: MPI_Allgather failed: %.200s", words);
}

static int check_native(bench *b, size_result *r)
{
    int rc;
    char why[200];
    const check_outcome outcome = check_call(b, r->bytes, call_native, &rc, why, sizeof(why));
    r->native_ok = outcome == CHECK_OK;
    snprintf(r->native_status, sizeof(r->native_status), "ok");
    if (outcome == CHECK_CALL_FAILED)
        explain_native_failure(b, rc, r->native_status, sizeof(r->native_status));
    if (outcome != CHECK_WRONG_RESULT)
        return BENCH_OK;
    /* Most likely a bug of this benchmark's own: never time it. */
    if (why[0])
        fprintf(stderr, "ftcoll-bench allgather: rank %d: MPI_Allgather (%s) gave a wrong result "
                "at %zu bytes: %s\n", b->rank, b->native_cfg.label, r->bytes, why);
    return BENCH_FAILED;
}

/* ---- timing ---------------------------------------------------------------------- */

static double time_call(bench *b, size_t bytes, allgather_call call)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    const int rc = call(b, bytes);
    const double elapsed = MPI_Wtime() - start;
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING + 600];
        if (call == call_ours)
            snprintf(why, sizeof(why), "%s", ftc_error_message());
        else
            mpi_error_text(rc, why, sizeof(why));
        abort_run(b, call == call_ours ? "ftc_allgather" : "MPI_Allgather", bytes, why);
    }
    return elapsed;
}

/* One iteration: both calls back to back, ours first on even iterations. */
static void time_pair(bench *b, size_t bytes, bool native_ok, int iteration, double *ours,
                      double *native)
{
    const bool ours_first = iteration % 2 == 0;
    if (ours_first)
        *ours = time_call(b, bytes, call_ours);
    if (native_ok)
        *native = time_call(b, bytes, call_native);
    if (!ours_first)
        *ours = time_call(b, bytes, call_ours);
}

/* Warms up, then picks the iteration count on rank 0 and tells everyone.
 * The estimate is the median of the warm-up pairs after the first
 * WARMUP_SETTLING ones, which carry first-contact costs (connections, plans);
 * a median, so that one descheduled pair on a busy node does not cut the run
 * of a small size tenfold. */
static int warm_up_and_count_iterations(bench *b, size_t bytes, bool native_ok)
{
    double ours = 0.0, native = 0.0, pair_seconds[WARMUP_PAIRS];
    for (int i = 0; i < WARMUP_PAIRS; i++) {
        const double start = MPI_Wtime();
        time_pair(b, bytes, native_ok, i, &ours, &native);
        pair_seconds[i] = MPI_Wtime() - start;
    }
    bench_stats settled;
    bench_stats_of(pair_seconds + WARMUP_SETTLING, WARMUP_PAIRS - WARMUP_SETTLING, &settled);
    int iterations = b->opts->iterations;
    if (iterations == 0) {
        const double fit = b->opts->seconds_per_size / (settled.median > 0 ? settled.median : 1e-9);
        iterations = fit < MIN_ADAPTIVE_ITERATIONS ? MIN_ADAPTIVE_ITERATIONS
                   : fit > MAX_ADAPTIVE_ITERATIONS ? MAX_ADAPTIVE_ITERATIONS
                   : (int)fit;
    }
    MPI_Bcast(&iterations, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return iterations;
}

/* Max over ranks of each sample, gathered on rank 0. */
static void reduce_samples(double *samples, double *max_over_ranks, int n)
{
    MPI_Reduce(samples, max_over_ranks, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/*
 * The median of ours_i / native_i over iterations i. The two calls of an
 * iteration run back to back, so a slow spell of the machine (another job,
 * a descheduled rank) usually hits both: the per-iteration ratio cancels it
 * where the ratio of medians can jump when one side's median falls into a
 * slow spell and the other's does not. Sorts nothing it is given.
 */
static double median_pair_ratio(const double *ours, const double *native, int n)
{
    double *ratios = malloc((size_t)n * sizeof(double));
    if (!ratios)
        return 0.0;
    for (int i = 0; i < n; i++)
        ratios[i] = ours[i] / native[i];
    bench_stats stats;
    bench_stats_of(ratios, n, &stats);
    free(ratios);
    return stats.median;
}

static void time_iterations(bench *b, size_result *r)
{
    const size_t n = (size_t)r->iterations;
    double *ours = calloc(n, sizeof(double)), *native = calloc(n, sizeof(double));
    double *ours_max = calloc(n, sizeof(double)), *native_max = calloc(n, sizeof(double));
    if (!ours || !native || !ours_max || !native_max)
        abort_run(b, "allocating timing samples", r->bytes, "out of memory");
    for (int i = 0; i < r->iterations; i++)
        time_pair(b, r->bytes, r->native_ok, i, &ours[i], &native[i]);
    reduce_samples(ours, ours_max, r->iterations);
    if (r->native_ok)
        reduce_samples(native, native_max, r->iterations);
    if (b->rank == 0 && r->native_ok)
        r->pair_ratio = median_pair_ratio(ours_max, native_max, r->iterations);
    if (b->rank == 0)
        bench_stats_of(ours_max, r->iterations, &r->ours);
    if (b->rank == 0 && r->native_ok)
        bench_stats_of(native_max, r->iterations, &r->native);
    free(ours);
    free(native);
    free(ours_max);
    free(native_max);
}

static int measure_size(bench *b, size_t bytes, size_result *r)
{
    memset(r, 0, sizeof(*r));
    r->bytes = bytes;
    fill_send(b, bytes);
    int rc = check_ours(b, r);
    if (rc == BENCH_OK)
        rc = check_native(b, r);
    if (rc != BENCH_OK)
        return rc;
    r->iterations = warm_up_and_count_iterations(b, bytes, r->native_ok);
    time_iterations(b, r);
    return BENCH_OK;
}

/* ---- output (rank 0) --------------------------------------------------------------- */

static const char csv_header[] =
    "ranks,requested,selected,executed,fallback_reason,native_label,native_status,bytes,"
    "iterations,ours_median_us,ours_mean_us,ours_p90_us,ours_min_us,native_median_us,"
    "native_mean_us,native_p90_us,native_min_us,ratio,pair_ratio";

static void print_conditions(const bench *b)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    version[strcspn(version, "\n")] = '\0';   /* the first line says enough */
    printf("# ftcoll-bench allgather: p=%d ranks, %s\n"
           "# per iteration: barrier + ours, barrier + native (order alternates); sample = max "
           "over ranks; times in microseconds; ratio = ours_med / native_med; paired = median "
           "over iterations of ours / native\n",
           b->size, version);
}

static void print_table_header(const bench *b, ftc_allgather_algorithm requested)
{
    printf("\n## ours: ftc_allgather %s | native: MPI_Allgather (%s)\n",
           requested == FTC_ALLGATHER_AUTO ? "auto (decision table)"
                                           : ftc_allgather_algorithm_name(requested),
           b->native_cfg.label);
    printf("%-24s %-22s %9s %6s %11s %11s %11s %11s %7s %7s\n", "ours", "native", "bytes",
           "iters", "ours_med", "ours_p90", "native_med", "native_p90", "ratio", "paired");
    fflush(stdout);
}

/* "ring", "auto:ring", "bruck*" (* = a fallback, explained under the row). */
static void ours_label(const ftc_allgather_choice *c, char *label, size_t size)
{
    snprintf(label, size, "%s%s%s", c->requested == FTC_ALLGATHER_AUTO ? "auto:" : "",
             ftc_allgather_algorithm_name(c->executed), c->reason[0] ? "*" : "");
}

static void print_row(const bench *b, const size_result *r, char *last_note, size_t note_size)
{
    char label[64];
    ours_label(&r->choice, label, sizeof(label));
    printf("%-24s %-22s %9zu %6d %11.2f %11.2f ", label, b->native_cfg.label, r->bytes,
           r->iterations, r->ours.median * 1e6, r->ours.p90 * 1e6);
    if (r->native_ok)
        printf("%11.2f %11.2f %7.3f %7.3f\n", r->native.median * 1e6, r->native.p90 * 1e6,
               r->ours.median / r->native.median, r->pair_ratio);
    else
        printf("%11s %11s %7s %7s\n", "n/a", "n/a", "n/a", "n/a");
    /* Notes once, under the first row they concern. */
    char note[512];
    snprintf(note, sizeof(note), "%s%s%s", r->choice.reason,
             r->choice.reason[0] && !r->native_ok ? " | " : "", r->native_ok ? "" : r->native_status);
    if (note[0] && strcmp(note, last_note) != 0) {
        if (r->choice.reason[0])
            printf("    * ftcoll: %s\n", r->choice.reason);
        if (!r->native_ok)
            printf("    native %s\n", r->native_status);
        snprintf(last_note, note_size, "%s", note);
    }
    fflush(stdout);
}

static void csv_stats(FILE *csv, const bench_stats *s)
{
    fprintf(csv, ",%.3f,%.3f,%.3f,%.3f", s->median * 1e6, s->mean * 1e6, s->p90 * 1e6,
            s->min * 1e6);
}

static void write_csv_row(const bench *b, const size_result *r)
{
    FILE *csv = b->csv;
    fprintf(csv, "%d,%s,%s,%s,", b->size, ftc_allgather_algorithm_name(r->choice.requested),
            ftc_allgather_algorithm_name(r->choice.selected),
            ftc_allgather_algorithm_name(r->choice.executed));
    bench_csv_text(csv, r->choice.reason);
    fputc(',', csv);
    bench_csv_text(csv, b->native_cfg.label);
    fputc(',', csv);
    bench_csv_text(csv, r->native_status);
    fprintf(csv, ",%zu,%d", r->bytes, r->iterations);
    csv_stats(csv, &r->ours);
    if (r->native_ok) {
        csv_stats(csv, &r->native);
        fprintf(csv, ",%.4f,%.4f\n", r->ours.median / r->native.median, r->pair_ratio);
    } else {
        fprintf(csv, ",,,,,,\n");
    }
    fflush(csv);
}

/* ---- set-up and the run ------------------------------------------------------------- */

/* Blocks must fit MPI's int counts: p x max_bytes bytes land on each rank. */
static int check_sizes_fit(const bench *b)
{
    if (b->opts->max_bytes <= INT32_MAX / b->size)
        return BENCH_OK;
    if (b->rank == 0)
        fprintf(stderr, "ftcoll-bench allgather: --max-bytes %lld x %d ranks exceeds INT_MAX bytes\n",
                b->opts->max_bytes, b->size);
    return BENCH_USAGE;
}

/* Rank 0 opens the CSV; everyone learns whether it could. */
static int open_csv(bench *b)
{
    int ok = 1;
    if (b->rank == 0 && b->opts->csv_path) {
        b->csv = bench_csv_open(b->opts->csv_path, csv_header);
        if (!b->csv) {
            perror(b->opts->csv_path);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok ? BENCH_OK : BENCH_FAILED;
}

static int bench_open(bench *b, const options *opts)
{
    memset(b, 0, sizeof(*b));
    b->opts = opts;
    b->native = MPI_COMM_NULL;
    b->native_cfg = read_native_config(opts->native_label);
    MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b->size);
    int rc = check_sizes_fit(b);
    if (rc != BENCH_OK)
        return rc;
    if (ftc_comm_create(MPI_COMM_WORLD, &b->ours) != MPI_SUCCESS) {
        fprintf(stderr, "ftcoll-bench allgather: rank %d: ftc_comm_create: %s\n", b->rank,
                ftc_error_message());
        return BENCH_FAILED;
    }
    /* Errors returned, not fatal: a forced algorithm Open MPI refuses must
     * show as "n/a", not end the job. */
    MPI_Comm_dup(MPI_COMM_WORLD, &b->native);
    MPI_Comm_set_errhandler(b->native, MPI_ERRORS_RETURN);
    b->send = malloc((size_t)opts->max_bytes);
    b->recv = malloc((size_t)opts->max_bytes * (size_t)b->size);
    if (!b->send || !b->recv)
        fprintf(stderr, "ftcoll-bench allgather: rank %d: out of memory for buffers\n", b->rank);
    /* All ranks stop together, or one left alone would wait in a collective. */
    int have_buffers = b->send && b->recv, everyone_has = 0;
    MPI_Allreduce(&have_buffers, &everyone_has, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return everyone_has ? open_csv(b) : BENCH_FAILED;
}

static void bench_close(bench *b)
{
    if (b->csv)
        fclose(b->csv);
    if (b->ours)
        ftc_comm_free(&b->ours);
    if (b->native != MPI_COMM_NULL)
        MPI_Comm_free(&b->native);
    free(b->send);
    free(b->recv);
}

static int run_algorithm(bench *b, ftc_allgather_algorithm algorithm)
{
    ftc_allgather_set_algorithm(b->ours, algorithm);
    if (b->rank == 0)
        print_table_header(b, algorithm);
    char last_note[512] = "";
    for (long long bytes = b->opts->min_bytes; bytes <= b->opts->max_bytes;
         bytes *= b->opts->factor) {
        size_result r;
        const int rc = measure_size(b, (size_t)bytes, &r);
        if (rc != BENCH_OK)
            return rc;
        if (b->rank == 0)
            print_row(b, &r, last_note, sizeof(last_note));
        if (b->csv)
            write_csv_row(b, &r);
    }
    return BENCH_OK;
}

int bench_allgather_main(int argc, char **argv)
{
    options opts;
    int rc = parse_options(argc, argv, &opts);
    if (rc != BENCH_OK)
        return rc;
    if (opts.help) {
        if (bench_is_first_process())
            print_usage();
        return BENCH_OK;
    }
    MPI_Init(NULL, NULL);
    bench b;
    rc = bench_open(&b, &opts);
    if (rc == BENCH_OK && b.rank == 0)
        print_conditions(&b);
    for (int i = 0; rc == BENCH_OK && i < opts.algorithm_count; i++)
        rc = run_algorithm(&b, opts.algorithms[i]);
    bench_close(&b);
    MPI_Finalize();
    return rc;
}
