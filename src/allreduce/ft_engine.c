/*
 * Fault-tolerant allreduce, execution: recursive doubling among the
 * participants (recursive_doubling.h), today over all ranks of the
 * communicator (round 0 of docs/ft-allreduce.md).
 *
 * Failure detection (ULFM): each call posts one "sentinel", a wildcard
 * receive with a tag nobody sends. ULFM fails it on every survivor soon
 * after any rank dies, also on ranks waiting for a live peer, so every wait
 * of the call includes it: a failure ends the call everywhere within
 * milliseconds, with no per-step agreement. Recovery over the survivors'
 * holdings (recovery.h) is the next step; today the call reports
 * MPIX_ERR_PROC_FAILED.
 */
#include "ft_engine.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../error.h"
#include "../inject.h"
#include "../p2p.h"
#include "recursive_doubling.h"

#ifdef FTCOLL_HAVE_ULFM
#define MPIX_ERR_PROC_FAILED_OR_ERR_OTHER MPIX_ERR_PROC_FAILED
#else
#define MPIX_ERR_PROC_FAILED_OR_ERR_OTHER MPI_ERR_OTHER   /* unreachable without ULFM */
#endif

/* One call's state: two value buffers swapped as partners combine. */
typedef struct {
    ftc_comm_t comm;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    size_t bytes;
    char *current;        /* this rank's value so far */
    char *incoming;       /* where the partner's value arrives */
    int tag;
    MPI_Request sentinel; /* MPI_REQUEST_NULL without ULFM */
    long number;          /* this call's number on the communicator, from 1 */
    int step;             /* where the engine is, for FTCOLL_INJECT */
} call;

/* FTCOLL_INJECT: die here if told to (a real SIGKILL; see inject.h). */
static void die_if_injected(const call *c, ftc_inject_when when)
{
    if (c->comm->inject.count > 0
        && ftc_inject_matches(&c->comm->inject, c->comm->rank, c->number, 0, c->step, when))
        raise(SIGKILL);
}

/* "after-send" means the peer has the data: wait for the send to finish. */
static void die_after_send_if_injected(const call *c, MPI_Request *send)
{
    if (c->comm->inject.count > 0
        && ftc_inject_matches(&c->comm->inject, c->comm->rank, c->number, 0, c->step,
                              FTC_INJECT_AFTER_SEND)) {
        MPI_Wait(send, MPI_STATUS_IGNORE);
        raise(SIGKILL);
    }
}

static int tag_of_call(ftc_comm_t comm)
{
    const long seq = comm->allreduce_calls++;
    return FTC_TAG_ALLREDUCE_BASE + (int)(seq % FTC_TAG_ALLREDUCE_WINDOW);
}

static int ensure_scratch(ftc_comm_t comm, size_t bytes)
{
    if (bytes <= comm->scratch_size)
        return MPI_SUCCESS;
    char *bigger = realloc(comm->scratch, bytes);
    if (!bigger)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: cannot allocate %zu bytes", bytes);
    comm->scratch = bigger;
    comm->scratch_size = bytes;
    return MPI_SUCCESS;
}

static void post_sentinel(call *c)
{
    static char nothing;
    c->sentinel = MPI_REQUEST_NULL;
#ifdef FTCOLL_HAVE_ULFM
    if (MPI_Irecv(&nothing, 0, MPI_BYTE, MPI_ANY_SOURCE, FTC_TAG_SENTINEL, c->comm->comm,
                  &c->sentinel) != MPI_SUCCESS)
        c->sentinel = MPI_REQUEST_NULL;
#else
    (void)nothing;
#endif
}

static void retire_sentinel(call *c)
{
    if (c->sentinel == MPI_REQUEST_NULL)
        return;
    MPI_Cancel(&c->sentinel);
    MPI_Wait(&c->sentinel, MPI_STATUS_IGNORE);
}

/* Cancels or releases what a failed exchange left in flight: a receive must
 * not write into the caller's buffer later; a send to a stalled peer may
 * never complete, so it is released (its tag is never used again soon). */
static void abandon(MPI_Request *requests, const bool *is_receive, int n)
{
    for (int i = 0; i < n; i++) {
        if (requests[i] == MPI_REQUEST_NULL)
            continue;
        if (is_receive[i]) {
            MPI_Cancel(&requests[i]);
            MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
        } else {
            MPI_Request_free(&requests[i]);
        }
    }
}

static int failure(call *c, int rc, const char *what, int peer)
{
#ifdef FTCOLL_HAVE_ULFM
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    if (error_class == MPIX_ERR_PROC_FAILED || error_class == MPIX_ERR_PROC_FAILED_PENDING
        || error_class == MPIX_ERR_REVOKED) {
        int acked;
        /* Known failures must not fail later wildcard receives again. */
        MPIX_Comm_ack_failed(c->comm->comm, c->comm->size, &acked);
        c->comm->lost_a_rank = true;
        return ftc_fail(MPIX_ERR_PROC_FAILED, "ftc_allreduce: a process failed during the call "
                        "(%s rank %d); finishing on the survivors is not implemented yet", what,
                        peer);
    }
#endif
    (void)c;
    return ftc_fail_mpi(rc, "ftc_allreduce: %s rank %d failed", what, peer);
}

/*
 * Waits for a step's requests (receive first, then send; either may be
 * MPI_REQUEST_NULL) together with the sentinel.
 */
