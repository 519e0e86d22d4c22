/*
 * Real process deaths during ftc_scan and ftc_exscan (ULFM only).
 * FTCOLL_INJECT (set by the scenario runner,
 * tests/scripts/allreduce_kill_table.sh, from scan_kill_scenarios.txt)
 * kills ranks at the points of the algorithm a call runs. The chain
 * (small calls: p x N <= 16 KiB): as they enter (step=0), once the
 * message from the rank before arrived (step=1: before passing it on, or
 * at=after-send once passed on), or in the recovery. The allgather's
 * (larger calls): step=0, step=1 once every input arrived, the
 * confirmation (step=2, ...); FTCOLL_ALLGATHER_ALGORITHM picks its plan. Every rank makes CALLS calls, odd ones ftc_scan, even
 * ones ftc_exscan, of COUNTS[c - 1] elements, the ops in turn (MPI_SUM on
 * ints, MPI_MAX on doubles, MPI_MINLOC on MPI_DOUBLE_INT, a user's sum, a
 * user's op that is not commutative); calls 3 and 6 in place.
 *
 * Checked on every survivor, for every call: MPI_SUCCESS; this rank in the
 * report's S; every element of the result the inputs of S's ranks up to
 * this one (exscan: before it) combined in rank order, or recvbuf as it
 * was where S has none of them; no rank above this one in the report (S is
 * defined up to the caller). Then, over a communicator of the survivors:
 * any two survivors r < q agree on every call's S up to r. The lowest
 * survivor prints one line (S of each call as the highest survivor
 * reports it, in hexadecimal):
 *   scan-kill p=P survivors=N calls=C wrong=W S=[ff f7 ...]: PASS|FAIL
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "reductions.h"

enum { CALLS = 10, MAX_RANKS = 64, UNTOUCHED = 0xA5 };

static long recovered_before = 0;   /* check_recovered_calls' count (one communicator) */
static const int COUNTS[CALLS] = { 1, 3, 1000, 8, 20000, 5, 2, 270000, 7, 300 };

static bool exclusive(int call) { return call % 2 == 0; }
static bool in_place(int call) { return call == 3 || call == 6; }
static op_kind kind_of_call(int call) { return (op_kind)((call - 1) % ORDERED_OP_KINDS); }

/* The result checked element by element; with no rank of S before this
 * one, recvbuf is undefined (a rank before it may have died sending its
 * prefix into it), but in place it is the input, as it was: `before`. */
static int check_result(int rank, int call, uint64_t valid, const char *recv,
                        const char *before, size_t bytes)
{
    const int upto = exclusive(call) ? rank : rank + 1;
    int in_set[MAX_RANKS], any = 0;
    for (int r = 0; r < MAX_RANKS; r++) {
        in_set[r] = (int)(valid >> r & 1);
        any |= r < upto && in_set[r];
    }
    if (!any) {
        if (!in_place(call) || memcmp(recv, before, bytes) == 0)
            return 0;
        fprintf(stderr, "MISMATCH rank %d call %d: no rank of S before it, but recvbuf "
                "changed\n", rank, call);
        return 1;
    }
    for (int i = 0; i < COUNTS[call - 1]; i++)
        if (!holds_combined(kind_of_call(call), in_set, upto, i, recv, i)) {
            fprintf(stderr, "MISMATCH rank %d call %d: element %d is not the prefix over S "
                    "%llx\n", rank, call, i, (unsigned long long)valid);
            return 1;
        }
    return 0;
}

