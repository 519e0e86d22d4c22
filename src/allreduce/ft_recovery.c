/*
 * Fault-tolerant allreduce, the round a meeting runs (ULFM). The layer
 * (ft/meeting.c) has opened a new epoch, gathered every survivor's place
 * and holdings, and decided; this file finishes the call:
 *
 *   plan       ftc_recovery_plan_build over the participants' holdings
 *              (recovery.h): masters, who gets the result from whom, S
 *   reduce     the masters' recursive doubling, folds included
 *   hand out   each master sends the result to the survivors it covers
 *              that do not already hold it
 *   serve      a rank that completed the call (it is past it) takes part
 *              with the result it kept, holdings S: the late ranks get it
 *              by the same hand-out
 *
 * Every message of a round carries, before the value, the call's number,
 * the epoch, the phase and the holdings of the value. The receiver checks
 * all four: a value is combined only with a value of disjoint holdings,
 * inside S, of this call and epoch, so no contribution is ever counted
 * twice, by construction, whatever arrives. Cost: a copy of the value per
 * message, only after a failure.
 */
#include "ft_call.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../buffer.h"
#include "../error.h"
#include "../p2p.h"
#include "recovery.h"

enum { HEAD_CALL, HEAD_EPOCH, HEAD_PHASE, HEAD_HOLDINGS };

/* A round's view: the plan and what the messages must say. */
typedef struct {
    ftc_ft_call *c;
    long epoch;
    const ftc_recovery_plan *plan;
    const ftc_holdings *values;   /* per rank: the holdings its value starts with */
    size_t head_bytes;            /* header, holdings included */
} round_view;

/* ---- messages: a value with its holdings ------------------------------------------ */

static size_t message_bytes(const round_view *v) { return v->head_bytes + v->c->bytes; }

static void pack(const round_view *v, int phase, const ftc_holdings *held, const void *value)
{
    uint64_t *head = (uint64_t *)(void *)v->c->comm->allreduce->packed_out;
    head[HEAD_CALL] = (uint64_t)v->c->number;
    head[HEAD_EPOCH] = (uint64_t)v->epoch;
    head[HEAD_PHASE] = (uint64_t)phase;
    memcpy(head + HEAD_HOLDINGS, held->words,
           sizeof(uint64_t) * (size_t)ftc_holdings_words(held->size));
    if (v->c->bytes > 0)
        memcpy((char *)head + v->head_bytes, value, v->c->bytes);
}

/* The received message's header, checked; its holdings point into the buffer. */
static int unpack(const round_view *v, int phase, int from, ftc_holdings *held, void *value)
{
    uint64_t *head = (uint64_t *)(void *)v->c->comm->allreduce->packed_in;
    if (head[HEAD_CALL] != (uint64_t)v->c->number || head[HEAD_EPOCH] != (uint64_t)v->epoch
        || head[HEAD_PHASE] != (uint64_t)phase)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d sent a value of call %llu, "
                        "epoch %llu, phase %llu where call %ld, epoch %ld, phase %d was due",
                        from, (unsigned long long)head[HEAD_CALL],
                        (unsigned long long)head[HEAD_EPOCH], (unsigned long long)head[HEAD_PHASE],
                        v->c->number, v->epoch, phase);
    *held = (ftc_holdings){ .size = v->c->comm->size, .words = head + HEAD_HOLDINGS };
    if (!ftc_holdings_subset(held, &v->plan->result))
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d sent a value holding ranks "
                        "outside the result", from);
    if (value && v->c->bytes > 0)
        memcpy(value, (char *)head + v->head_bytes, v->c->bytes);
    return MPI_SUCCESS;
}

