/* The allgather's state on a communicator (comm->allgather). */
#ifndef FTCOLL_ALLGATHER_ALLGATHER_H
#define FTCOLL_ALLGATHER_ALLGATHER_H

#include "../comm.h"

/* Made by ftc_comm_create with the algorithm the environment forces
 * (FTC_ALLGATHER_AUTO: the decision table); released by ftc_comm_free. */
int ftc_allgather_state_create(ftc_comm_t comm, ftc_allgather_algorithm forced);
void ftc_allgather_state_destroy(ftc_comm_t comm);

#endif
