/*
 * Fault-tolerant allreduce, execution: recursive doubling over the live
 * ranks (recursive_doubling.h); the round that finishes a call after a
 * failure is in ft_recovery.c, the meetings in ft/meeting.c.
 *
 *   call:  attempt   recursive doubling over the epoch's communicator (the
 *                    live ranks, in order), tag = call number mod window:
 *                    no agreement, no extra message per step, the plain
 *                    value on the wire
 *          failure   every wait includes the layer's sentinel, so every
 *                    survivor stops within milliseconds; each notes what
 *                    its value holds from how far it got (ftc_rd_holdings)
 *          meeting   the survivors open a new epoch and finish the call
 *                    from their holdings (ft/ft.h); again if a rank dies
 *          return    the result, S, the failed ranks; the result is kept
 *                    for ranks that may still need it (late ranks), when
 *                    three or more ranks are alive (ftc_ft_keeps_results)
 *
 * Large vectors run Rabenseifner's algorithm instead (ft_rabenseifner.c,
 * chosen by select.c); a failure before it completed restarts each
 * survivor from its input, and the meeting finishes the call the same way.
 * From 128 KiB with three or more live ranks the attempt ends with a
 * confirmation instead of a copy of the result (confirm_everyone_holds):
 *
 *   rank         0   1   2   3   4        (5 live ranks)
 *   attempt      ... every rank holds the result ...
 *   confirm k=0  i -> i+1 (mod 5), tokens
 *           k=1  i -> i+2
 *           k=2  i -> i+4             then nothing is kept
 *
 * Cost without failure: log2 p exchanges (+2 with a spare), as plain
 * recursive doubling, and the confirmation's ceil(log2 p) empty messages
 * or a copy of the result; the sentinel stays posted on its own
 * communicator.
 */
#include "ft_engine.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"
#include "../reduce_local.h"
#include "ft_call.h"

/* ---- FTCOLL_INJECT ------------------------------------------------------------ */

static const ftc_injection *injected(const ftc_ft_call *c, ftc_inject_when when)
{
    return ftc_inject_matches(&c->comm->allreduce->inject, c->comm->rank, c->number, c->round,
                              c->step, when);
}

/* A busy loop that never ends: the hang the watchdog exists for. */
static _Noreturn void spin_forever(const ftc_ft_call *c)
{
    ftc_ft_report_progress(c, "spinning (FTCOLL_INJECT) instead of sending", -1);
    volatile unsigned long spins = 0;
    for (;;)
        spins++;
}

void ftc_ft_injection_point(const ftc_ft_call *c, ftc_inject_when when, MPI_Request *send)
{
    const ftc_injection *what = injected(c, when);
    if (!what)
        return;
    if (what->action == FTC_INJECT_SPIN)
        spin_forever(c);
    if (send)   /* "after-send" means the peer has the data */
        MPI_Wait(send, MPI_STATUS_IGNORE);
    raise(SIGKILL);
}

void ftc_ft_report_progress(const ftc_ft_call *c, const char *doing, int peer)
{
    ftc_watch_progress(&c->comm->watch, c->step, doing, peer);
}

int ftc_ft_error(int rc, const char *what, int peer)
{
    return ftc_fail_mpi(rc, "ftc_allreduce: %s rank %d failed", what, peer);
}

/* ---- the failure-free attempt: epoch rank = index among the live ranks ----------- */

int ftc_ft_complete_transfer(ftc_ft_call *c, int posted, MPI_Request *r, const int *expected,
                             int n, const char *what, int peer)
{
    int rc = posted;
    if (rc == MPI_SUCCESS) {
        ftc_ft_report_progress(c, what, peer);
        rc = ftc_ft_wait(c->ft, r, expected, n);
    } else {
        ftc_ft_abandon(r, expected, n);
        rc = ftc_ft_is_process_failure(rc) ? FTC_DETECTED : rc;
    }
    return rc == MPI_SUCCESS || rc == FTC_DETECTED ? rc : ftc_ft_error(rc, what, peer);
}

static int send_value(ftc_ft_call *c, int peer)
{
    MPI_Request r[1] = { MPI_REQUEST_NULL };
    const int expected[1] = { -1 };
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND, NULL);
    const int rc = ftc_p2p_isend(c->current, c->count, c->type, peer, c->tag_of_call,
                                 ftc_ft_epoch_comm(c->ft), &r[0]);
    if (rc == MPI_SUCCESS)
        ftc_ft_die_if_injected(c, FTC_INJECT_AFTER_SEND, &r[0]);
    return ftc_ft_complete_transfer(c, rc, r, expected, 1, "sending to", peer);
}

