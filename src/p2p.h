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

/* Tags of ftcoll's private communicators. Allreduce tags carry the call's
 * sequence number (FTC_TAG_ALLREDUCE_WINDOW calls deep), recovery tags the
 * agreement's, so that a message a failure left behind never meets a later
 * receive. */
enum {
    FTC_TAG_ALLGATHER = 7001,
    FTC_TAG_SENTINEL = 7002,          /* never sent: a wildcard receive that ULFM fails */
    FTC_TAG_GUARD_UP = 7003,          /* check-in reports, child to parent */
    FTC_TAG_GUARD_DOWN = 7004,        /* the decision, parent to child */
    FTC_TAG_ALLREDUCE_BASE = 8192,
    FTC_TAG_ALLREDUCE_WINDOW = 8192,
    /* Recovery rounds: base + 4 x (agreement number % window) + phase; the
     * whole range stays below MPI's minimum tag bound, 32767. */
    FTC_TAG_RECOVERY_BASE = FTC_TAG_ALLREDUCE_BASE + FTC_TAG_ALLREDUCE_WINDOW,
    FTC_TAG_RECOVERY_WINDOW = 4095,
};

int ftc_p2p_isend(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request);
int ftc_p2p_irecv(void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request);
int ftc_p2p_waitall(int n, MPI_Request *requests, MPI_Status *statuses);
int ftc_p2p_sendrecv(const void *sendbuf, int sendcount, int dest, void *recvbuf,
                     int recvcount, int source, MPI_Datatype type, int tag, MPI_Comm comm,
                     MPI_Status *status);

#endif
