/*
 * One ftc_reduce once its arguments are checked: the flow up the binomial
 * tree over the live ranks, and its end (binomial.c).
 */
#ifndef FTCOLL_REDUCE_REDUCE_H
#define FTCOLL_REDUCE_REDUCE_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"

typedef struct {
    ftc_comm_t comm;
    long number;                /* the call's number in the engine's numbering */
    int root;
    const void *input;          /* this rank's input (an in-place root's: in `result`) */
    void *result;               /* the root's recvbuf; NULL elsewhere */
    bool in_place;
    int count;
    MPI_Datatype type;          /* predefined */
    MPI_Op op;                  /* commutative, defined on the type */
    bool op_predefined;         /* never freed: a late rank may combine with it later */
    size_t bytes;               /* count x extent: a value in memory */
    int type_size;              /* an element on the wire */
} ftc_reduce_call;

/* The scratch `r`'s flow and recovery will need on this rank (`r` as
 * checked, before its number): made before the guard, so that a rank short
 * of memory stops every rank instead of leaving its parent waiting. */
int ftc_reduce_reserve(const ftc_reduce_call *r);

/* The whole call over the live ranks: the flow, then the root's word or
 * the copy kept for a late root, or after a failure the recovery. */
int ftc_reduce_run(const ftc_reduce_call *r);

#endif
