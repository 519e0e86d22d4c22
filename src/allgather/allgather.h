/* The allgather's state on a communicator (comm->allgather): the algorithm
 * forced (FTCOLL_ALLGATHER_ALGORITHM, ftc_allgather_set_algorithm; AUTO:
 * the decision table), the last choice and the plans built so far. */
#ifndef FTCOLL_ALLGATHER_ALLGATHER_H
#define FTCOLL_ALLGATHER_ALLGATHER_H

#include "../module.h"

extern const ftc_module ftc_allgather_module;

#endif