/* Sends and/or receives one packed message with `peer` (a rank). */
static int transfer(round_view *v, int tag, bool send, bool receive, int peer, const char *what)
{
    ftc_ft *ft = v->c->ft;
    const MPI_Comm comm = ftc_ft_epoch_comm(ft);
    const int to = ftc_ft_epoch_rank(ft, peer), bytes = (int)message_bytes(v);
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    const int expected[2] = { bytes, -1 };
    int rc = MPI_SUCCESS;
    if (receive)
        rc = ftc_p2p_irecv(v->c->comm->allreduce->packed_in, bytes, MPI_BYTE, to, tag, comm,
                           &r[0]);
    if (rc == MPI_SUCCESS && send) {
        ftc_ft_die_if_injected(v->c, FTC_INJECT_BEFORE_SEND, NULL);
        rc = ftc_p2p_isend(v->c->comm->allreduce->packed_out, bytes, MPI_BYTE, to, tag, comm,
                           &r[1]);
        if (rc == MPI_SUCCESS)
            ftc_ft_die_if_injected(v->c, FTC_INJECT_AFTER_SEND, &r[1]);
    }
    return ftc_ft_complete_transfer(v->c, rc, r, expected, 2, what, peer);
}

/* The partner's value, in c->incoming, joins this rank's: holdings disjoint. */
static int combine_checked(round_view *v, const ftc_holdings *theirs, bool partner_is_higher,
                           int from)
{
    ftc_ft_call *c = v->c;
    if (!ftc_holdings_disjoint(theirs, &c->held))
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d sent a value overlapping this "
                        "rank's: combining it would count a contribution twice", from);
    ftc_ft_combine(c, partner_is_higher);
    ftc_holdings_unite(&c->held, theirs);
    return MPI_SUCCESS;
}

/* Receives a value from `from` (and sends this rank's first if `send`), combines it. */
static int exchange_and_combine(round_view *v, int from, bool send, bool partner_is_higher)
{
    ftc_ft_call *c = v->c;
    if (send)
        pack(v, FTC_TAG_FT_REDUCE, &c->held, c->current);
    int rc = transfer(v, FTC_TAG_FT_REDUCE, send, true, from,
                      send ? "exchanging values with" : "receiving a value from");
    ftc_holdings theirs;
    if (rc == MPI_SUCCESS)
        rc = unpack(v, FTC_TAG_FT_REDUCE, from, &theirs, c->incoming);
    return rc == MPI_SUCCESS ? combine_checked(v, &theirs, partner_is_higher, from) : rc;
}

/* ---- the masters' recursive doubling ---------------------------------------------------- */

static int reduce_as_spare(round_view *v, int active)
{
    ftc_ft_call *c = v->c;
    c->step = FTC_INJECT_STEP_FOLD_IN;
    pack(v, FTC_TAG_FT_REDUCE, &c->held, c->current);
    int rc = transfer(v, FTC_TAG_FT_REDUCE, true, false, active, "sending a value to");
    c->step = FTC_INJECT_STEP_FOLD_OUT;
    if (rc == MPI_SUCCESS)
        rc = transfer(v, FTC_TAG_FT_REDUCE, false, true, active, "receiving the result from");
    ftc_holdings result;
    if (rc == MPI_SUCCESS)
        rc = unpack(v, FTC_TAG_FT_REDUCE, active, &result, c->current);
    if (rc == MPI_SUCCESS && !ftc_holdings_equal(&result, &v->plan->result))
        rc = ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d returned a result short of S",
                      active);
    if (rc == MPI_SUCCESS)
        ftc_holdings_copy(&c->held, &result);
    return rc;
}

