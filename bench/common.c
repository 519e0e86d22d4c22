/*
 * ftcoll-bench: helpers every subcommand uses (see bench.h), and the
 * measurement of one ftcoll collective against the MPI library's.
 *
 * For each size (from --min-bytes to --max-bytes, times --factor each time):
 *
 *  1. Check: one call of each side on a known pattern, compared on every
 *     rank. A wrong result, or an error from ftcoll, stops the run: a broken
 *     call is never timed. An MPI error from the native call only marks the
 *     native side "n/a" (Open MPI refuses a forced allgather two_proc on
 *     p != 2 with MPI_ERR_UNSUPPORTED_OPERATION) and ours is timed alone.
 *  2. Warm-up: WARMUP_PAIRS iterations, timed on rank 0 to size the run:
 *     --iterations, or as many as fit in --seconds-per-size (more for small
 *     sizes), within BENCH_{MIN,MAX}_ADAPTIVE_ITERATIONS.
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
#include "bench.h"
#include "median.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- before MPI_Init ------------------------------------------------------ */

bool bench_is_first_process(void)
{
    /* Open MPI, PMIx launchers (Open MPI 5, Slurm), MPICH's Hydra. */
    static const char *const rank_variables[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                                  "PMI_RANK" };
    for (size_t i = 0; i < sizeof(rank_variables) / sizeof(rank_variables[0]); i++) {
        const char *rank = getenv(rank_variables[i]);
        if (rank && *rank)
            return strcmp(rank, "0") == 0;
    }
    return true;
}

int bench_usage_error(const char *subcommand, const char *format, ...)
{
    if (!bench_is_first_process())
        return BENCH_USAGE;
    fprintf(stderr, "ftcoll-bench%s%s: ", subcommand ? " " : "", subcommand ? subcommand : "");
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\nTry 'ftcoll-bench%s%s --help'.\n", subcommand ? " " : "",
            subcommand ? subcommand : "");
    return BENCH_USAGE;
}

bool bench_option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    const size_t length = strlen(name);
    if (strncmp(arg, name, length) != 0)
        return false;
    if (arg[length] == '=') {
        *value = arg + length + 1;
        (*i)++;
        return true;
    }
    if (arg[length] != '\0')
        return false;   /* a longer option that merely starts with `name` */
    *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    *i += *value ? 2 : 1;
    return true;
}

bool bench_parse_bytes(const char *text, long long *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (end == text || errno == ERANGE || value <= 0)
        return false;
    long long unit = 1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': unit = 1LL << 10; end++; break;
    case 'm': case 'M': unit = 1LL << 20; end++; break;
    case 'g': case 'G': unit = 1LL << 30; end++; break;
    default: return false;
    }
    if (*end != '\0' || value > LLONG_MAX / unit)
        return false;
    *out = value * unit;
    return true;
}

bool bench_parse_positive_int(const char *text, int *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value <= 0 || value > INT_MAX)
        return false;
    *out = (int)value;
    return true;
}

bool bench_parse_positive_seconds(const char *text, double *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(value > 0.0) || value > 3600.0)
        return false;
    *out = value;
    return true;
}

/* ---- statistics ------------------------------------------------------------- */

void bench_stats_of(double *samples, int n, bench_stats *out)
{
    out->median = bench_median(samples, n);   /* sorted from here on */
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += samples[i];
    out->mean = sum / n;
    out->min = samples[0];
    /* Nearest rank: the smallest sample with at least 90% of them at or below it. */
    const int p90_rank = (9 * n + 9) / 10;   /* ceil(0.9 n), 1-based */
    out->p90 = samples[p90_rank - 1];
}

/* ---- CSV -------------------------------------------------------------------- */

FILE *bench_csv_open(const char *path, const char *header)
{
    FILE *csv = fopen(path, "a");
    if (!csv)
        return NULL;
    /* The position of a stream opened for appending is only defined after a
     * seek: go to the end explicitly to learn whether the file is empty. */
    if (fseek(csv, 0, SEEK_END) == 0 && ftell(csv) == 0)
        fprintf(csv, "%s\n", header);
    return csv;
}

