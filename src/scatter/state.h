/* The scatter family's state on a communicator (comm->scatterv, comm->scatter). */
#ifndef FTCOLL_SCATTER_STATE_H
#define FTCOLL_SCATTER_STATE_H

#include <mpi.h>

#include "../args.h"

struct ftc_scatterv_state {
    ftc_known_type known_send, known_recv;   /* spare the type queries of most calls */
    /* the root's sends, one per live rank */
    MPI_Request *requests;
    int capacity;                     /* its entries: p */
};

/* The scatter module's (comm->scatter): its blocks as a scatterv's. */
struct ftc_scatter_state {
    ftc_known_type known_send, known_recv;
    int *counts;                      /* the root's: sendcount each */
    MPI_Request *requests;            /* the root's sends, one per live rank */
    int capacity;                     /* entries of each: p */
};

#endif
