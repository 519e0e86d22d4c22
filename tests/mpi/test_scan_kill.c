/*
 * Real process deaths during ftc_scan and ftc_exscan (ULFM only).
 * FTCOLL_INJECT (set by the scenario runner,
 * tests/scripts/allreduce_kill_table.sh, from scan_kill_scenarios.txt)
 * kills ranks at the allgather's points, which the scans run: as they
 * enter a call (step=0), once every input reached them (step=1), in the
 * confirmation (step=2, ...) or in the recovery; FTCOLL_ALLGATHER_ALGORITHM
 * picks the plan. Every rank makes CALLS calls, odd ones ftc_scan, even
 * ones ftc_exscan, of COUNTS[c - 1] elements, the ops in turn (MPI_SUM on
 * ints, MPI_MAX on doubles, MPI_MINLOC on MPI_DOUBLE_INT, a user's sum, a
 * user's op that is not commutative); calls 3 and 6 in place.
 *
 * Checked on every survivor, for every call: MPI_SUCCESS; this rank in the
 * report's S; every element of the result the inputs of S's ranks up to
 * this one (exscan: before it) combined in rank order, or recvbuf as it
 * was where S has none of them. Then, over a communicator of the
 * survivors: every call's S the same on every survivor. The lowest
 * survivor prints one line (S of each call, in hexadecimal):
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
static const int COUNTS[CALLS] = { 1, 3, 1000, 8, 20000, 5, 2, 40000, 7, 300 };

static bool exclusive(int call) { return call % 2 == 0; }
static bool in_place(int call) { return call == 3 || call == 6; }
static op_kind kind_of_call(int call) { return (op_kind)((call - 1) % ORDERED_OP_KINDS); }

/* The result (or, with no rank of S before this one, recvbuf as it was:
 * `before`) checked element by element. */
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
        if (memcmp(recv, before, bytes) == 0)
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
    const int total_wrong = report_same_sets("scan", survivors, p, valid, CALLS, wrong);
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    leave_without_finalize(total_wrong ? 1 : 0);
}
