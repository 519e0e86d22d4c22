/*
 * ftcoll-bench allreduce-recovery: what one rank's death costs an allreduce,
 * with ftcoll or with the recovery an application writes by hand on ULFM.
 * MPI_SUM on MPI_DOUBLE; one mpirun job of at least 2 ranks:
 *
 *  1. Failure-free: --iterations pairs of ftc_allreduce and MPI_Allreduce,
 *     the order alternating, a barrier before each call; the sample of a
 *     call is the max over ranks; reported: the median of each side.
 *  2. One failing call, of the kind --measure names, the job's only failure
 *     (see below), --settle milliseconds after the failure-free part. The
 *     survivors time it from entry to return.
 *     ftcoll: ftcoll's own fault injection (ftc_inject) kills --victim inside
 *       the next ftc_allreduce, at --step, before its send; the call's report
 *       gives S (the ranks whose inputs the result holds, the dead one
 *       included if a survivor held its contribution)
 *       and the time from the failure's detection to return.
 *     alternative: --victim raises SIGKILL right before an MPI_Allreduce on
 *       the failure-free one's communicator; the others run the usual ULFM
 *       sequence (MPI_Allreduce, revoke on error, MPIX_Comm_agree, revoke,
 *       MPIX_Comm_shrink, MPI_Allreduce again on the shrunk communicator).
 *       The redo has no input from the dead rank: its contribution is lost.
 *  3. The survivors' rank 0 prints the conditions, the result check and a
 *     "RECOVERY key=value ..." line for scripts/bench-allreduce-recovery.sh.
 *
 * One failure per job, so that every sample starts from the same state.
 * The settling wait: under Open MPI 5.0.7 a death in the first ~50 ms after
 * MPI_Init reaches the survivors' PMIx 20-45 ms after it happened, a death
 * later on in 1-3 ms (measured at p = 2 and p = 8, for a job's first death
 * as for its second): without the wait this run's failing call, which
 * comes a few milliseconds after start-up, measures the runtime's start-up
 * rather than a recovery, for MPI_Allreduce and ftc_allreduce alike.
 * --settle 0 measures it that way.
 *
 * Rank r contributes r + 1 in every element, so any sum over a set of ranks
 * is exact in a double and the result must equal the sum over the ranks the
 * call says it holds, bit for bit.
 *
 * After a rank died, Open MPI 5.0.7's MPI_Finalize now and then waits
 * forever in a PMIx fence: once everything is printed, the survivors meet
 * in a last barrier and leave with _exit. Without ULFM there is nothing to
 * recover from: the subcommand says so and exits 0.
 */
#define _POSIX_C_SOURCE 200809L /* _exit, nanosleep */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "bench.h"
#include "ftcoll.h"

#define SUBCOMMAND "allreduce-recovery"

/* Which failing call a job measures. */
typedef enum { MEASURE_FTCOLL, MEASURE_ALTERNATIVE, MEASURE_KINDS } measure_kind;

static const char *const measure_names[MEASURE_KINDS] = { "ftcoll", "alternative" };

typedef struct {
    long long bytes;     /* the vector per rank */
    int iterations;      /* failure-free pairs */
    int victim;          /* -1: the last rank */
    int settle_ms;       /* wait before the failing call (see the top) */
    const char *step;    /* ftc_inject's step=: a number, fold-in, fold-out or handout */
    measure_kind measure;
    bool help;
} recovery_options;

static const recovery_options default_options = {
    .bytes = 8, .iterations = 20, .victim = -1, .settle_ms = 200, .step = "0",
    .measure = MEASURE_FTCOLL,
};