static int reduce_among_masters(round_view *v)
{
    ftc_ft_call *c = v->c;
    const ftc_recovery_plan *plan = v->plan;
    if (c->op == MPI_OP_NULL)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a rank that had returned from call %ld "
                        "would have to combine values to finish it", c->number);
    int me = 0;
    while (plan->masters[me] != c->comm->rank)
        me++;
    const int n = plan->nmasters, fold = ftc_rd_fold_partner(me, n);
    if (me >= ftc_rd_actives(n))
        return reduce_as_spare(v, plan->masters[fold]);
    int rc = MPI_SUCCESS;
    if (fold >= 0) {
        c->step = FTC_INJECT_STEP_FOLD_IN;
        rc = exchange_and_combine(v, plan->masters[fold], false, true);
    }
    for (int step = 0; rc == MPI_SUCCESS && step < ftc_rd_steps(n); step++) {
        const int partner = ftc_rd_partner(me, step);
        c->step = step;
        rc = exchange_and_combine(v, plan->masters[partner], true, partner > me);
    }
    if (rc == MPI_SUCCESS && fold >= 0) {
        c->step = FTC_INJECT_STEP_FOLD_OUT;
        pack(v, FTC_TAG_FT_REDUCE, &c->held, c->current);
        rc = transfer(v, FTC_TAG_FT_REDUCE, true, false, plan->masters[fold],
                      "returning the result to");
    }
    return rc;
}

/* ---- the hand-out ------------------------------------------------------------------------- */

static bool needs_result(const round_view *v, int rank)
{
    return !ftc_holdings_equal(&v->values[rank], &v->plan->result);
}

static int receive_result(round_view *v)
{
    ftc_ft_call *c = v->c;
    const int master = v->plan->master_of[c->comm->rank];
    int rc = transfer(v, FTC_TAG_FT_HANDOUT, false, true, master, "receiving the result from");
    ftc_holdings result;
    if (rc == MPI_SUCCESS)
        rc = unpack(v, FTC_TAG_FT_HANDOUT, master, &result, c->current);
    if (rc == MPI_SUCCESS && !ftc_holdings_equal(&result, &v->plan->result))
        rc = ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d handed out a result other than S",
                      master);
    return rc;
}

