/* The engine that runs a schedule over MPI; see schedule_exec.h. */
#include "schedule_exec.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "watch.h"
#include "ftcoll.h"
#include "p2p.h"

void ftc_exec_scratch_free(ftc_exec_scratch *scratch)
{
    free(scratch->requests);
    free(scratch->statuses);
    scratch->requests = NULL;
    scratch->statuses = NULL;
    scratch->capacity = 0;
}

static int reserve(ftc_exec_scratch *scratch, int n)
{
    if (n <= scratch->capacity)
        return MPI_SUCCESS;
    MPI_Request *requests = realloc(scratch->requests, (size_t)n * sizeof(*requests));
    if (requests)
        scratch->requests = requests;
    MPI_Status *statuses = realloc(scratch->statuses, (size_t)n * sizeof(*statuses));
    if (statuses)
        scratch->statuses = statuses;
    if (!requests || !statuses)
        return ftc_fail(MPI_ERR_NO_MEM, "cannot allocate %d request slots", n);
    scratch->capacity = n;
    return MPI_SUCCESS;
}

/* A send of the own block alone, which the caller has not put in its slot. */
static bool sends_own_block_from_caller(const ftc_xfer *x, const ftc_slots *slots)
{
    return slots->own && x->kind == FTC_XFER_SEND && x->first == slots->own->slot
        && x->count == 1;
}

/* The elements of slots [first, first + n). */
static long long elements_of(const ftc_slots *slots, int first, int n)
{
    return slots->counts ? slots->before[first + n] - slots->before[first]
                         : (long long)n * slots->count;
}

/* Slots of their own sizes anywhere in the buffer: one message of a type
 * made for it (a pending transfer keeps what it needs of a freed type). */
static int spread_type(const ftc_xfer *x, const ftc_slots *slots, ftc_exec_scratch *scratch,
                       MPI_Datatype *out)
{
    if (scratch->spread_made && scratch->spread_first == x->first
        && scratch->spread_count == x->count) {
        *out = scratch->spread;
        return MPI_SUCCESS;
    }
    if (scratch->spread_made)
        MPI_Type_free(&scratch->spread);
    scratch->spread_made = false;
    int rc = MPI_Type_create_hindexed(x->count, slots->counts + x->first,
                                      slots->offsets + x->first, slots->type, &scratch->spread);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_commit(&scratch->spread);
    if (rc != MPI_SUCCESS) {
        MPI_Type_free(&scratch->spread);
        return rc;
    }
    scratch->spread_made = true;
    scratch->spread_first = x->first;
    scratch->spread_count = x->count;
    *out = scratch->spread;
    return MPI_SUCCESS;
}

static void forget_spread_type(ftc_exec_scratch *scratch)
{
    if (scratch->spread_made)
        MPI_Type_free(&scratch->spread);
    scratch->spread_made = false;
}

static int post(const ftc_xfer *x, const ftc_slots *slots, MPI_Comm comm, int tag,
                ftc_exec_scratch *scratch, MPI_Request *request)
{
    if (sends_own_block_from_caller(x, slots))
        return ftc_p2p_isend(slots->own->buf, slots->own->count, slots->own->type, x->peer, tag,
                             comm, request);
    if (slots->counts && slots->run_last[x->first] < x->first + x->count - 1) {
        MPI_Datatype spread;
        const int rc = spread_type(x, slots, scratch, &spread);
        if (rc != MPI_SUCCESS)
            return rc;
        return x->kind == FTC_XFER_RECV
            ? ftc_p2p_irecv(slots->base, 1, spread, x->peer, tag, comm, request)
            : ftc_p2p_isend(slots->base, 1, spread, x->peer, tag, comm, request);
    }
    char *where = ftc_slot(slots, x->first);
    const long long count = elements_of(slots, x->first, x->count);
    if (count > INT_MAX)
        return ftc_fail(MPI_ERR_COUNT, "a message of %lld elements exceeds INT_MAX", count);
    return x->kind == FTC_XFER_RECV
        ? ftc_p2p_irecv(where, (int)count, slots->type, x->peer, tag, comm, request)
        : ftc_p2p_isend(where, (int)count, slots->type, x->peer, tag, comm, request);
}

