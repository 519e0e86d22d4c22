/*
 * The check-in over MPI: non-blocking messages along the tree of
 * checkin_tree.h, polled against MPI_Wtime so that no wait is unbounded.
 *
 *   arrive (t0) --post receives: one per child (UP), the decision (DOWN)
 *       |
 *   children window: until every child reported or t0 + h x T;
 *       a child not heard from becomes a "silent" entry
 *       |
 *   rank 0: decide             others: send the merged record UP, wait
 *       |                          for the decision until t0 + 1.2 (H+1) T
 *   pass the decision DOWN to the children
 *       |
 *   GO / STOP: return          ABORT: rank 0 prints the diagnosis; MPI_Abort
 *
 * T (the latecomer window) = timeout / (1.2 (H + 1)): a rank waits for the
 * decision at most `timeout` seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "../abort.h"
#include "guard.h"
#include "state.h"
#include "checkin_tree.h"

typedef struct {
    ftc_comm_t comm;
    const int *live;            /* tree position -> rank */
    int n;                      /* ranks in the tree */
    const ftc_guard_node *node; /* the communicator's, computed once */
    double arrived;             /* MPI_Wtime */
    double latecomer;           /* T */
    double timeout;
    ftc_guarded_kind kind;      /* what this rank checks in before */
} checkin;

static int rank_of(const checkin *k, int position)
{
    return k->live[position];
}

/* Polls `requests` until all completed or MPI_Wtime passes `until`;
 * done[i] says which did. */
static int poll_until(int n, MPI_Request *requests, MPI_Status *statuses, int *done, double until)
{
    int left = 0;
    for (int i = 0; i < n; i++)
        left += !done[i];
    while (left > 0) {
        for (int i = 0; i < n; i++) {
            if (done[i])
                continue;
            int flag = 0;
            const int rc = MPI_Test(&requests[i], &flag, &statuses[i]);
            if (rc != MPI_SUCCESS)
                return rc;
            if (flag) {
                done[i] = 1;
                left--;
            }
        }
        if (left > 0 && MPI_Wtime() > until)
            break;
    }
    return MPI_SUCCESS;
}

static int received_bytes(MPI_Status *status)
{
    int bytes = 0;
    MPI_Get_count(status, MPI_BYTE, &bytes);
    return bytes;
}

static int malformed(int from)
{
    return ftc_fail(MPI_ERR_INTERN, "guard check-in: a malformed report from rank %d", from);
}

/* Children's reports, each merged into `record` or named silent. */
static int gather_children(checkin *k, ftc_guard_record *record)
{
    const int nc = k->node->nchildren;
    if (nc == 0)
        return MPI_SUCCESS;
    ftc_guard_state *g = k->comm->guard;
    MPI_Request requests[FTC_GUARD_MAX_CHILDREN];
    MPI_Status statuses[FTC_GUARD_MAX_CHILDREN];
    int done[FTC_GUARD_MAX_CHILDREN] = { 0 };
    for (int i = 0; i < nc; i++) {
        const int rc = ftc_p2p_irecv(&g->received[i], (int)sizeof(ftc_guard_record), MPI_BYTE,
                                     rank_of(k, k->node->children[i]), FTC_TAG_GUARD_UP,
                                     k->comm->comm, &requests[i]);
        if (rc != MPI_SUCCESS) {
            for (int j = 0; j < i; j++)
                ftc_p2p_abandon(&requests[j], true);
            return ftc_fail_mpi(rc, "guard check-in: posting a receive failed");
        }
    }
    const double until = k->arrived + ftc_guard_children_window(k->node, k->latecomer);
    int rc = poll_until(nc, requests, statuses, done, until);
    for (int i = 0; i < nc; i++) {
        const int child = rank_of(k, k->node->children[i]);
        if (!done[i]) {
            ftc_p2p_abandon(&requests[i], true);
            ftc_guard_record_add_silent(record, child);
        } else if (rc == MPI_SUCCESS) {
            if (!ftc_guard_record_valid(&g->received[i], (size_t)received_bytes(&statuses[i])))
                rc = malformed(child);
            else
                ftc_guard_record_merge(record, &g->received[i], child);
        }
    }
    return rc == MPI_SUCCESS || rc == MPI_ERR_INTERN
        ? rc : ftc_fail_mpi(rc, "guard check-in: receiving a child's report failed");
}

static _Noreturn void abort_without_decision(const checkin *k)
{
    char diagnosis[512];
    snprintf(diagnosis, sizeof(diagnosis),
             "ftcoll guard: rank %d got no decision from rank 0 (by way of rank %d) within "
             "%.3g s in the check-in before %s: aborting the job",
             k->comm->rank, rank_of(k, k->node->parent), k->timeout,
             ftc_guarded_name(k->kind));
    ftc_abort_job_staggered(k->comm->rank, 0, diagnosis);   /* others may give up too */
}

