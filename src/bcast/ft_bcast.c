/*
 * ftc_bcast with ULFM: a real broadcast while nothing fails, the allreduce
 * engine's recovery when something does, so that every survivor ends alike.
 *
 *   attempt   the plan select.h picks (dissemination.h, or for large
 *             messages on many ranks scatter_ring.h), or the caller's
 *             network tree while its root lives (tree_step), over the epoch's
 *             communicator (the live ranks, in order), with the call's tag,
 *             the user's datatype on the wire and the data straight into
 *             the user's buffer for the dissemination, each step waiting
 *             for its receive only, every send in flight until the end
 *             (sends_in_flight); the scatter's
 *             pieces travel as packed bytes in a private copy (ranks may
 *             pass different (count, type) pairs of one signature, and
 *             must cut the message alike), unpacked once all arrived;
 *             with two live ranks the plan is one message (run_pair)
 *   failure   every wait includes the layer's sentinel (ftc_ft_wait): each
 *             survivor stops within milliseconds and holds the root's data
 *             exactly when it is the root or every piece of it arrived
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): the
 *             data packed into 8-byte words, zeros where not held, op
 *             MPI_BOR, holdings {root} or {}; the round gives every
 *             survivor the root's words when any survivor held them, and
 *             its S says whether it did: S = {root}, or S = {} and every
 *             survivor returns MPIX_ERR_PROC_FAILED (a buffer that a
 *             transfer cut short by the root's death wrote into keeps
 *             that part: its contents are undefined, as after any MPI
 *             error)
 *   tree      each rank receives from its parent (step 0), then sends to
 *             its children, child k at step k + 1; with an emulated
 *             network each message is preceded by its send time and held
 *             until its channel's latency passed. Tokens would need
 *             channels the tree lacks, so the calls the dissemination
 *             sends them on confirm instead (confirms)
 *   tokens    the dissemination's empty messages, which keep the calls in
 *             progress within the layer's window, go only where a late
 *             rank could be served (three or more live ranks), and only
 *             every few calls, fewer as the message grows (sends_tokens)
 *   return    the value is kept as the engine keeps its own (packed words,
 *             holdings S = {root}, in the layer's kept window): a rank
 *             still in this call when others completed it gets the data
 *             from them in a meeting
 *   confirm   large messages, three or more live ranks, where ranks share
 *             processors or by the scatter and ring (select.h): no
 *             tokens beside the data, a dissemination barrier of tokens
 *             after it, entered once this rank holds the data; a rank that
 *             completes it knows every live rank holds the data, so it
 *             keeps no copy, and a rank still inside the call at a meeting
 *             brings the data itself (confirm_everyone_holds)
 *
 *   rank  0        1        2        3           (4 ranks, root 0)
 *   data  0->1, 0->2, 1->3                       (the plan, no tokens)
 *   then  i->i+1 (mod 4), then i->i+2 (mod 4)    (once i holds the data)
 *
 * Cost without failure: the plan's (see its header), plus the packed copy
 * kept for late ranks (three or more live ranks) or, for a large message
 * that confirms, ceil(log2 p) alpha and a wait for every rank, plus for the scatter's
 * receivers one local copy.
 */
#include "ft_bcast.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <mpi.h>

#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "../allreduce/ft_engine.h"
#include "dissemination.h"
#include "scatter_ring.h"
#include "select.h"
#include "trees/net.h"

_Static_assert(FTC_FT_TOKEN_CLASSES <= (int)(sizeof(((struct ftc_comm *)0)->bcast_class_calls) /
                                             sizeof(long)),
               "a counter per size class");

