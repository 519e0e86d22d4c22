/*
 * ftc_gather against MPI_Gather's definition, every element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). For every
 * algorithm (forced 1..3 and the decision table), every root, counts 0, 1,
 * 7 and a large one, three layouts (ints; doubles; ints received every
 * other int, sent dense), with and without MPI_IN_PLACE at the root, on
 * MPI_COMM_WORLD, a duplicate of it and the two halves of a split with
 * reversed ranks. The root checks its whole receive buffer: every block's
 * elements, every gap and the margin past the blocks untouched; every
 * other rank checks that its receive buffer (which MPI ignores there) and
 * its send buffer were not written. Then that ftc_gather_last_choice names
 * the algorithm that ran.
 *
 * With --quick (many ranks): roots 0 and p - 1 only, on MPI_COMM_WORLD
 * only (the root's word then goes to more children than one wait takes).
 *
 * Rank 0 prints "gather p=P: N cases, all elements checked".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"
#include "layouts.h"

enum { MARGIN = 5 };   /* ints past the last block */

static const int counts[] = { 0, 1, 7, 30000 };
enum { COUNTS = sizeof(counts) / sizeof(counts[0]) };

typedef struct {
    int p, rank, root, count;
    layout l;
    size_t ints;   /* the receive buffer */
    const char *what;
} gather_case;

/* The root's buffer: block r's elements at r x count elements, the gaps
 * of the strided layout and the margin untouched. */
static int check_root_buffer(const gather_case *c, const int *buf)
{
    const int step = layout_ints_per_element(c->l);
    for (int r = 0; r < c->p; r++)
        for (int i = 0; i < c->count; i++) {
            const size_t at = ((size_t)r * (size_t)c->count + (size_t)i) * (size_t)step;
            if (!layout_holds(c->l, buf + at, r, i)) {
                fprintf(stderr, "MISMATCH rank %d %s: block %d element %d\n", c->rank, c->what,
                        r, i);
                return 1;
            }
            if (c->l == LAYOUT_STRIDED && buf[at + 1] != UNTOUCHED) {
                fprintf(stderr, "MISMATCH rank %d %s: the gap after block %d element %d was "
                        "written\n", c->rank, c->what, r, i);
                return 1;
            }
        }
    for (size_t i = (size_t)c->p * (size_t)c->count * (size_t)step; i < c->ints; i++)
        if (buf[i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d %s: int %zu past the blocks was written\n",
                    c->rank, c->what, i);
            return 1;
        }
    return 0;
}

static int check_untouched(const gather_case *c, const int *buf, size_t ints, const char *which)
{
    for (size_t i = 0; i < ints; i++)
        if (buf[i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d %s: int %zu of the %s was written\n", c->rank,
                    c->what, i, which);
            return 1;
        }
    return 0;
}

