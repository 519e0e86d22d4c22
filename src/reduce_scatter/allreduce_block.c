/*
 * ftc_reduce_scatter(_block)'s one algorithm: the fault-tolerant
 * allreduce of the whole vector, then this rank's block of the result.
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
 * Why not a reduce-scatter of its own: a block that travels reduced over
 * some ranks only is no partial value of whole vectors, and after a death
 * the survivors could not put its blocks together into one S (ops have no
 * inverse); the allreduce's engine keeps every value whole (its
 * Rabenseifner attempt restarts unfinished ranks from their inputs). Open
 * MPI's own choices cost as much at the sizes they take: its recursive
 * doubling and butterfly exchange whole halves for small vectors, and its
 * basic linear (a reduce to rank 0, then a scatter) moves the vector twice
 * for large ones, as the allreduce's reduce-scatter + allgather does.
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

int ftc_reduce_scatter_reserve(const ftc_reduce_scatter_call *call)
{
    struct ftc_reduce_scatter_state *s = call->comm->reduce_scatter;
    const size_t bytes = (size_t)call->count * call->extent;
    return ftc_ensure_capacity(&s->vector, &s->vector_capacity, bytes > 0 ? bytes : 1);
}

/* Whether the engine completed the call: on success, and in strict mode
 * when S lacks a rank (the result is there all the same). */
static bool result_computed(int rc)
{
    return rc == MPI_SUCCESS || ftc_ft_is_process_failure(rc);
}

int ftc_reduce_scatter_run(const ftc_reduce_scatter_call *call)
{
    ftc_comm_t comm = call->comm;
    char *vector = comm->reduce_scatter->vector;
    const size_t bytes = (size_t)call->count * call->extent;
    if (bytes > 0)
        memcpy(vector, call->input, bytes);
    const int rc = ftc_ft_allreduce_run(comm, call->input, vector, call->count, call->type,
                                        call->op, bytes, call->type_size);
    const size_t block_bytes = (size_t)call->block_count * call->extent;
    if (result_computed(rc) && block_bytes > 0)
        memmove(call->result, vector + (size_t)call->block_offset * call->extent, block_bytes);
    return rc;
}