static int wait_step(call *c, MPI_Request *step, const bool *is_receive, int n, int peer)
{
    MPI_Request all[3];
    int pending = 0;
    for (int i = 0; i < n; i++) {
        all[i] = step[i];
        pending += step[i] != MPI_REQUEST_NULL;
    }
    all[n] = c->sentinel;
    while (pending > 0) {
        int index = MPI_UNDEFINED;
        MPI_Status status;
        const int rc = MPI_Waitany(n + 1, all, &index, &status);
        if (rc != MPI_SUCCESS) {
            for (int i = 0; i < n; i++)
                step[i] = all[i];
            c->sentinel = all[n];
            abandon(step, is_receive, n);
            return failure(c, rc, index == n ? "while waiting for" : "exchanging with", peer);
        }
        if (index == n) {   /* someone sent on the sentinel's tag: not ftcoll */
            abandon(step, is_receive, n);
            return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a message arrived on ftcoll's "
                                            "private sentinel tag");
        }
        if (index == MPI_UNDEFINED)
            break;
        pending--;
    }
    return MPI_SUCCESS;
}

static int send_value(call *c, const void *value, int to)
{
    MPI_Request r[1];
    const bool receive[1] = { false };
    die_if_injected(c, FTC_INJECT_BEFORE_SEND);
    int rc = ftc_p2p_isend(value, c->count, c->type, to, c->tag, c->comm->comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return failure(c, rc, "sending to", to);
    die_after_send_if_injected(c, &r[0]);
    return wait_step(c, r, receive, 1, to);
}

static int receive_value(call *c, void *into, int from)
{
    MPI_Request r[1];
    const bool receive[1] = { true };
    int rc = ftc_p2p_irecv(into, c->count, c->type, from, c->tag, c->comm->comm, &r[0]);
    return rc != MPI_SUCCESS ? failure(c, rc, "receiving from", from)
                             : wait_step(c, r, receive, 1, from);
}

static int exchange_values(call *c, int partner)
{
    MPI_Request r[2];
    const bool receive[2] = { true, false };
    int rc = ftc_p2p_irecv(c->incoming, c->count, c->type, partner, c->tag, c->comm->comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return failure(c, rc, "receiving from", partner);
    die_if_injected(c, FTC_INJECT_BEFORE_SEND);
    rc = ftc_p2p_isend(c->current, c->count, c->type, partner, c->tag, c->comm->comm, &r[1]);
    if (rc != MPI_SUCCESS) {
        abandon(r, receive, 1);
        return failure(c, rc, "sending to", partner);
    }
    die_after_send_if_injected(c, &r[1]);
    return wait_step(c, r, receive, 2, partner);
}

/*
 * Combines the partner's value (in `incoming`) into this rank's, always as
 * op(lower rank's value, higher rank's value), so that both partners compute
 * the same bits. MPI_Reduce_local(in, inout) computes inout = in op inout.
 */
static void combine(call *c, bool partner_is_higher)
{
    if (partner_is_higher) {
        MPI_Reduce_local(c->current, c->incoming, c->count, c->type, c->op);
        char *swap = c->current;
        c->current = c->incoming;
        c->incoming = swap;
    } else {
        MPI_Reduce_local(c->incoming, c->current, c->count, c->type, c->op);
    }
}

static int run_recursive_doubling(call *c, int me, int n)
{
    const int actives = ftc_rd_actives(n), fold = ftc_rd_fold_partner(me, n);
    int rc = MPI_SUCCESS;
    if (me >= actives) {             /* a spare: hand over, get the result back */
        c->step = FTC_INJECT_STEP_FOLD_IN;
        rc = send_value(c, c->current, fold);
        c->step = FTC_INJECT_STEP_FOLD_OUT;
        return rc == MPI_SUCCESS ? receive_value(c, c->current, fold) : rc;
    }
    if (fold >= 0) {
        c->step = FTC_INJECT_STEP_FOLD_IN;
        die_if_injected(c, FTC_INJECT_BEFORE_SEND);   /* an active sends nothing here */
        rc = receive_value(c, c->incoming, fold);
        if (rc == MPI_SUCCESS)
            combine(c, true);
    }
    for (int step = 0; rc == MPI_SUCCESS && step < ftc_rd_steps(n); step++) {
        const int partner = ftc_rd_partner(me, step);
        c->step = step;
        rc = exchange_values(c, partner);
        if (rc == MPI_SUCCESS)
            combine(c, partner > me);
    }
    if (rc == MPI_SUCCESS && fold >= 0) {
        c->step = FTC_INJECT_STEP_FOLD_OUT;
        rc = send_value(c, c->current, fold);
    }
    return rc;
}

int ftc_ft_allreduce_run(ftc_comm_t comm, void *value, int count, MPI_Datatype type, MPI_Op op)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    const size_t bytes = (size_t)extent * (size_t)count;
    int rc = ensure_scratch(comm, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->lost_a_rank)
        return ftc_fail(MPIX_ERR_PROC_FAILED_OR_ERR_OTHER, "ftc_allreduce: this communicator lost "
                        "a rank in an earlier call; finishing on the survivors is not "
                        "implemented yet");
    const int tag = tag_of_call(comm);   /* counts the call: number below is its count */
    call c = { .comm = comm, .count = count, .type = type, .op = op, .bytes = bytes,
               .current = value, .incoming = comm->scratch, .number = comm->allreduce_calls,
               .tag = tag };
    post_sentinel(&c);
    rc = run_recursive_doubling(&c, comm->rank, comm->size);
    retire_sentinel(&c);
    if (rc == MPI_SUCCESS && c.current != (char *)value && bytes > 0)
        memcpy(value, c.current, bytes);   /* value may be NULL when count is 0 */
    return rc;
}
