/*
 * Reduce, binomial: one ftc_reduce over the live ranks. The values flow
 * up the binomial tree (plans/binomial.h) while nothing fails, and the
 * allreduce engine's recovery ends the call alike on every survivor when
 * something does.
 *
 *   flow      vrank v (ranks counted from the root over the n live
 *             ranks) posts a receive per child into a slot of its own,
 *             waits for them nearest first, combining each into its value
 *             (its input, then op over its subtree so far), then sends
 *             the value to its parent; a leaf sends straight from its
 *             send buffer, the root combines into its recvbuf. On the
 *             epoch's communicator with the call's tag: no message of
 *             another call, or of an epoch a failure ended, can match
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds, holding its value: its own input
 *             and the subtrees that had arrived (the whole subtree once
 *             sent). Holdings are a rank and some of its children's whole
 *             subtrees, so any two are nested or disjoint, as the engine
 *             needs
 *   recovery  the call becomes the engine's (ftc_allreduce_resume) with
 *             those values and the call's op: every survivor gets op over
 *             S, which a living root keeps in its recvbuf
 *   return    the root completes once every value arrived, so every live
 *             rank entered the call: the window of kept calls starts
 *             afresh there. Another rank completes once its value is
 *             sent, which says nothing of the root: with three or more
 *             live ranks it keeps a copy of its own input for a root still
 *             inside the call at a meeting. Its own only: each rank below
 *             it keeps its own too, so every survivor's input is kept
 *             somewhere
 *   word      every FTC_FT_WINDOW-th call, every few calls of a size class
 *             (ft/tokens.h: what the ranks keep stays bounded; every call
 *             above 512 KiB), every call with a user's op (the copy would
 *             be combined by it after the call returned, when the program
 *             may have freed it), and with the root dead: the root's empty
 *             message down the same tree once every value arrived. A rank
 *             that gets it keeps nothing
 *   dead root nobody gets a result: with the root dead as the call began
 *             the flow moves empty messages and the word (a barrier), and
 *             every survivor returns MPI_SUCCESS, as when the root dies
 *             inside the call (a rank that passed its value on has
 *             returned before it could learn of that). The recovery's
 *             values have `count` elements on every rank, whatever it
 *             knows of the root: a rank that entered the call an epoch
 *             late may still count the root alive
 *
 *   n = 4, rank 2 dies before passing {2,3} on: rank 0 holds {0,1} (still
 *   waiting for 2), rank 3 kept {3}  ->  S = {0,1,3}
 *
 * Cost without failure: ceil(log2 n) (alpha + m beta + m gamma) at the
 * root, m the bytes of the value; with three or more live ranks every
 * rank but the root copies its input, or on the calls with the word
 * ceil(log2 n) alpha more.
 */
#include "reduce.h"

#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../ft/tokens.h"
#include "../p2p.h"
#include "../plans/binomial.h"
#include "../reduce_local.h"
#include "state.h"

/* FTCOLL_INJECT's steps of a reduce. */
enum { STEP_ENTER = 0, STEP_SUBTREE_HELD = 1, STEP_WORD = 2 };

/* The flow on this rank. */
typedef struct {
    const ftc_reduce_call *r;
    ftc_comm_t comm;
    ftc_ft *ft;
    int n, v, root_index;      /* live ranks; this rank's vrank; the root's epoch index */
    bool root_alive;           /* else vrank 0 is the lowest live rank and no value moves */
    bool is_root;              /* the real root, alive: it has a recvbuf */
    int children;
    int arrived;               /* children whose values arrived and are combined */
    bool subtree_held;         /* the whole subtree's values are combined here */
    bool word;                 /* the root's word follows the flow: nothing kept */
    int size_class;            /* of the value (ft/tokens.h) */
    long class_calls;          /* reduces of that class so far, this one included */
    char *value;               /* where this rank's value is made (the root's recvbuf,
                                * another rank's scratch); NULL until prepare_room */
    bool value_ready;          /* `value` holds this rank's input and the arrived children's */
    bool first_into_value;     /* child 0's value lands in `value`, the input joining it */
    char *slots;               /* one per other child, `bytes` apart */
    int tag;
    MPI_Comm epoch;
} flow;

static int rank_of(const flow *f, int u)
{
    return ftc_ft_live_ranks(f->ft)[(u + f->root_index) % f->n];
}

