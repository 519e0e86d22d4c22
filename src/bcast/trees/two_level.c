/*
 * Broadcast, two-level tree: one wide-area message per site, binomial trees
 * inside the sites, so the slow links between sites carry the data once per
 * site and every rank is at most one wide-area hop from the root.
 *
 *   1. wide area, flat: the root sends to one coordinator of every other
 *      site, the site's lowest rank, directly (sites in ascending order of
 *      their site number);
 *   2. local: inside every site, the binomial tree over the site's ranks
 *      sorted ascending and renumbered from the coordinator (the root in
 *      its own site).
 *
 *   sites A = {0 1 2 3}, B = {4 5 6 7}, C = {8 9 10 11}, root 1
 *
 *              1 ----------+-----------+        root's send order: 4, 8, 3, 2
 *            / |     (wide area)       |        (coordinators first: theirs is
 *           3  2           4           8         the long latency, and their
 *           |             / \         / \        sites work while the root
 *           0            6   5       10  9       serves its own)
 *                        |           |
 *                        7           11
 *
 *   site A renumbered from the root: ranks 1 2 3 0 are relative 0 1 2 3,
 *   whose binomial edges 0 -> 2, 0 -> 1, 2 -> 3 are 1 -> 3, 1 -> 2, 3 -> 0.
 *
 * Every rank is one wide-area hop from the root at most: the only edges
 * between sites leave the root.
 */
#include <stdlib.h>
#include <string.h>

#include "shape.h"

typedef struct {
    int site, rank;
} sited_rank;

static int by_site_then_rank(const void *a, const void *b)
{
    const sited_rank *x = a, *y = b;
    if (x->site != y->site)
        return (x->site > y->site) - (x->site < y->site);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

typedef struct {
    sited_rank *sorted;   /* n: ranks grouped by site, ascending in each */
    int *members;         /* n: each site's ranks renumbered from its coordinator */
    int *next;            /* n: counts, then list cursors */
} scratch;

static void scratch_free(scratch *s)
{
    free(s->sorted);
    free(s->members);
    free(s->next);
}

static int scratch_alloc(scratch *s, int n)
{
    s->sorted = malloc((size_t)n * sizeof(sited_rank));
    s->members = malloc((size_t)n * sizeof(int));
    s->next = calloc((size_t)n, sizeof(int));
    if (s->sorted && s->members && s->next)
        return 0;
    scratch_free(s);
    return -1;
}

/* Length of the site starting at sorted[first]. */
static int site_size(const sited_rank *sorted, int n, int first)
{
    int last = first;
    while (last < n && sorted[last].site == sorted[first].site)
        last++;
    return last - first;
}

/* Writes the site's ranks into members[first..] starting from its
 * coordinator (the root if it is here, else the lowest rank) and counts the
 * binomial children; returns the site's size. */
static int renumber_site(scratch *s, int n, int first, int root)
{
    const int size = site_size(s->sorted, n, first);
    int start = 0;
    for (int i = 0; i < size; i++)
        if (s->sorted[first + i].rank == root)
            start = i;
    for (int v = 0; v < size; v++) {
        const int r = s->sorted[first + (start + v) % size].rank;
        s->members[first + v] = r;
        s->next[r] += ftc_tree_binomial_nchildren(v, size);
    }
    return size;
}

static void build(ftc_tree *tree, scratch *s, int root)
{
    const int n = tree->n;
    for (int first = 0; first < n;)
        first += renumber_site(s, n, first, root);
    /* The root's wide-area sends: one per site that is not its own. */
    for (int first = 0; first < n; first += site_size(s->sorted, n, first))
        if (s->members[first] != root)
            s->next[root]++;
    ftc_tree_start_lists(tree, s->next, s->next);
    for (int first = 0; first < n; first += site_size(s->sorted, n, first))
        if (s->members[first] != root)
            ftc_tree_add_child(tree, s->next, root, s->members[first]);
    for (int first = 0; first < n;) {
        const int size = site_size(s->sorted, n, first);
        ftc_tree_binomial_attach(tree, s->next, s->members + first, size);
        first += size;
    }
}

int ftc_tree_two_level(ftc_tree *tree, int n, int root, const int *site_of)
{
    if (!tree)
        return -1;
    if (n < 1 || root < 0 || root >= n || !site_of || ftc_tree_alloc(tree, n) != 0) {
        memset(tree, 0, sizeof(*tree));
        return -1;
    }
    scratch s;
    if (scratch_alloc(&s, n) != 0) {
        ftc_tree_free(tree);
        return -1;
    }
    tree->root = root;
    for (int r = 0; r < n; r++)
        s.sorted[r] = (sited_rank){ site_of[r], r };
    qsort(s.sorted, (size_t)n, sizeof(sited_rank), by_site_then_rank);
    build(tree, &s, root);
    scratch_free(&s);
    return 0;
}
