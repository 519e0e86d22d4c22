/* ftc_bcast's fault-tolerant execution (ULFM): see ft_bcast.c. */
#ifndef FTCOLL_BCAST_FT_BCAST_H
#define FTCOLL_BCAST_FT_BCAST_H

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"

/* The arguments are checked (`shape` is the type's); every live rank calls
 * it alike. */
int ftc_bcast_fault_tolerant(void *buf, int count, MPI_Datatype type, const ftc_type_shape *shape,
                             int root, ftc_comm_t comm);

#endif
