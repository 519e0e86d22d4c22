/*
 * ftc_scan's and ftc_exscan's algorithm for small inputs: a chain down the
 * live ranks in rank order, each rank passing on the prefix so far and
 * every input so far.
 *
 *   live index i of n, a_i its input (N bytes), P_i = (..(a_0 op a_1)..) op a_i:
 *     receive  from i - 1: [P_i-1 | a_0 .. a_i-1], (i + 1) N bytes
 *              (from rank 0: [a_0], N bytes, P_0 being a_0)
 *     combine  scan:   recvbuf = P_i-1 op a_i      (a_0 at i = 0)
 *              exscan: recvbuf = P_i-1, and P_i = P_i-1 op a_i
 *     send     to i + 1: [P_i | a_0 .. a_i], (i + 2) N bytes
 *
 *   n = 3, scan:  0 --[a0]--> 1 --[a0+a1 | a0 a1]--> 2
 *                 a0          a0+a1                  (a0+a1)+a2
 *
 *   taint     a rank that got a message of the wrong size (ranks that
 *             disagree on count, within the chain's sizes), or an empty
 *             one, sends an empty message on: it and every rank after it
 *             return MPI_ERR_TRUNCATE, instead of waiting for ever or
 *             combining what they never got (the ranks before it succeed). Nothing is
 *             added to a message: at p = 2 it is MPI's, N bytes, and stays
 *             within the transports' short-message sizes as long as MPI's
 *   failure   every wait includes the layer's sentinel: each survivor stops
 *             within milliseconds, holding its own input and, once its
 *             message arrived, the inputs of the live ranks before it
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): the p
 *             inputs side by side in 8-byte words, zeros where not held, op
 *             MPI_BOR; holdings {i} or {0 .. i}, nested or disjoint as the
 *             engine needs. Every survivor gets their union, S, and folds
 *             its prefix over S in rank order (fold.c)
 *   return    a rank completes once its message is sent, before the ranks
 *             after it entered. Its result put every rank up to it in S,
 *             so with three or more live ranks it keeps the inputs it
 *             holds, {0 .. i}, which a meeting serves to the ranks still
 *             inside the call: they are in S whichever of their owners died
 *             since. The last rank completes once every rank entered: the
 *             window of kept calls starts afresh there (ft/reconcile.h)
 *
 * Why the inputs travel with the prefix: P_i-1 holds a dead rank's input
 * only combined, and ops have no inverse, so survivors could not build one
 * S out of prefixes; out of inputs they can. For small inputs that costs
 * bytes, not hops.
 *
 * Cost: n - 1 hops in a row, hop i carrying (i + 2) N bytes (hop 0: N),
 * one op per rank; back-to-back calls pipeline down the chain, as Open
 * MPI's linear scan does. With three or more live ranks a rank copies
 * (i + 1) N bytes for late ranks. p N stays within
 * FTC_SCAN_CHAIN_MAX_BYTES on three ranks or more (select.c).
 */
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "scan.h"
#include "state.h"

/* FTCOLL_INJECT's steps of a chain: entering; once the message arrived
 * (before-send: before passing it on; after-send: once passed on). */
enum { STEP_ENTER = 0, STEP_RECEIVED = 1 };

typedef struct {
    const ftc_scan_call *call;
    ftc_comm_t comm;
    ftc_ft *ft;
    long number;
    int n, i;          /* live ranks; this rank's live index */
    size_t block;      /* N */
    /* slot 0 the prefix, slot 1 + j live index j's input; rank 0's message
     * is slot 1 alone (its input, which is P_0) */
    char *room;
    bool received;     /* the inputs of live indices 0 .. i - 1 are here */
    const char *own;   /* this rank's input once placed (NULL before): its
                        * send buffer where that stays as it is to the end
                        * and no message of this rank carries it beside
                        * others, else slot 1 + i */
    int tag;
    MPI_Comm epoch;
} chain;

static char *slot(const chain *c, int s) { return c->room + (size_t)s * c->block; }

static int rank_of(const chain *c, int index) { return ftc_ft_live_ranks(c->ft)[index]; }

/* The message that leaves live index i, and where it lies at both ends:
 * P_i and i + 1 inputs from slot 0, or rank 0's input alone in slot 1. */
static int message_bytes(const chain *c, int i)
{
    return (int)((size_t)(i == 0 ? 1 : i + 2) * c->block);
}

/* Where P_i-1 arrived: with rank 0's input, it is that input. */
static const char *previous_prefix(const chain *c) { return slot(c, c->i == 1 ? 1 : 0); }

