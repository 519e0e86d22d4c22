/*
 * Adaptation of the minimum spanning tree, one change at a time; the
 * protocol and its diagram are in adapt.h.
 */
#include "adapt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- weights as they stand while change `step` is handled ------------------ */

static double latency_at(const ftc_adapt_node *node, int peer, int step)
{
    const int change = node->change_of[peer];
    return change >= 0 && change <= step ? node->new_latency[peer] : node->latency[peer];
}

static ftc_weight weight_at(const ftc_adapt_node *node, int peer, int step)
{
    return ftc_weight_of(latency_at(node, peer, step), node->self, peer);
}

static uint64_t latency_word(double latency)
{
    uint64_t word;
    memcpy(&word, &latency, sizeof word);
    return word;
}

static double word_latency(uint64_t word)
{
    double latency;
    memcpy(&latency, &word, sizeof latency);
    return latency;
}

/* --- sending --------------------------------------------------------------- */

typedef struct {
    ftc_send_fn send;
    void *ctx;
} outbox;

static ftc_msg message(const ftc_adapt_node *node, int kind, int to, int step)
{
    ftc_msg msg = ftc_msg_make(kind, node->self, to);
    msg.step = step;
    return msg;
}

static void post(const outbox *out, const ftc_msg *msg)
{
    out->send(out->ctx, msg);
}

static void post_simple(const ftc_adapt_node *node, const outbox *out, int kind, int to, int step)
{
    ftc_msg msg = message(node, kind, to, step);
    post(out, &msg);
}

static int is_child(const ftc_adapt_node *node, int peer)
{
    return peer != node->self && node->tree[peer] && peer != node->parent;
}

static int count_children(const ftc_adapt_node *node)
{
    int children = 0;
    for (int j = 0; j < node->n; j++)
        children += is_child(node, j);
    return children;
}

/* --- setup ----------------------------------------------------------------- */

int ftc_adapt_init(ftc_adapt_node *node, int self, int n, int root, int parent,
                   const unsigned char *tree, const double *latency)
{
    memset(node, 0, sizeof *node);
    node->self = self;
    node->n = n;
    node->root = root;
    node->parent = parent;
    node->nwords = (n + 63) / 64;
    node->finished = 1;
    node->fragment_step = -1;
    node->recovery_step = -1;
    node->tree = malloc((size_t)n);
    node->latency = malloc((size_t)n * sizeof *node->latency);
    node->new_latency = malloc((size_t)n * sizeof *node->new_latency);
    node->change_of = malloc((size_t)n * sizeof *node->change_of);
    node->members = calloc((size_t)node->nwords, sizeof *node->members);
    if (!node->tree || !node->latency || !node->new_latency || !node->change_of
        || !node->members) {
        ftc_adapt_free(node);
        return -1;
    }
    memcpy(node->tree, tree, (size_t)n);
    memcpy(node->latency, latency, (size_t)n * sizeof *latency);
    memcpy(node->new_latency, latency, (size_t)n * sizeof *latency);
    for (int j = 0; j < n; j++)
        node->change_of[j] = -1;
    return 0;
}

static void forget_recovery_paths(ftc_adapt_node *node)
{
    for (int i = 0; i < 2; i++) {
        free(node->path[i]);
        node->path[i] = NULL;
        node->path_words[i] = 0;
    }
    node->recovery_paths = 0;
    node->recovery_step = -1;
}

void ftc_adapt_free(ftc_adapt_node *node)
{
    forget_recovery_paths(node);
    free(node->tree);
    free(node->latency);
    free(node->new_latency);
    free(node->change_of);
    free(node->members);
    free(node->changes);
    memset(node, 0, sizeof *node);
}

/* Every change handled: the new latencies become the tree's. */
static void finish_round(ftc_adapt_node *node)
{
    for (int j = 0; j < node->n; j++) {
        if (node->change_of[j] >= 0)
            node->latency[j] = node->new_latency[j];
        node->change_of[j] = -1;
    }
    free(node->changes);
    node->changes = NULL;
    node->nchanges = 0;
    node->finished = 1;
}

/* --- the chain of changes -------------------------------------------------- */

static void start_change(ftc_adapt_node *node, int step, const outbox *out);

