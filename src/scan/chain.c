/*
 * ftc_scan's and ftc_exscan's algorithm: a chain down the live ranks in
 * rank order, each rank passing on the prefix so far, as Open MPI's linear
 * scan does.
 *
 *   live index i of n, a_i its input (N bytes), P_i = (..(a_0 op a_1)..) op a_i:
 *     receive  P_i-1 from i - 1                      (i > 0; an exscan's
 *                                                     into recvbuf itself,
 *                                                     unless in place)
 *     combine  scan:   recvbuf = P_i = P_i-1 op a_i  (a_0 at i = 0)
 *              exscan: recvbuf = P_i-1, and P_i = P_i-1 op a_i beside it
 *     send     P_i to i + 1, N bytes                 (i < n - 1)
 *     tokens   on some calls, a dissemination barrier of empty messages
 *
 *   n = 3, scan:  0 --[a0]--> 1 --[a0+a1]--> 2
 *                 a0          a0+a1          (a0+a1)+a2
 *
 *   taint     a rank that got a message of the wrong size (ranks that
 *             disagree on count), or an empty one, sends an empty message
 *             on: it and every rank after it return MPI_ERR_TRUNCATE,
 *             instead of waiting for ever or combining what they never got
 *             (the ranks before it succeed). Counts in different size
 *             classes can still disagree on the tokens (docs/ft-allreduce.md)
 *   failure   every wait includes the layer's sentinel: each survivor stops
 *             within milliseconds, holding P_i once its message arrived
 *             (rank 0 always), else its own input a_i (and an exscan's
 *             recvbuf maybe part of P_i-1, which the fold overwrites, or
 *             which stays where S has no rank before it)
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): one
 *             block per rank, N bytes, a tag (1: a prefix, 2: an input)
 *             and, for a prefix, the ranks it combines (the live ranks up
 *             to its own); zeros where not held, op MPI_BOR, holdings {the
 *             rank}: never overlapping. Every survivor gets every block
 *             held; then K, the highest rank whose prefix is among them,
 *             decides S: the ranks P_K combines, and above K the ranks
 *             whose input is there. A rank whose message had arrived
 *             keeps the result it made (S up to it: every live rank); any
 *             other folds P_K op a_j over the inputs of S after K, in rank
 *             order (fold.c). Blocks are padded to 16 bytes: an op gets
 *             its operands aligned
 *   return    a rank completes once its message is sent, before the ranks
 *             after it entered; with three or more live ranks it keeps
 *             P_i (its block) for ranks still inside the call at a
 *             meeting. Its result put every live rank up to it into S, and
 *             its kept prefix puts them there for everyone: a rank after
 *             it that got no message finds K at or above it. The last
 *             rank, and every rank on a call with tokens, completes once
 *             every rank entered: the window of kept calls starts afresh
 *             there (ft/reconcile.h)
 *   tokens    with ULFM on three ranks or more, every FTC_FT_WINDOW-th
 *             call and every period-th call of a size class (the token
 *             periods of ft/tokens.h: the copies kept stay within
 *             FTC_SCAN_KEPT_BYTES, select.c) ends in the barrier, so that
 *             no rank runs more than FTC_FT_WINDOW calls ahead
 *
 * Why this S: a prefix holds a dead rank's input only combined, and ops
 * have no inverse; so survivors never rebuild a prefix out of pieces, they
 * take the longest one that exists whole and extend it with inputs.
 *
 * Cost: n - 1 hops of N bytes in a row, one op per rank (two at an
 * exscan's rank, which also makes P_i); back-to-back calls pipeline down
 * the chain. With three or more live ranks each rank copies N bytes for
 * late ranks; a call with tokens adds ceil(log2 n) empty exchanges.
 */
#include <limits.h>
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "../reduce_local.h"
#include "scan.h"
#include "state.h"

/* FTCOLL_INJECT's steps of a chain: entering; once P_i is made (before
 * sending it on, or at=after-send once sent); in the tokens. */
enum { STEP_ENTER = 0, STEP_PREFIX = 1, STEP_TOKENS = 2 };

typedef struct {
    const ftc_scan_call *call;
    ftc_comm_t comm;
    ftc_ft *ft;
    long number;
    int n, i;          /* live ranks; this rank's live index */
    size_t block;      /* N */
    char *room;        /* slot 0: P_i-1 as it arrives; slot 1: an exscan's P_i */
    bool made;         /* P_i is made (this rank's message had arrived) */
    bool tokens;       /* the call ends in the dissemination barrier */
    int tag;
    MPI_Comm epoch;
} chain;

static char *slot(const chain *c, int s) { return c->room + (size_t)s * c->block; }

static int rank_of(const chain *c, int index) { return ftc_ft_live_ranks(c->ft)[index]; }