/* The p inputs, side by side in whole 8-byte words, as the engine's
 * recovery and the kept copies see them: sized from p, never from the
 * live ranks, so that a rank late in an older epoch sizes them alike. */
static int word_count(const chain *c)
{
    return (int)((c->block * (size_t)c->comm->size + 7) / 8);
}

/* ---- the flow ------------------------------------------------------------------------------- */

static int receive(chain *c)
{
    const int expected = message_bytes(c, c->i - 1);
    const int previous = rank_of(c, c->i - 1);
    MPI_Request r = MPI_REQUEST_NULL;
    const int rc = ftc_p2p_irecv(slot(c, c->i == 1 ? 1 : 0), expected, MPI_BYTE, c->i - 1, c->tag, c->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: a receive failed", c->call->name);
    return ftc_ft_wait_in_flow(c->comm, &r, &expected, 1, STEP_ENTER, c->call->name,
                               "receiving the prefix (do the ranks agree on count?) from",
                               previous);
}

/* The message to live index i + 1, or an empty one: the taint. */
static int send_on(chain *c, bool tainted)
{
    const int bytes = tainted ? 0 : message_bytes(c, c->i);
    const int next = rank_of(c, c->i + 1);
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = -1;
    const void *from = c->i == 0 ? c->own : slot(c, 0);
    const int rc = ftc_p2p_isend(from, bytes, MPI_BYTE, c->i + 1, c->tag, c->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: sending to rank %d failed", c->call->name, next);
    ftc_allreduce_injection_point(c->comm, c->number, STEP_RECEIVED, FTC_INJECT_AFTER_SEND, &r);
    return ftc_ft_wait_in_flow(c->comm, &r, &expected, 1, STEP_RECEIVED, c->call->name,
                               "sending the prefix to", next);
}

/* inout = in op inout, the left operand first: rank order kept. */
static int reduce(const chain *c, const void *in, void *inout)
{
    const ftc_scan_call *call = c->call;
    if (MPI_Reduce_local(in, inout, call->count, call->type, call->op) != MPI_SUCCESS)
        return ftc_fail(MPI_ERR_OP, "%s: MPI_Reduce_local failed", call->name);
    return MPI_SUCCESS;
}

/* previous_prefix() holds P_i-1 (i > 0), c->own this rank's input: recvbuf
 * gets the result, and slot 0 becomes P_i where a rank follows (rank 0's
 * message is its input). The slot after the own one is free. */
static int combine(chain *c)
{
    const ftc_scan_call *call = c->call;
    const size_t bytes = c->block;
    const bool followed = c->i + 1 < c->n;
    const char *own = c->own;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (c->i == 0) {
        if (!call->exclusive && call->result != call->input)
            memcpy(call->result, own, bytes);
        return MPI_SUCCESS;
    }
    const char *previous = previous_prefix(c);
    if (!call->exclusive) {
        if (call->result != call->input)
            memcpy(call->result, own, bytes);
        const int rc = reduce(c, previous, call->result);
        if (rc == MPI_SUCCESS && followed)
            memcpy(slot(c, 0), call->result, bytes);
        return rc;
    }
    memcpy(call->result, previous, bytes);
    if (!followed)
        return MPI_SUCCESS;
    char *next_prefix = slot(c, 2 + c->i);
    memcpy(next_prefix, own, bytes);
    const int rc = reduce(c, previous, next_prefix);
    if (rc == MPI_SUCCESS)
        memcpy(slot(c, 0), next_prefix, bytes);
    return rc;
}

/* A wrong size upstream or here: the ranks after this one are told, so
 * that none waits for ever, and this rank returns `rc`. */
static int pass_error_on(chain *c, int rc)
{
    if (c->i + 1 < c->n && !ftc_ft_survivable(rc))
        (void)send_on(c, true);
    return rc;
}

/* This rank's input where it stays to the end of the call: its send
 * buffer, unless the result overwrites it (in place, but at rank 0, whose
 * recvbuf keeps it) or a message carries it beside the others (a rank
 * between the first and the last), else copied into its slot. */
static void place_own(chain *c)
{
    const ftc_scan_call *call = c->call;
    const bool stays = call->input != call->result || c->i == 0;
    const bool in_message = c->i > 0 && c->i + 1 < c->n;
    c->own = call->input;
    if (stays && !in_message)
        return;
    if (c->block > 0)
        memcpy(slot(c, 1 + c->i), call->input, c->block);
    c->own = slot(c, 1 + c->i);
}

static int run_flow(chain *c)
{
    ftc_allreduce_injection_point(c->comm, c->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND, NULL);
    if (ftc_ft_failure_known(c->ft))
        return FTC_DETECTED;
    int rc = c->i > 0 ? receive(c) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return pass_error_on(c, rc);
    c->received = true;
    place_own(c);
    ftc_allreduce_injection_point(c->comm, c->number, STEP_RECEIVED, FTC_INJECT_BEFORE_SEND,
                                  NULL);
    rc = combine(c);
    if (rc != MPI_SUCCESS)
        return pass_error_on(c, rc);
    return c->i + 1 < c->n ? send_on(c, false) : MPI_SUCCESS;
}

/* ---- the end of a call ------------------------------------------------------------------------ */

/* The chain completed here: reported with S = {0 .. i}, and those inputs
 * kept for ranks still inside the call at a meeting. */
static int complete(const chain *c)
{
    ftc_comm_t comm = c->comm;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    ftc_holdings_clear(held);
    for (int j = 0; j <= c->i; j++)
        ftc_holdings_add(held, rank_of(c, j));
    const int words = word_count(c);
    const ftc_kept_part part = { .op = MPI_BOR, .block_width = c->block, .root = -1 };
    const ftc_completed_as how = c->i + 1 == c->n ? FTC_EVERYONE_ENTERED : FTC_OTHERS_MAY_LAG;
    char *keep_into = NULL;
    const int rc = ftc_allreduce_attempt_completed(comm, c->number, held, words, MPI_UINT64_T,
                                                   (size_t)words * 8, how, &part, &keep_into);
    for (int j = 0; rc == MPI_SUCCESS && keep_into && c->block > 0 && j <= c->i; j++)
        memcpy(keep_into + (size_t)j * c->block, j < c->i ? slot(c, 1 + j) : c->own,
               c->block);
    return rc;
}

/* The inputs this rank holds, each in its owner's place among the p, zeros
 * elsewhere. Its own comes from where it was placed: in place, recvbuf
 * may hold a result by then. */
static void lay_out_held(const chain *c, char *blocks, ftc_holdings *held)
{
    const size_t bytes = c->block;
    memset(blocks, 0, (size_t)word_count(c) * 8);
    ftc_holdings_clear(held);
    for (int j = 0; c->received && j < c->i; j++) {
        if (bytes > 0)
            memcpy(blocks + (size_t)rank_of(c, j) * bytes, slot(c, 1 + j), bytes);
        ftc_holdings_add(held, rank_of(c, j));
    }
    if (bytes > 0)
        memcpy(blocks + (size_t)c->comm->rank * bytes,
               c->own ? c->own : c->call->input, bytes);
    ftc_holdings_add(held, c->comm->rank);
}

/* A failure stopped the chain (or a meeting is owed): the survivors end
 * the call with the engine's round over the inputs they hold, and each
 * folds its prefix over S. */
static int recover(const chain *c)
{
    ftc_comm_t comm = c->comm;
    const size_t words_bytes = (size_t)word_count(c) * 8;
    const int rc = ftc_ensure_capacity(&comm->packed, &comm->packed_size,
                                       words_bytes > 0 ? words_bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    char *blocks = comm->packed;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    lay_out_held(c, blocks, held);
    const int resumed = ftc_allreduce_resume(comm, c->number, blocks, word_count(c),
                                             MPI_UINT64_T, MPI_BOR, words_bytes, held);
    return resumed == MPI_SUCCESS ? ftc_scan_fold(c->call, blocks) : resumed;
}

/* ---- the call ---------------------------------------------------------------------------------- */

int ftc_scan_chain(const ftc_scan_call *call)
{
    ftc_comm_t comm = call->comm;
    ftc_ft *ft = comm->ft;
    const long number = ftc_ft_begin_call(ft);
    chain c = { .call = call, .comm = comm, .ft = ft, .number = number,
                .n = ftc_ft_live_count(ft), .i = ftc_ft_live_index(ft),
                .block = ftc_scan_block_bytes(call), .room = comm->scan->room,
                .tag = ftc_ft_call_tag(ft, number), .epoch = ftc_ft_epoch_comm(ft) };
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(ft) ? FTC_DETECTED : run_flow(&c);
    if (rc == MPI_SUCCESS)
        return complete(&c);
    return ftc_ft_survivable(rc) ? recover(&c) : rc;
}