static void complete_change(ftc_adapt_node *node, int step, const outbox *out)
{
    if (step + 1 < node->nchanges) {
        const int next = node->changes[step + 1].a;
        if (next == node->self)
            start_change(node, step + 1, out);
        else
            post_simple(node, out, FTC_MSG_PRIVILEGE, next, step + 1);
        return;
    }
    for (int j = 0; j < node->n; j++)
        if (j != node->self)
            post_simple(node, out, FTC_MSG_GOSLEEP_REC, j, step);
    finish_round(node);
}

/* --- a tree channel got slower: the cut-off fragment reconnects ------------- */

static void member_add(uint64_t *bits, int rank)
{
    bits[rank / 64] |= UINT64_C(1) << (rank % 64);
}

static int member_has(const uint64_t *bits, int rank)
{
    return (int)((bits[rank / 64] >> (rank % 64)) & 1);
}

static void send_to_children(const ftc_adapt_node *node, const outbox *out, ftc_msg *msg)
{
    for (int j = 0; j < node->n; j++) {
        if (!is_child(node, j))
            continue;
        msg->to = j;
        post(out, msg);
    }
}

static void start_findmoe(ftc_adapt_node *node, const outbox *out);

/* All members below me are known: up to the parent, or, at the fragment's
 * root, on to the search. */
static void members_complete(ftc_adapt_node *node, const outbox *out)
{
    if (node->self == node->fragment_child) {
        start_findmoe(node, out);
        return;
    }
    ftc_msg ack = message(node, FTC_MSG_REIDEN_ACK, node->parent, node->fragment_step);
    ack.nwords = node->nwords;
    ack.words = node->members;
    post(out, &ack);
}

static void start_reiden(ftc_adapt_node *node, int step, int child, int parent,
                         const outbox *out)
{
    node->fragment_step = step;
    node->fragment_child = child;
    node->fragment_parent = parent;
    memset(node->members, 0, (size_t)node->nwords * sizeof *node->members);
    member_add(node->members, node->self);
    node->pending = count_children(node);
    ftc_msg reiden = message(node, FTC_MSG_REIDEN, -1, step);
    reiden.a = child;
    reiden.b = parent;
    send_to_children(node, out, &reiden);
    if (node->pending == 0)
        members_complete(node, out);
}

/* C: leave P, and lead my subtree's search for a new way into the tree. */
static void cut_off(ftc_adapt_node *node, int step, int old_parent, const outbox *out)
{
    node->tree[old_parent] = 0;
    node->parent = -1;
    start_reiden(node, step, node->self, old_parent, out);
}

static ftc_weight lightest_outgoing(const ftc_adapt_node *node)
{
    ftc_weight best = ftc_weight_infinite();
    for (int j = 0; j < node->n; j++) {
        if (j == node->self || member_has(node->members, j))
            continue;
        const ftc_weight w = weight_at(node, j, node->fragment_step);
        if (ftc_weight_cmp(w, best) < 0)
            best = w;
    }
    return best;
}

static void search_complete(ftc_adapt_node *node, const outbox *out);

static void start_findmoe(ftc_adapt_node *node, const outbox *out)
{
    ftc_msg findmoe = message(node, FTC_MSG_FINDMOE, -1, node->fragment_step);
    findmoe.nwords = node->nwords;
    findmoe.words = node->members;
    send_to_children(node, out, &findmoe);
    node->best = lightest_outgoing(node);
    node->best_via = node->self;
    node->pending = count_children(node);
    if (node->pending == 0)
        search_complete(node, out);
}

/* u: the chosen channel (u, v) is mine: v becomes my parent. */
static void connect_across(ftc_adapt_node *node, const outbox *out)
{
    const int v = ftc_weight_peer(node->best, node->self);
    node->parent = v;
    node->tree[v] = 1;
    ftc_msg connect = message(node, FTC_MSG_MOE_CONNECT, v, node->fragment_step);
    connect.a = node->fragment_child;
    connect.b = node->fragment_parent;
    post(out, &connect);
    node->fragment_step = -1;
}

/* On the way from the fragment's root to u: my parent becomes the next
 * rank towards u (the old parent stays a tree neighbour, now a child). */
static void move_towards_best(ftc_adapt_node *node, const outbox *out)
{
    if (node->best_via == node->self) {
        connect_across(node, out);
        return;
    }
    node->parent = node->best_via;
    post_simple(node, out, FTC_MSG_MOE_CHANGE, node->best_via, node->fragment_step);
    node->fragment_step = -1;
}

