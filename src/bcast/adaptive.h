/* Tree broadcasts that follow the network: what the communicator and
 * ftc_bcast call (configuration: adaptive_config.c; calls: adaptive.c). */
#ifndef FTCOLL_BCAST_ADAPTIVE_H
#define FTCOLL_BCAST_ADAPTIVE_H

#include <mpi.h>

#include "ftcoll.h"
#include "../buffer.h"
#include "../module.h"

typedef struct ftc_tree_comm ftc_tree_comm;

/* The trees' part of the broadcast's module (bcast.c): FTCOLL_BCAST,
 * FTCOLL_TREE, FTCOLL_TOPOLOGY, the measurements and the trees. */
extern const ftc_module ftc_bcast_tree_module;

/* 1 if ftc_bcast on `comm` runs over a tree (configured, or FTCOLL_BCAST /
 * FTCOLL_TOPOLOGY set when the communicator was made). */
int ftc_tree_bcast_wanted(ftc_comm_t comm);

/* A call this rank left at its own checks while the others may run it
 * (ftc_guard_left_alone): counted as they count it, so that this rank's
 * later calls measure and adapt where theirs do. (If the others measure
 * in the call left, they wait for this rank there, as in any call that
 * needs every rank.) */
void ftc_tree_bcast_skip(ftc_comm_t comm);

/* ftc_bcast's body over a tree; arguments already checked (`shape`: the
 * type's). Collective. With ULFM it survives deaths as ftc_bcast does,
 * over the survivors' tree after one (adaptive.c). */
int ftc_tree_bcast(void *buf, int count, MPI_Datatype type, const ftc_type_shape *shape, int root,
                   ftc_comm_t comm);

#endif
