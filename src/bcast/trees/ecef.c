/*
 * Broadcast, earliest completing edge first (ECEF; Bhat, Raghavendra and
 * Prasanna 1999) over measured latencies.
 *
 * Informed ranks start as {root}, ready[root] = 0. Each step takes, over
 * informed u and uninformed v, the send that completes first,
 *     ready[u] + gap + latency[u][v]     (ties: smaller v, then smaller u),
 * makes v u's next child, sets arrival[v] = ready[v] = that time, and
 * ready[u] += gap (u's next send starts after this one).
 *
 *   gap 1, latency  0-1: 1  1-2: 1  2-3: 1  1-3: 3  0-2: 5  0-3: 5
 *
 *   step  candidates                          pick         ready after
 *   1     0->1: 2  0->2: 6  0->3: 6           0->1 at 2    0: 1  1: 2
 *   2     0->2: 7  0->3: 7  1->2: 4  1->3: 6  1->2 at 4    1: 3  2: 4
 *   3     0->3: 7  1->3: 7  2->3: 6           2->3 at 6    done: 0-1-2-3
 *
 * The child lists keep the order of selection, so ftc_tree_predict gives
 * back these arrival times. With gap = 0 this is Dijkstra's shortest-path
 * tree.
 *
 * Cost: for a fixed u the best v is the uninformed one nearest to u, the
 * same whatever ready[u] is. So each row of latencies is sorted once and
 * each informed rank keeps a cursor to its nearest uninformed rank, moved
 * past ranks as they become informed: a step looks at every informed rank
 * once, and the cursors move n^2 times in all. O(n^2 log n) time for the
 * sorting, O(n^2) memory for the sorted rows.
 */
#include <stdlib.h>
#include <string.h>

#include "shape.h"

typedef struct {
    int n;
    const double *latency;
    double gap;
    int *nearest;            /* n x n: row u's ranks by latency from u, then rank */
    int *cursor;             /* n: u's position in its row */
    int *sent;               /* n: children so far */
    double *arrival;         /* n */
    unsigned char *informed; /* n */
    int *senders;            /* the informed ranks, in order */
    int nsenders;
    int *picked_from, *picked_to;   /* the selections, in order */
} ecef_state;

static void state_free(ecef_state *s)
{
    free(s->nearest);
    free(s->cursor);
    free(s->sent);
    free(s->arrival);
    free(s->informed);
    free(s->senders);
    free(s->picked_from);
    free(s->picked_to);
    memset(s, 0, sizeof(*s));
}

static int state_alloc(ecef_state *s, int n, const double *latency, double gap)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    s->latency = latency;
    s->gap = gap;
    const size_t count = (size_t)n;
    s->nearest = malloc(count * count * sizeof(int));
    s->cursor = calloc(count, sizeof(int));
    s->sent = calloc(count, sizeof(int));
    s->arrival = calloc(count, sizeof(double));
    s->informed = calloc(count, 1);
    s->senders = malloc(count * sizeof(int));
    s->picked_from = malloc(count * sizeof(int));
    s->picked_to = malloc(count * sizeof(int));
    if (s->nearest && s->cursor && s->sent && s->arrival && s->informed && s->senders
        && s->picked_from && s->picked_to)
        return 0;
    state_free(s);
    return -1;
}

typedef struct {
    double latency;
    int rank;
} neighbour;

static int by_latency_then_rank(const void *a, const void *b)
{
    const neighbour *x = a, *y = b;
    if (x->latency != y->latency)
        return x->latency < y->latency ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int sort_rows(ecef_state *s)
{
    const size_t n = (size_t)s->n;
    neighbour *row = malloc(n * sizeof(neighbour));
    if (!row)
        return -1;
    for (size_t u = 0; u < n; u++) {
        for (size_t v = 0; v < n; v++)
            row[v] = (neighbour){ s->latency[u * n + v], (int)v };
        qsort(row, n, sizeof(neighbour), by_latency_then_rank);
        for (size_t i = 0; i < n; i++)
            s->nearest[u * n + i] = row[i].rank;
    }
    free(row);
    return 0;
}

/* u's nearest uninformed rank, moving its cursor past informed ones. There
 * is one while any rank is uninformed. */
static int nearest_uninformed(ecef_state *s, int u)
{
    const int *row = s->nearest + (size_t)u * (size_t)s->n;
    while (s->informed[row[s->cursor[u]]])
        s->cursor[u]++;
    return row[s->cursor[u]];
}

/* When u's next send to v would complete: ready[u] + gap + latency, written
 * as the predictor writes it. */
static double completion(const ecef_state *s, int u, int v)
{
    return ftc_tree_send_arrival(s->arrival[u], s->sent[u] + 1, s->gap,
                                 s->latency[(size_t)u * (size_t)s->n + (size_t)v]);
}

static void inform(ecef_state *s, int v, double when)
{
    s->informed[v] = 1;
    s->arrival[v] = when;
    s->senders[s->nsenders++] = v;
}

/* One step: the earliest completing send, recorded as the step-th pick. */
static void pick_edge(ecef_state *s, int step)
{
    int best_u = -1, best_v = -1;
    double best = 0.0;
    for (int i = 0; i < s->nsenders; i++) {
        const int u = s->senders[i], v = nearest_uninformed(s, u);
        const double t = completion(s, u, v);
        if (best_u < 0 || t < best || (t == best && (v < best_v || (v == best_v && u < best_u)))) {
            best = t;
            best_u = u;
            best_v = v;
        }
    }
    inform(s, best_v, best);
    s->sent[best_u]++;
    s->picked_from[step] = best_u;
    s->picked_to[step] = best_v;
}

/* Child lists in order of selection. */
static void write_tree(ftc_tree *tree, ecef_state *s)
{
    int *next = s->cursor;   /* the cursors are done with */
    for (int r = 0; r < s->n; r++)
        next[r] = s->sent[r];
    ftc_tree_start_lists(tree, next, next);
    for (int step = 0; step < s->n - 1; step++)
        ftc_tree_add_child(tree, next, s->picked_from[step], s->picked_to[step]);
}

int ftc_tree_ecef(ftc_tree *tree, int n, int root, const double *latency, double gap)
{
    if (!tree)
        return -1;
    if (n < 1 || root < 0 || root >= n || !latency || !(gap >= 0.0)
        || ftc_tree_alloc(tree, n) != 0) {
        memset(tree, 0, sizeof(*tree));
        return -1;
    }
    ecef_state s;
    if (state_alloc(&s, n, latency, gap) != 0 || sort_rows(&s) != 0) {
        state_free(&s);   /* zeroed by a failed state_alloc: harmless */
        ftc_tree_free(tree);
        return -1;
    }
    tree->root = root;
    inform(&s, root, 0.0);
    for (int step = 0; step < n - 1; step++)
        pick_edge(&s, step);
    write_tree(tree, &s);
    state_free(&s);
    return 0;
}
