/* Prim's and Kruskal's algorithms on a complete graph; see mst_reference.h. */
#include "mst_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast/trees/weight.h"

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "mst_reference: out of memory\n");
        abort();
    }
    return p;
}

static ftc_weight edge_weight(int n, const double *latency, int i, int j)
{
    return ftc_weight_of(latency[i * n + j], i, j);
}

static void add_edge(int n, unsigned char *adjacency, int i, int j)
{
    adjacency[i * n + j] = 1;
    adjacency[j * n + i] = 1;
}

/* O(n^2) Prim from node 0: best[v] is v's lightest edge into the tree. */
void mst_prim(int n, const double *latency, unsigned char *adjacency)
{
    memset(adjacency, 0, (size_t)n * (size_t)n);
    if (n <= 1)
        return;
    unsigned char *in_tree = xmalloc((size_t)n);
    ftc_weight *best = xmalloc((size_t)n * sizeof *best);
    int *via = xmalloc((size_t)n * sizeof *via);
    memset(in_tree, 0, (size_t)n);
    in_tree[0] = 1;
    for (int v = 1; v < n; v++) {
        best[v] = edge_weight(n, latency, 0, v);
        via[v] = 0;
    }
    for (int added = 1; added < n; added++) {
        int next = -1;
        for (int v = 0; v < n; v++)
            if (!in_tree[v] && (next < 0 || ftc_weight_cmp(best[v], best[next]) < 0))
                next = v;
        in_tree[next] = 1;
        add_edge(n, adjacency, next, via[next]);
        for (int v = 0; v < n; v++) {
            if (in_tree[v])
                continue;
            const ftc_weight w = edge_weight(n, latency, next, v);
            if (ftc_weight_cmp(w, best[v]) < 0) {
                best[v] = w;
                via[v] = next;
            }
        }
    }
    free(in_tree);
    free(best);
    free(via);
}

static int compare_weights(const void *a, const void *b)
{
    return ftc_weight_cmp(*(const ftc_weight *)a, *(const ftc_weight *)b);
}

static int find_set(int *parent, int v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];   /* path halving */
        v = parent[v];
    }
    return v;
}

/* Kruskal: all edges sorted, each joins two sets or closes a cycle. */
void mst_kruskal(int n, const double *latency, unsigned char *adjacency)
{
    memset(adjacency, 0, (size_t)n * (size_t)n);
    if (n <= 1)
        return;
    const size_t nedges = (size_t)n * (size_t)(n - 1) / 2;
    ftc_weight *edges = xmalloc(nedges * sizeof *edges);
    int *parent = xmalloc((size_t)n * sizeof *parent);
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            edges[k++] = edge_weight(n, latency, i, j);
    qsort(edges, nedges, sizeof *edges, compare_weights);
    for (int v = 0; v < n; v++)
        parent[v] = v;
    int added = 0;
    for (k = 0; k < nedges && added < n - 1; k++) {
        const int a = find_set(parent, edges[k].lo), b = find_set(parent, edges[k].hi);
        if (a == b)
            continue;
        parent[a] = b;
        add_edge(n, adjacency, edges[k].lo, edges[k].hi);
        added++;
    }
    free(edges);
    free(parent);
}
