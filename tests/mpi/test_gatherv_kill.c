/*
 * Real process deaths during ftc_gatherv (ULFM only). FTCOLL_INJECT (set
 * by the scenario runner, tests/scripts/allreduce_kill_table.sh, from
 * gatherv_kill_scenarios.txt) kills ranks as they enter a call (step=0),
 * once their block is sent (step=1; the root: once every block arrived,
 * before its word), while waiting for the root's word (step=2), or in the
 * recovery. Every rank makes CALLS gathervs, call c to root (3 c) mod p
 * (every root comes up, and a root killed in one call is the root of a
 * later one); rank r sends BASE[c - 1] + r ints (call 3: none from the
 * odd ranks; call 5: past the 16 KiB a rank keeps a copy of, so every
 * rank waits for the root's word), placed in reverse rank order with gaps
 * between blocks; call 3 and 6 in place at the root, call 4 received
 * through a strided type (every other int), call 2 sent through one,
 * call 6 received through a derived dense type.
 *
 * Checked on every survivor, for every call: MPI_SUCCESS and a report. At
 * the root: its own block in the report's S (the valid blocks), every
 * block of S exact, the block of a rank dead before the call untouched,
 * and every gap untouched. Elsewhere, the root alive as the call began:
 * its own block in S. Then, over a communicator of the survivors: every
 * surviving root's S holds every survivor. The lowest survivor prints one
 * line (each call's S at its root, in hexadecimal, 0 where the root died):
 *   gatherv-kill p=P survivors=N calls=C wrong=W S=[f f7 ...]: PASS|FAIL
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

static const int BASE[CALLS] = { 1, 3, 1000, 8, 20000, 5, 2 };
enum { GAP = 2 };   /* elements before each block */

static int count_of(int rank, int call)
{
    return call == 3 && rank % 2 ? 0 : BASE[call - 1] + rank;
}

/* Block r's displacement, in elements: the blocks in reverse rank order,
 * GAP elements before each; *total the elements the buffer spans. */
static int displ_of(int r, int call, int p, int *total)
{
    int at = 0, mine = 0;
    for (int k = p - 1; k >= 0; k--) {
        at += GAP;
        mine = k == r ? at : mine;
        at += count_of(k, call);
    }
    *total = at + GAP;
    return mine;
}

/* Block by block at the root: a valid one exact, the gaps untouched; the
 * block of a rank dead before the call untouched; every int outside the
 * blocks untouched. */
static int check_blocks(int rank, int p, int call, const int *data, size_t ints, uint64_t valid,
                        uint64_t dead_before)
{
    const int stride = rooted_stride_of(call);
    bool *in_block = calloc(ints + 1, sizeof(bool));
    if (!in_block)
        die("out of memory");
    int total, wrong = 0;
    for (int r = 0; r < p && !wrong; r++) {
        const bool check_valid = valid >> r & 1, check_untouched = dead_before >> r & 1;
        const int count = count_of(r, call), first = displ_of(r, call, p, &total) * stride;
        for (int i = 0; i < count * stride && !wrong; i++) {
            const int at = first + i;
            in_block[at] = i % stride == 0;
            if (!check_valid && !check_untouched)
                continue;
            const int want = check_valid && i % stride == 0 ? rooted_element(r, call, i / stride)
                                                            : UNTOUCHED;
            if (data[at] != want) {
                fprintf(stderr, "MISMATCH rank %d call %d: block %d int %d is %d, expected %d "
                        "(%s)\n", rank, call, r, i, data[at], want,
                        check_valid ? "valid" : "its rank died before the call");
                wrong = 1;
            }
        }
    }
    for (size_t i = 0; i < ints && !wrong; i++)
        if (!in_block[i] && data[i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d call %d: int %zu outside the blocks is %d\n",
                    rank, call, i, data[i]);
            wrong = 1;
        }
    free(in_block);
    return wrong;
}

static int check_call(ftc_comm_t comm, int rank, int p, int call, uint64_t *root_valid)
{
    const int count = count_of(rank, call), stride = rooted_stride_of(call);
    const int root = rooted_root_of(call, p);
    int total = 0, counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < p; r++) {
        counts[r] = count_of(r, call);
        displs[r] = displ_of(r, call, p, &total);
    }
    const size_t ints = (size_t)total * (size_t)stride;
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
            data[(size_t)(displs[rank] + i) * (size_t)stride] = rooted_element(rank, call, i);
    MPI_Datatype type = rooted_recv_type_of(call);
    MPI_Datatype send_type = send_stride > 1 ? rooted_strided_int() : MPI_INT;
    const uint64_t dead_before = known_dead_ranks(comm, p);
    const int rc = ftc_gatherv(here_in_place ? MPI_IN_PLACE : mine, count, send_type, data,
                               counts, displs, type, root, comm);
    uint64_t valid = 0;
    int wrong = rooted_check_outcome(comm, rc, rank, p, call, root, dead_before, &valid);
    *root_valid = 0;
    if (rc == MPI_SUCCESS && at_root) {
        wrong += check_blocks(rank, p, call, data, ints, valid, dead_before);
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
    rooted_kill_run("gatherv-kill", check_call, ROOTED_TO_ROOT);
}
