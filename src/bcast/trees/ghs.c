/*
 * One GHS node over a complete graph; ghs.h has the overview. The handlers
 * are GHS's procedures, one function each, so that each can be checked
 * against the algorithm's published pseudocode; two details are ftcoll's
 * own:
 *  - Messages that cannot be handled yet go to node->deferred and are
 *    re-checked after every message handled, oldest first, until none is
 *    ready: a message waits only for a higher level, another fragment
 *    identity, another state or a channel turning Branch, and those change
 *    only while a message is handled.
 *  - Termination: the core's two nodes both see Report(inf) from each other;
 *    only the lower rank (the root) starts Gosleep, the other waits for it,
 *    so no Gosleep crosses the core twice.
 */
#include "ghs.h"

#include <stdlib.h>
#include <string.h>

/* Where messages leave: the transport's callback and its context. */
typedef struct {
    ftc_send_fn send;
    void *ctx;
} ghs_out;

static void handle(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out);

static ftc_weight weight_to(const ftc_ghs_node *node, int peer)
{
    return ftc_weight_of(node->latency[peer], node->self, peer);
}

static int weight_less(ftc_weight a, ftc_weight b)
{
    return ftc_weight_cmp(a, b) < 0;
}

static void send_ghs(const ftc_ghs_node *node, const ghs_out *out, int kind, int to,
                     ftc_weight w)
{
    ftc_msg msg = ftc_msg_make(kind, node->self, to);
    msg.level = node->level;
    msg.state = node->state;
    msg.fid = node->fid;
    msg.w = w;
    out->send(out->ctx, &msg);
}

/* ---- set-up ------------------------------------------------------------- */

typedef struct {
    ftc_weight w;
    int peer;
} weighted_peer;

static int compare_weighted_peers(const void *a, const void *b)
{
    return ftc_weight_cmp(((const weighted_peer *)a)->w, ((const weighted_peer *)b)->w);
}

/* Tests go out lightest Basic channel first, so the peers are sorted once. */
static int sort_peers(ftc_ghs_node *node)
{
    const int count = node->n - 1;
    if (count == 0)
        return 0;
    weighted_peer *tmp = malloc((size_t)count * sizeof *tmp);
    if (!tmp)
        return -1;
    for (int peer = 0, k = 0; peer < node->n; peer++)
        if (peer != node->self)
            tmp[k++] = (weighted_peer){weight_to(node, peer), peer};
    qsort(tmp, (size_t)count, sizeof *tmp, compare_weighted_peers);
    for (int k = 0; k < count; k++)
        node->order[k] = tmp[k].peer;
    free(tmp);
    return 0;
}

int ftc_ghs_init(ftc_ghs_node *node, int self, int n, const double *latency)
{
    memset(node, 0, sizeof *node);
    node->self = self;
    node->n = n;
    node->latency = malloc((size_t)n * sizeof *node->latency);
    node->edge = calloc((size_t)n, 1);
    node->order = malloc((size_t)n * sizeof *node->order);
    if (!node->latency || !node->edge || !node->order)
        goto fail;
    memcpy(node->latency, latency, (size_t)n * sizeof *latency);
    node->latency[self] = 0.0;
    if (sort_peers(node) != 0)
        goto fail;
    node->level = 0;
    node->fid = ftc_weight_of(0.0, self, self);   /* a lone node: unlike any edge */
    node->state = FTC_GHS_SLEEPING;
    node->best_edge = -1;
    node->best_wt = ftc_weight_infinite();
    node->test_edge = -1;
    node->in_branch = -1;
    node->root = -1;
    node->parent = -1;
    return 0;
fail:
    ftc_ghs_free(node);
    return -1;
}

void ftc_ghs_free(ftc_ghs_node *node)
{
    free(node->latency);
    free(node->edge);
    free(node->order);
    free(node->deferred);
    node->latency = NULL;
    node->edge = NULL;
    node->order = NULL;
    node->deferred = NULL;
    node->ndeferred = node->deferred_capacity = 0;
}

/* ---- the deferred list -------------------------------------------------- */

static void defer(ftc_ghs_node *node, const ftc_msg *msg)
{
    if (node->ndeferred == node->deferred_capacity) {
        const int capacity = node->deferred_capacity ? 2 * node->deferred_capacity : 8;
        ftc_msg *grown = realloc(node->deferred, (size_t)capacity * sizeof *grown);
        if (!grown) {   /* a lost GHS message would hang every rank: the driver stops them */
            node->out_of_memory = 1;
            return;
        }
        node->deferred = grown;
        node->deferred_capacity = capacity;
    }
    ftc_msg *kept = &node->deferred[node->ndeferred++];
    *kept = *msg;
    kept->nwords = 0;   /* GHS carries no payload; the sender's buffer is not ours */
    kept->words = NULL;
}

/* Whether `msg` can be handled in the node's present state; when not, it
 * waits in node->deferred. */
