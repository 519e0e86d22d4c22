/*
 * One ftc_gather over the live ranks: the blocks flow up the algorithm's
 * tree (algorithms.h) while nothing fails, and the allreduce engine's
 * recovery ends the call alike on every survivor when something does.
 *
 *   flow      vrank v (ranks counted from the root over the n live
 *             ranks) posts a receive per child, each child's subtree
 *             landing behind v's own block (at the root: in its owners'
 *             places wherever they lie end to end), waits for them in
 *             order, then sends its subtree [v, end) to its parent in one
 *             message; a leaf sends straight from its send buffer. On the
 *             epoch's communicator with the call's tag: no message of
 *             another call, or of an epoch a failure ended, can match
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds, holding its own block and the
 *             subtrees that had arrived (the whole subtree once sent)
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): the p
 *             blocks packed side by side into 8-byte words, zeros where
 *             not held, op MPI_BOR, holdings the blocks held. Holdings are
 *             a rank and some of its children's whole subtrees, so any two
 *             are nested or disjoint, as the engine needs. The round gives
 *             every survivor the union: a living root puts the blocks of S
 *             in their places; every survivor returns MPI_SUCCESS
 *   return    the root completes once every block arrived, so every live
 *             rank entered the call: the window of kept calls starts
 *             afresh there, and a rank still inside brings its own
 *             blocks. Another rank completes once its subtree is sent,
 *             which says nothing of the root: with three or more live
 *             ranks it keeps its own block, packed, for a root still
 *             inside the call at a meeting. Its own only: each rank below
 *             it keeps its own too, so every survivor's block is kept
 *             somewhere, at a copy of one block per rank (a dead rank's
 *             block then reaches the root only from where it arrived:
 *             the root, or a rank still inside the call)
 *   word      every FTC_FT_WINDOW-th call, and every few calls of a size
 *             class (the token periods of ft/tokens.h, the broadcast's: what
 *             the ranks keep stays bounded; every call above 512 KiB), the
 *             root's empty message instead, down the same tree once every
 *             block arrived: a rank that gets it keeps nothing
 *
 *   n = 4, binomial, rank 2 dies before passing its subtree {2,3} on:
 *   rank 0 holds {0,1} (still waiting for 2), rank 1 kept {1}, rank 3
 *   kept {3}  ->  S = {0,1,3}: block 2 untouched at the root, the others
 *   in place
 *
 * Cost without failure: the tree's (see its file); with three or more live
 * ranks, every rank but the root copies its own block, or on the calls
 * with the root's word (every call above 512 KiB of blocks in all)
 * ceil(log2 n) alpha more. A root not at rank 0, or with ranks dead, copies the binomial
 * subtrees that do not lie in place once more.
 */
#include "ft_gather.h"

#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../ft/tokens.h"
#include "../p2p.h"
#include "state.h"

/* FTCOLL_INJECT's steps of a gather. */
enum { STEP_ENTER = 0, STEP_SUBTREE_HELD = 1, STEP_WORD = 2 };

/* The flow on this rank. */
typedef struct {
    const ftc_gather_call *g;
    ftc_comm_t comm;
    ftc_ft *ft;
    const ftc_gather_tree *tree;
    int n, v, root_index;      /* live ranks; this rank's vrank; the root's epoch index */
    bool root_alive;           /* else vrank 0 is the lowest live rank and no block moves */
    bool is_root;              /* the real root, alive: it has a buffer */
    int end;                   /* the subtree [v, end) */
    int children;
    int arrived;               /* children whose subtrees arrived */
    bool subtree_held;         /* every block of the subtree is here */
    bool word;                 /* the root's word follows the flow: nothing kept */
    int size_class;            /* of the p blocks (ft/tokens.h) */
    long class_calls;          /* gathers of that class so far, this one included */
    /* the slots: block of vrank u in slot u - v (u - 0 at the root) */
    char *slots;
    MPI_Aint slot_stride;
    int slot_count;
    MPI_Datatype slot_type;
    bool slots_in_place;       /* the root's slots are its buffer's blocks (rank u in slot u) */
    int tag;
    MPI_Comm epoch;
} flow;

static int rank_of(const flow *f, int u)
{
    return ftc_ft_live_ranks(f->ft)[(u + f->root_index) % f->n];
}

