#include "schedule_exec.h"

#include <stdlib.h>

#include "error.h"
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

static int post(const ftc_xfer *x, const ftc_slots *slots, MPI_Comm comm, int tag,
                MPI_Request *request)
{
    char *where = ftc_slot(slots, x->first);
    const int count = x->count * slots->count;
    return x->kind == FTC_XFER_RECV
        ? ftc_p2p_irecv(where, count, slots->type, x->peer, tag, comm, request)
        : ftc_p2p_isend(where, count, slots->type, x->peer, tag, comm, request);
}

/* A received message must fill its slots exactly. */
static int check_received_size(const ftc_xfer *x, const ftc_slots *slots, MPI_Status *status,
                               int step, const char *what)
{
    int elements = 0;
    MPI_Get_count(status, slots->type, &elements);
    const int expected = x->count * slots->count;
    if (elements == expected)
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_TRUNCATE,
                    "%s step %d: rank %d sent %s elements where %d were expected: "
                    "every rank must pass the same count and type signature",
                    what, step, x->peer, elements == MPI_UNDEFINED ? "a partial number of" : "fewer",
                    expected);
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

static int run_step(const ftc_schedule *s, int step, const ftc_slots *slots, MPI_Comm comm,
                    int tag, ftc_exec_scratch *scratch, const char *what)
{
    const ftc_xfer *xfers = ftc_schedule_step_xfers(s, step);
    const int n = ftc_schedule_step_size(s, step);
    for (int i = 0; i < n; i++) {
        int rc = post(&xfers[i], slots, comm, tag, &scratch->requests[i]);
        if (rc != MPI_SUCCESS) {
            /* Let what was already posted finish before reporting. */
            ftc_p2p_waitall(i, scratch->requests, MPI_STATUSES_IGNORE);
            return ftc_fail_mpi(rc, "%s step %d: posting a transfer with rank %d failed", what,
                                step, xfers[i].peer);
        }
    }
    int rc = ftc_p2p_waitall(n, scratch->requests, scratch->statuses);
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

int ftc_schedule_run(const ftc_schedule *s, const ftc_slots *slots, MPI_Comm comm, int tag,
                     ftc_exec_scratch *scratch, const char *what)
{
    int rc = reserve(scratch, s->max_step_xfers);
    for (int step = 0; rc == MPI_SUCCESS && step < s->nsteps; step++)
        rc = run_step(s, step, slots, comm, tag, scratch, what);
    return rc;
}
