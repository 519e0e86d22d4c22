/* ftc_bcast's fault-tolerant execution (ULFM): see ft_bcast.c. */
#ifndef FTCOLL_BCAST_FT_BCAST_H
#define FTCOLL_BCAST_FT_BCAST_H

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"

#include "trees/shape.h"

/*
 * A tree the caller chose (the network trees, adaptive.c), over the
 * places of the epoch's live ranks (ftc_ft_live_ranks' order), rooted at
 * the root's place: each rank receives from its parent, then sends to its
 * children in their order. With `latency`, the emulated one-way latency
 * in seconds of the channel between two places: each message is preceded
 * by its send time and held at the receiver until that latency passed.
 */
typedef struct {
    const ftc_tree *tree;
    double (*latency)(const void *context, int from, int to);   /* NULL: no emulation */
    const void *context;
} ftc_bcast_tree_plan;

/* The arguments are checked (`shape` is the type's); every live rank calls
 * it alike. `tree`: NULL for the table's plan (select.h); a tree is used
 * while its root lives and it spans the epoch's live ranks. */
int ftc_bcast_fault_tolerant(void *buf, int count, MPI_Datatype type, const ftc_type_shape *shape,
                             int root, ftc_comm_t comm, const ftc_bcast_tree_plan *tree);

#endif
