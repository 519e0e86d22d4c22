/*
 * ftc_gatherv's one algorithm, linear as Open MPI's: every rank sends its
 * block straight to the root, typed as it gave it; only the root knows
 * how large each block is and where it goes.
 *
 *   rank q != root   one send of its block to the root
 *   root             a receive per live rank, straight into recvbuf +
 *                    displs[q] x extent; its own block copied to its place
 *                    (unless in place); then it waits for them in rank
 *                    order from its own, wrapping
 *
 *     rank 1 [b b] --\
 *     rank 2 [c] -----+--> root 0: [a]..[b b]..[c]   at displs[0], [1], [2]
 *
 * On the epoch's communicator with the call's tag: no message of another
 * call, or of an epoch a failure ended, can match.
 *
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds; the root holds its own block and
 *             those that arrived in the order it waits for them, any other
 *             rank its own
 *   recovery  the engine's round for blocks routed each to one rank
 *             (ftc_routed_blocks): S is every block a survivor holds, and a
 *             living root inside the call takes each block of S it lacks
 *             straight from its owner. The reduction of packed vectors
 *             that serves ftc_gather cannot: no rank but the root knows
 *             the other blocks' sizes, so no vector of them has one
 *             layout everywhere
 *   return    the root completes once every block arrived, so every live
 *             rank entered the call. Another rank completes once its block
 *             is sent, which says nothing of the root: with three or more
 *             live ranks it keeps a copy of its block for a root still
 *             inside the call at a meeting
 *   word      a block larger than FTC_GATHERV_KEPT_BLOCK, and every block
 *             of every FTC_FT_WINDOW-th call, is not copied: its rank waits
 *             instead for the root's empty message, sent once every block
 *             arrived. The root knows every block's size, so it knows who
 *             waits, and the copies a rank keeps stay within
 *             FTC_FT_KEPT_BYTES. With the root dead the call is empty
 *             messages to the lowest live rank and its word back, so that
 *             the calls still advance together
 *
 * Cost without failure: (n - 1) alpha + (the blocks' bytes) beta at the
 * root, alpha + (its block) beta elsewhere; with three or more live ranks
 * a copy of a block up to 16 KiB, or, for a larger one, alpha more for
 * the word.
 */
#include "gatherv_linear.h"

#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"
#include "ft_gather.h"
#include "state.h"

/* FTCOLL_INJECT's steps of a gatherv. */
enum { STEP_ENTER = 0, STEP_BLOCKS_HELD = 1, STEP_WORD = 2 };

/* The flow on this rank. */
typedef struct {
    const ftc_gatherv_call *g;
    ftc_comm_t comm;
    ftc_ft *ft;
    int n;                 /* live ranks */
    bool root_alive;       /* else no block moves: every message is empty */
    int hub;               /* the epoch index the messages go to: the root's, or
                            * with the root dead the lowest live rank's */
    bool is_hub;
    int arrived;           /* at the hub: the others (epoch order from the hub)
                            * whose blocks arrived */
    int tag;
    MPI_Comm epoch;
} flow;

static const char nothing = 0;   /* the empty messages' buffer: never written */

static int rank_at(const flow *f, int index) { return ftc_ft_live_ranks(f->ft)[index]; }

/* The j-th other rank's epoch index, j = 1 .. n - 1, in the hub's order. */
static int other_index(const flow *f, int j) { return (f->hub + j) % f->n; }

/* Rank r's block at the root. */
static size_t block_bytes_at_root(const flow *f, int rank)
{
    return (size_t)f->g->recv_counts[rank] * (size_t)f->g->recv_type_size;
}

static char *place_of(const flow *f, int rank)
{
    return f->g->recv + (MPI_Aint)f->g->displs[rank] * f->g->recv_extent;
}

/* Whether a block of `bytes` waits for the root's word instead of being
 * copied: the same answer at the root, from recvcounts, as at its owner. */