static int check_call(ftc_comm_t comm, const MPI_Op *user, int rank, int p, int call,
                      uint64_t *valid)
{
    const op_kind k = kind_of_call(call);
    const kind_of_op t = kind(k, user[k]);
    const int count = COUNTS[call - 1];
    const size_t bytes = t.element * (size_t)count;
    char *send = checked_malloc(bytes), *recv = checked_malloc(bytes);
    char *before = checked_malloc(bytes);
    fill_input(k, rank, count, send);
    if (in_place(call))
        memcpy(recv, send, bytes);
    else
        memset(recv, UNTOUCHED, bytes);
    memcpy(before, recv, bytes);
    const void *from = in_place(call) ? MPI_IN_PLACE : send;
    const int rc = exclusive(call) ? ftc_exscan(from, recv, count, t.type, t.op, comm)
                                   : ftc_scan(from, recv, count, t.type, t.op, comm);
    int wrong = 0;
    *valid = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s: %s\n", rank, call,
                class_name(class_of(rc)), ftc_error_message());
        wrong++;
    } else {
        wrong += reported_set(comm, &recovered_before, rank, p, call, valid);
        if (rank + 1 < 64 && *valid >> (rank + 1) != 0) {
            fprintf(stderr, "FAIL rank %d call %d: S names ranks above it (%llx)\n", rank, call,
                    (unsigned long long)*valid);
            wrong++;
        }
        if (!(*valid >> rank & 1)) {
            fprintf(stderr, "FAIL rank %d call %d: its own input is not in S\n", rank, call);
            wrong++;
        }
        wrong += check_result(rank, call, *valid, recv, before, bytes);
    }
    free(send);
    free(recv);
    free(before);
    return wrong;
}

/* Survivors r < q must agree on S up to r, call by call: every survivor
 * checks every pair. Returns the wrong calls of every survivor, a
 * disagreement counted too; the lowest survivor prints the line. */
static int report_prefix_sets(MPI_Comm survivors, int p, const uint64_t *sets, int wrong)
{
    int n, reporter, total_wrong = 0, rank;
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &reporter);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t mine[CALLS + 1];
    mine[0] = (uint64_t)rank;
    memcpy(mine + 1, sets, sizeof(uint64_t) * CALLS);
    uint64_t *all = checked_malloc(sizeof(uint64_t) * (CALLS + 1) * (size_t)n);
    MPI_Allgather(mine, CALLS + 1, MPI_UINT64_T, all, CALLS + 1, MPI_UINT64_T, survivors);
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT, MPI_SUM, survivors);
    const uint64_t *highest = all + (size_t)(n - 1) * (CALLS + 1);   /* in rank order */
    for (int call = 1; call <= CALLS; call++) {
        bool agree = true;
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++) {
                const uint64_t *low = all + (size_t)a * (CALLS + 1);
                const uint64_t *high = all + (size_t)b * (CALLS + 1);
                const int r = (int)low[0];
                const uint64_t up_to_r = r >= 63 ? ~UINT64_C(0) : (UINT64_C(1) << (r + 1)) - 1;
                agree &= (high[call] & up_to_r) == low[call];
            }
        if (!agree) {
            if (reporter == 0)
                fprintf(stderr, "FAIL call %d: survivors disagree on S up to one of them\n",
                        call);
            total_wrong++;
        }
    }
    if (reporter == 0) {
        printf("scan-kill p=%d survivors=%d calls=%d wrong=%d S=[", p, n, CALLS, total_wrong);
        for (int call = 1; call <= CALLS; call++)
            printf("%s%llx", call > 1 ? " " : "", (unsigned long long)highest[call]);
        printf("]: %s\n", total_wrong ? "FAIL" : "PASS");
    }
    free(all);
    return total_wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > MAX_RANKS)
        die("at most 64 ranks");
    MPI_Op user[ORDERED_OP_KINDS];
    create_user_ops(user);
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    int wrong = 0;
    uint64_t valid[CALLS];
    for (int call = 1; call <= CALLS; call++)
        wrong += check_call(comm, user, rank, p, call, &valid[call - 1]);

    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        die(ftc_error_message());
    const int total_wrong = report_prefix_sets(survivors, p, valid, wrong);
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    leave_without_finalize(total_wrong ? 1 : 0);
}
