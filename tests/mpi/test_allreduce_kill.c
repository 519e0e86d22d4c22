/*
 * Real process deaths during ftc_allreduce (ULFM only). FTCOLL_INJECT (set
 * by the scenario runner, tests/scripts/allreduce_kill_table.sh) kills
 * ranks at chosen calls, rounds, steps and phases; every rank makes CALLS
 * allreduce calls on a vector whose sums are exact, then the survivors
 * compare notes.
 *
 * Checked on every survivor, for every call: MPI_SUCCESS (or, with
 * FTCOLL_STRICT=1, MPIX_ERR_PROC_FAILED exactly when S is not every rank);
 * every element equal to the sum over the reported S; this rank in S. Then,
 * over a communicator of the survivors (ftc_comm_survivors): S identical on
 * every survivor for every call. With FTCOLL_TEST_ALLGATHER_AFTER=K, every
 * rank also calls ftc_allgather after allreduce call K: it goes on over the
 * survivors, also where a rank is still finishing call K (no hang), every
 * block of its reported S exact (this rank's among them), and leaves the
 * communicator working for the calls after it.
 * FTCOLL_TEST_ALLREDUCE_COUNT=N: N elements per call instead of 5 (from
 * 16384 longs, 128 KiB, the calls confirm instead of keeping a copy).
 * FTCOLL_TEST_REDUCE_SCATTER=1: the calls are ftc_reduce_scatter_block's
 * (odd calls: N elements a block, call 3 in place) and ftc_reduce_scatter's
 * (even calls: N + r mod 2 for rank r), each rank checking every element
 * of its block; the same allreduce underneath, the same S.
 * FTCOLL_TEST_CREATE_AFTER=1: after the calls, every survivor makes a new
 * ftcoll communicator over MPI_COMM_WORLD, which holds the dead ranks: it
 * must fail on every survivor alike (succeed where nobody died), no
 * rank left waiting in it.
 * The lowest survivor prints one line:
 *   allreduce-kill p=P survivors=N calls=C wrong=W S=[...]: PASS|FAIL
 * (reduce_scatter-kill with FTCOLL_TEST_REDUCE_SCATTER=1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <mpi-ext.h>

#include "ftcoll.h"
#include "harness.h"

enum { CALLS = 4, DEFAULT_COUNT = 5, MAX_COUNT = 1 << 20, MAX_RANKS = 64 };

static int count_of_calls(void)
{
    const char *text = getenv("FTCOLL_TEST_ALLREDUCE_COUNT");
    const int count = text ? atoi(text) : DEFAULT_COUNT;
    if (count < 1 || count > MAX_COUNT)
        die("FTCOLL_TEST_ALLREDUCE_COUNT: expected 1 .. 1048576");
    return count;
}

static long input(int rank, int call, int element)
{
    return (long)(rank + 1) * (element + call);
}

static bool strict_mode(void)
{
    const char *text = getenv("FTCOLL_STRICT");
    return text && strcmp(text, "1") == 0;
}

/* ftc_comm_recovered_calls after the last call checked (one communicator). */
static long recovered_before = 0;

/* FTCOLL_TEST_REDUCE_SCATTER=1: the calls are reduce_scatters. */
static bool scattering(void)
{
    const char *text = getenv("FTCOLL_TEST_REDUCE_SCATTER");
    return text && strcmp(text, "1") == 0;
}

/* A reduce_scatter call: rank r's block of the vector (its elements), and
 * *offset its first element. */
static int block_of(int call, int count, int r, int *offset)
{
    *offset = 0;
    for (int q = 0; q < r; q++)
        *offset += call % 2 ? count : count + q % 2;
    return call % 2 ? count : count + r % 2;
}

static int vector_length(int call, int count, int p)
{
    int offset = 0;
    const int last = block_of(call, count, p - 1, &offset);
    return offset + last;
}

/* The call: an in-place allreduce of `count` elements, or a reduce_scatter
 * whose block lands at value[0 ..); *first: the vector's element value[0]
 * holds, *elements how many to check. */
