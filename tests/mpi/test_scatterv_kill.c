/*
 * Real process deaths during ftc_scatterv (ULFM only). FTCOLL_INJECT (set
 * by the scenario runner, tests/scripts/allreduce_kill_table.sh, from
 * scatterv_kill_scenarios.txt) kills ranks as they enter a call (step=0),
 * once their block arrived (step=1; the root: once every send completed),
 * acknowledging it or waiting for the word (step=2), or in the recovery.
 * Every rank makes CALLS scattervs, call c from root (3 c) mod p (every
 * root comes up, and a root killed in one call is the root of a later
 * one); rank r receives BASE[c - 1] + r ints (call 3: none for the odd
 * ranks; call 5: past the root's share of 16 KiB, so every rank
 * acknowledges), the root's blocks in reverse rank order with gaps; call
 * 3 and 6 in place at the root, call 4 sent from a strided type (every
 * other int), call 2 received into one, call 6 sent from a derived dense
 * type.
 *
 * Checked on every survivor, for every call, against the report: a rank
 * returns MPI_SUCCESS with its block exact (and the ints around it
 * untouched), or MPIX_ERR_PROC_FAILED only when the root is dead, its
 * block then outside the report's S; the root always succeeds, its send
 * buffer unchanged. Then, over a communicator of the survivors: every
 * survivor got its block in every call whose root survived. The lowest
 * survivor prints one line (each call's survivors that got their block,
 * in hexadecimal):
 *   scatterv-kill p=P survivors=N calls=C wrong=W S=[f f7 ...]: PASS|FAIL
 *
 * With FTCOLL_TEST_SCATTER=1 the calls are ftc_scatter's: every block
 * BASE[c - 1] ints, end to end in rank order (the line says scatter-kill).
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
#include "rooted_kill.h"

enum { CALLS = ROOTED_CALLS, MAX_RANKS = ROOTED_MAX_RANKS, UNTOUCHED = ROOTED_UNTOUCHED };

static const int BASE[CALLS] = { 1, 3, 1000, 8, 20000, 5, 2 };
enum { GAP = 2, MARGIN = 3 };   /* elements before each of the root's blocks; ints past a
                                 * received one */

/* FTCOLL_TEST_SCATTER=1: the same calls as ftc_scatter's, every block
 * BASE ints, end to end in rank order at the root. */
static bool as_scatter;

static int count_of(int rank, int call)
{
    if (as_scatter)
        return BASE[call - 1];
    return call == 3 && rank % 2 ? 0 : BASE[call - 1] + rank;
}

/* The root's block r's displacement, in elements: the blocks in reverse
 * rank order, GAP elements before each; *total the elements the buffer
 * spans. */
static int displ_of(int r, int call, int p, int *total)
{
    if (as_scatter) {
        *total = p * BASE[call - 1];
        return r * BASE[call - 1];
    }
    int at = 0, mine = 0;
    for (int k = p - 1; k >= 0; k--) {
        at += GAP;
        mine = k == r ? at : mine;
        at += count_of(k, call);
    }
    *total = at + GAP;
    return mine;
}

/* The root's send side: call 4 sends from every other int, call 6 through a
 * derived dense type (the gather's receive types, rooted_recv_type_of). */
static int send_stride_of(int call) { return rooted_stride_of(call); }

/* This rank's block in its receive buffer (call 2: every other int), the
 * rest untouched. */
static int check_received(int rank, int call, const int *data, size_t ints)
{
    const int count = count_of(rank, call), stride = rooted_send_stride_of(call);
    for (size_t i = 0; i < ints; i++) {
        const bool element = i < (size_t)count * (size_t)stride && i % (size_t)stride == 0;
        const int want = element ? rooted_element(rank, call, (int)(i / (size_t)stride))
                                 : UNTOUCHED;
        if (data[i] != want) {
            fprintf(stderr, "MISMATCH rank %d call %d: int %zu of its receive buffer is %d, "
                    "expected %d\n", rank, call, i, data[i], want);
            return 1;
        }
    }
    return 0;
}