static int index_of(const flow *f, int u) { return (u + f->root_index) % f->n; }

/* With the root dead nobody's value moves: every message is empty. */
static int count_of(const flow *f) { return f->root_alive ? f->r->count : 0; }

/* ---- the value ------------------------------------------------------------------------------ */

/*
 * The scratch this rank's flow and its recovery need: room for its value
 * on any rank but the root (whose value is its recvbuf; a leaf sends from
 * its send buffer, but a recovery needs its value in room of its own),
 * and a slot for each child whose value does not land in the value itself
 * (none with the root dead: nothing moves). Child 0's value lands in the
 * value, which the input then joins: no copy of the input first, as MPI's
 * own reduce spares it. Only an in-place root's value already holds its
 * input, so there child 0 takes a slot too.
 */
static bool child_0_into_value(const flow *f)
{
    return f->children > 0 && !(f->is_root && f->r->in_place);
}

static size_t scratch_bytes(const flow *f)
{
    const size_t slots = f->root_alive ? (size_t)f->children - child_0_into_value(f) : 0;
    return (slots + !f->is_root) * f->r->bytes;
}

/* The value and the slots in the scratch, grown if the live ranks changed
 * since ftc_reduce_reserve. */
static int prepare_room(flow *f)
{
    const ftc_reduce_call *r = f->r;
    struct ftc_reduce_state *s = f->comm->reduce;
    const size_t need = scratch_bytes(f);
    if (need > 0) {
        const int rc = ftc_ensure_capacity(&s->scratch, &s->scratch_capacity, need);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    f->value_ready = f->is_root && r->in_place;
    f->first_into_value = child_0_into_value(f);
    char *room = need > 0 ? s->scratch : NULL;
    f->value = f->is_root ? r->result : room;
    f->slots = room && !f->is_root ? room + r->bytes : room;
    return MPI_SUCCESS;
}

/* Where child i's value lands (an empty one, with the root dead: anywhere). */
static char *landing_of(const flow *f, int i)
{
    if ((i == 0 && f->first_into_value) || count_of(f) == 0 || f->r->bytes == 0)
        return f->value;
    return f->slots + (size_t)(i - f->first_into_value) * f->r->bytes;
}

/* The input alone as the value (nothing arrived, or a root without children). */
static void take_input(flow *f)
{
    if (f->r->bytes > 0 && f->value != f->r->input)
        memcpy(f->value, f->r->input, f->r->bytes);
    f->value_ready = true;
}

/* ---- the flow -------------------------------------------------------------------------------- */

static int wait_for(flow *f, MPI_Request *requests, const int *expected, int count, int step,
                    const char *doing, int peer_vrank)
{
    return ftc_ft_wait_in_flow(f->comm, requests, expected, count, step, "ftc_reduce", doing,
                               rank_of(f, peer_vrank));
}

static int post_child_receives(flow *f, MPI_Request *receives)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < f->children; i++)
        receives[i] = MPI_REQUEST_NULL;
    for (int i = 0; rc == MPI_SUCCESS && i < f->children; i++)
        rc = ftc_p2p_irecv(landing_of(f, i), count_of(f), f->r->type,
                           index_of(f, ftc_binomial_child(f->v, i)), f->tag, f->epoch,
                           &receives[i]);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_reduce: a receive failed");
}

/* Child i's value joins this rank's (child 0's: the input joins it). */
static int combine(flow *f, int i)
{
    if (count_of(f) == 0)
        return MPI_SUCCESS;
    const bool input_joins = i == 0 && f->first_into_value;
    const int rc = ftc_reduce_local(input_joins ? f->r->input : landing_of(f, i), f->value,
                                    f->r->count, f->r->type, f->r->op);
    f->value_ready = rc == MPI_SUCCESS;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_reduce: combining failed");
}

/* Every child's value, nearest first, each combined into this rank's as it arrives. */
static int receive_children(flow *f)
{
    MPI_Request *receives = f->comm->reduce->requests;
    int rc = post_child_receives(f, receives);
    const int expected = count_of(f) * f->r->type_size;
    for (int i = 0; rc == MPI_SUCCESS && i < f->children; i++) {
        rc = wait_for(f, &receives[i], &expected, 1, STEP_ENTER, "receiving a value from",
                      ftc_binomial_child(f->v, i));
        receives[i] = MPI_REQUEST_NULL;
        if (rc == MPI_SUCCESS)
            rc = combine(f, i);
        f->arrived += rc == MPI_SUCCESS;
    }
    for (int i = f->arrived; i < f->children; i++)   /* stopped: the others are given up */
        if (receives[i] != MPI_REQUEST_NULL) {
            const int none = 0;
            ftc_ft_abandon(&receives[i], &none, 1);
        }
    return rc;
}

