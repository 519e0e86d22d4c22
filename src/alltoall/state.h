/* The alltoall module's state on a communicator (comm->alltoall), which
 * ftc_alltoallv shares. */
#ifndef FTCOLL_ALLTOALL_STATE_H
#define FTCOLL_ALLTOALL_STATE_H

#include <stddef.h>

#include <mpi.h>

#include "../args.h"
#include "ftcoll.h"

struct ftc_alltoall_state {
    ftc_alltoall_algorithm forced;    /* FTC_ALLTOALL_AUTO: decision table */
    ftc_alltoall_choice last;
    ftc_known_type known_send, known_recv;   /* spare the type queries of most calls */
    MPI_Request *requests;            /* two per rank */
    int capacity;                     /* its entries: 2p */
    /* p entries each: an alltoall's counts (every one sendcount, or
     * recvcount), an in-place call's packed blocks' bytes and places */
    int *send_counts, *recv_counts, *packed_counts, *packed_displs;
    /* an in-place call's blocks to send, packed before any arrives */
    char *packed;
    size_t packed_capacity;
    /* the modified Bruck's slots and messages (alltoall/bruck.c) */
    char *relayed;
    size_t relayed_capacity;
};

#endif
