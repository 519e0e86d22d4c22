/*
 * ftc_scan's and ftc_exscan's one algorithm: the fault-tolerant allgather
 * of the inputs, then this rank's prefix folded in rank order.
 *
 *   gather   ftc_allgather's whole call (its decision table, its
 *            recovery) gathers every rank's input into the
 *            communicator's room for them: block r is rank r's. After a
 *            death every survivor holds the same valid blocks, S:
 *            every survivor's, and a dead rank's where a survivor held it
 *   fold     the prefix over the blocks of S up to this rank (ftc_exscan:
 *            before it), combined in rank order from the lowest up, so
 *            an op need not be commutative, in the room itself:
 *
 *              rank 3, S = {0, 1, 3}:  result = (a0 op a1) op a3
 *
 *            a prefix with no block of S (ftc_exscan's rank 0, or every
 *            rank before this one dead and lost) leaves recvbuf as it was
 *
 * Why the inputs travel whole: a partial prefix (op over ranks 0..k)
 * holds a dead rank's input only combined, and a rank that returned with
 * it fixes that rank in S for every rank after it; the survivors could not
 * put one S together from such values without a protocol of their own.
 * Gathering the inputs keeps every allgather guarantee as it is: the same
 * S on every survivor, late ranks served from kept copies or the
 * confirmation, and S reported.
 *
 * Cost: the allgather of p blocks of N bytes (n - 1 blocks received, by
 * its plan), then up to p - 1 local ops of N (rank r: r of them); the
 * room holds p x N bytes. Open MPI's linear scan moves N once per rank
 * and rank r waits for rank r - 1 alone, so back-to-back calls pipeline
 * down its chain: this one costs 4 to 25 times as much at p = 8 (README).
 */
#include <string.h>

#include "../allgather/ft_allgather.h"
#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "scan.h"
#include "state.h"

static size_t block_bytes(const ftc_scan_call *call)
{
    return (size_t)call->count * (size_t)call->shape.extent;
}

int ftc_scan_reserve(const ftc_scan_call *call)
{
    struct ftc_scan_state *s = call->comm->scan;
    const size_t bytes = block_bytes(call) * (size_t)call->comm->size;
    return ftc_ensure_capacity(&s->inputs, &s->inputs_capacity, bytes > 0 ? bytes : 1);
}

/* The highest rank of S at or below `last`, or -1. */
static int highest_in_result(ftc_comm_t comm, int last)
{
    while (last >= 0 && !ftc_allreduce_result_includes(comm, last))
        last--;
    return last;
}

/* Block j of S up to `top` becomes the prefix over S's blocks up to j:
 * a_j = prefix op a_j, from the lowest up, so the blocks combine in rank
 * order and group as Open MPI's linear scan groups them (((a0 op a1) op
 * a2) ...: floating-point sums come out as MPI's). The room is this
 * call's own: a copy kept for late ranks was packed before. */
static int fold_up_to(const ftc_scan_call *call, char *inputs, int top)
{
    const size_t bytes = block_bytes(call);
    int prefix = -1;   /* the highest block of S folded so far */
    for (int j = 0; j <= top; j++) {
        if (!ftc_allreduce_result_includes(call->comm, j))
            continue;
        if (prefix >= 0 && MPI_Reduce_local(inputs + (size_t)prefix * bytes,
                                            inputs + (size_t)j * bytes, call->count,
                                            call->type, call->op) != MPI_SUCCESS)
            return ftc_fail(MPI_ERR_OP, "%s: MPI_Reduce_local failed on rank %d's block",
                            call->name, j);
        prefix = j;
    }
    return MPI_SUCCESS;
}

int ftc_scan_run(const ftc_scan_call *call)
{
    ftc_comm_t comm = call->comm;
    char *inputs = comm->scan->inputs;
    const int rc = ftc_allgather_blocks(comm, call->name, call->input, call->count, call->type,
                                        &call->shape, inputs);
    const size_t bytes = block_bytes(call);
    if (rc != MPI_SUCCESS || bytes == 0)
        return rc;
    const int top = highest_in_result(comm, call->exclusive ? comm->rank - 1 : comm->rank);
    if (top < 0)
        return MPI_SUCCESS;
    const int folded = fold_up_to(call, inputs, top);
    if (folded == MPI_SUCCESS)
        memcpy(call->result, inputs + (size_t)top * bytes, bytes);
    return folded;
}
