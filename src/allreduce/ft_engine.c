/*
 * Fault-tolerant allreduce, execution: recursive doubling over the live
 * ranks (recursive_doubling.h); recovery rounds in ft_recovery.c.
 *
 *   call:  round 0   recursive doubling over the live ranks, as if no rank
 *                    could fail: no agreement, no extra message per step
 *          failure   every survivor learns of it within milliseconds (the
 *                    sentinel below) and notes what its value holds
 *          round 1.. agree on the failed ranks, exchange holdings, plan,
 *                    masters reduce, hand-out (ft_recovery.c); again if a
 *                    rank dies meanwhile
 *          return    the result, S, the failed ranks; the result is kept
 *                    for ranks that may still need it (late recovery)
 *
 * Failure detection (ULFM): each call posts one "sentinel", a wildcard
 * receive with a tag nobody sends. ULFM fails it on every survivor soon
 * after any rank dies (at once if posted after an unacknowledged death),
 * also on ranks waiting for a live peer, so every wait includes it: a
 * failure stops round 0 everywhere, with no per-step agreement. Once the
 * survivors have acknowledged the failure (in the recovery's agreement) the
 * sentinel waits again, for the next one; the call cancels it on return.
 */
#include "ft_engine.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"
#include "ft_call.h"

static const ftc_injection *injected(const ftc_ft_call *c, ftc_inject_when when)
{
    return c->comm->inject.count > 0
        ? ftc_inject_matches(&c->comm->inject, c->comm->rank, c->number, c->round, c->step, when)
        : NULL;
}

/* A busy loop that never ends: the hang the watchdog exists for. */
static _Noreturn void spin_forever(const ftc_ft_call *c)
{
    ftc_watch_progress(&c->comm->guard.watch, c->step, "spinning (FTCOLL_INJECT) instead of "
                       "sending", -1);
    volatile unsigned long spins = 0;
    for (;;)
        spins++;
}

static void act(const ftc_ft_call *c, const ftc_injection *what, MPI_Request *send)
{
    if (what->action == FTC_INJECT_SPIN)
        spin_forever(c);
    if (send)   /* "after-send" means the peer has the data */
        MPI_Wait(send, MPI_STATUS_IGNORE);
    raise(SIGKILL);
}

void ftc_ft_die_if_injected(const ftc_ft_call *c, ftc_inject_when when)
{
    const ftc_injection *what = injected(c, when);
    if (what)
        act(c, what, NULL);
}

static void die_after_send_if_injected(const ftc_ft_call *c, MPI_Request *send)
{
    const ftc_injection *what = injected(c, FTC_INJECT_AFTER_SEND);
    if (what)
        act(c, what, send);
}

static int tag_of_call(long number)
{
    return FTC_TAG_ALLREDUCE_BASE + (int)(number % FTC_TAG_ALLREDUCE_WINDOW);
}

/* ---- waiting, with failure detection ------------------------------------ */

/* Cancels or releases what a failed exchange left in flight: a receive must
 * not write into the buffer later; a send to a stalled peer may never
 * complete, so it is released (its tag is never used again soon). */
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

/* The error class for "a rank failed": ULFM's, or MPI_ERR_OTHER without it
 * (where no rank outlives a failure to see it). */
static int process_failed_class(void)
{
#ifdef FTCOLL_HAVE_ULFM
    return MPIX_ERR_PROC_FAILED;
#else
    return MPI_ERR_OTHER;
#endif
}

static bool is_process_failure(int rc)
{
#ifdef FTCOLL_HAVE_ULFM
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    return error_class == MPIX_ERR_PROC_FAILED || error_class == MPIX_ERR_PROC_FAILED_PENDING
        || error_class == MPIX_ERR_REVOKED;
#else
    (void)rc;
    return false;
#endif
}

static int failure(ftc_ft_call *c, int rc, const char *what, int peer)
{
    if (is_process_failure(rc)) {
        if (c->detected_at == 0)
            c->detected_at = MPI_Wtime();
        return FTC_DETECTED;
    }
    return ftc_fail_mpi(rc, "ftc_allreduce: %s rank %d failed", what, peer);
}

