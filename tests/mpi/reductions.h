/*
 * The reductions the reduce-family tests share (test_reduce.c,
 * test_reduce_scatter.c, test_scan.c): four commutative (datatype, op)
 * kinds and, for the scans, one that is not; every rank's input, and the
 * exact result over ranks 0 .. p - 1 or any set of them in rank order.
 */
#ifndef FTCOLL_TEST_REDUCTIONS_H
#define FTCOLL_TEST_REDUCTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

/* OP_KINDS counts the commutative kinds; OP_AFFINE, past them, is for
 * the calls that combine in rank order. */
typedef enum { OP_SUM_INT, OP_MAX_DOUBLE, OP_MINLOC, OP_USER_INT, OP_KINDS,
               OP_AFFINE = OP_KINDS, ORDERED_OP_KINDS } op_kind;

extern const char *const op_names[ORDERED_OP_KINDS];

typedef struct {
    double value;
    int index;
} double_int;

/* A user's op, to be created commutative: the sum, so that the expected
 * ints are the MPI_SUM case's, reached through a function MPI cannot
 * inline. */
void user_sum(void *in, void *inout, int *len, MPI_Datatype *type);

/* A user's op, to be created not commutative: an unsigned holds the map
 * x -> a x + b mod 2^16 (a in its high half, b in its low one), and
 * inout = in then inout, their composition. */
void affine_compose(void *in, void *inout, int *len, MPI_Datatype *type);

typedef struct {
    MPI_Datatype type;
    MPI_Op op;
    size_t element;      /* bytes in memory */
} kind_of_op;

/* user[k]: the user op of kind k (OP_USER_INT's user_sum, created
 * commutative; OP_AFFINE's affine_compose, not), MPI_OP_NULL for the
 * others; freed by free_user_ops. */
void create_user_ops(MPI_Op user[ORDERED_OP_KINDS]);
void free_user_ops(MPI_Op user[ORDERED_OP_KINDS]);

/* The kind's datatype and op (`user`: the user_sum op, or for OP_AFFINE
 * the affine_compose one). */
kind_of_op kind(op_kind k, MPI_Op user);

/* Rank r's input, `count` elements. */
void fill_input(op_kind k, int r, int count, void *buf);

/* Whether element `at` of `buf` is element i of the result over ranks
 * 0 .. p - 1. */
bool holds_result(op_kind k, int p, int i, const void *buf, int at);

/* Whether it is element i of the inputs of ranks 0 .. upto - 1 with
 * in_set[r] set (NULL: all of them) combined in rank order; false if there
 * are none. */
bool holds_combined(op_kind k, const int *in_set, int upto, int i, const void *buf, int at);

#endif
