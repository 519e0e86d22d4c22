/*
 * ftc_alltoall and ftc_alltoallv against MPI_Alltoall's and
 * MPI_Alltoallv's definitions, every int of every buffer checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). ftc_alltoallv:
 * block sizes between each pair of one size, with zeros, rising, all zero,
 * and large (past a rank's share of the 64 KiB it keeps a copy of:
 * acknowledged, some of them); displacements in rank order and reversed
 * with gaps between blocks; three layouts (ints; doubles; ints received
 * every other int, sent dense); in place and not; each algorithm and the
 * decision table's (the modified Bruck forced: ftc_alltoall runs it,
 * ftc_alltoallv linear, as the last choice must say); on MPI_COMM_WORLD, a duplicate of it and the two
 * halves of a split with reversed ranks. ftc_alltoall likewise with 0, 1,
 * 5 and 5000 elements a block. Every rank checks every int of its receive
 * buffer (each block's elements, everything else untouched) and that its
 * send buffer is unchanged.
 *
 * With --quick (many ranks): MPI_COMM_WORLD only, the decision table's
 * algorithm and the others on the first pattern only.
 *
 * Rank 0 prints "alltoall p=P: N cases, all elements checked".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "layouts.h"

enum { GAP = 3 };   /* elements before each block, when reversed */

typedef enum { SIZES_EQUAL, SIZES_ZEROS, SIZES_RISING, SIZES_NONE, SIZES_LARGE,
               SIZE_PATTERNS } size_pattern;

/* The elements rank `from` sends rank `to`: both know it. In place, a
 * rank sends each rank as many as it receives from it (`symmetric`). */
static int block_count(size_pattern pattern, int from, int to, bool symmetric)
{
    switch (pattern) {
    case SIZES_EQUAL: return 5;
    case SIZES_ZEROS: return (from + to) % 2 ? 0 : from + to + 3;
    case SIZES_RISING: return symmetric ? 7 * (from + to) + 1 : 7 * from + to + 1;
    case SIZES_NONE: return 0;
    default: return (from + to) % 3 == 0 ? 40000 : 9000;
    }
}

/* One side of a rank's blocks: block r's count and place, in elements. */
typedef struct {
    int *counts, *displs;
    size_t elements;   /* the buffer, margin included */
} side;

static void place(side *s, int p, int me, size_pattern pattern, bool sending, bool reversed,
                  bool symmetric, int uniform)
{
    int at = 0;
    for (int k = 0; k < p; k++) {
        const int r = reversed ? p - 1 - k : k;
        s->counts[r] = uniform >= 0 ? uniform
                                    : sending ? block_count(pattern, me, r, symmetric)
                                              : block_count(pattern, r, me, symmetric);
        at += reversed ? GAP : 0;
        s->displs[r] = uniform >= 0 ? r * uniform : at;
        at += s->counts[r];
    }
    s->elements = (size_t)at + GAP;
}

/* An element's value says who sent it to whom: its block's "owner" for
 * the layouts is the pair. */
static int pair(int from, int to, int p) { return from * p + to; }

/* A buffer of UNTOUCHED ints, elements of layout l (step ints each), with
 * block r of `s` filled as sent from `from(r)` to `to(r)`. */
static int *filled(const side *s, int p, int me, layout l, bool sending)
{
    const int step = layout_ints_per_element(l);
    const size_t ints = s->elements * 2;
    int *buf = checked_malloc(ints * sizeof(int) + 1);
    for (size_t i = 0; i < ints; i++)
        buf[i] = UNTOUCHED;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < s->counts[r]; i++)
            layout_store(l, buf + (size_t)(s->displs[r] + i) * (size_t)step,
                         sending ? pair(me, r, p) : pair(r, me, p), i);
    return buf;
}

static int compare(const int *got, const int *want, size_t ints, int rank, const char *what,
                   const char *buffer)
{
    for (size_t i = 0; i < ints; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "MISMATCH rank %d %s: %s int %zu is %d, not %d\n", rank, what, buffer,
                    i, got[i], want[i]);
            return 1;
        }
    return 0;
}

typedef struct {
    MPI_Comm mpi;
    ftc_comm_t comm;
    int p, rank;
    side send, recv;
    int cases;
} context;

/* One call; sends are dense (the layout's send type), receives the
 * layout's (every other int when strided); in place, recvbuf holds the
 * blocks to send as the receive type lays them. */