static void post_sentinel(ftc_comm_t comm);

int ftc_ft_wait(ftc_ft_call *c, MPI_Request *requests, const bool *is_receive, int n,
                const char *what, int peer)
{
    MPI_Request all[3];
    ftc_watch_progress(&c->comm->guard.watch, c->step, what, peer);
    post_sentinel(c->comm);   /* once per call, or again after it completed */
    int pending = 0;
    for (int i = 0; i < n; i++) {
        all[i] = requests[i];
        pending += requests[i] != MPI_REQUEST_NULL;
    }
    all[n] = c->comm->ft.sentinel;
    while (pending > 0) {
        int index = MPI_UNDEFINED;
        const int rc = MPI_Waitany(n + 1, all, &index, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || index == n) {
            memcpy(requests, all, sizeof(MPI_Request) * (size_t)n);
            c->comm->ft.sentinel = all[n];
            abandon(requests, is_receive, n);
            if (rc == MPI_SUCCESS)   /* someone sent on the sentinel's tag: not ftcoll */
                return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a message arrived on ftcoll's "
                                                "private sentinel tag");
            return failure(c, rc, what, peer);
        }
        if (index == MPI_UNDEFINED)
            break;
        pending--;
    }
    return MPI_SUCCESS;
}

int ftc_ft_send(ftc_ft_call *c, const void *value, int to)
{
    MPI_Request r[1];
    const bool receive[1] = { false };
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND);
    int rc = ftc_p2p_isend(value, c->count, c->type, to, c->tag, c->comm->comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return failure(c, rc, "sending to", to);
    die_after_send_if_injected(c, &r[0]);
    return ftc_ft_wait(c, r, receive, 1, "sending to", to);
}

int ftc_ft_receive(ftc_ft_call *c, void *into, int from)
{
    MPI_Request r[1];
    const bool receive[1] = { true };
    int rc = ftc_p2p_irecv(into, c->count, c->type, from, c->tag, c->comm->comm, &r[0]);
    return rc != MPI_SUCCESS ? failure(c, rc, "receiving from", from)
                             : ftc_ft_wait(c, r, receive, 1, "receiving from", from);
}

static int exchange_values(ftc_ft_call *c, int partner)
{
    MPI_Request r[2];
    const bool receive[2] = { true, false };
    int rc = ftc_p2p_irecv(c->incoming, c->count, c->type, partner, c->tag, c->comm->comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return failure(c, rc, "receiving from", partner);
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND);
    rc = ftc_p2p_isend(c->current, c->count, c->type, partner, c->tag, c->comm->comm, &r[1]);
    if (rc != MPI_SUCCESS) {
        abandon(r, receive, 1);
        return failure(c, rc, "sending to", partner);
    }
    die_after_send_if_injected(c, &r[1]);
    return ftc_ft_wait(c, r, receive, 2, "exchanging with", partner);
}

/* ---- recursive doubling over a group -------------------------------------- */

/*
 * Combines the partner's value (in `incoming`) into this rank's, always as
 * op(lower rank's value, higher rank's value), so that both partners compute
 * the same bits. MPI_Reduce_local(in, inout) computes inout = in op inout.
 */
static void combine(ftc_ft_call *c, bool partner_is_higher)
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

static int run_as_spare(ftc_ft_call *c, int fold)
{
    ftc_ft_group *g = &c->group;
    c->step = FTC_INJECT_STEP_FOLD_IN;
    int rc = ftc_ft_send(c, c->current, g->ranks[fold]);
    if (rc != MPI_SUCCESS)
        return rc;
    g->progress.folded = true;
    c->step = FTC_INJECT_STEP_FOLD_OUT;
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND);   /* a spare sends nothing here */
    rc = ftc_ft_receive(c, c->current, g->ranks[fold]);
    g->progress.complete = rc == MPI_SUCCESS;
    return rc;
}