static void search_complete(ftc_adapt_node *node, const outbox *out)
{
    if (node->self == node->fragment_child) {
        move_towards_best(node, out);
        return;
    }
    ftc_msg report = message(node, FTC_MSG_MOE_REPORT, node->parent, node->fragment_step);
    report.w = node->best;
    post(out, &report);
}

static void on_moe_report(ftc_adapt_node *node, const ftc_msg *msg, const outbox *out)
{
    if (ftc_weight_cmp(msg->w, node->best) < 0) {
        node->best = msg->w;
        node->best_via = msg->from;
    }
    if (--node->pending == 0)
        search_complete(node, out);
}

static void on_reiden_ack(ftc_adapt_node *node, const ftc_msg *msg, const outbox *out)
{
    for (int i = 0; i < node->nwords && i < msg->nwords; i++)
        node->members[i] |= msg->words[i];
    if (--node->pending == 0)
        members_complete(node, out);
}

static void on_findmoe(ftc_adapt_node *node, const ftc_msg *msg, const outbox *out)
{
    memset(node->members, 0, (size_t)node->nwords * sizeof *node->members);
    memcpy(node->members, msg->words,
           (size_t)(msg->nwords < node->nwords ? msg->nwords : node->nwords) * sizeof *msg->words);
    start_findmoe(node, out);
}

/* v: u joined me. P drops C unless C came back by the same channel. */
static void on_moe_connect(ftc_adapt_node *node, const ftc_msg *msg, const outbox *out)
{
    const int u = msg->from, child = msg->a, old_parent = msg->b;
    node->tree[u] = 1;
    if (node->self != old_parent) {
        ftc_msg detach = message(node, FTC_MSG_DETACH, old_parent, msg->step);
        detach.a = child;
        post(out, &detach);
        return;
    }
    if (u != child)
        node->tree[child] = 0;
    complete_change(node, msg->step, out);
}

static void on_detach(ftc_adapt_node *node, const ftc_msg *msg, const outbox *out)
{
    node->tree[msg->a] = 0;
    complete_change(node, msg->step, out);
}

/* --- a channel off the tree got faster: break the cycle at its heaviest ---- */

/* A Recovery path is a list of (rank, latency to its parent) word pairs,
 * from one end of the changed channel up to the root (whose latency is 0). */
enum { PATH_ENTRY_WORDS = 2 };

static void resolve_recovery(ftc_adapt_node *node, const outbox *out);

static void root_collects_path(ftc_adapt_node *node, int step, const uint64_t *words,
                               int nwords, const outbox *out)
{
    uint64_t *copy = malloc((size_t)(nwords + PATH_ENTRY_WORDS) * sizeof *copy);
    if (!copy) {
        node->out_of_memory = 1;
        return;
    }
    if (nwords > 0)
        memcpy(copy, words, (size_t)nwords * sizeof *words);
    copy[nwords] = (uint64_t)node->self;
    copy[nwords + 1] = latency_word(0.0);
    node->recovery_step = step;
    node->path[node->recovery_paths] = copy;
    node->path_words[node->recovery_paths] = nwords + PATH_ENTRY_WORDS;
    if (++node->recovery_paths == 2)
        resolve_recovery(node, out);
}

static void pass_recovery_up(ftc_adapt_node *node, int step, const uint64_t *words,
                             int nwords, const outbox *out)
{
    if (node->parent < 0) {
        root_collects_path(node, step, words, nwords, out);
        return;
    }
    uint64_t *path = malloc((size_t)(nwords + PATH_ENTRY_WORDS) * sizeof *path);
    if (!path) {
        node->out_of_memory = 1;
        return;
    }
    if (nwords > 0)
        memcpy(path, words, (size_t)nwords * sizeof *words);
    path[nwords] = (uint64_t)node->self;
    path[nwords + 1] = latency_word(latency_at(node, node->parent, step));
    ftc_msg recovery = message(node, FTC_MSG_RECOVERY, node->parent, step);
    recovery.nwords = nwords + PATH_ENTRY_WORDS;
    recovery.words = path;
    post(out, &recovery);
    free(path);
}

static int path_rank(const uint64_t *path, int entry)
{
    return (int)path[entry * PATH_ENTRY_WORDS];
}

static double path_latency(const uint64_t *path, int entry)
{
    return word_latency(path[entry * PATH_ENTRY_WORDS + 1]);
}

static int path_find(const uint64_t *path, int entries, int rank)
{
    for (int i = 0; i < entries; i++)
        if (path_rank(path, i) == rank)
            return i;
    return -1;
}