static int index_of(const flow *f, int u) { return (u + f->root_index) % f->n; }

/* With the root dead nobody's block moves: every message is empty. */
static int count_of(const flow *f) { return f->root_alive ? f->g->send_count : 0; }

static size_t block_bytes_of(const flow *f) { return f->root_alive ? f->g->block_bytes : 0; }

/* ---- where blocks are ---------------------------------------------------------------------- */

/* Child i's subtree is [first, last). */
static void child_run(const flow *f, int i, int *first, int *last)
{
    *first = f->tree->shape->child(f->v, f->n, i);
    *last = f->tree->shape->subtree_end(*first, f->n);
}

/* At the root, a child's run goes straight into its owners' places when
 * they lie end to end there: one block, or the buffer in vrank order. */
static bool run_in_place(const flow *f, int first, int last)
{
    return f->is_root && (f->slots_in_place || last - first == 1);
}

static char *place_of(const flow *f, int rank)
{
    return f->g->recv + (MPI_Aint)rank * f->g->recv_extent * f->g->recv_count;
}

static char *slot_of(const flow *f, int u)
{
    return f->slots + (MPI_Aint)(u - f->v) * f->slot_stride;
}

/* Vrank u's block is this rank's own, in its send buffer. */
static bool in_send_buffer(const flow *f, int u)
{
    return u == f->v && !(f->is_root && f->g->in_place);
}

/* Where vrank u's block is now (u this rank's, or in a subtree that arrived). */
static const char *block_at(const flow *f, int u, int *count, MPI_Datatype *type)
{
    *count = f->slot_count;
    *type = f->slot_type;
    if (in_send_buffer(f, u)) {
        *count = count_of(f);
        *type = f->g->send_type;
        return f->g->send;
    }
    if (f->is_root) {
        for (int i = 0; i < f->children; i++) {
            int first, last;
            child_run(f, i, &first, &last);
            if (first <= u && u < last && !run_in_place(f, first, last))
                return slot_of(f, u);
        }
        return place_of(f, rank_of(f, u));
    }
    return slot_of(f, u);
}

/* The slots' blocks: the root's receive type, anyone else's send type (it
 * has no other). Set before any path that may pack a block. */
static void shape_slots(flow *f)
{
    const ftc_gather_call *g = f->g;
    f->slot_count = f->is_root ? g->recv_count : count_of(f);
    f->slot_type = f->is_root ? g->recv_type : g->send_type;
    f->slot_stride = (f->is_root ? g->recv_extent : g->send_extent) * f->slot_count;
}

/* The slots, in the user's buffer or the module's. */
static int prepare_slots(flow *f)
{
    const ftc_gather_call *g = f->g;
    struct ftc_gather_state *s = f->comm->gather;
    if (f->is_root) {
        f->slots_in_place = f->root_index == 0 && f->n == f->comm->size;
        if (f->slots_in_place) {
            f->slots = g->recv;
            return MPI_SUCCESS;
        }
        return ftc_slots_room(g->recv_type, g->recv_count, g->recv_extent, f->n, &s->slots,
                              &s->slots_capacity, &f->slots);
    }
    if (f->children == 0)
        return MPI_SUCCESS;
    return ftc_slots_room(g->send_type, f->slot_count, g->send_extent, f->end - f->v, &s->slots,
                          &s->slots_capacity, &f->slots);
}

/* ---- the flow -------------------------------------------------------------------------------- */

static int wait_for(flow *f, MPI_Request *requests, const int *expected, int count, int step,
                    const char *doing, int peer_vrank)
{
    return ftc_ft_wait_in_flow(f->comm, requests, expected, count, step, "ftc_gather", doing,
                               rank_of(f, peer_vrank));
}

static int post_child_receives(flow *f, MPI_Request *receives)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < f->children; i++)
        receives[i] = MPI_REQUEST_NULL;
    for (int i = 0; rc == MPI_SUCCESS && i < f->children; i++) {
        int first, last;
        child_run(f, i, &first, &last);
        char *into = run_in_place(f, first, last) ? place_of(f, rank_of(f, first))
                                                  : slot_of(f, first);
        rc = ftc_p2p_irecv(into, (last - first) * f->slot_count, f->slot_type,
                           index_of(f, first), f->tag, f->epoch, &receives[i]);
    }
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_gather: a receive failed");
}

