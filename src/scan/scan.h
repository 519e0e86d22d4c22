/*
 * One ftc_scan or ftc_exscan once its arguments are checked
 * (gather_fold.c).
 */
#ifndef FTCOLL_SCAN_SCAN_H
#define FTCOLL_SCAN_SCAN_H

#include <stdbool.h>

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"

typedef struct {
    const char *name;            /* the public call, for messages */
    ftc_comm_t comm;
    bool exclusive;              /* ftc_exscan: the ranks before this one only */
    const void *input;           /* sendbuf, or in place recvbuf */
    void *result;                /* recvbuf */
    int count;
    MPI_Datatype type;
    MPI_Op op;
    ftc_type_shape shape;        /* the type's */
} ftc_scan_call;

/* Room for every rank's input, made before the guard: a rank short of
 * memory stops every rank. */
int ftc_scan_reserve(const ftc_scan_call *call);

/* The whole call over the live ranks, the allgather's recovery after a
 * failure. */
int ftc_scan_run(const ftc_scan_call *call);

#endif
