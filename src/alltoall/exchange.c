/*
 * The run of one alltoall(v) over the live ranks, whatever the algorithm:
 * the primitives the algorithms exchange blocks with (algorithms.h), and
 * what makes the call survive a death.
 *
 *   own block   copied from the row into the column first (in place: it
 *               is there already)
 *   exchange    the algorithm (linear.c, pairwise.c, bruck.c) over the
 *               epoch's communicator with the call's tag; a block counts
 *               once it is in place after its last move (its receive
 *               completed whole; with Bruck, the last relay's message)
 *   acks        a block above its share of FTC_ALLTOALL_KEPT_BYTES (that
 *               over the other live ranks) is acknowledged: its receiver
 *               sends an empty message once every block arrived, and its
 *               sender waits for them. Each side decides from the block's
 *               size, which the sender reads in its sendcounts and the
 *               receiver in its recvcounts, so they agree without a message
 *   return      a rank completes once every live rank's block arrived, so
 *               every live rank entered the call (a new window of kept
 *               results starts). Its own blocks may not have arrived yet:
 *               with three or more live ranks it keeps a copy of those not
 *               acknowledged, for a receiver still inside the call at a
 *               meeting
 *   failure     every wait includes the sentinel; the rank holds its row
 *               (its send buffer) and the blocks that arrived
 *   recovery    the engine's round for blocks routed each to one rank
 *               (FTC_ROUTE_ALL_TO_ALL): each survivor still inside the call
 *               gets every block it lacks from its sender, inside the call
 *               or past it with the copy it kept. A dead rank's block that
 *               had not arrived is lost, and the report says which arrived
 *
 * Cost beyond the algorithm's: with three or more live ranks, a copy of
 * the row up to 64 KiB, or alpha for the acknowledgements of larger
 * blocks.
 */
#include <string.h>

#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"
#include "algorithms.h"

/* FTCOLL_INJECT's steps of an alltoall. */
enum { STEP_ENTER = 0, STEP_BLOCKS_HELD = 1, STEP_ACK = 2 };

static int rank_at(const ftc_alltoall_flow *f, int index)
{
    return ftc_ft_live_ranks(f->ft)[index];
}

static size_t bytes_of(const ftc_block_places *p, int rank)
{
    return (size_t)p->counts[rank] * (size_t)p->type_size;
}

/* ---- the primitives of the exchange --------------------------------------------------------- */

int ftc_alltoall_post_receive(ftc_alltoall_flow *f, int from, MPI_Request *r)
{
    const ftc_block_places *column = &f->a->recv;
    const int rank = rank_at(f, from);
    const int rc = ftc_p2p_irecv(ftc_block_place(column, rank), column->counts[rank],
                                 column->type, from, f->tag, f->epoch, r);
    return rc == MPI_SUCCESS ? rc : ftc_fail_mpi(rc, "%s: receiving from rank %d failed",
                                                 f->a->name, rank);
}

int ftc_alltoall_post_send(ftc_alltoall_flow *f, int to, MPI_Request *r)
{
    const ftc_block_places *row = &f->a->send;
    const int rank = rank_at(f, to);
    const int rc = ftc_p2p_isend(ftc_block_place(row, rank), row->counts[rank], row->type, to,
                                 f->tag, f->epoch, r);
    return rc == MPI_SUCCESS ? rc : ftc_fail_mpi(rc, "%s: sending to rank %d failed",
                                                 f->a->name, rank);
}

/* The receive r[0] of `bytes` from index `from`, and `sends` sends after
 * it: *whole once they all completed and the message was whole. One of
 * another size (the user's error, which only this rank can see) is this
 * rank's error alone, as in MPI: the others go on (a send the wait
 * released still leaves), and so does this rank. `what` names the
 * message in that error. */
static int wait_whole(ftc_alltoall_flow *f, int from, MPI_Request *r, int sends, int bytes,
                      const char *what, bool *whole)
{
    const int rank = rank_at(f, from);
    const int expected[2] = { bytes, -1 };
    const int rc = ftc_ft_wait_in_flow(f->comm, r, expected, 1 + sends, STEP_ENTER,
                                       f->a->name, "exchanging blocks with", rank);
    *whole = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS || rc == FTC_DETECTED)
        return rc;
    if (f->error == MPI_SUCCESS)
        f->error = ftc_fail(rc, "%s: rank %d's %s is not the %d bytes rank %d takes from it "
                            "(recvcount x size(recvtype) a block)", f->a->name, rank, what,
                            bytes, f->comm->rank);
    return MPI_SUCCESS;
}

/* The receive of `from`'s block, r[0], and `sends` sends after it: the
 * block counted when they all completed. */
