/*
 * The distributed adaptation of the MST (src/bcast/trees/adapt.h), without MPI:
 * for every n in 1..64, random complete graphs whose MST (Kruskal) is
 * adapted through rounds of random changes (tree channels slower, channels
 * off the tree faster, and the changes that need nothing), with messages
 * delivered in random order over FIFO channels (bcast_trees_sim). After every
 * round, on every node: the round is over, nothing is in flight, the tree
 * edges are symmetric, the parents lead to the root without a cycle, and
 * the tree is the MST of the new latencies (Kruskal and Prim agree). A round
 * without changes sends nothing.
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
#include "bcast/trees/adapt.h"
#include "bcast_trees_sim.h"

#define MAX_N 64

static int quick(void)
{
    const char *q = getenv("FTCOLL_UNIT_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int below(uint64_t *s, int bound)
{
    return (int)(rng_next(s) % (uint64_t)bound);
}

static double random_latency(uint64_t *s)
{
    return 1e-3 * (double)(1 + below(s, 1000));   /* 1..1000 ms: some ties, broken by rank */
}

typedef struct {
    int n;
    double lat[MAX_N * MAX_N];
    unsigned char adjacency[MAX_N * MAX_N];
    ftc_adapt_node nodes[MAX_N];
} network;

/* Parents towards `root` in the tree `adjacency`, by a walk from it. */
static void parents_from(int n, const unsigned char *adjacency, int root, int *parent)
{
    int queue[MAX_N], head = 0, tail = 0;
    for (int i = 0; i < n; i++)
        parent[i] = -2;
    parent[root] = -1;
    queue[tail++] = root;
    while (head < tail) {
        const int u = queue[head++];
        for (int v = 0; v < n; v++) {
            if (adjacency[u * n + v] && parent[v] == -2) {
                parent[v] = u;
                queue[tail++] = v;
            }
        }
    }
}

static void start_network(network *net, int n, uint64_t *s)
{
    net->n = n;
    for (int i = 0; i < n; i++) {
        net->lat[i * n + i] = 0;
        for (int j = i + 1; j < n; j++)
            net->lat[i * n + j] = net->lat[j * n + i] = random_latency(s);
    }
    mst_kruskal(n, net->lat, net->adjacency);
    int parent[MAX_N];
    const int root = below(s, n);
    parents_from(n, net->adjacency, root, parent);
    for (int i = 0; i < n; i++)
        assert_int_equal(ftc_adapt_init(&net->nodes[i], i, n, root, parent[i],
                                        net->adjacency + i * n, net->lat + i * n), 0);
}

static void stop_network(network *net)
{
    for (int i = 0; i < net->n; i++)
        ftc_adapt_free(&net->nodes[i]);
}

/* Random changes, each channel once, sorted: half of them on tree channels. */
static int random_changes(network *net, uint64_t *s, ftc_adapt_change *changes)
{
    const int n = net->n;
    if (n < 2)
        return 0;
    unsigned char picked[MAX_N * MAX_N] = {0};
    const int wanted = 1 + below(s, n < 6 ? 2 : 6);
    for (int k = 0; k < wanted; k++) {
        const int a = below(s, n), b = below(s, n);
        if (a == b)
            continue;
        picked[(a < b ? a : b) * n + (a < b ? b : a)] = 1;
    }
    int count = 0;
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            if (!picked[a * n + b])
                continue;
            const double old = net->lat[a * n + b];
            double now = random_latency(s);
            if (below(s, 3) == 0)   /* make it matter: slower tree channel, faster other */
                now = net->adjacency[a * n + b] ? old * 20 : old / 50;
            changes[count++] = (ftc_adapt_change){a, b, now};
        }
    }
    return count;
}

static void run_round(network *net, bcast_trees_sim *sim, int nchanges,
                      const ftc_adapt_change *changes)
{
    for (int i = 0; i < net->n; i++)
        assert_int_equal(ftc_adapt_begin(&net->nodes[i], nchanges, changes, bcast_trees_sim_send,
                                         sim), 0);
    ftc_msg msg;
    while (bcast_trees_sim_next(sim, &msg)) {
        assert_false(ftc_adapt_finished(&net->nodes[msg.to]));
        ftc_adapt_receive(&net->nodes[msg.to], &msg, bcast_trees_sim_send, sim);
    }
    for (int k = 0; k < nchanges; k++) {
        const int a = changes[k].a, b = changes[k].b;
        net->lat[a * net->n + b] = net->lat[b * net->n + a] = changes[k].latency;
    }
}

static void expect_tree_is_mst(const network *net)
{
    const int n = net->n;
    unsigned char kruskal[MAX_N * MAX_N], prim[MAX_N * MAX_N];
    mst_kruskal(n, net->lat, kruskal);
    mst_prim(n, net->lat, prim);
    assert_memory_equal(kruskal, prim, (size_t)n * n);
    const int root = net->nodes[0].root;
    for (int i = 0; i < n; i++) {
        const ftc_adapt_node *node = &net->nodes[i];
        assert_true(ftc_adapt_finished(node));
        assert_int_equal(node->root, root);
        for (int j = 0; j < n; j++) {
            assert_int_equal(node->tree[j], net->nodes[j].tree[i]);   /* symmetric */
            assert_int_equal(node->tree[j], kruskal[i * n + j]);
            if (j != i)
                assert_true(node->latency[j] == net->lat[i * n + j]);
        }
        /* the parents climb to the root in at most n steps */
        int at = i, steps = 0;
        while (net->nodes[at].parent >= 0 && steps <= n) {
            assert_true(net->nodes[at].tree[net->nodes[at].parent]);
            at = net->nodes[at].parent;
            steps++;
        }
        assert_int_equal(at, root);
    }
}

