/*
 * ftc_reduce_scatter(_block) by recursive halving over the live ranks
 * (layout and cost in recursive_halving.h), ended by a confirmation, so
 * that after a death every survivor returns its block over one S.
 *
 *   fold in    spare -> its active: the whole input, count elements
 *   halving    log2 m exchanges of halving spans: the first combines the
 *              partner's span with this rank's input into `work` (no copy
 *              of the input), the others receive into `incoming` and
 *              combine it into `work`
 *   fold out   active -> spare: the spare's block
 *   confirm    with ULFM on three live ranks or more, the dissemination
 *              barrier's empty messages: a rank completes it only once
 *              every live rank held its block, so when any rank returned,
 *              every survivor still inside holds its own
 *   return     recvbuf gets the block only now: in place, recvbuf is the
 *              input a recovery restarts from
 *
 *   n = 4, blocks A B C D of ranks 0..3, each rank holding its copy of all:
 *     step 0 (d = 2)  0<>2 1<>3   0 keeps A B and sends C D; 2 the reverse
 *     step 1 (d = 1)  0<>1 2<>3   0 keeps A and sends B: A over 0, 1, 2, 3
 *
 *   taint      a message of the wrong size (ranks that disagree on the
 *              counts) makes this rank send empty messages from then on,
 *              still receiving every message owed to it: every rank runs
 *              the whole schedule (the confirmation too: the call ends alike
 *              everywhere), none waits for ever, and each rank that saw a
 *              wrong size returns MPI_ERR_TRUNCATE, its recvbuf untouched.
 *              Ranks whose counts put the vector on either side of the
 *              rules' threshold run different algorithms and can still
 *              wait for ever (docs/ft-allreduce.md)
 *   failure    every wait includes the layer's sentinel (ftc_ft_wait_in_flow)
 *   recovery   the engine's round (ftc_allreduce_resume) over one word per
 *              survivor inside the call, 1 while its block is not complete.
 *              Their OR is 0: every survivor holds its block, over every
 *              rank that entered (a dead rank's input reached every block
 *              before it died), and returns it with S = the live ranks
 *              that entered, as any rank that completed reported. Else no
 *              rank completed (none passed the confirmation): every
 *              survivor restarts from its input with the allreduce of the
 *              whole vector (allreduce_block.c), which ends the call over
 *              its own S
 *
 * Why the confirmation: a block combines its ranks' inputs only summed,
 * and ops have no inverse. Without it, the ranks of one half could return
 * blocks that hold a rank which died before passing its other half on:
 * the survivors could never agree on one S.
 *
 * Cost: recursive_halving.h's; with the confirmation, ceil(log2 n) empty
 * exchanges more; and a copy of the block.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../allreduce/rabenseifner.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "../reduce_local.h"
#include "recursive_halving.h"
#include "reduce_scatter.h"
#include "state.h"

typedef struct {
    const ftc_reduce_scatter_call *call;
    ftc_comm_t comm;
    ftc_ft *ft;
    long number;
    ftc_halving_layout layout;
    int i;               /* this rank's live index */
    int participant;
    char *work;          /* the vector as this rank reduces it */
    char *incoming;      /* a span as it arrives */
    bool work_holds;     /* `work` holds the input combined with what arrived */
    bool done;           /* this rank's block is reduced over every live rank */
    int taint;           /* MPI_ERR_TRUNCATE once a message of the wrong size arrived */
    bool confirms;
    int tag;
    MPI_Comm epoch;
} halving;

/* A run of elements of the whole vector. */
typedef struct {
    int first, count;
} span;

static int rank_of(const halving *h, int index) { return ftc_ft_live_ranks(h->ft)[index]; }

static char *at(char *vector, const halving *h, int element)
{
    return vector + (size_t)element * h->call->extent;
}

static int share_start(const halving *h, int b)
{
    return ftc_halving_share_start(&h->layout, b, ftc_ft_live_ranks(h->ft),
                                   h->comm->reduce_scatter->displs, h->call->count);
}

static span shares(const halving *h, int first, int end)
{
    const int start = share_start(h, first);
    return (span){ start, share_start(h, end) - start };
}

static span block_of(const halving *h, int rank)
{
    const int *starts = h->comm->reduce_scatter->displs;
    return (span){ starts[rank], starts[rank + 1] - starts[rank] };
}

/* ---- messages ------------------------------------------------------------------------------ */

/*
 * One exchange with live index `peer`: `out` (count elements of `from`,
 * empty once tainted) sent, `in` received into `into`; either may be
 * absent (count -1). A wrong size taints this rank and the schedule goes
 * on; a failure returns FTC_DETECTED.
 */
