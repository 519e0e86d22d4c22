/* The scatterv module's state on a communicator (comm->scatterv). */
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

#endif