static long reconnections, swaps;   /* over all runs: both kinds of repair happened */

static void adapt_random(int n, unsigned seed, int rounds)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)seed << 32) ^ (uint64_t)n;
    static network net;
    start_network(&net, n, &s);
    bcast_trees_sim *sim = bcast_trees_sim_new(n, seed);
    ftc_adapt_change changes[MAX_N * MAX_N / 2];
    for (int round = 0; round < rounds; round++) {
        const int nchanges = random_changes(&net, &s, changes);
        run_round(&net, sim, nchanges, changes);
        assert_int_equal(bcast_trees_sim_in_flight(sim), 0);
        expect_tree_is_mst(&net);
    }
    reconnections += bcast_trees_sim_count(sim, FTC_MSG_MOE_CONNECT);
    swaps += bcast_trees_sim_count(sim, FTC_MSG_REPLACE_CONNECT);
    bcast_trees_sim_free(sim);
    stop_network(&net);
}

static void random_rounds(void **state)
{
    (void)state;
    const int max_n = quick() ? 24 : MAX_N, seeds = quick() ? 1 : 4;
    for (int n = 1; n <= max_n; n++)
        for (int seed = 1; seed <= seeds; seed++)
            adapt_random(n, (unsigned)seed, quick() ? 3 : 6);
    printf("cut tree channels reconnected: %ld; faster channels swapped in: %ld\n",
           reconnections, swaps);
    assert_true(reconnections > 10 && swaps > 10);
}

/* No change, no message: the end of the round is known to every rank. */
static void quiet_round_sends_nothing(void **state)
{
    (void)state;
    uint64_t s = 42;
    static network net;
    start_network(&net, 24, &s);
    bcast_trees_sim *sim = bcast_trees_sim_new(24, 7);
    run_round(&net, sim, 0, NULL);
    assert_int_equal(bcast_trees_sim_total(sim), 0);
    expect_tree_is_mst(&net);
    bcast_trees_sim_free(sim);
    stop_network(&net);
}

/* One slower tree channel: it is cut and the lightest channel across the
 * cut joins; one faster channel off the tree: it swaps in. */
static void single_changes(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 20; seed++) {
        uint64_t s = seed * 7919u;
        static network net;
        start_network(&net, 16, &s);
        bcast_trees_sim *sim = bcast_trees_sim_new(16, seed);
        int a = 0, b = 0;
        for (a = 0; a < 16; a++) {   /* a tree channel */
            for (b = a + 1; b < 16 && !net.adjacency[a * 16 + b]; b++)
                ;
            if (b < 16)
                break;
        }
        ftc_adapt_change failure = {a, b, 10.0};
        run_round(&net, sim, 1, &failure);
        expect_tree_is_mst(&net);
        for (a = 0; a < 16; a++) {   /* a channel off the tree */
            for (b = a + 1; b < 16 && net.nodes[a].tree[b]; b++)
                ;
            if (b < 16)
                break;
        }
        ftc_adapt_change recovery = {a, b, 1e-6};
        run_round(&net, sim, 1, &recovery);
        expect_tree_is_mst(&net);
        assert_true(net.nodes[a].tree[b]);
        bcast_trees_sim_free(sim);
        stop_network(&net);
    }
}

static void unsorted_changes_refused(void **state)
{
    (void)state;
    uint64_t s = 3;
    static network net;
    start_network(&net, 5, &s);
    const ftc_adapt_change unsorted[2] = {{1, 2, 1.0}, {0, 3, 1.0}};
    const ftc_adapt_change reversed[1] = {{3, 1, 1.0}};
    assert_int_equal(ftc_adapt_begin(&net.nodes[0], 2, unsorted, bcast_trees_sim_send, NULL), -1);
    assert_int_equal(ftc_adapt_begin(&net.nodes[0], 1, reversed, bcast_trees_sim_send, NULL), -1);
    stop_network(&net);
}

static void detect_changes_by_threshold(void **state)
{
    (void)state;
    double current[9] = {0, 1.0, 2.0, 1.0, 0, 3.0, 2.0, 3.0, 0};
    const double measured[9] = {0, 1.05, 4.0, 1.05, 0, 1.0, 4.0, 1.0, 0};
    ftc_adapt_change changes[3];
    /* 10%: (0,1) moved 5%, stays; (0,2) and (1,2) changed */
    assert_int_equal(ftc_adapt_detect_changes(3, current, measured, 0.10, 0.0, changes), 2);
    assert_int_equal(changes[0].a, 0);
    assert_int_equal(changes[0].b, 2);
    assert_true(changes[0].latency == 4.0);
    assert_int_equal(changes[1].a, 1);
    assert_int_equal(changes[1].b, 2);
    assert_true(current[2] == 4.0 && current[6] == 4.0 && current[1] == 1.0);
    /* 0%: the 5% move counts too, unless below the floor */
    assert_int_equal(ftc_adapt_detect_changes(3, current, measured, 0.0, 0.0, changes), 1);
    current[1] = current[3] = 1.0;
    assert_int_equal(ftc_adapt_detect_changes(3, current, measured, 0.0, 0.1, changes), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_rounds),
        cmocka_unit_test(quiet_round_sends_nothing),
        cmocka_unit_test(single_changes),
        cmocka_unit_test(unsorted_changes_refused),
        cmocka_unit_test(detect_changes_by_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
