/* The gather module's state on a communicator (comm->gather). */
#ifndef FTCOLL_GATHER_STATE_H
#define FTCOLL_GATHER_STATE_H

#include <stddef.h>

#include <mpi.h>

#include "../args.h"
#include "../ft/tokens.h"
#include "ftcoll.h"

struct ftc_gather_state {
    ftc_gather_algorithm forced;      /* FTC_GATHER_AUTO: decision table */
    ftc_known_type known_send, known_recv;   /* spare the type queries of most calls */
    ftc_gather_choice last;
    /* the blocks a rank forwards (its subtree's), or the root's that do not
     * land in place, before they move to their owners */
    char *slots;
    size_t slots_capacity;
    /* one receive per child (the root's, linear: n - 1) */
    MPI_Request *requests;
    int capacity;                     /* its entries: p */
    long class_calls[FTC_FT_TOKEN_CLASSES];   /* gathers so far per size class, every
                                               * rank alike: when the root's word goes out */
};

/* The gatherv module's (comm->gatherv). */
struct ftc_gatherv_state {
    ftc_known_type known_send, known_recv;   /* spare the type queries of most calls */
    /* the root's receives, one per live rank */
    MPI_Request *requests;
    int capacity;                     /* its entries: p */
};

#endif