int ftc_ft_run_group(ftc_ft_call *c)
{
    ftc_ft_group *g = &c->group;
    const int actives = ftc_rd_actives(g->n), fold = ftc_rd_fold_partner(g->me, g->n);
    g->progress = (ftc_rd_progress){ 0 };
    if (g->me >= actives)
        return run_as_spare(c, fold);
    int rc = MPI_SUCCESS;
    if (fold >= 0) {
        c->step = FTC_INJECT_STEP_FOLD_IN;
        ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND);   /* an active sends nothing here */
        rc = ftc_ft_receive(c, c->incoming, g->ranks[fold]);
        if (rc != MPI_SUCCESS)
            return rc;
        combine(c, true);
        g->progress.folded = true;
    }
    for (int step = 0; step < ftc_rd_steps(g->n); step++) {
        const int partner = ftc_rd_partner(g->me, step);
        c->step = step;
        rc = exchange_values(c, g->ranks[partner]);
        if (rc != MPI_SUCCESS)
            return rc;
        combine(c, partner > g->me);
        g->progress.steps_done = step + 1;
    }
    g->progress.complete = true;
    if (fold >= 0) {
        c->step = FTC_INJECT_STEP_FOLD_OUT;
        rc = ftc_ft_send(c, c->current, g->ranks[fold]);
    }
    return rc;
}

void ftc_ft_note_holdings(ftc_ft_call *c)
{
    const ftc_ft_group *g = &c->group;
    ftc_rd_holdings(&c->held, g->me, g->n, &g->progress, g->ranks, g->start);
    c->have_held = true;
}

/* ---- the communicator's state --------------------------------------------- */

static void post_sentinel(ftc_comm_t comm)
{
#ifdef FTCOLL_HAVE_ULFM
    static char nothing;
    if (comm->ft.sentinel == MPI_REQUEST_NULL
        && MPI_Irecv(&nothing, 0, MPI_BYTE, MPI_ANY_SOURCE, FTC_TAG_SENTINEL, comm->comm,
                     &comm->ft.sentinel) != MPI_SUCCESS)
        comm->ft.sentinel = MPI_REQUEST_NULL;
#else
    (void)comm;
#endif
}

void ftc_ft_update_live(ftc_comm_t comm)
{
    ftc_ft_state *ft = &comm->ft;
    ft->nlive = 0;
    ftc_holdings_clear(&ft->live_held);
    for (int r = 0; r < comm->size; r++) {
        if (!ft->alive[r])
            continue;
        if (r == comm->rank)
            ft->live_index = ft->nlive;
        ft->live[ft->nlive++] = r;
        ftc_holdings_add(&ft->live_held, r);
    }
}

/* A posted wildcard receive slows the matching of every message on the
 * communicator (about 10% on an allgather, measured): the sentinel is
 * there only while an allreduce, or a watched collective, runs. */
static void retire_sentinel(ftc_comm_t comm)
{
    if (comm->ft.sentinel == MPI_REQUEST_NULL)
        return;
    MPI_Cancel(&comm->ft.sentinel);
    MPI_Wait(&comm->ft.sentinel, MPI_STATUS_IGNORE);
    comm->ft.sentinel = MPI_REQUEST_NULL;
}

int ftc_ft_comm_init(ftc_comm_t comm)
{
    ftc_ft_state *ft = &comm->ft;
    ft->sentinel = MPI_REQUEST_NULL;
    ft->saved_type = MPI_DATATYPE_NULL;
    ft->alive = malloc(sizeof(bool) * (size_t)comm->size);
    ft->live = malloc(sizeof(int) * (size_t)comm->size);
    bool ok = ft->alive && ft->live;
    ok = ftc_holdings_init(&ft->saved_held, comm->size) && ok;
    ok = ftc_holdings_init(&ft->live_held, comm->size) && ok;
    ok = ftc_holdings_init(&ft->call_held, comm->size) && ok;
    ok = ftc_holdings_init(&ft->call_alive, comm->size) && ok;
    ok = ftc_holdings_init(&ft->report_held, comm->size) && ok;
    ok = ftc_holdings_init(&ft->report_failed, comm->size) && ok;
    if (!ok)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    for (int r = 0; r < comm->size; r++)
        ft->alive[r] = true;
    ftc_ft_update_live(comm);
    return MPI_SUCCESS;
}