typedef struct {
    ftc_weight weight;
    int side;     /* which path holds it */
    int entry;    /* its lower end's entry in that path */
} cycle_edge;

/* The heaviest channel on the cycle: both paths up to where they meet. */
static cycle_edge heaviest_on_cycle(const ftc_adapt_node *node)
{
    const int entries[2] = {node->path_words[0] / PATH_ENTRY_WORDS,
                            node->path_words[1] / PATH_ENTRY_WORDS};
    int meet0 = 0;
    while (path_find(node->path[1], entries[1], path_rank(node->path[0], meet0)) < 0)
        meet0++;
    const int meet[2] = {meet0,
                         path_find(node->path[1], entries[1], path_rank(node->path[0], meet0))};
    cycle_edge heaviest = {ftc_weight_infinite(), -1, -1};
    heaviest.weight.latency = -INFINITY;
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < meet[side]; i++) {
            const uint64_t *path = node->path[side];
            const ftc_weight w = ftc_weight_of(path_latency(path, i), path_rank(path, i),
                                               path_rank(path, i + 1));
            if (heaviest.side < 0 || ftc_weight_cmp(w, heaviest.weight) > 0) {
                heaviest.weight = w;
                heaviest.side = side;
                heaviest.entry = i;
            }
        }
    }
    return heaviest;
}

static void handle_replace(ftc_adapt_node *node, int step, const uint64_t *chain, int length,
                           int far_end, const outbox *out);

static void resolve_recovery(ftc_adapt_node *node, const outbox *out)
{
    const int step = node->recovery_step;
    const ftc_adapt_change *change = &node->changes[step];
    const ftc_weight faster = ftc_weight_of(change->latency, change->a, change->b);
    const cycle_edge heaviest = heaviest_on_cycle(node);
    if (heaviest.side < 0 || ftc_weight_cmp(heaviest.weight, faster) <= 0) {
        forget_recovery_paths(node);
        complete_change(node, step, out);
        return;
    }
    /* The chain to turn round: y (the heavy channel's lower end) down to the
     * end of the changed channel on y's side; x = y's parent drops y. */
    const uint64_t *path = node->path[heaviest.side];
    const int length = heaviest.entry + 1;
    uint64_t *chain = malloc((size_t)length * sizeof *chain);
    if (!chain) {
        node->out_of_memory = 1;
        return;
    }
    for (int i = 0; i < length; i++)
        chain[i] = (uint64_t)path_rank(path, heaviest.entry - i);
    const int x = path_rank(path, heaviest.entry + 1);
    const int far_end = path_rank(node->path[1 - heaviest.side], 0);
    forget_recovery_paths(node);
    if (x == node->self) {
        handle_replace(node, step, chain, length, far_end, out);
    } else {
        ftc_msg replace = message(node, FTC_MSG_REPLACE, x, step);
        replace.b = far_end;
        replace.nwords = length;
        replace.words = chain;
        post(out, &replace);
    }
    free(chain);
}

/* x drops y; each rank of the chain takes the next one as its parent, the
 * last one the far end of the faster channel, which it joins. */
static void handle_replace(ftc_adapt_node *node, int step, const uint64_t *chain, int length,
                           int far_end, const outbox *out)
{
    int at = -1;
    for (int i = 0; i < length; i++)
        if ((int)chain[i] == node->self)
            at = i;
    if (at < 0) {   /* x */
        node->tree[chain[0]] = 0;
    } else {
        if (at == 0)
            node->tree[node->parent] = 0;
        const int next = at + 1 < length ? (int)chain[at + 1] : far_end;
        node->parent = next;
        if (next == far_end) {
            node->tree[far_end] = 1;
            post_simple(node, out, FTC_MSG_REPLACE_CONNECT, far_end, step);
            return;
        }
    }
    const int to = at < 0 ? (int)chain[0] : (int)chain[at + 1];
    ftc_msg replace = message(node, FTC_MSG_REPLACE, to, step);
    replace.b = far_end;
    replace.nwords = length;
    replace.words = chain;
    post(out, &replace);
}

static void on_replace_connect(ftc_adapt_node *node, const ftc_msg *msg, const outbox *out)
{
    node->tree[msg->from] = 1;
    complete_change(node, msg->step, out);
}

/* --- dispatch -------------------------------------------------------------- */

