/*
 * ftc_reduce_scatter and ftc_reduce_scatter_block against
 * MPI_Reduce_scatter's and MPI_Reduce_scatter_block's definitions, every
 * element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). Blocks of one
 * size (ftc_reduce_scatter_block: 0, 1, 5 and 20000 elements, the last
 * past the allreduce's switch to Rabenseifner's schedule at p >= 2), and
 * for ftc_reduce_scatter of their own sizes: equal, none for odd ranks,
 * rising, all zero, and 70000 in all; ops MPI_SUM on ints, MPI_MAX on
 * doubles, MPI_MINLOC on MPI_DOUBLE_INT (an element's extent is not its
 * size) and a user's commutative op on ints; with and without
 * MPI_IN_PLACE; on MPI_COMM_WORLD, a duplicate of it and the two halves
 * of a split with reversed ranks. Every rank checks every element of its
 * block against the value computed here, the ints past its block
 * untouched, and its send buffer unchanged.
 *
 * With --quick (many ranks): MPI_COMM_WORLD only.
 *
 * Rank 0 prints "reduce_scatter p=P: N cases, all elements checked".
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
    fprintf(stderr, "ftc_reduce_scatter failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

enum { MARGIN = 16 };   /* bytes past a block that must stay untouched */

typedef enum { BLOCKS_EQUAL, BLOCKS_ZEROS, BLOCKS_RISING, BLOCKS_NONE, BLOCKS_LARGE,
               BLOCK_PATTERNS } block_pattern;

static int block_count(block_pattern pattern, int r, int p)
{
    switch (pattern) {
    case BLOCKS_EQUAL: return 5;
    case BLOCKS_ZEROS: return r % 2 ? 0 : r + 3;
    case BLOCKS_RISING: return 3 * r + 1;
    case BLOCKS_NONE: return 0;
    default: return 70000 / p + (r < 70000 % p);
    }
}

/* One call: counts[r] elements for rank r (uniform: ftc_reduce_scatter_block
 * of counts[0]); returns the mismatches this rank saw. */
static int run_case(ftc_comm_t comm, int rank, int p, op_kind k, const int *counts,
                    bool uniform, bool in_place, MPI_Op user, const char *what)
{
    const kind_of_op t = kind(k, user);
    int total = 0, offset = 0;
    for (int r = 0; r < p; r++) {
        offset += r < rank ? counts[r] : 0;
        total += counts[r];
    }
    const int mine = counts[rank];
    const size_t bytes = t.element * (size_t)total + MARGIN;
    char *send = checked_malloc(bytes), *original = checked_malloc(bytes);
    char *recv = checked_malloc(bytes);
    fill_input(k, rank, total, send);
    memcpy(original, send, bytes);
    memset(recv, 0xA5, bytes);
    if (in_place)
        memcpy(recv, send, t.element * (size_t)total);
    const void *from = in_place ? MPI_IN_PLACE : send;
    const int rc = uniform ? ftc_reduce_scatter_block(from, recv, mine, t.type, t.op, comm)
                           : ftc_reduce_scatter(from, recv, counts, t.type, t.op, comm);
    abort_on_error(rc, what);
    int bad = 0;
    for (int i = 0; i < mine && !bad; i++)
        if (!holds_result(k, p, offset + i, recv, i)) {
            fprintf(stderr, "MISMATCH rank %d %s: element %d of its block\n", rank, what, i);
            bad = 1;
        }
    for (size_t b = t.element * (size_t)mine; !in_place && b < t.element * (size_t)mine + MARGIN
                                              && !bad; b++)
        if ((unsigned char)recv[b] != 0xA5) {
            fprintf(stderr, "MISMATCH rank %d %s: recvbuf written past its block\n", rank,
                    what);
            bad = 1;
        }
    if (!in_place && memcmp(send, original, bytes) != 0) {
        fprintf(stderr, "MISMATCH rank %d %s: sendbuf changed\n", rank, what);
        bad = 1;
    }
    free(send);
    free(original);
    free(recv);
    return bad;
}

static int run_all(ftc_comm_t comm, MPI_Op user, const char *name, long *cases)
{
    const int rank = ftc_comm_rank(comm), p = ftc_comm_size(comm);
    int *counts = checked_malloc(sizeof(int) * (size_t)p);
    int bad = 0;
    static const int uniform_counts[] = { 0, 1, 5, 20000 };
    for (int k = 0; k < OP_KINDS; k++)
        for (int in_place = 0; in_place < 2; in_place++) {
            for (size_t c = 0; c < sizeof(uniform_counts) / sizeof(uniform_counts[0]); c++) {
                char what[160];
                snprintf(what, sizeof(what), "%s block %s count %d%s", name, op_names[k],
                         uniform_counts[c], in_place ? " in place" : "");
                for (int r = 0; r < p; r++)
                    counts[r] = uniform_counts[c];
                bad += run_case(comm, rank, p, (op_kind)k, counts, true, in_place, user, what);
                (*cases)++;
            }
            for (int pattern = 0; pattern < BLOCK_PATTERNS; pattern++) {
                char what[160];
                snprintf(what, sizeof(what), "%s %s counts %d%s", name, op_names[k], pattern,
                         in_place ? " in place" : "");
                for (int r = 0; r < p; r++)
                    counts[r] = block_count((block_pattern)pattern, r, p);
                bad += run_case(comm, rank, p, (op_kind)k, counts, false, in_place, user, what);
                (*cases)++;
            }
        }
    free(counts);
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
    MPI_Op user;
    mpi_or_die(MPI_Op_create(user_sum, 1, &user), "MPI_Op_create");
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
    MPI_Op_free(&user);
    int all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_bad == 0)
        printf("reduce_scatter p=%d: %ld cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return all_bad == 0 ? 0 : 1;
}