void ftc_ft_comm_release(ftc_comm_t comm)
{
    ftc_ft_state *ft = &comm->ft;
    retire_sentinel(comm);
    free(ft->alive);
    free(ft->live);
    free(ft->saved);
    ftc_holdings_destroy(&ft->saved_held);
    ftc_holdings_destroy(&ft->live_held);
    ftc_holdings_destroy(&ft->call_held);
    ftc_holdings_destroy(&ft->call_alive);
    ftc_holdings_destroy(&ft->report_held);
    ftc_holdings_destroy(&ft->report_failed);
}

/* ---- one call --------------------------------------------------------------- */

/* Keeps the result for ranks that may finish this call late. Only ULFM
 * lets a rank outlive a partner, so only there is the copy made. */
static int save_result(ftc_ft_call *c)
{
#ifdef FTCOLL_HAVE_ULFM
    ftc_ft_state *ft = &c->comm->ft;
    int rc = ftc_ensure_capacity(&ft->saved, &ft->saved_capacity, c->bytes > 0 ? c->bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->bytes > 0)
        memcpy(ft->saved, c->current, c->bytes);
    ft->saved_bytes = c->bytes;
    ft->saved_count = c->count;
    ft->saved_type = c->type;
    ft->saved_call = c->number;
    ftc_holdings_copy(&ft->saved_held, &c->held);
#else
    (void)c;
#endif
    return MPI_SUCCESS;
}

static void write_report(ftc_ft_call *c, int rounds)
{
    ftc_ft_state *ft = &c->comm->ft;
    ftc_holdings_copy(&ft->report_held, &c->held);
    ftc_holdings_clear(&ft->report_failed);
    int failed = 0;
    if (rounds > 0) {
        for (int r = 0; r < c->comm->size; r++) {
            if (ftc_holdings_has(&c->alive_at_start, r) && !ft->alive[r]) {
                ftc_holdings_add(&ft->report_failed, r);
                failed++;
            }
        }
    }
    ft->report = (ftc_allreduce_report){
        .size = c->comm->size,
        .contributors = ftc_holdings_count(&c->held),
        .failed_in_call = failed,
        .alive = ft->nlive,
        .recovery_rounds = rounds,
        .finished_late = c->late,
        .recovery_seconds = rounds > 0 ? MPI_Wtime() - c->detected_at : 0.0,
    };
    ft->have_report = true;
}

/* Strict mode: a result short of any rank's contribution is an error, on
 * every survivor alike (S is the same everywhere). */
static int check_strict(const ftc_ft_call *c)
{
    const int missing = c->comm->size - ftc_holdings_count(&c->held);
    if (!c->comm->ft.strict || missing == 0)
        return MPI_SUCCESS;
    int first = 0;
    while (ftc_holdings_has(&c->held, first))
        first++;
    return ftc_fail(process_failed_class(), "ftc_allreduce (strict): the result lacks the "
                    "contributions of %d failed rank(s), the first being rank %d; it covers "
                    "the other %d", missing, first, c->comm->size - missing);
}

static int finish(ftc_ft_call *c, void *value, int rounds)
{
    if (!c->have_held)
        ftc_holdings_copy(&c->held, &c->comm->ft.live_held);   /* round 0 finished */
    if (c->current != (char *)value && c->bytes > 0)
        memcpy(value, c->current, c->bytes);   /* value may be NULL when count is 0 */
    c->current = value;
    int rc = save_result(c);
    write_report(c, rounds);
    return rc == MPI_SUCCESS ? check_strict(c) : rc;
}

static int run_round_zero(ftc_ft_call *c)
{
    ftc_ft_state *ft = &c->comm->ft;
    c->group = (ftc_ft_group){ .n = ft->nlive, .ranks = ft->live, .start = NULL,
                               .me = ft->live_index };
    if (ft->agree_at_entry) {   /* others wait in an agreement for this rank */
        c->detected_at = MPI_Wtime();
        return FTC_DETECTED;
    }
    return ftc_ft_run_group(c);
}