/* The ask of linear_sync: an empty message to child i before its block. */
static int ask_child(flow *f, int i, MPI_Request *ask)
{
    static const char empty = 0;
    *ask = MPI_REQUEST_NULL;
    if (!f->tree->sync)
        return MPI_SUCCESS;
    const int child = f->tree->shape->child(f->v, f->n, i);
    const int rc = ftc_p2p_isend(&empty, 0, MPI_BYTE, index_of(f, child), f->tag, f->epoch, ask);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_gather: an ask failed");
}

/* Every child's subtree, in the tree's order. */
static int receive_subtrees(flow *f)
{
    MPI_Request *receives = f->comm->gather->requests;
    int rc = post_child_receives(f, receives);
    for (int i = 0; rc == MPI_SUCCESS && i < f->children; i++) {
        int first, last;
        child_run(f, i, &first, &last);
        MPI_Request pair[2] = { receives[i], MPI_REQUEST_NULL };
        const int expected[2] = { (int)((size_t)(last - first) * block_bytes_of(f)), -1 };
        rc = ask_child(f, i, &pair[1]);
        if (rc == MPI_SUCCESS)
            rc = wait_for(f, pair, expected, 2, STEP_ENTER, "receiving a subtree from", first);
        else
            ftc_ft_abandon(pair, expected, 2);
        receives[i] = MPI_REQUEST_NULL;
        f->arrived += rc == MPI_SUCCESS;
    }
    for (int i = f->arrived; i < f->children; i++)   /* stopped: the others are given up */
        if (receives[i] != MPI_REQUEST_NULL) {
            const int expected = 0;
            ftc_ft_abandon(&receives[i], &expected, 1);
        }
    return rc;
}

/* An empty message from the parent: linear_sync's ask, or the root's word. */
static int hear_parent(flow *f, int step, const char *doing)
{
    const ftc_ft_empties e = { .comm = f->comm, .tag = f->tag, .step = step,
                               .call = "ftc_gather", .doing = doing };
    return ftc_ft_empty_message(&e, true, index_of(f, f->tree->shape->parent(f->v, f->n)));
}

