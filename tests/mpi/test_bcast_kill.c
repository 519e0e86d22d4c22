/*
 * Real process deaths during ftc_bcast (ULFM only). FTCOLL_INJECT (set by
 * the scenario runner, tests/scripts/allreduce_kill_table.sh, from
 * bcast_kill_scenarios.txt) kills the root, an interior rank of the
 * broadcast or a leaf at chosen calls, steps and rounds. Every rank makes
 * CALLS broadcasts, call c from root (c - 1) mod p, of COUNTS[c - 1]
 * doubles (the last one through a strided type: every other double).
 * With FTCOLL_BCAST set (mst, ecef, tree, binomial, two-level) the calls
 * run over that network tree; FTCOLL_TEST_BCAST_CHAIN=1 adds an emulated
 * network where the nearest ranks are the cheapest channels (rank i to
 * i + 1: 1 ms, to i + d: 2d ms, scaled by 0.1), so that the MST and the
 * earliest-completion tree from root r are the chain r -> r +- 1 -> ...,
 * and a death's survivors' trees re-attach across the gap.
 * With FTCOLL_TEST_BCAST_BURST=1 it makes BURST_CALLS small broadcasts
 * from root 0 instead (up to 2 KiB: all but call 64 without tokens, so that
 * a rank stuck in one call while the others run on leaves the survivors
 * up to the window of calls apart; ft/reconcile.h).
 *
 * Checked on every survivor, for every call: MPI_SUCCESS with every element
 * the root's, or MPIX_ERR_PROC_FAILED with the buffer untouched; success
 * wherever the root survived; with FTCOLL_TEST_BCAST_LOST=C, the error in
 * call C (its root died before sending anything). Then, over a
 * communicator of the survivors: every call's outcome the same on every
 * survivor; with FTCOLL_TEST_BCAST_LATE=N, some survivor finished N calls
 * or more in a recovery (ftc_comm_recovered_calls: served late). The
 * lowest survivor prints one line (late: the most calls one survivor
 * finished in a recovery):
 *   bcast-kill p=P survivors=N calls=C late=L wrong=W delivered=[1 0 1 1]: PASS|FAIL
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, unlink */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>
#include <mpi-ext.h>

#include "ftcoll.h"
#include "harness.h"

enum { CALLS = 4, BURST_CALLS = 70, MAX_CALLS = BURST_CALLS, UNTOUCHED = -1 };
static const int COUNTS[CALLS] = { 5, 1000, 100000, 300 };

static bool burst(void)
{
    const char *text = getenv("FTCOLL_TEST_BCAST_BURST");
    return text && atoi(text) == 1;
}

static int calls(void) { return burst() ? BURST_CALLS : CALLS; }

/* FTCOLL_TEST_BCAST_LATE=N: some survivor must have finished at least N
 * calls in a recovery (a rank served call after call); 0 if unset. */
static long late_calls_expected(void)
{
    const char *text = getenv("FTCOLL_TEST_BCAST_LATE");
    return text ? atol(text) : 0;
}

static int root_of(int call, int p) { return burst() ? 0 : (call - 1) % p; }

/* Doubles in call `call`: a burst's calls differ in size (8 .. 256 doubles). */
static int count_of(int call) { return burst() ? 1 << (3 + call % 6) : COUNTS[call - 1]; }

static double element(int call, int i) { return call * 1e7 + i; }

/* The call's data: doubles, or every other double for the last call. */
static MPI_Datatype layout_of(int call, int count, int *stride)
{
    MPI_Datatype type = MPI_DOUBLE;
    *stride = 1;
    if (call == calls()) {
        MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &type);
        MPI_Type_commit(&type);
        *stride = 2;
    }
    return type;
}

static int check_elements(int rank, int call, const double *data, int count, int stride,
                          bool delivered)
{
    for (int i = 0; i < count * stride; i++) {
        const double want = delivered && i % stride == 0 ? element(call, i / stride) : UNTOUCHED;
        if (data[i] != want) {
            fprintf(stderr, "MISMATCH rank %d call %d: double %d is %g, expected %g\n", rank,
                    call, i, data[i], want);
            return 1;
        }
    }
    return 0;
}

static bool lost_by_plan(int call)
{
    const char *text = getenv("FTCOLL_TEST_BCAST_LOST");
    return text && atoi(text) == call;
}

/* The count of calls with a recovery round against this call's report
 * (a root lost before any survivor held its data counts when the call
 * found it, not in the later calls from it). */