static bool waits_for_word(const flow *f, size_t bytes)
{
    if (!ftc_ft_keeps_results(f->ft))
        return false;   /* two live ranks: a late root is never served */
    return !f->root_alive || f->g->number % FTC_FT_WINDOW == 0 || bytes > FTC_GATHERV_KEPT_BLOCK;
}

static bool other_waits(const flow *f, int j)
{
    return waits_for_word(f, f->root_alive ? block_bytes_at_root(f, rank_at(f, other_index(f, j)))
                                           : 0);
}

static int wait_for(flow *f, MPI_Request *requests, const int *expected, int count, int step,
                    const char *doing, int peer_rank)
{
    return ftc_ft_wait_in_flow(f->comm, requests, expected, count, step, "ftc_gatherv", doing,
                               peer_rank);
}

/* ---- the hub: every block, then the word -------------------------------------------------- */

static int copy_own_block(const flow *f)
{
    const ftc_gatherv_call *g = f->g;
    if (g->in_place)
        return MPI_SUCCESS;
    return ftc_typed_copy(g->send, g->send_count, g->send_type, g->send_contiguous,
                          place_of(f, g->root), g->recv_counts[g->root], g->recv_type,
                          g->recv_contiguous, f->comm->comm);
}

static int post_receives(flow *f, MPI_Request *receives)
{
    const ftc_gatherv_call *g = f->g;
    int rc = MPI_SUCCESS;
    for (int j = 1; j < f->n; j++)
        receives[j - 1] = MPI_REQUEST_NULL;
    for (int j = 1; rc == MPI_SUCCESS && j < f->n; j++) {
        const int index = other_index(f, j), rank = rank_at(f, index);
        rc = f->root_alive
            ? ftc_p2p_irecv(place_of(f, rank), g->recv_counts[rank], g->recv_type, index, f->tag,
                            f->epoch, &receives[j - 1])
            : ftc_p2p_irecv((void *)&nothing, 0, MPI_BYTE, index, f->tag, f->epoch,
                            &receives[j - 1]);
    }
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_gatherv: a receive failed");
}

/* The word's messages, from the root or at another rank. */
static ftc_ft_empties word_messages(const flow *f, const char *doing)
{
    return (ftc_ft_empties){ .comm = f->comm, .tag = f->tag, .step = STEP_WORD,
                             .call = "ftc_gatherv", .doing = doing };
}

/* The word to the j-th other rank at once, ahead of the others'. */
static int send_word_now(flow *f, int j)
{
    const ftc_ft_empties e = word_messages(f, "passing the word to");
    return ftc_ft_empty_message(&e, false, other_index(f, j));
}

/*
 * Every block, in the hub's order. A block of another size than its
 * recvcounts entry (the user's error, which only the root can see) is an
 * error here alone, as in MPI: the root still takes every other block, so
 * that none is left to match a later call's receive, and still passes its
 * word (*error then says what to return). The sender of such a block
 * decided by its own size whether to wait for the word, and a block cut
 * short does not say that size: it gets the word at once unless it gets
 * it anyway, since a word nobody waits for costs an unmatched empty
 * message and a missing one a hang. A death stops it at once.
 */
