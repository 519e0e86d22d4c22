/*
 * GHS construction (src/bcast/trees/ghs.h) against sequential Prim and Kruskal:
 * one node per rank, messages delivered by bcast_trees_sim in a random order
 * per seed, on random complete graphs of 1..64 nodes, graphs full of equal
 * latencies (the rank tie-break decides), and site-like graphs (clusters of
 * near-zero latency). Every run must end with every node done, one root,
 * parent pointers forming the tree of Branch edges, that tree the minimum
 * one, and no message left in flight or deferred. The thesis's Table 4.1
 * network also reports its message counts, which must not exceed the
 * thesis's 815. FTCOLL_UNIT_QUICK=1 (under valgrind) runs fewer cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mst_reference.h"
#include "bcast/trees/ghs.h"
#include "bcast_trees_sim.h"

#define MAX_N 64
#define TABLE_4_1_MESSAGES 815   /* Initiate..Gosleep of the thesis's Table 4.3 */

static int quick(void)
{
    const char *q = getenv("FTCOLL_UNIT_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/* ---- graphs ------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)   /* [0, 1) */
{
    return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static int below(uint64_t *s, int bound)
{
    return (int)(rng_next(s) % (uint64_t)bound);
}

static void set_latency(int n, double *lat, int i, int j, double value)
{
    lat[i * n + j] = value;
    lat[j * n + i] = value;
}

typedef enum { GRAPH_RANDOM, GRAPH_FEW_VALUES, GRAPH_ALL_EQUAL, GRAPH_SITES, GRAPH_KINDS } graph_kind;

/* Site-like: up to n / 3 clusters, near-zero (and often equal) latency
 * inside one, one latency per pair of clusters (equal for all its pairs of
 * ranks, as a site-to-site measure would be). */
static void make_sites(int n, double *lat, uint64_t *s)
{
    int site[MAX_N];
    double between[MAX_N][MAX_N];
    const int nsites = 1 + below(s, n / 3 + 1);
    for (int i = 0; i < n; i++)
        site[i] = below(s, nsites);
    for (int a = 0; a < nsites; a++)
        for (int b = a; b < nsites; b++)
            between[a][b] = between[b][a] = 0.005 + 0.3 * uniform(s);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            set_latency(n, lat, i, j,
                        site[i] == site[j] ? 1e-6 * (1 + below(s, 3))
                                           : between[site[i]][site[j]]);
}

static void make_graph(graph_kind kind, int n, double *lat, unsigned seed)
{
    uint64_t s = 0x5eed0000ULL + seed * 1000003ULL + (uint64_t)n * 7919ULL + (uint64_t)kind;
    for (int i = 0; i < n; i++)
        lat[i * n + i] = 0.0;
    if (kind == GRAPH_SITES) {
        make_sites(n, lat, &s);
        return;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double v = 1e-3;
            if (kind == GRAPH_RANDOM)
                v = 1e-4 + uniform(&s);
            else if (kind == GRAPH_FEW_VALUES)
                v = 1e-3 * (1 + below(&s, 3));
            set_latency(n, lat, i, j, v);
        }
}

/* ---- running GHS -------------------------------------------------------- */

typedef struct {
    int n;
    ftc_ghs_node nodes[MAX_N];
    bcast_trees_sim *sim;
} ghs_run;

static void start_run(ghs_run *run, int n, const double *lat, unsigned seed)
{
    run->n = n;
    run->sim = bcast_trees_sim_new(n, seed);
    for (int i = 0; i < n; i++)
        assert_int_equal(ftc_ghs_init(&run->nodes[i], i, n, &lat[i * n]), 0);
}

/* Delivers one message; a node that is done must get no more, and must
 * have nothing left waiting when it gets done. */
static int deliver_one(ghs_run *run)
{
    ftc_msg msg;
    if (!bcast_trees_sim_next(run->sim, &msg))
        return 0;
    assert_true(msg.kind >= FTC_MSG_CONNECT && msg.kind <= FTC_MSG_GOSLEEP);
    assert_int_equal(msg.nwords, 0);
    ftc_ghs_node *to = &run->nodes[msg.to];
    assert_false(ftc_ghs_done(to));
    ftc_ghs_receive(to, &msg, bcast_trees_sim_send, run->sim);
    if (ftc_ghs_done(to))
        assert_int_equal(to->ndeferred, 0);
    return 1;
}

static void deliver_all(ghs_run *run)
{
    while (deliver_one(run))
        ;
}

static void run_ghs(ghs_run *run, int n, const double *lat, unsigned seed)
{
    start_run(run, n, lat, seed);
    for (int i = 0; i < n; i++)
        ftc_ghs_wakeup(&run->nodes[i], bcast_trees_sim_send, run->sim);
    deliver_all(run);
}

static void end_run(ghs_run *run)
{
    for (int i = 0; i < run->n; i++)
        ftc_ghs_free(&run->nodes[i]);
    bcast_trees_sim_free(run->sim);
}

/* ---- checks ------------------------------------------------------------- */

static void expect_same_tree(int n, const unsigned char *a, const unsigned char *b)
{
    for (int i = 0; i < n * n; i++)
        assert_int_equal(a[i], b[i]);
}

/* Branch edges symmetric, n - 1 of them, parents leading to one root
 * along them. Fills `adjacency` with the Branch edges. */
static void expect_rooted_tree(const ghs_run *run, unsigned char *adjacency)
{
    const int n = run->n;
    const int root = run->nodes[0].root;
    int edges = 0;
    assert_true(root >= 0 && root < n);
    for (int i = 0; i < n; i++) {
        const ftc_ghs_node *v = &run->nodes[i];
        assert_true(ftc_ghs_done(v));
        assert_int_equal(v->root, root);
        assert_int_equal(v->ndeferred, 0);
        for (int j = 0; j < n; j++) {
            adjacency[i * n + j] = j != i && ftc_ghs_is_branch(v, j);
            if (j != i)
                assert_int_equal(ftc_ghs_is_branch(v, j), ftc_ghs_is_branch(&run->nodes[j], i));
            edges += j > i && adjacency[i * n + j];
        }
    }
    assert_int_equal(edges, n - 1);
    assert_int_equal(run->nodes[root].parent, -1);
    for (int i = 0; i < n; i++) {
        if (i == root)
            continue;
        const int p = run->nodes[i].parent;
        assert_true(p >= 0 && p < n && p != i);
        assert_true(ftc_ghs_is_branch(&run->nodes[i], p));
        int v = i, steps = 0;
        while (v != root && steps++ < n)
            v = run->nodes[v].parent;
        assert_int_equal(v, root);   /* no cycle: n - 1 parent edges are the Branch edges */
    }
    assert_int_equal(bcast_trees_sim_in_flight(run->sim), 0);
}

static void expect_minimum_tree(const ghs_run *run, const double *lat)
{
    const int n = run->n;
    unsigned char *ghs = malloc((size_t)n * n), *prim = malloc((size_t)n * n),
                  *kruskal = malloc((size_t)n * n);
    assert_non_null(ghs);
    assert_non_null(prim);
    assert_non_null(kruskal);
    expect_rooted_tree(run, ghs);
    mst_prim(n, lat, prim);
    mst_kruskal(n, lat, kruskal);
    expect_same_tree(n, prim, kruskal);
    expect_same_tree(n, ghs, prim);
    free(ghs);
    free(prim);
    free(kruskal);
}

static void check_graph(int n, const double *lat, unsigned seed)
{
    ghs_run run;
    run_ghs(&run, n, lat, seed);
    expect_minimum_tree(&run, lat);
    /* one Gosleep per tree edge: the core is not crossed twice */
    assert_int_equal(bcast_trees_sim_count(run.sim, FTC_MSG_GOSLEEP), n - 1);
    end_run(&run);
}

/* ---- tests -------------------------------------------------------------- */

static void single_node(void **state)
{
    (void)state;
    const double lat[1] = {0.0};
    ghs_run run;
    run_ghs(&run, 1, lat, 1);
    assert_true(ftc_ghs_done(&run.nodes[0]));
    assert_int_equal(run.nodes[0].root, 0);
    assert_int_equal(run.nodes[0].parent, -1);
    assert_int_equal(bcast_trees_sim_total(run.sim), 0);
    end_run(&run);
}

/* The thesis's worked example (its Table 2.1): tree 2-3, 0-1, 1-3, 3-4. */
static void thesis_example(void **state)
{
    (void)state;
    const double lat[25] = {
        0, 10, 80, 70, 40,
        10, 0, 50, 20, 60,
        80, 50, 0, 5, 90,
        70, 20, 5, 0, 35,
        40, 60, 90, 35, 0,
    };
    for (unsigned seed = 1; seed <= 50; seed++) {
        ghs_run run;
        run_ghs(&run, 5, lat, seed);
        expect_minimum_tree(&run, lat);
        assert_true(ftc_ghs_is_branch(&run.nodes[2], 3));
        assert_true(ftc_ghs_is_branch(&run.nodes[0], 1));
        assert_true(ftc_ghs_is_branch(&run.nodes[1], 3));
        assert_true(ftc_ghs_is_branch(&run.nodes[3], 4));
        end_run(&run);
    }
}

static void random_graphs(void **state)
{
    (void)state;
    const int max_n = quick() ? 24 : MAX_N;
    const unsigned seeds = quick() ? 1 : 4;
    double *lat = malloc(sizeof(double) * MAX_N * MAX_N);
    assert_non_null(lat);
    for (int n = 1; n <= max_n; n++)
        for (int kind = 0; kind < GRAPH_KINDS; kind++)
            for (unsigned seed = 1; seed <= seeds; seed++) {
                make_graph((graph_kind)kind, n, lat, seed);
                check_graph(n, lat, seed * 31u + (unsigned)n);
            }
    free(lat);
}

/* Only some nodes wake up by themselves; the others wake on their first
 * message, and their own wakeup call, coming later, changes nothing. */
static void late_wakeups(void **state)
{
    (void)state;
    const int max_n = quick() ? 12 : 32;
    double *lat = malloc(sizeof(double) * MAX_N * MAX_N);
    assert_non_null(lat);
    for (int n = 2; n <= max_n; n++) {
        make_graph(GRAPH_RANDOM, n, lat, 7);
        ghs_run run;
        start_run(&run, n, lat, 11u + (unsigned)n);
        ftc_ghs_wakeup(&run.nodes[n / 2], bcast_trees_sim_send, run.sim);
        for (int k = 0; k < 3 * n && deliver_one(&run); k++)
            ;
        for (int i = 0; i < n; i++)
            ftc_ghs_wakeup(&run.nodes[i], bcast_trees_sim_send, run.sim);
        deliver_all(&run);
        expect_minimum_tree(&run, lat);
        end_run(&run);
    }
    free(lat);
}

/* The thesis's test network (its Table 4.1): 6 sites of 4 ranks, in ms.
 * Inside a site the thesis measured "close to zero" and made every channel
 * unique with its ranks: INTRA_BY_RANK is that (0.01 ms everywhere, the
 * weights' rank tie-break orders them). INTRA_SPREAD spreads them over
 * 0.01..0.07 ms, which gives sites S2 and S4 two level-1 cores each and
 * puts two sites' outgoing edges off their cores: more Connects, and
 * Change-roots the thesis's run did not have. */
typedef enum { INTRA_BY_RANK, INTRA_SPREAD } intra_site;

static void make_table_4_1(double *lat, intra_site intra)
{
    static const double sites[6][6] = {
        {0.0, 485.4, 698.9, 14.9, 332.8, 61.4},
        {485.4, 0.0, 364.1, 583.8, 13.5, 490.5},
        {698.9, 364.1, 0.0, 701.2, 371.7, 722.9},
        {14.9, 583.8, 701.2, 0.0, 331.0, 35.1},
        {332.8, 13.5, 371.7, 331.0, 0.0, 355.9},
        {61.4, 490.5, 722.9, 35.1, 355.9, 0.0},
    };
    const int n = 24;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double inside = intra == INTRA_BY_RANK ? 0.01 : 0.01 * (1 + (i + j) % 7);
            const double ms = i == j ? 0.0 : i / 4 == j / 4 ? inside : sites[i / 4][j / 4];
            lat[i * n + j] = ms * 1e-3;
        }
}

typedef struct {
    long sum[FTC_MSG_KINDS], fewest[FTC_MSG_KINDS], most[FTC_MSG_KINDS];
    long sum_total, most_total;
    unsigned runs;
} count_summary;

static void print_counts(const char *label, const long *count, long total)
{
    printf("  %-8s", label);
    for (int k = FTC_MSG_CONNECT; k <= FTC_MSG_GOSLEEP; k++)
        printf(" %s %ld", ftc_msg_kind_name((ftc_msg_kind)k), count[k]);
    printf("; total %ld\n", total);
}

/* Builds the tree once per seed, checks it, prints and sums the counts. */
static count_summary count_table_4_1(intra_site intra, const char *title)
{
    const int n = 24;
    const unsigned seeds = quick() ? 2 : 20;
    double lat[24 * 24];
    count_summary s;
    memset(&s, 0, sizeof s);
    make_table_4_1(lat, intra);
    printf("GHS on the thesis's Table 4.1 network (24 ranks, %s):\n", title);
    for (unsigned seed = 1; seed <= seeds; seed++) {
        ghs_run run;
        long count[FTC_MSG_KINDS] = {0};
        char label[16];
        run_ghs(&run, n, lat, seed);
        expect_minimum_tree(&run, lat);
        for (int k = FTC_MSG_CONNECT; k <= FTC_MSG_GOSLEEP; k++) {
            count[k] = bcast_trees_sim_count(run.sim, k);
            s.sum[k] += count[k];
            s.fewest[k] = seed == 1 || count[k] < s.fewest[k] ? count[k] : s.fewest[k];
            s.most[k] = count[k] > s.most[k] ? count[k] : s.most[k];
        }
        const long total = bcast_trees_sim_total(run.sim);
        snprintf(label, sizeof label, "seed %u:", seed);
        print_counts(label, count, total);
        s.sum_total += total;
        s.most_total = total > s.most_total ? total : s.most_total;
        s.runs++;
        end_run(&run);
    }
    printf("  mean:   ");
    for (int k = FTC_MSG_CONNECT; k <= FTC_MSG_GOSLEEP; k++)
        printf(" %s %.1f", ftc_msg_kind_name((ftc_msg_kind)k), (double)s.sum[k] / s.runs);
    printf("; total %.1f, most %ld (thesis: %d)\n", (double)s.sum_total / s.runs, s.most_total,
           TABLE_4_1_MESSAGES);
    return s;
}

static void expect_exactly(const count_summary *s, int kind, long count)
{
    assert_int_equal(s->fewest[kind], count);
    assert_int_equal(s->most[kind], count);
}

/* With the thesis's own intra-site ordering every count that does not
 * depend on the interleaving is the thesis's (its Table 4.3), so a total
 * within 815 keeps Test + Reject, which does, within its 394 + 174. */
static void table_4_1(void **state)
{
    (void)state;
    const count_summary s = count_table_4_1(INTRA_BY_RANK, "intra-site 0.01 ms, rank order");
    expect_exactly(&s, FTC_MSG_CONNECT, 32);
    expect_exactly(&s, FTC_MSG_INITIATE, 72);
    expect_exactly(&s, FTC_MSG_ACCEPT, 48);
    expect_exactly(&s, FTC_MSG_REPORT, 72);
    expect_exactly(&s, FTC_MSG_CHANGE_ROOT, 0);
    expect_exactly(&s, FTC_MSG_GOSLEEP, 23);
    assert_true(s.most_total <= TABLE_4_1_MESSAGES);
}

/* Spread intra-site latencies cost 5 structural messages more (see
 * make_table_4_1): rare interleavings pass 815, the mean does not. */
static void table_4_1_spread_sites(void **state)
{
    (void)state;
    const count_summary s = count_table_4_1(INTRA_SPREAD, "intra-site 0.01 * (1 + (i + j) % 7) ms");
    expect_exactly(&s, FTC_MSG_CONNECT, 35);
    expect_exactly(&s, FTC_MSG_CHANGE_ROOT, 2);
    assert_true(s.sum_total <= (long)TABLE_4_1_MESSAGES * s.runs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_node),
        cmocka_unit_test(thesis_example),
        cmocka_unit_test(random_graphs),
        cmocka_unit_test(late_wakeups),
        cmocka_unit_test(table_4_1),
        cmocka_unit_test(table_4_1_spread_sites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
