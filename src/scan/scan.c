/*
 * ftc_scan and ftc_exscan: check the arguments, then run the chain
 * (chain.c), which also ends the call over the survivors after a failure.
 *
 *   rank 0 [a]  rank 1 [b]  rank 2 [c]
 *       scan    ->  [a]        [a op b]   [a op b op c]
 *       exscan  ->  (as it was) [a]       [a op b]
 *
 * Cost: chain.c's.
 */
#include <limits.h>
#include <stdlib.h>

#include "../allgather/ft_allgather.h"
#include "../allreduce/checks.h"
#include "../args.h"
#include "../comm.h"
#include "../error.h"
#include "../guard/guard.h"
#include "../module.h"
#include "scan.h"
#include "state.h"

/* ---- the module (module.h) ---------------------------------------------------- */

static void scan_release(ftc_comm_t comm);

static int scan_create(ftc_comm_t comm)
{
    comm->scan = calloc(1, sizeof(*comm->scan));
    if (comm->scan && ftc_holdings_init(&comm->scan->result, comm->size)
        && ftc_holdings_init(&comm->scan->made, comm->size))
        return MPI_SUCCESS;
    scan_release(comm);
    return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
}

static void scan_release(ftc_comm_t comm)
{
    if (!comm->scan)
        return;
    ftc_holdings_destroy(&comm->scan->result);
    ftc_holdings_destroy(&comm->scan->made);
    free(comm->scan->room);
    free(comm->scan);
    comm->scan = NULL;
}

const ftc_module ftc_scan_module = {
    .name = "scan",
    .create = scan_create,
    .release = scan_release,
};

/* ftc_exscan keeps its state in the scan module's. */
const ftc_module ftc_exscan_module = { .name = "exscan" };

/* ---- argument checks --------------------------------------------------- */

/* recvbuf is needed unless nothing is written there: ftc_exscan's rank 0
 * writes nothing (MPI leaves its result undefined), unless in place. */
static int check_buffers(const ftc_scan_call *call, const void *sendbuf, bool in_place)
{
    const char *name = call->name;
    const bool writes_nothing = call->exclusive && call->comm->rank == 0 && !in_place;
    const int rc = writes_nothing ? MPI_SUCCESS
                                  : ftc_check_not_in_place(name, call->result, "recvbuf");
    if (rc != MPI_SUCCESS)
        return rc;
    if (call->count < 0)
        return ftc_fail(MPI_ERR_COUNT, "%s: count is negative (%d)", name, call->count);
    if (call->count > 0 && !in_place && sendbuf == NULL)
        return ftc_fail(MPI_ERR_BUFFER, "%s: sendbuf is NULL but count is %d", name,
                        call->count);
    if (call->count > 0 && call->result == NULL && !writes_nothing)
        return ftc_fail(MPI_ERR_BUFFER, "%s: recvbuf is NULL but count is %d", name,
                        call->count);
    return MPI_SUCCESS;
}

/* A recovery carries a block of every rank, p x (N + 1 + the ranks' bits),
 * within what the engine's messages take. */
static int check_total(const ftc_scan_call *call)
{
    const int p = call->comm->size;
    return ftc_allgather_check_total(call->name, p,
                                     (long long)ftc_scan_block_width(call) * p);
}

static int check_call(ftc_scan_call *call, const void *sendbuf)
{
    const bool in_place = sendbuf == MPI_IN_PLACE;
    ftc_comm_t comm = call->comm;
    int rc = ftc_check_comm(call->name, comm);
    if (rc == MPI_SUCCESS)
        rc = check_buffers(call, sendbuf, in_place);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_ordered_reduction(call->name, comm, call->type, call->op);
    if (rc != MPI_SUCCESS)
        return rc;
    call->shape = comm->checked.known.shape;
    call->input = in_place ? call->result : sendbuf;
    rc = check_total(call);
    return rc == MPI_SUCCESS ? ftc_scan_reserve(call) : rc;
}

/* ---- the calls ---------------------------------------------------------- */

/* A call, guarded: bad arguments or no memory on one rank stop every rank
 * cleanly. */
static int scan_guarded(ftc_scan_call *call, const void *sendbuf, ftc_guarded_kind kind)
{
    int rc = check_call(call, sendbuf);
    if (call->comm) {
        const ftc_guard_args same =
            ftc_guard_reduction_args(call->comm, -1, (long long)call->count * call->shape.size);
        rc = ftc_guard_enter(call->comm, kind, rc, &same);
    }
    if (rc != MPI_SUCCESS)
        return rc;   /* the watchdog is armed only on success */
    rc = ftc_scan_run(call);
    ftc_guard_leave(call->comm);
    return rc;
}

int ftc_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             ftc_comm_t comm)
{
    ftc_clear_error();
    ftc_scan_call call = { .name = "ftc_scan", .comm = comm, .result = recvbuf,
                           .count = count, .type = datatype, .op = op };
    return scan_guarded(&call, sendbuf, FTC_GUARDED_SCAN);
}

int ftc_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               ftc_comm_t comm)
{
    ftc_clear_error();
    ftc_scan_call call = { .name = "ftc_exscan", .comm = comm, .exclusive = true,
                           .result = recvbuf, .count = count, .type = datatype, .op = op };
    return scan_guarded(&call, sendbuf, FTC_GUARDED_EXSCAN);
}