static int run_call(ftc_comm_t comm, int rank, int p, int call, long *value, long *vector,
                    int count, int *first, int *elements)
{
    if (!scattering()) {
        for (int e = 0; e < count; e++)
            value[e] = input(rank, call, e);
        *first = 0;
        *elements = count;
        return ftc_allreduce(MPI_IN_PLACE, value, count, MPI_LONG, MPI_SUM, comm);
    }
    const int length = vector_length(call, count, p);
    *elements = block_of(call, count, rank, first);
    const bool in_place = call == 3;
    long *input_at = in_place ? value : vector;
    for (int e = 0; e < length; e++)
        input_at[e] = input(rank, call, e);
    const void *from = in_place ? MPI_IN_PLACE : vector;
    if (call % 2)
        return ftc_reduce_scatter_block(from, value, count, MPI_LONG, MPI_SUM, comm);
    int counts[MAX_RANKS], unused = 0;
    for (int r = 0; r < p; r++)
        counts[r] = block_of(call, count, r, &unused);
    return ftc_reduce_scatter(from, value, counts, MPI_LONG, MPI_SUM, comm);
}

/* The public call a strict error must name: the message says which call
 * of a program failed, also when a reduce_scatter restarted by the
 * allreduce. */
static const char *call_name(int call)
{
    if (!scattering())
        return "ftc_allreduce";
    return call % 2 ? "ftc_reduce_scatter_block" : "ftc_reduce_scatter";
}

static int check_strict_message(const char *message, int rank, int call)
{
    char expected[64];
    snprintf(expected, sizeof(expected), "%s (strict)", call_name(call));
    if (strncmp(message, expected, strlen(expected)) == 0)
        return 0;
    fprintf(stderr, "FAIL rank %d call %d: strict error \"%s\", not \"%s ...\"\n", rank,
            call, message, expected);
    return 1;
}

/* One call: its return code, result and report against expectations. */
static int check_call(ftc_comm_t comm, int rank, int p, int call, long *value, long *vector,
                      int count, uint64_t *set)
{
    int first = 0, elements = 0;
    const int rc = run_call(comm, rank, p, call, value, vector, count, &first, &elements);
    char message[512];
    snprintf(message, sizeof(message), "%s", ftc_error_message());
    ftc_allreduce_report report;
    int in_result[MAX_RANKS], failed[MAX_RANKS];
    if (ftc_allreduce_last_report(comm, &report, in_result, failed) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: no report: %s\n", rank, call, ftc_error_message());
        return 1;
    }
    *set = 0;
    for (int r = 0; r < p; r++)
        *set |= (uint64_t)in_result[r] << r;
    const bool complete = report.contributors == p;
    const bool strict_error = strict_mode() && !complete;
    int wrong = 0;
    wrong += check_recovered_calls(comm, &recovered_before, report.recovery_rounds, rank, call);
    if (strict_error ? class_of(rc) != MPIX_ERR_PROC_FAILED : rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s (%s), S has %d of %d ranks\n", rank,
                call, class_name(class_of(rc)), message, report.contributors, p);
        wrong++;
    } else if (strict_error) {
        wrong += check_strict_message(message, rank, call);
    }
    if (!in_result[rank]) {
        fprintf(stderr, "FAIL rank %d call %d: a survivor missing from S\n", rank, call);
        wrong++;
    }
    for (int e = 0; e < elements; e++) {
        long expected = 0;
        for (int r = 0; r < p; r++)
            expected += in_result[r] ? input(r, call, first + e) : 0;
        if (value[e] != expected) {
            fprintf(stderr, "MISMATCH rank %d call %d element %d: %ld, expected %ld for S=%#llx\n",
                    rank, call, first + e, value[e], expected, (unsigned long long)*set);
            wrong++;
        }
    }
    if (report.recovery_rounds > 0 && getenv("FTCOLL_TEST_VERBOSE"))
        fprintf(stderr, "rank %d call %d: S=%#llx, %d failed, %d rounds%s, %.1f ms\n", rank, call,
                (unsigned long long)*set, report.failed_in_call, report.recovery_rounds,
                report.finished_late ? " (late)" : "", report.recovery_seconds * 1e3);
    return wrong;
}

