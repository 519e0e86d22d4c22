/* The reduce_scatter module's state on a communicator (comm->reduce_scatter),
 * which ftc_reduce_scatter_block shares. */
#ifndef FTCOLL_REDUCE_SCATTER_STATE_H
#define FTCOLL_REDUCE_SCATTER_STATE_H

#include <stddef.h>

#include "../ft/holdings.h"
#include "algorithms.h"

struct ftc_reduce_scatter_state {
    char *vector;                /* the whole vector a call reduces, then its result; the
                                  * halving's working copy and, after it, a span arriving */
    size_t vector_capacity;
    int *displs;                 /* each rank's block's first element, then the vector's
                                  * end (size + 1 ints), for the halving */
    ftc_holdings entered;        /* the live ranks as the halving entered: S once it
                                  * completed everywhere */
    ftc_reduce_scatter_algorithm forced;   /* FTC_REDUCE_SCATTER_AUTO: by the rules */
    ftc_reduce_scatter_algorithm last;     /* the last call's; AUTO before any */
};

#endif
