/* The reduce_scatter module's state on a communicator (comm->reduce_scatter),
 * which ftc_reduce_scatter_block shares. */
#ifndef FTCOLL_REDUCE_SCATTER_STATE_H
#define FTCOLL_REDUCE_SCATTER_STATE_H

#include <stddef.h>

struct ftc_reduce_scatter_state {
    char *vector;                /* the whole vector a call reduces, then its result */
    size_t vector_capacity;
};

#endif
