/*
 * Broadcast trees (src/bcast/trees/shape.h), for every n in 1..64 and every root
 * (a few of each with FTCOLL_UNIT_QUICK=1, the valgrind run):
 *   - binomial: a valid tree of depth <= ceil(log2 n), each relative rank's
 *     parent that rank with its lowest set bit cleared, children sent to
 *     largest subtree first;
 *   - two-level: valid for several site layouts, the only wide-area edges
 *     go from the root to each other site's lowest rank, binomial inside;
 *   - ECEF: valid, the same tree and arrival times as a plain restatement
 *     of the rule, predicted exactly; with gap 0 the shortest-path
 *     distances, so never slower than binomial, two-level or the MST tree;
 *   - rooting edges, ordering children, the predictor on small cases done
 *     by hand, and the predicted times on the thesis's Table 4.1 network.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bcast/trees/shape.h"
#include "mst_reference.h"

#define MAX_N 64

/* ---- sizes, roots, random numbers ------------------------------------------ */

static int quick(void)
{
    const char *v = getenv("FTCOLL_UNIT_QUICK");
    return v && strcmp(v, "1") == 0;
}

/* The sizes to try: all of 1..MAX_N, or a few around powers of two. */
static int sizes(int *out)
{
    static const int few[] = { 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 24, 31, 32, 33, 64 };
    int count = 0;
    if (quick()) {
        for (size_t i = 0; i < sizeof(few) / sizeof(few[0]); i++)
            out[count++] = few[i];
    } else {
        for (int n = 1; n <= MAX_N; n++)
            out[count++] = n;
    }
    return count;
}

/* The roots to try for n: all, or the first, a middle and the last. */
static int roots(int n, int *out)
{
    if (!quick()) {
        for (int r = 0; r < n; r++)
            out[r] = r;
        return n;
    }
    int count = 0;
    const int pick[] = { 0, n / 2, n - 1 };
    for (int i = 0; i < 3; i++)
        if (count == 0 || pick[i] != out[count - 1])
            out[count++] = pick[i];
    return count;
}

static uint64_t rng = 88172645463325252ull;

static double uniform(void)   /* xorshift64: [0, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int ceil_log2(int n)
{
    int bits = 0;
    while ((1L << bits) < n)
        bits++;
    return bits;
}

static double max_of(const double *x, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}

static int depth_of(const ftc_tree *t, int r)
{
    int depth = 0;
    for (; t->parent[r] >= 0; r = t->parent[r])
        depth++;
    return depth;
}

static int nchildren(const ftc_tree *t, int r)
{
    return t->child_start[r + 1] - t->child_start[r];
}

static int child(const ftc_tree *t, int r, int i)
{
    return t->children[t->child_start[r] + i];
}

/* ---- latency matrices (seconds, row-major) --------------------------------- */

/* Any latency from 0.1 to 10 ms, not symmetric. */
static void random_latency(double *lat, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            lat[i * n + j] = i == j ? 0.0 : 1e-4 + 1e-2 * uniform();
}

/* Sites of four, 1 to 50 ms apart, 10 to 50 us inside; symmetric. */
static void clustered_latency(double *lat, int n)
{
    double between[MAX_N / 4 + 1][MAX_N / 4 + 1];
    for (int a = 0; a <= (n - 1) / 4; a++)
        for (int b = 0; b <= a; b++)
            between[a][b] = between[b][a] = 1e-3 + 4.9e-2 * uniform();
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            const double t = i == j          ? 0.0
                             : i / 4 == j / 4 ? 1e-5 + 4e-5 * uniform()
                                              : between[i / 4][j / 4];
            lat[i * n + j] = lat[j * n + i] = t;
        }
}