static void print_usage(void)
{
    printf("Usage: mpirun --with-ft ulfm -n RANKS ftcoll-bench " SUBCOMMAND " [OPTIONS]\n\n"
           "What one rank's death costs an allreduce (MPI_SUM on MPI_DOUBLE), in one job of\n"
           "at least 2 ranks: failure-free medians of ftc_allreduce and MPI_Allreduce, then\n"
           "one failing call, the job's only failure, --settle ms later:\n"
           "an ftc_allreduce in which fault injection kills a rank (ftcoll), or an\n"
           "MPI_Allreduce that loses a rank, recovered by hand: revoke, agree, shrink,\n"
           "MPI_Allreduce again (alternative). Needs an MPI with ULFM.\n\n"
           "Options:\n"
           "  --measure KIND             the failing call: ftcoll or alternative (default %s)\n"
           "  --bytes N                  vector per rank, a multiple of 8 (default 8;\n"
           "                             K, M, G suffixes: x1024)\n"
           "  --iterations N             failure-free pairs (default %d)\n"
           "  --victim R                 the rank that dies (default: the last)\n"
           "  --step S                   ftcoll only: where in the call: a recursive doubling\n"
           "                             step from 0, fold-in, fold-out or handout (default %s)\n"
           "  --settle MS                wait MS milliseconds before the failing call: Open MPI\n"
           "                             reports a death in the first ~50 ms after MPI_Init\n"
           "                             20-45 ms late (default %d)\n"
           "  --help                     this text\n\n"
           "Prints one \"RECOVERY key=value ...\" line (times in microseconds, max over the\n"
           "ranks alive at the end of the call). Exit status: 0 done, 1 nobody died or a\n"
           "result was wrong, 2 bad usage.\n",
           measure_names[default_options.measure], default_options.iterations,
           default_options.step, default_options.settle_ms);
}

/* ---- options (before MPI_Init) ------------------------------------------------------ */

static bool parse_rank(const char *text, int *out)
{
    if (strcmp(text, "0") == 0) {
        *out = 0;
        return true;
    }
    return bench_parse_positive_int(text, out);
}

static bool set_bytes(void *target, const char *text)
{
    recovery_options *o = target;
    return bench_parse_bytes(text, &o->bytes) && o->bytes % (long long)sizeof(double) == 0
        && o->bytes / (long long)sizeof(double) <= INT_MAX;
}

static bool set_iterations(void *target, const char *text)
{
    recovery_options *o = target;
    return bench_parse_positive_int(text, &o->iterations);
}

static bool set_victim(void *target, const char *text)
{
    recovery_options *o = target;
    return parse_rank(text, &o->victim);
}

static bool set_settle(void *target, const char *text)
{
    recovery_options *o = target;
    return parse_rank(text, &o->settle_ms);   /* 0 or more, as a rank */
}

/* The step names ftc_inject accepts; checked here so that a typo costs no MPI start-up. */
static bool set_step(void *target, const char *text)
{
    recovery_options *o = target;
    int number;
    o->step = text;
    return parse_rank(text, &number) || strcmp(text, "fold-in") == 0
        || strcmp(text, "fold-out") == 0 || strcmp(text, "handout") == 0;
}

static bool set_measure(void *target, const char *text)
{
    recovery_options *o = target;
    for (int kind = 0; kind < MEASURE_KINDS; kind++) {
        if (strcmp(text, measure_names[kind]) == 0) {
            o->measure = (measure_kind)kind;
            return true;
        }
    }
    return false;
}

static const bench_option_spec option_specs[] = {
    { "--measure", set_measure, "ftcoll or alternative" },
    { "--bytes", set_bytes, "a positive multiple of 8 bytes (8, 64K), at most INT_MAX doubles" },
    { "--iterations", set_iterations, "a positive integer" },
    { "--victim", set_victim, "a rank, 0 or more" },
    { "--step", set_step, "a step number from 0, fold-in, fold-out or handout" },
    { "--settle", set_settle, "milliseconds, 0 or more" },
};

/* Handles argv[*i]: BENCH_OK, BENCH_USAGE after a message. */
static int apply_option(int argc, char **argv, int *i, recovery_options *o)
{
    const int rc = bench_apply_option(SUBCOMMAND, option_specs,
                                      sizeof(option_specs) / sizeof(option_specs[0]), argc,
                                      argv, i, o);
    return rc != -1 ? rc : bench_usage_error(SUBCOMMAND, "unknown option \"%s\"", argv[*i]);
}

static int parse_options(int argc, char **argv, recovery_options *o)
{
    *o = default_options;
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
            return BENCH_OK;
        }
        const int rc = apply_option(argc, argv, &i, o);
        if (rc != BENCH_OK)
            return rc;
    }
    return BENCH_OK;
}

