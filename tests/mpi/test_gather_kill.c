/*
 * Real process deaths during ftc_gather (ULFM only). FTCOLL_INJECT (set by
 * the scenario runner, tests/scripts/allreduce_kill_table.sh, from
 * gather_kill_scenarios.txt) kills ranks as they enter a call (step=0),
 * once their subtree's blocks are all here (step=1: a non-root has not
 * sent them yet; the root has not put them in place), while waiting for
 * the root's word (step=2), or in the recovery; FTCOLL_GATHER_ALGORITHM
 * picks the tree. Every rank makes CALLS gathers of COUNTS[c - 1] ints,
 * call c to root (3 c) mod p (every root comes up, and a root killed in
 * one call is the root of a later one); call 3 and 6 in place at the
 * root, call 4 received through a strided type (every other int), call 2
 * sent through one (the root packs its own block by its send type in a
 * recovery), call 6 received through a derived dense type.
 *
 * Checked on every survivor, for every call: MPI_SUCCESS and a report. At
 * the root: its own block in the report's S (the valid blocks), every
 * block of S exact, the block of a rank dead before the call untouched.
 * Elsewhere, the root alive as the call began: its own block in S. Then, over a communicator of the
 * survivors: every surviving root's S holds every survivor. The lowest
 * survivor prints one line (each call's S at its root, in hexadecimal,
 * 0 where the root died):
 *   gather-kill p=P survivors=N calls=C wrong=W S=[f f7 ...]: PASS|FAIL
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "rooted_kill.h"

enum { CALLS = ROOTED_CALLS, MAX_RANKS = ROOTED_MAX_RANKS, UNTOUCHED = ROOTED_UNTOUCHED };

static const int COUNTS[CALLS] = { 1, 3, 1000, 8, 140000, 5, 2 };

/* Block by block at the root: a valid one exact, the gaps untouched; the
 * block of a rank dead before the call untouched. */
static int check_blocks(int rank, int p, int call, const int *data, uint64_t valid,
                        uint64_t dead_before)
{
    const int count = COUNTS[call - 1], stride = rooted_stride_of(call);
    for (int r = 0; r < p; r++) {
        const bool check_valid = valid >> r & 1, check_untouched = dead_before >> r & 1;
        for (int i = 0; i < count * stride && (check_valid || check_untouched); i++) {
            const int at = r * count * stride + i;
            const int want = check_valid && i % stride == 0 ? rooted_element(r, call, i / stride)
                                                            : UNTOUCHED;
            if (data[at] != want) {
                fprintf(stderr, "MISMATCH rank %d call %d: block %d int %d is %d, expected %d "
                        "(%s)\n", rank, call, r, i, data[at], want,
                        check_valid ? "valid" : "its rank died before the call");
                return 1;
            }
        }
    }
    return 0;
}

static int check_call(ftc_comm_t comm, int rank, int p, int call, uint64_t *root_valid)
{
    const int count = COUNTS[call - 1], stride = rooted_stride_of(call);
    const int root = rooted_root_of(call, p);
    const size_t ints = (size_t)count * (size_t)stride * (size_t)p;
    int *data = checked_malloc(sizeof(int) * ints);
    const int send_stride = rooted_send_stride_of(call);
    int *mine = checked_malloc(sizeof(int) * (size_t)count * (size_t)send_stride + 1);
    for (size_t i = 0; i < ints; i++)
        data[i] = UNTOUCHED;
    for (int i = 0; i < count; i++)
        mine[i * send_stride] = rooted_element(rank, call, i);
    const bool at_root = rank == root, here_in_place = at_root && rooted_in_place(call);
    if (here_in_place)
        for (int i = 0; i < count; i++)
            data[(size_t)rank * (size_t)count * (size_t)stride + (size_t)(i * stride)] =
                rooted_element(rank, call, i);
    MPI_Datatype type = rooted_recv_type_of(call);
    MPI_Datatype send_type = send_stride > 1 ? rooted_strided_int() : MPI_INT;
    const uint64_t dead_before = known_dead_ranks(comm, p);
    const int rc = ftc_gather(here_in_place ? MPI_IN_PLACE : mine, count, send_type, data, count,
                              type, root, comm);
    uint64_t valid = 0;
    int wrong = rooted_check_outcome(comm, rc, rank, p, call, root, dead_before, &valid);
    *root_valid = 0;
    if (rc == MPI_SUCCESS && at_root) {
        wrong += check_blocks(rank, p, call, data, valid, dead_before);
        *root_valid = valid;
    }
    if (type != MPI_INT)
        MPI_Type_free(&type);
    if (send_type != MPI_INT)
        MPI_Type_free(&send_type);
    free(data);
    free(mine);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rooted_kill_run("gather-kill", check_call, ROOTED_TO_ROOT);
}
