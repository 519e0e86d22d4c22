/*
 * Linear alltoall, as Open MPI's basic linear (and its linear_sync, which
 * posts every request at once unless told otherwise): every receive and
 * every send posted at once, then waited for.
 *
 *   rank i:  receive from i+1, i+2, .. i+n-1   (mod n, into its column)
 *            send    to   i-1, i-2, .. i-n+1   (from its row)
 *            wait: each receive in that order, then the sends
 *
 *     0: [a0 a1 a2]   1: [b0 b1 b2]   2: [c0 c1 c2]
 *       ->  0: [a0 b0 c0]   1: [a1 b1 c1]   2: [a2 b2 c2]
 *
 * Each pair of ranks exchanges one message each way, so (source, tag)
 * names the message. A rank counts a block only once its own receive
 * completed whole, in that order; a failure abandons every request still
 * pending (receives cancelled, sends released).
 *
 * Cost: (n - 1) messages each way per rank, all in flight together:
 * about alpha + (n - 1) m beta when the network takes them in parallel,
 * m the block's bytes.
 */
#include "algorithms.h"

int ftc_alltoall_linear(ftc_alltoall_flow *f)
{
    const int others = f->n - 1;
    MPI_Request *receives = f->a->requests, *sends = receives + others;
    int rc = MPI_SUCCESS;
    for (int j = 0; j < others; j++)
        receives[j] = sends[j] = MPI_REQUEST_NULL;
    for (int j = 1; rc == MPI_SUCCESS && j <= others; j++)
        rc = ftc_alltoall_post_receive(f, (f->me + j) % f->n, &receives[j - 1]);
    for (int j = 1; rc == MPI_SUCCESS && j <= others; j++)
        rc = ftc_alltoall_post_send(f, (f->me - j + f->n) % f->n, &sends[j - 1]);
    for (int j = 1; rc == MPI_SUCCESS && j <= others; j++)
        rc = ftc_alltoall_wait_receive(f, (f->me + j) % f->n, &receives[j - 1]);
    if (rc == MPI_SUCCESS)
        rc = ftc_alltoall_wait_sends(f, sends, others, (f->me - 1 + f->n) % f->n);
    if (rc != MPI_SUCCESS)
        ftc_alltoall_abandon(receives, others, others);
    return rc;
}