static int hand_out(round_view *v)
{
    ftc_ft_call *c = v->c;
    const int me = c->comm->rank;
    c->step = FTC_INJECT_STEP_HANDOUT;
    if (v->plan->master_of[me] != me)
        return needs_result(v, me) ? receive_result(v) : MPI_SUCCESS;
    if (!ftc_holdings_equal(&c->held, &v->plan->result))
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: the masters' reduction ended short of S");
    pack(v, FTC_TAG_FT_HANDOUT, &c->held, c->current);
    const int n = ftc_ft_live_count(c->ft);
    const int *live = ftc_ft_live_ranks(c->ft);
    for (int i = 0; i < n; i++) {
        const int r = live[i];
        if (r == me || v->plan->master_of[r] != me || !needs_result(v, r))
            continue;
        const int rc = transfer(v, FTC_TAG_FT_HANDOUT, true, false, r, "handing the result to");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- planning ---------------------------------------------------------------------------- */

static int plan_error(ftc_plan_status status)
{
    return ftc_fail(status == FTC_PLAN_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_INTERN,
                    "ftc_allreduce: recovery planning failed (%s)",
                    status == FTC_PLAN_NO_MEMORY ? "out of memory"
                    : status == FTC_PLAN_NOT_LAMINAR ? "survivors' partial results overlap"
                    : "no survivor");
}

/* "{0-3,8}": a set of ranks, runs of consecutive ranks shortened. */
static void format_set(const ftc_holdings *h, char *out, size_t room)
{
    out[0] = '\0';
    for (int r = 0; r < h->size; r++) {
        if (!ftc_holdings_has(h, r) || (r > 0 && ftc_holdings_has(h, r - 1)))
            continue;
        int last = r;
        while (last + 1 < h->size && ftc_holdings_has(h, last + 1))
            last++;
        ftc_append(out, room, out[0] ? ",%d" : "%d", r);
        if (last > r)
            ftc_append(out, room, "-%d", last);
    }
}

/* FTCOLL_VERBOSE=1: the lowest live rank tells what the round does, in one write. */
static void log_plan(const round_view *v)
{
    const ftc_ft_call *c = v->c;
    if (!c->comm->verbose || ftc_ft_live_ranks(c->ft)[0] != c->comm->rank)
        return;
    char line[2048] = "", set[256];
    ftc_append(line, sizeof(line), "ftcoll: allreduce call %ld, epoch %ld: %d live ranks; "
               "masters:", c->number, v->epoch, ftc_ft_live_count(c->ft));
    for (int i = 0; i < v->plan->nmasters; i++) {
        format_set(&v->values[v->plan->masters[i]], set, sizeof(set));
        ftc_append(line, sizeof(line), " %d holds {%s}", v->plan->masters[i], set);
    }
    format_set(&v->plan->result, set, sizeof(set));
    ftc_append(line, sizeof(line), "; S = {%s}, %d of %d ranks", set,
               ftc_holdings_count(&v->plan->result), c->comm->size);
    fprintf(stderr, "%s\n", line);
}

/* Per rank, the holdings its value starts the round with: a rank inside
 * the call brings its value, a rank past it the result it kept. */
static void starting_holdings(const ftc_ft_meeting *m, ftc_holdings *values, bool *participant,
                              int size)
{
    for (int r = 0; r < size; r++)
        participant[r] = false;
    for (int i = 0; i < m->n; i++) {
        const int r = m->ranks[i];
        const bool inside = m->where[i].place == FTC_AT_CALL
                         && m->where[i].call == m->decision.call;
        values[r] = inside ? m->held[r] : m->kept[r];   /* shares the words: read only */
        participant[r] = true;
    }
}

/* The round's buffers grow only here, at its start: right after a meeting,
 * when no send that a failure released can still read the old ones. */
static int make_room(ftc_ft_call *c, size_t message)
{
    struct ftc_allreduce_state *s = c->comm->allreduce;
    const int rc = ftc_ensure_capacity(&s->packed_out, &s->packed_out_capacity, message);
    return rc == MPI_SUCCESS ? ftc_ensure_capacity(&s->packed_in, &s->packed_in_capacity, message)
                             : rc;
}

static int run_round(ftc_ft_call *c, const ftc_ft_meeting *m)
{
    const int size = c->comm->size;
    ftc_holdings *values = malloc(sizeof(ftc_holdings) * (size_t)size);
    bool *participant = malloc(sizeof(bool) * (size_t)size);
    ftc_recovery_plan plan = { 0 };
    int rc = values && participant ? MPI_SUCCESS
                                   : ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    if (rc == MPI_SUCCESS) {
        starting_holdings(m, values, participant, size);
        const ftc_plan_status status = ftc_recovery_plan_build(&plan, size, participant, values);
        rc = status == FTC_PLAN_OK ? MPI_SUCCESS : plan_error(status);
    }
    round_view v = { .c = c, .epoch = m->epoch, .plan = &plan, .values = values,
                     .head_bytes = sizeof(uint64_t)
                                 * (size_t)(HEAD_HOLDINGS + ftc_holdings_words(size)) };
    if (rc == MPI_SUCCESS && !ftc_holdings_equal(&values[c->comm->rank], &c->held))
        rc = ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: this rank's record differs from its value");
    if (rc == MPI_SUCCESS)
        rc = make_room(c, message_bytes(&v));
    if (rc == MPI_SUCCESS) {
        log_plan(&v);
        const bool master = plan.master_of[c->comm->rank] == c->comm->rank;
        if (master && plan.nmasters > 1)
            rc = reduce_among_masters(&v);
    }
    if (rc == MPI_SUCCESS)
        rc = hand_out(&v);
    if (rc == MPI_SUCCESS)
        ftc_holdings_copy(&c->held, &plan.result);
    ftc_recovery_plan_destroy(&plan);
    free(values);
    free(participant);
    return rc;
}

/* ---- a round for blocks routed each to one rank (ftc_routed_blocks) ----------------------- */

/* Whether `rank` is inside the round's call: only then does it lack anything. */
static bool inside_call(const ftc_ft_meeting *m, int rank)
{
    for (int i = 0; i < m->n; i++)
        if (m->ranks[i] == rank)
            return m->where[i].place == FTC_AT_CALL && m->where[i].call == m->decision.call;
    return false;   /* dead */
}

static int destination_of(const ftc_routed_blocks *b, int owner)
{
    return b->route == FTC_ROUTE_TO_ROOT ? b->root : owner;
}

/* The round's transfers on this rank, posted in batches of FTC_FT_MAX_WAIT. */
typedef struct {
    ftc_ft_call *c;
    const ftc_routed_blocks *b;
    MPI_Request r[FTC_FT_MAX_WAIT];
    int expected[FTC_FT_MAX_WAIT];
    int posted;
    int first_peer;
    bool receives;   /* the batch's, for the watchdog's line */
} routed_batch;

/* Where block `owner` lies at the root (or in the copies it kept). */
static char *block_place(const ftc_routed_blocks *b, int owner)
{
    const MPI_Aint at = b->displs ? (MPI_Aint)b->displs[owner] : (MPI_Aint)owner * b->stride;
    return b->blocks + at * b->extent;
}

/* Block `owner` arriving here, its destination: into its place. */
static int receive_block(routed_batch *t, int owner, int from)
{
    const ftc_routed_blocks *b = t->b;
    MPI_Request *r = &t->r[t->posted];
    const int peer = ftc_ft_epoch_rank(t->c->ft, from);
    const MPI_Comm epoch = ftc_ft_epoch_comm(t->c->ft);
    if (b->route == FTC_ROUTE_TO_ROOT) {
        t->expected[t->posted] = b->counts[owner] * b->type_size;
        return ftc_p2p_irecv(block_place(b, owner), b->counts[owner], b->type, peer,
                             FTC_TAG_FT_BLOCKS, epoch, r);
    }
    int own_size = 0;
    const int rc = MPI_Type_size(b->own_type, &own_size);
    t->expected[t->posted] = b->own_count * own_size;
    return rc != MPI_SUCCESS ? rc
                             : ftc_p2p_irecv(b->recv, b->own_count, b->own_type, peer,
                                             FTC_TAG_FT_BLOCKS, epoch, r);
}

/* Block `owner` leaving here for `destination`: a gatherv's rank sends
 * only its own; on the way to the owners, any participant any block it
 * describes (a scatter's root, its kept copies, a rank passing blocks on;
 * a count of -1: not described). */
static int send_block(routed_batch *t, int owner, int destination)
{
    const ftc_routed_blocks *b = t->b;
    const int me = t->c->comm->rank;
    const bool own = b->route == FTC_ROUTE_TO_ROOT;
    if (own ? owner != me : !b->counts || b->counts[owner] < 0)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d holds rank %d's block for rank "
                        "%d, but %s", me, owner, destination,
                        own ? "only its owner sends it" : "no place for it");
    t->expected[t->posted] = -1;
    ftc_ft_die_if_injected(t->c, FTC_INJECT_BEFORE_SEND, NULL);
    const int peer = ftc_ft_epoch_rank(t->c->ft, destination);
    const MPI_Comm epoch = ftc_ft_epoch_comm(t->c->ft);
    return own ? ftc_p2p_isend(b->send, b->own_count, b->own_type, peer, FTC_TAG_FT_BLOCKS, epoch,
                               &t->r[t->posted])
               : ftc_p2p_isend(block_place(b, owner), b->counts[owner], b->type, peer,
                               FTC_TAG_FT_BLOCKS, epoch, &t->r[t->posted]);
}

static int complete_batch(routed_batch *t, int rc)
{
    rc = ftc_ft_complete_transfer(t->c, rc, t->r, t->expected, t->posted,
                                  t->receives ? "receiving a block from" : "sending a block to",
                                  t->first_peer);
    t->posted = 0;
    return rc;
}

/*
 * Every block whose destination is inside the call and lacks it, from its
 * sender (ftc_recovery_block_sender), the same plan on every participant;
 * this rank takes part where it is the sender or the destination. *got:
 * the owners whose blocks arrived here.
 */
static int move_blocks(ftc_ft_call *c, const ftc_routed_blocks *b, const ftc_ft_meeting *m,
                       const ftc_holdings *values, const bool *participant, ftc_holdings *got)
{
    const int size = c->comm->size, me = c->comm->rank;
    routed_batch t = { .c = c, .b = b, .first_peer = -1 };
    int rc = MPI_SUCCESS;
    for (int owner = 0; rc == MPI_SUCCESS && owner < size; owner++) {
        const int destination = destination_of(b, owner);
        if (!inside_call(m, destination))
            continue;
        const int from = ftc_recovery_block_sender(size, participant, values, destination, owner);
        if (from < 0 || (me != destination && me != from))
            continue;
        const int peer = me == destination ? from : destination;
        t.first_peer = t.posted == 0 ? peer : t.first_peer;
        t.receives = me == destination;
        rc = me == destination ? receive_block(&t, owner, from)
                               : send_block(&t, owner, destination);
        t.posted += rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS && me == destination)
            ftc_holdings_add(got, owner);
        if (rc != MPI_SUCCESS || t.posted == FTC_FT_MAX_WAIT)
            rc = complete_batch(&t, rc);
    }
    return t.posted > 0 ? complete_batch(&t, rc) : rc;
}

