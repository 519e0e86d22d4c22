/*
 * ftc_reduce against MPI_Reduce's definition, every element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). For every root,
 * counts 0, 1, 5 and 70000 (past the eager limit and 512 KiB of doubles:
 * the root's word on every call); ops MPI_SUM on ints, MPI_MAX on
 * doubles, MPI_MINLOC on MPI_DOUBLE_INT (an element's extent is not its
 * size) and a user's commutative op on ints (the word on every call);
 * with and without MPI_IN_PLACE at the root, and with the root's sendbuf
 * the same pointer as its recvbuf (MPI forbids it; ftcoll takes it as in
 * place, as ftc_allreduce does, never a silently wrong result); on MPI_COMM_WORLD, a
 * duplicate of it and the two halves of a split with reversed ranks. The
 * root checks every element of its result against the value computed
 * here; every rank checks its send buffer unchanged, and a rank other
 * than the root its recvbuf untouched (MPI reads it at the root only;
 * half the cases pass NULL there).
 *
 * With --quick (many ranks): roots 0 and p - 1 only, on MPI_COMM_WORLD
 * only.
 *
 * Rank 0 prints "reduce p=P: N cases, all elements checked".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "reductions.h"

enum { UNTOUCHED = -7 };

static void abort_on_error(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    fprintf(stderr, "ftc_reduce failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* How the root passes its input. */
enum { SEPARATE, IN_PLACE, ALIASED, INPUT_MODES };
static const char *const mode_names[INPUT_MODES] = { "", " in place", " aliased" };

/* One call; returns the mismatches this rank saw. */
static int run_case(ftc_comm_t comm, int rank, int p, int root, op_kind k, int count,
                    int mode, bool bare, MPI_Op user, const char *what)
{
    const kind_of_op t = kind(k, user);
    const size_t bytes = t.element * (size_t)(count > 0 ? count : 1);
    char *send = checked_malloc(bytes), *original = checked_malloc(bytes);
    char *recv = checked_malloc(bytes);
    fill_input(k, rank, count, send);
    memcpy(original, send, bytes);
    memset(recv, 0xA5, bytes);
    const bool at_root = rank == root, in_place = at_root && mode != SEPARATE;
    if (in_place)
        memcpy(recv, send, bytes);
    const void *input = !in_place ? send : mode == IN_PLACE ? MPI_IN_PLACE : recv;
    const int rc = ftc_reduce(input, !at_root && bare ? NULL : recv, count, t.type, t.op, root,
                              comm);
    abort_on_error(rc, what);
    int bad = 0;
    if (at_root) {
        for (int i = 0; i < count && !bad; i++)
            if (!holds_result(k, p, i, recv, i)) {
                fprintf(stderr, "MISMATCH rank %d %s: element %d of the result\n", rank, what,
                        i);
                bad = 1;
            }
    } else {
        for (size_t b = 0; b < bytes && !bad; b++)
            if ((unsigned char)recv[b] != 0xA5) {
                fprintf(stderr, "MISMATCH rank %d %s: recvbuf written off the root\n", rank,
                        what);
                bad = 1;
            }
    }
    if (!in_place && memcmp(send, original, t.element * (size_t)count) != 0) {
        fprintf(stderr, "MISMATCH rank %d %s: sendbuf changed\n", rank, what);
        bad = 1;
    }
    free(send);
    free(original);
    free(recv);
    return bad;
}

static int run_all(ftc_comm_t comm, bool quick, MPI_Op user, const char *name, long *cases)
{
    const int rank = ftc_comm_rank(comm), p = ftc_comm_size(comm);
    int bad = 0;
    static const int counts[] = { 0, 1, 5, 70000 };
    for (int root = 0; root < p; root++) {
        if (quick && root != 0 && root != p - 1)
            continue;
        for (int k = 0; k < OP_KINDS; k++)
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
                for (int mode = 0; mode < INPUT_MODES; mode++) {
                    char what[160];
                    snprintf(what, sizeof(what), "%s root %d %s count %d%s", name, root,
                             op_names[k], counts[c], mode_names[mode]);
                    bad += run_case(comm, rank, p, root, (op_kind)k, counts[c], mode,
                                    (c + (size_t)mode) % 2 == 1, user, what);
                    (*cases)++;
                }
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
    MPI_Op user;
    mpi_or_die(MPI_Op_create(user_sum, 1, &user), "MPI_Op_create");
    long cases = 0;
    int bad = 0;
    ftc_comm_t world = make(MPI_COMM_WORLD);
    bad += run_all(world, quick, user, "world", &cases);
    ftc_comm_free(&world);
    if (!quick) {
        MPI_Comm dup, half;
        mpi_or_die(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
        ftc_comm_t d = make(dup);
        bad += run_all(d, quick, user, "dup", &cases);
        ftc_comm_free(&d);
        mpi_or_die(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, p - rank, &half), "MPI_Comm_split");
        ftc_comm_t h = make(half);
        bad += run_all(h, quick, user, "split", &cases);
        ftc_comm_free(&h);
        MPI_Comm_free(&half);
        MPI_Comm_free(&dup);
    }
    MPI_Op_free(&user);
    int all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_bad == 0)
        printf("reduce p=%d: %ld cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return all_bad == 0 ? 0 : 1;
}
