/*
 * ftc_reduce_scatter(_block) by the fault-tolerant allreduce of the whole
 * vector, then this rank's block of the result: for small vectors
 * (select.c), and the recovery of recursive_halving.c, restarting every
 * survivor from its input.
 *
 *   vector    the input (sendbuf, or in place recvbuf) copied into the
 *             communicator's room for it
 *   allreduce ftc_allreduce's engine over the live ranks: recursive
 *             doubling, or Rabenseifner's reduce-scatter + allgather for
 *             large vectors, as Open MPI chooses; after a death its
 *             recovery: every survivor gets op over the same S, and S is
 *             reported; late ranks served from kept results or the
 *             confirmation, as any allreduce's
 *   block     recvbuf gets elements [block_offset, block_offset +
 *             block_count) of the result
 *
 *     [a0 a1] [b0 b1]  ->  rank 0 [a0 op b0]   rank 1 [a1 op b1]
 *
 * Why for small vectors: its log2 n steps are as few as recursive
 * halving's, with no confirmation after them (the allreduce's engine keeps
 * every value whole, and a late rank is served its result).
 *
 * Cost: the allreduce of the whole vector (recursive doubling: log2 n
 * (alpha + N beta + N gamma); Rabenseifner: about 2 log2 n alpha + 2 N
 * beta + N gamma, N its bytes), plus a copy of the vector and one of the
 * block.
 */
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "reduce_scatter.h"
#include "state.h"

/* Whether the engine completed the call: on success, and in strict mode
 * when S lacks a rank (the result is there all the same). */
static bool result_computed(int rc)
{
    return rc == MPI_SUCCESS || ftc_ft_is_process_failure(rc);
}

int ftc_reduce_scatter_by_allreduce(const ftc_reduce_scatter_call *call)
{
    ftc_comm_t comm = call->comm;
    char *vector = comm->reduce_scatter->vector;
    const size_t bytes = (size_t)call->count * call->extent;
    if (bytes > 0)
        memcpy(vector, call->input, bytes);
    const int rc = ftc_ft_allreduce_run(comm, call->input, vector, call->count, call->type,
                                        call->op, bytes, call->type_size, call->name);
    const size_t block_bytes = (size_t)call->block_count * call->extent;
    if (result_computed(rc) && block_bytes > 0)
        memmove(call->result, vector + (size_t)call->block_offset * call->extent, block_bytes);
    return rc;
}