/* Where P_i is once made: a scan's recvbuf; an exscan's slot 1, or at
 * rank 0 its input (P_0 = a_0; an exscan's rank 0 writes no recvbuf). An
 * exscan's last rank makes no P_i, which nobody after it needs: its block
 * says "prefix" over slot 0's bytes (P_i-1, or nothing when P_i-1 arrived
 * in recvbuf), which no survivor ever reads (a block's bytes serve only
 * ranks above it). */
static const char *own_prefix(const chain *c)
{
    if (!c->call->exclusive)
        return c->call->result;
    if (c->i == 0)
        return c->call->input;
    return slot(c, c->i + 1 < c->n ? 1 : 0);
}

/* ---- the flow ------------------------------------------------------------------------------- */

/* The bytes a receive must bring, for ftc_ft_wait's check: count x the
 * type's size (a pair type's extent has padding that never travels). Past
 * what an int counts (only without ULFM: with it, check_total in scan.c
 * keeps p blocks within 2 GiB), only MPI's truncation check is left, and
 * no failure can make the wait abandon the receive. */
static int expected_bytes(const chain *c)
{
    const size_t bytes = (size_t)c->call->count * (size_t)c->call->shape.size;
    return bytes <= INT_MAX ? (int)bytes : -1;
}

/* Where P_i-1 arrives: an exscan's recvbuf, its result, unless in place
 * (recvbuf is the input then, which a recovery may need); else slot 0. */
static bool arrives_in_result(const chain *c)
{
    return c->call->exclusive && c->call->result != c->call->input;
}

static char *arrival(const chain *c)
{
    return arrives_in_result(c) ? c->call->result : slot(c, 0);
}