static int exchange(halving *h, int peer, const char *from, span out, char *into, span in,
                    int step, const char *doing)
{
    const ftc_reduce_scatter_call *call = h->call;
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    const int expected[2] = { in.count >= 0 ? in.count * call->type_size : -1, -1 };
    int rc = MPI_SUCCESS;
    if (in.count >= 0)
        rc = ftc_p2p_irecv(into, in.count, call->type, peer, h->tag, h->epoch, &r[0]);
    if (rc == MPI_SUCCESS && out.count >= 0)
        rc = ftc_p2p_isend(at((char *)from, h, out.first), h->taint ? 0 : out.count, call->type,
                           peer, h->tag, h->epoch, &r[1]);
    if (rc != MPI_SUCCESS) {
        ftc_ft_abandon(r, expected, 2);
        return ftc_fail_mpi(rc, "%s: a message to or from rank %d failed", call->name,
                            rank_of(h, peer));
    }
    ftc_allreduce_injection_point(h->comm, h->number, step, FTC_INJECT_AFTER_SEND, &r[1]);
    rc = ftc_ft_wait_in_flow(h->comm, r, expected, 2, step, call->name, doing, rank_of(h, peer));
    if (rc == FTC_DETECTED)
        return rc;
    if (rc != MPI_SUCCESS && h->taint == MPI_SUCCESS)
        h->taint = rc;   /* the message's error is recorded; the schedule goes on */
    return MPI_SUCCESS;
}

/* inout = in op inout: commutative, so either order. */
static void combine(halving *h, const char *in, char *inout, int count)
{
    if (h->taint || count == 0)
        return;
    if (ftc_reduce_local(in, inout, count, h->call->type, h->call->op) != MPI_SUCCESS)
        h->taint = ftc_fail(MPI_ERR_OP, "%s: MPI_Reduce_local failed", h->call->name);
}

static const span none = { 0, -1 };

/* ---- the flow ------------------------------------------------------------------------------ */

static int fold_in(halving *h)
{
    const span whole = { 0, h->call->count };
    ftc_allreduce_injection_point(h->comm, h->number, FTC_INJECT_STEP_FOLD_IN,
                                  FTC_INJECT_BEFORE_SEND, NULL);
    if (ftc_halving_is_spare(&h->layout, h->i))
        return exchange(h, h->i + 1, h->call->input, whole, NULL, none, FTC_INJECT_STEP_FOLD_IN,
                        "handing its vector to");
    const int rc = exchange(h, h->i - 1, NULL, none, h->work, whole, FTC_INJECT_STEP_FOLD_IN,
                            "receiving the vector of");
    combine(h, h->call->input, h->work, h->call->count);
    h->work_holds = true;
    return rc;
}

/* Halving step k: the partner's copy of the kept span arrives (into `work`
 * itself at the first step, combined with the input there). */
static int halve(halving *h, int k)
{
    const ftc_rabenseifner_step s = ftc_rabenseifner_reduce_scatter_step(h->participant,
                                                                         h->layout.m, k);
    const span out = shares(h, s.send_first, s.send_end);
    const span in = shares(h, s.receive_first, s.receive_end);
    const char *from = h->work_holds ? h->work : h->call->input;
    char *into = h->work_holds ? h->incoming : at(h->work, h, in.first);
    ftc_allreduce_injection_point(h->comm, h->number, k, FTC_INJECT_BEFORE_SEND, NULL);
    const int rc = exchange(h, ftc_halving_active_index(&h->layout, s.partner), from, out, into,
                            in, k, "halving with");
    if (rc != MPI_SUCCESS)
        return rc;
    if (h->work_holds) {
        combine(h, h->incoming, at(h->work, h, in.first), in.count);
    } else {
        combine(h, at((char *)h->call->input, h, in.first), at(h->work, h, in.first), in.count);
        h->work_holds = true;
    }
    return MPI_SUCCESS;
}

static int fold_out(halving *h)
{
    const span block = block_of(h, rank_of(h, h->i - (h->i % 2 == 1)));
    ftc_allreduce_injection_point(h->comm, h->number, FTC_INJECT_STEP_FOLD_OUT,
                                  FTC_INJECT_BEFORE_SEND, NULL);
    if (ftc_halving_is_spare(&h->layout, h->i))
        return exchange(h, h->i + 1, NULL, none, at(h->work, h, block.first), block,
                        FTC_INJECT_STEP_FOLD_OUT, "receiving its block from");
    return exchange(h, h->i - 1, h->work, block, NULL, none, FTC_INJECT_STEP_FOLD_OUT,
                    "handing its block back to");
}

static void injection_after_send(const void *context, MPI_Request *send)
{
    const halving *h = context;
    ftc_allreduce_injection_point(h->comm, h->number, FTC_INJECT_STEP_CONFIRM,
                                  FTC_INJECT_AFTER_SEND, send);
}

/* The dissemination barrier's empty messages, on the call's tag: every
 * message of the halving from the same rank came first. */
static int confirm(halving *h)
{
    ftc_allreduce_injection_point(h->comm, h->number, FTC_INJECT_STEP_CONFIRM,
                                  FTC_INJECT_BEFORE_SEND, NULL);
    const ftc_ft_empties e = { .comm = h->comm, .tag = h->tag, .step = FTC_INJECT_STEP_CONFIRM,
                               .call = h->call->name,
                               .doing = "waiting for the confirmation of" };
    return ftc_ft_dissemination(&e, injection_after_send, h);
}

