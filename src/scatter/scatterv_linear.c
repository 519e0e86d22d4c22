/*
 * ftc_scatterv's one algorithm, linear as Open MPI's: the root sends every
 * rank its block straight from its place in sendbuf, typed as it gave it;
 * only the root knows how large each block is and where it lies.
 *
 *   root             a send per live rank, from sendbuf + displs[q] x
 *                    extent, in rank order from its own, wrapping; its own
 *                    block copied to recvbuf (unless in place); then it
 *                    waits for the sends
 *   rank q != root   one receive of its block
 *
 *     root 0: [a]..[b b]..[c]   -->   rank 1 [b b], rank 2 [c]
 *
 * On the epoch's communicator with the call's tag: no message of another
 * call, or of an epoch a failure ended, can match.
 *
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds; the root holds every block, any
 *             other rank its own once it arrived
 *   recovery  the engine's round for blocks routed each to one rank
 *             (ftc_routed_blocks, to their owners): a survivor still
 *             inside the call that lacks its block takes it from the root,
 *             inside the call too or past it with a copy kept. A survivor
 *             whose block no survivor holds (the root died before sending
 *             it) returns MPIX_ERR_PROC_FAILED; the others MPI_SUCCESS
 *   return    a rank completes once its block arrived, which says nothing
 *             of the others; the root once its sends completed, which says
 *             nothing of the receivers (a small block's send completes as
 *             MPI buffers it): with three or more live ranks it keeps a
 *             copy of every block for a receiver still inside the call at
 *             a meeting
 *   acks      a block larger than its share of FTC_SCATTERV_KEPT_BYTES
 *             (that over the other live ranks) is not copied: its rank
 *             sends the root an empty message once it holds it, and the
 *             root waits for them. Each block's size, which the root reads
 *             in sendcounts and its rank in recvcount, decides it, so they
 *             agree without a message, and the copies a root keeps stay
 *             within FTC_FT_KEPT_BYTES over a window of calls. Every
 *             FTC_FT_WINDOW-th call every rank acknowledges, and the root,
 *             having heard them all, sends each its word: that call every
 *             rank completes knowing that every rank holds its block,
 *             which bounds how far the ranks' calls drift apart. With the
 *             root dead the call is the same messages, empty, from the
 *             lowest live rank, and every survivor returns
 *             MPIX_ERR_PROC_FAILED
 *
 * Cost without failure: (n - 1) alpha + (the blocks' bytes) beta at the
 * root, alpha + (its block) beta elsewhere; with three or more live ranks
 * the root's copy of the blocks up to their share of 16 KiB, or, for
 * larger ones, alpha more for the acknowledgements.
 */
#include "scatterv_linear.h"

#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"

/* FTCOLL_INJECT's steps of a scatterv. */
enum { STEP_ENTER = 0, STEP_BLOCK_HELD = 1, STEP_ACK = 2 };

/* The flow on this rank. */
typedef struct {
    const ftc_scatterv_call *s;
    ftc_comm_t comm;
    ftc_ft *ft;
    int n;                 /* live ranks */
    bool root_alive;       /* else no block moves: every message is empty */
    int hub;               /* the epoch index the messages come from: the root's,
                            * or with the root dead the lowest live rank's */
    bool is_hub;
    bool own_copied;       /* the root's own block is in recvbuf */
    bool holds_block;      /* this rank's block arrived (at the root: always) */
    bool heard_word;       /* the call's word: every rank holds its block */
    int tag;
    MPI_Comm epoch;
} flow;

static const char nothing = 0;   /* the empty messages' buffer: never written */

static int rank_at(const flow *f, int index) { return ftc_ft_live_ranks(f->ft)[index]; }

/* The j-th other rank's epoch index, j = 1 .. n - 1, in the hub's order. */
static int other_index(const flow *f, int j) { return (f->hub + j) % f->n; }

static int wait_for(flow *f, MPI_Request *requests, const int *expected, int count, int step,
                    const char *doing, int peer_rank)
{
    return ftc_ft_wait_in_flow(f->comm, requests, expected, count, step, f->s->name, doing,
                               peer_rank);
}