static int recover_or_fail(ftc_ft_call *c)
{
    ftc_ft_note_holdings(c);
#ifdef FTCOLL_HAVE_ULFM
    ftc_holdings_copy(&c->alive_at_start, &c->comm->ft.live_held);
    return ftc_ft_recover(c);
#else
    return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a failure was detected without ULFM");
#endif
}

int ftc_ft_allreduce_run(ftc_comm_t comm, void *value, int count, MPI_Datatype type, MPI_Op op,
                         size_t bytes)
{
    int rc = ftc_ensure_capacity(&comm->scratch, &comm->scratch_size, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    const long number = ++comm->ft.calls;
    ftc_ft_call c = { .comm = comm, .count = count, .type = type, .op = op, .bytes = bytes,
                      .current = value, .incoming = comm->scratch, .number = number,
                      .tag = tag_of_call(number), .held = comm->ft.call_held,
                      .alive_at_start = comm->ft.call_alive };   /* shares their words */
    rc = run_round_zero(&c);
    if (rc == FTC_DETECTED)
        rc = recover_or_fail(&c);
    retire_sentinel(comm);
    return rc == MPI_SUCCESS ? finish(&c, value, c.round) : rc;
}

#ifndef FTCOLL_HAVE_ULFM
int ftc_ft_settle(ftc_comm_t comm)
{
    (void)comm;   /* without ULFM no rank outlives a partner: nobody to settle with */
    return MPI_SUCCESS;
}
#endif

static int every_rank_needed(ftc_comm_t comm, const char *who)
{
    return ftc_fail(process_failed_class(), "%s: %d of the communicator's %d ranks failed and "
                    "this collective needs every rank: ftc_comm_survivors gives a "
                    "communicator of the others", who, comm->size - comm->ft.nlive, comm->size);
}

int ftc_ft_require_every_rank(ftc_comm_t comm, const char *who)
{
    if (comm->ft.agree_at_entry) {   /* others wait in an agreement for this rank */
        const int rc = ftc_ft_settle(comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return comm->ft.nlive == comm->size ? MPI_SUCCESS : every_rank_needed(comm, who);
}

MPI_Request *ftc_ft_watch_for(ftc_comm_t comm)
{
    ftc_ft_state *ft = &comm->ft;
    if (ft->watched_after == ft->calls)
        return NULL;
    ft->watched_after = ft->calls;
    post_sentinel(comm);
    return ft->sentinel == MPI_REQUEST_NULL ? NULL : &ft->sentinel;
}

void ftc_ft_unwatch(ftc_comm_t comm)
{
    retire_sentinel(comm);
}

int ftc_ft_interrupted(ftc_comm_t comm, const char *who)
{
    const int rc = ftc_ft_settle(comm);
    return rc != MPI_SUCCESS ? rc : every_rank_needed(comm, who);
}

/* ---- public queries and settings ------------------------------------------- */

static void export_holdings(const ftc_holdings *h, int *out, int size)
{
    for (int r = 0; out && r < size; r++)
        out[r] = ftc_holdings_has(h, r);
}

int ftc_allreduce_last_report(ftc_comm_t comm, ftc_allreduce_report *report, int *in_result,
                              int *failed)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_allreduce_last_report: the communicator is NULL");
    if (!report)
        return ftc_fail(MPI_ERR_ARG, "ftc_allreduce_last_report: report is NULL");
    if (!comm->ft.have_report)
        return ftc_fail(MPI_ERR_OTHER, "ftc_allreduce_last_report: no ftc_allreduce has "
                                       "completed on this communicator");
    *report = comm->ft.report;
    export_holdings(&comm->ft.report_held, in_result, comm->size);
    export_holdings(&comm->ft.report_failed, failed, comm->size);
    return MPI_SUCCESS;
}

int ftc_allreduce_set_strict(ftc_comm_t comm, int strict)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_allreduce_set_strict: the communicator is NULL");
    if (strict != 0 && strict != 1)
        return ftc_fail(MPI_ERR_ARG, "ftc_allreduce_set_strict: strict is %d; expected 0 or 1",
                        strict);
    comm->ft.strict = strict;
    return MPI_SUCCESS;
}