#ifdef FTCOLL_HAVE_ULFM

/* ---- the job's state ---------------------------------------------------------------- */

typedef struct {
    const recovery_options *opts;
    int rank, size;          /* in MPI_COMM_WORLD, which ftcoll's communicator copies */
    int victim, count;       /* count: doubles per rank */
    ftc_comm_t ours;
    MPI_Comm native;         /* MPI_COMM_WORLD's duplicate, returning errors */
    double *send, *recv;
    long ours_calls;         /* ftc_allreduce calls on `ours`: injection's call= counts them */
} recovery_run;

/* The failing call's result check: this rank's, then counted over the ranks left. */
typedef enum { CHECK_EXACT, CHECK_MISMATCH, CHECK_ERROR } check_outcome;

typedef struct {
    check_outcome mine;
    char why[512];                /* this rank's: "exact", or what was wrong */
    int mismatches, errors;       /* ranks whose result was wrong, whose call failed */
} result_check;

/* What the survivors' rank 0 prints; times in seconds, max over ranks. */
typedef struct {
    double ours_free, native_free;     /* failure-free medians */
    double failing;                    /* the failing call, entry to return */
    double recovery;                   /* ftcoll: its report's detection to return */
    char injection[96];                /* ftcoll: the spec given to ftc_inject */
    bool have_report;                  /* ftcoll: this rank's report */
    ftc_allreduce_report report;
    int kept;                          /* the victim's input in the result: 1, 0, -1 unknown */
    result_check check;
    int survivors;                     /* ranks left after the failing call */
} recovery_results;

/* ---- the calls and their checks -------------------------------------------------------- */

static int call_ours(recovery_run *r)
{
    r->ours_calls++;
    return ftc_allreduce(r->send, r->recv, r->count, MPI_DOUBLE, MPI_SUM, r->ours);
}

static void poison_recv(recovery_run *r)
{
    for (int i = 0; i < r->count; i++)
        r->recv[i] = NAN;   /* an element left unwritten cannot pass */
}

/* The wait before the failing call, on every rank (see the top). */
static void settle(const recovery_run *r)
{
    const struct timespec wait = { .tv_sec = r->opts->settle_ms / 1000,
                                   .tv_nsec = (long)(r->opts->settle_ms % 1000) * 1000000L };
    nanosleep(&wait, NULL);
}

/* True when every element is `expected`; else false, the first wrong one in `why`. */
static bool recv_holds(const recovery_run *r, double expected, char *why, size_t size)
{
    for (int i = 0; i < r->count; i++) {
        if (!(r->recv[i] == expected)) {   /* NaN compares false */
            snprintf(why, size, "element %d: got %.17g, expected %.17g", i, r->recv[i], expected);
            return false;
        }
    }
    snprintf(why, size, "exact");
    return true;
}

static void error_text(int rc, char *text, size_t size)
{
    int length = 0;
    if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS)
        snprintf(text, size, "MPI error %d", rc);
}

/* Sum of (world rank + 1) over the members of `comm`: what a sum over them gives. */
static double expected_over(MPI_Comm comm)
{
    MPI_Group group, world;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n;
    MPI_Group_size(group, &n);
    double sum = 0.0;
    for (int rank = 0; rank < n; rank++) {
        int world_rank = 0;
        MPI_Group_translate_ranks(group, 1, &rank, world, &world_rank);
        sum += world_rank + 1;
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return sum;
}

static int count_over(int local, MPI_Comm comm)
{
    int total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, comm);
    return total;
}

/* The max over `comm` of `seconds`, on its rank 0. */
static double max_on_root(double seconds, MPI_Comm comm)
{
    double max = 0.0;
    MPI_Reduce(&seconds, &max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    return max;
}

/* This rank's outcome against `expected`, said on stderr when it is not exact. */
static void check_recv(const recovery_run *r, double expected, const char *what,
                       result_check *check)
{
    check->mine = recv_holds(r, expected, check->why, sizeof(check->why)) ? CHECK_EXACT
                                                                           : CHECK_MISMATCH;
    if (check->mine != CHECK_EXACT)
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: %s: %s\n", r->rank, what,
                check->why);
}