/* The prefix travels typed, count elements: no byte count to overflow. */
static int receive(chain *c)
{
    const int expected = expected_bytes(c);
    const int previous = rank_of(c, c->i - 1);
    MPI_Request r = MPI_REQUEST_NULL;
    const int rc = ftc_p2p_irecv(arrival(c), c->call->count, c->call->type, c->i - 1, c->tag,
                                 c->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: a receive failed", c->call->name);
    return ftc_ft_wait_in_flow(c->comm, &r, &expected, 1, STEP_ENTER, c->call->name,
                               "receiving the prefix (do the ranks agree on count?) from",
                               previous);
}

/* P_i to live index i + 1, or an empty message: the taint. */
static int send_on(chain *c, bool tainted)
{
    const int next = rank_of(c, c->i + 1);
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = -1;
    const int rc = ftc_p2p_isend(own_prefix(c), tainted ? 0 : c->call->count, c->call->type,
                                 c->i + 1, c->tag, c->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: sending to rank %d failed", c->call->name, next);
    ftc_allreduce_injection_point(c->comm, c->number, STEP_PREFIX, FTC_INJECT_AFTER_SEND, &r);
    return ftc_ft_wait_in_flow(c->comm, &r, &expected, 1, STEP_PREFIX, c->call->name,
                               "sending the prefix to", next);
}

/* inout = in op inout, the left operand first: rank order kept. */
static int reduce(const chain *c, const void *in, void *inout)
{
    const ftc_scan_call *call = c->call;
    if (ftc_reduce_local(in, inout, call->count, call->type, call->op) != MPI_SUCCESS)
        return ftc_fail(MPI_ERR_OP, "%s: MPI_Reduce_local failed", call->name);
    return MPI_SUCCESS;
}

/* P_i-1 has arrived (i > 0; arrival()): recvbuf gets the result and P_i
 * is made (own_prefix). An exscan makes P_i before writing recvbuf: in
 * place, recvbuf is its input. */
static int combine(chain *c)
{
    const ftc_scan_call *call = c->call;
    const size_t bytes = c->block;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (!call->exclusive) {
        if (call->result != call->input)
            memcpy(call->result, call->input, bytes);
        return c->i == 0 ? MPI_SUCCESS : reduce(c, slot(c, 0), call->result);
    }
    if (c->i == 0)
        return MPI_SUCCESS;
    const bool last = c->i + 1 == c->n;
    if (!last) {
        memcpy(slot(c, 1), call->input, bytes);
        const int rc = reduce(c, arrival(c), slot(c, 1));
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (!arrives_in_result(c))
        memcpy(call->result, slot(c, 0), bytes);
    return MPI_SUCCESS;
}

/* The dissemination barrier's empty messages (on the call's tag: a chain
 * message from the same rank always comes first, and a receive from
 * another rank never takes it). */
static int exchange_tokens(chain *c)
{
    ftc_allreduce_injection_point(c->comm, c->number, STEP_TOKENS, FTC_INJECT_BEFORE_SEND, NULL);
    const ftc_ft_empties e = { .comm = c->comm, .tag = c->tag, .step = STEP_TOKENS,
                               .call = c->call->name, .doing = "waiting for the token of" };
    return ftc_ft_dissemination(&e, NULL, NULL);
}

/* A wrong size upstream or here: the ranks after this one are told (and
 * the tokens still run), so that none waits for ever; returns `rc`. */
static int pass_error_on(chain *c, int rc)
{
    if (ftc_ft_survivable(rc))
        return rc;
    if (c->i + 1 < c->n)
        (void)send_on(c, true);
    if (c->tokens)
        (void)exchange_tokens(c);
    return rc;
}

static int run_flow(chain *c)
{
    ftc_allreduce_injection_point(c->comm, c->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND, NULL);
    if (ftc_ft_failure_known(c->ft))
        return FTC_DETECTED;
    int rc = c->i > 0 ? receive(c) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = combine(c);
    if (rc != MPI_SUCCESS)
        return pass_error_on(c, rc);
    c->made = true;
    ftc_allreduce_injection_point(c->comm, c->number, STEP_PREFIX, FTC_INJECT_BEFORE_SEND, NULL);
    if (c->i + 1 < c->n)
        rc = send_on(c, false);
    return rc == MPI_SUCCESS && c->tokens ? exchange_tokens(c) : rc;
}

/* ---- the end of a call ------------------------------------------------------------------------ */

/* The blocks as the engine's round and the kept copies see them: one per
 * rank of the communicator (ftc_scan_block_width: N bytes, the tag, the
 * ranks a prefix combines), in whole 8-byte words; sized from p, never
 * from the live ranks, so that a rank late in an older epoch sizes them
 * alike. */
static size_t block_width(const chain *c) { return ftc_scan_block_width(c->call); }

static int word_count(const chain *c)
{
    return (int)((block_width(c) * (size_t)c->comm->size + 7) / 8);
}

/* This rank's block at `to`: P_i once made, with the live ranks up to this
 * one, which it combines; else its input (whole there until combine()
 * runs). */
static void own_block(const chain *c, char *to)
{
    ftc_holdings *combined = &c->comm->scan->result;
    if (c->block > 0)
        memcpy(to, c->made ? own_prefix(c) : c->call->input, c->block);
    ftc_holdings_clear(combined);
    if (c->made) {
        ftc_holdings_copy(combined, ftc_ft_live_set(c->ft));
        ftc_holdings_keep_below(combined, c->comm->rank + 1);
    }
    ftc_scan_write_tag(c->call, to, c->made ? FTC_SCAN_TAG_PREFIX : FTC_SCAN_TAG_INPUT, combined);
}

/* The chain completed here: S, every live rank up to this one, reported;
 * P_i kept for ranks still inside the call at a meeting. */
static int complete(const chain *c)
{
    ftc_comm_t comm = c->comm;
    const ftc_holdings *held = ftc_allreduce_own_holdings(c->comm);
    const int words = word_count(c);
    const ftc_kept_part part = { .op = MPI_BOR, .block_width = block_width(c), .root = -1 };
    const ftc_completed_as how = c->i + 1 == c->n || c->tokens ? FTC_EVERYONE_ENTERED
                                                               : FTC_OTHERS_MAY_LAG;
    char *keep_into = NULL;
    const int rc = ftc_allreduce_attempt_completed(comm, c->number, held, words, MPI_UINT64_T,
                                                   (size_t)words * 8, how, &part, &keep_into);
    if (rc == MPI_SUCCESS && keep_into)
        own_block(c, keep_into);
    ftc_allreduce_report_set(comm, ftc_ft_live_set(c->ft));
    return rc;
}

/* A failure stopped the chain (or a meeting is owed): the survivors end
 * the call with the engine's round over their blocks, and a rank whose
 * message never arrived folds its result from them. */
static int recover(const chain *c)
{
    ftc_comm_t comm = c->comm;
    const int words = word_count(c);
    const size_t bytes = (size_t)words * 8;
    struct ftc_scan_state *s = comm->scan;
    int rc = ftc_ensure_capacity(&comm->packed, &comm->packed_size, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    char *blocks = comm->packed;
    memset(blocks, 0, bytes);
    own_block(c, blocks + (size_t)comm->rank * block_width(c));
    ftc_holdings_copy(&s->made, &s->result);   /* the epoch changes in the meeting */
    rc = ftc_allreduce_resume(comm, c->number, blocks, words, MPI_UINT64_T, MPI_BOR, bytes,
                              ftc_allreduce_own_holdings(c->comm));
    if (rc == MPI_SUCCESS && c->made)   /* its result is there, over every live rank up to it */
        ftc_allreduce_report_set(comm, &s->made);
    return rc == MPI_SUCCESS && !c->made ? ftc_scan_fold(c->call, blocks) : rc;
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
    c.tokens = ftc_scan_sends_tokens(call, number);
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(ft) ? FTC_DETECTED : run_flow(&c);
    if (rc == MPI_SUCCESS)
        return complete(&c);
    return ftc_ft_survivable(rc) ? recover(&c) : rc;
}
