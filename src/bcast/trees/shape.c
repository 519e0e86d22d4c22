/*
 * Broadcast trees: storage, child lists from parent[], checks, the cost
 * model's predictor, and rooting an undirected spanning tree (the MST).
 *
 * Send order with latencies: a rank sends first to the child whose subtree
 * needs longest to finish once sent to. finish(x) is the time from x's
 * arrival until its last descendant has the data, computed leaves first:
 *
 *   gap 1            key(c) = latency(r, c) + finish(c)
 *        r           a: 3 + 0 = 3        b: 1 + 5 = 6
 *     3 / \ 1
 *      a   b         order b, a:  b done at 1 + 1 + 5 = 7, a at 2 + 3 = 5
 *          :         order a, b:  a done at 1 + 3     = 4, b at 2 + 1 + 5 = 8
 *     finish(b) = 5
 *                    finish(r) = max over k of k * gap + key(k-th child) = 7
 *
 * Descending keys minimise that maximum (swapping an adjacent pair that is
 * out of order never makes it larger), so each rank's order is the best one
 * for the subtrees below it.
 *
 * Rooting (ftc_tree_from_edges): breadth-first from the root over the
 * adjacency matrix; every edge met leads to an unvisited rank exactly when
 * the n - 1 edges form a tree.
 */
#include <stdlib.h>
#include <string.h>

#include "shape.h"

#include "weight.h"

int ftc_tree_alloc(ftc_tree *tree, int n)
{
    memset(tree, 0, sizeof(*tree));
    if (n < 1)
        return -1;
    tree->n = n;
    tree->parent = malloc((size_t)n * sizeof(int));
    tree->child_start = calloc((size_t)n + 1, sizeof(int));
    /* One entry even for n = 1: malloc(0) may return NULL. */
    tree->children = malloc((size_t)(n > 1 ? n - 1 : 1) * sizeof(int));
    if (!tree->parent || !tree->child_start || !tree->children) {
        ftc_tree_free(tree);
        return -1;
    }
    for (int r = 0; r < n; r++)
        tree->parent[r] = -1;
    return 0;
}

void ftc_tree_free(ftc_tree *tree)
{
    free(tree->parent);
    free(tree->child_start);
    free(tree->children);
    memset(tree, 0, sizeof(*tree));
}

void ftc_tree_start_lists(ftc_tree *tree, const int *count, int *next)
{
    tree->child_start[0] = 0;
    for (int r = 0; r < tree->n; r++) {
        const int c = count[r];   /* read before next[r] overwrites it */
        next[r] = tree->child_start[r];
        tree->child_start[r + 1] = tree->child_start[r] + c;
    }
}

void ftc_tree_add_child(ftc_tree *tree, int *next, int parent, int child)
{
    tree->parent[child] = parent;
    tree->children[next[parent]++] = child;
}

static double latency_of(const double *latency, int n, int from, int to)
{
    return latency ? latency[(size_t)from * (size_t)n + (size_t)to] : 0.0;
}

/* Breadth-first over the child lists into order[] (room for n); returns
 * how many ranks were reached. The lists must hold each rank at most once
 * (true of lists built from parent[]; ftc_tree_is_valid checks it first). */
static int breadth_first(const ftc_tree *tree, int *order)
{
    int head = 0, tail = 0;
    order[tail++] = tree->root;
    while (head < tail) {
        const int r = order[head++];
        for (int i = tree->child_start[r]; i < tree->child_start[r + 1] && tail < tree->n; i++)
            order[tail++] = tree->children[i];
    }
    return tail;
}

/* parent[] names a parent in range for every rank but the root. */
static int parents_in_range(const ftc_tree *tree)
{
    if (tree->n < 1 || tree->root < 0 || tree->root >= tree->n || tree->parent[tree->root] != -1)
        return 0;
    for (int r = 0; r < tree->n; r++)
        if (r != tree->root && (tree->parent[r] < 0 || tree->parent[r] >= tree->n))
            return 0;
    return 1;
}

/* The child lists in rank order: counting sort of the ranks by parent. */
static void lists_by_rank(ftc_tree *tree, int *scratch)
{
    for (int r = 0; r < tree->n; r++)
        scratch[r] = 0;
    for (int r = 0; r < tree->n; r++)
        if (r != tree->root)
            scratch[tree->parent[r]]++;
    ftc_tree_start_lists(tree, scratch, scratch);
    for (int r = 0; r < tree->n; r++)
        if (r != tree->root)
            tree->children[scratch[tree->parent[r]]++] = r;
}

