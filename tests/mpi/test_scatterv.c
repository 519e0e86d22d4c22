/*
 * ftc_scatterv and ftc_scatter against MPI_Scatterv's and MPI_Scatter's
 * definitions, every element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). For every root,
 * counts of one size, with zeros, rising, all zero, and large (past the
 * share of 16 KiB a root keeps a copy of: acknowledged); displacements
 * packed in rank order and reversed with gaps between blocks; three
 * layouts (ints; doubles; ints sent from every other int, received
 * dense); with and without MPI_IN_PLACE at the root; on MPI_COMM_WORLD, a
 * duplicate of it and the two halves of a split with reversed ranks. Every
 * rank checks its receive buffer: its block's elements, and the margin
 * past them untouched; the root checks that its send buffer is unchanged
 * (in place, its own block stays there). The other ranks pass, in half
 * the cases, no sendbuf, sendcounts, displs or sendtype (MPI reads them at
 * the root only). ftc_scatter likewise, for every root, with 0, 1, 5 and
 * 5000 elements a block (past the share of 16 KiB: acknowledged), by the
 * decision table and by each algorithm forced (the last choice says it
 * ran).
 *
 * With --quick (many ranks): roots 0 and p - 1 only, on MPI_COMM_WORLD
 * only (the acknowledgements and the word then span more than one wait).
 *
 * Rank 0 prints "scatterv p=P: N cases, all elements checked".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "layouts.h"

enum { MARGIN = 4 };   /* ints past a received block that must stay untouched */

static void abort_on_error(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    fprintf(stderr, "ftc_scatterv failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The root's send buffer: every block at its place, as the layout stores it. */
static int *root_blocks(const vblocks *s, layout l)
{
    int *buf = vblocks_buffer(s);
    const int step = layout_ints_per_element(l);
    for (int r = 0; r < s->p; r++)
        for (int i = 0; i < s->counts[r]; i++)
            layout_store(l, buf + (size_t)(s->displs[r] + i) * (size_t)step, r, i);
    return buf;
}

/* This rank's dense receive buffer: its block, then MARGIN untouched ints. */
static int check_received(const vblocks *s, layout l, const int *recv, const char *what)
{
    const int dense = l == LAYOUT_DOUBLES ? 2 : 1, mine = s->counts[s->rank];
    for (int i = 0; i < mine; i++)
        if (!layout_holds(l, recv + (size_t)i * (size_t)dense, s->rank, i)) {
            fprintf(stderr, "MISMATCH rank %d %s: element %d of its block\n", s->rank, what, i);
            return 1;
        }
    for (int i = 0; i < MARGIN; i++)
        if (recv[(size_t)mine * (size_t)dense + (size_t)i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d %s: int %d past its block was written\n", s->rank,
                    what, i);
            return 1;
        }
    return 0;
}

/* One call: the root's blocks from its layout, this rank's into a dense
 * buffer, or left in place at the root; `bare`: the other ranks pass
 * nothing they need not. */
static int run_case(ftc_comm_t comm, vblocks *s, int root, layout l, bool in_place, bool bare,
                    bool as_scatter, const char *what)
{
    const bool at_root = s->rank == root;
    const int mine = s->counts[s->rank];
    int *send = root_blocks(s, l);
    const size_t recv_ints = (size_t)mine * 2 + MARGIN;
    int *recv = checked_malloc(recv_ints * sizeof(int));
    for (size_t i = 0; i < recv_ints; i++)
        recv[i] = UNTOUCHED;
    MPI_Datatype send_type = layout_recv_type(l);
    const bool omit = bare && !at_root;
    void *into = in_place && at_root ? MPI_IN_PLACE : recv;
    abort_on_error(as_scatter
                       ? ftc_scatter(omit ? NULL : send, omit ? -1 : s->counts[root],
                                     omit ? MPI_DATATYPE_NULL : send_type, into, mine,
                                     layout_send_type(l), root, comm)
                       : ftc_scatterv(omit ? NULL : send, omit ? NULL : s->counts,
                                      omit ? NULL : s->displs,
                                      omit ? MPI_DATATYPE_NULL : send_type, into, mine,
                                      layout_send_type(l), root, comm),
                   what);
    int wrong = at_root ? vblocks_check(s, l, send, what, NULL, NULL) : 0;
    if (!(in_place && at_root))
        wrong += check_received(s, l, recv, what);
    layout_free_type(l, &send_type);
    free(send);
    free(recv);
    return wrong;
}

static const ftc_scatter_algorithm scatter_algorithms[] = {
    FTC_SCATTER_AUTO, FTC_SCATTER_LINEAR, FTC_SCATTER_BINOMIAL,
};
enum { SCATTER_ALGORITHMS = sizeof(scatter_algorithms) / sizeof(scatter_algorithms[0]) };

/* Whether the last ftc_scatter ran the algorithm forced (any, for auto). */
static int check_choice(ftc_comm_t comm, ftc_scatter_algorithm forced, const char *what)
{
    ftc_scatter_choice choice;
    abort_on_error(ftc_scatter_last_choice(comm, &choice), "ftc_scatter_last_choice");
    if (choice.requested == forced && (forced == FTC_SCATTER_AUTO || choice.executed == forced))
        return 0;
    fprintf(stderr, "%s: requested %s, executed %s\n", what,
            ftc_scatter_algorithm_name(choice.requested),
            ftc_scatter_algorithm_name(choice.executed));
    return 1;
}

/* ftc_scatter with `algorithm` forced: every root, block size, layout and
 * in-place choice. */
static int check_scatter(ftc_comm_t comm, vblocks *s, ftc_scatter_algorithm algorithm,
                         const char *name, bool quick, int *cases)
{
    static const int scatter_counts[] = { 0, 1, 5, 5000 };
    abort_on_error(ftc_scatter_set_algorithm(comm, algorithm), "ftc_scatter_set_algorithm");
    int wrong = 0;
    for (int root = 0; root < s->p; root += quick && root + 1 < s->p - 1 ? s->p - 1 - root : 1)
        for (int c = 0; c < 4; c++)
            for (int l = 0; l < LAYOUTS; l++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    char what[160];
                    snprintf(what, sizeof(what), "%s ftc_scatter (%s) root %d count %d layout "
                             "%d%s", name, ftc_scatter_algorithm_name(algorithm), root,
                             scatter_counts[c], l, in_place ? " in place" : "");
                    for (int r = 0; r < s->p; r++) {
                        s->counts[r] = scatter_counts[c];
                        s->displs[r] = r * scatter_counts[c];
                    }
                    s->ints = ((size_t)s->p * (size_t)scatter_counts[c] + 1) * 2;
                    wrong += run_case(comm, s, root, (layout)l, in_place, (root + l) % 2, true,
                                      what);
                    wrong += check_choice(comm, algorithm, what);
                    (*cases)++;
                }
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
                    wrong += run_case(comm, &s, root, (layout)l, in_place, bare, false, what);
                    (*cases)++;
                }
            }
        }
    }
    for (int a = 0; a < SCATTER_ALGORITHMS; a++)
        wrong += check_scatter(comm, &s, scatter_algorithms[a], name, quick, cases);
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
        printf("scatterv p=%d: %d cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return total ? 1 : 0;
}