static bool check_passed(const result_check *check)
{
    return check->mismatches == 0 && check->errors == 0;
}

/* ---- 1. failure-free ------------------------------------------------------------------ */

/* Everyone is alive here: a failed or wrong call is a bug, and stops the job. */
static double time_checked_call(recovery_run *r, bool ours)
{
    poison_recv(r);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    const int rc = ours ? call_ours(r)
                        : MPI_Allreduce(r->send, r->recv, r->count, MPI_DOUBLE, MPI_SUM, r->native);
    const double elapsed = MPI_Wtime() - start;
    char why[MPI_MAX_ERROR_STRING + 600];
    if (rc != MPI_SUCCESS && ours)
        snprintf(why, sizeof(why), "%s", ftc_error_message());
    else if (rc != MPI_SUCCESS)
        error_text(rc, why, sizeof(why));
    if (rc != MPI_SUCCESS || !recv_holds(r, expected_over(MPI_COMM_WORLD), why, sizeof(why))) {
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: failure-free %s: %s\n", r->rank,
                ours ? "ftc_allreduce" : "MPI_Allreduce", why);
        MPI_Abort(MPI_COMM_WORLD, BENCH_FAILED);
    }
    return elapsed;
}

static double median_of_max(double *samples, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, samples, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    bench_stats stats;
    bench_stats_of(samples, n, &stats);
    return stats.median;
}

/* Medians known to every rank: the victim may be world rank 0, so the
 * printing is left to whoever is the survivors' rank 0. */
static void measure_failure_free(recovery_run *r, recovery_results *out)
{
    const int n = r->opts->iterations;
    double *ours = calloc((size_t)n, sizeof(double)), *native = calloc((size_t)n, sizeof(double));
    if (!ours || !native) {
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: out of memory\n", r->rank);
        MPI_Abort(MPI_COMM_WORLD, BENCH_FAILED);
    }
    for (int i = 0; i < n; i++) {
        const bool ours_first = i % 2 == 0;   /* neither side always finds the other's leftovers */
        if (ours_first)
            ours[i] = time_checked_call(r, true);
        native[i] = time_checked_call(r, false);
        if (!ours_first)
            ours[i] = time_checked_call(r, true);
    }
    out->ours_free = median_of_max(ours, n);
    out->native_free = median_of_max(native, n);
    free(ours);
    free(native);
}

/* ---- 2a. ftcoll's failing call ------------------------------------------------------------ */

/* Arms the injection for the next call on every rank (the same spec, so the
 * same outcome everywhere). BENCH_USAGE when ftcoll refuses it. */
static int arm_injection(recovery_run *r, recovery_results *out)
{
    snprintf(out->injection, sizeof(out->injection), "kill rank=%d call=%ld step=%s at=before-send",
             r->victim, r->ours_calls + 1, r->opts->step);
    if (ftc_inject(r->ours, out->injection) == MPI_SUCCESS)
        return BENCH_OK;
    if (r->rank == 0)
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": ftc_inject \"%s\": %s\n", out->injection,
                ftc_error_message());
    return BENCH_USAGE;
}

/* This rank's check of ftcoll's result against the S of the call's report;
 * `message`: ftcoll's words on a failed call, taken before a later call. */
static void check_ours(recovery_run *r, int rc, const char *message, recovery_results *out)
{
    result_check *check = &out->check;
    int *in_result = calloc((size_t)r->size, sizeof(int));
    out->have_report = in_result && ftc_allreduce_last_report(r->ours, &out->report, in_result,
                                                              NULL) == MPI_SUCCESS;
    out->kept = out->have_report ? in_result[r->victim] : -1;
    double expected = 0.0;
    for (int rank = 0; out->have_report && rank < r->size; rank++)
        expected += in_result[rank] ? rank + 1 : 0;
    free(in_result);
    if (rc == MPI_SUCCESS && out->have_report) {
        check_recv(r, expected, "ftc_allreduce", check);
        return;
    }
    const bool failed = rc != MPI_SUCCESS;   /* ftcoll's own words say which error */
    snprintf(check->why, sizeof(check->why), "%s: %.480s",
             failed ? "ftc_allreduce failed" : "no report", failed ? message : ftc_error_message());
    check->mine = CHECK_ERROR;
    fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: %s\n", r->rank, check->why);
}