static int receive_value(ftc_ft_call *c, void *into, int peer)
{
    MPI_Request r[1] = { MPI_REQUEST_NULL };
    const int expected[1] = { c->wire_bytes };
    const int rc = ftc_p2p_irecv(into, c->count, c->type, peer, c->tag_of_call,
                                 ftc_ft_epoch_comm(c->ft), &r[0]);
    return ftc_ft_complete_transfer(c, rc, r, expected, 1, "receiving from", peer);
}

/*
 * The send goes first, so that the partner can take it the sooner, and a
 * small one has completed by the time the receive is posted (the shared
 * memory takes it inline): then the receive alone is watched. Back to back
 * on two ranks this pays about 5% of a small call less than receive first
 * and a wait over both.
 */
int ftc_ft_exchange(ftc_ft_call *c, const void *send, int send_count, void *receive,
                    int receive_count, int peer)
{
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };   /* receive, send */
    const int expected[2] = { c->type_size * receive_count, -1 };
    const MPI_Comm comm = ftc_ft_epoch_comm(c->ft);
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND, NULL);
    int rc = ftc_p2p_isend(send, send_count, c->type, peer, c->tag_of_call, comm, &r[1]);
    if (rc == MPI_SUCCESS)
        rc = ftc_p2p_irecv(receive, receive_count, c->type, peer, c->tag_of_call, comm, &r[0]);
    if (rc == MPI_SUCCESS)
        ftc_ft_die_if_injected(c, FTC_INJECT_AFTER_SEND, &r[1]);
    int sent = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Test(&r[1], &sent, MPI_STATUS_IGNORE);
    /* on an error the send may be complete and still held: both are released */
    const int watched = rc == MPI_SUCCESS && sent ? 1 : 2;
    return ftc_ft_complete_transfer(c, rc, r, expected, watched, "exchanging with", peer);
}

void ftc_ft_combine(ftc_ft_call *c, bool partner_is_higher)
{
    if (c->count == 0)
        return;   /* a barrier: the message itself was the point */
    /* ftc_reduce_local(in, inout) computes inout = in op inout */
    if (partner_is_higher) {
        ftc_reduce_local(c->current, c->incoming, c->count, c->type, c->op);
        char *swap = c->current;
        c->current = c->incoming;
        c->incoming = swap;
    } else {
        ftc_reduce_local(c->incoming, c->current, c->count, c->type, c->op);
    }
}

static int run_as_spare(ftc_ft_call *c, int active)
{
    c->step = FTC_INJECT_STEP_FOLD_IN;
    int rc = send_value(c, active);
    if (rc != MPI_SUCCESS)
        return rc;
    c->progress.folded = true;
    c->step = FTC_INJECT_STEP_FOLD_OUT;
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND, NULL);   /* a spare sends nothing here */
    /* into `incoming`: a receive stopped by a failure may still complete (it
     * had matched), and this rank's value must stay what its holdings say */
    rc = receive_value(c, c->incoming, active);
    if (rc != MPI_SUCCESS)
        return rc;
    char *result = c->incoming;
    c->incoming = c->current;
    c->current = result;
    c->progress.complete = true;
    return MPI_SUCCESS;
}

static int fold_in(ftc_ft_call *c, int spare)
{
    c->step = FTC_INJECT_STEP_FOLD_IN;
    ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND, NULL);   /* an active sends nothing */
    const int rc = receive_value(c, c->incoming, spare);
    if (rc != MPI_SUCCESS)
        return rc;
    ftc_ft_combine(c, true);
    c->progress.folded = true;
    return MPI_SUCCESS;
}

/* Recursive doubling among the m actives, spares folded in already;
 * c->progress.steps_done says how far it got. */
static int recursive_doubling_actives(ftc_ft_call *c, int me, int m)
{
    for (int step = 0; step < ftc_rd_steps(m); step++) {
        const int partner = ftc_rd_partner(me, step);
        c->step = step;
        const int rc = ftc_ft_exchange(c, c->current, c->count, c->incoming, c->count, partner);
        if (rc != MPI_SUCCESS)
            return rc;
        ftc_ft_combine(c, partner > me);
        c->progress.steps_done = step + 1;
    }
    return MPI_SUCCESS;
}