/* Whether this is a call on which every rank acknowledges and hears the word. */
static bool synchronizing(const flow *f)
{
    return ftc_ft_keeps_results(f->ft) && f->s->number % FTC_FT_WINDOW == 0;
}

/* Whether a block of `bytes` is acknowledged instead of copied: the same
 * answer at the root, from sendcounts, as at its owner, from recvcount. */
static bool acknowledged(const flow *f, size_t bytes)
{
    if (!ftc_ft_keeps_results(f->ft))
        return false;   /* two live ranks: a late receiver is never served */
    return synchronizing(f) || bytes > FTC_SCATTERV_KEPT_BYTES / (size_t)(f->n - 1);
}

/* Rank r's block at the root (0 with the root dead: nothing moves). */
static size_t block_bytes(const flow *f, int rank)
{
    return f->root_alive ? (size_t)f->s->send_counts[rank] * (size_t)f->s->send_type_size : 0;
}

static const char *place_of(const flow *f, int rank)
{
    const MPI_Aint at = f->s->displs ? (MPI_Aint)f->s->displs[rank]
                                     : (MPI_Aint)rank * f->s->stride;
    return f->s->send + at * f->s->send_extent;
}

static bool other_acknowledges(const flow *f, int j)
{
    return acknowledged(f, block_bytes(f, rank_at(f, other_index(f, j))));
}

/* The flow's empty messages (acknowledgements, the word): `doing` names them. */
static ftc_ft_empties empty_messages_of(const flow *f, const char *doing)
{
    return (ftc_ft_empties){ .comm = f->comm, .tag = f->tag, .step = STEP_ACK,
                             .call = f->s->name, .doing = doing };
}

/* The j-th other ranks for which a predicate holds (the root's view). */
typedef struct {
    const flow *f;
    bool (*which)(const flow *, int);
} other_ranks;

static int other_rank_index(const void *context, int i)
{
    const other_ranks *o = context;
    return o->which(o->f, i + 1) ? other_index(o->f, i + 1) : -1;
}

/* Empty messages with the j-th other ranks for which `which` holds, in
 * batches of FTC_FT_MAX_WAIT: received (the acknowledgements) or sent
 * (the word). */
static int empty_messages(flow *f, bool (*which)(const flow *, int), bool receive,
                          const char *doing)
{
    const ftc_ft_empties e = empty_messages_of(f, doing);
    const other_ranks o = { f, which };
    return ftc_ft_empty_messages(&e, receive, f->n - 1, other_rank_index, &o);
}

static bool everyone(const flow *f, int j) { (void)f, (void)j; return true; }

/* ---- the hub: every block, then the acknowledgements and the word ---------------------------- */

static int copy_own_block(flow *f)
{
    const ftc_scatterv_call *s = f->s;
    if (s->in_place || f->own_copied || !f->root_alive)
        return MPI_SUCCESS;
    const int rc = ftc_typed_copy(place_of(f, s->root), s->send_counts[s->root], s->send_type,
                                  s->send_contiguous, s->recv, s->recv_count, s->recv_type,
                                  s->recv_contiguous, f->comm->comm);
    f->own_copied = rc == MPI_SUCCESS;
    return rc;
}

static int post_sends(flow *f, MPI_Request *sends)
{
    const ftc_scatterv_call *s = f->s;
    int rc = MPI_SUCCESS;
    for (int j = 1; j < f->n; j++)
        sends[j - 1] = MPI_REQUEST_NULL;
    for (int j = 1; rc == MPI_SUCCESS && j < f->n; j++) {
        const int index = other_index(f, j), rank = rank_at(f, index);
        rc = f->root_alive
            ? ftc_p2p_isend(place_of(f, rank), s->send_counts[rank], s->send_type, index, f->tag,
                            f->epoch, &sends[j - 1])
            : ftc_p2p_isend(&nothing, 0, MPI_BYTE, index, f->tag, f->epoch, &sends[j - 1]);
    }
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    ftc_ft_abandon(sends, NULL, f->n - 1);
    return ftc_fail_mpi(rc, "%s: a send failed", f->s->name);
}