/* A received message must fill its slots exactly. */
static int check_received_size(const ftc_xfer *x, const ftc_slots *slots, MPI_Status *status,
                               int step, const char *what)
{
    int elements = 0;
    MPI_Get_count(status, slots->type, &elements);
    const long long expected = elements_of(slots, x->first, x->count);
    if (elements == expected)
        return MPI_SUCCESS;
    int type_size = 0;   /* a type of no bytes: every message is empty, none is wrong */
    if (MPI_Type_size(slots->type, &type_size) == MPI_SUCCESS && type_size == 0)
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_TRUNCATE,
                    "%s step %d: rank %d sent %s elements where %lld were expected: "
                    "every rank must pass the same count and type signature",
                    what, step, x->peer, elements == MPI_UNDEFINED ? "a partial number of" : "fewer",
                    expected);
}

/* MPI_Waitall (MPI_ERR_IN_STATUS, an error per status), polled, that
 * returns FTC_EXEC_INTERRUPTED as soon as `watch` says stop instead. */
static int wait_watching(int n, MPI_Request *requests, MPI_Status *statuses,
                         const ftc_exec_watch *watch)
{
    for (;;) {
        int done = 0;
        const int rc = MPI_Testall(n, requests, &done, statuses);
        if (done || rc != MPI_SUCCESS)
            return rc;
        if (watch->stop(watch->context))
            return FTC_EXEC_INTERRUPTED;
    }
}

/* After MPI_ERR_IN_STATUS, requests marked MPI_ERR_PENDING are still
 * active: finish them, so that none writes into the buffer after return.
 * Watched (`watch` not NULL), a failure interrupts: the peer of a pending
 * request may have gone to meet the survivors. */
static int finish_pending(int n, MPI_Request *requests, MPI_Status *statuses,
                          const ftc_exec_watch *watch)
{
    for (int i = 0; i < n; i++) {
        if (statuses[i].MPI_ERROR != MPI_ERR_PENDING)
            continue;
        if (!watch) {
            statuses[i].MPI_ERROR = MPI_Wait(&requests[i], &statuses[i]);
            continue;
        }
        const int rc = wait_watching(1, &requests[i], &statuses[i], watch);
        if (rc == FTC_EXEC_INTERRUPTED)
            return rc;
        if (rc != MPI_ERR_IN_STATUS)   /* else the status has its error already */
            statuses[i].MPI_ERROR = rc;
    }
    return MPI_SUCCESS;
}

/* A transfer of the step ended in a process failure (the others may still
 * be pending: a peer interrupted before it sent will never send). */
static bool step_saw_failure(int rc, int n, const MPI_Status *statuses)
{
    if (rc != MPI_ERR_IN_STATUS)
        return ftc_p2p_is_process_failure(rc);
    for (int i = 0; i < n; i++)
        if (statuses[i].MPI_ERROR != MPI_ERR_PENDING
            && ftc_p2p_is_process_failure(statuses[i].MPI_ERROR))
            return true;
    return false;
}

static int failed_step(int rc, const ftc_xfer *xfers, int n, MPI_Status *statuses, int step,
                       const char *what)
{
    for (int i = 0; i < n; i++) {
        if (rc == MPI_ERR_IN_STATUS && statuses[i].MPI_ERROR != MPI_SUCCESS
            && statuses[i].MPI_ERROR != MPI_ERR_PENDING)
            return ftc_fail_mpi(statuses[i].MPI_ERROR, "%s step %d: %s rank %d failed", what, step,
                                xfers[i].kind == FTC_XFER_RECV ? "receive from" : "send to",
                                xfers[i].peer);
    }
    return ftc_fail_mpi(rc, "%s step %d failed", what, step);
}

/* Posts every transfer of a step; one that cannot be posted is left out
 * (a null request) and reported, the others still go. */