/* The value to the parent: a leaf's straight from its send buffer. */
static int send_value(flow *f)
{
    const int parent = ftc_binomial_parent(f->v);
    const void *from = f->value_ready ? f->value : f->r->input;
    MPI_Request r = MPI_REQUEST_NULL;
    const int expected = -1;
    const int rc = ftc_p2p_isend(from, count_of(f), f->r->type, index_of(f, parent), f->tag,
                                 f->epoch, &r);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_reduce: sending to rank %d failed", rank_of(f, parent));
    ftc_allreduce_injection_point(f->comm, f->r->number, STEP_SUBTREE_HELD, FTC_INJECT_AFTER_SEND,
                                  &r);
    return wait_for(f, &r, &expected, 1, STEP_SUBTREE_HELD, "sending a value to", parent);
}

static int child_index(const void *context, int i)
{
    const flow *f = context;
    return index_of(f, ftc_binomial_child(f->v, i));
}

/* The root's word down the tree, once every value arrived. */
static int pass_word(flow *f)
{
    ftc_allreduce_injection_point(f->comm, f->r->number, STEP_WORD, FTC_INJECT_BEFORE_SEND, NULL);
    ftc_ft_empties e = { .comm = f->comm, .tag = f->tag, .step = STEP_WORD,
                         .call = "ftc_reduce", .doing = "waiting for the word of" };
    const int rc = f->v == 0 ? MPI_SUCCESS
                             : ftc_ft_empty_message(&e, true,
                                                    index_of(f, ftc_binomial_parent(f->v)));
    e.doing = "passing the word to";
    return rc == MPI_SUCCESS ? ftc_ft_empty_messages(&e, false, f->children, child_index, f) : rc;
}

static int run_flow(flow *f)
{
    int rc = prepare_room(f);
    if (rc == MPI_SUCCESS && ftc_ft_failure_known(f->ft))
        rc = FTC_DETECTED;
    if (rc == MPI_SUCCESS)
        rc = receive_children(f);
    if (rc == MPI_SUCCESS && f->is_root && !f->value_ready)
        take_input(f);   /* a root alone */
    f->subtree_held = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        ftc_allreduce_injection_point(f->comm, f->r->number, STEP_SUBTREE_HELD,
                                      FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS && f->v != 0)
        rc = send_value(f);
    if (rc == MPI_SUCCESS && f->word)
        rc = pass_word(f);
    return rc;
}

/* ---- the end of a call ------------------------------------------------------------------------ */

/* The vranks whose inputs this rank's value combines: its own, and the
 * subtrees that arrived (all of [v, end) once held). */
static void holdings_of(const flow *f, ftc_holdings *held)
{
    ftc_holdings_clear(held);
    if (!f->root_alive)
        return;   /* no value exists */
    ftc_holdings_add(held, rank_of(f, f->v));
    /* child i's subtree is [v + 2^i, v + 2^(i+1)): the first `arrived` make [v + 1, v + 2^arrived) */
    const int end = f->subtree_held ? ftc_binomial_subtree_end(f->v, f->n)
                                    : f->v + (1 << f->arrived);
    for (int u = f->v + 1; u < end && u < f->n; u++)
        ftc_holdings_add(held, rank_of(f, u));
}

/* The flow completed here: reported, and the input kept for a late root
 * where nothing says it is not. */
