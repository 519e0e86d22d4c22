/*
 * ftcoll-bench guard: what the guard costs a collective, against one
 * MPI_Barrier on the same communicator, in one job:
 *
 *   for each --every N (default 1, 4, 16), --rounds rounds; each round
 *   times, in an order that rotates, --calls back-to-back calls of
 *     unguarded  ftc_allreduce of one double, the guard off
 *     guarded    the same with the guard on, every N-th call checked in
 *     check-in   ftc_guard_check alone (a check-in, no collective)
 *     barrier    MPI_Barrier on a duplicate of MPI_COMM_WORLD
 *   A sample is the time per call, the max over ranks; reported: medians,
 *   the cost (guarded - unguarded) and cost / barrier (target: <= 1).
 *
 * --calls is a multiple of every N, so each guarded sample holds exactly
 * calls / N check-ins. Rank 0 prints a table and, with --csv, appends rows.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench.h"
#include "ftcoll.h"

#define SUBCOMMAND "guard"

enum { KIND_UNGUARDED, KIND_GUARDED, KIND_CHECKIN, KIND_BARRIER, KINDS };

enum { MAX_SETTINGS = 8 };

typedef struct {
    int rounds;
    int calls;
    int every[MAX_SETTINGS];
    int nevery;
    const char *csv_path;
    bool help;
} guard_options;

static bool set_rounds(void *o, const char *text)
{
    return bench_parse_positive_int(text, &((guard_options *)o)->rounds);
}

static bool set_calls(void *o, const char *text)
{
    return bench_parse_positive_int(text, &((guard_options *)o)->calls);
}

static bool set_csv(void *o, const char *text)
{
    ((guard_options *)o)->csv_path = text;
    return *text != '\0';
}

/* "1,4,16": positive counts, at most MAX_SETTINGS. */
static bool set_every(void *o, const char *text)
{
    guard_options *opts = o;
    char copy[128];
    if (strlen(text) >= sizeof(copy))
        return false;
    snprintf(copy, sizeof(copy), "%s", text);
    opts->nevery = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (opts->nevery == MAX_SETTINGS || !bench_parse_positive_int(t, &opts->every[opts->nevery++]))
            return false;
    return opts->nevery > 0;
}

static const bench_option_spec option_specs[] = {
    { "--rounds", set_rounds, "a positive number of rounds" },
    { "--calls", set_calls, "a positive number of calls per sample" },
    { "--every", set_every, "a comma-separated list of positive counts, e.g. 1,4,16" },
    { "--csv", set_csv, "a file path" },
};

static void print_usage(void)
{
    printf("Usage: mpirun -n RANKS ftcoll-bench " SUBCOMMAND " [OPTIONS]\n\n"
           "The guard's cost per collective (ftc_allreduce of one double, guarded minus\n"
           "unguarded) against one MPI_Barrier, measured interleaved in the same job.\n\n"
           "Options:\n"
           "  --every N[,N...]           guard every N-th call (default 1,4,16)\n"
           "  --rounds N                 samples of each kind per setting (default 200)\n"
           "  --calls K                  calls per sample, a multiple of every N\n"
           "                             (default 48)\n"
           "  --csv FILE                 append one row per setting (header if new)\n"
           "  --help                     this text\n");
}

static int parse_options(int argc, char **argv, guard_options *o)
{
    *o = (guard_options){ .rounds = 200, .calls = 48, .every = { 1, 4, 16 }, .nevery = 3 };
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
            return BENCH_OK;
        }
        const int rc = bench_apply_option(SUBCOMMAND, option_specs,
                                          sizeof(option_specs) / sizeof(option_specs[0]), argc,
                                          argv, &i, o);
        if (rc == -1)
            return bench_usage_error(SUBCOMMAND, "unknown option \"%s\"", argv[i]);
        if (rc != BENCH_OK)
            return rc;
    }
    for (int s = 0; s < o->nevery; s++)
        if (o->calls % o->every[s] != 0)
            return bench_usage_error(SUBCOMMAND, "--calls %d is not a multiple of every %d",
                                     o->calls, o->every[s]);
    return BENCH_OK;
}

/* ---- measuring -------------------------------------------------------------- */

typedef struct {
    ftc_comm_t comm;
    MPI_Comm native;
    const guard_options *opts;
} guard_session;

static int call_kind(guard_session *g, int kind, int every)
{
    double in = 1.0, out = 0.0;
    switch (kind) {
    case KIND_UNGUARDED:
    case KIND_GUARDED:
        ftc_guard_set(g->comm, kind == KIND_GUARDED ? every : 0, 60.0);
        return ftc_allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, g->comm);
    case KIND_CHECKIN:
        return ftc_guard_check(g->comm);
    default:
        return MPI_Barrier(g->native);
    }
}

/* Seconds per call of `calls` back-to-back calls, after a barrier. */
static double time_sample(guard_session *g, int kind, int every, int *rc)
{
    MPI_Barrier(g->native);
    const double start = MPI_Wtime();
    for (int i = 0; i < g->opts->calls && *rc == MPI_SUCCESS; i++)
        *rc = call_kind(g, kind, every);
    return (MPI_Wtime() - start) / g->opts->calls;
}