/* The ftc_allreduce in which the victim dies; returns, on the survivors
 * only, their communicator. */
static MPI_Comm ftcoll_failing_call(recovery_run *r, recovery_results *out)
{
    poison_recv(r);
    settle(r);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    const int rc = call_ours(r);
    const double seconds = MPI_Wtime() - start;
    char message[512];
    snprintf(message, sizeof(message), "%s", ftc_error_message());
    MPI_Comm survivors;
    if (ftc_comm_survivors(r->ours, &survivors) != MPI_SUCCESS) {
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: ftc_comm_survivors: %s\n",
                r->rank, ftc_error_message());
        _exit(BENCH_FAILED);   /* no communicator left to tell the others through */
    }
    check_ours(r, rc, message, out);
    out->failing = max_on_root(seconds, survivors);
    /* 0 on a rank that returned before anybody saw the death. */
    out->recovery = max_on_root(out->have_report ? out->report.recovery_seconds : 0.0, survivors);
    return survivors;
}

/* ---- 2b. the hand-written alternative ------------------------------------------------------- */

/*
 * The classic ULFM recovery around one MPI_Allreduce on `comm`, run by the
 * survivors; returns the communicator the result came from (the shrunk one,
 * or `comm` if nobody saw the failure). A rank that got an error revokes
 * first: the ranks still waiting inside the collective for it would
 * otherwise wait forever. Then the survivors agree on whether everybody
 * succeeded, so that all take the same branch, also those whose own call
 * succeeded.
 */
static MPI_Comm allreduce_recovered_by_hand(recovery_run *r, MPI_Comm comm)
{
    int rc = MPI_Allreduce(r->send, r->recv, r->count, MPI_DOUBLE, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        MPIX_Comm_revoke(comm);
    int all_succeeded = rc == MPI_SUCCESS;
    /* The flag is agreed on even when the call also reports the failure. */
    MPIX_Comm_agree(comm, &all_succeeded);
    if (all_succeeded)
        return comm;
    MPIX_Comm_revoke(comm);   /* harmless where revoked already */
    MPI_Comm shrunk;
    if (MPIX_Comm_shrink(comm, &shrunk) != MPI_SUCCESS) {
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: MPIX_Comm_shrink failed\n",
                r->rank);
        _exit(BENCH_FAILED);   /* no communicator left to tell the others through */
    }
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(r->send, r->recv, r->count, MPI_DOUBLE, MPI_SUM, shrunk);
    if (rc != MPI_SUCCESS) {
        char words[MPI_MAX_ERROR_STRING];
        error_text(rc, words, sizeof(words));
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: MPI_Allreduce after shrink: %s\n",
                r->rank, words);
    }
    return shrunk;
}

/* The MPI_Allreduce on the failure-free one's communicator (warm, as
 * ftcoll's is) right before which the victim dies; returns, on the others
 * only, the communicator of the ranks left. */
static MPI_Comm alternative_failing_call(recovery_run *r, recovery_results *out)
{
    poison_recv(r);
    settle(r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r->rank == r->victim)
        raise(SIGKILL);
    const double start = MPI_Wtime();
    MPI_Comm left = allreduce_recovered_by_hand(r, r->native);
    const double elapsed = MPI_Wtime() - start;
    out->kept = 0;   /* by construction: the redo has no input from the dead rank */
    check_recv(r, expected_over(left), "alternative", &out->check);
    out->failing = max_on_root(elapsed, left);
    return left;
}

/* ---- 3. output (the survivors' rank 0) ----------------------------------------------------- */

