/*
 * Pairwise alltoall, as Open MPI's pairwise (and its two_proc, the same
 * one step at two ranks): n - 1 steps; at step k each rank sends to the
 * rank k after it and receives from the rank k before it.
 *
 *   step k = 1 .. n-1, rank i:  send its block for i+k  (mod n)
 *                               receive i-k's block for it
 *                               wait for both
 *
 *     n = 3, step 1:  0 -> 1 -> 2 -> 0;   step 2:  0 -> 2 -> 1 -> 0
 *
 * One message each way per pair, so (source, tag) names the message. A
 * step's block counts once its receive completed whole; a failure
 * abandons the step's requests (the receive cancelled, the send released)
 * and stops.
 *
 * Cost: (n - 1) (alpha + m beta), m the block's bytes: one block in flight
 * each way at a time, which large blocks need to keep the network's
 * queues short.
 */
#include "algorithms.h"

/* Step k: its receive and its send, waited for together. */
static int step(ftc_alltoall_flow *f, int k, MPI_Request *r)
{
    const int to = (f->me + k) % f->n, from = (f->me - k + f->n) % f->n;
    r[0] = r[1] = MPI_REQUEST_NULL;
    int rc = ftc_alltoall_post_receive(f, from, &r[0]);
    if (rc == MPI_SUCCESS)
        rc = ftc_alltoall_post_send(f, to, &r[1]);
    if (rc == MPI_SUCCESS)
        rc = ftc_alltoall_wait_receive_and_send(f, from, r);
    if (rc != MPI_SUCCESS)
        ftc_alltoall_abandon(r, 1, 1);
    return rc;
}

int ftc_alltoall_pairwise(ftc_alltoall_flow *f)
{
    int rc = MPI_SUCCESS;
    for (int k = 1; rc == MPI_SUCCESS && k < f->n; k++)
        rc = step(f, k, f->a->requests);
    return rc;
}
