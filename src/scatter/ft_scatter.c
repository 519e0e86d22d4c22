/*
 * The scatter family's flow, down a tree over the live ranks (linear or
 * binomial: algorithms.h), and its end. ftc_scatterv runs the linear tree
 * only: only the root knows how large each block is and where it lies.
 *
 *   root             a send per child, farthest first: the blocks of the
 *                    child's subtree, a lone block straight from its place
 *                    in sendbuf, typed as the root gave it (a run of them
 *                    too, where they lie end to end there), else packed;
 *                    its own block copied to recvbuf (unless in place);
 *                    then it waits for the sends
 *   a leaf           one receive of its block, straight into recvbuf
 *   a rank with      one receive of its subtree's blocks, packed, into the
 *   children         call's room; its own unpacked to recvbuf; each
 *                    child's run passed on as the root passes them
 *
 *     linear, root 0: [a]..[b b]..[c]   -->   rank 1 [b b], rank 2 [c]
 *
 * On the epoch's communicator with the call's tag: no message of another
 * call, or of an epoch a failure ended, can match.
 *
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds; the root holds every block, any
 *             other rank its own once it arrived, and a rank with
 *             children its subtree's while it is inside the call
 *   recovery  the engine's round for blocks routed each to one rank
 *             (ftc_routed_blocks, to their owners): a survivor still
 *             inside the call that lacks its block takes it from the
 *             lowest survivor inside the call that holds it (the root, a
 *             rank above it in the tree), or from the copies a root past
 *             the call kept. A survivor whose block no survivor holds (the
 *             root died before sending it, or the rank that held it on its
 *             way passed it on and returned) returns MPIX_ERR_PROC_FAILED;
 *             the others MPI_SUCCESS
 *   return    a rank completes once its block arrived, which says nothing
 *             of the others; the root once its sends completed, which says
 *             nothing of the receivers (a small block's send completes as
 *             MPI buffers it): with three or more live ranks it keeps a
 *             copy of every block for a receiver still inside the call at
 *             a meeting
 *   acks      a block larger than its share of FTC_SCATTER_KEPT_BYTES
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
 *             root dead no block moves: the call is the same messages,
 *             empty, from the lowest live rank over the linear tree
 *             whatever the algorithm, and every survivor returns
 *             MPIX_ERR_PROC_FAILED
 *
 * Cost without failure: the tree's (linear.c, binomial.c); with three or
 * more live ranks the root's copy of the blocks up to their share of
 * 16 KiB, or, for larger ones, alpha more for the acknowledgements.
 */
#include "ft_scatter.h"

#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"
#include "algorithms.h"

/* FTCOLL_INJECT's steps of a scatter or scatterv. */
enum { STEP_ENTER = 0, STEP_BLOCK_HELD = 1, STEP_ACK = 2 };

/* The flow on this rank. */
typedef struct {
    const ftc_scatter_call *s;
    ftc_comm_t comm;
    ftc_ft *ft;
    int n;                 /* live ranks */
    bool root_alive;       /* else no block moves: every message is empty */
    int hub;               /* the epoch index the messages come from: the root's,
                            * or with the root dead the lowest live rank's */
    bool is_hub;
    const ftc_vrank_tree *tree;   /* linear with the root dead */
    int v, end;            /* this rank's vrank (from the hub) and its subtree [v, end) */
    bool own_copied;       /* the root's own block is in recvbuf */
    bool holds_block;      /* this rank's block arrived (at the root: always) */
    bool holds_subtree;    /* a rank with children: its run arrived whole, in s->room
                            * (which only a recovery inside this call reads) */
    bool heard_word;       /* the call's word: every rank holds its block */
    int tag;
    MPI_Comm epoch;
} flow;

static const char nothing = 0;   /* the empty messages' buffer: never written */

static int rank_at(const flow *f, int index) { return ftc_ft_live_ranks(f->ft)[index]; }

/* The j-th other rank's epoch index, j = 1 .. n - 1, in the hub's order:
 * vrank j's. */
static int other_index(const flow *f, int j) { return (f->hub + j) % f->n; }

static int rank_of_vrank(const flow *f, int u) { return rank_at(f, other_index(f, u)); }

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
    return synchronizing(f) || bytes > FTC_SCATTER_KEPT_BYTES / (size_t)(f->n - 1);
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

