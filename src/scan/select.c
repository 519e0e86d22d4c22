/*
 * Which algorithm an ftc_scan or ftc_exscan runs:
 *
 *   p <= 2, or p x N <= FTC_SCAN_CHAIN_MAX_BYTES   the chain (chain.c):
 *                             n - 1 hops, pipelined from call to call
 *   larger                    the allgather and fold (gather_fold.c)
 *
 * and, where ranks can survive a death on a communicator of three or
 * more, every FTC_FT_WINDOW-th call of the communicator the allgather
 * whatever the size: the chain lets a rank complete before the ranks
 * after it entered, and such calls must meet one that every rank entered
 * within FTC_FT_WINDOW (ft/reconcile.h). N is one rank's input, p the
 * communicator's size: nothing an epoch changes, so that a rank still
 * in an older epoch picks as the others do.
 */
#include "../allreduce/ft_engine.h"
#include "../ft/ft.h"
#include "scan.h"
#include "state.h"

bool ftc_scan_runs_chain(const ftc_scan_call *call)
{
    ftc_comm_t comm = call->comm;
    const size_t all = ftc_scan_block_bytes(call) * (size_t)comm->size;
    if (comm->size <= 2)
        return true;   /* one hop of N bytes, as MPI's; nothing kept */
    if (all > FTC_SCAN_CHAIN_MAX_BYTES)
        return false;
    const bool may_keep = FTC_FT_SURVIVES;
    return !(may_keep && ftc_ft_next_call(comm->ft) % FTC_FT_WINDOW == 0);
}

/* The report names S up to this rank, whichever algorithm ran: the ranks
 * after it do not make its result, and a chain's rank cannot know them. */
int ftc_scan_run(const ftc_scan_call *call)
{
    const int rc = ftc_scan_runs_chain(call) ? ftc_scan_chain(call)
                                             : ftc_scan_gather_fold(call);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_report_below(call->comm, call->comm->rank + 1);
    return rc;
}

/* The chain's n + 1 slots, or the allgather's p blocks. */
int ftc_scan_reserve(const ftc_scan_call *call)
{
    struct ftc_scan_state *s = call->comm->scan;
    const size_t block = ftc_scan_block_bytes(call);
    const size_t p = (size_t)call->comm->size;
    const size_t bytes = block * p <= FTC_SCAN_CHAIN_MAX_BYTES || p <= 2 ? (p + 1) * block
                                                                         : p * block;
    return ftc_ensure_capacity(&s->room, &s->room_capacity, bytes > 0 ? bytes : 1);
}