static int run_case(context *c, layout l, bool in_place, bool as_alltoall, int uniform,
                    const char *what)
{
    int *send = filled(&c->send, c->p, c->rank, l == LAYOUT_STRIDED ? LAYOUT_INTS : l, true);
    /* in place, what it sends: its blocks for the others, at the receive places */
    int *recv = filled(&c->recv, c->p, c->rank, l, true);
    if (!in_place)
        for (size_t i = 0; i < c->recv.elements * 2; i++)
            recv[i] = UNTOUCHED;
    int *want = filled(&c->recv, c->p, c->rank, l, false);
    const size_t send_ints = c->send.elements * 2;
    int *send_copy = checked_malloc(send_ints * sizeof(int) + 1);
    memcpy(send_copy, send, send_ints * sizeof(int));
    MPI_Datatype recv_type = layout_recv_type(l), send_type = layout_send_type(l);
    const void *from = in_place ? MPI_IN_PLACE : send;
    const int rc = as_alltoall
        ? ftc_alltoall(from, uniform, send_type, recv, uniform, recv_type, c->comm)
        : ftc_alltoallv(from, c->send.counts, c->send.displs, send_type, recv, c->recv.counts,
                        c->recv.displs, recv_type, c->comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%s failed (%s): %s: %s\n", as_alltoall ? "ftc_alltoall" : "ftc_alltoallv",
                what, class_name(class_of(rc)), ftc_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int wrong = compare(recv, want, c->recv.elements * 2, c->rank, what, "recvbuf");
    wrong += compare(send, send_copy, send_ints, c->rank, what, "sendbuf");
    layout_free_type(l, &recv_type);
    free(send);
    free(recv);
    free(want);
    free(send_copy);
    c->cases++;
    return wrong;
}

static const ftc_alltoall_algorithm algorithms[] = { FTC_ALLTOALL_AUTO, FTC_ALLTOALL_LINEAR,
                                                     FTC_ALLTOALL_PAIRWISE,
                                                     FTC_ALLTOALL_MODIFIED_BRUCK };
enum { ALGORITHMS = sizeof(algorithms) / sizeof(algorithms[0]) };

/* What a forced algorithm runs: itself, but linear for an alltoallv forced
 * to the modified Bruck (no Bruck alltoallv). */
static int check_executed(context *c, ftc_alltoall_algorithm forced, bool as_alltoall,
                          const char *what)
{
    ftc_alltoall_choice choice;
    mpi_or_die(ftc_alltoall_last_choice(c->comm, &choice), "last_choice");
    const ftc_alltoall_algorithm want =
        !as_alltoall && forced == FTC_ALLTOALL_MODIFIED_BRUCK ? FTC_ALLTOALL_LINEAR : forced;
    if (forced == FTC_ALLTOALL_AUTO || choice.executed == want)
        return 0;
    fprintf(stderr, "MISMATCH rank %d %s: ran %s\n", c->rank, what,
            ftc_alltoall_algorithm_name(choice.executed));
    return 1;
}

static int check_alltoallv(context *c, bool quick)
{
    int wrong = 0;
    for (int a = 0; a < ALGORITHMS; a++) {
        mpi_or_die(ftc_alltoall_set_algorithm(c->comm, algorithms[a]), "set_algorithm");
        for (int pattern = 0; pattern < SIZE_PATTERNS; pattern++) {
            if (quick && a > 0 && pattern > 0)
                continue;
            for (int l = 0; l < LAYOUTS; l++)
                for (int variant = 0; variant < 4; variant++) {
                    const bool reversed = variant & 1, in_place = variant & 2;
                    char what[160];
                    snprintf(what, sizeof(what), "alltoallv %s sizes %d layout %d%s%s",
                             ftc_alltoall_algorithm_name(algorithms[a]), pattern, l,
                             reversed ? " reversed" : "", in_place ? " in place" : "");
                    place(&c->send, c->p, c->rank, (size_pattern)pattern, true, reversed,
                          in_place, -1);
                    place(&c->recv, c->p, c->rank, (size_pattern)pattern, false, !reversed,
                          in_place, -1);
                    wrong += run_case(c, (layout)l, in_place, false, -1, what);
                    wrong += check_executed(c, algorithms[a], false, what);
                }
        }
    }
    return wrong;
}

static int check_alltoall(context *c, bool quick)
{
    static const int counts[] = { 0, 1, 5, 5000 };
    int wrong = 0;
    for (int a = 0; a < ALGORITHMS; a++) {
        mpi_or_die(ftc_alltoall_set_algorithm(c->comm, algorithms[a]), "set_algorithm");
        for (int k = 0; k < 4; k++)
            for (int l = 0; l < LAYOUTS && !(quick && a > 0 && l > 0); l++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    char what[160];
                    snprintf(what, sizeof(what), "alltoall %s count %d layout %d%s",
                             ftc_alltoall_algorithm_name(algorithms[a]), counts[k], l,
                             in_place ? " in place" : "");
                    place(&c->send, c->p, c->rank, SIZES_EQUAL, true, false, false, counts[k]);
                    place(&c->recv, c->p, c->rank, SIZES_EQUAL, false, false, false, counts[k]);
                    wrong += run_case(c, (layout)l, in_place, true, counts[k], what);
                    wrong += check_executed(c, algorithms[a], true, what);
                }
    }
    return wrong;
}

static int check_communicator(MPI_Comm mpi, bool quick, int *cases)
{
    context c = { .mpi = mpi };
    MPI_Comm_size(mpi, &c.p);
    MPI_Comm_rank(mpi, &c.rank);
    if (ftc_comm_create(mpi, &c.comm) != MPI_SUCCESS)
        die(ftc_error_message());
    c.send.counts = checked_malloc(sizeof(int) * (size_t)c.p);
    c.send.displs = checked_malloc(sizeof(int) * (size_t)c.p);
    c.recv.counts = checked_malloc(sizeof(int) * (size_t)c.p);
    c.recv.displs = checked_malloc(sizeof(int) * (size_t)c.p);
    int wrong = check_alltoallv(&c, quick) + check_alltoall(&c, quick);
    free(c.send.counts);
    free(c.send.displs);
    free(c.recv.counts);
    free(c.recv.displs);
    ftc_comm_free(&c.comm);
    *cases += c.cases;
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int rank, p, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int wrong = check_communicator(MPI_COMM_WORLD, quick, &cases);
    if (!quick) {
        MPI_Comm dup, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        wrong += check_communicator(dup, false, &cases);
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, p - rank, &half);   /* reversed ranks */
        wrong += check_communicator(half, false, &cases);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&half);
    }
    int total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("alltoall p=%d: %d cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return total ? 1 : 0;
}