/* Every block sent (in batches of FTC_FT_MAX_WAIT waits), its own copied.
 * A copy that fails (out of memory for a derived type) is this rank's
 * error alone, in *error: the others still get their blocks, and the
 * acknowledgements and the word they wait for. */
static int send_blocks(flow *f, int *error)
{
    MPI_Request *sends = f->s->requests;
    int rc = post_sends(f, sends);
    if (rc == MPI_SUCCESS)
        *error = copy_own_block(f);
    for (int first = 0; rc == MPI_SUCCESS && first < f->n - 1; first += FTC_FT_MAX_WAIT) {
        const int count = f->n - 1 - first < FTC_FT_MAX_WAIT ? f->n - 1 - first : FTC_FT_MAX_WAIT;
        rc = wait_for(f, sends + first, NULL, count, STEP_ENTER, "sending a block to",
                      rank_at(f, other_index(f, first + 1)));
    }
    if (rc != MPI_SUCCESS)
        ftc_ft_abandon(sends, NULL, f->n - 1);
    return rc;
}

static int run_hub(flow *f, int *error)
{
    int rc = send_blocks(f, error);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->s->number, STEP_BLOCK_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS)
        rc = empty_messages(f, other_acknowledges, true, "waiting for the acknowledgement of");
    if (rc == MPI_SUCCESS && synchronizing(f)) {
        ftc_allreduce_injection_point(f->comm, f->s->number, STEP_ACK, FTC_INJECT_BEFORE_SEND,
                                      NULL);
        rc = empty_messages(f, everyone, false, "passing the word to");
        f->heard_word = rc == MPI_SUCCESS;
    }
    return rc;
}

/* ---- any other rank: its block, then maybe its acknowledgement and the word ------------------ */

/* One empty message with the root (the hub): an acknowledgement, the word. */
static int one_message(flow *f, bool receive, const char *doing)
{
    const ftc_ft_empties e = empty_messages_of(f, doing);
    return ftc_ft_empty_message(&e, receive, f->hub);
}

/*
 * Its block, straight into recvbuf. A block of another size than recvcount
 * says (the user's error, which only this rank can see) is an error here
 * alone, as in MPI (*error then says what to return). The root decided by
 * its own size whether to wait for this rank's acknowledgement, which a
 * block cut short does not say: such a rank acknowledges whatever its own
 * rule says, since an acknowledgement nobody waits for costs an unmatched
 * empty message and a missing one a hang.
 */
static int receive_block(flow *f, int *error)
{
    const ftc_scatterv_call *s = f->s;
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = f->root_alive ? (int)s->recv_bytes : 0;
    int rc = f->root_alive
        ? ftc_p2p_irecv(s->recv, s->recv_count, s->recv_type, f->hub, f->tag, f->epoch, &r)
        : ftc_p2p_irecv((void *)&nothing, 0, MPI_BYTE, f->hub, f->tag, f->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: receiving from rank %d failed", f->s->name,
                            rank_at(f, f->hub));
    rc = wait_for(f, &r, &expected, 1, STEP_ENTER, "receiving its block from",
                  rank_at(f, f->hub));
    if (rc != MPI_SUCCESS && rc != FTC_DETECTED) {
        *error = ftc_fail(rc, "%s: the root's block for rank %d is not the recvcount x "
                          "size(recvtype) = %d bytes it takes", f->s->name, f->comm->rank,
                          expected);
        rc = MPI_SUCCESS;
    }
    f->holds_block = rc == MPI_SUCCESS && *error == MPI_SUCCESS && f->root_alive;
    return rc;
}