static int receive_blocks(flow *f, int *error)
{
    MPI_Request *receives = f->comm->gatherv->requests;
    int rc = post_receives(f, receives);
    if (rc == MPI_SUCCESS && f->root_alive)
        *error = copy_own_block(f);   /* out of memory for a derived type: the root's alone */
    bool counting = true;   /* every block so far arrived whole */
    for (int j = 1; rc == MPI_SUCCESS && j < f->n; j++) {
        const int rank = rank_at(f, other_index(f, j));
        const int expected = f->root_alive ? (int)block_bytes_at_root(f, rank) : 0;
        rc = wait_for(f, &receives[j - 1], &expected, 1, STEP_ENTER, "receiving a block from",
                      rank);
        receives[j - 1] = MPI_REQUEST_NULL;
        counting = counting && rc == MPI_SUCCESS;
        f->arrived += counting;
        const bool wrong_size = rc != MPI_SUCCESS && rc != FTC_DETECTED;
        if (wrong_size && *error == MPI_SUCCESS)
            *error = ftc_fail(rc, "ftc_gatherv: rank %d's block is not the recvcounts[%d] x "
                              "size(recvtype) = %d bytes the root takes", rank, rank, expected);
        rc = rc == FTC_DETECTED ? rc : MPI_SUCCESS;
        if (wrong_size && ftc_ft_keeps_results(f->ft) && !other_waits(f, j))
            rc = send_word_now(f, j);
    }
    for (int j = f->arrived + 1; j < f->n; j++)   /* stopped: the others are given up */
        if (receives[j - 1] != MPI_REQUEST_NULL) {
            const int expected = 0;
            ftc_ft_abandon(&receives[j - 1], &expected, 1);
        }
    return rc;
}

/* The (i + 1)-th other rank's epoch index, where it waits for the word. */
static int waiting_index(const void *context, int i)
{
    const flow *f = context;
    return other_waits(f, i + 1) ? other_index(f, i + 1) : -1;
}

/* The root's word to every rank that waits for it, in batches of
 * FTC_FT_MAX_WAIT sends. */
static int pass_word(flow *f)
{
    bool any = false;
    for (int j = 1; j < f->n && !any; j++)
        any = other_waits(f, j);
    if (!any)
        return MPI_SUCCESS;
    ftc_allreduce_injection_point(f->comm, f->g->number, STEP_WORD, FTC_INJECT_BEFORE_SEND, NULL);
    const ftc_ft_empties e = word_messages(f, "passing the word to");
    return ftc_ft_empty_messages(&e, false, f->n - 1, waiting_index, f);
}

/* ---- any other rank: its block, then maybe the word ---------------------------------------- */

static int send_block(flow *f)
{
    const ftc_gatherv_call *g = f->g;
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = -1;
    const int rc = f->root_alive
        ? ftc_p2p_isend(g->send, g->send_count, g->send_type, f->hub, f->tag, f->epoch, &r)
        : ftc_p2p_isend(&nothing, 0, MPI_BYTE, f->hub, f->tag, f->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_gatherv: sending to rank %d failed", rank_at(f, f->hub));
    return wait_for(f, &r, &expected, 1, STEP_ENTER, "sending a block to", rank_at(f, f->hub));
}

static int hear_word(flow *f)
{
    ftc_allreduce_injection_point(f->comm, f->g->number, STEP_WORD, FTC_INJECT_BEFORE_SEND, NULL);
    const ftc_ft_empties e = word_messages(f, "waiting for the word of");
    return ftc_ft_empty_message(&e, true, f->hub);
}

/* The flow; *error: a block of the wrong size arrived at the root, or its
 * own could not be copied, which ends the call there alone
 * (receive_blocks). */
static int run_flow(flow *f, int *error)
{
    ftc_allreduce_injection_point(f->comm, f->g->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND, NULL);
    if (ftc_ft_failure_known(f->ft))
        return FTC_DETECTED;
    int rc = f->is_hub ? receive_blocks(f, error) : send_block(f);
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->g->number, STEP_BLOCKS_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS && f->is_hub)
        rc = pass_word(f);
    else if (rc == MPI_SUCCESS && waits_for_word(f, f->g->send_bytes))
        rc = hear_word(f);
    return rc;
}

/* ---- the end of a call ------------------------------------------------------------------------ */