void bench_csv_text(FILE *csv, const char *text)
{
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case ',': fputc(';', csv); break;
        case '"': case '\n': case '\r': fputc(' ', csv); break;
        default: fputc(*c, csv);
        }
    }
}


/* ---- environment -------------------------------------------------------------- */

static bool equal_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

bool bench_env_is_true(const char *name)
{
    const char *text = getenv(name);
    static const char *const yes[] = { "1", "true", "yes", "t", "y", "enabled" };
    for (size_t i = 0; text && i < sizeof(yes) / sizeof(yes[0]); i++)
        if (equal_ignoring_case(text, yes[i]))
            return true;
    return false;
}

void bench_default_native_label(char *label, size_t size)
{
#ifdef OPEN_MPI
    snprintf(label, size, "ompi:default");
#else
    snprintf(label, size, "native");
#endif
}

/* ---- the common options ---------------------------------------------------------- */

enum {
    WARMUP_PAIRS = 6,
    WARMUP_SETTLING = 3,         /* warm-up pairs left out of the estimate */
};

static const bench_options default_options = {
    .min_bytes = 8,
    .max_bytes = 1 << 20,
    .factor = 2,
    .iterations = 0,
    .seconds_per_size = BENCH_DEFAULT_SECONDS_PER_SIZE,
};

void bench_print_common_options(const char *unit, const char *native_default)
{
    printf("  --min-bytes N              smallest %s, bytes per rank (default 8;\n"
           "                             K, M, G suffixes: x1024)\n"
           "  --max-bytes N              largest %s (default 1M)\n"
           "  --factor F                 next %s = F x this one (default 2)\n"
           "  --iterations N             timed iterations per size (default: adapt, as\n"
           "                             many as fit in --seconds-per-size, %d..%d)\n"
           "  --seconds-per-size S       time budget of one size when adapting (default %.1f)\n"
           "  --csv FILE                 append one row per size to FILE (header if new)\n"
           "  --native-label TEXT        name of the native side in the output (default:\n"
           "                             %s)\n"
           "  --help                     this text\n\n"
           "Each iteration times both calls after a barrier; the sample is the max over\n"
           "ranks; reported: medians and ratio = ours / native.\n",
           unit, unit, unit, BENCH_MIN_ADAPTIVE_ITERATIONS, BENCH_MAX_ADAPTIVE_ITERATIONS,
           default_options.seconds_per_size, native_default);
}

static bool set_min_bytes(void *o, const char *text)
{
    return bench_parse_bytes(text, &((bench_options *)o)->min_bytes);
}

static bool set_max_bytes(void *o, const char *text)
{
    return bench_parse_bytes(text, &((bench_options *)o)->max_bytes);
}

static bool set_iterations(void *o, const char *text)
{
    return bench_parse_positive_int(text, &((bench_options *)o)->iterations);
}

static bool set_csv(void *o, const char *text)
{
    ((bench_options *)o)->csv_path = text;
    return *text != '\0';
}

static bool set_native_label(void *o, const char *text)
{
    ((bench_options *)o)->native_label = text;
    return *text != '\0';
}

static bool set_factor(void *target, const char *text)
{
    bench_options *o = target;
    return bench_parse_positive_int(text, &o->factor) && o->factor >= 2;
}

static bool set_seconds(void *target, const char *text)
{
    bench_options *o = target;
    return bench_parse_positive_seconds(text, &o->seconds_per_size);
}

static const bench_option_spec option_specs[] = {
    { "--min-bytes", set_min_bytes, "a positive byte count (8, 4K, 1M)" },
    { "--max-bytes", set_max_bytes, "a positive byte count (8, 4K, 1M)" },
    { "--factor", set_factor, "an integer >= 2" },
    { "--iterations", set_iterations, "a positive integer" },
    { "--seconds-per-size", set_seconds, "seconds, > 0 and <= 3600" },
    { "--csv", set_csv, "a file name" },
    { "--native-label", set_native_label, "a non-empty text" },
};

