/* The scatter family's state on a communicator (comm->scatterv, comm->scatter). */
#ifndef FTCOLL_SCATTER_STATE_H
#define FTCOLL_SCATTER_STATE_H

#include <mpi.h>

#include "../args.h"
#include "ftcoll.h"

struct ftc_scatterv_state {
    ftc_known_type known_send, known_recv;   /* spare the type queries of most calls */
    /* the root's sends, one per live rank */
    MPI_Request *requests;
    int capacity;                     /* its entries: p */
};

/* The scatter module's (comm->scatter): its blocks as a scatterv's. */
struct ftc_scatter_state {
    ftc_scatter_algorithm forced;     /* FTC_SCATTER_AUTO: decision table */
    ftc_scatter_choice last;
    ftc_known_type known_send, known_recv;
    int *counts;                      /* the root's: sendcount each */
    MPI_Request *requests;            /* the sends, one per child */
    /* the binomial tree's tables that describe a subtree held in the room */
    int *subtree_counts, *subtree_displs;
    int capacity;                     /* entries of each: p */
    /* the binomial tree's runs of blocks, packed (the root's to send, a
     * rank's subtree) */
    char *room;
    size_t room_capacity;
};

#endif
