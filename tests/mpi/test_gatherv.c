/*
 * ftc_gatherv against MPI_Gatherv's definition, every element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). For every root,
 * counts of one size, with zeros, rising, all zero, and large (past the
 * 16 KiB a rank keeps a copy of); displacements packed in rank order and
 * reversed with gaps between blocks; three layouts (ints; doubles; ints
 * received every other int, sent dense); with and without MPI_IN_PLACE at
 * the root; on MPI_COMM_WORLD, a duplicate of it and the two halves of a
 * split with reversed ranks. The root checks its whole receive buffer:
 * every block's elements, and every other int (gaps, the space between
 * blocks and past them) untouched. The other ranks pass, in half the
 * cases, no recvcounts, displs or recvtype (MPI reads them at the root
 * only), and check that their receive buffer was not written.
 *
 * With --quick (many ranks): roots 0 and p - 1 only, on MPI_COMM_WORLD
 * only (the root's word then goes to more ranks than one wait takes).
 *
 * Rank 0 prints "gatherv p=P: N cases, all elements checked".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "layouts.h"

static void abort_on_error(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    fprintf(stderr, "ftc_gatherv failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int check_untouched(const vblocks *s, const int *buf, const char *what)
{
    for (size_t i = 0; i < s->ints; i++)
        if (buf[i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d %s: int %zu of a non-root's receive buffer was "
                    "written\n", s->rank, what, i);
            return 1;
        }
    return 0;
}

/* One call: this rank's block sent from a dense buffer, or in place at the
 * root; `bare`: the other ranks pass nothing they need not. */
static int run_case(ftc_comm_t comm, vblocks *s, int root, layout l, bool in_place, bool bare,
                    const char *what)
{
    const bool at_root = s->rank == root;
    const int step = layout_ints_per_element(l), mine = s->counts[s->rank];
    int *buf = vblocks_buffer(s);
    int *send = checked_malloc((size_t)mine * 2 * sizeof(int) + 1);
    for (int i = 0; i < mine; i++) {
        layout_store(l, send + (size_t)i * (l == LAYOUT_DOUBLES ? 2 : 1), s->rank, i);
        if (in_place && at_root)
            layout_store(l, buf + (size_t)(s->displs[s->rank] + i) * (size_t)step, s->rank, i);
    }
    MPI_Datatype recv_type = layout_recv_type(l);
    const bool omit = bare && !at_root;
    abort_on_error(ftc_gatherv(in_place && at_root ? MPI_IN_PLACE : send, mine,
                               layout_send_type(l), omit ? NULL : buf, omit ? NULL : s->counts,
                               omit ? NULL : s->displs, omit ? MPI_DATATYPE_NULL : recv_type,
                               root, comm), what);
    const int wrong = at_root ? vblocks_check(s, l, buf, what, NULL, NULL)
                              : check_untouched(s, buf, what);
    layout_free_type(l, &recv_type);
    free(buf);
    free(send);
    return wrong;
}

/* Every root, count pattern, placement, layout and in-place choice on one
 * communicator. */
static int check_communicator(MPI_Comm mpi_comm, const char *name, bool quick, int *cases)
{
    ftc_comm_t comm;
    if (ftc_comm_create(mpi_comm, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    vblocks s;
    vblocks_init(&s, mpi_comm);
    int wrong = 0;
    for (int root = 0; root < s.p; root += quick && root + 1 < s.p - 1 ? s.p - 1 - root : 1) {
        for (int pattern = 0; pattern < COUNT_PATTERNS; pattern++) {
            for (int l = 0; l < LAYOUTS; l++) {
                for (int variant = 0; variant < 4; variant++) {
                    const bool reversed = variant & 1, in_place = variant & 2;
                    const bool bare = (variant + l + root) % 2;
                    char what[160];
                    snprintf(what, sizeof(what), "%s root %d counts %d layout %d%s%s", name, root,
                             pattern, l, reversed ? " reversed" : "", in_place ? " in place" : "");
                    vblocks_place(&s, (count_pattern)pattern, reversed);
                    wrong += run_case(comm, &s, root, (layout)l, in_place, bare, what);
                    (*cases)++;
                }
            }
        }
    }
    vblocks_destroy(&s);
    ftc_comm_free(&comm);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int rank, p, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int wrong = check_communicator(MPI_COMM_WORLD, "world", quick, &cases);
    if (!quick) {
        MPI_Comm dup, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        wrong += check_communicator(dup, "dup", false, &cases);
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, p - rank, &half);   /* reversed ranks */
        wrong += check_communicator(half, rank % 2 ? "odd half" : "even half", false, &cases);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&half);
    }
    int total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("gatherv p=%d: %d cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return total ? 1 : 0;
}
