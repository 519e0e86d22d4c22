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

enum { UNTOUCHED = -7, GAP = 3 };   /* ints between blocks with gaps */

typedef enum { COUNTS_EQUAL, COUNTS_ZEROS, COUNTS_RISING, COUNTS_NONE, COUNTS_LARGE,
               COUNT_PATTERNS } count_pattern;
typedef enum { LAYOUT_INTS, LAYOUT_DOUBLES, LAYOUT_STRIDED, LAYOUTS } layout;

static int count_of(count_pattern pattern, int rank)
{
    switch (pattern) {
    case COUNTS_EQUAL: return 5;
    case COUNTS_ZEROS: return rank % 2 ? 0 : rank + 3;
    case COUNTS_RISING: return 7 * rank + 1;
    case COUNTS_NONE: return 0;
    default: return rank % 3 == 0 ? 40000 : 9000;
    }
}

/* Ints of the receive buffer one element takes (a double: two). */
static int ints_per_element(layout l) { return l == LAYOUT_INTS ? 1 : 2; }

static int value(int owner, int i) { return owner * 1000000 + i + 1; }

typedef struct {
    int p, rank;
    int *counts, *displs;   /* displs in elements of the receive type */
    size_t ints;            /* the receive buffer */
} shape;

/* Displacements in rank order end to end, or in reverse order with GAP
 * elements before each block. */
static void place_blocks(shape *s, count_pattern pattern, bool reversed)
{
    int at = 0;
    for (int k = 0; k < s->p; k++) {
        const int r = reversed ? s->p - 1 - k : k;
        s->counts[r] = count_of(pattern, r);
        at += reversed ? GAP : 0;
        s->displs[r] = at;
        at += s->counts[r];
    }
    s->ints = (size_t)(at + GAP) * 2;   /* two ints an element at most, and a margin */
}

static MPI_Datatype recv_type_of(layout l)
{
    if (l == LAYOUT_DOUBLES)
        return MPI_DOUBLE;
    if (l == LAYOUT_INTS)
        return MPI_INT;
    MPI_Datatype strided;   /* an int, then a gap of one int */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    return strided;
}

/* The element i of `owner`'s block written at `to` as layout l stores it. */
static void store(layout l, int *to, int owner, int i)
{
    if (l == LAYOUT_DOUBLES) {
        const double v = value(owner, i);
        memcpy(to, &v, sizeof(v));
    } else {
        to[0] = value(owner, i);
    }
}

static bool holds(layout l, const int *at, int owner, int i)
{
    int want[2] = { UNTOUCHED, UNTOUCHED };
    store(l, want, owner, i);
    return at[0] == want[0] && (l != LAYOUT_DOUBLES || at[1] == want[1]);
}

/* Every int of the buffer: its block's element, or untouched. */
static int check_buffer(const shape *s, layout l, const int *buf, const char *what)
{
    const int step = ints_per_element(l);
    bool *in_block = calloc(s->ints, sizeof(bool));
    if (!in_block)
        die("out of memory");
    int wrong = 0;
    for (int r = 0; r < s->p && !wrong; r++) {
        for (int i = 0; i < s->counts[r] && !wrong; i++) {
            const size_t at = (size_t)(s->displs[r] + i) * (size_t)step;
            in_block[at] = true;
            if (l == LAYOUT_DOUBLES)
                in_block[at + 1] = true;
            if (!holds(l, buf + at, r, i)) {
                fprintf(stderr, "MISMATCH rank %d %s: block %d element %d\n", s->rank, what, r, i);
                wrong = 1;
            }
        }
    }
    for (size_t i = 0; i < s->ints && !wrong; i++) {
        if (!in_block[i] && buf[i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d %s: int %zu outside the blocks was written\n",
                    s->rank, what, i);
            wrong = 1;
        }
    }
    free(in_block);
    return wrong;
}

static void abort_on_error(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    fprintf(stderr, "ftc_allgatherv failed (%s): %s: %s\n", what, class_name(class_of(rc)),
            ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One call: this rank's block sent from a dense buffer, or in place. */
static int run_case(ftc_comm_t comm, shape *s, layout l, bool in_place, const char *what)
{
    const int step = ints_per_element(l), mine = s->counts[s->rank];
    int *buf = checked_malloc(s->ints * sizeof(int) + 1);
    int *send = checked_malloc((size_t)mine * 2 * sizeof(int) + 1);
    for (size_t i = 0; i < s->ints; i++)
        buf[i] = UNTOUCHED;
    for (int i = 0; i < mine; i++) {
        store(l, send + (size_t)i * (l == LAYOUT_DOUBLES ? 2 : 1), s->rank, i);
        if (in_place)
            store(l, buf + (size_t)(s->displs[s->rank] + i) * (size_t)step, s->rank, i);
    }
    MPI_Datatype recv_type = recv_type_of(l);
    const MPI_Datatype send_type = l == LAYOUT_DOUBLES ? MPI_DOUBLE : MPI_INT;
    abort_on_error(ftc_allgatherv(in_place ? MPI_IN_PLACE : send, mine, send_type, buf,
                                  s->counts, s->displs, recv_type, comm), what);
    const int wrong = check_buffer(s, l, buf, what);
    if (l == LAYOUT_STRIDED)
        MPI_Type_free(&recv_type);
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
    shape s;
    MPI_Comm_size(mpi_comm, &s.p);
    MPI_Comm_rank(mpi_comm, &s.rank);
    s.counts = checked_malloc(sizeof(int) * (size_t)s.p);
    s.displs = checked_malloc(sizeof(int) * (size_t)s.p);
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
                    place_blocks(&s, (count_pattern)pattern, reversed);
                    wrong += run_case(comm, &s, (layout)l, in_place, what);
                    (*cases)++;
                }
            }
        }
    }
    free(s.counts);
    free(s.displs);
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
