/*
 * One ftc_reduce_scatter or ftc_reduce_scatter_block once its arguments
 * are checked (allreduce_block.c).
 */
#ifndef FTCOLL_REDUCE_SCATTER_REDUCE_SCATTER_H
#define FTCOLL_REDUCE_SCATTER_REDUCE_SCATTER_H

#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "algorithms.h"

typedef struct {
    const char *name;            /* the public call, for messages */
    ftc_comm_t comm;
    const void *input;           /* the whole vector: sendbuf, or in place recvbuf */
    void *result;                /* recvbuf: this rank's block of the result */
    int count;                   /* the whole vector's elements */
    int block_offset;            /* this rank's block: its first element ... */
    int block_count;             /* ... and its elements */
    const int *counts;           /* every rank's block's elements (ftc_reduce_scatter), or
                                  * NULL: block_count each (ftc_reduce_scatter_block) */
    MPI_Datatype type;
    MPI_Op op;
    ftc_reduce_scatter_algorithm algorithm;   /* the one that runs (select.c) */
    size_t extent;               /* the type's */
    int type_size;
} ftc_reduce_scatter_call;

/* Room for the whole vector, made before the guard: a rank short of
 * memory stops every rank. */
int ftc_reduce_scatter_reserve(const ftc_reduce_scatter_call *call);

/* The whole call over the live ranks, by the algorithm the rules (or a
 * forced one) pick (select.c). */
int ftc_reduce_scatter_run(const ftc_reduce_scatter_call *call);

/* The allreduce of the whole vector, then this rank's block
 * (allreduce_block.c); the recursive halving's recovery too. */
int ftc_reduce_scatter_by_allreduce(const ftc_reduce_scatter_call *call);

/* Recursive halving, then a confirmation (recursive_halving.c): a
 * commutative op only. */
int ftc_reduce_scatter_by_halving(const ftc_reduce_scatter_call *call);

#endif
