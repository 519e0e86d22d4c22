/*
 * Real process deaths during ftc_alltoall and ftc_alltoallv (ULFM only).
 * FTCOLL_INJECT (set by the scenario runner,
 * tests/scripts/allreduce_kill_table.sh, from alltoall_kill_scenarios.txt)
 * kills ranks as they enter a call (step=0), once every block arrived
 * (step=1), as they acknowledge or wait for acknowledgements (step=2), or
 * in the recovery. Every rank makes CALLS calls:
 *
 *   call 1  alltoall, 1 int a block
 *   call 2  alltoallv, BASE + (from + 2 to) % 3 ints, received every other int
 *   call 3  alltoall in place, 1000 ints (4 KB: copied for late receivers)
 *   call 4  alltoallv, the receive places in reverse rank order with gaps
 *   call 5  alltoallv, about 20000 ints (80 KB: acknowledged on three live
 *           ranks or more)
 *   call 6  alltoallv in place, BASE + (from + to) % 3 ints
 *   call 7  alltoall, 2 ints
 *
 * Checked on every survivor, for every call: MPI_SUCCESS; the report's
 * valid blocks (its in_result) hold this rank's own, and each is exact;
 * every int outside a block untouched; the send buffer unchanged. Then,
 * over a communicator of the survivors: every call's valid blocks, on
 * every survivor, hold every survivor's. The lowest survivor prints one
 * line (each call's valid blocks common to every survivor, in hex):
 *   alltoall-kill p=P survivors=N calls=C wrong=W S=[ff f7 ...]: PASS|FAIL
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

enum { CALLS = 7, MAX_RANKS = 64, UNTOUCHED = -1, GAP = 2 };

static const int BASE[CALLS] = { 1, 3, 1000, 8, 20000, 5, 2 };

static bool is_alltoall(int call) { return call == 1 || call == 3 || call == 7; }
static bool in_place(int call) { return call == 3 || call == 6; }
static int recv_stride(int call) { return call == 2 ? 2 : 1; }

/* The ints rank `from` sends rank `to` in call `call`: both know it. */
static int count_of(int from, int to, int call)
{
    if (is_alltoall(call))
        return BASE[call - 1];
    return BASE[call - 1] + (call == 6 ? from + to : from + 2 * to) % 3;
}

static int element(int from, int to, int call, int i)
{
    return ((call * MAX_RANKS + from) * MAX_RANKS + to) * 25000 + i;   /* i < 25000 */
}

/* One side of this rank's blocks: counts and places (elements), the
 * elements the buffer spans. */
typedef struct {
    int counts[MAX_RANKS], displs[MAX_RANKS];
    int total;
} side;

static void place(side *s, int p, int rank, int call, bool sending, bool reversed)
{
    int at = 0;
    for (int k = 0; k < p; k++) {
        const int r = reversed ? p - 1 - k : k;
        s->counts[r] = sending ? count_of(rank, r, call) : count_of(r, rank, call);
        at += reversed ? GAP : 0;
        s->displs[r] = at;
        at += s->counts[r];
    }
    s->total = at + GAP;
}

/* A buffer of UNTOUCHED ints, `stride` ints an element, with the blocks of
 * `s` from (or, `sending`, to) every rank. */
static int *filled(const side *s, int p, int rank, int call, bool sending, int stride)
{
    const size_t ints = (size_t)s->total * (size_t)stride;
    int *buf = checked_malloc(ints * sizeof(int));
    for (size_t i = 0; i < ints; i++)
        buf[i] = UNTOUCHED;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < s->counts[r]; i++)
            buf[(size_t)(s->displs[r] + i) * (size_t)stride] =
                sending ? element(rank, r, call, i) : element(r, rank, call, i);
    return buf;
}

/* The receive buffer: the valid blocks exact, every int outside a block untouched. */
static int check_received(const side *s, int p, int rank, int call, const int *got,
                          const int *want, uint64_t valid)
{
    const int stride = recv_stride(call);
    const size_t ints = (size_t)s->total * (size_t)stride;
    bool *in_block = calloc(ints, sizeof(bool));
    if (!in_block)
        die("out of memory");
    for (int r = 0; r < p; r++)
        for (int i = 0; i < s->counts[r]; i++)
            in_block[(size_t)(s->displs[r] + i) * (size_t)stride] = !(valid >> r & 1);
    int wrong = 0;
    for (size_t i = 0; i < ints && !wrong; i++)
        if (!in_block[i] && got[i] != want[i]) {
            fprintf(stderr, "MISMATCH rank %d call %d: int %zu of its receive buffer is %d, "
                    "expected %d (valid blocks %llx)\n", rank, call, i, got[i], want[i],
                    (unsigned long long)valid);
            wrong = 1;
        }
    free(in_block);
    return wrong;
}