static void print_conditions(const recovery_run *r, const recovery_results *out)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    version[strcspn(version, "\n")] = '\0';   /* the first line says enough */
    char native[64];
    bench_default_native_label(native, sizeof(native));
    printf("# ftcoll-bench " SUBCOMMAND ": p=%d ranks, %s; MPI_SUM on MPI_DOUBLE, %d bytes per "
           "rank, rank r contributes r+1\n"
           "# failure-free: %d pairs of ftc_allreduce and MPI_Allreduce (%s), order alternating, "
           "a barrier before each call; sample = max over ranks; median\n",
           r->size, version, r->count * (int)sizeof(double), r->opts->iterations, native);
    printf("# the failing call comes %d ms after the failure-free part (--settle)\n",
           r->opts->settle_ms);
    if (r->opts->measure == MEASURE_FTCOLL)
        printf("# failing call (the job's only failure): ftc_inject \"%s\"; entry to return, and "
               "its report's detection to return, max over the %d survivors\n",
               out->injection, out->survivors);
    else
        printf("# failing call (the job's only failure): world rank %d raises SIGKILL right "
               "before MPI_Allreduce; the others run MPI_Allreduce, MPIX_Comm_revoke on error, "
               "MPIX_Comm_agree, MPIX_Comm_revoke, MPIX_Comm_shrink, MPI_Allreduce; entry to "
               "return, max over the %d left\n",
               r->victim, out->survivors);
}

static const char *kept_word(int kept)
{
    return kept == 1 ? "yes" : kept == 0 ? "no" : "-";
}

static const char *check_word(const result_check *check)
{
    return check->errors ? "error" : check->mismatches ? "mismatch" : "exact";
}

/* Whether the victim died: the survivors are fewer than the ranks (ftcoll's
 * report alone cannot tell: a rank that finished before anybody saw the
 * death reports no failure, rightly). */
static bool victim_died(const recovery_run *r, const recovery_results *out)
{
    return out->survivors < r->size;
}

/* "result check: exact", or how many ranks failed it and how (rank 0's why). */
static void print_check(const result_check *check)
{
    printf("result check: ");
    if (check_passed(check)) {
        printf("exact\n");
        return;
    }
    if (check->errors)
        printf("CALL FAILED on %d ranks; ", check->errors);
    if (check->mismatches)
        printf("MISMATCH on %d ranks; ", check->mismatches);
    printf("rank 0: %s\n", check->mine == CHECK_EXACT ? "exact (others: see stderr)" : check->why);
}

/* What happened, in words: the call's outcome, then its result check. */
static void print_outcome(const recovery_run *r, const recovery_results *out)
{
    const ftc_allreduce_report *rep = &out->report;
    if (r->opts->measure == MEASURE_ALTERNATIVE)
        printf("alternative: %d of %d ranks left, the dead rank's contribution lost; ",
               out->survivors, r->size);
    else if (out->have_report)   /* "found dead": as the survivors' rank 0 saw the call */
        printf("ftcoll: S = %d of %d ranks, %d found dead, recovery rounds: %d%s; dead rank's "
               "contribution kept: %s; ", rep->contributors, rep->size, rep->failed_in_call,
               rep->recovery_rounds, rep->finished_late ? ", finished late" : "",
               kept_word(out->kept));
    print_check(&out->check);
    if (!victim_died(r, out))   /* ftcoll: --step beyond the schedule, or a fold p lacks */
        printf("the survivors saw no rank die in the call%s%s\n",
               r->opts->measure == MEASURE_FTCOLL ? ": --step " : "",
               r->opts->measure == MEASURE_FTCOLL ? r->opts->step : "");
}

static void print_recovery_line(const recovery_run *r, const recovery_results *out)
{
    const double us = 1e6;
    char recovery[32] = "-";
    if (r->opts->measure == MEASURE_FTCOLL)
        snprintf(recovery, sizeof(recovery), "%.2f", out->recovery * us);
    printf("RECOVERY measure=%s p=%d bytes=%d native_us=%.2f ftc_free_us=%.2f fail_us=%.2f "
           "recovery_us=%s kept=%s result=%s fired=%s survivors=%d settle_ms=%d\n",
           measure_names[r->opts->measure], r->size, r->count * (int)sizeof(double),
           out->native_free * us, out->ours_free * us, out->failing * us, recovery,
           kept_word(out->kept), check_word(&out->check), victim_died(r, out) ? "yes" : "no",
           out->survivors, r->opts->settle_ms);
}

/* ---- the job ---------------------------------------------------------------------------- */