static int pack_block(const flow *f, int rank, char *into, size_t bytes)
{
    const ftc_scatter_call *s = f->s;
    const bool dense = s->send_contiguous && ftc_type_is_predefined(s->send_type);
    const int rc = ftc_pack_block(place_of(f, rank), s->send_counts[rank], s->send_type, dense,
                                  into, bytes, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: packing rank %d's block failed",
                                            s->name, rank);
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
    const ftc_scatter_call *s = f->s;
    if (s->in_place || f->own_copied || !f->root_alive)
        return MPI_SUCCESS;
    const int rc = ftc_typed_copy(place_of(f, s->root), s->send_counts[s->root], s->send_type,
                                  s->send_contiguous, s->recv, s->recv_count, s->recv_type,
                                  s->recv_contiguous, f->comm->comm);
    f->own_copied = rc == MPI_SUCCESS;
    return rc;
}

/* Whether vranks [first, last) are ranks end to end, lowest first, so that
 * their blocks lie end to end in a scatter's sendbuf. */
static bool ranks_end_to_end(const flow *f, int first, int last)
{
    const int from = other_index(f, first);
    return from + (last - 1 - first) < f->n
           && rank_at(f, from + (last - 1 - first)) - rank_at(f, from) == last - 1 - first;
}

/* The root's send of the blocks of vranks [first, last) to vrank first:
 * a lone block typed from its place; a run, which only a scatter's tree
 * sends (every block the same size, so the first one's gives them all),
 * typed from its place too where its blocks lie end to end, else packed
 * into the room (vrank u's block at (u - 1) x its bytes). */
static int send_run(flow *f, int first, int last, MPI_Request *r)
{
    const ftc_scatter_call *s = f->s;
    const int index = other_index(f, first), rank = rank_at(f, index);
    if (!f->root_alive)
        return ftc_p2p_isend(&nothing, 0, MPI_BYTE, index, f->tag, f->epoch, r);
    const long long elements = (long long)(last - first) * s->send_counts[rank];
    if (last - first == 1 || (!s->displs && elements <= INT_MAX
                              && ranks_end_to_end(f, first, last)))
        return ftc_p2p_isend(place_of(f, rank), (int)elements, s->send_type, index, f->tag,
                             f->epoch, r);
    const size_t bytes = block_bytes(f, rank);
    char *run = s->room + (size_t)(first - 1) * bytes;
    int rc = MPI_SUCCESS;
    for (int u = first; rc == MPI_SUCCESS && u < last; u++)
        rc = pack_block(f, rank_of_vrank(f, u), run + (size_t)(u - first) * bytes, bytes);
    return rc == MPI_SUCCESS ? ftc_p2p_isend(run, (int)((size_t)(last - first) * bytes),
                                             MPI_PACKED, index, f->tag, f->epoch, r)
                             : rc;
}

/* The i-th child's run is [*first, *last). */
static void child_run(const flow *f, int i, int *first, int *last)
{
    *first = f->tree->child(f->v, f->n, i);
    *last = f->tree->subtree_end(*first, f->n);
}

/* Whether the children's runs go out farthest first: where runs differ in
 * size (the largest has the most hops ahead of it); else nearest first,
 * as Open MPI's linear scatter sends. */
static bool largest_first(const flow *f, int children)
{
    int first, last;
    child_run(f, children - 1, &first, &last);
    return last - first > 1;
}

/* Every child's run sent from here (the root, or a rank passing its
 * subtree on: `from_room`, its runs in the room, `block` bytes each; a
 * subtree that did not arrive whole passes on empty messages); request k
 * is the k-th child's. */
static int post_sends(flow *f, MPI_Request *sends, int children, const char *from_room,
                      size_t block)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < children; k++)
        sends[k] = MPI_REQUEST_NULL;
    const bool reversed = children > 0 && largest_first(f, children);
    for (int k = 0; rc == MPI_SUCCESS && k < children; k++) {
        const int i = reversed ? children - 1 - k : k;
        int first, last;
        child_run(f, i, &first, &last);
        if (f->is_hub)
            rc = send_run(f, first, last, &sends[i]);
        else if (from_room)
            rc = ftc_p2p_isend(from_room + (size_t)(first - f->v) * block,
                               (int)((size_t)(last - first) * block), MPI_PACKED,
                               other_index(f, first), f->tag, f->epoch, &sends[i]);
        else
            rc = ftc_p2p_isend(&nothing, 0, MPI_BYTE, other_index(f, first), f->tag, f->epoch,
                               &sends[i]);
    }
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    ftc_ft_abandon(sends, NULL, children);
    return ftc_fail_mpi(rc, "%s: a send failed", f->s->name);
}