/* This rank's block, packed, where the engine keeps it. */
static int pack_own_block(const flow *f, char *into)
{
    const ftc_gatherv_call *g = f->g;
    if (g->send_contiguous && ftc_type_is_predefined(g->send_type)) {
        if (g->send_bytes > 0)
            memcpy(into, g->send, g->send_bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Pack(g->send, g->send_count, g->send_type, into, (int)g->send_bytes,
                            &position, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_gatherv: packing its block failed");
}

/* The flow completed here: reported, and this rank's block kept for a late
 * root where no word said the root has it. */
static int complete(const flow *f)
{
    ftc_comm_t comm = f->comm;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    ftc_holdings_clear(held);
    if (f->is_hub && f->root_alive)
        ftc_holdings_copy(held, ftc_ft_live_set(f->ft));
    else if (f->root_alive)
        ftc_holdings_add(held, comm->rank);
    const bool everyone_holds = f->is_hub || waits_for_word(f, f->g->send_bytes);
    const ftc_kept_part part = { .op = MPI_OP_NULL, .block_width = f->g->send_bytes,
                                 .route = FTC_ROUTE_TO_ROOT, .root = f->g->root };
    char *keep_into = NULL;
    int rc = ftc_allreduce_attempt_completed(comm, f->g->number, held, 0, MPI_BYTE, 0,
                                             everyone_holds ? FTC_EVERYONE_HOLDS
                                                            : FTC_OTHERS_MAY_LAG,
                                             &part, &keep_into);
    if (rc == MPI_SUCCESS && keep_into) {
        rc = pack_own_block(f, keep_into);
        if (rc != MPI_SUCCESS)
            ftc_ft_drop_kept(f->ft);
    }
    return rc;
}

/* A failure stopped the flow (or a meeting is owed): the survivors end the
 * call; a living root takes the blocks of S it lacks. */
static int recover(flow *f)
{
    const ftc_gatherv_call *g = f->g;
    ftc_holdings *held = ftc_allreduce_call_holdings(f->comm);
    ftc_holdings_clear(held);
    /* the root's own block may not be in place yet; should the copy fail,
     * the root meets all the same (the others wait for it there), without
     * it, and returns the copy's error afterwards */
    const int copied = f->root_alive && f->is_hub ? copy_own_block(f) : MPI_SUCCESS;
    if (f->root_alive && copied == MPI_SUCCESS)
        ftc_holdings_add(held, f->comm->rank);
    for (int j = 1; f->root_alive && f->is_hub && j <= f->arrived; j++)
        ftc_holdings_add(held, rank_at(f, other_index(f, j)));
    const ftc_routed_blocks blocks = {
        .route = FTC_ROUTE_TO_ROOT, .root = g->root, .blocks = g->recv,
        .counts = g->recv_counts, .displs = g->displs, .type = g->recv_type,
        .extent = g->recv_extent, .type_size = g->recv_type_size, .send = g->send,
        .own_count = g->send_count, .own_type = g->send_type,
    };
    const int rc = ftc_allreduce_resume_routed(f->comm, g->number, &blocks, held);
    return rc == MPI_SUCCESS ? copied : rc;
}

/* ---- the call ---------------------------------------------------------------------------------- */

int ftc_gatherv_run(const ftc_gatherv_call *g)
{
    ftc_comm_t comm = g->comm;
    flow f = { .g = g, .comm = comm, .ft = comm->ft, .n = ftc_ft_live_count(comm->ft),
               .root_alive = ftc_ft_is_alive(comm->ft, g->root),
               .tag = ftc_ft_call_tag(comm->ft, g->number),
               .epoch = ftc_ft_epoch_comm(comm->ft) };
    f.hub = f.root_alive ? ftc_ft_epoch_rank(f.ft, g->root) : 0;
    f.is_hub = ftc_ft_live_index(f.ft) == f.hub;
    /* a rank others wait for in a meeting goes there first */
    int error = MPI_SUCCESS;
    const int rc = ftc_ft_owes_meeting(f.ft) ? FTC_DETECTED : run_flow(&f, &error);
    if (rc == MPI_SUCCESS) {
        const int completed = complete(&f);   /* kept and reported, whatever error says */
        return error != MPI_SUCCESS ? error : completed;
    }
    if (!ftc_ft_survivable(rc))
        return rc;
    const int recovered = recover(&f);
    return error != MPI_SUCCESS ? error : recovered;
}
