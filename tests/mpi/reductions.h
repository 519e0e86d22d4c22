/*
 * The reductions the reduce-family tests share (test_reduce.c,
 * test_reduce_scatter.c): four (datatype, op) kinds, every rank's input,
 * and the exact result over ranks 0 .. p - 1.
 */
#ifndef FTCOLL_TEST_REDUCTIONS_H
#define FTCOLL_TEST_REDUCTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

typedef enum { OP_SUM_INT, OP_MAX_DOUBLE, OP_MINLOC, OP_USER_INT, OP_KINDS } op_kind;

extern const char *const op_names[OP_KINDS];

typedef struct {
    double value;
    int index;
} double_int;

/* A user's op, to be created commutative: the sum, so that the expected
 * ints are the MPI_SUM case's, reached through a function MPI cannot
 * inline. */
void user_sum(void *in, void *inout, int *len, MPI_Datatype *type);

typedef struct {
    MPI_Datatype type;
    MPI_Op op;
    size_t element;      /* bytes in memory */
} kind_of_op;

/* The kind's datatype and op (`user`: the user_sum op). */
kind_of_op kind(op_kind k, MPI_Op user);

/* Rank r's input, `count` elements. */
void fill_input(op_kind k, int r, int count, void *buf);

/* Whether element `at` of `buf` is element i of the result over ranks
 * 0 .. p - 1. */
bool holds_result(op_kind k, int p, int i, const void *buf, int at);

#endif
