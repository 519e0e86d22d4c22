/*
 * ftc_allgatherv against MPI_Allgatherv's definition, every element checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). For every
 * algorithm (forced 1..6 and the decision table), counts of one size, with
 * zeros, rising, all zero, and large; displacements packed in rank order
 * and reversed with gaps between blocks; three layouts (ints; doubles;
 * ints received every other int, sent dense); with and without
 * MPI_IN_PLACE; on MPI_COMM_WORLD, a duplicate of it and the two halves of
 * a split. Each rank checks its whole receive buffer: every block's
 * elements, and every other int (gaps, the space between blocks and past
 * them) untouched. Then what ftc_allgatherv_last_choice says for an
 * algorithm that cannot serve p.
 *
 * Rank 0 prints "allgatherv p=P: N cases, all elements checked".
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
    fprintf(stderr, "ftc_allgatherv failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One call: this rank's block sent from a dense buffer, or in place. */
static int run_case(ftc_comm_t comm, vblocks *s, layout l, bool in_place, const char *what)
{
    const int step = layout_ints_per_element(l), mine = s->counts[s->rank];
    int *buf = vblocks_buffer(s);
    int *send = checked_malloc((size_t)mine * 2 * sizeof(int) + 1);
    for (int i = 0; i < mine; i++) {
        layout_store(l, send + (size_t)i * (l == LAYOUT_DOUBLES ? 2 : 1), s->rank, i);
        if (in_place)
            layout_store(l, buf + (size_t)(s->displs[s->rank] + i) * (size_t)step, s->rank, i);
    }
    MPI_Datatype recv_type = layout_recv_type(l);
    abort_on_error(ftc_allgatherv(in_place ? MPI_IN_PLACE : send, mine, layout_send_type(l),
                                  buf, s->counts, s->displs, recv_type, comm), what);
    const int wrong = vblocks_check(s, l, buf, what, NULL, NULL);
    layout_free_type(l, &recv_type);
    free(buf);
    free(send);
    return wrong;
}

static const ftc_allgatherv_algorithm algorithms[] = {
    FTC_ALLGATHERV_AUTO, FTC_ALLGATHERV_LINEAR, FTC_ALLGATHERV_BRUCK, FTC_ALLGATHERV_RING,
    FTC_ALLGATHERV_NEIGHBOR_EXCHANGE, FTC_ALLGATHERV_TWO_PROC, FTC_ALLGATHERV_SPARBIT,
};
enum { ALGORITHMS = sizeof(algorithms) / sizeof(algorithms[0]) };

/* Every algorithm, count pattern, placement, layout and in-place choice on
 * one communicator. */
static int check_communicator(MPI_Comm mpi_comm, const char *name, int *cases)
{
    ftc_comm_t comm;
    if (ftc_comm_create(mpi_comm, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    vblocks s;
    vblocks_init(&s, mpi_comm);
    int wrong = 0;
    for (int a = 0; a < ALGORITHMS; a++) {
        abort_on_error(ftc_allgatherv_set_algorithm(comm, algorithms[a]), "set_algorithm");
        for (int pattern = 0; pattern < COUNT_PATTERNS; pattern++) {
            for (int l = 0; l < LAYOUTS; l++) {
                for (int variant = 0; variant < 4; variant++) {
                    const bool reversed = variant & 1, in_place = variant & 2;
                    char what[160];
                    snprintf(what, sizeof(what), "%s %s counts %d layout %d%s%s", name,
                             ftc_allgatherv_algorithm_name(algorithms[a]), pattern, l,
                             reversed ? " reversed" : "", in_place ? " in place" : "");
                    vblocks_place(&s, (count_pattern)pattern, reversed);
                    wrong += run_case(comm, &s, (layout)l, in_place, what);
                    (*cases)++;
                }
            }
        }
    }
    vblocks_destroy(&s);
    ftc_comm_free(&comm);
    return wrong;
}

/* Two-proc on p != 2 runs the decision table's choice, and says why. */
static int check_fallback_report(int p)
{
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    ftc_allgatherv_set_algorithm(comm, FTC_ALLGATHERV_TWO_PROC);
    int mine = 1, *all = checked_malloc(sizeof(int) * (size_t)p);
    int *counts = checked_malloc(sizeof(int) * (size_t)p), *displs = checked_malloc(sizeof(int) * (size_t)p);
    for (int r = 0; r < p; r++) {
        counts[r] = 1;
        displs[r] = r;
    }
    abort_on_error(ftc_allgatherv(&mine, 1, MPI_INT, all, counts, displs, MPI_INT, comm),
                   "fallback");
    ftc_allgatherv_choice choice;
    ftc_allgatherv_last_choice(comm, &choice);
    int wrong = 0;
    const bool falls_back = p != 2;
    if (choice.selected != FTC_ALLGATHERV_TWO_PROC
        || (choice.executed != FTC_ALLGATHERV_TWO_PROC) != falls_back
        || (choice.reason[0] != '\0') != falls_back) {
        fprintf(stderr, "WRONG CHOICE p=%d: selected %s executed %s reason \"%s\"\n", p,
                ftc_allgatherv_algorithm_name(choice.selected),
                ftc_allgatherv_algorithm_name(choice.executed), choice.reason);
        wrong = 1;
    }
    free(all);
    free(counts);
    free(displs);
    ftc_comm_free(&comm);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int wrong = check_communicator(MPI_COMM_WORLD, "world", &cases);
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    wrong += check_communicator(dup, "dup", &cases);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, p - rank, &half);   /* reversed ranks */
    wrong += check_communicator(half, rank % 2 ? "odd half" : "even half", &cases);
    wrong += check_fallback_report(p);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    int total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("allgatherv p=%d: %d cases, all elements checked\n", p, cases);
    MPI_Finalize();
    return total ? 1 : 0;
}