static int check_recovered_count(ftc_comm_t comm, int rank, int call)
{
    static long before = 0;   /* one communicator */
    ftc_allreduce_report report;
    if (ftc_allreduce_last_report(comm, &report, NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: no report: %s\n", rank, call, ftc_error_message());
        return 1;
    }
    return check_recovered_calls(comm, &before, report.recovery_rounds, rank, call);
}

/* One call; *delivered says whether it returned the data. */
static int check_call(ftc_comm_t comm, int rank, int p, int call, int *delivered)
{
    const int root = root_of(call, p), count = count_of(call);
    int stride;
    MPI_Datatype type = layout_of(call, count, &stride);
    double *data = checked_malloc(sizeof(double) * (size_t)count * (size_t)stride);
    for (int i = 0; i < count * stride; i++)
        data[i] = rank == root && i % stride == 0 ? element(call, i / stride) : UNTOUCHED;
    const int rc = ftc_bcast(data, stride == 1 ? count : 1, type, root, comm);
    *delivered = rc == MPI_SUCCESS;
    int wrong = 0;
    if (rc != MPI_SUCCESS && class_of(rc) != MPIX_ERR_PROC_FAILED) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s: %s\n", rank, call,
                class_name(class_of(rc)), ftc_error_message());
        wrong++;
    }
    if (rc != MPI_SUCCESS && lost_by_plan(call) == false && rank == root) {
        fprintf(stderr, "FAIL rank %d call %d: the root itself returned an error\n", rank, call);
        wrong++;
    }
    if (rc == MPI_SUCCESS && lost_by_plan(call)) {
        fprintf(stderr, "FAIL rank %d call %d: data delivered although its root died before "
                "sending\n", rank, call);
        wrong++;
    }
    if (rank != root || rc == MPI_SUCCESS)
        wrong += check_elements(rank, call, data, count, stride, rc == MPI_SUCCESS);
    wrong += check_recovered_count(comm, rank, call);
    if (type != MPI_DOUBLE)
        MPI_Type_free(&type);
    free(data);
    return wrong;
}

/* FTCOLL_TEST_BCAST_CHAIN=1: the chain network above, written by every
 * rank alike (its own file, the same text) and configured. */
static void configure_chain(ftc_comm_t comm, int rank, int p)
{
    const char *text = getenv("FTCOLL_TEST_BCAST_CHAIN");
    if (!text || atoi(text) != 1)
        return;
    char path[] = "/tmp/ftcoll-chain-XXXXXX";
    const int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        die("cannot write the chain topology");
    fprintf(f, "scale 0.1\n");
    for (int i = 0; i < p; i++)
        fprintf(f, "site r%d %d\n", i, i);
    for (int i = 0; i < p; i++)
        for (int j = i + 1; j < p; j++)
            fprintf(f, "latency r%d r%d %d\n", i, j, j - i == 1 ? 1 : 2 * (j - i));
    fclose(f);
    const int rc = ftc_bcast_configure(comm, NULL, NULL, path);
    unlink(path);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: ", rank);
        die(ftc_error_message());
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    configure_chain(comm, rank, p);
    const int ncalls = calls();
    int wrong = 0, delivered[MAX_CALLS];
    for (int call = 1; call <= ncalls; call++)
        wrong += check_call(comm, rank, p, call, &delivered[call - 1]);
    long recovered = ftc_comm_recovered_calls(comm), most_recovered = 0;

    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        die(ftc_error_message());
    int n, reporter, lowest[MAX_CALLS], highest[MAX_CALLS], total_wrong = 0;
    int root_alive[MAX_CALLS];
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &reporter);
    MPI_Allreduce(delivered, lowest, ncalls, MPI_INT, MPI_MIN, survivors);
    MPI_Allreduce(delivered, highest, ncalls, MPI_INT, MPI_MAX, survivors);
    for (int call = 1; call <= ncalls; call++)
        root_alive[call - 1] = rank == root_of(call, p);
    MPI_Allreduce(MPI_IN_PLACE, root_alive, ncalls, MPI_INT, MPI_MAX, survivors);
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT, MPI_SUM, survivors);
    MPI_Allreduce(&recovered, &most_recovered, 1, MPI_LONG, MPI_MAX, survivors);
    if (reporter == 0 && most_recovered < late_calls_expected()) {
        fprintf(stderr, "FAIL: at most %ld calls finished in a recovery on one survivor, "
                        "expected %ld or more\n", most_recovered, late_calls_expected());
        total_wrong++;
    }
    for (int call = 1; call <= ncalls && reporter == 0; call++) {
        const char *why = lowest[call - 1] != highest[call - 1] ? "outcomes differ between survivors"
                        : root_alive[call - 1] && !lowest[call - 1] ? "its root survived, yet no data"
                        : NULL;
        if (why) {
            fprintf(stderr, "FAIL call %d: %s\n", call, why);
            total_wrong++;
        }
    }
    if (reporter == 0) {
        printf("bcast-kill p=%d survivors=%d calls=%d late=%ld wrong=%d delivered=[", p, n,
               ncalls, most_recovered, total_wrong);
        for (int call = 0; call < ncalls; call++)
            printf("%s%d", call ? " " : "", lowest[call]);
        printf("]: %s\n", total_wrong ? "FAIL" : "PASS");
    }
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    leave_without_finalize(total_wrong ? 1 : 0);
}