typedef struct {
    ftc_comm_t comm;
    ftc_ft *ft;
    void *buf;
    int count;
    MPI_Datatype type;
    MPI_Aint extent;
    int type_size;
    size_t bytes;          /* count x type_size: the message, the same on every rank */
    bool contiguous;       /* the buffer is count x type_size dense bytes of a predefined
                            * type: packing is a copy (a dense derived type may list its
                            * elements out of memory order, as MPI_Pack would not) */
    int root;              /* a rank of the communicator */
    const ftc_bcast_tree_plan *tree;   /* the caller's tree, or NULL */
    long number;           /* the call's number in the engine's numbering */
    int token_class;       /* its size class (select.h) */
    long class_calls;      /* calls of that class so far, this one included */
    /* the plan: over epoch indices */
    ftc_bcast_algorithm algorithm;
    int n, me, root_index;
    bool root_alive;       /* else every message is an empty token */
    bool tokens;           /* the dissemination's empty messages are sent (sends_tokens) */
    bool confirms;         /* the confirmation follows the plan: nothing kept */
    /* what travels: the user's (count, type) for the dissemination; for
     * the scatter, packed bytes in a private copy, so that ranks whose
     * (count, type) differ (same type signature, as MPI allows) cut the
     * message alike */
    char *data;            /* where this rank's copy lives: buf, or the private one */
    int wire_count;
    MPI_Datatype wire_type;
    MPI_Aint wire_extent;
    int wire_size;
    bool holds_data;       /* the root, or every piece of its data arrived here */
} bcast_call;

/* ---- a step of either plan: elements to one participant, from another ---------------------- */

typedef struct {
    int peer;      /* an epoch index; -1: no message */
    long first;    /* elements [first, first + count); count 0: an empty token */
    long count;
    bool stamped;  /* its send time travels first (an emulated network's tree) */
} transfer;

typedef struct {
    transfer send, receive;
} plan_step;

static transfer whole_or_token(const bcast_call *b, int peer, bool carries_data)
{
    const bool data = carries_data && b->root_alive;
    if (!data && !b->tokens)
        return (transfer){ -1, 0, 0, false };
    return (transfer){ peer, 0, data ? b->wire_count : 0, false };
}

static transfer blocks(const bcast_call *b, const ftc_scatter_ring_transfer *t)
{
    if (t->peer < 0)
        return (transfer){ -1, 0, 0, false };
    const long first = ftc_scatter_ring_block_start(t->first, b->n, b->wire_count);
    return (transfer){ t->peer, first,
                       ftc_scatter_ring_block_start(t->last, b->n, b->wire_count) - first,
                       false };
}

/* The tree: step 0 from the parent, step k + 1 to child k. */
static int tree_children(const bcast_call *b, int *first)
{
    const ftc_tree *t = b->tree->tree;
    *first = t->child_start[b->me];
    return t->child_start[b->me + 1] - *first;
}

static plan_step tree_step(const bcast_call *b, int step)
{
    const ftc_tree *t = b->tree->tree;
    const bool stamped = b->tree->latency != NULL;
    const transfer none = { -1, 0, 0, false };
    if (step == 0) {
        const int parent = t->parent[b->me];
        return (plan_step){ none, parent < 0 ? none
                                             : (transfer){ parent, 0, b->wire_count, stamped } };
    }
    int first;
    tree_children(b, &first);
    return (plan_step){ { t->children[first + step - 1], 0, b->wire_count, stamped }, none };
}

static plan_step step_of(const bcast_call *b, int step)
{
    if (b->algorithm == FTC_BCAST_TREE)
        return tree_step(b, step);
    if (b->algorithm == FTC_BCAST_SCATTER_RING) {
        const ftc_scatter_ring_step s = ftc_scatter_ring_step_of(b->me, b->root_index, b->n, step);
        return (plan_step){ blocks(b, &s.send), blocks(b, &s.receive) };
    }
    const ftc_dissemination_step s = ftc_dissemination_step_of(b->me, b->root_index, b->n, step);
    return (plan_step){ whole_or_token(b, s.send_to, s.sends_data),
                        whole_or_token(b, s.receive_from, s.receives_data) };
}

static int steps_of(const bcast_call *b)
{
    int first;
    if (b->algorithm == FTC_BCAST_TREE)
        return 1 + tree_children(b, &first);
    return b->algorithm == FTC_BCAST_SCATTER_RING ? ftc_scatter_ring_steps(b->n)
                                                  : ftc_dissemination_steps(b->n);
}

/* The step after which this rank holds the whole message (-1: from the start). */
static int last_data_step(const bcast_call *b)
{
    if (b->me == b->root_index && b->root_alive)
        return -1;
    if (!b->root_alive)
        return steps_of(b);   /* never */
    if (b->algorithm == FTC_BCAST_TREE)
        return 0;
    return b->algorithm == FTC_BCAST_SCATTER_RING
        ? steps_of(b) - 1 : ftc_dissemination_data_step(b->me, b->root_index, b->n);
}

