/*
 * ftc_reduce_scatter and ftc_reduce_scatter_block: check the arguments,
 * then run the allreduce of the whole vector and keep this rank's block
 * (allreduce_block.c), which also ends the call over the survivors after
 * a failure.
 *
 *   rank 0 [a0 a1 a2]  rank 1 [b0 b1 b2]   recvcounts {2, 1}
 *       ->  rank 0 [a0+b0 a1+b1]   rank 1 [a2+b2]
 *
 * Cost: allreduce_block.c's.
 */
#include <limits.h>
#include <stdlib.h>

#include "../allreduce/checks.h"
#include "../args.h"
#include "../comm.h"
#include "../error.h"
#include "../guard/guard.h"
#include "../module.h"
#include "reduce_scatter.h"
#include "state.h"

/* The most bytes the whole vector may hold: a message's size is checked
 * as an int, and the recovery's messages carry it behind a header (as
 * ftc_reduce's). */
enum { MAX_VECTOR_BYTES = INT_MAX - (1 << 16) };

/* ---- the module (module.h) ---------------------------------------------------- */

static int reduce_scatter_create(ftc_comm_t comm)
{
    comm->reduce_scatter = calloc(1, sizeof(*comm->reduce_scatter));
    return comm->reduce_scatter ? MPI_SUCCESS
                                : ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
}

static void reduce_scatter_release(ftc_comm_t comm)
{
    if (!comm->reduce_scatter)
        return;
    free(comm->reduce_scatter->vector);
    free(comm->reduce_scatter);
    comm->reduce_scatter = NULL;
}

const ftc_module ftc_reduce_scatter_module = {
    .name = "reduce_scatter",
    .create = reduce_scatter_create,
    .release = reduce_scatter_release,
};

/* ftc_reduce_scatter_block keeps its state in the reduce_scatter module's. */
const ftc_module ftc_reduce_scatter_block_module = { .name = "reduce_scatter_block" };

/* ---- argument checks --------------------------------------------------- */

/* The buffers, the datatype and op, and the whole vector's size, once the
 * blocks are counted (call->count, call->block_count). */
static int check_call(ftc_reduce_scatter_call *call, long long total, const void *sendbuf,
                      bool in_place)
{
    const char *name = call->name;
    if (total > 0 && sendbuf == NULL)
        return ftc_fail(MPI_ERR_BUFFER, "%s: sendbuf is NULL but the blocks come to %lld "
                        "elements", name, total);
    if (call->block_count > 0 && call->result == NULL)
        return ftc_fail(MPI_ERR_BUFFER, "%s: recvbuf is NULL but this rank's block has %d "
                        "elements", name, call->block_count);
    if (in_place && total > 0 && call->result == NULL)
        return ftc_fail(MPI_ERR_BUFFER, "%s: in place, recvbuf holds the input but is NULL",
                        name);
    ftc_comm_t comm = call->comm;
    int rc = ftc_check_reduction(name, comm, call->type, call->op);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long bytes = total * comm->checked.known.shape.extent;
    if (total > INT_MAX || bytes > MAX_VECTOR_BYTES)
        return ftc_fail(MPI_ERR_COUNT, "%s: the blocks come to %lld elements, %lld bytes; a "
                        "message and the recovery after a failure carry at most %d bytes", name,
                        total, bytes, MAX_VECTOR_BYTES);
    call->count = (int)total;
    call->input = in_place ? call->result : sendbuf;
    call->extent = (size_t)comm->checked.known.shape.extent;
    call->type_size = comm->checked.known.shape.size;
    return ftc_reduce_scatter_reserve(call);
}

/* ---- the calls ---------------------------------------------------------- */

/* A checked call, guarded: bad arguments or no memory on one rank stop
 * every rank cleanly. */
static int run_guarded(ftc_comm_t comm, ftc_reduce_scatter_call *call, ftc_guarded_kind kind,
                       int rc)
{
    if (comm)
        rc = ftc_guard_enter(comm, kind, rc);
    if (rc != MPI_SUCCESS)
        return rc;   /* the watchdog is armed only on success */
    rc = ftc_reduce_scatter_run(call);
    ftc_guard_leave(comm);
    return rc;
}

int ftc_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, ftc_comm_t comm)
{
    ftc_clear_error();
    ftc_reduce_scatter_call call = { .name = "ftc_reduce_scatter_block", .comm = comm,
                                     .result = recvbuf, .type = datatype, .op = op };
    int rc = ftc_check_comm(call.name, comm);
    if (rc == MPI_SUCCESS && recvcount < 0)
        rc = ftc_fail(MPI_ERR_COUNT, "%s: recvcount is negative (%d)", call.name, recvcount);
    if (rc == MPI_SUCCESS) {
        call.block_offset = comm->rank * recvcount;
        call.block_count = recvcount;
        rc = check_call(&call, (long long)recvcount * comm->size, sendbuf,
                        sendbuf == MPI_IN_PLACE);
    }
    return run_guarded(comm, &call, FTC_GUARDED_REDUCE_SCATTER_BLOCK, rc);
}

/* recvcounts: not NULL, none negative; *total their sum, call's block set. */
static int count_blocks(ftc_reduce_scatter_call *call, const int *recvcounts, long long *total)
{
    if (!recvcounts)
        return ftc_fail(MPI_ERR_ARG, "%s: recvcounts is NULL", call->name);
    *total = 0;
    for (int r = 0; r < call->comm->size; r++) {
        if (recvcounts[r] < 0)
            return ftc_fail(MPI_ERR_COUNT, "%s: recvcounts[%d] = %d is negative", call->name, r,
                            recvcounts[r]);
        if (r == call->comm->rank) {
            call->block_offset = (int)(*total < INT_MAX ? *total : INT_MAX);
            call->block_count = recvcounts[r];
        }
        *total += recvcounts[r];
    }
    return MPI_SUCCESS;
}

int ftc_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, ftc_comm_t comm)
{
    ftc_clear_error();
    ftc_reduce_scatter_call call = { .name = "ftc_reduce_scatter", .comm = comm,
                                     .result = recvbuf, .type = datatype, .op = op };
    long long total = 0;
    int rc = ftc_check_comm(call.name, comm);
    if (rc == MPI_SUCCESS)
        rc = count_blocks(&call, recvcounts, &total);
    if (rc == MPI_SUCCESS)
        rc = check_call(&call, total, sendbuf, sendbuf == MPI_IN_PLACE);
    return run_guarded(comm, &call, FTC_GUARDED_REDUCE_SCATTER, rc);
}