static int run_other(flow *f, int *error)
{
    int rc = receive_block(f, error);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->s->number, STEP_BLOCK_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    const size_t mine = f->root_alive ? f->s->recv_bytes : 0;
    const bool root_may_wait = ftc_ft_keeps_results(f->ft) && *error != MPI_SUCCESS;
    if (rc == MPI_SUCCESS && (root_may_wait || acknowledged(f, mine))) {
        ftc_allreduce_injection_point(f->comm, f->s->number, STEP_ACK, FTC_INJECT_BEFORE_SEND,
                                      NULL);
        rc = one_message(f, false, "acknowledging its block to");
    }
    if (rc == MPI_SUCCESS && synchronizing(f)) {
        rc = one_message(f, true, "waiting for the word of");
        f->heard_word = rc == MPI_SUCCESS;
    }
    return rc;
}

/* The flow; *error: a block of the wrong size arrived here (receive_block),
 * or the root's own could not be copied (send_blocks). */
static int run_flow(flow *f, int *error)
{
    ftc_allreduce_injection_point(f->comm, f->s->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND, NULL);
    if (ftc_ft_failure_known(f->ft))
        return FTC_DETECTED;
    return f->is_hub ? run_hub(f, error) : run_other(f, error);
}

/* ---- the end of a call ----------------------------------------------------------------------- */

static int root_lost(const flow *f)
{
    return ftc_fail(ftc_ft_failed_class(), "%s: root %d died before rank %d's block reached "
                    "any survivor", f->s->name, f->s->root, f->comm->rank);
}

/* This rank's holdings: at a living root every block, elsewhere its own
 * once it arrived. */
static ftc_holdings *holdings_of(const flow *f)
{
    ftc_holdings *held = ftc_allreduce_call_holdings(f->comm);
    ftc_holdings_clear(held);
    if (f->is_hub && f->root_alive)
        for (int r = 0; r < f->comm->size; r++)
            ftc_holdings_add(held, r);
    else if (f->holds_block)
        ftc_holdings_add(held, f->comm->rank);
    return held;
}

/* The bytes the root keeps: the table, then the blocks not acknowledged. */
static size_t kept_bytes(const flow *f)
{
    size_t bytes = ftc_route_table_bytes(f->comm->size);
    for (int j = 1; j < f->n; j++)
        bytes += other_acknowledges(f, j) ? 0 : block_bytes(f, rank_at(f, other_index(f, j)));
    return bytes;
}