/* ---- the same round for an alltoall's pairs ---- */

/* The block from `sender` arriving here, into its place in the column. */
static int receive_pair(routed_batch *t, int sender)
{
    const ftc_block_places *column = &t->b->column;
    t->expected[t->posted] = column->counts[sender] * column->type_size;
    return ftc_p2p_irecv(ftc_block_place(column, sender), column->counts[sender], column->type,
                         ftc_ft_epoch_rank(t->c->ft, sender), FTC_TAG_FT_BLOCKS,
                         ftc_ft_epoch_comm(t->c->ft), &t->r[t->posted]);
}

/* This rank's block for `destination`, from its row (the send buffer, or
 * the copies it kept). */
static int send_pair(routed_batch *t, int destination)
{
    const ftc_routed_blocks *b = t->b;
    if (!b->counts)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d kept no block for rank %d, "
                        "which lacks it", t->c->comm->rank, destination);
    const ftc_block_places row = { b->blocks, b->counts, b->displs, b->stride, b->type,
                                   b->extent, b->type_size };
    t->expected[t->posted] = -1;
    ftc_ft_die_if_injected(t->c, FTC_INJECT_BEFORE_SEND, NULL);
    return ftc_p2p_isend(ftc_block_place(&row, destination), b->counts[destination], b->type,
                         ftc_ft_epoch_rank(t->c->ft, destination), FTC_TAG_FT_BLOCKS,
                         ftc_ft_epoch_comm(t->c->ft), &t->r[t->posted]);
}