/* ---- the data as the engine's recovery sees it: whole 8-byte words -------------------------- */

typedef struct {
    int packed_bytes;
    int words;
} word_layout;

static int layout_of(const bcast_call *b, word_layout *layout)
{
    layout->packed_bytes = (int)b->bytes;   /* contiguous, the usual case: no MPI call */
    if (!b->contiguous) {
        const int rc = MPI_Pack_size(b->count, b->type, b->comm->comm, &layout->packed_bytes);
        if (rc != MPI_SUCCESS)
            return ftc_fail_mpi(rc, "ftc_bcast: cannot size the packed data");
    }
    layout->words = (int)(((size_t)layout->packed_bytes + 7) / 8);
    return MPI_SUCCESS;
}

static size_t word_bytes(const word_layout *layout) { return (size_t)layout->words * 8; }

/* This rank's copy of the data packed into `into`, padded with zeros. */
static int pack_words(const bcast_call *b, const word_layout *layout, char *into)
{
    memset(into + layout->packed_bytes, 0, word_bytes(layout) - (size_t)layout->packed_bytes);
    if (b->data != (char *)b->buf || b->contiguous) {   /* packed already (the scatter's copy) */
        memcpy(into, b->data, (size_t)layout->packed_bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Pack(b->buf, b->count, b->type, into, layout->packed_bytes, &position,
                            b->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_bcast: packing the root's data failed");
}

/* ---- the failure-free attempt ------------------------------------------------------------ */

static void travel_as_user_data(bcast_call *b)
{
    b->data = b->buf;
    b->wire_count = b->count;
    b->wire_type = b->type;
    b->wire_extent = b->extent;
    b->wire_size = b->type_size;
}

/*
 * The scatter cuts the message in blocks: it travels as packed bytes in a
 * private copy (the root packs its data there), so that every rank cuts it
 * alike whatever its (count, type), and a non-root's buffer is written
 * only once the whole message arrived. The copy lives in comm->scratch,
 * sized for the recovery's words too: a failure's recovery reuses
 * comm->scratch, which must not move while a released send reads it.
 */
static int travel_packed(bcast_call *b)
{
    word_layout layout;
    int rc = layout_of(b, &layout);
    if (rc == MPI_SUCCESS)
        rc = ftc_ensure_capacity(&b->comm->scratch, &b->comm->scratch_size,
                                 word_bytes(&layout) > 0 ? word_bytes(&layout) : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    b->data = b->comm->scratch;
    b->wire_count = layout.packed_bytes;
    b->wire_type = MPI_BYTE;
    b->wire_extent = 1;
    b->wire_size = 1;
    if (!b->holds_data)
        return MPI_SUCCESS;
    int position = 0;
    rc = MPI_Pack(b->buf, b->count, b->type, b->data, layout.packed_bytes, &position,
                  b->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_bcast: packing the root's data failed");
}

static int prepare_data(bcast_call *b)
{
    travel_as_user_data(b);
    if (b->algorithm != FTC_BCAST_SCATTER_RING || b->count == 0)
        return MPI_SUCCESS;
    return travel_packed(b);
}

/* The private copy into the user's buffer. */
static int deliver_data(const bcast_call *b)
{
    if (b->data == (char *)b->buf || b->comm->rank == b->root)
        return MPI_SUCCESS;
    int position = 0;
    const int rc = MPI_Unpack(b->data, b->wire_count, &position, b->buf, b->count, b->type,
                              b->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_bcast: unpacking failed");
}

static char *elements_at(const bcast_call *b, long first)
{
    return b->data + first * b->wire_extent;
}

static int post_receive(const bcast_call *b, const transfer *t, int tag, MPI_Comm comm,
                        char *token, MPI_Request *r)
{
    if (t->peer < 0)
        return MPI_SUCCESS;
    return t->count > 0
        ? ftc_p2p_irecv(elements_at(b, t->first), (int)t->count, b->wire_type, t->peer, tag,
                        comm, r)
        : ftc_p2p_irecv(token, 0, MPI_BYTE, t->peer, tag, comm, r);
}

static int post_send(const bcast_call *b, const transfer *t, int tag, MPI_Comm comm,
                     const char *token, MPI_Request *r)
{
    if (t->peer < 0)
        return MPI_SUCCESS;
    return t->count > 0
        ? ftc_p2p_isend(elements_at(b, t->first), (int)t->count, b->wire_type, t->peer, tag,
                        comm, r)
        : ftc_p2p_isend(token, 0, MPI_BYTE, t->peer, tag, comm, r);
}

/*
 * The sends in flight. A step waits only for its receive: the next step's
 * send needs what arrived (the data, or the token's news), not that the
 * receiver took the last one. A send past the shared memory's inline size
 * may complete only once its receiver takes it, so waiting for each in
 * turn, as a step by step plan would, makes a parent wait for one child
 * before it sends to the next (oversubscribed, a time slice each); MPI's
 * tree broadcasts post them all too. No receive writes where a send in
 * flight reads: the binomial flow receives the data only before it sends
 * it; the ring brings back blocks a rank passed on in the scatter, so the
 * scatter's sends complete before the ring starts (run_attempt), and in
 * the ring a rank never receives a block it sent.
 */
typedef struct {
    MPI_Request requests[FTC_FT_MAX_WAIT];   /* sends only: waited for with no expected sizes */
    double stamps[FTC_FT_MAX_WAIT];  /* the send times a stamped transfer sends first */
    int count;
    int last_peer;                   /* for the watchdog's progress note */
} sends_in_flight;

/* None yet: the requests are written as sends are posted. */
static void start_sends(sends_in_flight *f)
{
    f->count = 0;
    f->last_peer = -1;
}

static void release_sends(sends_in_flight *f)
{
    ftc_ft_abandon(f->requests, NULL, f->count);
    f->count = 0;
}

/* Waits for every send in flight, with the sentinel: MPI_SUCCESS,
 * FTC_DETECTED, or MPI's error (the caller says what failed). */
static int finish_sends(bcast_call *b, sends_in_flight *f, int step)
{
    if (f->count == 0)
        return MPI_SUCCESS;
    ftc_watch_progress(&b->comm->watch, step, "broadcasting to", f->last_peer);
    const int rc = ftc_ft_wait(b->ft, f->requests, NULL, f->count);
    f->count = 0;   /* completed, or abandoned by the wait */
    return rc;
}

/* A stamped transfer's send time, just before its data, in flight with it. */
static int post_stamp(const transfer *t, int tag, MPI_Comm comm, sends_in_flight *f)
{
    if (!t->stamped)
        return MPI_SUCCESS;
    f->stamps[f->count] = ftc_net_now();
    f->requests[f->count] = MPI_REQUEST_NULL;
    const int rc = ftc_p2p_isend(&f->stamps[f->count], 1, MPI_DOUBLE, t->peer, tag, comm,
                                 &f->requests[f->count]);
    f->count += rc == MPI_SUCCESS;
    return rc;
}

static int post_step_send(bcast_call *b, const plan_step *s, int step, int tag, MPI_Comm comm,
                          sends_in_flight *f)
{
    static const char token = 0;   /* empty messages: never read */
    ftc_allreduce_injection_point(b->comm, b->number, step, FTC_INJECT_BEFORE_SEND, NULL);
    if (s->send.peer < 0)
        return MPI_SUCCESS;
    const int requests = s->send.stamped ? 2 : 1;
    int rc = f->count + requests > FTC_FT_MAX_WAIT ? finish_sends(b, f, step) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = post_stamp(&s->send, tag, comm, f);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Request *r = &f->requests[f->count];
    *r = MPI_REQUEST_NULL;
    rc = post_send(b, &s->send, tag, comm, &token, r);
    if (rc != MPI_SUCCESS)
        return rc;
    f->count++;
    f->last_peer = s->send.peer;
    ftc_allreduce_injection_point(b->comm, b->number, step, FTC_INJECT_AFTER_SEND, r);
    return MPI_SUCCESS;
}

/* A stamped message is held until its channel's emulated latency passed
 * since it was sent (MPI's send in flight reads its stamp from
 * sends_in_flight, on the caller's stack: a send released on a failure
 * may be read later, so the stamp is bounded). */
static void hold_for_latency(const bcast_call *b, const transfer *t, double sent)
{
    if (!t->stamped || t->peer < 0)
        return;
    const double latency = b->tree->latency(b->tree->context, t->peer, b->me);
    const double now = ftc_net_now();
    /* never longer than the latency from now: a stamp from the future can
     * only be garbage, and no sleep here may outlast a failure */
    ftc_net_sleep_until(sent < now ? sent + latency : now + latency);
}

/* One step: its receive (after its stamp, if any) and its send posted,
 * the receive waited for with the sentinel; the send joins those in
 * flight. On a failure every request of the call is cancelled or
 * released. */
static int exchange(bcast_call *b, const plan_step *s, int step, sends_in_flight *f)
{
    char token_in = 0;   /* an empty message: nothing is written */
    double sent = 0;
    MPI_Request receive[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };   /* the stamp, the data */
    const int expected[2] = { (int)sizeof(double), (int)s->receive.count * b->wire_size };
    const MPI_Comm comm = ftc_ft_epoch_comm(b->ft);
    const int tag = ftc_ft_call_tag(b->ft, b->number);
    int rc = s->receive.stamped && s->receive.peer >= 0
        ? ftc_p2p_irecv(&sent, 1, MPI_DOUBLE, s->receive.peer, tag, comm, &receive[0])
        : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = post_receive(b, &s->receive, tag, comm, &token_in, &receive[1]);
    if (rc == MPI_SUCCESS)
        rc = post_step_send(b, s, step, tag, comm, f);
    if (rc == MPI_SUCCESS && s->receive.peer >= 0) {
        ftc_watch_progress(&b->comm->watch, step, "broadcasting with", s->receive.peer);
        rc = ftc_ft_wait(b->ft, receive, expected, 2);
    }
    if (rc == MPI_SUCCESS) {
        hold_for_latency(b, &s->receive, sent);
        return MPI_SUCCESS;
    }
    ftc_ft_abandon(receive, expected, 2);
    release_sends(f);
    return rc == FTC_DETECTED || ftc_ft_is_process_failure(rc)
        ? FTC_DETECTED : ftc_fail_mpi(rc, "ftc_bcast: step %d with ranks %d and %d failed", step,
                                      s->receive.peer, s->send.peer);
}

/*
 * The tokens bound how far apart the ranks' calls can drift (a rank
 * completes a call with tokens only once every live rank entered it),
 * which only a meeting that serves late ranks needs. With at most two live
 * ranks a death leaves one survivor and nobody to serve
 * (ftc_ft_keeps_results): there the root sends its data and goes on, as a
 * plain binomial tree. With more, the binomial flow sends its tokens only
 * on some calls (select.h): every call whose number is a multiple of
 * FTC_FT_WINDOW, so that the calls present at a meeting stay within the
 * window whatever the sizes, and every period-th call of its size class
 * (every FTC_FT_WINDOW-th for messages up to 16 KiB, every one above
 * 512 KiB), so that the results every rank keeps since the last call with
 * tokens (ft/reconcile.h) stay within FTC_FT_KEPT_BYTES per class. The
 * scatter and ring synchronizes every rank anyway (scatter_ring.h).
 */
static bool sends_tokens(const bcast_call *b)
{
    if (!ftc_ft_keeps_results(b->ft) || b->confirms || b->algorithm == FTC_BCAST_TREE)
        return false;
    return b->algorithm != FTC_BCAST_DISSEMINATION || !b->root_alive ||
           ftc_ft_sends_tokens(b->number, b->token_class, b->class_calls);
}

/*
 * Whether this call confirms (select.h): where a late rank could be
 * served at all, with the root alive (else nobody holds the data: the
 * tokens run as usual and every survivor fails alike).
 */
static bool confirms(const bcast_call *b)
{
    if (!ftc_ft_keeps_results(b->ft) || !b->root_alive)
        return false;
    return ftc_bcast_confirms(b->bytes, b->algorithm,
                              (ftc_bcast_confirmation)b->comm->bcast_confirmation,
                              b->comm->bcast_processors_shared) ||
           (b->algorithm == FTC_BCAST_TREE &&
            ftc_ft_sends_tokens(b->number, b->token_class, b->class_calls));
}

/* The caller's tree, where it can run: its root alive and every live rank
 * in it (a rank that meets a death between choosing it and entering here
 * finds the epoch changed). */
static ftc_bcast_algorithm plan_of(const bcast_call *b)
{
    if (!b->root_alive)
        return FTC_BCAST_DISSEMINATION;
    if (b->tree && b->tree->tree->n == b->n && b->tree->tree->root == b->root_index)
        return FTC_BCAST_TREE;
    return ftc_bcast_decide(b->n, b->bytes, (ftc_bcast_algorithm)b->comm->bcast_plan);
}

/*
 * The confirmation: the dissemination barrier's exchanges, tokens only,
 * numbered after the plan's steps. A rank starts it holding the data and
 * completes it having heard, through the chain of receives, from every
 * live rank after that rank held the data. Its tokens travel on the
 * call's tag behind the plan's messages: between two ranks MPI keeps
 * them in order, and a rank posts its plan's receives first.
 */
static int confirm_everyone_holds(bcast_call *b, sends_in_flight *f)
{
    const int plan_steps = steps_of(b);
    int rc = MPI_SUCCESS;
    for (int k = 0; rc == MPI_SUCCESS && k < ftc_dissemination_steps(b->n); k++) {
        const ftc_dissemination_step d = ftc_dissemination_step_of(b->me, b->root_index, b->n, k);
        const plan_step s = { { d.send_to, 0, 0, false }, { d.receive_from, 0, 0, false } };
        rc = exchange(b, &s, plan_steps + k, f);
    }
    return rc;
}

/* finish_sends for the plan's loop: an MPI error named. */
static int flushed(bcast_call *b, sends_in_flight *f, int step)
{
    const int rc = finish_sends(b, f, step);
    return rc == MPI_SUCCESS || rc == FTC_DETECTED
        ? rc : ftc_fail_mpi(rc, "ftc_bcast: sends up to step %d failed", step);
}

/*
 * Two live ranks, the root one of them: the binomial flow is one message,
 * and no token travels (sends_tokens). The same exchange without the
 * plan's loop: back-to-back calls on two ranks pay little else per call.
 */
static int run_pair(bcast_call *b)
{
    const transfer data = { 1 - b->me, 0, b->wire_count, false }, none = { -1, 0, 0, false };
    const plan_step s = b->me == b->root_index ? (plan_step){ data, none }
                                               : (plan_step){ none, data };
    sends_in_flight in_flight;
    start_sends(&in_flight);
    int rc = exchange(b, &s, 0, &in_flight);
    if (rc == MPI_SUCCESS)
        rc = flushed(b, &in_flight, 0);
    b->holds_data |= rc == MPI_SUCCESS;
    return rc;
}

/* With the root dead since an earlier call, every survivor knows that
 * nobody can hold its data, yet the steps still run, tokens only: a rank
 * that skipped them could complete this call and the next while another
 * rank is still in the previous one (dissemination.h). */
static int run_attempt(bcast_call *b)
{
    b->n = ftc_ft_live_count(b->ft);
    b->me = ftc_ft_live_index(b->ft);
    b->root_alive = ftc_ft_is_alive(b->ft, b->root);
    b->root_index = b->root_alive ? ftc_ft_epoch_rank(b->ft, b->root) : 0;
    b->algorithm = plan_of(b);
    b->confirms = confirms(b);
    b->tokens = sends_tokens(b);
    if (b->n == 2 && b->root_alive && b->algorithm == FTC_BCAST_DISSEMINATION)
        return run_pair(b);
    int rc = prepare_data(b);
    const int steps = steps_of(b), holds_after = last_data_step(b);
    sends_in_flight in_flight;
    start_sends(&in_flight);
    for (int step = 0; rc == MPI_SUCCESS && step < steps; step++) {
        const plan_step s = step_of(b, step);
        rc = exchange(b, &s, step, &in_flight);
        if (rc == MPI_SUCCESS && b->algorithm == FTC_BCAST_SCATTER_RING &&
            step == ftc_scatter_ring_scatter_steps(b->n) - 1)
            rc = flushed(b, &in_flight, step);   /* the scatter's last step: the ring follows */
        b->holds_data |= rc == MPI_SUCCESS && step == holds_after;
    }
    if (rc == MPI_SUCCESS && b->confirms)
        rc = confirm_everyone_holds(b, &in_flight);
    if (rc == MPI_SUCCESS)
        rc = flushed(b, &in_flight, steps - 1);
    return rc == MPI_SUCCESS && b->holds_data ? deliver_data(b) : rc;
}

/* ---- the end of a call ------------------------------------------------------------------- */

/* What this rank's value holds: the root's data, or nothing. */
static ftc_holdings *holdings_of(const bcast_call *b)
{
    ftc_holdings *held = ftc_allreduce_call_holdings(b->comm);
    ftc_holdings_clear(held);
    if (b->holds_data)
        ftc_holdings_add(held, b->root);
    return held;
}

static int root_lost(const bcast_call *b)
{
    return ftc_fail(ftc_ft_failed_class(), "ftc_bcast: root %d died before its data reached "
                                           "any survivor", b->root);
}

/* What this rank knows of the others as its attempt completes. */
static ftc_completed_as completed_as(const bcast_call *b)
{
    if (b->confirms)
        return FTC_EVERYONE_HOLDS;
    return b->tokens ? FTC_EVERYONE_ENTERED : FTC_OTHERS_MAY_LAG;
}

/* The call is over here without a meeting: reported, its value kept
 * unless the confirmation made that needless. */
static int complete(const bcast_call *b)
{
    word_layout layout = { 0, 0 };   /* sized only when the value is kept */
    int rc = ftc_ft_keeps_results(b->ft) ? layout_of(b, &layout) : MPI_SUCCESS;
    char *keep_into = NULL;
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_attempt_completed(b->comm, b->number, holdings_of(b), layout.words,
                                             MPI_UINT64_T, word_bytes(&layout), completed_as(b),
                                             NULL, &keep_into);
    if (rc == MPI_SUCCESS && keep_into) {
        if (b->holds_data)
            rc = pack_words(b, &layout, keep_into);
        else
            memset(keep_into, 0, word_bytes(&layout));
        if (rc != MPI_SUCCESS)
            ftc_ft_drop_kept(b->ft);
    }
    if (rc == MPI_SUCCESS && !b->holds_data)
        rc = root_lost(b);
    return rc;
}

/* After a failure: the survivors finish the call with the engine's recovery. */
static int recover(bcast_call *b)
{
    word_layout layout;
    int rc = layout_of(b, &layout);
    const size_t bytes = word_bytes(&layout);
    if (rc == MPI_SUCCESS)
        rc = ftc_ensure_capacity(&b->comm->packed, &b->comm->packed_size, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    char *words = b->comm->packed;
    if (b->holds_data)
        rc = pack_words(b, &layout, words);
    else
        memset(words, 0, bytes);
    if (rc == MPI_SUCCESS)   /* comm->scratch was sized for this (travel_packed) */
        rc = ftc_allreduce_resume(b->comm, b->number, words, layout.words, MPI_UINT64_T, MPI_BOR,
                                  bytes, holdings_of(b));
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ftc_allreduce_result_includes(b->comm, b->root))
        return root_lost(b);
    if (b->comm->rank == b->root)
        return MPI_SUCCESS;
    int position = 0;
    rc = MPI_Unpack(words, layout.packed_bytes, &position, b->buf, b->count, b->type,
                    b->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_bcast: unpacking failed");
}

int ftc_bcast_fault_tolerant(void *buf, int count, MPI_Datatype type, const ftc_type_shape *shape,
                             int root, ftc_comm_t comm, const ftc_bcast_tree_plan *tree)
{
    const size_t bytes = (size_t)shape->size * (size_t)count;
    const int token_class = ftc_ft_token_class(bytes);
    bcast_call b = { .comm = comm, .ft = comm->ft, .buf = buf, .count = count, .type = type,
                     .extent = shape->extent, .type_size = shape->size, .bytes = bytes,
                     /* the checks remember a predefined type that passed */
                     .contiguous = shape->contiguous && type == comm->bcast_type.type,
                     .root = root, .tree = tree,
                     .number = ftc_ft_begin_call(comm->ft), .token_class = token_class,
                     .class_calls = ++comm->bcast_class_calls[token_class],
                     .data = buf, .wire_count = count,
                     .wire_type = type, .wire_extent = shape->extent, .wire_size = shape->size,
                     .holds_data = comm->rank == root };
    /* a rank others wait for in a meeting goes there first; so does one
     * that knows of a death already (its plan may be another's: a network
     * tree chosen on latencies that the death kept it from updating) */
    const int rc = ftc_ft_owes_meeting(comm->ft) || ftc_ft_failure_known(comm->ft)
        ? FTC_DETECTED : run_attempt(&b);
    if (rc == FTC_DETECTED)
        return recover(&b);
    return rc == MPI_SUCCESS ? complete(&b) : rc;
}