static void symmetric_random_latency(double *lat, int n)
{
    random_latency(lat, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            lat[j * n + i] = lat[i * n + j];
}

/* The thesis's Table 4.1: 24 ranks, sites of four (0-3, 4-7, ...), the
 * sites' latencies in ms, 0.01 ms inside a site. */
enum { THESIS_N = 24 };

static const double thesis_sites_ms[6][6] = {
    { 0, 485.4, 698.9, 14.9, 332.8, 61.4 },  { 485.4, 0, 364.1, 583.8, 13.5, 490.5 },
    { 698.9, 364.1, 0, 701.2, 371.7, 722.9 }, { 14.9, 583.8, 701.2, 0, 331.0, 35.1 },
    { 332.8, 13.5, 371.7, 331.0, 0, 355.9 },  { 61.4, 490.5, 722.9, 35.1, 355.9, 0 },
};

static void thesis_latency(double *lat, int *site_of)
{
    for (int i = 0; i < THESIS_N; i++) {
        site_of[i] = i / 4;
        for (int j = 0; j < THESIS_N; j++)
            lat[i * THESIS_N + j] = i == j          ? 0.0
                                    : i / 4 == j / 4 ? 0.01e-3
                                                     : thesis_sites_ms[i / 4][j / 4] * 1e-3;
    }
}

/* ---- references ------------------------------------------------------------- */

/* The ECEF rule as stated, all pairs every step: parent, arrival and each
 * rank's sends in order (order[u * n + k], k-th send of u). */
static void reference_ecef(int n, int root, const double *lat, double gap, int *parent,
                           double *arrival, int *order)
{
    int informed[MAX_N] = { 0 }, sent[MAX_N] = { 0 };
    informed[root] = 1;
    arrival[root] = 0.0;
    parent[root] = -1;
    for (int step = 1; step < n; step++) {
        int bu = -1, bv = -1;
        double best = 0.0;
        for (int v = 0; v < n; v++)
            for (int u = 0; u < n; u++) {
                if (!informed[u] || informed[v])
                    continue;
                /* ready[u] + gap, ready[u] = arrival[u] + sent[u] * gap */
                const double t = arrival[u] + (sent[u] + 1) * gap + lat[u * n + v];
                if (bu < 0 || t < best) {   /* v, then u ascending: ties keep the first */
                    best = t;
                    bu = u;
                    bv = v;
                }
            }
        informed[bv] = 1;
        arrival[bv] = best;
        parent[bv] = bu;
        order[bu * n + sent[bu]++] = bv;
    }
}

/* Shortest-path distances from root (O(n^2) Dijkstra); returns the largest. */
static double dijkstra_radius(int n, int root, const double *lat)
{
    double dist[MAX_N];
    int done[MAX_N] = { 0 };
    for (int v = 0; v < n; v++)
        dist[v] = v == root ? 0.0 : 1e300;
    for (int step = 0; step < n; step++) {
        int u = -1;
        for (int v = 0; v < n; v++)
            if (!done[v] && (u < 0 || dist[v] < dist[u]))
                u = v;
        done[u] = 1;
        for (int v = 0; v < n; v++)
            if (!done[v] && dist[u] + lat[u * n + v] < dist[v])
                dist[v] = dist[u] + lat[u * n + v];
    }
    return max_of(dist, n);
}

/* A minimum spanning tree of a symmetric matrix (Prim), as an adjacency. */
static void prim_mst(int n, const double *lat, unsigned char *adjacency)
{
    int in[MAX_N] = { 0 }, via[MAX_N];
    double cost[MAX_N];
    memset(adjacency, 0, (size_t)n * (size_t)n);
    for (int v = 0; v < n; v++) {
        cost[v] = lat[v];   /* from rank 0 */
        via[v] = 0;
    }
    in[0] = 1;
    for (int step = 1; step < n; step++) {
        int u = -1;
        for (int v = 0; v < n; v++)
            if (!in[v] && (u < 0 || cost[v] < cost[u]))
                u = v;
        in[u] = 1;
        adjacency[u * n + via[u]] = adjacency[via[u] * n + u] = 1;
        for (int v = 0; v < n; v++)
            if (!in[v] && lat[u * n + v] < cost[v]) {
                cost[v] = lat[u * n + v];
                via[v] = u;
            }
    }
}

/* ---- binomial --------------------------------------------------------------- */

static void expect_binomial(int n, int root)
{
    ftc_tree t;
    assert_int_equal(ftc_tree_binomial(&t, n, root), 0);
    assert_int_equal(t.n, n);
    assert_int_equal(t.root, root);
    assert_true(ftc_tree_is_valid(&t));
    for (int r = 0; r < n; r++) {
        const int v = (r - root + n) % n;
        assert_int_equal(t.parent[r], v == 0 ? -1 : (v - (v & -v) + root) % n);
        assert_true(depth_of(&t, r) <= ceil_log2(n));
        int k = 0;   /* children: v + 2^k, largest 2^k first */
        for (int step = 1 << 30; step > 0; step >>= 1)
            if ((v == 0 || step < (v & -v)) && v + (long)step < n)
                assert_int_equal(child(&t, r, k++), (v + step + root) % n);
        assert_int_equal(nchildren(&t, r), k);
    }
    ftc_tree_free(&t);
}

static void binomial_trees(void **state)
{
    (void)state;
    int ns[MAX_N], rs[MAX_N];
    const int nn = sizes(ns);
    for (int i = 0; i < nn; i++) {
        const int nr = roots(ns[i], rs);
        for (int j = 0; j < nr; j++)
            expect_binomial(ns[i], rs[j]);
    }
}

/* ---- two-level -------------------------------------------------------------- */

enum { SITES_OF_FOUR, ROUND_ROBIN, ONE_SITE, OWN_SITE, LAYOUTS };

/* Site numbers deliberately sparse, negative, or descending with rank. */
static void layout(int which, int n, int *site_of)
{
    for (int r = 0; r < n; r++)
        site_of[r] = which == SITES_OF_FOUR ? 100 + 10 * (r / 4)
                     : which == ROUND_ROBIN ? (r % 3) * 7 - 5
                     : which == ONE_SITE    ? 42
                                            : 1000 - 3 * r;
}

static int lowest_of_site(int n, const int *site_of, int site)
{
    for (int r = 0; r < n; r++)
        if (site_of[r] == site)
            return r;
    return -1;
}

/* Inside a site: the binomial tree over its ranks, ascending, renumbered
 * from the coordinator (the root in the root's site). */
static void expect_site_binomial(const ftc_tree *t, const int *site_of, int site)
{
    int members[MAX_N], size = 0, start = 0;
    for (int r = 0; r < t->n; r++)
        if (site_of[r] == site)
            members[size++] = r;
    for (int i = 0; i < size; i++)
        if (members[i] == t->root)
            start = i;
    for (int v = 1; v < size; v++) {
        const int r = members[(start + v) % size];
        const int p = members[(start + v - (v & -v)) % size];
        assert_int_equal(t->parent[r], p);
    }
}

static void expect_two_level(int n, int root, int which)
{
    int site_of[MAX_N];
    layout(which, n, site_of);
    ftc_tree t;
    assert_int_equal(ftc_tree_two_level(&t, n, root, site_of), 0);
    assert_true(ftc_tree_is_valid(&t));
    int other_sites = 0;
    for (int r = 0; r < n; r++) {
        if (r != root && site_of[r] != site_of[root] && lowest_of_site(n, site_of, site_of[r]) == r)
            other_sites++;
        int hops = 0;   /* wide-area edges from the root to r */
        for (int x = r; t.parent[x] >= 0; x = t.parent[x])
            if (site_of[x] != site_of[t.parent[x]]) {
                assert_int_equal(t.parent[x], root);
                assert_int_equal(x, lowest_of_site(n, site_of, site_of[x]));
                hops++;
            }
        assert_int_equal(hops, site_of[r] != site_of[root]);
        expect_site_binomial(&t, site_of, site_of[r]);
    }
    /* The root serves the other sites first, then its own. */
    for (int i = 0; i < nchildren(&t, root); i++)
        assert_int_equal(site_of[child(&t, root, i)] != site_of[root], i < other_sites);
    if (which == ONE_SITE && n > 1) {   /* then it is the binomial tree */
        ftc_tree b;
        assert_int_equal(ftc_tree_binomial(&b, n, root), 0);
        assert_memory_equal(t.parent, b.parent, (size_t)n * sizeof(int));
        assert_memory_equal(t.child_start, b.child_start, (size_t)(n + 1) * sizeof(int));
        assert_memory_equal(t.children, b.children, (size_t)(n - 1) * sizeof(int));
        ftc_tree_free(&b);
    }
    ftc_tree_free(&t);
}

static void two_level_trees(void **state)
{
    (void)state;
    int ns[MAX_N], rs[MAX_N];
    const int nn = sizes(ns);
    for (int i = 0; i < nn; i++) {
        const int nr = roots(ns[i], rs);
        for (int j = 0; j < nr; j++)
            for (int which = 0; which < LAYOUTS; which++)
                expect_two_level(ns[i], rs[j], which);
    }
}

/* ---- ECEF ------------------------------------------------------------------- */

static const double gaps[] = { 0.0, 1e-4, 5e-3 };
#define NGAPS (sizeof(gaps) / sizeof(gaps[0]))

static void expect_ecef_matches_rule(int n, int root, const double *lat, double gap)
{
    int parent[MAX_N], order[MAX_N * MAX_N];
    double arrival[MAX_N], predicted[MAX_N];
    reference_ecef(n, root, lat, gap, parent, arrival, order);
    ftc_tree t;
    assert_int_equal(ftc_tree_ecef(&t, n, root, lat, gap), 0);
    assert_true(ftc_tree_is_valid(&t));
    assert_memory_equal(t.parent, parent, (size_t)n * sizeof(int));
    for (int u = 0; u < n; u++)
        for (int k = 0; k < nchildren(&t, u); k++)
            assert_int_equal(child(&t, u, k), order[u * n + k]);
    assert_int_equal(ftc_tree_arrivals(&t, lat, gap, predicted), 0);
    for (int r = 0; r < n; r++)
        assert_true(predicted[r] == arrival[r]);   /* the same sums, to the bit */
    assert_true(ftc_tree_predict(&t, lat, gap) == max_of(arrival, n));
    if (gap == 0.0) {
        const double radius = dijkstra_radius(n, root, lat);
        assert_true(ftc_tree_predict(&t, lat, gap) <= radius * (1 + 1e-12));
        assert_true(ftc_tree_predict(&t, lat, gap) >= radius * (1 - 1e-12));
    }
    ftc_tree_free(&t);
}

static void ecef_follows_its_rule(void **state)
{
    (void)state;
    static double lat[MAX_N * MAX_N];
    int ns[MAX_N], rs[MAX_N];
    const int nn = sizes(ns);
    for (int i = 0; i < nn; i++) {
        const int n = ns[i], nr = roots(n, rs);
        for (int shape = 0; shape < 2; shape++) {
            (shape ? clustered_latency : random_latency)(lat, n);
            for (int j = 0; j < nr; j++)
                for (size_t g = 0; g < NGAPS; g++)
                    expect_ecef_matches_rule(n, rs[j], lat, gaps[g]);
        }
    }
}

/* Predicted times of binomial, two-level (sites of four), MST, ECEF. */
typedef struct {
    double binomial, two_level, mst, ecef;
} predictions;

static predictions predict_all(int n, int root, const double *lat, const int *site_of,
                               double gap)
{
    static unsigned char adjacency[MAX_N * MAX_N];
    predictions p;
    ftc_tree t;
    assert_int_equal(ftc_tree_binomial(&t, n, root), 0);
    p.binomial = ftc_tree_predict(&t, lat, gap);
    ftc_tree_free(&t);
    assert_int_equal(ftc_tree_two_level(&t, n, root, site_of), 0);
    p.two_level = ftc_tree_predict(&t, lat, gap);
    ftc_tree_free(&t);
    prim_mst(n, lat, adjacency);
    assert_int_equal(ftc_tree_from_edges(&t, n, root, adjacency, lat, gap), 0);
    assert_true(ftc_tree_is_valid(&t));
    p.mst = ftc_tree_predict(&t, lat, gap);
    ftc_tree_free(&t);
    assert_int_equal(ftc_tree_ecef(&t, n, root, lat, gap), 0);
    p.ecef = ftc_tree_predict(&t, lat, gap);
    ftc_tree_free(&t);
    return p;
}

/*
 * With gap 0 ECEF is the shortest-path tree: every rank gets the data as
 * early as any tree allows. With gap > 0 it is a greedy heuristic and can
 * lose: it serves cheap nearby edges first and leaves the long hop on the
 * critical path for later (Table 4.1, root 12, gap 0.1 ms: the root's 701 ms
 * send to site 2 goes sixth, two-level's third). So gap 0 only.
 */
static void expect_ecef_fastest(const predictions *p)
{
    const double slack = 1e-12;   /* sums taken in other orders */
    assert_true(p->ecef <= p->binomial * (1 + slack));
    assert_true(p->ecef <= p->two_level * (1 + slack));
    assert_true(p->ecef <= p->mst * (1 + slack));
}

static void ecef_beats_the_others(void **state)
{
    (void)state;
    static double lat[MAX_N * MAX_N];
    int ns[MAX_N], rs[MAX_N], site_of[MAX_N];
    const int nn = sizes(ns);
    for (int i = 0; i < nn; i++) {
        const int n = ns[i], nr = roots(n, rs);
        layout(SITES_OF_FOUR, n, site_of);
        for (int shape = 0; shape < 2; shape++) {
            (shape ? clustered_latency : symmetric_random_latency)(lat, n);
            for (int j = 0; j < nr; j++)
                for (size_t g = 0; g < NGAPS; g++) {
                    const predictions p = predict_all(n, rs[j], lat, site_of, gaps[g]);
                    if (gaps[g] == 0.0)
                        expect_ecef_fastest(&p);
                }
        }
    }
}

static void thesis_network(void **state)
{
    (void)state;
    static double lat[THESIS_N * THESIS_N];
    int site_of[THESIS_N];
    thesis_latency(lat, site_of);
    for (int root = 0; root < THESIS_N; root++)
        for (size_t g = 0; g < NGAPS; g++) {
            const predictions p = predict_all(THESIS_N, root, lat, site_of, gaps[g]);
            if (gaps[g] == 0.0) {
                expect_ecef_fastest(&p);
                assert_true(p.ecef == dijkstra_radius(THESIS_N, root, lat));
            }
        }
    const predictions p = predict_all(THESIS_N, 12, lat, site_of, 0.0);
    printf("Table 4.1 network, root 12, gap 0: predicted broadcast times (ms)\n"
           "  binomial %.2f  two-level %.2f  MST %.2f  ECEF %.2f\n",
           p.binomial * 1e3, p.two_level * 1e3, p.mst * 1e3, p.ecef * 1e3);
}

/* ---- rooting edges, ordering children, the predictor ----------------------- */

static void edge(unsigned char *adjacency, int n, int a, int b)
{
    adjacency[a * n + b] = adjacency[b * n + a] = 1;
}

static void expect_rejected(int n, const unsigned char *adjacency)
{
    ftc_tree t;
    for (int root = 0; root < n; root++) {
        assert_int_equal(ftc_tree_from_edges(&t, n, root, adjacency, NULL, 0.0), -1);
        assert_null(t.parent);   /* left zeroed */
        ftc_tree_free(&t);
    }
}

static void from_edges_takes_only_trees(void **state)
{
    (void)state;
    enum { N = 5 };
    unsigned char adjacency[N * N] = { 0 };
    edge(adjacency, N, 0, 1);   /* path 0-1-2-3, and 2-4 */
    edge(adjacency, N, 1, 2);
    edge(adjacency, N, 2, 3);
    edge(adjacency, N, 2, 4);
    ftc_tree t;
    for (int root = 0; root < N; root++) {
        assert_int_equal(ftc_tree_from_edges(&t, N, root, adjacency, NULL, 0.0), 0);
        assert_true(ftc_tree_is_valid(&t));
        for (int r = 0; r < N; r++)   /* every edge used, in some direction */
            if (r != root)
                assert_true(adjacency[r * N + t.parent[r]]);
        ftc_tree_free(&t);
    }
    assert_int_equal(ftc_tree_from_edges(&t, N, 3, adjacency, NULL, 0.0), 0);
    assert_int_equal(t.parent[2], 3);
    assert_int_equal(t.parent[0], 1);
    ftc_tree_free(&t);

    unsigned char bad[N * N];
    memcpy(bad, adjacency, sizeof(bad));   /* n - 2 edges */
    bad[2 * N + 4] = bad[4 * N + 2] = 0;
    expect_rejected(N, bad);
    edge(bad, N, 0, 2);                    /* n - 1 edges, cycle 0-1-2, 4 cut off */
    expect_rejected(N, bad);
    memcpy(bad, adjacency, sizeof(bad));   /* n edges */
    edge(bad, N, 3, 4);
    expect_rejected(N, bad);
    memcpy(bad, adjacency, sizeof(bad));   /* one direction only */
    bad[4 * N + 2] = 0;
    expect_rejected(N, bad);
    bad[4 * N + 4] = 1;                    /* ... made up by a loop */
    expect_rejected(N, bad);
    memset(bad, 0, sizeof(bad));           /* two components, n - 1 edges */
    edge(bad, N, 0, 1);
    edge(bad, N, 2, 3);
    edge(bad, N, 3, 4);
    edge(bad, N, 2, 4);
    expect_rejected(N, bad);

    assert_int_equal(ftc_tree_from_edges(&t, N, N, adjacency, NULL, 0.0), -1);
    assert_int_equal(ftc_tree_from_edges(&t, N, -1, adjacency, NULL, 0.0), -1);
    assert_int_equal(ftc_tree_from_edges(&t, 0, 0, adjacency, NULL, 0.0), -1);
    assert_int_equal(ftc_tree_from_edges(&t, N, 0, NULL, NULL, 0.0), -1);
    const unsigned char alone = 0;
    assert_int_equal(ftc_tree_from_edges(&t, 1, 0, &alone, NULL, 0.0), 0);
    assert_true(ftc_tree_is_valid(&t));
    assert_true(ftc_tree_predict(&t, NULL, 1.0) == 0.0);
    ftc_tree_free(&t);
}

/* The time from r's arrival until its subtree is done, in the order given. */
static double finish_time(const ftc_tree *t, int r, const double *lat, double gap)
{
    double done = 0.0;
    for (int k = 0; k < nchildren(t, r); k++) {
        const int c = child(t, r, k);
        const double f = (k + 1) * gap + lat[r * t->n + c] + finish_time(t, c, lat, gap);
        done = f > done ? f : done;
    }
    return done;
}

/* A random tree: each rank after the first in a random order hangs below
 * an earlier one. */
static void random_parents(ftc_tree *t, int n, int root)
{
    int order[MAX_N];
    for (int i = 0; i < n; i++)
        order[i] = i;
    order[0] = root;
    order[root] = 0;
    for (int i = n - 1; i > 1; i--) {
        const int j = 1 + (int)(uniform() * i);
        const int x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    t->root = root;
    t->parent[root] = -1;
    for (int i = 1; i < n; i++)
        t->parent[order[i]] = order[(int)(uniform() * i)];
}

static void expect_finish_order(int n, int root, const double *lat, double gap)
{
    ftc_tree t;
    assert_int_equal(ftc_tree_alloc(&t, n), 0);
    random_parents(&t, n, root);
    assert_int_equal(ftc_tree_index_children(&t, NULL, 0.0), 0);
    assert_true(ftc_tree_is_valid(&t));
    for (int r = 0; r < n; r++)
        for (int k = 1; k < nchildren(&t, r); k++)
            assert_true(child(&t, r, k - 1) < child(&t, r, k));
    const double by_rank = ftc_tree_predict(&t, lat, gap);
    assert_int_equal(ftc_tree_index_children(&t, lat, gap), 0);
    assert_true(ftc_tree_is_valid(&t));
    for (int r = 0; r < n; r++)
        for (int k = 1; k < nchildren(&t, r); k++) {
            const int a = child(&t, r, k - 1), b = child(&t, r, k);
            const double ka = lat[r * n + a] + finish_time(&t, a, lat, gap);
            const double kb = lat[r * n + b] + finish_time(&t, b, lat, gap);
            assert_true(ka > kb || (ka == kb && a < b));
        }
    /* The best order at every rank: never later than rank order. */
    const double predicted = ftc_tree_predict(&t, lat, gap);
    assert_true(predicted <= by_rank * (1 + 1e-12));   /* sums in other orders */
    const double finish = finish_time(&t, root, lat, gap);
    assert_true(predicted <= finish * (1 + 1e-12) && predicted >= finish * (1 - 1e-12));
    ftc_tree_free(&t);
}

static void children_by_subtree_finish(void **state)
{
    (void)state;
    static double lat[MAX_N * MAX_N];
    int ns[MAX_N], rs[MAX_N];
    const int nn = sizes(ns);
    for (int i = 0; i < nn; i++) {
        const int n = ns[i], nr = roots(n, rs);
        random_latency(lat, n);
        for (int j = 0; j < nr; j++)
            for (size_t g = 0; g < NGAPS; g++)
                expect_finish_order(n, rs[j], lat, gaps[g]);
    }
}

static void index_children_rejects_non_trees(void **state)
{
    (void)state;
    ftc_tree t;
    assert_int_equal(ftc_tree_alloc(&t, 4), 0);
    const int cycle[] = { -1, 2, 3, 1 };        /* 1 -> 2 -> 3 -> 1, away from 0 */
    const int two_roots[] = { -1, 0, -1, 2 };
    const int outside[] = { -1, 0, 4, 0 };
    const int self[] = { -1, 0, 2, 0 };
    const int *bad[] = { cycle, two_roots, outside, self };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memcpy(t.parent, bad[i], sizeof(cycle));
        assert_int_equal(ftc_tree_index_children(&t, NULL, 0.0), -1);
    }
    const int star[] = { -1, 0, 0, 0 };
    memcpy(t.parent, star, sizeof(star));
    t.root = 1;                                 /* rank 1 has a parent */
    assert_int_equal(ftc_tree_index_children(&t, NULL, 0.0), -1);
    t.root = 0;
    assert_int_equal(ftc_tree_index_children(&t, NULL, 0.0), 0);
    assert_true(ftc_tree_is_valid(&t));
    t.children[2] = 1;                          /* 1 listed twice, 3 not at all */
    assert_false(ftc_tree_is_valid(&t));
    t.children[2] = 3;
    t.parent[3] = 1;                            /* lists and parents disagree */
    assert_false(ftc_tree_is_valid(&t));
    ftc_tree_free(&t);
}

static void predictor_by_hand(void **state)
{
    (void)state;
    enum { N = 4 };
    double lat[N * N] = { 0 };
    ftc_tree t;
    /* Chain 0 -> 1 -> 2 -> 3, latencies 1, 2, 3, gap 0.5: every rank sends
     * once, so 1.5, then 1.5 + 2.5 = 4, then 4 + 3.5 = 7.5. */
    const int chain[] = { -1, 0, 1, 2 };
    lat[0 * N + 1] = 1;
    lat[1 * N + 2] = 2;
    lat[2 * N + 3] = 3;
    assert_int_equal(ftc_tree_alloc(&t, N), 0);
    memcpy(t.parent, chain, sizeof(chain));
    assert_int_equal(ftc_tree_index_children(&t, lat, 0.5), 0);
    assert_true(ftc_tree_predict(&t, lat, 0.5) == 7.5);
    double arrival[N];
    assert_int_equal(ftc_tree_arrivals(&t, lat, 0.5, arrival), 0);
    assert_true(arrival[0] == 0.0 && arrival[1] == 1.5 && arrival[2] == 4.0);
    ftc_tree_free(&t);

    /* Star from 0, latencies 1, 2, 3 to ranks 1, 2, 3, gap 0.5. In rank
     * order: 0.5 + 1, 1 + 2, 1.5 + 3 -> 4.5. Slowest first (3, 2, 1):
     * 0.5 + 3, 1 + 2, 1.5 + 1 -> 3.5. */
    const int star[] = { -1, 0, 0, 0 };
    memset(lat, 0, sizeof(lat));
    lat[0 * N + 1] = 1;
    lat[0 * N + 2] = 2;
    lat[0 * N + 3] = 3;
    assert_int_equal(ftc_tree_alloc(&t, N), 0);
    memcpy(t.parent, star, sizeof(star));
    assert_int_equal(ftc_tree_index_children(&t, NULL, 0.0), 0);
    assert_true(ftc_tree_predict(&t, lat, 0.5) == 4.5);
    assert_int_equal(ftc_tree_index_children(&t, lat, 0.5), 0);
    assert_int_equal(child(&t, 0, 0), 3);
    assert_int_equal(child(&t, 0, 2), 1);
    assert_true(ftc_tree_predict(&t, lat, 0.5) == 3.5);
    ftc_tree_free(&t);

    /* ecef.c's worked example: the chain 0-1-2-3, done at 6. */
    const double example[N * N] = { 0, 1, 5, 5, 1, 0, 1, 3, 5, 1, 0, 1, 5, 3, 1, 0 };
    assert_int_equal(ftc_tree_ecef(&t, N, 0, example, 1.0), 0);
    assert_memory_equal(t.parent, chain, sizeof(chain));
    assert_true(ftc_tree_predict(&t, example, 1.0) == 6.0);
    ftc_tree_free(&t);
}

/* ---- the survivors' network (survivors.c) ------------------------------------ */

/* Round 0: rank n / 2 dead; round 1: rank 0; later rounds: each rank dead
 * with probability 0.3, one rank kept at least. The survivors ascending. */
static int pick_survivors(int n, int round, int *live)
{
    int k = 0;
    for (int r = 0; r < n; r++) {
        const bool dead = round == 0 ? r == n / 2 : round == 1 ? r == 0 : uniform() < 0.3;
        if (!dead)
            live[k++] = r;
    }
    if (k == 0)
        live[k++] = n - 1;
    return k;
}

/* Every tree over the survivors spans them from each root; the MST of
 * their latencies is the reference's, and keeps every edge of the whole
 * network's MST between two survivors: the dead ranks' subtrees are
 * re-attached, nothing else moves. */
static void survivors_trees_reattach(void **state)
{
    (void)state;
    static double lat[MAX_N * MAX_N], sub[MAX_N * MAX_N];
    static unsigned char whole[MAX_N * MAX_N], part[MAX_N * MAX_N], reference[MAX_N * MAX_N];
    int ns[MAX_N], rs[MAX_N], live[MAX_N], sites[MAX_N], sub_sites[MAX_N];
    const int nsizes = sizes(ns);
    for (int s = 0; s < nsizes; s++) {
        const int n = ns[s];
        symmetric_random_latency(lat, n);
        for (int i = 0; i < n; i++)
            sites[i] = i / 4;
        assert_int_equal(ftc_tree_prim(n, lat, whole), 0);
        for (int round = 0; round < (quick() ? 3 : 8); round++) {
            const int k = pick_survivors(n, round, live);
            ftc_tree_restrict(n, lat, sites, live, k, sub, sub_sites);
            for (int i = 0; i < k; i++) {
                assert_int_equal(sub_sites[i], sites[live[i]]);
                for (int j = 0; j < k; j++)
                    assert_true(sub[i * k + j] == lat[live[i] * n + live[j]]);
            }
            assert_int_equal(ftc_tree_prim(k, sub, part), 0);
            mst_kruskal(k, sub, reference);
            assert_memory_equal(part, reference, (size_t)k * (size_t)k);
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++)
                    if (whole[live[i] * n + live[j]])
                        assert_true(part[i * k + j]);
            const int nroots = roots(k, rs);
            for (int r = 0; r < nroots; r++) {
                ftc_tree t;
                assert_int_equal(ftc_tree_binomial(&t, k, rs[r]), 0);
                assert_true(ftc_tree_is_valid(&t));
                ftc_tree_free(&t);
                assert_int_equal(ftc_tree_two_level(&t, k, rs[r], sub_sites), 0);
                assert_true(ftc_tree_is_valid(&t));
                ftc_tree_free(&t);
                assert_int_equal(ftc_tree_ecef(&t, k, rs[r], sub, 0.0), 0);
                assert_true(ftc_tree_is_valid(&t));
                ftc_tree_free(&t);
                assert_int_equal(ftc_tree_from_edges(&t, k, rs[r], part, sub, 0.0), 0);
                assert_true(ftc_tree_is_valid(&t));
                ftc_tree_free(&t);
            }
        }
    }
}