static int complete(const flow *f)
{
    ftc_comm_t comm = f->comm;
    const ftc_reduce_call *r = f->r;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    ftc_holdings_clear(held);
    if (f->is_root)
        ftc_holdings_copy(held, ftc_ft_live_set(f->ft));
    else if (f->root_alive)
        ftc_holdings_add(held, comm->rank);   /* its own input: see `return` above */
    /* a call every rank held keeps nothing: a late rank brings its own
     * value, and this one serves with empty holdings, never combining */
    const bool everyone_holds = f->v == 0 || f->word;
    const ftc_kept_part part = { .op = r->op, .whole = true, .root = -1 };
    char *keep_into = NULL;
    const int rc = ftc_allreduce_attempt_completed(comm, r->number, held, r->count, r->type,
                                                   r->bytes,
                                                   everyone_holds ? FTC_EVERYONE_HOLDS
                                                                  : FTC_OTHERS_MAY_LAG,
                                                   everyone_holds ? NULL : &part, &keep_into);
    if (rc == MPI_SUCCESS && keep_into && r->bytes > 0)
        memcpy(keep_into, r->input, r->bytes);
    return rc;
}

/* A failure stopped the flow (or a meeting is owed): the survivors end the
 * call over S; a living root keeps op over S in its recvbuf. */
static int recover(flow *f)
{
    ftc_comm_t comm = f->comm;
    const ftc_reduce_call *r = f->r;
    /* Sized alike on every rank, whatever it knew of the root: a rank that
     * entered the call an epoch late may still see the root alive. With
     * the root dead it holds nothing: zeros, never combined */
    int rc = f->value || f->r->bytes == 0 ? MPI_SUCCESS : prepare_room(f);
    if (rc == MPI_SUCCESS && !f->root_alive && r->bytes > 0)
        memset(f->value, 0, r->bytes);
    else if (rc == MPI_SUCCESS && !f->value_ready)
        take_input(f);   /* nothing arrived yet */
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    holdings_of(f, held);
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_resume(comm, r->number, f->value, r->count, r->type, r->op, r->bytes,
                                  held);
    return rc;
}

/* ---- the call ---------------------------------------------------------------------------------- */

/*
 * Whether the root's word follows the flow: only where a late rank could
 * be served at all (three or more live ranks), and then in every call
 * whose number is a multiple of FTC_FT_WINDOW (so that the calls present
 * at a meeting stay within the window), every period-th call of the
 * value's size class (ft/tokens.h: the copies kept since the last word
 * stay within FTC_FT_KEPT_BYTES per class; above 512 KiB every call),
 * every call with a user's op, and with the root dead.
 */
static bool passes_word(const flow *f)
{
    if (!ftc_ft_keeps_results(f->ft))
        return false;
    return !f->root_alive || !f->r->op_predefined
        || ftc_ft_sends_tokens(f->r->number, f->size_class, f->class_calls);
}

/* This rank's place in the tree over the live ranks now. */
static void place(flow *f)
{
    ftc_comm_t comm = f->comm;
    f->n = ftc_ft_live_count(comm->ft);
    f->root_alive = ftc_ft_is_alive(comm->ft, f->r->root);
    f->root_index = f->root_alive ? ftc_ft_epoch_rank(f->ft, f->r->root) : 0;
    f->v = (ftc_ft_live_index(f->ft) - f->root_index + f->n) % f->n;
    f->is_root = f->root_alive && comm->rank == f->r->root;
    f->children = ftc_binomial_children(f->v, f->n);
}

int ftc_reduce_reserve(const ftc_reduce_call *r)
{
    flow f = { .r = r, .comm = r->comm, .ft = r->comm->ft };
    place(&f);
    struct ftc_reduce_state *s = r->comm->reduce;
    const size_t need = scratch_bytes(&f);
    return need > 0 ? ftc_ensure_capacity(&s->scratch, &s->scratch_capacity, need)
                    : MPI_SUCCESS;
}

int ftc_reduce_run(const ftc_reduce_call *r)
{
    ftc_comm_t comm = r->comm;
    flow f = { .r = r, .comm = comm, .ft = comm->ft,
               .tag = ftc_ft_call_tag(comm->ft, r->number),
               .epoch = ftc_ft_epoch_comm(comm->ft) };
    place(&f);
    /* counted on every call, whatever the live ranks: every rank alike */
    f.size_class = ftc_ft_token_class(r->bytes);
    f.class_calls = ++comm->reduce->class_calls[f.size_class];
    f.word = passes_word(&f);
    ftc_allreduce_injection_point(comm, r->number, STEP_ENTER, FTC_INJECT_BEFORE_SEND, NULL);
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(f.ft) ? FTC_DETECTED : run_flow(&f);
    if (rc == MPI_SUCCESS)
        return complete(&f);
    return ftc_ft_survivable(rc) ? recover(&f) : rc;
}
