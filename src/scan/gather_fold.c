/*
 * ftc_scan's and ftc_exscan's algorithm for large inputs: the
 * fault-tolerant allgather of the inputs, then this rank's prefix folded
 * in rank order (fold.c).
 *
 *   gather   ftc_allgather's whole call (its decision table, its
 *            recovery) gathers every rank's input into the
 *            communicator's room for them: block r is rank r's. After a
 *            death every survivor holds the same valid blocks, S:
 *            every survivor's, and a dead rank's where a survivor held it
 *   fold     the prefix over the blocks of S up to this rank (ftc_exscan:
 *            before it), in the room itself
 *
 * Why it serves large inputs: the chain (chain.c) carries every input so
 * far down the ranks, (i + 2) N bytes on hop i, p^2 N / 2 in a row; the
 * allgather moves each input about once, in log2 n or n - 1 steps by its
 * plan. It also ends every FTC_FT_WINDOW-th chain-sized call, where the
 * ranks must all have entered before any completes (ft/reconcile.h):
 * the allgather completes nowhere before that.
 *
 * Cost: the allgather of p blocks of N bytes (n - 1 blocks received, by
 * its plan), then fold.c's; the room holds p x N bytes.
 */
#include "../allgather/ft_allgather.h"
#include "scan.h"
#include "state.h"

int ftc_scan_gather_fold(const ftc_scan_call *call)
{
    ftc_comm_t comm = call->comm;
    char *inputs = comm->scan->room;
    const int rc = ftc_allgather_blocks(comm, call->name, call->input, call->count, call->type,
                                        &call->shape, inputs);
    return rc == MPI_SUCCESS ? ftc_scan_fold(call, inputs) : rc;
}