/* Waits for the sends to the children (in batches of FTC_FT_MAX_WAIT). */
static int wait_for_sends(flow *f, MPI_Request *sends, int children, int step)
{
    int rc = MPI_SUCCESS;
    for (int first = 0; rc == MPI_SUCCESS && first < children; first += FTC_FT_MAX_WAIT) {
        const int count = children - first < FTC_FT_MAX_WAIT ? children - first : FTC_FT_MAX_WAIT;
        rc = wait_for(f, sends + first, NULL, count, step, "sending blocks to",
                      rank_of_vrank(f, f->tree->child(f->v, f->n, first)));
    }
    if (rc != MPI_SUCCESS)
        ftc_ft_abandon(sends, NULL, children);
    return rc;
}

/* Every child's run sent, its own block copied. A copy that fails (out of
 * memory for a derived type) is this rank's error alone, in *error: the
 * others still get their blocks, and the acknowledgements and the word
 * they wait for. */
static int send_blocks(flow *f, int *error)
{
    const int children = f->tree->children(0, f->n);
    int rc = post_sends(f, f->s->requests, children, NULL, 0);
    if (rc == MPI_SUCCESS)
        *error = copy_own_block(f);
    return rc == MPI_SUCCESS ? wait_for_sends(f, f->s->requests, children, STEP_ENTER) : rc;
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

/* A rank with children unpacks its own block from the front of its run. */
static int unpack_own_block(const flow *f)
{
    const ftc_scatter_call *s = f->s;
    if (s->recv_bytes == 0)
        return MPI_SUCCESS;
    const bool dense = s->recv_contiguous && ftc_type_is_predefined(s->recv_type);
    const int rc = ftc_unpack_block(s->room, s->recv_bytes, s->recv, s->recv_count, s->recv_type,
                                    dense, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: unpacking rank %d's block failed", s->name,
                                            f->comm->rank);
}

/* The receive of this rank's run from its parent: a leaf's block straight
 * into recvbuf, a subtree's blocks packed into the room. */
static int post_receive(flow *f, int from, int expected, MPI_Request *r)
{
    const ftc_scatter_call *s = f->s;
    if (!f->root_alive)
        return ftc_p2p_irecv((void *)&nothing, 0, MPI_BYTE, from, f->tag, f->epoch, r);
    if (f->end - f->v == 1)
        return ftc_p2p_irecv(s->recv, s->recv_count, s->recv_type, from, f->tag, f->epoch, r);
    return ftc_p2p_irecv(s->room, expected, MPI_PACKED, from, f->tag, f->epoch, r);
}

/*
 * Its run from its parent. A block of another size than recvcount says
 * (the user's error, which only this rank can see) is an error here alone,
 * as in MPI (*error then says what to return); over the binomial tree the
 * ranks below it get nothing they can use, and say so too. The root
 * decided by its own size whether to wait for this rank's
 * acknowledgement, which a block cut short does not say: such a rank
 * acknowledges whatever its own rule says, since an acknowledgement nobody
 * waits for costs an unmatched empty message and a missing one a hang.
 */
static int receive_block(flow *f, int *error)
{
    const ftc_scatter_call *s = f->s;
    const int from = other_index(f, f->tree->parent(f->v, f->n));
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = f->root_alive ? (int)((size_t)(f->end - f->v) * s->recv_bytes) : 0;
    int rc = post_receive(f, from, expected, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: receiving from rank %d failed", s->name, rank_at(f, from));
    rc = wait_for(f, &r, &expected, 1, STEP_ENTER, "receiving its block from", rank_at(f, from));
    if (rc != MPI_SUCCESS && rc != FTC_DETECTED) {
        *error = ftc_fail(rc, "%s: the block for rank %d is not the recvcount x size(recvtype) "
                          "= %zu bytes it takes: the root's sendcount%s says otherwise",
                          s->name, f->comm->rank, s->recv_bytes,
                          f->end - f->v > 1 || f->tree->parent(f->v, f->n) != 0
                              ? ", or a rank above it in the binomial tree," : "");
        rc = MPI_SUCCESS;
    }
    const bool arrived = rc == MPI_SUCCESS && *error == MPI_SUCCESS && f->root_alive;
    f->holds_subtree = arrived && f->end - f->v > 1;
    if (f->holds_subtree)
        *error = unpack_own_block(f);
    f->holds_block = arrived && *error == MPI_SUCCESS;
    return rc;
}

/* A rank with children passes each its run, from the room, or an empty
 * message where its subtree did not arrive whole. */
static int pass_on(flow *f)
{
    const int children = f->tree->children(f->v, f->n);
    if (children == 0)
        return MPI_SUCCESS;
    const int rc = post_sends(f, f->s->requests, children, f->holds_subtree ? f->s->room : NULL,
                              f->s->recv_bytes);
    return rc == MPI_SUCCESS ? wait_for_sends(f, f->s->requests, children, STEP_BLOCK_HELD) : rc;
}

static int run_other(flow *f, int *error)
{
    int rc = receive_block(f, error);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->s->number, STEP_BLOCK_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS)
        rc = pass_on(f);
    const size_t mine = f->root_alive ? f->s->recv_bytes : 0;
    /* a block of the wrong size hides the size the root decided by */
    const bool acknowledges_anyway = ftc_ft_keeps_results(f->ft) && *error != MPI_SUCCESS;
    if (rc == MPI_SUCCESS && (acknowledges_anyway || acknowledged(f, mine))) {
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
 * once it arrived, and while a rank with children is inside the call the
 * blocks of its subtree, which stay in the room only until the call
 * completes here. */
static ftc_holdings *holdings_of(const flow *f, bool inside_call)
{
    ftc_holdings *held = ftc_allreduce_call_holdings(f->comm);
    ftc_holdings_clear(held);
    if (f->is_hub && f->root_alive)
        for (int r = 0; r < f->comm->size; r++)
            ftc_holdings_add(held, r);
    else if (f->holds_block)
        ftc_holdings_add(held, f->comm->rank);
    for (int u = f->v + 1; inside_call && f->holds_subtree && u < f->end; u++)
        ftc_holdings_add(held, rank_of_vrank(f, u));
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
    int rc = ftc_allreduce_attempt_completed(comm, f->s->number, holdings_of(f, false), 0, MPI_BYTE, 0,
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

/* Where the subtree's blocks lie in a rank's room, packed, for the round:
 * vrank u's block at (u - v) x its bytes; -1 for a block not there, which
 * the round refuses to send rather than send empty. */
static void describe_subtree(const flow *f, ftc_routed_blocks *b)
{
    const ftc_scatter_call *s = f->s;
    for (int r = 0; r < f->comm->size; r++)
        s->subtree_counts[r] = s->subtree_displs[r] = -1;
    for (int u = f->v; u < f->end; u++) {
        const int r = rank_of_vrank(f, u);
        s->subtree_counts[r] = (int)s->recv_bytes;
        s->subtree_displs[r] = (int)((size_t)(u - f->v) * s->recv_bytes);
    }
    *b = (ftc_routed_blocks){ .route = b->route, .root = b->root, .blocks = s->room,
                              .counts = s->subtree_counts, .displs = s->subtree_displs,
                              .type = MPI_PACKED, .extent = 1, .type_size = 1, .recv = b->recv,
                              .own_count = b->own_count, .own_type = b->own_type };
}

/* A failure stopped the flow (or a meeting is owed): the survivors end the
 * call; each one inside it that lacks its block takes it from the root. */
static int recover(flow *f)
{
    const ftc_scatter_call *s = f->s;
    /* the root's own block may not be in place yet; should the copy fail,
     * the root meets all the same (the others wait for it there) and
     * returns the copy's error afterwards */
    const int copied = f->is_hub ? copy_own_block(f) : MPI_SUCCESS;
    ftc_routed_blocks blocks = {
        .route = FTC_ROUTE_TO_OWNERS, .root = s->root,
        .blocks = (char *)s->send,   /* only read on this route */
        .counts = s->send_counts, .displs = s->displs, .stride = s->stride,
        .type = s->send_type, .extent = s->send_extent, .type_size = s->send_type_size,
        .recv = s->recv,
        .own_count = s->recv_count, .own_type = s->recv_type,
    };
    if (f->holds_subtree)
        describe_subtree(f, &blocks);
    const int rc = ftc_allreduce_resume_routed(f->comm, s->number, &blocks,
                                               holdings_of(f, true));
    if (rc != MPI_SUCCESS)
        return rc;
    if (f->is_hub && f->root_alive)
        return copied;
    return ftc_allreduce_result_includes(f->comm, f->comm->rank) ? MPI_SUCCESS : root_lost(f);
}

/* ---- the call -------------------------------------------------------------------------------- */

int ftc_scatter_run(const ftc_scatter_call *s)
{
    ftc_comm_t comm = s->comm;
    flow f = { .s = s, .comm = comm, .ft = comm->ft, .n = ftc_ft_live_count(comm->ft),
               .root_alive = ftc_ft_is_alive(comm->ft, s->root),
               .tag = ftc_ft_call_tag(comm->ft, s->number),
               .epoch = ftc_ft_epoch_comm(comm->ft) };
    f.hub = f.root_alive ? ftc_ft_epoch_rank(f.ft, s->root) : 0;
    f.is_hub = ftc_ft_live_index(f.ft) == f.hub;
    f.tree = f.root_alive && s->tree ? s->tree : ftc_scatter_linear_tree;
    f.v = (ftc_ft_live_index(f.ft) - f.hub + f.n) % f.n;
    f.end = f.tree->subtree_end(f.v, f.n);
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