typedef struct {
    int every;
    bench_stats stats[KINDS];
} setting_result;

static int measure_setting(guard_session *g, int every, setting_result *out)
{
    const int rounds = g->opts->rounds;
    double *samples = malloc(sizeof(double) * (size_t)rounds * KINDS);
    double *worst = malloc(sizeof(double) * (size_t)rounds * KINDS);
    if (!samples || !worst) {
        free(samples);
        free(worst);
        return BENCH_FAILED;
    }
    int rc = MPI_SUCCESS;
    for (int warm = 0; warm < KINDS; warm++)
        time_sample(g, warm, every, &rc);
    for (int round = 0; round < rounds && rc == MPI_SUCCESS; round++)
        for (int k = 0; k < KINDS; k++) {
            const int kind = (k + round) % KINDS;   /* rotate who goes first */
            samples[kind * rounds + round] = time_sample(g, kind, every, &rc);
        }
    int failed = rc != MPI_SUCCESS, any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, g->native);
    if (!any_failed)
        MPI_Allreduce(samples, worst, rounds * KINDS, MPI_DOUBLE, MPI_MAX, g->native);
    out->every = every;
    for (int k = 0; k < KINDS && !any_failed; k++)
        bench_stats_of(&worst[k * rounds], rounds, &out->stats[k]);
    if (failed)
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": a call failed: %s\n", ftc_error_message());
    free(samples);
    free(worst);
    return any_failed ? BENCH_FAILED : BENCH_OK;
}

/* ---- reporting --------------------------------------------------------------- */

static void print_header(int p)
{
    int provided = 0;
    MPI_Query_thread(&provided);
    printf("# ftcoll-bench guard: p=%d; medians of the per-call time (us), max over ranks;\n"
           "# cost = guarded - unguarded; cost/barrier target <= 1.00\n", p);
    printf("%5s %6s %10s %9s %9s %9s %8s %12s %7s\n", "ranks", "every", "unguarded", "guarded",
           "cost", "check-in", "barrier", "cost/barrier", "verdict");
}

static double median_us(const setting_result *r, int kind)
{
    return 1e6 * r->stats[kind].median;
}

static void print_row(int p, const setting_result *r)
{
    const double cost = median_us(r, KIND_GUARDED) - median_us(r, KIND_UNGUARDED);
    const double ratio = cost / median_us(r, KIND_BARRIER);
    printf("%5d %6d %10.2f %9.2f %9.2f %9.2f %8.2f %12.3f %7s\n", p, r->every,
           median_us(r, KIND_UNGUARDED), median_us(r, KIND_GUARDED), cost,
           median_us(r, KIND_CHECKIN), median_us(r, KIND_BARRIER), ratio,
           ratio <= 1.0 ? "PASS" : "MISS");
}

static void write_csv(FILE *csv, int p, const setting_result *r)
{
    const double cost = median_us(r, KIND_GUARDED) - median_us(r, KIND_UNGUARDED);
    fprintf(csv, "%d,%d", p, r->every);
    for (int k = 0; k < KINDS; k++)
        fprintf(csv, ",%.3f", median_us(r, k));
    fprintf(csv, ",%.3f,%.4f\n", cost, cost / median_us(r, KIND_BARRIER));
}

static int run(guard_session *g, int rank, int p)
{
    FILE *csv = NULL;
    if (rank == 0 && g->opts->csv_path) {
        csv = bench_csv_open(g->opts->csv_path, "ranks,every,unguarded_us,guarded_us,checkin_us,"
                                                "barrier_us,cost_us,cost_per_barrier");
        if (!csv)
            perror(g->opts->csv_path);
    }
    if (rank == 0)
        print_header(p);
    int rc = BENCH_OK;
    for (int s = 0; s < g->opts->nevery && rc == BENCH_OK; s++) {
        setting_result r;
        rc = measure_setting(g, g->opts->every[s], &r);
        if (rc == BENCH_OK && rank == 0) {
            print_row(p, &r);
            fflush(stdout);
            if (csv)
                write_csv(csv, p, &r);
        }
    }
    if (csv)
        fclose(csv);
    return rc;
}

int bench_guard_main(int argc, char **argv)
{
    guard_options opts;
    int rc = parse_options(argc, argv, &opts);
    if (rc != BENCH_OK)
        return rc;
    if (opts.help) {
        if (bench_is_first_process())
            print_usage();
        return BENCH_OK;
    }
    MPI_Init(&argc, &argv);
    int rank = 0, p = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    guard_session g = { .opts = &opts };
    MPI_Comm_dup(MPI_COMM_WORLD, &g.native);
    if (ftc_comm_create(MPI_COMM_WORLD, &g.comm) != MPI_SUCCESS) {
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": ftc_comm_create: %s\n", ftc_error_message());
        MPI_Abort(MPI_COMM_WORLD, BENCH_FAILED);
    }
    rc = run(&g, rank, p);
    ftc_comm_free(&g.comm);
    MPI_Comm_free(&g.native);
    MPI_Finalize();
    return rc;
}