/* The folds of recursive_doubling.h around an algorithm's actives' part:
 * a spare hands its value over and gets the result back; an active with a
 * spare combines the spare's value first and hands the result back last. */
static int run_with_folds(ftc_ft_call *c, int (*actives_part)(ftc_ft_call *, int, int))
{
    const int n = ftc_ft_live_count(c->ft), me = ftc_ft_live_index(c->ft);
    const int actives = ftc_rd_actives(n), fold = ftc_rd_fold_partner(me, n);
    c->progress = (ftc_rd_progress){ 0 };
    if (me >= actives)
        return run_as_spare(c, fold);
    int rc = fold >= 0 ? fold_in(c, fold) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = actives_part(c, me, actives);
    if (rc != MPI_SUCCESS)
        return rc;
    c->progress.complete = true;
    if (fold < 0)
        return MPI_SUCCESS;
    c->step = FTC_INJECT_STEP_FOLD_OUT;
    return send_value(c, fold);
}

/*
 * A Rabenseifner attempt leaves a value that is no partial sum of whole
 * vectors (each block reduced over a different group), so a failure
 * before it completed restarts this rank from its input, holding itself.
 * Into `incoming`, swapped in: a send the failure released may still read
 * `current` until the survivors met.
 */
static void restart_from_input(ftc_ft_call *c)
{
    if (c->bytes > 0)
        memcpy(c->incoming, c->input, c->bytes);
    char *input = c->incoming;
    c->incoming = c->current;
    c->current = input;
    c->progress = (ftc_rd_progress){ 0 };
}

static int run_attempt(ftc_ft_call *c)
{
    if (c->algorithm != FTC_ALLREDUCE_RABENSEIFNER)
        return run_with_folds(c, recursive_doubling_actives);
    const int rc = run_with_folds(c, ftc_ft_rabenseifner_actives);
    if (rc == FTC_DETECTED && !c->progress.complete)
        restart_from_input(c);
    return rc;
}

/* ---- one call ------------------------------------------------------------------------- */

/* A window call's value after the window's others, in the arena, which
 * doubles when it grows: growing to the byte would copy the whole window
 * again on every call of a window longer than any before. */
static int place_in_arena(struct ftc_allreduce_state *s, ftc_kept_result *k, size_t bytes)
{
    const size_t offset = (s->arena_used + 7) & ~(size_t)7;   /* aligned for any type */
    const size_t needed = offset + (bytes > 0 ? bytes : 1);
    const size_t doubled = 2 * s->arena_capacity;
    const int rc = ftc_ensure_capacity(&s->arena, &s->arena_capacity,
                                       needed > s->arena_capacity && doubled > needed ? doubled
                                                                                      : needed);
    if (rc != MPI_SUCCESS)
        return rc;
    k->offset = offset;
    k->data = s->arena + offset;
    s->arena_used = offset + bytes;
    return MPI_SUCCESS;
}

/* Where the result of a call completed here is kept, for ranks that may
 * finish that call late (ft_recovery.c serves it from there): NULL when no
 * rank could ever ask (ftc_ft_keeps_results: ULFM, three or more live
 * ranks) or when every late rank holds it (FTC_EVERYONE_HOLDS: the slot
 * only records the value's shape; serving with empty holdings, this rank
 * receives the value into it, and sizes it then). Every call of the
 * engine's numbering keeps through here, whoever ran its attempt. */