int bench_apply_option(const char *subcommand, const bench_option_spec *specs, size_t n,
                       int argc, char **argv, int *i, void *target)
{
    for (size_t k = 0; k < n; k++) {
        const char *value = NULL;
        if (!bench_option_value(argc, argv, i, specs[k].name, &value))
            continue;
        if (!value)
            return bench_usage_error(subcommand, "%s needs a value", specs[k].name);
        if (specs[k].set(target, value))
            return BENCH_OK;
        return bench_usage_error(subcommand, "%s \"%s\": expected %s", specs[k].name, value,
                                 specs[k].expected);
    }
    return -1;
}

static int parse_options(int argc, char **argv, const bench_collective *c, void *data,
                         bench_options *o)
{
    *o = default_options;
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
            return BENCH_OK;
        }
        int rc = c->parse_option ? c->parse_option(argc, argv, &i, data) : -1;
        if (rc == -1)
            rc = bench_apply_option(c->name, option_specs,
                                    sizeof(option_specs) / sizeof(option_specs[0]), argc, argv,
                                    &i, o);
        if (rc == -1)
            return bench_usage_error(c->name, "unknown option \"%s\"", argv[i]);
        if (rc != BENCH_OK)
            return rc;
    }
    if (o->min_bytes > o->max_bytes)
        return bench_usage_error(c->name, "--min-bytes %lld is larger than --max-bytes %lld",
                                 o->min_bytes, o->max_bytes);
    return BENCH_OK;
}

/* ---- one size ------------------------------------------------------------------------ */

/* What one size gave. */
typedef struct {
    size_t bytes;
    int iterations;
    bench_ours_description ours_ran;
    bool native_ok;
    char native_status[320];     /* "ok", or "n/a: why" */
    bench_stats ours, native;    /* rank 0 */
    double pair_ratio;           /* rank 0: median of per-iteration ours/native */
} size_result;

/* Stops every rank: for failures that can only be bugs, after the check. */
static void abort_run(const bench_session *s, const char *what, size_t bytes, const char *why)
{
    fprintf(stderr, "ftcoll-bench %s: rank %d: %s failed at %zu bytes: %s\n",
            s->collective->name, s->rank, what, bytes, why);
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

static int call_side(bench_session *s, size_t bytes, bool ours)
{
    return ours ? s->collective->call_ours(s, bytes) : s->collective->call_native(s, bytes);
}

/* ---- correctness ------------------------------------------------------------------ */

typedef enum { CHECK_OK = 0, CHECK_CALL_FAILED = 1, CHECK_WRONG_RESULT = 2 } check_outcome;

/*
 * One call on poisoned output, checked on every rank; the ranks agree on the
 * worst outcome. `rc` and `why` are this rank's own (why: "" when fine; for
 * ours, ftcoll's message when the call failed).
 */
static check_outcome check_call(bench_session *s, size_t bytes, bool ours, int *rc, char *why,
                                size_t why_size)
{
    why[0] = '\0';
    s->collective->poison_output(s, bytes);
    *rc = call_side(s, bytes, ours);
    int local = CHECK_OK;
    if (*rc != MPI_SUCCESS) {
        local = CHECK_CALL_FAILED;
        if (ours)   /* now, before any other ftcoll call replaces it */
            snprintf(why, why_size, "%s", ftc_error_message());
    } else if (!s->collective->output_is_correct(s, bytes, why, why_size)) {
        local = CHECK_WRONG_RESULT;
    }
    int worst = CHECK_OK;
    MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return (check_outcome)worst;
}

static int check_ours(bench_session *s, size_result *r)
{
    int rc;
    char why[600];
    const check_outcome outcome = check_call(s, r->bytes, true, &rc, why, sizeof(why));
    s->collective->describe_ours(s, &r->ours_ran);
    if (outcome == CHECK_OK)
        return BENCH_OK;
    const char *name = s->collective->name, *call = r->ours_ran.call;
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "ftcoll-bench %s: rank %d: %s failed at %zu bytes: %s\n", name, s->rank,
                call, r->bytes, why);
    else if (why[0])
        fprintf(stderr, "ftcoll-bench %s: rank %d: %s gave a wrong result at %zu bytes: %s\n",
                name, s->rank, call, r->bytes, why);
    return BENCH_FAILED;
}