static int ready(const ftc_ghs_node *node, const ftc_msg *msg)
{
    switch (msg->kind) {
    case FTC_MSG_CONNECT:   /* same level: wait until we chose that edge too, or rose */
        return msg->level < node->level || node->edge[msg->from] != FTC_EDGE_BASIC;
    case FTC_MSG_TEST:      /* a higher level may be our own fragment, not yet told */
        return msg->level <= node->level;
    case FTC_MSG_REPORT:    /* the core's other half: first finish our own search */
        return !(msg->from == node->in_branch && node->state == FTC_GHS_FIND);
    default:
        return 1;
    }
}

static void remove_deferred(ftc_ghs_node *node, int k)
{
    memmove(&node->deferred[k], &node->deferred[k + 1],
            (size_t)(node->ndeferred - k - 1) * sizeof *node->deferred);
    node->ndeferred--;
}

/* Handles the oldest ready deferred message, if any; returns whether it did. */
static int handle_one_deferred(ftc_ghs_node *node, const ghs_out *out)
{
    for (int k = 0; k < node->ndeferred; k++) {
        if (!ready(node, &node->deferred[k]))
            continue;
        const ftc_msg msg = node->deferred[k];
        remove_deferred(node, k);
        handle(node, &msg, out);
        return 1;
    }
    return 0;
}

static void retry_deferred(ftc_ghs_node *node, const ghs_out *out)
{
    while (handle_one_deferred(node, out))
        ;
}

/* ---- GHS's procedures ------------------------------------------------------ */

static void set_branch(ftc_ghs_node *node, int peer)
{
    node->edge[peer] = FTC_EDGE_BRANCH;
}

/* Lightest Basic channel, or -1. Channels never return to Basic, so the
 * cursor only moves forward. */
static int lightest_basic(ftc_ghs_node *node)
{
    while (node->next_basic < node->n - 1
           && node->edge[node->order[node->next_basic]] != FTC_EDGE_BASIC)
        node->next_basic++;
    return node->next_basic < node->n - 1 ? node->order[node->next_basic] : -1;
}

/* Sends Report(best_wt) towards the core once our own test and all the
 * subtrees' reports are in. The state check keeps one report per phase. */
static void report(ftc_ghs_node *node, const ghs_out *out)
{
    if (node->find_count != 0 || node->test_edge != -1 || node->state != FTC_GHS_FIND)
        return;
    node->state = FTC_GHS_FOUND;
    send_ghs(node, out, FTC_MSG_REPORT, node->in_branch, node->best_wt);
}

static void test(ftc_ghs_node *node, const ghs_out *out)
{
    node->test_edge = lightest_basic(node);
    if (node->test_edge != -1)
        send_ghs(node, out, FTC_MSG_TEST, node->test_edge, ftc_weight_infinite());
    else
        report(node, out);
}

/* Along best_edge to the fragment's minimum outgoing edge, whose near end
 * connects across it. */
static void change_root(ftc_ghs_node *node, const ghs_out *out)
{
    const int e = node->best_edge;
    if (node->edge[e] == FTC_EDGE_BRANCH) {
        send_ghs(node, out, FTC_MSG_CHANGE_ROOT, e, ftc_weight_infinite());
    } else {
        send_ghs(node, out, FTC_MSG_CONNECT, e, ftc_weight_infinite());
        set_branch(node, e);
    }
}

/* Marks the node finished and passes Gosleep on down the tree. */
static void go_to_sleep(ftc_ghs_node *node, int root, int parent, const ghs_out *out)
{
    node->done = 1;
    node->root = root;
    node->parent = parent;
    node->in_branch = parent;
    node->state = FTC_GHS_SLEEPING;
    for (int peer = 0; peer < node->n; peer++)
        if (peer != parent && node->edge[peer] == FTC_EDGE_BRANCH)
            send_ghs(node, out, FTC_MSG_GOSLEEP, peer, ftc_weight_infinite());
}

/* Both core nodes found no outgoing edge: the tree is complete. */
static void halt(ftc_ghs_node *node, const ghs_out *out)
{
    const int root = node->self < node->in_branch ? node->self : node->in_branch;
    if (root == node->self)
        go_to_sleep(node, root, -1, out);
    /* else: the root's Gosleep follows its Report on this FIFO channel */
}

static void wakeup(ftc_ghs_node *node, const ghs_out *out)
{
    if (node->n == 1) {
        node->done = 1;
        node->root = node->self;
        node->parent = -1;
        return;
    }
    const int m = lightest_basic(node);
    set_branch(node, m);
    node->level = 0;
    node->state = FTC_GHS_FOUND;
    node->find_count = 0;
    node->in_branch = m;
    send_ghs(node, out, FTC_MSG_CONNECT, m, ftc_weight_infinite());
}

/* ---- the messages ------------------------------------------------------- */