static int call_once(ftc_comm_t comm, int call, const side *send, const int *send_buf,
                     const side *recv, int *recv_buf, MPI_Datatype recv_type)
{
    const void *from = in_place(call) ? MPI_IN_PLACE : send_buf;
    if (is_alltoall(call))
        return ftc_alltoall(from, BASE[call - 1], MPI_INT, recv_buf, BASE[call - 1], recv_type,
                            comm);
    return ftc_alltoallv(from, send->counts, send->displs, MPI_INT, recv_buf, recv->counts,
                         recv->displs, recv_type, comm);
}

static int check_call(ftc_comm_t comm, int rank, int p, int call, uint64_t *valid)
{
    static long recovered_before = 0;
    side send, recv;
    place(&send, p, rank, call, true, false);
    place(&recv, p, rank, call, false, call == 4);
    if (is_alltoall(call))   /* end to end, as MPI_Alltoall lays them */
        for (int r = 0; r < p; r++) {
            send.displs[r] = recv.displs[r] = r * BASE[call - 1];
            send.total = recv.total = p * BASE[call - 1];
        }
    const int stride = recv_stride(call);
    int *send_buf = filled(&send, p, rank, call, true, 1);
    int *copy = filled(&send, p, rank, call, true, 1);
    int *recv_buf = filled(&recv, p, rank, call, in_place(call), stride);
    if (!in_place(call))
        for (int i = 0; i < recv.total * stride; i++)
            recv_buf[i] = UNTOUCHED;
    int *want = filled(&recv, p, rank, call, false, stride);
    MPI_Datatype recv_type = MPI_INT;
    if (stride > 1) {
        MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &recv_type);
        MPI_Type_commit(&recv_type);
    }
    const int rc = call_once(comm, call, &send, send_buf, &recv, recv_buf, recv_type);
    int wrong = 0;
    *valid = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s: %s\n", rank, call,
                class_name(class_of(rc)), ftc_error_message());
        wrong++;
    } else {
        wrong += reported_set(comm, &recovered_before, rank, p, call, valid);
        if (!(*valid >> rank & 1)) {
            fprintf(stderr, "FAIL rank %d call %d: its own block is not valid (%llx)\n", rank,
                    call, (unsigned long long)*valid);
            wrong++;
        }
        wrong += check_received(&recv, p, rank, call, recv_buf, want, *valid);
        if (memcmp(send_buf, copy, sizeof(int) * (size_t)send.total) != 0) {
            fprintf(stderr, "MISMATCH rank %d call %d: its send buffer changed\n", rank, call);
            wrong++;
        }
    }
    if (recv_type != MPI_INT)
        MPI_Type_free(&recv_type);
    free(send_buf);
    free(copy);
    free(recv_buf);
    free(want);
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
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    int wrong = 0;
    uint64_t valid[CALLS], common[CALLS];
    for (int call = 1; call <= CALLS; call++)
        wrong += check_call(comm, rank, p, call, &valid[call - 1]);

    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        die(ftc_error_message());
    int n, reporter, total_wrong = 0;
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &reporter);
    const uint64_t alive = survivor_ranks(survivors);
    for (int call = 1; call <= CALLS; call++)
        if ((valid[call - 1] & alive) != alive) {
            fprintf(stderr, "FAIL rank %d call %d: valid blocks %llx miss survivors %llx\n", rank,
                    call, (unsigned long long)valid[call - 1], (unsigned long long)alive);
            wrong++;
        }
    MPI_Allreduce(valid, common, CALLS, MPI_UINT64_T, MPI_BAND, survivors);
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT, MPI_SUM, survivors);
    if (reporter == 0) {
        printf("alltoall-kill p=%d survivors=%d calls=%d wrong=%d S=[", p, n, CALLS, total_wrong);
        for (int call = 0; call < CALLS; call++)
            printf("%s%llx", call ? " " : "", (unsigned long long)common[call]);
        printf("]: %s\n", total_wrong ? "FAIL" : "PASS");
    }
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    leave_without_finalize(total_wrong ? 1 : 0);
}