static int wait_receive_and_sends(ftc_alltoall_flow *f, int from, MPI_Request *r, int sends)
{
    const int rank = rank_at(f, from);
    bool whole = false;
    const int rc = wait_whole(f, from, r, sends, (int)bytes_of(&f->a->recv, rank), "block",
                              &whole);
    if (whole)
        ftc_holdings_add(f->held, rank);
    return rc;
}

int ftc_alltoall_wait_receive(ftc_alltoall_flow *f, int from, MPI_Request *r)
{
    return wait_receive_and_sends(f, from, r, 0);
}

int ftc_alltoall_wait_receive_and_send(ftc_alltoall_flow *f, int from, MPI_Request *r)
{
    return wait_receive_and_sends(f, from, r, 1);
}

/* The send first, alone: a receive of the wrong size would release a send
 * still pending (as a failure does), and the exchange goes on past such a
 * receive, writing its next message where that send may still read. */
int ftc_alltoall_wait_message(ftc_alltoall_flow *f, int from, MPI_Request *r, int bytes,
                              bool *whole)
{
    *whole = false;
    const int rc = ftc_ft_wait_in_flow(f->comm, &r[1], NULL, 1, STEP_ENTER, f->a->name,
                                       "exchanging blocks with", rank_at(f, from));
    return rc == MPI_SUCCESS ? wait_whole(f, from, r, 0, bytes, "message of relayed blocks", whole)
                             : rc;
}

int ftc_alltoall_wait_sends(ftc_alltoall_flow *f, MPI_Request *sends, int count, int to)
{
    int rc = MPI_SUCCESS;
    for (int first = 0; rc == MPI_SUCCESS && first < count; first += FTC_FT_MAX_WAIT) {
        const int batch = count - first < FTC_FT_MAX_WAIT ? count - first : FTC_FT_MAX_WAIT;
        rc = ftc_ft_wait_in_flow(f->comm, sends + first, NULL, batch, STEP_ENTER, f->a->name,
                                 "sending a block to", rank_at(f, to));
    }
    return rc;
}

void ftc_alltoall_abandon(MPI_Request *requests, int receives, int sends)
{
    for (int i = 0; i < receives + sends; i++)
        ftc_p2p_abandon(&requests[i], i < receives);
}

static int pack_block(const ftc_alltoall_flow *f, int rank, char *into, size_t bytes)
{
    const ftc_alltoall_call *a = f->a;
    const int rc = ftc_pack_block(ftc_block_place(&a->send, rank), a->send.counts[rank],
                                  a->send.type, a->send_contiguous, into, bytes, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: packing the block for rank %d failed",
                                            a->name, rank);
}

int ftc_alltoall_pack_block(const ftc_alltoall_flow *f, int to, char *into)
{
    const int rank = rank_at(f, to);
    return pack_block(f, rank, into, bytes_of(&f->a->send, rank));
}

void ftc_alltoall_place_block(ftc_alltoall_flow *f, int from, const char *bytes)
{
    const ftc_alltoall_call *a = f->a;
    const int rank = rank_at(f, from);
    const size_t size = bytes_of(&a->recv, rank);
    const int rc = ftc_unpack_block(bytes, size, ftc_block_place(&a->recv, rank),
                                    a->recv.counts[rank], a->recv.type, a->recv_contiguous,
                                    f->comm->comm);
    if (rc == MPI_SUCCESS)
        ftc_holdings_add(f->held, rank);
    else if (f->error == MPI_SUCCESS)   /* out of memory for a derived type: this rank's alone */
        f->error = ftc_fail_mpi(rc, "%s: placing rank %d's block failed", a->name, rank);
}

/* ---- the acknowledgements ------------------------------------------------------------------- */

/* Whether a block of `bytes` is acknowledged instead of copied: the same
 * answer at its sender as at its receiver. */
static bool acknowledged(const ftc_alltoall_flow *f, size_t bytes)
{
    if (!ftc_ft_keeps_results(f->ft))
        return false;   /* two live ranks: a late receiver is never served */
    return bytes > FTC_ALLTOALL_KEPT_BYTES / (size_t)(f->n - 1);
}

/* The i-th other rank (i = 0 .. n - 2) as an epoch index. */
static int other_index(const ftc_alltoall_flow *f, int i) { return (f->me + 1 + i) % f->n; }

/* Whether this rank's block for the epoch index `to` is acknowledged. */
static bool sent_acknowledged(const ftc_alltoall_flow *f, int to)
{
    return acknowledged(f, bytes_of(&f->a->send, rank_at(f, to)));
}

/* The sender decided by its own size whether to wait, which a block of
 * the wrong size (not counted here) does not say: such a block is
 * acknowledged whatever this rank's rule says, since an acknowledgement
 * nobody waits for costs an unmatched empty message and a missing one a
 * hang. */
static bool acknowledging(const ftc_alltoall_flow *f, int from)
{
    const int rank = rank_at(f, from);
    return acknowledged(f, bytes_of(&f->a->recv, rank)) || !ftc_holdings_has(f->held, rank);
}

