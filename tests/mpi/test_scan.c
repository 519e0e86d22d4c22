/*
 * ftc_scan and ftc_exscan against MPI_Scan's and MPI_Exscan's
 * definitions, every element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). Counts 0, 1, 5
 * and 20000; ops MPI_SUM on ints, MPI_MAX on doubles, MPI_MINLOC on
 * MPI_DOUBLE_INT (an element's extent is not its size), a user's
 * commutative op on ints and a user's op that is not commutative (affine
 * maps composed in rank order); with and without MPI_IN_PLACE; on
 * MPI_COMM_WORLD, a duplicate of it and the two halves of a split with
 * reversed ranks. Every rank checks every element of its result against
 * the value computed here (ftc_exscan's rank 0: recvbuf untouched), the
 * bytes past it untouched, and its send buffer unchanged.
 *
 * With --quick (many ranks): MPI_COMM_WORLD only.
 *
 * Rank 0 prints "scan p=P: N cases, all elements checked".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "reductions.h"

static void abort_on_error(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    fprintf(stderr, "ftc_scan failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

enum { MARGIN = 16, UNTOUCHED = 0xA5 };   /* bytes past the result that must stay so */

typedef struct {
    op_kind k;
    MPI_Op user;          /* the kind's user op, if any */
    int count;
    bool exclusive;       /* ftc_exscan */
    bool in_place;
} scan_case;

static bool untouched(const char *buf, size_t from, size_t to)
{
    for (size_t b = from; b < to; b++)
        if ((unsigned char)buf[b] != UNTOUCHED)
            return false;
    return true;
}

/* What recvbuf must hold: the prefix up to this rank (ftc_exscan: before
 * it); exscan's rank 0 leaves it as it was. */
static bool result_right(const scan_case *c, int rank, const char *recv, const char *send)
{
    const size_t bytes = kind(c->k, c->user).element * (size_t)c->count;
    if (c->exclusive && rank == 0)
        return c->in_place ? memcmp(recv, send, bytes) == 0 : untouched(recv, 0, bytes);
    const int upto = c->exclusive ? rank : rank + 1;
    for (int i = 0; i < c->count; i++)
        if (!holds_combined(c->k, NULL, upto, i, recv, i))
            return false;
    return true;
}

/* One call; returns the mismatches this rank saw. */
static int run_case(ftc_comm_t comm, const scan_case *c, const char *what)
{
    const int rank = ftc_comm_rank(comm);
    const kind_of_op t = kind(c->k, c->user);
    const size_t bytes = t.element * (size_t)c->count;
    char *send = checked_malloc(bytes + MARGIN), *original = checked_malloc(bytes + MARGIN);
    char *recv = checked_malloc(bytes + MARGIN);
    fill_input(c->k, rank, c->count, send);
    memset(send + bytes, 0, MARGIN);
    memcpy(original, send, bytes + MARGIN);
    memset(recv, UNTOUCHED, bytes + MARGIN);
    if (c->in_place)
        memcpy(recv, send, bytes);
    const void *from = c->in_place ? MPI_IN_PLACE : send;
    const int rc = c->exclusive ? ftc_exscan(from, recv, c->count, t.type, t.op, comm)
                                : ftc_scan(from, recv, c->count, t.type, t.op, comm);
    abort_on_error(rc, what);
    int bad = 0;
    if (!result_right(c, rank, recv, send)) {
        fprintf(stderr, "MISMATCH rank %d %s: the result\n", rank, what);
        bad = 1;
    }
    if (!untouched(recv, bytes, bytes + MARGIN)) {
        fprintf(stderr, "MISMATCH rank %d %s: recvbuf written past count\n", rank, what);
        bad = 1;
    }
    if (!c->in_place && memcmp(send, original, bytes + MARGIN) != 0) {
        fprintf(stderr, "MISMATCH rank %d %s: sendbuf changed\n", rank, what);
        bad = 1;
    }
    free(send);
    free(original);
    free(recv);
    return bad;
}

static int run_all(ftc_comm_t comm, const MPI_Op user[ORDERED_OP_KINDS], const char *name,
                   long *cases)
{
    static const int counts[] = { 0, 1, 5, 20000 };
    int bad = 0;
    for (int k = 0; k < ORDERED_OP_KINDS; k++)
        for (int exclusive = 0; exclusive < 2; exclusive++)
            for (int in_place = 0; in_place < 2; in_place++)
                for (size_t n = 0; n < sizeof(counts) / sizeof(counts[0]); n++) {
                    const scan_case c = { (op_kind)k, user[k], counts[n], exclusive, in_place };
                    char what[160];
                    snprintf(what, sizeof(what), "%s %s %s count %d%s", name,
                             exclusive ? "exscan" : "scan", op_names[k], counts[n],
                             in_place ? " in place" : "");
                    bad += run_case(comm, &c, what);
                    (*cases)++;
                }
    return bad;
}

static ftc_comm_t make(MPI_Comm mpi)
{
    ftc_comm_t comm = NULL;
    abort_on_error(ftc_comm_create(mpi, &comm), "ftc_comm_create");
    return comm;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Op user[ORDERED_OP_KINDS];
    create_user_ops(user);
    long cases = 0;
    int bad = 0;
    ftc_comm_t world = make(MPI_COMM_WORLD);
    bad += run_all(world, user, "world", &cases);
    ftc_comm_free(&world);
    if (!quick) {
        MPI_Comm dup, half;
        mpi_or_die(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
        ftc_comm_t d = make(dup);
        bad += run_all(d, user, "dup", &cases);
        ftc_comm_free(&d);
        mpi_or_die(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, p - rank, &half), "MPI_Comm_split");
        ftc_comm_t h = make(half);
        bad += run_all(h, user, "split", &cases);
        ftc_comm_free(&h);
        MPI_Comm_free(&half);
        MPI_Comm_free(&dup);
    }
    free_user_ops(user);
    int all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_bad == 0)
        printf("scan p=%d: %ld cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return all_bad == 0 ? 0 : 1;
}