static void builders_reject_bad_arguments(void **state)
{
    (void)state;
    const double lat[4] = { 0, 1, 1, 0 };
    const int sites[2] = { 0, 1 };
    ftc_tree t;
    assert_int_equal(ftc_tree_alloc(&t, 0), -1);
    assert_null(t.parent);
    assert_int_equal(ftc_tree_binomial(&t, 0, 0), -1);
    assert_int_equal(ftc_tree_binomial(&t, 2, 2), -1);
    assert_int_equal(ftc_tree_two_level(&t, 2, -1, sites), -1);
    assert_int_equal(ftc_tree_two_level(&t, 2, 0, NULL), -1);
    assert_int_equal(ftc_tree_ecef(&t, 2, 0, NULL, 0.0), -1);
    assert_int_equal(ftc_tree_ecef(&t, 2, 0, lat, -1.0), -1);
    assert_null(t.parent);
    ftc_tree_free(&t);
    assert_int_equal(ftc_tree_binomial(NULL, 2, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binomial_trees),
        cmocka_unit_test(two_level_trees),
        cmocka_unit_test(ecef_follows_its_rule),
        cmocka_unit_test(ecef_beats_the_others),
        cmocka_unit_test(thesis_network),
        cmocka_unit_test(from_edges_takes_only_trees),
        cmocka_unit_test(children_by_subtree_finish),
        cmocka_unit_test(index_children_rejects_non_trees),
        cmocka_unit_test(predictor_by_hand),
        cmocka_unit_test(survivors_trees_reattach),
        cmocka_unit_test(builders_reject_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