/* Every block a destination inside the call lacks, from its sender
 * (ftc_recovery_pair_sender), the same plan on every participant; this
 * rank sends its own row's and receives its column's. *got: the senders
 * whose blocks arrived here. */
static int move_pairs(ftc_ft_call *c, const ftc_routed_blocks *b, const ftc_ft_meeting *m,
                      const ftc_holdings *values, const bool *participant, ftc_holdings *got)
{
    const int size = c->comm->size, me = c->comm->rank;
    routed_batch t = { .c = c, .b = b, .first_peer = -1 };
    int rc = MPI_SUCCESS;
    for (int destination = 0; rc == MPI_SUCCESS && destination < size; destination++) {
        if (!inside_call(m, destination))
            continue;
        for (int sender = 0; rc == MPI_SUCCESS && sender < size; sender++) {
            if (ftc_recovery_pair_sender(size, participant, values, destination, sender) < 0
                || (me != destination && me != sender))
                continue;
            const int peer = me == destination ? sender : destination;
            t.first_peer = t.posted == 0 ? peer : t.first_peer;
            t.receives = me == destination;
            rc = me == destination ? receive_pair(&t, sender) : send_pair(&t, destination);
            t.posted += rc == MPI_SUCCESS;
            if (rc == MPI_SUCCESS && me == destination)
                ftc_holdings_add(got, sender);
            if (rc != MPI_SUCCESS || t.posted == FTC_FT_MAX_WAIT)
                rc = complete_batch(&t, rc);
        }
    }
    return t.posted > 0 ? complete_batch(&t, rc) : rc;
}