static int post_step(const ftc_xfer *xfers, int n, const ftc_slots *slots, MPI_Comm comm,
                     int tag, ftc_exec_scratch *scratch, int step, const char *what)
{
    MPI_Request *requests = scratch->requests;
    int first_error = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int rc = post(&xfers[i], slots, comm, tag, scratch, &requests[i]);
        if (rc == MPI_SUCCESS)
            continue;
        requests[i] = MPI_REQUEST_NULL;
        if (first_error == MPI_SUCCESS)
            first_error = ftc_fail_mpi(rc, "%s step %d: posting a transfer with rank %d failed",
                                       what, step, xfers[i].peer);
    }
    return first_error;
}

/* After an interruption: no receive may write into the buffer later; a
 * send to a peer that moved on may never complete, so it is released. */
static void abandon(const ftc_xfer *xfers, int n, MPI_Request *requests)
{
    for (int i = 0; i < n; i++)
        ftc_p2p_abandon(&requests[i], xfers[i].kind == FTC_XFER_RECV);
}

static int run_step(const ftc_schedule *s, int step, const ftc_slots *slots, MPI_Comm comm,
                    int tag, ftc_exec_scratch *scratch, const char *what,
                    const ftc_exec_watch *watch)
{
    const ftc_xfer *xfers = ftc_schedule_step_xfers(s, step);
    const int n = ftc_schedule_step_size(s, step);
    ftc_watch_progress(scratch->watch, step, n > 0 ? "exchanging with" : NULL,
                       n > 0 ? xfers[0].peer : -1);
    const int posted = post_step(xfers, n, slots, comm, tag, scratch, step, what);
    const bool watching = watch != NULL;
    int rc = watching ? wait_watching(n, scratch->requests, scratch->statuses, watch)
                      : ftc_p2p_waitall(n, scratch->requests, scratch->statuses);
    /* watched, a failure interrupts: waiting for the rest of the step
     * could wait for a peer that went to meet the survivors */
    if (rc == FTC_EXEC_INTERRUPTED || (watching && step_saw_failure(rc, n, scratch->statuses))) {
        abandon(xfers, n, scratch->requests);
        return FTC_EXEC_INTERRUPTED;
    }
    if (rc == MPI_ERR_IN_STATUS
        && finish_pending(n, scratch->requests, scratch->statuses, watching ? watch : NULL)
               == FTC_EXEC_INTERRUPTED) {
        abandon(xfers, n, scratch->requests);
        return FTC_EXEC_INTERRUPTED;
    }
    if (posted != MPI_SUCCESS)
        return posted;
    if (rc != MPI_SUCCESS)
        return failed_step(rc, xfers, n, scratch->statuses, step, what);
    for (int i = 0; i < n; i++) {
        if (xfers[i].kind != FTC_XFER_RECV)
            continue;
        rc = check_received_size(&xfers[i], slots, &scratch->statuses[i], step, what);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/*
 * A failed step does not stop the schedule: the peers still expect this
 * rank's later messages (and send it theirs), so stopping here would leave
 * them waiting forever. Every step runs; the first error is returned, with
 * its message.
 */
int ftc_schedule_run(const ftc_schedule *s, const ftc_slots *slots, MPI_Comm comm, int tag,
                     ftc_exec_scratch *scratch, const char *what, const ftc_exec_watch *watch)
{
    int rc = reserve(scratch, s->max_step_xfers);
    if (rc != MPI_SUCCESS)
        return rc;
    int first_error = MPI_SUCCESS;
    char first_message[512];   /* written with first_error: no need to clear 512 bytes a call */
    for (int step = 0; step < s->nsteps; step++) {
        rc = run_step(s, step, slots, comm, tag, scratch, what, watch);
        if (rc == FTC_EXEC_INTERRUPTED) {
            forget_spread_type(scratch);
            return rc;
        }
        if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) {
            first_error = rc;
            snprintf(first_message, sizeof(first_message), "%s", ftc_error_message());
        }
    }
    forget_spread_type(scratch);
    return first_error == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail(first_error, "%s", first_message);
}