static int keep_room(ftc_comm_t comm, long number, const ftc_holdings *held, int count,
                     MPI_Datatype type, size_t bytes, ftc_completed_as how,
                     const ftc_kept_part *part, char **room)
{
    *room = NULL;
    ftc_ft_end_call(comm->ft, number, how == FTC_EVERYONE_HOLDS ? NULL : held,
                    how != FTC_OTHERS_MAY_LAG);
    if (!ftc_ft_keeps_results(comm->ft))
        return MPI_SUCCESS;
    struct ftc_allreduce_state *s = comm->allreduce;
    ftc_kept_result *k = ftc_allreduce_kept_result(comm, number);   /* kept just now */
    k->bytes = bytes;
    k->count = count;
    k->type = type;
    k->op = part ? part->op : MPI_OP_NULL;
    k->whole = part && part->whole;
    k->block_width = part ? part->block_width : 0;
    k->route = part ? part->route : FTC_ROUTE_NONE;
    k->root = part ? part->root : -1;
    if (k == &s->kept)
        s->arena_used = 0;   /* a new window: nothing before it is kept any more */
    if (how == FTC_EVERYONE_HOLDS)   /* a call every rank entered: `kept` */
        return MPI_SUCCESS;
    /* a part keeps its held ranks' blocks only; a route, what it laid out */
    const size_t stored = !part || part->whole ? bytes
                        : part->route != FTC_ROUTE_NONE
                            ? part->block_width
                            : (size_t)ftc_holdings_count(held) * part->block_width;
    const int rc = k == &s->kept
        ? ftc_ensure_capacity(&k->data, &k->capacity, stored > 0 ? stored : 1)
        : place_in_arena(s, k, stored);
    if (rc != MPI_SUCCESS) {
        ftc_ft_drop_kept(comm->ft);
        return rc;
    }
    *room = k->data;
    return MPI_SUCCESS;
}

ftc_kept_result *ftc_allreduce_kept_result(ftc_comm_t comm, long number)
{
    struct ftc_allreduce_state *s = comm->allreduce;
    if (ftc_ft_window_starts_at(comm->ft, number))
        return &s->kept;
    if (!ftc_ft_window_keeps(comm->ft, number))
        return NULL;
    ftc_kept_result *k = &s->window[number % FTC_FT_WINDOW];
    k->data = s->arena ? s->arena + k->offset : NULL;   /* it may have moved since */
    return k;
}

/* A call of the engine's own, or one finished in a meeting: every live rank
 * entered it before any completed it. */
static int keep_result(ftc_ft_call *c)
{
    char *room;
    const int rc = keep_room(c->comm, c->number, &c->held, c->count, c->type, c->bytes,
                             c->confirmed ? FTC_EVERYONE_HOLDS : FTC_EVERYONE_ENTERED,
                             NULL, &room);
    if (rc == MPI_SUCCESS && room && c->bytes > 0)
        memcpy(room, c->current, c->bytes);
    return rc;
}

/*
 * The report of the call that ends here. Its S is kept as bits and counted
 * only when a report is asked for (ftc_allreduce_last_report): most calls'
 * reports are never read. A call completed by its failure-free attempt
 * found nobody dead and ran no round.
 */
static void report_call(ftc_comm_t comm, const ftc_holdings *held)
{
    struct ftc_allreduce_state *s = comm->allreduce;
    ftc_holdings_copy(&s->report_held, held);
    if (s->report.failed_in_call > 0)   /* else still empty */
        ftc_holdings_clear(&s->report_failed);
    s->report = (ftc_allreduce_report){ .size = comm->size, .contributors = -1,
                                        .alive = ftc_ft_live_count(comm->ft) };
    s->have_report = true;
}

static void write_report(const ftc_ft_call *c)
{
    report_call(c->comm, &c->held);
    if (c->round == 0)
        return;
    struct ftc_allreduce_state *s = c->comm->allreduce;
    for (int r = 0; r < c->comm->size; r++) {
        if (ftc_holdings_has(&c->alive_at_start, r) && !ftc_ft_is_alive(c->ft, r)) {
            ftc_holdings_add(&s->report_failed, r);
            s->report.failed_in_call++;
        }
    }
    s->recovered_calls++;
    s->report.recovery_rounds = c->round;
    s->report.finished_late = c->late;
    s->report.recovery_seconds = MPI_Wtime() - c->detected_at;
}

/* The call is over here: the result into `value`, kept, reported. */
static int finish(ftc_ft_call *c, void *value)
{
    if (!c->have_held)
        ftc_holdings_copy(&c->held, ftc_ft_live_set(c->ft));   /* the attempt finished */
    if (c->current != (char *)value && c->bytes > 0)
        memcpy(value, c->current, c->bytes);   /* value may be NULL when count is 0 */
    c->current = value;
    const int rc = keep_result(c);
    write_report(c);
    return rc;
}

