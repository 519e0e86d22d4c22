/*
 * ftc_reduce: checks the arguments, then runs the binomial tree over the
 * live ranks (binomial.c), which also ends the call over the survivors
 * after a failure.
 *
 *   rank 0 [a]  rank 1 [b]  rank 2 [c]   ->   root's recvbuf [a op b op c]
 *
 * Cost: binomial.c's.
 */
#include <limits.h>
#include <stdlib.h>

#include "../allreduce/checks.h"
#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "../module.h"
#include "reduce.h"
#include "state.h"

/* The most bytes a value may hold: a message's size is checked as an int,
 * and the recovery's messages carry it behind a header. */
enum { MAX_VALUE_BYTES = INT_MAX - (1 << 16) };

/* ---- the module (module.h) ---------------------------------------------------- */

static int reduce_create(ftc_comm_t comm)
{
    comm->reduce = calloc(1, sizeof(*comm->reduce));
    return comm->reduce ? MPI_SUCCESS
                        : ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
}

static void reduce_release(ftc_comm_t comm)
{
    if (!comm->reduce)
        return;
    free(comm->reduce->scratch);
    free(comm->reduce->requests);
    free(comm->reduce);
    comm->reduce = NULL;
}

const ftc_module ftc_reduce_module = {
    .name = "reduce",
    .create = reduce_create,
    .release = reduce_release,
};

/* ---- argument checks --------------------------------------------------- */

static int check_arguments(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, int root, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_reduce", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (root < 0 || root >= comm->size)
        return ftc_fail(MPI_ERR_ROOT, "ftc_reduce: root %d is not a rank of the communicator "
                        "(0..%d)", root, comm->size - 1);
    if (count < 0)
        return ftc_fail(MPI_ERR_COUNT, "ftc_reduce: count is negative (%d)", count);
    const bool at_root = comm->rank == root;
    if (sendbuf == MPI_IN_PLACE && !at_root)
        return ftc_fail(MPI_ERR_BUFFER, "ftc_reduce: MPI_IN_PLACE is the root's only (rank %d "
                        "is not root %d)", comm->rank, root);
    if (at_root && recvbuf == MPI_IN_PLACE)
        return ftc_check_not_in_place("ftc_reduce", recvbuf, "the root's recvbuf");
    if (count > 0 && sendbuf == NULL)
        return ftc_fail(MPI_ERR_BUFFER, "ftc_reduce: sendbuf is NULL but count is %d", count);
    if (count > 0 && at_root && recvbuf == NULL)
        return ftc_fail(MPI_ERR_BUFFER, "ftc_reduce: the root's recvbuf is NULL but count is %d",
                        count);
    rc = ftc_check_reduction("ftc_reduce", comm, type, op);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long bytes = (long long)count * comm->checked.known.shape.extent;
    if (bytes > MAX_VALUE_BYTES)
        return ftc_fail(MPI_ERR_COUNT, "ftc_reduce: %d elements come to %lld bytes; a message "
                        "and the recovery after a failure carry at most %d", count, bytes,
                        MAX_VALUE_BYTES);
    /* a receive per child, made here, before the guard (as the scratch,
     * ftc_reduce_reserve): a rank short of memory stops every rank */
    return ftc_ensure_requests(&comm->reduce->requests, &comm->reduce->capacity, comm->size,
                               "ftc_reduce");
}

/* ---- the call ---------------------------------------------------------- */

int ftc_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, ftc_comm_t comm)
{
    ftc_clear_error();
    int rc = check_arguments(sendbuf, recvbuf, count, type, op, root, comm);
    ftc_reduce_call call = { .comm = comm };
    if (rc == MPI_SUCCESS) {   /* (op, type) is comm->checked */
        /* a root's input aliasing its result (MPI forbids it, some programs
         * do it) is in place: the tree would otherwise overwrite the input
         * with a child's value before combining it */
        const bool at_root = comm->rank == root;
        const bool in_place = sendbuf == MPI_IN_PLACE || (at_root && sendbuf == recvbuf);
        call = (ftc_reduce_call){
            .comm = comm, .root = root, .input = in_place ? recvbuf : sendbuf,
            .result = at_root ? recvbuf : NULL, .in_place = in_place, .count = count,
            .type = type, .op = op, .op_predefined = comm->checked.op_predefined,
            .bytes = (size_t)comm->checked.known.shape.extent * (size_t)count,
            .type_size = comm->checked.known.shape.size,
        };
        rc = ftc_reduce_reserve(&call);
    }
    if (comm) {   /* guarded: bad arguments or no memory here stop every rank cleanly */
        const ftc_guard_args same =
            ftc_guard_reduction_args(comm, root, (long long)count * call.type_size);
        rc = ftc_guard_enter(comm, FTC_GUARDED_REDUCE, rc, &same);
    }
    if (rc != MPI_SUCCESS)
        return rc;   /* the watchdog is armed only on success */
    call.number = ftc_ft_begin_call(comm->ft);
    rc = ftc_reduce_run(&call);
    ftc_guard_leave(comm);
    return rc;
}