static void on_connect(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    const int j = msg->from;
    if (msg->level < node->level) {
        /* absorb the lower fragment; it joins our search if one is on */
        set_branch(node, j);
        send_ghs(node, out, FTC_MSG_INITIATE, j, ftc_weight_infinite());
        if (node->state == FTC_GHS_FIND)
            node->find_count++;
        return;
    }
    /* same level, both chose this edge: it is the new core */
    ftc_msg init;
    memset(&init, 0, sizeof init);
    init.kind = FTC_MSG_INITIATE;
    init.from = node->self;
    init.to = j;
    init.level = node->level + 1;
    init.state = FTC_GHS_FIND;
    init.fid = weight_to(node, j);
    init.w = ftc_weight_infinite();
    out->send(out->ctx, &init);
}

static void on_initiate(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    const int j = msg->from;
    node->level = msg->level;
    node->fid = msg->fid;
    node->state = msg->state;
    node->in_branch = j;
    node->best_edge = -1;
    node->best_wt = ftc_weight_infinite();
    for (int peer = 0; peer < node->n; peer++) {
        if (peer == j || node->edge[peer] != FTC_EDGE_BRANCH)
            continue;
        send_ghs(node, out, FTC_MSG_INITIATE, peer, ftc_weight_infinite());
        if (node->state == FTC_GHS_FIND)
            node->find_count++;
    }
    if (node->state == FTC_GHS_FIND) {
        /* Connects that waited for this level are absorbed first: their
         * channels turn Branch, where a Test would only earn a Reject. */
        retry_deferred(node, out);
        test(node, out);
    }
}

static void on_test(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    const int j = msg->from;
    if (ftc_weight_cmp(msg->fid, node->fid) != 0) {
        send_ghs(node, out, FTC_MSG_ACCEPT, j, ftc_weight_infinite());
        return;
    }
    if (node->edge[j] == FTC_EDGE_BASIC)
        node->edge[j] = FTC_EDGE_REJECTED;
    if (node->test_edge != j)
        send_ghs(node, out, FTC_MSG_REJECT, j, ftc_weight_infinite());
    else   /* j tests us as we test it: its Test answers ours, no Reject needed */
        test(node, out);
}

static void on_accept(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    const int j = msg->from;
    node->test_edge = -1;
    if (weight_less(weight_to(node, j), node->best_wt)) {
        node->best_edge = j;
        node->best_wt = weight_to(node, j);
    }
    report(node, out);
}

static void on_reject(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    if (node->edge[msg->from] == FTC_EDGE_BASIC)
        node->edge[msg->from] = FTC_EDGE_REJECTED;
    test(node, out);
}

static void on_report(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    const int j = msg->from;
    if (j != node->in_branch) {   /* from a subtree */
        node->find_count--;
        if (weight_less(msg->w, node->best_wt)) {
            node->best_wt = msg->w;
            node->best_edge = j;
        }
        report(node, out);
    } else if (weight_less(node->best_wt, msg->w)) {
        change_root(node, out);   /* the best edge is on our side of the core */
    } else if (ftc_weight_is_infinite(msg->w) && ftc_weight_is_infinite(node->best_wt)) {
        halt(node, out);
    }
    /* else the other core node has the lighter edge and moves the root */
}

/* Gosleep carries the tree's identity, its core edge, whose lower rank is
 * the root; it is passed on unchanged. */
static void on_gosleep(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    node->fid = msg->fid;
    go_to_sleep(node, msg->fid.lo, msg->from, out);
}

static void handle(ftc_ghs_node *node, const ftc_msg *msg, const ghs_out *out)
{
    switch (msg->kind) {
    case FTC_MSG_CONNECT: on_connect(node, msg, out); break;
    case FTC_MSG_INITIATE: on_initiate(node, msg, out); break;
    case FTC_MSG_TEST: on_test(node, msg, out); break;
    case FTC_MSG_ACCEPT: on_accept(node, msg, out); break;
    case FTC_MSG_REJECT: on_reject(node, msg, out); break;
    case FTC_MSG_REPORT: on_report(node, msg, out); break;
    case FTC_MSG_CHANGE_ROOT: change_root(node, out); break;
    case FTC_MSG_GOSLEEP: on_gosleep(node, msg, out); break;
    default: break;   /* not a construction message */
    }
}

/* ---- entry points ------------------------------------------------------- */

void ftc_ghs_wakeup(ftc_ghs_node *node, ftc_send_fn send, void *ctx)
{
    const ghs_out out = {send, ctx};
    if (node->done || node->state != FTC_GHS_SLEEPING)
        return;   /* already woken by an early message */
    wakeup(node, &out);
    retry_deferred(node, &out);
}

void ftc_ghs_receive(ftc_ghs_node *node, const ftc_msg *msg, ftc_send_fn send, void *ctx)
{
    const ghs_out out = {send, ctx};
    if (node->done)
        return;   /* the tree is final; GHS sends nothing after Gosleep */
    if (node->state == FTC_GHS_SLEEPING)
        wakeup(node, &out);   /* a peer woke first: join in before answering it */
    if (ready(node, msg))
        handle(node, msg, &out);
    else
        defer(node, msg);
    retry_deferred(node, &out);
}