/* With c->held what the value holds: the survivors finish the call. */
static int meet_survivors(ftc_ft_call *c)
{
#ifdef FTCOLL_HAVE_ULFM
    if (c->detected_at == 0)
        c->detected_at = MPI_Wtime();
    c->have_held = true;
    ftc_holdings_copy(&c->alive_at_start, ftc_ft_live_set(c->ft));
    c->epoch_before = ftc_ft_epoch(c->ft);
    ftc_ft_decision decision;
    const int rc = ftc_ft_meet(c->comm, FTC_AT_CALL, &c->held, c, &decision);
    c->round = (int)(ftc_ft_epoch(c->ft) - c->epoch_before);
    c->late = decision.role == FTC_ROLE_LATE;
    return rc;
#else
    (void)c;
    return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a failure was detected without ULFM");
#endif
}

static ftc_allreduce_algorithm choose_algorithm(ftc_comm_t comm, int count, size_t bytes)
{
    const ftc_allreduce_algorithm forced = comm->allreduce->algorithm;
    if (forced != FTC_ALLREDUCE_AUTO)
        return forced;
    return ftc_allreduce_decide(ftc_ft_live_count(comm->ft), count, bytes);
}

/* Where a Rabenseifner attempt restarts from: the caller's input, or a
 * copy of the value when the value is the input (in place). */
static int keep_input(ftc_comm_t comm, ftc_ft_call *c, const void *input)
{
    if (input) {
        c->input = input;
        return MPI_SUCCESS;
    }
    struct ftc_allreduce_state *s = comm->allreduce;
    const int rc = ftc_ensure_capacity(&s->input_copy, &s->input_copy_capacity, c->bytes);
    if (rc == MPI_SUCCESS)
        memcpy(s->input_copy, c->current, c->bytes);
    c->input = s->input_copy;
    return rc;
}

/* After a failure: what the value holds, from how far the attempt got. */
static int recover(ftc_ft_call *c)
{
    ftc_rd_holdings(&c->held, ftc_ft_live_index(c->ft), ftc_ft_live_count(c->ft), &c->progress,
                    ftc_ft_live_ranks(c->ft), NULL);
    return meet_survivors(c);
}