/*
 * The round of a call whose blocks go each to one rank: S is every block
 * a participant holds; each destination inside the call takes every block
 * of S it lacks from the lowest other participant holding it, and adds
 * them to what it holds; nobody else's holdings change (a meeting
 * repeated after this round must be told what each rank really holds).
 * Every message is on this epoch's communicator, whose one round this
 * is: nothing else can match its tag.
 */
static int run_routed(ftc_ft_call *c, const ftc_routed_blocks *b, const ftc_ft_meeting *m)
{
    const int size = c->comm->size;
    ftc_holdings *values = malloc(sizeof(ftc_holdings) * (size_t)size);
    bool *participant = malloc(sizeof(bool) * (size_t)size);
    ftc_holdings got;
    const bool have_got = ftc_holdings_init(&got, size);
    int rc = values && participant && have_got
        ? MPI_SUCCESS : ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    if (rc == MPI_SUCCESS) {
        starting_holdings(m, values, participant, size);
        if (!ftc_holdings_equal(&values[c->comm->rank], &c->held))
            rc = ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: this rank's record differs from its "
                          "value");
    }
    c->step = FTC_INJECT_STEP_HANDOUT;
    if (rc == MPI_SUCCESS)
        rc = b->route == FTC_ROUTE_ALL_TO_ALL ? move_pairs(c, b, m, values, participant, &got)
                                              : move_blocks(c, b, m, values, participant, &got);
    if (rc == MPI_SUCCESS)
        ftc_holdings_unite(&c->held, &got);
    if (have_got)
        ftc_holdings_destroy(&got);
    free(values);
    free(participant);
    return rc;
}

/* ---- the round ------------------------------------------------------------------------------ */

/* A kept part's whole value, into `value` (k->bytes): the held ranks'
 * blocks in their places, zeros elsewhere (ftc_kept_result), or the value
 * kept whole. */
static void expand_part(const ftc_kept_result *k, const ftc_holdings *held, char *value)
{
    if (k->whole) {   /* kept only when it held something (ft_engine.c's keep_room) */
        if (k->bytes > 0 && ftc_holdings_count(held) > 0)
            memcpy(value, k->data, k->bytes);
        else if (k->bytes > 0)
            memset(value, 0, k->bytes);
        return;
    }
    if (k->bytes > 0)
        memset(value, 0, k->bytes);
    const char *block = k->data;
    for (int r = 0; r < held->size && k->block_width > 0; r++)
        if (ftc_holdings_has(held, r)) {
            memcpy(value + (size_t)r * k->block_width, block, k->block_width);
            block += k->block_width;
        }
}

/* The round for a rank past the call, over the value it kept: a whole
 * result it hands out, or a part (ftc_gather's) it combines with the late
 * ranks' in room of its own (the kept part stays as it is, for any later
 * meeting over the same call). */
static int run_kept(ftc_comm_t comm, ftc_ft_call *kept, const ftc_kept_result *k,
                    const ftc_ft_meeting *m)
{
    if (k->op == MPI_OP_NULL)
        return run_round(kept, m);
    char *value = malloc(k->bytes > 0 ? k->bytes : 1);
    char *incoming = malloc(k->bytes > 0 ? k->bytes : 1);
    int rc = value && incoming ? MPI_SUCCESS
                               : ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    if (rc == MPI_SUCCESS) {
        expand_part(k, &m->kept[comm->rank], value);
        kept->current = value;
        kept->incoming = incoming;
        rc = run_round(kept, m);
    }
    free(value);
    free(incoming);
    return rc;
}