/* ftc_allgather of one int per rank: every block of its S exact. */
static int check_allgather(ftc_comm_t comm, int rank, int p, int after)
{
    int mine = rank * 7, all[MAX_RANKS], valid[MAX_RANKS];
    ftc_allreduce_report report;
    int rc = ftc_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_last_report(comm, &report, valid, NULL);
    if (rc != MPI_SUCCESS || !valid[rank]) {
        fprintf(stderr, "FAIL rank %d: ftc_allgather returned %s: %s\n", rank,
                class_name(class_of(rc)), rc == MPI_SUCCESS ? "its own block not valid"
                                                            : ftc_error_message());
        return 1;
    }
    if (check_recovered_calls(comm, &recovered_before, report.recovery_rounds, rank, after) != 0)
        return 1;
    for (int r = 0; r < p; r++) {
        if (valid[r] && all[r] != r * 7) {
            fprintf(stderr, "MISMATCH rank %d: ftc_allgather block %d\n", rank, r);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > MAX_RANKS)
        die("this test runs on at most 64 ranks");
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    int wrong = 0;
    uint64_t sets[CALLS];
    const int count = count_of_calls();
    /* room for a reduce_scatter's whole vector: p blocks of count + 1 */
    const size_t room = (size_t)(count + 1) * (size_t)p;
    long *value = checked_malloc(sizeof(long) * room), *vector = checked_malloc(sizeof(long) * room);
    const char *after = getenv("FTCOLL_TEST_ALLGATHER_AFTER");
    const int allgather_after = after ? atoi(after) : 0;
    for (int call = 0; call < CALLS; call++) {
        wrong += check_call(comm, rank, p, call + 1, value, vector, count, &sets[call]);
        if (call + 1 == allgather_after)
            wrong += check_allgather(comm, rank, p, call + 1);
    }

    const char *create_after = getenv("FTCOLL_TEST_CREATE_AFTER");
    int created = -1;   /* -1: not tried; 0: failed; 1: made */
    if (create_after && atoi(create_after) == 1) {
        ftc_comm_t late;
        created = ftc_comm_create(MPI_COMM_WORLD, &late) == MPI_SUCCESS;
        if (created)
            ftc_comm_free(&late);
    }

    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        die(ftc_error_message());
    int n, reporter;
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &reporter);
    if (created >= 0) {
        int least = 0, most = 0;
        MPI_Allreduce(&created, &least, 1, MPI_INT, MPI_MIN, survivors);
        MPI_Allreduce(&created, &most, 1, MPI_INT, MPI_MAX, survivors);
        if (least != most || most != (n == p)) {
            if (reporter == 0)
                fprintf(stderr, "FAIL ftc_comm_create after the calls: made on %s survivors "
                        "(%d of %d ranks alive)\n", least != most ? "some" : most ? "all" : "no",
                        n, p);
            wrong++;
        }
    }
    uint64_t lowest[CALLS], highest[CALLS];
    int total_wrong = 0;
    MPI_Allreduce(sets, lowest, CALLS, MPI_UINT64_T, MPI_MIN, survivors);
    MPI_Allreduce(sets, highest, CALLS, MPI_UINT64_T, MPI_MAX, survivors);
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT, MPI_SUM, survivors);
    for (int call = 0; call < CALLS; call++) {
        if (lowest[call] != highest[call]) {
            if (reporter == 0)
                fprintf(stderr, "FAIL call %d: S differs between survivors (%#llx vs %#llx)\n",
                        call + 1, (unsigned long long)lowest[call],
                        (unsigned long long)highest[call]);
            total_wrong++;
        }
    }
    if (reporter == 0) {
        printf("%s p=%d survivors=%d calls=%d wrong=%d S=[",
               scattering() ? "reduce_scatter-kill" : "allreduce-kill", p, n, CALLS, total_wrong);
        for (int call = 0; call < CALLS; call++)
            printf("%s%#llx", call ? " " : "", (unsigned long long)sets[call]);
        printf("]: %s\n", total_wrong ? "FAIL" : "PASS");
    }
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    free(value);
    free(vector);
    leave_without_finalize(total_wrong ? 1 : 0);
}
