/*
 * ftc_reduce_scatter and ftc_reduce_scatter_block: check the arguments,
 * then run the algorithm select.c picks (recursive_halving.c, or the
 * allreduce of the whole vector, allreduce_block.c), which also ends the
 * call over the survivors after a failure.
 *
 *   rank 0 [a0 a1 a2]  rank 1 [b0 b1 b2]   recvcounts {2, 1}
 *       ->  rank 0 [a0+b0 a1+b1]   rank 1 [a2+b2]
 *
 * Cost: the algorithm's.
 */
#include <limits.h>
#include <stdlib.h>

#include "../allreduce/checks.h"
#include "../buffer.h"
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
    struct ftc_reduce_scatter_state *s = calloc(1, sizeof(*s));
    comm->reduce_scatter = s;
    if (!s || !(s->displs = malloc(((size_t)comm->size + 1) * sizeof(int)))
        || !ftc_holdings_init(&s->entered, comm->size))
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    return MPI_SUCCESS;
}

/* FTCOLL_REDUCE_SCATTER_ALGORITHM: auto (unset), allreduce or
 * recursive_halving. */
static int reduce_scatter_read_settings(ftc_comm_t comm)
{
    const char *name = getenv("FTCOLL_REDUCE_SCATTER_ALGORITHM");
    if (!name || !*name || ftc_reduce_scatter_parse_name(name, &comm->reduce_scatter->forced))
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_ARG, "FTCOLL_REDUCE_SCATTER_ALGORITHM=\"%s\": expected auto, "
                                 "allreduce or recursive_halving", name);
}

/* Ranks running different algorithms would never meet. */
static int reduce_scatter_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_REDUCE_SCATTER_ALGORITHM",
                                   comm->reduce_scatter->forced, NULL };
    return 1;
}

static void reduce_scatter_release(ftc_comm_t comm)
{
    struct ftc_reduce_scatter_state *s = comm->reduce_scatter;
    if (!s)
        return;
    free(s->vector);
    free(s->displs);
    ftc_holdings_destroy(&s->entered);
    free(s);
    comm->reduce_scatter = NULL;
}

const ftc_module ftc_reduce_scatter_module = {
    .name = "reduce_scatter",
    .create = reduce_scatter_create,
    .read_settings = reduce_scatter_read_settings,
    .agreed = reduce_scatter_agreed,
    .release = reduce_scatter_release,
};

/* ftc_reduce_scatter_block keeps its state in the reduce_scatter module's. */
const ftc_module ftc_reduce_scatter_block_module = { .name = "reduce_scatter_block" };

/* ---- the whole vector ------------------------------------------------------------------- */

/* Each rank's block's first element, and the vector's end (the counts
 * summed below INT_MAX): the halving's layout reads them. */
static void lay_out_blocks(const ftc_reduce_scatter_call *call)
{
    int *displs = call->comm->reduce_scatter->displs;
    displs[0] = 0;
    for (int r = 0; r < call->comm->size; r++)
        displs[r + 1] = displs[r] + (call->counts ? call->counts[r] : call->block_count);
}

/* The algorithm: forced, else by the rules (the op is commutative:
 * ftc_check_reduction refused any other). */
static ftc_reduce_scatter_algorithm choose(const ftc_reduce_scatter_call *call)
{
    const ftc_reduce_scatter_algorithm forced = call->comm->reduce_scatter->forced;
    if (forced != FTC_REDUCE_SCATTER_AUTO)
        return forced;
    return ftc_reduce_scatter_decide(call->comm->size, (size_t)call->count * call->extent);
}

/* Room for the whole vector (the allreduce's), or for the halving's
 * working copy and a span arriving beside it. */
int ftc_reduce_scatter_reserve(const ftc_reduce_scatter_call *call)
{
    struct ftc_reduce_scatter_state *s = call->comm->reduce_scatter;
    const size_t copies = call->algorithm == FTC_REDUCE_SCATTER_RECURSIVE_HALVING ? 2 : 1;
    const size_t bytes = copies * (size_t)call->count * call->extent;
    return ftc_ensure_capacity(&s->vector, &s->vector_capacity, bytes > 0 ? bytes : 1);
}

int ftc_reduce_scatter_run(const ftc_reduce_scatter_call *call)
{
    call->comm->reduce_scatter->last = call->algorithm;
    return call->algorithm == FTC_REDUCE_SCATTER_RECURSIVE_HALVING
               ? ftc_reduce_scatter_by_halving(call)
               : ftc_reduce_scatter_by_allreduce(call);
}

/* ---- argument checks --------------------------------------------------- */

/* The buffers, the datatype and op, and the whole vector's size, once the
 * blocks are counted (call->count, call->block_count). */
static int check_call(ftc_reduce_scatter_call *call, long long total, const void *sendbuf,
                      bool in_place)
{
    const char *name = call->name;
    int rc = ftc_check_not_in_place(name, call->result, "recvbuf");
    if (rc != MPI_SUCCESS)
        return rc;
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
    rc = ftc_check_reduction(name, comm, call->type, call->op);
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
    call->algorithm = choose(call);
    if (call->algorithm == FTC_REDUCE_SCATTER_RECURSIVE_HALVING)
        lay_out_blocks(call);
    return ftc_reduce_scatter_reserve(call);
}

/* ---- the calls ---------------------------------------------------------- */

/* A checked call, guarded: bad arguments or no memory on one rank stop
 * every rank cleanly. */
static int run_guarded(ftc_comm_t comm, ftc_reduce_scatter_call *call, ftc_guarded_kind kind,
                       int rc)
{
    if (comm) {
        ftc_guard_args same =
            ftc_guard_reduction_args(comm, -1, (long long)call->count * call->type_size);
        same.counts = call->counts;
        same.count_bytes = call->type_size;
        rc = ftc_guard_enter(comm, kind, rc, &same);
    }
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
    if (rc == MPI_SUCCESS) {
        call.counts = recvcounts;
        rc = check_call(&call, total, sendbuf, sendbuf == MPI_IN_PLACE);
    }
    return run_guarded(comm, &call, FTC_GUARDED_REDUCE_SCATTER, rc);
}

int ftc_reduce_scatter_last_algorithm(ftc_comm_t comm, ftc_reduce_scatter_algorithm *executed)
{
    ftc_clear_error();
    const char *name = "ftc_reduce_scatter_last_algorithm";
    int rc = ftc_check_comm(name, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!executed)
        return ftc_fail(MPI_ERR_ARG, "%s: executed is NULL", name);
    if (comm->reduce_scatter->last == FTC_REDUCE_SCATTER_AUTO)
        return ftc_fail(MPI_ERR_ARG, "%s: no ftc_reduce_scatter(_block) ran on this "
                        "communicator yet", name);
    *executed = comm->reduce_scatter->last;
    return MPI_SUCCESS;
}
