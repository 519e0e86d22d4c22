/* Tree broadcasts that follow the network: what the communicator and
 * ftc_bcast call (configuration: adaptive_config.c; calls: adaptive.c). */
#ifndef FTCOLL_BCAST_ADAPTIVE_H
#define FTCOLL_BCAST_ADAPTIVE_H

#include <mpi.h>

#include "ftcoll.h"

typedef struct ftc_tree_comm ftc_tree_comm;

/* 1 if ftc_bcast on `comm` runs over a tree (configured, or FTCOLL_BCAST /
 * FTCOLL_TOPOLOGY set when the communicator was made). */
int ftc_tree_bcast_wanted(ftc_comm_t comm);

/* ftc_bcast's body over a tree; arguments already checked. Collective. */
int ftc_tree_bcast(void *buf, int count, MPI_Datatype type, int root, ftc_comm_t comm);

/* Reads FTCOLL_BCAST, FTCOLL_TREE and FTCOLL_TOPOLOGY (ftc_comm_create). */
int ftc_tree_comm_read_environment(ftc_comm_t comm);

/* Measures and builds the trees now if the communicator wants them.
 * Collective; MPI_SUCCESS if it does not. */
int ftc_tree_comm_prepare(ftc_comm_t comm);

/* Takes in the tree messages nobody waited for (before a collective free).
 * Collective. */
int ftc_tree_comm_quiesce(ftc_comm_t comm);

void ftc_tree_comm_release(ftc_comm_t comm);

#endif
