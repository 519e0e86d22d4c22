/* The reduce module's state on a communicator (comm->reduce). */
#ifndef FTCOLL_REDUCE_STATE_H
#define FTCOLL_REDUCE_STATE_H

#include <stddef.h>

#include <mpi.h>

#include "../ft/tokens.h"

struct ftc_reduce_state {
    /* a rank's value so far (not the root's: its recvbuf), then one slot
     * per child for the values that arrive */
    char *scratch;
    size_t scratch_capacity;
    MPI_Request *requests;            /* one receive per child */
    int capacity;                     /* its entries: p */
    long class_calls[FTC_FT_TOKEN_CLASSES];   /* reduces so far per size class, every
                                               * rank alike: when the root's word goes out */
};

#endif