static const char nothing = 0;   /* the acknowledgements' buffer: never written */

/* Waits for `count` posted acknowledgements (the first `receives` of them
 * receives), in batches of FTC_FT_MAX_WAIT; after a failure the rest are
 * abandoned too. */
static int wait_acknowledgements(ftc_alltoall_flow *f, MPI_Request *r, int count, int receives,
                                 int first_peer)
{
    int rc = MPI_SUCCESS, first = 0;
    for (; rc == MPI_SUCCESS && first < count; first += FTC_FT_MAX_WAIT) {
        const int batch = count - first < FTC_FT_MAX_WAIT ? count - first : FTC_FT_MAX_WAIT;
        int expected[FTC_FT_MAX_WAIT];
        for (int i = 0; i < batch; i++)
            expected[i] = first + i < receives ? 0 : -1;
        rc = ftc_ft_wait_in_flow(f->comm, r + first, expected, batch, STEP_ACK, f->a->name,
                                 "exchanging acknowledgements with", first_peer);
    }
    if (rc != MPI_SUCCESS && first < count) {
        const int rest_receives = receives > first ? receives - first : 0;
        ftc_alltoall_abandon(r + first, rest_receives, count - first - rest_receives);
    }
    return rc;
}

/* The acknowledgements: the receives of those this rank's senders owe it
 * posted before its own leave, so that no send waits for a match. */
static int exchange_acknowledgements(ftc_alltoall_flow *f)
{
    if (!ftc_ft_keeps_results(f->ft))
        return MPI_SUCCESS;
    ftc_allreduce_injection_point(f->comm, f->a->number, STEP_ACK, FTC_INJECT_BEFORE_SEND, NULL);
    MPI_Request *r = f->a->requests;
    int posted = 0, receives = 0, rc = MPI_SUCCESS, first_peer = -1;
    for (int i = 0; rc == MPI_SUCCESS && i < f->n - 1; i++) {
        const int to = other_index(f, i);
        if (!sent_acknowledged(f, to))
            continue;
        first_peer = first_peer < 0 ? rank_at(f, to) : first_peer;
        rc = ftc_p2p_irecv((void *)&nothing, 0, MPI_BYTE, to, f->tag, f->epoch, &r[posted]);
        posted += rc == MPI_SUCCESS;
    }
    receives = posted;
    for (int i = 0; rc == MPI_SUCCESS && i < f->n - 1; i++) {
        const int from = other_index(f, i);
        if (!acknowledging(f, from))
            continue;
        first_peer = first_peer < 0 ? rank_at(f, from) : first_peer;
        rc = ftc_p2p_isend(&nothing, 0, MPI_BYTE, from, f->tag, f->epoch, &r[posted]);
        posted += rc == MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS) {
        ftc_alltoall_abandon(r, receives, posted - receives);
        return ftc_fail_mpi(rc, "%s: posting an acknowledgement failed", f->a->name);
    }
    return wait_acknowledgements(f, r, posted, receives, first_peer);
}

/* ---- the end of a call ---------------------------------------------------------------------- */

/* Whether every block for another rank was acknowledged: nobody can lack
 * one from this rank, which keeps nothing. */
static bool all_acknowledged(const ftc_alltoall_flow *f)
{
    for (int i = 0; i < f->n - 1; i++)
        if (!sent_acknowledged(f, other_index(f, i)))
            return false;
    return true;
}

/* The bytes kept: the table, then the blocks not acknowledged. */
static size_t kept_bytes(const ftc_alltoall_flow *f)
{
    size_t bytes = ftc_route_table_bytes(f->comm->size);
    for (int i = 0; i < f->n - 1; i++) {
        const int to = other_index(f, i);
        bytes += sent_acknowledged(f, to) ? 0 : bytes_of(&f->a->send, rank_at(f, to));
    }
    return bytes;
}

/* The copies of the blocks not acknowledged, behind their table
 * (ftc_route_table_bytes), for receivers still inside the call. */
static int keep_blocks(const ftc_alltoall_flow *f, char *into)
{
    const int size = f->comm->size;
    int *counts = (int *)(void *)into, *displs = counts + size;
    memset(into, 0, ftc_route_table_bytes(size));
    char *blocks = into + ftc_route_table_bytes(size);
    size_t at = 0;
    int rc = MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < f->n - 1; i++) {
        const int to = other_index(f, i), rank = rank_at(f, to);
        if (sent_acknowledged(f, to))
            continue;
        const size_t bytes = bytes_of(&f->a->send, rank);
        counts[rank] = (int)bytes;
        displs[rank] = (int)at;
        rc = pack_block(f, rank, blocks + at, bytes);
        at += bytes;
    }
    return rc;
}