/* Why the native call cannot be timed, in words, from rank 0's point of view. */
static void explain_native_failure(const bench_session *s, int rc, char *status, size_t size)
{
    const char *native_call = s->collective->native_call;
    char words[MPI_MAX_ERROR_STRING];
    if (rc == MPI_SUCCESS) {
        snprintf(status, size, "n/a: %s failed on other ranks than 0", native_call);
        return;
    }
    mpi_error_text(rc, words, sizeof(words));
    if (!s->collective->explain_native_failure
        || !s->collective->explain_native_failure(s, rc, words, status, size))
        snprintf(status, size, "n/a: %s failed: %.200s", native_call, words);
}

static int check_native(bench_session *s, size_result *r)
{
    int rc;
    char why[200];
    const check_outcome outcome = check_call(s, r->bytes, false, &rc, why, sizeof(why));
    r->native_ok = outcome == CHECK_OK;
    snprintf(r->native_status, sizeof(r->native_status), "ok");
    if (outcome == CHECK_CALL_FAILED)
        explain_native_failure(s, rc, r->native_status, sizeof(r->native_status));
    if (outcome != CHECK_WRONG_RESULT)
        return BENCH_OK;
    /* Most likely a bug of this benchmark's own: never time it. */
    if (why[0])
        fprintf(stderr, "ftcoll-bench %s: rank %d: %s (%s) gave a wrong result at %zu bytes: %s\n",
                s->collective->name, s->rank, s->collective->native_call, s->native_label,
                r->bytes, why);
    return BENCH_FAILED;
}

/* ---- timing ---------------------------------------------------------------------- */

static double time_call(bench_session *s, size_t bytes, bool ours)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    const int rc = call_side(s, bytes, ours);
    const double elapsed = MPI_Wtime() - start;
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING + 600];
        if (ours)
            snprintf(why, sizeof(why), "%s", ftc_error_message());
        else
            mpi_error_text(rc, why, sizeof(why));
        abort_run(s, ours ? s->collective->ours_call : s->collective->native_call, bytes, why);
    }
    return elapsed;
}

/* One iteration: both calls back to back, ours first on even iterations. */
static void time_pair(bench_session *s, size_t bytes, bool native_ok, int iteration,
                      double *ours, double *native)
{
    const bool ours_first = iteration % 2 == 0;
    if (ours_first)
        *ours = time_call(s, bytes, true);
    if (native_ok)
        *native = time_call(s, bytes, false);
    if (!ours_first)
        *ours = time_call(s, bytes, true);
}

/* Warms up, then picks the iteration count on rank 0 and tells everyone.
 * The estimate is the median of the warm-up pairs after the first
 * WARMUP_SETTLING ones, which carry first-contact costs (connections, plans);
 * a median, so that one descheduled pair on a busy node does not cut the run
 * of a small size tenfold. */