typedef struct {
    double key;
    int rank;
} keyed_child;

/* Descending key, then ascending rank. */
static int by_key_descending(const void *a, const void *b)
{
    const keyed_child *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sorts r's children by subtree finish time (theirs are known) and returns
 * r's own. */
static double order_children(ftc_tree *tree, int r, const double *latency, double gap,
                             const double *finish, keyed_child *scratch)
{
    const int first = tree->child_start[r], count = tree->child_start[r + 1] - first;
    for (int i = 0; i < count; i++) {
        const int c = tree->children[first + i];
        scratch[i].key = latency_of(latency, tree->n, r, c) + finish[c];
        scratch[i].rank = c;
    }
    qsort(scratch, (size_t)count, sizeof(*scratch), by_key_descending);
    double done = 0.0;
    for (int i = 0; i < count; i++) {
        tree->children[first + i] = scratch[i].rank;
        const double t = (i + 1) * gap + scratch[i].key;
        done = t > done ? t : done;
    }
    return done;
}

/* Leaves first (reverse breadth-first order), so every child's finish time
 * is known before its parent's list is sorted. */
static int order_by_finish(ftc_tree *tree, const int *order, const double *latency, double gap)
{
    double *finish = malloc((size_t)tree->n * sizeof(double));
    keyed_child *scratch = malloc((size_t)tree->n * sizeof(keyed_child));
    if (!finish || !scratch) {
        free(finish);
        free(scratch);
        return -1;
    }
    for (int i = tree->n - 1; i >= 0; i--)
        finish[order[i]] = order_children(tree, order[i], latency, gap, finish, scratch);
    free(finish);
    free(scratch);
    return 0;
}

int ftc_tree_index_children(ftc_tree *tree, const double *latency, double gap)
{
    if (!tree || !tree->parent || !parents_in_range(tree))
        return -1;
    int *scratch = malloc((size_t)tree->n * sizeof(int));
    if (!scratch)
        return -1;
    lists_by_rank(tree, scratch);
    /* Each non-root rank sits in exactly one list, so reaching all n from
     * the root rules out cycles. */
    int rc = breadth_first(tree, scratch) == tree->n ? 0 : -1;
    if (rc == 0 && latency)
        rc = order_by_finish(tree, scratch, latency, gap);
    free(scratch);
    return rc;
}

int ftc_tree_arrivals(const ftc_tree *tree, const double *latency, double gap, double *arrival)
{
    int *order = malloc((size_t)tree->n * sizeof(int));
    if (!order)
        return -1;
    const int reached = breadth_first(tree, order);
    arrival[tree->root] = 0.0;
    for (int i = 0; i < reached; i++) {
        const int r = order[i], first = tree->child_start[r];
        for (int k = 1; first + k - 1 < tree->child_start[r + 1]; k++) {
            const int c = tree->children[first + k - 1];
            arrival[c] = ftc_tree_send_arrival(arrival[r], k, gap,
                                               latency_of(latency, tree->n, r, c));
        }
    }
    free(order);
    return 0;
}

double ftc_tree_predict(const ftc_tree *tree, const double *latency, double gap)
{
    double *arrival = malloc((size_t)tree->n * sizeof(double));
    if (!arrival || ftc_tree_arrivals(tree, latency, gap, arrival) != 0) {
        free(arrival);
        return -1.0;
    }
    double last = 0.0;
    for (int r = 0; r < tree->n; r++)
        last = arrival[r] > last ? arrival[r] : last;
    free(arrival);
    return last;
}

/* child_start is a partition of the n - 1 entries, every listed child
 * names its list's owner as parent, and no rank is listed twice (seen: n
 * zeroed bytes). */
static int lists_match_parents(const ftc_tree *tree, unsigned char *seen)
{
    if (tree->child_start[0] != 0 || tree->child_start[tree->n] != tree->n - 1)
        return 0;
    for (int r = 0; r < tree->n; r++) {
        if (tree->child_start[r + 1] < tree->child_start[r])
            return 0;
        for (int i = tree->child_start[r]; i < tree->child_start[r + 1]; i++) {
            const int c = tree->children[i];
            if (c < 0 || c >= tree->n || c == tree->root || tree->parent[c] != r || seen[c])
                return 0;
            seen[c] = 1;
        }
    }
    return 1;
}

int ftc_tree_is_valid(const ftc_tree *tree)
{
    if (!tree || !tree->parent || !tree->child_start || !tree->children
        || !parents_in_range(tree))
        return 0;
    int *order = malloc((size_t)tree->n * sizeof(int));
    unsigned char *seen = calloc((size_t)tree->n, 1);
    /* n - 1 distinct entries, all reached from the root: no cycle. */
    const int valid = order && seen && lists_match_parents(tree, seen)
                      && breadth_first(tree, order) == tree->n;
    free(order);
    free(seen);
    return valid;
}

/* Exactly n - 1 symmetric edges and no loops; whether they connect is left
 * to the search from the root. */
static int edge_count_is_tree(int n, const unsigned char *adjacency)
{
    long edges = 0;
    for (int i = 0; i < n; i++) {
        if (adjacency[(size_t)i * (size_t)n + (size_t)i])
            return 0;
        for (int j = i + 1; j < n; j++) {
            const int ij = adjacency[(size_t)i * (size_t)n + (size_t)j] != 0;
            const int ji = adjacency[(size_t)j * (size_t)n + (size_t)i] != 0;
            if (ij != ji)
                return 0;
            edges += ij;
        }
    }
    return edges == n - 1;
}

/* Breadth-first from the root, setting parent[]; 0 if every rank is reached. */
static int root_edges(ftc_tree *tree, const unsigned char *adjacency)
{
    const int n = tree->n;
    int *queue = malloc((size_t)n * sizeof(int));
    if (!queue)
        return -1;
    int head = 0, tail = 0;
    queue[tail++] = tree->root;
    tree->parent[tree->root] = -1;
    while (head < tail) {
        const int u = queue[head++];
        for (int v = 0; v < n; v++) {
            if (!adjacency[(size_t)u * (size_t)n + (size_t)v] || v == tree->root
                || tree->parent[v] != -1)
                continue;
            tree->parent[v] = u;
            queue[tail++] = v;
        }
    }
    free(queue);
    return tail == n ? 0 : -1;
}

int ftc_tree_from_edges(ftc_tree *tree, int n, int root, const unsigned char *adjacency,
                        const double *latency, double gap)
{
    if (!tree)
        return -1;
    if (n < 1 || root < 0 || root >= n || !adjacency || !edge_count_is_tree(n, adjacency)
        || ftc_tree_alloc(tree, n) != 0) {
        memset(tree, 0, sizeof(*tree));
        return -1;
    }
    tree->root = root;
    if (root_edges(tree, adjacency) != 0 || ftc_tree_index_children(tree, latency, gap) != 0) {
        ftc_tree_free(tree);
        return -1;
    }
    return 0;
}

int ftc_tree_prim(int n, const double *latency, unsigned char *adjacency)
{
    ftc_weight *best = malloc((size_t)n * sizeof *best);
    int *via = malloc((size_t)n * sizeof *via);
    unsigned char *in = calloc((size_t)n, 1);
    if (!best || !via || !in) {
        free(best);
        free(via);
        free(in);
        return -1;
    }
    memset(adjacency, 0, (size_t)n * (size_t)n);
    for (int v = 0; v < n; v++) {
        best[v] = ftc_weight_infinite();
        via[v] = -1;
    }
    int u = 0;
    for (int added = 1; added <= n; added++) {
        in[u] = 1;
        if (via[u] >= 0)
            adjacency[u * n + via[u]] = adjacency[via[u] * n + u] = 1;
        int next = -1;
        for (int v = 0; v < n; v++) {
            if (in[v])
                continue;
            const ftc_weight w = ftc_weight_of(latency[u * n + v], u, v);
            if (ftc_weight_cmp(w, best[v]) < 0) {
                best[v] = w;
                via[v] = u;
            }
            if (next < 0 || ftc_weight_cmp(best[v], best[next]) < 0)
                next = v;
        }
        if (next < 0)
            break;
        u = next;
    }
    free(best);
    free(via);
    free(in);
    return 0;
}