/* The subtree's blocks at `from`, to the parent, in one message. */
static int send_subtree_now(flow *f, const void *from)
{
    const int parent = f->tree->shape->parent(f->v, f->n);
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = -1;
    const int rc = ftc_p2p_isend(from, (f->end - f->v) * f->slot_count, f->slot_type,
                                 index_of(f, parent), f->tag, f->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_gather: sending to rank %d failed", rank_of(f, parent));
    return wait_for(f, &r, &expected, 1, STEP_SUBTREE_HELD, "sending a subtree to", parent);
}

/* The subtree to the parent, once asked where the tree asks: a leaf's
 * block from its send buffer, else the slots, this rank's own block first
 * in them. */
static int send_subtree(flow *f)
{
    if (f->tree->sync) {
        const int rc = hear_parent(f, STEP_SUBTREE_HELD, "waiting for the ask of");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return send_subtree_now(f, f->children == 0 ? f->g->send : f->slots);
}

static int child_index(const void *context, int i)
{
    const flow *f = context;
    return index_of(f, f->tree->shape->child(f->v, f->n, i));
}

/* The root's word down the tree, once every block arrived (a linear
 * root's n - 1 children in batches). */
static int pass_word(flow *f)
{
    ftc_allreduce_injection_point(f->comm, f->g->number, STEP_WORD, FTC_INJECT_BEFORE_SEND, NULL);
    if (f->v != 0) {
        const int rc = hear_parent(f, STEP_WORD, "waiting for the word of");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    const ftc_ft_empties e = { .comm = f->comm, .tag = f->tag, .step = STEP_WORD,
                               .call = "ftc_gather", .doing = "passing the word to" };
    return ftc_ft_empty_messages(&e, false, f->children, child_index, f);
}

/* The root's blocks: its own in its place, the runs that landed apart
 * moved to their owners'. */
static int deliver(flow *f)
{
    const ftc_gather_call *g = f->g;
    MPI_Comm comm = f->comm->comm;
    int rc = MPI_SUCCESS;
    if (!g->in_place)
        rc = ftc_typed_copy(g->send, g->send_count, g->send_type, g->send_contiguous,
                            place_of(f, f->comm->rank), g->recv_count, g->recv_type,
                            g->recv_contiguous, comm);
    for (int i = 0; rc == MPI_SUCCESS && i < f->children; i++) {
        int first, last;
        child_run(f, i, &first, &last);
        for (int u = first; rc == MPI_SUCCESS && !run_in_place(f, first, last) && u < last; u++)
            rc = ftc_typed_copy(slot_of(f, u), g->recv_count, g->recv_type, g->recv_contiguous,
                                place_of(f, rank_of(f, u)), g->recv_count, g->recv_type,
                                g->recv_contiguous, comm);
    }
    return rc;
}

/*
 * Two live ranks, the root one of them: every tree is one message, into
 * its place at the root, with linear_sync's ask before it. The same flow
 * without its loops: back-to-back calls on two ranks pay little else.
 */
static int run_pair(flow *f)
{
    const ftc_gather_call *g = f->g;
    if (ftc_ft_failure_known(f->ft))
        return FTC_DETECTED;
    int rc = MPI_SUCCESS;
    if (f->v == 1) {
        if (f->tree->sync)
            rc = hear_parent(f, STEP_ENTER, "waiting for the ask of");
        f->subtree_held = rc == MPI_SUCCESS;
        return rc == MPI_SUCCESS ? send_subtree_now(f, g->send) : rc;
    }
    MPI_Request pair[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    const int expected[2] = { (int)g->block_bytes, -1 };
    rc = ftc_p2p_irecv(place_of(f, rank_of(f, 1)), g->recv_count, g->recv_type, index_of(f, 1),
                       f->tag, f->epoch, &pair[0]);
    if (rc == MPI_SUCCESS)
        rc = ask_child(f, 0, &pair[1]);
    if (rc != MPI_SUCCESS) {
        ftc_ft_abandon(pair, expected, 2);
        return ftc_fail_mpi(rc, "ftc_gather: a receive failed");
    }
    rc = wait_for(f, pair, expected, 2, STEP_ENTER, "receiving a subtree from", 1);
    f->arrived = f->subtree_held = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, g->number, STEP_SUBTREE_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    return rc == MPI_SUCCESS ? deliver(f) : rc;
}

static int run_flow(flow *f)
{
    ftc_allreduce_injection_point(f->comm, f->g->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND, NULL);
    if (f->n == 2 && f->root_alive)
        return run_pair(f);
    int rc = prepare_slots(f);
    if (rc == MPI_SUCCESS && !f->is_root && f->children > 0 && f->root_alive)
        rc = ftc_typed_copy(f->g->send, f->g->send_count, f->g->send_type,
                            f->g->send_contiguous, f->slots, f->slot_count, f->slot_type,
                            f->g->send_contiguous, f->comm->comm);
    if (rc == MPI_SUCCESS && ftc_ft_failure_known(f->ft))
        rc = FTC_DETECTED;
    if (rc == MPI_SUCCESS)
        rc = receive_subtrees(f);
    f->subtree_held = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->g->number, STEP_SUBTREE_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS && f->v != 0)
        rc = send_subtree(f);
    if (rc == MPI_SUCCESS && f->word)
        rc = pass_word(f);
    if (rc == MPI_SUCCESS && f->is_root)
        rc = deliver(f);
    return rc;
}

/* ---- the blocks as the engine's recovery sees them ------------------------------------------ */

typedef struct {
    int width;     /* one block packed */
    bool bytes;    /* a block of the slots' type packs as its bytes */
    bool own_bytes;   /* so does this rank's own block in its send buffer */
    int words;     /* the p blocks, padded to whole words */
} word_layout;

static size_t word_bytes(const word_layout *l) { return (size_t)l->words * 8; }

/* One block's packed width, from the types this rank has (the root's
 * receive side, anyone else's send side: one signature), never from the
 * live ranks: a rank that ran the call before a meeting and one that
 * finishes it late after the meeting must size it alike. */
static int layout_of(const flow *f, word_layout *l)
{
    const ftc_gather_call *g = f->g;
    const bool root_side = g->recv != NULL;
    const MPI_Datatype type = root_side ? g->recv_type : g->send_type;
    const int count = root_side ? g->recv_count : g->send_count;
    const bool contiguous = root_side ? g->recv_contiguous : g->send_contiguous;
    l->bytes = contiguous && ftc_type_is_predefined(type);
    l->own_bytes = root_side ? g->send_contiguous && ftc_type_is_predefined(g->send_type)
                             : l->bytes;
    int width = (int)g->block_bytes;
    if (!l->bytes) {
        const int rc = MPI_Pack_size(count, type, f->comm->comm, &width);
        if (rc != MPI_SUCCESS || width < 0)
            return ftc_fail(rc != MPI_SUCCESS ? rc : MPI_ERR_COUNT,
                            "ftc_gather: cannot size a packed block");
    }
    if ((long long)width * f->comm->size > FTC_GATHER_MAX_BYTES)
        return ftc_fail(MPI_ERR_COUNT, "ftc_gather: %d blocks packed come to %lld bytes, more "
                        "than the 2 GiB that the recovery after a failure can carry",
                        f->comm->size, (long long)width * f->comm->size);
    l->width = width;
    l->words = (int)(((long long)width * f->comm->size + 7) / 8);
    return MPI_SUCCESS;
}

/* Vrank u's block, packed at `to`. */
static int pack_block_at(const flow *f, const word_layout *l, int u, char *to)
{
    int count;
    MPI_Datatype type;
    const char *from = block_at(f, u, &count, &type);
    if (in_send_buffer(f, u) ? l->own_bytes : l->bytes) {
        if (l->width > 0)
            memcpy(to, from, (size_t)l->width);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Pack(from, count, type, to, l->width, &position, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_gather: packing failed");
}

/* Vrank u's block, packed in its owner's place among the p blocks. */
static int pack_block(const flow *f, const word_layout *l, int u, char *words)
{
    return pack_block_at(f, l, u, words + (size_t)rank_of(f, u) * (size_t)l->width);
}

/* The kept part (ftc_kept_part): the blocks of `held` alone, in rank order. */
static int pack_part(const flow *f, const word_layout *l, const ftc_holdings *held, char *into)
{
    int rc = MPI_SUCCESS;
    for (int r = 0; rc == MPI_SUCCESS && r < f->comm->size; r++)
        if (ftc_holdings_has(held, r)) {
            const int u = (ftc_ft_epoch_rank(f->ft, r) - f->root_index + f->n) % f->n;
            rc = pack_block_at(f, l, u, into);
            into += l->width;
        }
    return rc;
}

/* The vranks this rank holds the blocks of: its own, and the subtrees that
 * arrived (all of [v, end) once held). */
static int pack_held(const flow *f, const word_layout *l, char *words, ftc_holdings *held)
{
    memset(words, 0, word_bytes(l));
    ftc_holdings_clear(held);
    if (!f->root_alive)
        return MPI_SUCCESS;   /* no block exists */
    int rc = pack_block(f, l, f->v, words);
    ftc_holdings_add(held, rank_of(f, f->v));
    const int runs = f->subtree_held ? f->children : f->arrived;
    for (int i = 0; rc == MPI_SUCCESS && i < runs; i++) {
        int first, last;
        child_run(f, i, &first, &last);
        for (int u = first; rc == MPI_SUCCESS && u < last; u++) {
            rc = pack_block(f, l, u, words);
            ftc_holdings_add(held, rank_of(f, u));
        }
    }
    return rc;
}

static int unpack_block(const flow *f, const word_layout *l, const char *words, int rank)
{
    const ftc_gather_call *g = f->g;
    const char *from = words + (size_t)rank * (size_t)l->width;
    if (l->bytes) {
        if (l->width > 0)
            memcpy(place_of(f, rank), from, (size_t)l->width);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Unpack(from, l->width, &position, place_of(f, rank), g->recv_count,
                              g->recv_type, f->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_gather: unpacking failed");
}

/* ---- the end of a call ------------------------------------------------------------------------ */

/* The flow completed here: reported, and kept for a late root where nothing says it is not. */
static int complete(const flow *f)
{
    ftc_comm_t comm = f->comm;
    word_layout l = { 0, false, false, 0 };   /* sized only where the value is kept */
    int rc = ftc_ft_keeps_results(f->ft) ? layout_of(f, &l) : MPI_SUCCESS;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    ftc_holdings_clear(held);
    if (f->is_root)
        ftc_holdings_copy(held, ftc_ft_live_set(f->ft));
    const bool everyone_holds = f->v == 0 || f->word;
    char *keep_into = NULL;
    if (rc == MPI_SUCCESS && !f->is_root && f->root_alive)
        ftc_holdings_add(held, comm->rank);   /* its own block: see `return` above */
    const ftc_kept_part part = { .op = MPI_BOR, .block_width = (size_t)l.width, .root = -1 };
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_attempt_completed(comm, f->g->number, held, l.words, MPI_UINT64_T,
                                             word_bytes(&l),
                                             everyone_holds ? FTC_EVERYONE_HOLDS
                                                            : FTC_OTHERS_MAY_LAG,
                                             &part, &keep_into);
    if (rc == MPI_SUCCESS && keep_into) {
        rc = pack_part(f, &l, held, keep_into);
        if (rc != MPI_SUCCESS)
            ftc_ft_drop_kept(f->ft);
    }
    return rc;
}

/* A failure stopped the flow (or a meeting is owed): the survivors end the
 * call; a living root puts the blocks of S in their places. */
static int recover(flow *f)
{
    ftc_comm_t comm = f->comm;
    word_layout l;
    int rc = layout_of(f, &l);
    if (rc == MPI_SUCCESS)
        rc = ftc_ensure_capacity(&comm->packed, &comm->packed_size,
                                 word_bytes(&l) > 0 ? word_bytes(&l) : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    char *words = comm->packed;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    rc = pack_held(f, &l, words, held);
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_resume(comm, f->g->number, words, l.words, MPI_UINT64_T, MPI_BOR,
                                  word_bytes(&l), held);
    for (int r = 0; rc == MPI_SUCCESS && f->is_root && r < comm->size; r++)
        if (ftc_allreduce_result_includes(comm, r))
            rc = unpack_block(f, &l, words, r);
    return rc;
}

/* ---- the call ---------------------------------------------------------------------------------- */

static size_t all_bytes_of(const ftc_gather_call *g, ftc_comm_t comm)
{
    return g->block_bytes * (size_t)comm->size;
}

/*
 * Whether the root's word follows the flow: only where a late rank could
 * be served at all (three or more live ranks), and then in every call
 * whose number is a multiple of FTC_FT_WINDOW (so that the calls present
 * at a meeting stay within the window), every period-th call of the size
 * class of the p blocks (ft/tokens.h: the copies kept since the last
 * word stay within FTC_FT_KEPT_BYTES per class; above 512 KiB
 * every call), and with the root dead (the flow then moves nothing, and
 * the word makes it a barrier). A copy is of the rank's own block only:
 * between words it costs less than the word.
 */
static bool passes_word(const flow *f)
{
    if (!ftc_ft_keeps_results(f->ft))
        return false;
    return !f->root_alive || ftc_ft_sends_tokens(f->g->number, f->size_class, f->class_calls);
}

int ftc_gather_run(const ftc_gather_call *g)
{
    ftc_comm_t comm = g->comm;
    flow f = { .g = g, .comm = comm, .ft = comm->ft, .tree = ftc_gather_tree_of(g->algorithm),
               .n = ftc_ft_live_count(comm->ft), .root_alive = ftc_ft_is_alive(comm->ft, g->root),
               .tag = ftc_ft_call_tag(comm->ft, g->number),
               .epoch = ftc_ft_epoch_comm(comm->ft) };
    f.root_index = f.root_alive ? ftc_ft_epoch_rank(f.ft, g->root) : 0;
    f.v = (ftc_ft_live_index(f.ft) - f.root_index + f.n) % f.n;
    f.is_root = f.root_alive && comm->rank == g->root;
    f.end = f.tree->shape->subtree_end(f.v, f.n);
    f.children = f.tree->shape->children(f.v, f.n);
    shape_slots(&f);
    /* counted on every call, whatever the live ranks: every rank alike */
    f.size_class = ftc_ft_token_class(all_bytes_of(g, comm));
    f.class_calls = ++comm->gather->class_calls[f.size_class];
    f.word = passes_word(&f);
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(f.ft) ? FTC_DETECTED : run_flow(&f);
    if (rc == MPI_SUCCESS)
        return complete(&f);
    return ftc_ft_survivable(rc) ? recover(&f) : rc;
}