static void abort_on_error(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    fprintf(stderr, "ftc_gather failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One call: this rank's block sent from a dense buffer, or in place at the root. */
static int run_case(ftc_comm_t comm, gather_case *c, bool in_place)
{
    const int step = layout_ints_per_element(c->l);
    const bool root = c->rank == c->root;
    c->ints = (size_t)c->p * (size_t)c->count * (size_t)step + MARGIN;
    int *buf = checked_malloc(c->ints * sizeof(int));
    const size_t send_ints = (size_t)c->count * 2 + 1;
    int *send = checked_malloc(send_ints * sizeof(int));
    for (size_t i = 0; i < c->ints; i++)
        buf[i] = UNTOUCHED;
    for (size_t i = 0; i < send_ints; i++)
        send[i] = UNTOUCHED;
    for (int i = 0; i < c->count; i++) {
        layout_store(c->l, send + (size_t)i * (c->l == LAYOUT_DOUBLES ? 2 : 1), c->rank, i);
        if (in_place && root)
            layout_store(c->l, buf + ((size_t)c->rank * (size_t)c->count + (size_t)i) * (size_t)step,
                  c->rank, i);
    }
    MPI_Datatype recv_type = layout_recv_type(c->l);
    const MPI_Datatype send_type = c->l == LAYOUT_DOUBLES ? MPI_DOUBLE : MPI_INT;
    abort_on_error(ftc_gather(in_place && root ? MPI_IN_PLACE : send, c->count, send_type, buf,
                              c->count, recv_type, c->root, comm), c->what);
    int wrong = root ? check_root_buffer(c, buf) : check_untouched(c, buf, c->ints, "recvbuf");
    for (int i = 0; i < c->count && !wrong; i++)
        if (!layout_holds(c->l, send + (size_t)i * (c->l == LAYOUT_DOUBLES ? 2 : 1), c->rank, i)) {
            fprintf(stderr, "MISMATCH rank %d %s: the send buffer changed\n", c->rank, c->what);
            wrong = 1;
        }
    if (c->l == LAYOUT_STRIDED)
        MPI_Type_free(&recv_type);
    free(buf);
    free(send);
    return wrong;
}

static const ftc_gather_algorithm algorithms[] = {
    FTC_GATHER_AUTO, FTC_GATHER_LINEAR, FTC_GATHER_BINOMIAL, FTC_GATHER_LINEAR_SYNC,
};
enum { ALGORITHMS = sizeof(algorithms) / sizeof(algorithms[0]) };

/* The choice a call reports: the forced algorithm, or the table's. */
static int check_choice(ftc_comm_t comm, const gather_case *c, ftc_gather_algorithm forced)
{
    ftc_gather_choice choice;
    abort_on_error(ftc_gather_last_choice(comm, &choice), "last_choice");
    const size_t block = (size_t)c->count * (c->l == LAYOUT_DOUBLES ? sizeof(double) : sizeof(int));
    const ftc_gather_algorithm want = forced == FTC_GATHER_AUTO ? ftc_gather_decide(c->p, block)
                                                                : forced;
    if (choice.requested == forced && choice.executed == want)
        return 0;
    fprintf(stderr, "WRONG CHOICE rank %d %s: requested %s executed %s\n", c->rank, c->what,
            ftc_gather_algorithm_name(choice.requested),
            ftc_gather_algorithm_name(choice.executed));
    return 1;
}

static bool quick = false;   /* --quick: roots 0 and p - 1 only */

/* Every algorithm, root, count, layout and in-place choice on one communicator. */
static int check_communicator(MPI_Comm mpi_comm, const char *name, int *cases)
{
    ftc_comm_t comm;
    if (ftc_comm_create(mpi_comm, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    gather_case c;
    MPI_Comm_size(mpi_comm, &c.p);
    MPI_Comm_rank(mpi_comm, &c.rank);
    int wrong = 0;
    for (int a = 0; a < ALGORITHMS; a++) {
        abort_on_error(ftc_gather_set_algorithm(comm, algorithms[a]), "set_algorithm");
        for (c.root = 0; c.root < c.p; c.root += quick && c.root + 1 < c.p - 1 ? c.p - 1 : 1)
            for (int k = 0; k < COUNTS; k++)
                for (int l = 0; l < LAYOUTS; l++)
                    for (int in_place = 0; in_place < 2; in_place++) {
                        char what[160];
                        snprintf(what, sizeof(what), "%s %s root %d count %d layout %d%s", name,
                                 ftc_gather_algorithm_name(algorithms[a]), c.root, counts[k], l,
                                 in_place ? " in place" : "");
                        c.count = counts[k];
                        c.l = (layout)l;
                        c.what = what;
                        wrong += run_case(comm, &c, in_place);
                        wrong += check_choice(comm, &c, algorithms[a]);
                        (*cases)++;
                    }
    }
    ftc_comm_free(&comm);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int wrong = check_communicator(MPI_COMM_WORLD, "world", &cases);
    if (!quick) {
        MPI_Comm dup, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        wrong += check_communicator(dup, "dup", &cases);
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, p - rank, &half);   /* reversed ranks */
        wrong += check_communicator(half, rank % 2 ? "odd half" : "even half", &cases);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&half);
    }
    int total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("gather p=%d: %d cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return total ? 1 : 0;
}
