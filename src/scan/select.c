/*
 * When an ftc_scan's or ftc_exscan's chain ends in its tokens (chain.c):
 * with ULFM on a communicator of three or more, in every call whose number
 * is a multiple of FTC_FT_WINDOW, and in every period-th call of the size
 * class of the prefix kept for late ranks (ft/tokens.h: what the ranks
 * keep between two calls with tokens stays within FTC_SCAN_KEPT_BYTES per
 * class; above 4 MiB every call). The chain lets a rank complete before
 * the ranks after it entered; the tokens keep every rank within
 * FTC_FT_WINDOW calls of the others (ft/reconcile.h). It depends on p, N,
 * the call's number and the calls of its class: nothing an epoch changes,
 * so that a rank still in an older epoch picks as the others do.
 *
 * Why the scan keeps more than the other collectives (FTC_FT_KEPT_BYTES):
 * back to back, a chain's calls overlap down the ranks, each rank a call
 * or more ahead of the next, and MPI's own chain costs about one hop a
 * call; a call with tokens stops every rank until the last one entered,
 * which costs the whole chain, n - 1 hops. So the tokens' cost a call is
 * about (n - 1) / period hops, and the period is the budget over the
 * prefix's size: with 1 MiB, 1 MiB prefixes had tokens every call and
 * cost 2 to 4 times MPI's at p = 8 on a processor per rank.
 */
#include "../allreduce/ft_engine.h"
#include "../ft/ft.h"
#include "../ft/tokens.h"
#include "scan.h"
#include "state.h"

size_t ftc_scan_block_bytes(const ftc_scan_call *call)
{
    return (size_t)call->count * (size_t)call->shape.extent;
}

/* Bytes of prefixes one period of calls of a size class may keep. */
enum { FTC_SCAN_KEPT_BYTES = 8 << 20 };

bool ftc_scan_sends_tokens(const ftc_scan_call *call, long number)
{
    ftc_comm_t comm = call->comm;
    const int size_class = ftc_ft_token_class_within(ftc_scan_block_width(call),
                                                     FTC_SCAN_KEPT_BYTES);
    const long class_calls = ++comm->scan->class_calls[size_class];
    return FTC_FT_SURVIVES && comm->size > 2
           && ftc_ft_sends_tokens(number, size_class, class_calls);
}

/* The report names S up to this rank: the ranks after it do not make its
 * result, and a rank of the chain completes knowing nothing of them. */
int ftc_scan_run(const ftc_scan_call *call)
{
    const int rc = ftc_scan_chain(call);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_report_below(call->comm, call->comm->rank + 1);
    return rc;
}

/* Two slots: P_i-1 as it arrives, and an exscan's P_i. */
int ftc_scan_reserve(const ftc_scan_call *call)
{
    struct ftc_scan_state *s = call->comm->scan;
    const size_t bytes = 2 * ftc_scan_block_bytes(call);
    return ftc_ensure_capacity(&s->room, &s->room_capacity, bytes > 0 ? bytes : 1);
}