static int pack_block(const flow *f, int rank, char *into, size_t bytes)
{
    const ftc_scatterv_call *s = f->s;
    if (s->send_contiguous && ftc_type_is_predefined(s->send_type)) {
        if (bytes > 0)
            memcpy(into, place_of(f, rank), bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Pack(place_of(f, rank), s->send_counts[rank], s->send_type, into,
                            (int)bytes, &position, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: packing rank %d's block failed",
                                            s->name, rank);
}

/* The root's copies of the blocks not acknowledged, behind their table
 * (ftc_route_table_bytes), for receivers still inside the call. */
static int keep_blocks(const flow *f, char *into)
{
    const int size = f->comm->size;
    int *counts = (int *)(void *)into, *displs = counts + size;
    memset(into, 0, ftc_route_table_bytes(size));
    char *blocks = into + ftc_route_table_bytes(size);
    size_t at = 0;
    int rc = MPI_SUCCESS;
    for (int j = 1; rc == MPI_SUCCESS && j < f->n; j++) {
        const int rank = rank_at(f, other_index(f, j));
        if (other_acknowledges(f, j))
            continue;
        const size_t bytes = block_bytes(f, rank);
        counts[rank] = (int)bytes;
        displs[rank] = (int)at;
        rc = pack_block(f, rank, blocks + at, bytes);
        at += bytes;
    }
    return rc;
}

/* Whether every other live rank acknowledged: the root then knows every
 * rank holds its block, and keeps nothing. */
static bool all_acknowledged(const flow *f)
{
    for (int j = 1; j < f->n; j++)
        if (!other_acknowledges(f, j))
            return false;
    return true;
}

/* The flow completed here: reported, and at the root the blocks kept for
 * late receivers where no acknowledgement said they hold them. */
static int complete(const flow *f)
{
    ftc_comm_t comm = f->comm;
    const bool keeps = f->is_hub && f->root_alive && !all_acknowledged(f);
    const bool everyone_holds = f->heard_word || (f->is_hub && all_acknowledged(f));
    const ftc_kept_part part = { .op = MPI_OP_NULL, .block_width = keeps ? kept_bytes(f) : 0,
                                 .route = FTC_ROUTE_TO_OWNERS, .root = f->s->root };
    char *keep_into = NULL;
    int rc = ftc_allreduce_attempt_completed(comm, f->s->number, holdings_of(f), 0, MPI_BYTE, 0,
                                             everyone_holds ? FTC_EVERYONE_HOLDS
                                                            : FTC_OTHERS_MAY_LAG,
                                             &part, &keep_into);
    if (rc == MPI_SUCCESS && keep_into && keeps) {
        rc = keep_blocks(f, keep_into);
        if (rc != MPI_SUCCESS)
            ftc_ft_drop_kept(f->ft);
    }
    if (rc == MPI_SUCCESS && !f->root_alive)
        rc = root_lost(f);
    return rc;
}

/* A failure stopped the flow (or a meeting is owed): the survivors end the
 * call; each one inside it that lacks its block takes it from the root. */
static int recover(flow *f)
{
    const ftc_scatterv_call *s = f->s;
    /* the root's own block may not be in place yet; should the copy fail,
     * the root meets all the same (the others wait for it there) and
     * returns the copy's error afterwards */
    const int copied = f->is_hub ? copy_own_block(f) : MPI_SUCCESS;
    const ftc_routed_blocks blocks = {
        .route = FTC_ROUTE_TO_OWNERS, .root = s->root,
        .blocks = (char *)s->send,   /* only read on this route */
        .counts = s->send_counts, .displs = s->displs, .stride = s->stride,
        .type = s->send_type, .extent = s->send_extent, .type_size = s->send_type_size,
        .recv = s->recv,
        .own_count = s->recv_count, .own_type = s->recv_type,
    };
    const int rc = ftc_allreduce_resume_routed(f->comm, s->number, &blocks, holdings_of(f));
    if (rc != MPI_SUCCESS)
        return rc;
    if (f->is_hub && f->root_alive)
        return copied;
    return ftc_allreduce_result_includes(f->comm, f->comm->rank) ? MPI_SUCCESS : root_lost(f);
}

/* ---- the call -------------------------------------------------------------------------------- */

int ftc_scatterv_run(const ftc_scatterv_call *s)
{
    ftc_comm_t comm = s->comm;
    flow f = { .s = s, .comm = comm, .ft = comm->ft, .n = ftc_ft_live_count(comm->ft),
               .root_alive = ftc_ft_is_alive(comm->ft, s->root),
               .tag = ftc_ft_call_tag(comm->ft, s->number),
               .epoch = ftc_ft_epoch_comm(comm->ft) };
    f.hub = f.root_alive ? ftc_ft_epoch_rank(f.ft, s->root) : 0;
    f.is_hub = ftc_ft_live_index(f.ft) == f.hub;
    f.holds_block = f.is_hub && f.root_alive;
    /* a rank others wait for in a meeting goes there first */
    int error = MPI_SUCCESS;
    const int rc = ftc_ft_owes_meeting(f.ft) ? FTC_DETECTED : run_flow(&f, &error);
    if (rc == MPI_SUCCESS) {
        const int completed = complete(&f);   /* kept and reported, whatever error says */
        return error != MPI_SUCCESS ? error : completed;
    }
    if (!ftc_ft_survivable(rc))
        return rc;
    /* a block of the wrong size is this rank's error alone: it asks the
     * round for nothing, and returns that error */
    f.holds_block = f.holds_block || (!f.is_hub && error != MPI_SUCCESS);
    const int recovered = recover(&f);
    /* the root's own block, copied again in the recovery, is in place */
    return error != MPI_SUCCESS && !f.is_hub ? error : recovered;
}