/* A call's state over the communicator's shared words (a call allocates nothing). */
static int start_call(ftc_ft_call *c, ftc_comm_t comm, long number, void *value, int count,
                      MPI_Datatype type, MPI_Op op, size_t bytes, int type_size)
{
    const int rc = ftc_ensure_capacity(&comm->scratch, &comm->scratch_size,
                                       bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ftc_allreduce_state *s = comm->allreduce;
    *c = (ftc_ft_call){ .comm = comm, .ft = comm->ft, .count = count, .type = type, .op = op,
                        .bytes = bytes, .type_size = type_size,
                        .extent = count > 0 ? bytes / (size_t)count : 0,
                        .wire_bytes = type_size * count, .current = value,
                        .incoming = comm->scratch, .number = number,
                        .tag_of_call = ftc_ft_call_tag(comm->ft, number),
                        .held = s->call_held, .alive_at_start = s->call_alive };
    return MPI_SUCCESS;
}

/*
 * The confirmation, once this rank holds the result: the dissemination
 * barrier's exchanges of empty messages over the live ranks, on the call's
 * tag. A rank completes it only after hearing, through its chain of
 * receives, from every live rank after that rank held the result; so when
 * any rank has completed the call, a rank still inside it at a meeting
 * brings the result itself, and nothing need be kept (FTC_EVERYONE_HOLDS).
 * Only tokens are left to match on the tag: the attempt received every
 * message sent to this rank before. A failure detected here leaves the
 * attempt complete: the rank meets with the whole result.
 */
static int confirm_everyone_holds(ftc_ft_call *c)
{
    static const char token_out = 0;
    char token_in = 0;   /* an empty message: nothing is written */
    const int n = ftc_ft_live_count(c->ft), me = ftc_ft_live_index(c->ft);
    const MPI_Comm comm = ftc_ft_epoch_comm(c->ft);
    const int expected[2] = { 0, -1 };   /* receive, send */
    c->step = FTC_INJECT_STEP_CONFIRM;
    for (int distance = 1; distance < n; distance *= 2) {
        const int to = (me + distance) % n, from = (me - distance + n) % n;
        const bool named = distance == 1;   /* FTCOLL_INJECT's step=confirm */
        MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        if (named)
            ftc_ft_die_if_injected(c, FTC_INJECT_BEFORE_SEND, NULL);
        int rc = ftc_p2p_isend(&token_out, 0, MPI_BYTE, to, c->tag_of_call, comm, &r[1]);
        if (rc == MPI_SUCCESS)
            rc = ftc_p2p_irecv(&token_in, 0, MPI_BYTE, from, c->tag_of_call, comm, &r[0]);
        if (rc == MPI_SUCCESS && named)
            ftc_ft_die_if_injected(c, FTC_INJECT_AFTER_SEND, &r[1]);
        rc = ftc_ft_complete_transfer(c, rc, r, expected, 2, "confirming with", from);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    c->confirmed = true;
    return MPI_SUCCESS;
}

static bool confirms(const ftc_ft_call *c)
{
    return ftc_ft_keeps_results(c->ft) && ftc_allreduce_confirms(c->bytes);
}

int ftc_ft_allreduce_run(ftc_comm_t comm, const void *input, void *value, int count,
                         MPI_Datatype type, MPI_Op op, size_t bytes, int type_size,
                         const char *call)
{
    ftc_ft_call c;
    int rc = start_call(&c, comm, ftc_ft_begin_call(comm->ft), value, count, type, op, bytes,
                        type_size);
    c.algorithm = choose_algorithm(comm, count, bytes);
    if (rc == MPI_SUCCESS && c.algorithm == FTC_ALLREDUCE_RABENSEIFNER && bytes > 0)
        rc = keep_input(comm, &c, input);
    if (rc != MPI_SUCCESS)
        return rc;
    /* a rank others wait for in a meeting goes there first */
    rc = ftc_ft_owes_meeting(comm->ft) ? FTC_DETECTED : run_attempt(&c);
    if (rc == MPI_SUCCESS && confirms(&c))
        rc = confirm_everyone_holds(&c);
    if (rc == FTC_DETECTED)
        rc = recover(&c);
    if (rc == MPI_SUCCESS)
        rc = finish(&c, value);
    return rc == MPI_SUCCESS ? ftc_allreduce_check_strict(comm, &c.held, call) : rc;
}

/* ---- calls whose failure-free attempt runs outside the engine ------------------------------ */

ftc_holdings *ftc_allreduce_call_holdings(ftc_comm_t comm)
{
    return &comm->allreduce->call_held;
}

ftc_holdings *ftc_allreduce_own_holdings(ftc_comm_t comm)
{
    ftc_holdings *held = &comm->allreduce->call_held;
    ftc_holdings_clear(held);
    ftc_holdings_add(held, comm->rank);
    return held;
}

void ftc_allreduce_injection_point(ftc_comm_t comm, long number, int step, ftc_inject_when when,
                                   MPI_Request *send)
{
    if (comm->allreduce->inject.count == 0)
        return;   /* the usual case, on every step of every broadcast: nothing to build */
    const ftc_ft_call c = { .comm = comm, .ft = comm->ft, .number = number, .step = step };
    ftc_ft_injection_point(&c, when, send);
}

int ftc_allreduce_attempt_completed(ftc_comm_t comm, long number, const ftc_holdings *held,
                                    int count, MPI_Datatype type, size_t bytes,
                                    ftc_completed_as how, const ftc_kept_part *part,
                                    char **keep_into)
{
    const int rc = keep_room(comm, number, held, count, type, bytes, how, part, keep_into);
    report_call(comm, held);   /* its failure-free attempt completed it */
    return rc;
}

int ftc_allreduce_resume(ftc_comm_t comm, long number, void *value, int count, MPI_Datatype type,
                         MPI_Op op, size_t bytes, const ftc_holdings *held)
{
    int type_size = 0;
    MPI_Type_size(type, &type_size);
    ftc_ft_call c;
    int rc = start_call(&c, comm, number, value, count, type, op, bytes, type_size);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c.held.words != held->words)
        ftc_holdings_copy(&c.held, held);
    rc = meet_survivors(&c);
    return rc == MPI_SUCCESS ? finish(&c, value) : rc;
}

int ftc_allreduce_resume_routed(ftc_comm_t comm, long number, const ftc_routed_blocks *blocks,
                                const ftc_holdings *held)
{
    ftc_ft_call c;
    int rc = start_call(&c, comm, number, NULL, 0, MPI_BYTE, MPI_OP_NULL, 0, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    c.routed = blocks;
    if (c.held.words != held->words)
        ftc_holdings_copy(&c.held, held);
    rc = meet_survivors(&c);
    return rc == MPI_SUCCESS ? finish(&c, NULL) : rc;
}
