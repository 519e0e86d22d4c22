/*
 * ftc_allreduce: checks the arguments, then runs the fault-tolerant engine
 * (ft_engine.c) on the receive buffer.
 */
#include <stdbool.h>
#include <string.h>

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../guard/guard.h"
#include "checks.h"
#include "ft_engine.h"

static int check_arguments(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_allreduce", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ftc_check_not_in_place("ftc_allreduce", recvbuf, "recvbuf");
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ftc_fail(MPI_ERR_COUNT, "ftc_allreduce: count is negative (%d)", count);
    if (count > 0 && (recvbuf == NULL || sendbuf == NULL))
        return ftc_fail(MPI_ERR_BUFFER, "ftc_allreduce: %s is NULL but count is %d",
                        recvbuf == NULL ? "recvbuf" : "sendbuf", count);
    return ftc_check_reduction("ftc_allreduce", comm, type, op);
}

int ftc_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  ftc_comm_t comm)
{
    ftc_clear_error();
    int rc = check_arguments(sendbuf, recvbuf, count, type, op, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same =
            ftc_guard_reduction_args(comm, -1, (long long)count * comm->checked.known.shape.size);
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLREDUCE, rc, &same);
    }
    if (rc != MPI_SUCCESS)
        return rc;   /* the watchdog is armed only on success */
    /* the checks passed: (op, type) is comm->checked */
    const size_t bytes = (size_t)comm->checked.known.shape.extent * (size_t)count;
    if (sendbuf != MPI_IN_PLACE && count > 0)
        memmove(recvbuf, sendbuf, bytes);
    /* an input aliasing the result (MPI forbids it, some programs do it)
     * is no input kept unchanged */
    const bool input_kept = sendbuf != MPI_IN_PLACE && sendbuf != recvbuf;
    rc = ftc_ft_allreduce_run(comm, input_kept ? sendbuf : NULL, recvbuf, count, type, op, bytes,
                              comm->checked.known.shape.size, "ftc_allreduce");
    ftc_guard_leave(comm);
    return rc;
}