static int run_flow(halving *h)
{
    if (ftc_ft_failure_known(h->ft))
        return FTC_DETECTED;
    const bool paired = h->i < 2 * h->layout.spares;
    int rc = paired ? fold_in(h) : MPI_SUCCESS;
    if (!ftc_halving_is_spare(&h->layout, h->i))
        for (int k = 0; rc == MPI_SUCCESS && k < ftc_halving_steps(&h->layout); k++)
            rc = halve(h, k);
    if (rc == MPI_SUCCESS && paired)
        rc = fold_out(h);
    if (rc != MPI_SUCCESS)
        return rc;
    h->done = true;   /* tainted too: it ran the whole schedule, and returns its error */
    return h->confirms ? confirm(h) : MPI_SUCCESS;
}

/* ---- the end of a call ------------------------------------------------------------------------ */

/* recvbuf gets this rank's block: from `work`, or with one live rank from
 * the input itself (in place, the same buffer: memmove). */
static void deliver(const halving *h)
{
    const ftc_reduce_scatter_call *call = h->call;
    const span block = block_of(h, h->comm->rank);
    const char *from = h->work_holds || ftc_halving_is_spare(&h->layout, h->i) ? h->work
                                                                               : call->input;
    if (block.count > 0)
        memmove(call->result, at((char *)from, h, block.first), (size_t)block.count * call->extent);
}

/* Every live rank's input is in every block: S, the live ranks, reported.
 * A rank still inside at a meeting holds its own block (the confirmation):
 * nothing is kept but the shape of the round's word. A tainted rank ends
 * the call as the others do, and returns its error with recvbuf as it was. */
static int complete(const halving *h)
{
    if (!h->taint)
        deliver(h);
    const ftc_completed_as how = h->confirms ? FTC_EVERYONE_HOLDS : FTC_EVERYONE_ENTERED;
    char *keep_into = NULL;
    const int rc = ftc_allreduce_attempt_completed(h->comm, h->number, ftc_ft_live_set(h->ft), 1,
                                                   MPI_UINT64_T, sizeof(uint64_t), how, NULL,
                                                   &keep_into);
    if (rc == MPI_SUCCESS && keep_into)
        memset(keep_into, 0, sizeof(uint64_t));   /* this rank's block was complete */
    if (rc != MPI_SUCCESS)
        return rc;
    return h->taint ? h->taint
                    : ftc_allreduce_check_strict(h->comm, ftc_ft_live_set(h->ft), h->call->name);
}

/* A failure stopped the flow: the survivors learn whether every one of
 * them holds its block, and either return it or restart by the allreduce. */
static int recover(const halving *h)
{
    struct ftc_reduce_scatter_state *s = h->comm->reduce_scatter;
    uint64_t incomplete = h->done ? 0 : 1;
    ftc_holdings_copy(&s->entered, ftc_ft_live_set(h->ft));   /* the meeting changes the epoch */
    int rc = ftc_allreduce_resume(h->comm, h->number, &incomplete, 1, MPI_UINT64_T, MPI_BOR,
                                  sizeof(uint64_t), ftc_allreduce_own_holdings(h->comm));
    if (rc != MPI_SUCCESS)
        return rc;
    if (incomplete) {
        ftc_allreduce_report_hold(h->comm);
        rc = ftc_reduce_scatter_by_allreduce(h->call);
        if (rc == MPI_SUCCESS || ftc_ft_is_process_failure(rc))   /* its report written */
            ftc_allreduce_report_join(h->comm);
    } else {
        if (!h->taint)
            deliver(h);
        ftc_allreduce_report_set(h->comm, &s->entered);
        rc = ftc_allreduce_check_strict(h->comm, &s->entered, h->call->name);
    }
    return rc == MPI_SUCCESS && h->taint ? h->taint : rc;
}

/* ---- the call ---------------------------------------------------------------------------------- */

int ftc_reduce_scatter_by_halving(const ftc_reduce_scatter_call *call)
{
    ftc_comm_t comm = call->comm;
    ftc_ft *ft = comm->ft;
    const long number = ftc_ft_begin_call(ft);
    char *room = comm->reduce_scatter->vector;
    halving h = { .call = call, .comm = comm, .ft = ft, .number = number,
                  .layout = ftc_halving_layout_of(ftc_ft_live_count(ft)),
                  .i = ftc_ft_live_index(ft), .work = room,
                  .incoming = room + (size_t)call->count * call->extent,
                  .confirms = ftc_ft_keeps_results(ft), .tag = ftc_ft_call_tag(ft, number),
                  .epoch = ftc_ft_epoch_comm(ft) };
    h.participant = ftc_halving_participant(&h.layout, h.i);
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(ft) ? FTC_DETECTED : run_flow(&h);
    if (ftc_ft_survivable(rc))
        return recover(&h);
    return rc == MPI_SUCCESS ? complete(&h) : rc;
}