/* Sends the merged record up and waits for the decision. */
static int ask_parent(checkin *k, ftc_guard_record *record)
{
    const int parent = rank_of(k, k->node->parent);
    ftc_guard_record *decision = &k->comm->guard->decided;
    MPI_Request requests[2];
    MPI_Status statuses[2];
    int done[2] = { 0, 0 };
    int rc = ftc_p2p_irecv(decision, (int)sizeof(*decision), MPI_BYTE, parent,
                           FTC_TAG_GUARD_DOWN, k->comm->comm, &requests[0]);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "guard check-in: posting the decision's receive failed");
    rc = ftc_p2p_isend(record, (int)ftc_guard_record_bytes(record), MPI_BYTE, parent,
                       FTC_TAG_GUARD_UP, k->comm->comm, &requests[1]);
    if (rc != MPI_SUCCESS) {
        ftc_p2p_abandon(&requests[0], true);
        return ftc_fail_mpi(rc, "guard check-in: sending the report to rank %d failed", parent);
    }
    const double until = k->arrived + ftc_guard_decision_window(k->n, k->latecomer);
    rc = poll_until(2, requests, statuses, done, until);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "guard check-in: waiting for rank %d failed", parent);
    if (!done[0] || !done[1])
        abort_without_decision(k);
    if (!ftc_guard_record_valid(decision, (size_t)received_bytes(&statuses[0])))
        return malformed(parent);
    memcpy(record, decision, ftc_guard_record_bytes(decision));   /* header + entries used */
    return MPI_SUCCESS;
}

/* Passes the decision to the children. A child that was silent may never
 * take it: those sends are released, not waited for (the job aborts). */
static int tell_children(checkin *k, const ftc_guard_record *record)
{
    const int nc = k->node->nchildren;
    MPI_Request requests[FTC_GUARD_MAX_CHILDREN];
    MPI_Status statuses[FTC_GUARD_MAX_CHILDREN];
    int done[FTC_GUARD_MAX_CHILDREN] = { 0 };
    for (int i = 0; i < nc; i++) {
        const int rc = ftc_p2p_isend(record, (int)ftc_guard_record_bytes(record), MPI_BYTE,
                                     rank_of(k, k->node->children[i]), FTC_TAG_GUARD_DOWN,
                                     k->comm->comm, &requests[i]);
        if (rc != MPI_SUCCESS) {
            requests[i] = MPI_REQUEST_NULL;
            done[i] = 1;
        }
    }
    if (record->decision == FTC_GUARD_ABORT) {
        for (int i = 0; i < nc; i++)
            ftc_p2p_abandon(&requests[i], false);
        return MPI_SUCCESS;
    }
    /* Every child is waiting for this message: it completes at once. */
    const int rc = poll_until(nc, requests, statuses, done, MPI_Wtime() + k->timeout);
    for (int i = 0; i < nc; i++)
        if (!done[i])
            ftc_p2p_abandon(&requests[i], false);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "guard check-in: passing the decision failed");
}

static int prepare(ftc_comm_t c, checkin *k)
{
    ftc_guard_state *g = c->guard;
    k->comm = c;
    k->live = ftc_ft_live_ranks(c->ft);
    k->n = ftc_ft_live_count(c->ft);
    const int position = ftc_ft_live_index(c->ft);
    if (g->node_ranks != k->n || g->node_position != position) {
        ftc_guard_node_of(position, k->n, &g->node);   /* O(p) at rank 0: once */
        g->node_ranks = k->n;
        g->node_position = position;
    }
    k->node = &g->node;
    k->arrived = MPI_Wtime();
    k->timeout = ftc_guard_effective_timeout(&g->settings, k->arrived - g->settings_at);
    k->latecomer = k->timeout / (1.2 * (ftc_guard_tree_height(k->n) + 1));
    if (k->node->nchildren > 0 && !g->received) {
        g->received = malloc(sizeof(ftc_guard_record) * FTC_GUARD_MAX_CHILDREN);
        if (!g->received)
            return ftc_fail(MPI_ERR_NO_MEM, "guard check-in: out of memory");
    }
    return MPI_SUCCESS;
}

static void print_diagnosis(const checkin *k, const ftc_guard_record *record)
{
    char diagnosis[2048];
    ftc_guard_format_abort(record, k->live, k->n, k->latecomer, diagnosis, sizeof(diagnosis));
    fprintf(stderr, "%s\n", diagnosis);
    fflush(stderr);
}

/* The ranks rank 0 did not hear from answer no message: those on this host
 * are ended here, then MPI_Abort ends the job. */
static _Noreturn void abort_unheard(checkin *k, const ftc_guard_record *record)
{
    int *unheard = malloc(sizeof(int) * (size_t)k->n);
    if (unheard) {
        ftc_guard_kill_local(k->comm, unheard, ftc_guard_unheard(record, k->live, k->n, unheard));
        free(unheard);
    }
    ftc_abort_job(NULL);
}

int ftc_guard_checkin(ftc_comm_t c, ftc_guard_record *record)
{
    checkin k;
    int rc = prepare(c, &k);
    k.kind = (ftc_guarded_kind)record->kind;
    if (rc == MPI_SUCCESS)
        rc = gather_children(&k, record);
    if (rc != MPI_SUCCESS)
        return rc;
    if (k.node->parent < 0) {
        ftc_guard_record_add_mismatches(record);
        record->decision = ftc_guard_decide(record);
    } else {
        rc = ask_parent(&k, record);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (record->decision == FTC_GUARD_ABORT && k.node->parent < 0)
        print_diagnosis(&k, record);
    rc = tell_children(&k, record);
    if (record->decision == FTC_GUARD_ABORT && k.node->parent < 0)
        abort_unheard(&k, record);
    /* Rank 0 aborts the job; under Open MPI's fault-tolerant runtime that
     * may end rank 0 only, so every rank told leaves by itself too. */
    if (record->decision == FTC_GUARD_ABORT)
        ftc_abort_job_staggered(c->rank, 0.2, NULL);
    return rc;
}