/* Routed blocks, kept: a gatherv rank's own block for the root, packed;
 * a scatterv root's blocks for their owners, and an alltoall rank's for
 * the others, packed behind their table (ftc_route_table_bytes); any
 * other scatterv rank's nothing, nor an alltoall rank's whose blocks were
 * all acknowledged. */
static ftc_routed_blocks kept_blocks(ftc_comm_t comm, const ftc_kept_result *k)
{
    ftc_routed_blocks b = { .route = k->route, .root = k->root, .type = MPI_PACKED,
                            .extent = 1, .type_size = 1, .own_type = MPI_PACKED };
    if (k->route == FTC_ROUTE_TO_ROOT) {
        b.send = k->data;
        b.own_count = (int)k->block_width;
    } else if ((k->route == FTC_ROUTE_ALL_TO_ALL || comm->rank == k->root)
               && k->block_width >= ftc_route_table_bytes(comm->size)) {
        b.counts = (const int *)(const void *)k->data;
        b.displs = b.counts + comm->size;
        b.blocks = k->data + ftc_route_table_bytes(comm->size);
    }
    return b;
}

static int serve_routed(ftc_comm_t comm, ftc_ft_call *inside, const ftc_kept_result *k,
                        const ftc_ft_meeting *m)
{
    const ftc_routed_blocks b = kept_blocks(comm, k);
    ftc_ft_call kept = { .comm = comm, .ft = comm->ft, .number = m->decision.call,
                         .round = inside ? inside->round : 1, .have_held = true };
    if (!ftc_holdings_init(&kept.held, comm->size))
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    ftc_holdings_copy(&kept.held, &m->kept[comm->rank]);
    const int rc = run_routed(&kept, &b, m);
    ftc_holdings_destroy(&kept.held);
    return rc;
}

/* This rank completed the call the late ranks are in: it takes part with
 * the result it kept. */
static int serve_kept(ftc_comm_t comm, ftc_ft_call *inside, const ftc_ft_meeting *m)
{
    ftc_kept_result *k = ftc_allreduce_kept_result(comm, m->decision.call);
    if (!k)   /* the reconciliation chose servers from their kept windows */
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: call %ld's result is not kept here",
                        m->decision.call);
    if (k->route != FTC_ROUTE_NONE)
        return serve_routed(comm, inside, k, m);
    /* a call every rank held was kept without its value (FTC_EVERYONE_HOLDS,
     * always the window's first, in `kept`): this rank serves it with empty
     * holdings and receives it here; the window's others have theirs */
    const int grown = k == &comm->allreduce->kept && k->op == MPI_OP_NULL
        ? ftc_ensure_capacity(&k->data, &k->capacity, k->bytes > 0 ? k->bytes : 1)
        : MPI_SUCCESS;
    if (grown != MPI_SUCCESS)
        return grown;
    ftc_ft_call kept = { .comm = comm, .ft = comm->ft, .count = k->count,
                         .type = k->type, .op = k->op, .bytes = k->bytes,
                         .current = k->data, .number = m->decision.call,
                         .round = inside ? inside->round : 1, .have_held = true };
    if (!ftc_holdings_init(&kept.held, comm->size))
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    ftc_holdings_copy(&kept.held, &m->kept[comm->rank]);
    const int rc = run_kept(comm, &kept, k, m);
    ftc_holdings_destroy(&kept.held);
    return rc;
}

int ftc_allreduce_round(ftc_comm_t comm, void *call, const ftc_ft_meeting *m)
{
    ftc_ft_call *c = call;
    if (c) {
        c->round = (int)(m->epoch - c->epoch_before);
        c->step = 0;
        ftc_ft_die_if_injected(c, FTC_INJECT_RECOVERY, NULL);
    }
    if (m->decision.role == FTC_ROLE_SERVE)
        return serve_kept(comm, c, m);
    if (!c || c->number != m->decision.call)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a round for call %ld reached a rank "
                        "not inside it", m->decision.call);
    return c->routed ? run_routed(c, c->routed, m) : run_round(c, m);
}