/* Step 3; then out, without MPI_Finalize (see the top of the file). */
_Noreturn static void report_and_leave(const recovery_run *r, recovery_results *out,
                                       MPI_Comm left)
{
    out->check.mismatches = count_over(out->check.mine == CHECK_MISMATCH, left);
    out->check.errors = count_over(out->check.mine == CHECK_ERROR, left);
    MPI_Comm_size(left, &out->survivors);
    int rank;
    MPI_Comm_rank(left, &rank);
    if (rank == 0) {
        print_conditions(r, out);
        print_outcome(r, out);
        print_recovery_line(r, out);
        fflush(stdout);
    }
    fflush(stderr);
    MPI_Barrier(left);   /* nobody leaves before rank 0 has printed */
    const bool passed = victim_died(r, out) && check_passed(&out->check);
    _exit(passed ? BENCH_OK : BENCH_FAILED);
}

static int check_ranks(const recovery_run *r)
{
    const char *problem = r->size < 2 ? "needs at least 2 ranks (one of them dies)"
                        : r->victim >= r->size ? "--victim is not a rank of the job"
                                               : NULL;
    if (problem && r->rank == 0)
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": %s (p=%d)\n", problem, r->size);
    return problem ? BENCH_USAGE : BENCH_OK;
}

static int open_run(recovery_run *r, const recovery_options *opts)
{
    memset(r, 0, sizeof(*r));
    r->opts = opts;
    r->native = MPI_COMM_NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    r->victim = opts->victim < 0 ? r->size - 1 : opts->victim;
    r->count = (int)(opts->bytes / (long long)sizeof(double));
    int rc = check_ranks(r);
    if (rc != BENCH_OK)
        return rc;
    /* A rank's death must come back as an error code, never end the job;
     * the duplicate inherits this. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &r->native);
    if (ftc_comm_create(MPI_COMM_WORLD, &r->ours) != MPI_SUCCESS) {
        fprintf(stderr, "ftcoll-bench " SUBCOMMAND ": rank %d: ftc_comm_create: %s\n", r->rank,
                ftc_error_message());
        return BENCH_FAILED;
    }
    r->send = malloc((size_t)r->count * sizeof(double));
    r->recv = malloc((size_t)r->count * sizeof(double));
    const int have = r->send && r->recv;
    for (int i = 0; have && i < r->count; i++)
        r->send[i] = r->rank + 1;
    return count_over(!have, MPI_COMM_WORLD) ? BENCH_FAILED : BENCH_OK;
}

/* Before any death only: the job ends the ordinary way. */
static void close_run(recovery_run *r)
{
    if (r->ours)
        ftc_comm_free(&r->ours);
    if (r->native != MPI_COMM_NULL)
        MPI_Comm_free(&r->native);
    free(r->send);
    free(r->recv);
}

static int run_recovery(const recovery_options *opts)
{
    MPI_Init(NULL, NULL);
    recovery_run r;
    recovery_results out;
    memset(&out, 0, sizeof(out));
    int rc = open_run(&r, opts);
    if (rc == BENCH_OK) {
        measure_failure_free(&r, &out);
        if (opts->measure == MEASURE_FTCOLL)
            rc = arm_injection(&r, &out);
    }
    if (rc != BENCH_OK) {
        close_run(&r);
        MPI_Finalize();
        return rc;
    }
    MPI_Comm left = opts->measure == MEASURE_FTCOLL ? ftcoll_failing_call(&r, &out)
                                                    : alternative_failing_call(&r, &out);
    report_and_leave(&r, &out, left);
}

#endif /* FTCOLL_HAVE_ULFM */

int bench_allreduce_recovery_main(int argc, char **argv)
{
    recovery_options opts;
    const int rc = parse_options(argc, argv, &opts);
    if (rc != BENCH_OK)
        return rc;
    if (opts.help) {
        if (bench_is_first_process())
            print_usage();
        return BENCH_OK;
    }
#ifdef FTCOLL_HAVE_ULFM
    return run_recovery(&opts);
#else
    if (bench_is_first_process())
        printf("ftcoll-bench " SUBCOMMAND ": needs an MPI with ULFM (Open MPI built with "
               "--with-ft=ulfm); nothing measured\n");
    return BENCH_OK;
#endif
}