static int check_send_unchanged(int rank, int call, const int *send, const int *copy,
                                size_t ints)
{
    if (memcmp(send, copy, ints * sizeof(int)) == 0)
        return 0;
    fprintf(stderr, "MISMATCH rank %d call %d: the root's send buffer changed\n", rank, call);
    return 1;
}

/* What a rank may return: MPI_SUCCESS, or with the root dead
 * MPIX_ERR_PROC_FAILED, its block then not in S. */
static int check_return(ftc_comm_t comm, int rc, int rank, int p, int call, int root,
                        bool *got)
{
    static long recovered_before = 0;
    uint64_t set = 0;
    *got = false;
    const bool root_dead = known_dead_ranks(comm, p) >> root & 1;
    if (rc != MPI_SUCCESS && !(rank != root && root_dead && class_of(rc) == MPIX_ERR_PROC_FAILED)) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s: %s\n", rank, call,
                class_name(class_of(rc)), ftc_error_message());
        return 1;
    }
    int wrong = reported_set(comm, &recovered_before, rank, p, call, &set);
    *got = rc == MPI_SUCCESS;
    if ((set >> rank & 1) != *got) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s, its block %s the report's S = %llx\n",
                rank, call, class_name(class_of(rc)), *got ? "outside" : "inside",
                (unsigned long long)set);
        wrong++;
    }
    return wrong;
}

static int check_call(ftc_comm_t comm, int rank, int p, int call, uint64_t *got_bit)
{
    const int root = rooted_root_of(call, p), stride = send_stride_of(call);
    const bool at_root = rank == root, here_in_place = at_root && rooted_in_place(call);
    int total = 0, counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < p; r++) {
        counts[r] = count_of(r, call);
        displs[r] = displ_of(r, call, p, &total);
    }
    const size_t send_ints = (size_t)total * (size_t)stride;
    int *send = checked_malloc(sizeof(int) * send_ints), *copy = NULL;
    for (size_t i = 0; i < send_ints; i++)
        send[i] = UNTOUCHED;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < counts[r]; i++)
            send[(size_t)(displs[r] + i) * (size_t)stride] = rooted_element(r, call, i);
    if (at_root) {
        copy = checked_malloc(sizeof(int) * send_ints);
        memcpy(copy, send, sizeof(int) * send_ints);
    }
    const int recv_stride = rooted_send_stride_of(call), count = counts[rank];
    const size_t recv_ints = (size_t)count * (size_t)recv_stride + MARGIN;
    int *recv = checked_malloc(sizeof(int) * recv_ints);
    for (size_t i = 0; i < recv_ints; i++)
        recv[i] = UNTOUCHED;
    MPI_Datatype send_type = rooted_recv_type_of(call);
    MPI_Datatype recv_type = recv_stride > 1 ? rooted_strided_int() : MPI_INT;
    void *into = here_in_place ? MPI_IN_PLACE : recv;
    const int rc = as_scatter
        ? ftc_scatter(at_root ? send : NULL, count, send_type, into, count, recv_type, root, comm)
        : ftc_scatterv(at_root ? send : NULL, at_root ? counts : NULL, at_root ? displs : NULL,
                       at_root ? send_type : MPI_DATATYPE_NULL, into, count, recv_type, root,
                       comm);
    bool got = false;
    int wrong = check_return(comm, rc, rank, p, call, root, &got);
    if (got && !here_in_place)
        wrong += check_received(rank, call, recv, recv_ints);
    if (at_root)
        wrong += check_send_unchanged(rank, call, send, copy, send_ints);
    *got_bit = got ? (uint64_t)1 << rank : 0;
    if (send_type != MPI_INT)
        MPI_Type_free(&send_type);
    if (recv_type != MPI_INT)
        MPI_Type_free(&recv_type);
    free(send);
    free(copy);
    free(recv);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    as_scatter = getenv("FTCOLL_TEST_SCATTER") != NULL;
    rooted_kill_run(as_scatter ? "scatter-kill" : "scatterv-kill", check_call, ROOTED_FROM_ROOT);
}
