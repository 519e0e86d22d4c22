/*
 * The point-to-point layer every algorithm's messages go through.
 *
 * Today it forwards to MPI; it is the one place where ftcoll will delay
 * messages to emulate a network, inject failures and watch for hangs, so no
 * algorithm calls MPI_Isend/MPI_Irecv directly.
 */
#ifndef FTCOLL_P2P_H
#define FTCOLL_P2P_H

#include <mpi.h>

/* Tags of ftcoll's private communicators, one per collective. */
enum { FTC_TAG_ALLGATHER = 7001 };

int ftc_p2p_isend(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request);
int ftc_p2p_irecv(void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request);
int ftc_p2p_waitall(int n, MPI_Request *requests, MPI_Status *statuses);
int ftc_p2p_sendrecv(const void *sendbuf, int sendcount, int dest, void *recvbuf,
                     int recvcount, int source, MPI_Datatype type, int tag, MPI_Comm comm,
                     MPI_Status *status);

#endif
