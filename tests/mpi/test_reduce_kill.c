/*
 * Real process deaths during ftc_reduce (ULFM only). FTCOLL_INJECT (set by
 * the scenario runner, tests/scripts/allreduce_kill_table.sh, from
 * reduce_kill_scenarios.txt) kills ranks as they enter a call (step=0),
 * once their subtree's values are combined (step=1: a non-root has not
 * sent its value yet), while waiting for the root's word (step=2), or in
 * the recovery. Every rank makes CALLS reduces of COUNTS[c - 1] ints,
 * call c to root (3 c) mod p (every root comes up, and a root killed in
 * one call is the root of a later one): MPI_SUM, call 4 MPI_MAX, call 6 a
 * user's commutative op (the root's word on every call), call 5 560 KB
 * (past 512 KiB: the word on every call); call 3 and 6 in place at the
 * root.
 *
 * Checked on every survivor, for every call, against the report:
 * MPI_SUCCESS (also with the root dead: nobody gets a result), the rank's
 * own input in S when the root was alive as the call began, and at the
 * root every element of the result exact over S. Then, over a communicator of
 * the survivors: every surviving root's S holds every survivor. The lowest
 * survivor prints one line (each call's S at its root, in hexadecimal, 0
 * where the root died):
 *   reduce-kill p=P survivors=N calls=C wrong=W S=[f f7 ...]: PASS|FAIL
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "rooted_kill.h"

enum { CALLS = ROOTED_CALLS };

static const int COUNTS[CALLS] = { 1, 3, 1000, 8, 140000, 5, 2 };

static MPI_Op user_op = MPI_OP_NULL;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static MPI_Op op_of(int call) { return call == 4 ? MPI_MAX : call == 6 ? user_op : MPI_SUM; }

/* Element i of the result over the ranks of S. */
static int expected(int call, int p, uint64_t s, int i)
{
    int result = call == 4 ? -1 : 0;
    for (int r = 0; r < p; r++)
        if (s >> r & 1) {
            const int x = rooted_element(r, call, i);
            result = call == 4 ? (x > result ? x : result) : result + x;
        }
    return result;
}

static int check_result(int rank, int p, int call, const int *result, uint64_t s)
{
    for (int i = 0; i < COUNTS[call - 1]; i++)
        if (result[i] != expected(call, p, s, i)) {
            fprintf(stderr, "MISMATCH rank %d call %d: element %d is %d, expected %d over "
                    "S = %llx\n", rank, call, i, result[i], expected(call, p, s, i),
                    (unsigned long long)s);
            return 1;
        }
    return 0;
}

static long recovered_before = 0;   /* check_recovered_calls' count */

static int check_call(ftc_comm_t comm, int rank, int p, int call, uint64_t *root_valid)
{
    const int count = COUNTS[call - 1], root = rooted_root_of(call, p);
    int *mine = checked_malloc(sizeof(int) * (size_t)count);
    int *result = checked_malloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++)
        mine[i] = rooted_element(rank, call, i);
    const bool at_root = rank == root, in_place = at_root && rooted_in_place(call);
    for (int i = 0; i < count; i++)
        result[i] = in_place ? mine[i] : ROOTED_UNTOUCHED;
    const uint64_t dead_before = known_dead_ranks(comm, p);
    const bool root_dead = dead_before >> root & 1;
    const int rc = ftc_reduce(in_place ? MPI_IN_PLACE : mine, result, count, MPI_INT,
                              op_of(call), root, comm);
    int wrong = 0;
    *root_valid = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s (root %d %s before the call): %s\n",
                rank, call, class_name(class_of(rc)), root, root_dead ? "dead" : "alive",
                ftc_error_message());
        wrong++;
    }
    uint64_t s = 0;
    wrong += reported_set(comm, &recovered_before, rank, p, call, &s);
    if (!root_dead && rc == MPI_SUCCESS && !(s >> rank & 1)) {
        fprintf(stderr, "FAIL rank %d call %d: reports S = %llx without its own input\n", rank,
                call, (unsigned long long)s);
        wrong++;
    }
    if (!root_dead && rc == MPI_SUCCESS && at_root) {
        wrong += check_result(rank, p, call, result, s);
        *root_valid = s;
    }
    free(mine);
    free(result);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Op_create(user_sum, 1, &user_op);
    rooted_kill_run("reduce-kill", check_call, ROOTED_TO_ROOT);
}
