/*
 * Real process deaths during ftc_allgather, or with FTCOLL_TEST_ALLGATHERV=1
 * ftc_allgatherv (ULFM only). FTCOLL_INJECT (set by the scenario runner,
 * tests/scripts/allreduce_kill_table.sh, from allgather(v)_kill_scenarios.txt)
 * kills ranks as they enter a call (step=0)
 * or once every block reached them (step=1: the others may still wait),
 * or in the recovery; FTCOLL_ALLGATHER_ALGORITHM picks the plan. Every
 * rank makes CALLS allgathers of COUNTS[c - 1] ints per block; call 3 and
 * 6 in place, call 4 through a strided type (every other int), call 7
 * sending through a dense struct that lists its two ints in reverse order
 * (received as two ints: the first one sent is the one at offset 4).
 * As an allgatherv, rank r's block has COUNTS[c - 1] + r ints, none for
 * r = 1 mod 3 (call 7: two ints or none), and the blocks lie in reverse
 * rank order, each in a region of the largest block's size.
 *
 * Checked on every survivor, for every call: MPI_SUCCESS; this rank in the
 * report's S (the valid blocks); every block of S exact; the block of a
 * rank known dead before the call untouched. Then, over a communicator of
 * the survivors: every call's S the same on every survivor. The lowest
 * survivor prints one line (S of each call, in hexadecimal):
 *   allgather-kill p=P survivors=N calls=C wrong=W S=[ff f7 ...]: PASS|FAIL
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <mpi-ext.h>

#include "ftcoll.h"
#include "harness.h"

enum { CALLS = 7, MAX_RANKS = 64, UNTOUCHED = -1 };

static long recovered_before = 0;   /* check_recovered_calls' count (one communicator) */
static const int COUNTS[CALLS] = { 1, 3, 1000, 8, 20000, 5, 2 };

static bool as_v = false;   /* FTCOLL_TEST_ALLGATHERV=1: the calls are ftc_allgatherv's */

/* The ints of rank r's block in call `call`. */
static int count_of(int call, int r)
{
    if (!as_v)
        return COUNTS[call - 1];
    if (r % 3 == 1)
        return 0;
    return call == 7 ? 2 : COUNTS[call - 1] + r;
}

/* The region (of the largest block's size) that holds rank r's block. */
static int region_of(int r, int p) { return as_v ? p - 1 - r : r; }

static int element(int rank, int call, int i) { return rank * 1000000 + call * 100000 + i; }

static bool in_place(int call) { return call == 3 || call == 6; }

/* Every other int for call 4 (a gap after each element), else ints. */
static MPI_Datatype layout_of(int call, int count, int *stride)
{
    MPI_Datatype type = MPI_INT;
    *stride = 1;
    if (call == 4) {
        MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &type);
        MPI_Type_commit(&type);
        *stride = 2;
    }
    (void)count;
    return type;
}

/* Call 7's send type: {int at offset 4, int at offset 0}, one per block. */
static MPI_Datatype reversed_pair(void)
{
    MPI_Datatype type;
    const int lengths[2] = { 1, 1 };
    const MPI_Aint offsets[2] = { sizeof(int), 0 };
    const MPI_Datatype types[2] = { MPI_INT, MPI_INT };
    MPI_Type_create_struct(2, lengths, offsets, types, &type);
    MPI_Type_commit(&type);
    return type;
}

/* Region by region: a valid block exact, the rest of its region untouched;
 * the region of a rank dead before the call untouched. */
static int check_blocks(int rank, int p, int call, const int *data, int region, int stride,
                        uint64_t valid, uint64_t dead_before)
{
    for (int r = 0; r < p; r++) {
        const bool check_valid = valid >> r & 1, check_untouched = dead_before >> r & 1;
        const int block_ints = count_of(call, r) * stride;
        for (int i = 0; i < region * stride && (check_valid || check_untouched); i++) {
            const int at = region_of(r, p) * region * stride + i;
            const int want = check_valid && i < block_ints && i % stride == 0
                ? element(r, call, i / stride) : UNTOUCHED;
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

/* The call as an allgather, or as an allgatherv of the same blocks. */
static int gather(const void *send, int send_count, MPI_Datatype send_type, int *data, int call,
                  int region, MPI_Datatype type, ftc_comm_t comm, int p)
{
    if (!as_v)
        return ftc_allgather(send, send_count, send_type, data, region, type, comm);
    int counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < p; r++) {
        counts[r] = count_of(call, r);
        displs[r] = region_of(r, p) * region;
    }
    return ftc_allgatherv(send, send_count, send_type, data, counts, displs, type, comm);
}

static int check_call(ftc_comm_t comm, int rank, int p, int call, uint64_t *valid)
{
    const int count = count_of(call, rank), region = as_v ? COUNTS[call - 1] + p : count;
    int stride;
    MPI_Datatype type = layout_of(call, count, &stride);
    const size_t block_ints = (size_t)count * (size_t)stride;
    const size_t region_ints = (size_t)region * (size_t)stride;
    int *data = checked_malloc(sizeof(int) * region_ints * (size_t)p);
    int *mine = checked_malloc(sizeof(int) * (block_ints + 1));
    for (size_t i = 0; i < region_ints * (size_t)p; i++)
        data[i] = UNTOUCHED;
    for (size_t i = 0; i < block_ints; i++)
        mine[i] = i % (size_t)stride == 0 ? element(rank, call, (int)(i / (size_t)stride))
                                          : UNTOUCHED;
    const bool reversed = call == 7;
    MPI_Datatype send_type = reversed ? reversed_pair() : type;
    int reversed_block[2];
    if (reversed && count == 2) {   /* the type sends offset 4 first */
        reversed_block[0] = mine[1];
        reversed_block[1] = mine[0];
    }
    int *own_region = data + (size_t)region_of(rank, p) * region_ints;
    if (in_place(call))
        for (size_t i = 0; i < block_ints; i++)
            own_region[i] = mine[i];
    const uint64_t dead_before = known_dead_ranks(comm, p);
    const int rc = gather(in_place(call) ? MPI_IN_PLACE : reversed ? reversed_block : mine,
                          reversed ? count / 2 : count, send_type, data, call, region, type,
                          comm, p);
    int wrong = 0;
    *valid = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s: %s\n", rank, call,
                class_name(class_of(rc)), ftc_error_message());
        wrong++;
    } else {
        wrong += reported_set(comm, &recovered_before, rank, p, call, valid);
        if (!(*valid >> rank & 1)) {
            fprintf(stderr, "FAIL rank %d call %d: its own block is not reported valid\n", rank,
                    call);
            wrong++;
        }
        wrong += check_blocks(rank, p, call, data, region, stride, *valid, dead_before);
    }
    if (type != MPI_INT)
        MPI_Type_free(&type);
    if (reversed)
        MPI_Type_free(&send_type);
    free(data);
    free(mine);
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
    const char *v = getenv("FTCOLL_TEST_ALLGATHERV");
    as_v = v && strcmp(v, "1") == 0;
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    int wrong = 0;
    uint64_t valid[CALLS];
    for (int call = 1; call <= CALLS; call++)
        wrong += check_call(comm, rank, p, call, &valid[call - 1]);

    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        die(ftc_error_message());
    const int total_wrong = report_same_sets(as_v ? "allgatherv" : "allgather", survivors, p,
                                             valid, CALLS, wrong);
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    leave_without_finalize(total_wrong ? 1 : 0);
}
