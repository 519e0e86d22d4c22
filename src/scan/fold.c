/*
 * A rank's prefix over S, from every block of S laid out by rank (block r
 * rank r's input, N bytes each), combined in rank order from the lowest up
 * so that an op need not be commutative:
 *
 *   rank 3, S = {0, 1, 3}:  result = (a0 op a1) op a3
 *
 * The two algorithms end here: gather_fold.c after its allgather, chain.c
 * after the recovery of a chain a death stopped. A prefix with no block of
 * S (ftc_exscan's rank 0, or every rank before this one dead and lost)
 * leaves recvbuf as it was.
 *
 * Cost: up to p - 1 local ops of N bytes (rank r: r of them), in the
 * blocks' room itself.
 */
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../error.h"
#include "scan.h"

size_t ftc_scan_block_bytes(const ftc_scan_call *call)
{
    return (size_t)call->count * (size_t)call->shape.extent;
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
 * a2) ...: floating-point sums come out as MPI's). */
static int fold_up_to(const ftc_scan_call *call, char *blocks, int top)
{
    const size_t bytes = ftc_scan_block_bytes(call);
    int prefix = -1;   /* the highest block of S folded so far */
    for (int j = 0; j <= top; j++) {
        if (!ftc_allreduce_result_includes(call->comm, j))
            continue;
        if (prefix >= 0 && MPI_Reduce_local(blocks + (size_t)prefix * bytes,
                                            blocks + (size_t)j * bytes, call->count,
                                            call->type, call->op) != MPI_SUCCESS)
            return ftc_fail(MPI_ERR_OP, "%s: MPI_Reduce_local failed on rank %d's block",
                            call->name, j);
        prefix = j;
    }
    return MPI_SUCCESS;
}

int ftc_scan_fold(const ftc_scan_call *call, char *blocks)
{
    ftc_comm_t comm = call->comm;
    const size_t bytes = ftc_scan_block_bytes(call);
    if (bytes == 0)
        return MPI_SUCCESS;
    const int top = highest_in_result(comm, call->exclusive ? comm->rank - 1 : comm->rank);
    if (top < 0)
        return MPI_SUCCESS;
    const int folded = fold_up_to(call, blocks, top);
    if (folded == MPI_SUCCESS)
        memcpy(call->result, blocks + (size_t)top * bytes, bytes);
    return folded;
}
