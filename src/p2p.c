/* The point-to-point layer over MPI; the rule it keeps is in p2p.h. */
#include "p2p.h"

#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

int ftc_p2p_isend(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return MPI_Isend(buf, count, type, peer, tag, comm, request);
}

int ftc_p2p_irecv(void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return MPI_Irecv(buf, count, type, peer, tag, comm, request);
}

int ftc_p2p_iprobe(int peer, int tag, MPI_Comm comm, int *arrived, MPI_Status *status)
{
    return MPI_Iprobe(peer, tag, comm, arrived, status);
}

int ftc_p2p_recv(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Status *status)
{
    return MPI_Recv(buf, count, type, peer, tag, comm, status);
}

int ftc_p2p_waitall(int n, MPI_Request *requests, MPI_Status *statuses)
{
#ifdef FTCOLL_HAVE_ULFM
    for (;;) {
        int done = 0;
        const int rc = MPI_Testall(n, requests, &done, statuses);
        if (rc != MPI_SUCCESS || done)
            return rc;
    }
#else
    return MPI_Waitall(n, requests, statuses);
#endif
}

int ftc_p2p_waitany(int n, MPI_Request *requests, int *index, MPI_Status *status)
{
#ifdef FTCOLL_HAVE_ULFM
    for (;;) {
        int done = 0;
        const int rc = MPI_Testany(n, requests, index, &done, status);
        if (rc != MPI_SUCCESS || done)
            return rc;
    }
#else
    return MPI_Waitany(n, requests, index, status);
#endif
}

void ftc_p2p_abandon(MPI_Request *request, bool is_receive)
{
    if (*request == MPI_REQUEST_NULL)
        return;
    if (is_receive) {
        MPI_Cancel(request);
        MPI_Wait(request, MPI_STATUS_IGNORE);
    } else {
        MPI_Request_free(request);
    }
    *request = MPI_REQUEST_NULL;
}

void ftc_p2p_retract(MPI_Request *receive)
{
    if (*receive == MPI_REQUEST_NULL)
        return;
    int cancelled = 0;
    MPI_Cancel(receive);
    if (MPI_Test(receive, &cancelled, MPI_STATUS_IGNORE) != MPI_SUCCESS || !cancelled) {
        if (*receive != MPI_REQUEST_NULL)
            MPI_Request_free(receive);
    }
    *receive = MPI_REQUEST_NULL;
}

bool ftc_p2p_is_process_failure(int rc)
{
#ifdef FTCOLL_HAVE_ULFM
    if (rc == MPI_SUCCESS)
        return false;   /* asked after every call: spare it MPI_Error_class */
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    return error_class == MPIX_ERR_PROC_FAILED || error_class == MPIX_ERR_PROC_FAILED_PENDING
        || error_class == MPIX_ERR_REVOKED;
#else
    (void)rc;
    return false;
#endif
}