static void start_change(ftc_adapt_node *node, int step, const outbox *out)
{
    const int peer = node->changes[step].b;
    const double before = node->latency[peer], after = node->new_latency[peer];
    if (node->tree[peer] && after > before) {
        if (node->parent == peer)
            cut_off(node, step, peer, out);
        else {
            ftc_msg failure = message(node, FTC_MSG_FAILURE, peer, step);
            post(out, &failure);
        }
    } else if (!node->tree[peer] && after < before) {
        post_simple(node, out, FTC_MSG_ID_CHECK, peer, step);
        pass_recovery_up(node, step, NULL, 0, out);
    } else {
        complete_change(node, step, out);
    }
}

static int changes_sorted(int nchanges, const ftc_adapt_change *changes, int n)
{
    for (int i = 0; i < nchanges; i++) {
        const ftc_adapt_change *c = &changes[i];
        if (c->a < 0 || c->a >= c->b || c->b >= n)
            return 0;
        const ftc_adapt_change *before = i > 0 ? &changes[i - 1] : NULL;
        if (before && (before->a > c->a || (before->a == c->a && before->b >= c->b)))
            return 0;
    }
    return 1;
}

int ftc_adapt_begin(ftc_adapt_node *node, int nchanges, const ftc_adapt_change *changes,
                    ftc_send_fn send, void *ctx)
{
    if (nchanges < 0 || !changes_sorted(nchanges, changes, node->n))
        return -1;
    node->finished = 0;
    if (nchanges == 0) {
        finish_round(node);
        return 0;
    }
    node->changes = malloc((size_t)nchanges * sizeof *changes);
    if (!node->changes)
        return -1;
    memcpy(node->changes, changes, (size_t)nchanges * sizeof *changes);
    node->nchanges = nchanges;
    for (int k = 0; k < nchanges; k++) {
        const ftc_adapt_change *c = &changes[k];
        if (c->a != node->self && c->b != node->self)
            continue;
        const int peer = c->a == node->self ? c->b : c->a;
        node->change_of[peer] = k;
        node->new_latency[peer] = c->latency;
    }
    const outbox out = {send, ctx};
    if (changes[0].a == node->self)
        start_change(node, 0, &out);
    return 0;
}

void ftc_adapt_receive(ftc_adapt_node *node, const ftc_msg *msg, ftc_send_fn send, void *ctx)
{
    const outbox out = {send, ctx};
    switch (msg->kind) {
    case FTC_MSG_PRIVILEGE:
        start_change(node, msg->step, &out);
        break;
    case FTC_MSG_FAILURE:
        cut_off(node, msg->step, msg->from, &out);
        break;
    case FTC_MSG_REIDEN:
        start_reiden(node, msg->step, msg->a, msg->b, &out);
        break;
    case FTC_MSG_REIDEN_ACK:
        on_reiden_ack(node, msg, &out);
        break;
    case FTC_MSG_FINDMOE:
        on_findmoe(node, msg, &out);
        break;
    case FTC_MSG_MOE_REPORT:
        on_moe_report(node, msg, &out);
        break;
    case FTC_MSG_MOE_CHANGE:
        node->fragment_step = msg->step;
        move_towards_best(node, &out);
        break;
    case FTC_MSG_MOE_CONNECT:
        on_moe_connect(node, msg, &out);
        break;
    case FTC_MSG_DETACH:
        on_detach(node, msg, &out);
        break;
    case FTC_MSG_ID_CHECK:
        pass_recovery_up(node, msg->step, NULL, 0, &out);
        break;
    case FTC_MSG_RECOVERY:
        pass_recovery_up(node, msg->step, msg->words, msg->nwords, &out);
        break;
    case FTC_MSG_REPLACE:
        handle_replace(node, msg->step, msg->words, msg->nwords, msg->b, &out);
        break;
    case FTC_MSG_REPLACE_CONNECT:
        on_replace_connect(node, msg, &out);
        break;
    case FTC_MSG_GOSLEEP_REC:
        finish_round(node);
        break;
    default:
        break;   /* not an adaptation message: the caller's */
    }
}

int ftc_adapt_detect_changes(int n, double *current, const double *measured, double threshold,
                             double floor, ftc_adapt_change *changes)
{
    int count = 0;
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            const double before = current[a * n + b], now = measured[a * n + b];
            const double moved = fabs(now - before);
            if (moved <= threshold * before || moved <= floor)
                continue;
            changes[count].a = a;
            changes[count].b = b;
            changes[count].latency = now;
            count++;
            current[a * n + b] = current[b * n + a] = now;
        }
    }
    return count;
}