/* The exchange completed here: reported, and the blocks not acknowledged
 * kept for late receivers. */
static int complete(const ftc_alltoall_flow *f)
{
    const bool keeps_results = ftc_ft_keeps_results(f->ft);
    const bool everyone_holds = keeps_results && all_acknowledged(f);
    const bool keeps = keeps_results && !everyone_holds;
    const ftc_kept_part part = { .op = MPI_OP_NULL, .block_width = keeps ? kept_bytes(f) : 0,
                                 .route = FTC_ROUTE_ALL_TO_ALL, .root = -1 };
    char *keep_into = NULL;
    int rc = ftc_allreduce_attempt_completed(f->comm, f->a->number, f->held, 0, MPI_BYTE, 0,
                                             everyone_holds ? FTC_EVERYONE_HOLDS
                                                            : FTC_EVERYONE_ENTERED,
                                             &part, &keep_into);
    if (rc == MPI_SUCCESS && keep_into && keeps) {
        rc = keep_blocks(f, keep_into);
        if (rc != MPI_SUCCESS)
            ftc_ft_drop_kept(f->ft);
    }
    return rc;
}

/* A failure stopped the exchange (or a meeting is owed): the survivors end
 * the call; each one inside it gets the blocks it lacks from their senders. */
static int recover(const ftc_alltoall_flow *f)
{
    const ftc_alltoall_call *a = f->a;
    /* a rank that took a block of the wrong size returns that error, its
     * buffer undefined as after any MPI error: it asks the round for
     * nothing (a block asked for again would fail the round everywhere) */
    if (f->error != MPI_SUCCESS)
        for (int r = 0; r < f->comm->size; r++)
            ftc_holdings_add(f->held, r);
    const ftc_routed_blocks blocks = {
        .route = FTC_ROUTE_ALL_TO_ALL, .root = -1,
        .blocks = a->send.base,   /* only read on this route */
        .counts = a->send.counts, .displs = a->send.displs, .stride = a->send.stride,
        .type = a->send.type, .extent = a->send.extent, .type_size = a->send.type_size,
        .column = a->recv,
    };
    const int rc = ftc_allreduce_resume_routed(f->comm, a->number, &blocks, f->held);
    return rc != MPI_SUCCESS ? rc : f->error;
}

/* ---- the call ------------------------------------------------------------------------------- */

/* This rank's own block, from its row into its column. */
static int copy_own_block(ftc_alltoall_flow *f)
{
    const ftc_alltoall_call *a = f->a;
    const int me = f->comm->rank;
    const int rc = a->in_place
        ? MPI_SUCCESS
        : ftc_typed_copy(ftc_block_place(&a->send, me), a->send.counts[me], a->send.type,
                         a->send_contiguous, ftc_block_place(&a->recv, me), a->recv.counts[me],
                         a->recv.type, a->recv_contiguous, f->comm->comm);
    if (rc == MPI_SUCCESS)
        ftc_holdings_add(f->held, me);
    return rc;
}

static int run_algorithm(ftc_alltoall_flow *f)
{
    switch (f->a->algorithm) {
    case FTC_ALLTOALL_PAIRWISE: return ftc_alltoall_pairwise(f);
    case FTC_ALLTOALL_MODIFIED_BRUCK: return ftc_alltoall_modified_bruck(f);
    default: return ftc_alltoall_linear(f);
    }
}

static int run_exchange(ftc_alltoall_flow *f)
{
    ftc_allreduce_injection_point(f->comm, f->a->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND,
                                  NULL);
    if (ftc_ft_failure_known(f->ft))
        return FTC_DETECTED;
    int rc = run_algorithm(f);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->a->number, STEP_BLOCKS_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    return rc == MPI_SUCCESS ? exchange_acknowledgements(f) : rc;
}

int ftc_alltoall_run(const ftc_alltoall_call *a)
{
    ftc_comm_t comm = a->comm;
    ftc_alltoall_flow f = { .a = a, .comm = comm, .ft = comm->ft,
                            .n = ftc_ft_live_count(comm->ft), .me = ftc_ft_live_index(comm->ft),
                            .tag = ftc_ft_call_tag(comm->ft, a->number),
                            .epoch = ftc_ft_epoch_comm(comm->ft),
                            .held = ftc_allreduce_call_holdings(comm) };
    ftc_holdings_clear(f.held);
    /* out of memory for a derived type: this rank's error alone, the
     * others still get its blocks */
    f.error = copy_own_block(&f);
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(f.ft) ? FTC_DETECTED : run_exchange(&f);
    if (rc == MPI_SUCCESS) {
        const int completed = complete(&f);   /* kept and reported, whatever error says */
        return f.error != MPI_SUCCESS ? f.error : completed;
    }
    return ftc_ft_survivable(rc) ? recover(&f) : rc;
}
