/*
 * What ftc_scatter and ftc_scatterv check alike (checks.c): the root, and
 * every rank's receive side.
 */
#ifndef FTCOLL_SCATTER_CHECKS_H
#define FTCOLL_SCATTER_CHECKS_H

#include <mpi.h>

#include "../args.h"
#include "../comm.h"

/* MPI_ERR_COUNT for a block of `bytes`, past what a message carries. */
int ftc_scatter_block_too_large(const char *call, long long bytes);

/*
 * `call`'s (its public name) root and receive side, on a valid `comm`:
 * MPI_IN_PLACE (recvbuf) at the root only, else recvbuf, recvcount and
 * recvtype a valid buffer (*shape then its type's) of a block a message
 * can carry.
 */
int ftc_scatter_check_receiver(const char *call, ftc_comm_t comm, int root, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, ftc_known_type *known,
                               ftc_type_shape *shape);

/* MPI_ERR_BUFFER for MPI_IN_PLACE as the root's sendbuf (it is recvbuf's). */
int ftc_scatter_check_send_not_in_place(const char *call, const void *sendbuf);

#endif