static int warm_up_and_count_iterations(bench_session *s, size_t bytes, bool native_ok)
{
    double ours = 0.0, native = 0.0, pair_seconds[WARMUP_PAIRS];
    for (int i = 0; i < WARMUP_PAIRS; i++) {
        const double start = MPI_Wtime();
        time_pair(s, bytes, native_ok, i, &ours, &native);
        pair_seconds[i] = MPI_Wtime() - start;
    }
    bench_stats settled;
    bench_stats_of(pair_seconds + WARMUP_SETTLING, WARMUP_PAIRS - WARMUP_SETTLING, &settled);
    int iterations = s->opts->iterations;
    if (iterations == 0) {
        const double fit = s->opts->seconds_per_size / (settled.median > 0 ? settled.median : 1e-9);
        iterations = fit < BENCH_MIN_ADAPTIVE_ITERATIONS ? BENCH_MIN_ADAPTIVE_ITERATIONS
                   : fit > BENCH_MAX_ADAPTIVE_ITERATIONS ? BENCH_MAX_ADAPTIVE_ITERATIONS
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

static void time_iterations(bench_session *s, size_result *r)
{
    const size_t n = (size_t)r->iterations;
    double *ours = calloc(n, sizeof(double)), *native = calloc(n, sizeof(double));
    double *ours_max = calloc(n, sizeof(double)), *native_max = calloc(n, sizeof(double));
    if (!ours || !native || !ours_max || !native_max)
        abort_run(s, "allocating timing samples", r->bytes, "out of memory");
    for (int i = 0; i < r->iterations; i++)
        time_pair(s, r->bytes, r->native_ok, i, &ours[i], &native[i]);
    reduce_samples(ours, ours_max, r->iterations);
    if (r->native_ok)
        reduce_samples(native, native_max, r->iterations);
    if (s->rank == 0 && r->native_ok)
        r->pair_ratio = median_pair_ratio(ours_max, native_max, r->iterations);
    if (s->rank == 0)
        bench_stats_of(ours_max, r->iterations, &r->ours);
    if (s->rank == 0 && r->native_ok)
        bench_stats_of(native_max, r->iterations, &r->native);
    free(ours);
    free(native);
    free(ours_max);
    free(native_max);
}

static int measure_size(bench_session *s, size_t bytes, size_result *r)
{
    memset(r, 0, sizeof(*r));
    r->bytes = bytes;
    s->collective->fill_input(s, bytes);
    int rc = check_ours(s, r);
    if (rc == BENCH_OK)
        rc = check_native(s, r);
    if (rc != BENCH_OK)
        return rc;
    r->iterations = warm_up_and_count_iterations(s, bytes, r->native_ok);
    time_iterations(s, r);
    return BENCH_OK;
}

/* ---- output (rank 0) --------------------------------------------------------------- */

/* Columns after the collective's own. */
static const char csv_measurement_columns[] =
    "native_label,native_status,bytes,iterations,ours_median_us,ours_mean_us,ours_p90_us,"
    "ours_min_us,native_median_us,native_mean_us,native_p90_us,native_min_us,ratio,pair_ratio";

static void print_conditions(const bench_session *s)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    version[strcspn(version, "\n")] = '\0';   /* the first line says enough */
    printf("# ftcoll-bench %s: p=%d ranks, %s\n"
           "# per iteration: barrier + ours, barrier + native (order alternates); sample = max "
           "over ranks; times in microseconds; ratio = ours_med / native_med; paired = median "
           "over iterations of ours / native\n",
           s->collective->name, s->size, version);
}

static void print_table_header(const bench_session *s, const char *ours)
{
    printf("\n## ours: %s | native: %s (%s)\n", ours, s->collective->native_call,
           s->native_label);
    printf("%-24s %-22s %9s %6s %11s %11s %11s %11s %7s %7s\n", "ours", "native", "bytes",
           "iters", "ours_med", "ours_p90", "native_med", "native_p90", "ratio", "paired");
    fflush(stdout);
}

static void print_row(const bench_session *s, const size_result *r, char *last_note,
                      size_t note_size)
{
    const char *ours_note = r->ours_ran.note;
    printf("%-24s %-22s %9zu %6d %11.2f %11.2f ", r->ours_ran.label, s->native_label, r->bytes,
           r->iterations, r->ours.median * 1e6, r->ours.p90 * 1e6);
    if (r->native_ok)
        printf("%11.2f %11.2f %7.3f %7.3f\n", r->native.median * 1e6, r->native.p90 * 1e6,
               r->ours.median / r->native.median, r->pair_ratio);
    else
        printf("%11s %11s %7s %7s\n", "n/a", "n/a", "n/a", "n/a");
    /* Notes once, under the first row they concern. */
    char note[512];
    snprintf(note, sizeof(note), "%s%s%s", ours_note, ours_note[0] && !r->native_ok ? " | " : "",
             r->native_ok ? "" : r->native_status);
    if (note[0] && strcmp(note, last_note) != 0) {
        if (ours_note[0])
            printf("    * ftcoll: %s\n", ours_note);
        if (!r->native_ok)
            printf("    native %s\n", r->native_status);
        snprintf(last_note, note_size, "%s", note);
    }
    fflush(stdout);
}

static void csv_stats(FILE *csv, const bench_stats *st)
{
    fprintf(csv, ",%.3f,%.3f,%.3f,%.3f", st->median * 1e6, st->mean * 1e6, st->p90 * 1e6,
            st->min * 1e6);
}

static void write_csv_row(const bench_session *s, const size_result *r)
{
    FILE *csv = s->csv;
    fprintf(csv, "%d,", s->size);
    s->collective->write_csv_fields(s, csv);
    fputc(',', csv);
    bench_csv_text(csv, s->native_label);
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

int bench_measure_sizes(bench_session *s, const char *ours)
{
    if (s->rank == 0)
        print_table_header(s, ours);
    char last_note[512] = "";
    for (long long bytes = s->opts->min_bytes; bytes <= s->opts->max_bytes;
         bytes *= s->opts->factor) {
        size_result r;
        const int rc = measure_size(s, (size_t)bytes, &r);
        if (rc != BENCH_OK)
            return rc;
        if (s->rank == 0)
            print_row(s, &r, last_note, sizeof(last_note));
        if (s->csv)
            write_csv_row(s, &r);
    }
    return BENCH_OK;
}

/* ---- set-up and the run ------------------------------------------------------------- */

/* Rank 0 opens the CSV; everyone learns whether it could. */
static int open_csv(bench_session *s)
{
    int ok = 1;
    if (s->rank == 0 && s->opts->csv_path) {
        char header[1024];
        snprintf(header, sizeof(header), "ranks,%s,%s", s->collective->csv_columns,
                 csv_measurement_columns);
        s->csv = bench_csv_open(s->opts->csv_path, header);
        if (!s->csv) {
            perror(s->opts->csv_path);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok ? BENCH_OK : BENCH_FAILED;
}

static int session_open(bench_session *s, const bench_collective *c, const bench_options *opts,
                        void *data)
{
    memset(s, 0, sizeof(*s));
    s->collective = c;
    s->opts = opts;
    s->data = data;
    s->native = MPI_COMM_NULL;
    c->native_label(s, s->native_label, sizeof(s->native_label));
    if (opts->native_label)
        snprintf(s->native_label, sizeof(s->native_label), "%s", opts->native_label);
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    size_t send_bytes = 0, recv_bytes = 0;
    int rc = c->buffer_bytes(s, &send_bytes, &recv_bytes);
    if (rc != BENCH_OK)
        return rc;
    if (ftc_comm_create(MPI_COMM_WORLD, &s->ours) != MPI_SUCCESS) {
        fprintf(stderr, "ftcoll-bench %s: rank %d: ftc_comm_create: %s\n", c->name, s->rank,
                ftc_error_message());
        return BENCH_FAILED;
    }
    /* Errors returned, not fatal: a forced algorithm Open MPI refuses must
     * show as "n/a", not end the job. */
    MPI_Comm_dup(MPI_COMM_WORLD, &s->native);
    MPI_Comm_set_errhandler(s->native, MPI_ERRORS_RETURN);
    s->send = malloc(send_bytes);
    s->recv = malloc(recv_bytes);
    if (!s->send || !s->recv)
        fprintf(stderr, "ftcoll-bench %s: rank %d: out of memory for buffers\n", c->name, s->rank);
    /* All ranks stop together, or one left alone would wait in a collective. */
    int have_buffers = s->send && s->recv, everyone_has = 0;
    MPI_Allreduce(&have_buffers, &everyone_has, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return everyone_has ? open_csv(s) : BENCH_FAILED;
}

static void session_close(bench_session *s)
{
    if (s->csv)
        fclose(s->csv);
    if (s->ours)
        ftc_comm_free(&s->ours);
    if (s->native != MPI_COMM_NULL)
        MPI_Comm_free(&s->native);
    free(s->send);
    free(s->recv);
}

int bench_collective_main(int argc, char **argv, const bench_collective *c, void *data)
{
    bench_options opts;
    int rc = parse_options(argc, argv, c, data, &opts);
    if (rc != BENCH_OK)
        return rc;
    if (opts.help) {
        if (bench_is_first_process())
            c->print_usage();
        return BENCH_OK;
    }
    MPI_Init(NULL, NULL);
    bench_session s;
    rc = session_open(&s, c, &opts, data);
    if (rc == BENCH_OK && s.rank == 0)
        print_conditions(&s);
    if (rc == BENCH_OK)
        rc = c->run(&s);
    session_close(&s);
    MPI_Finalize();
    return rc;
}
