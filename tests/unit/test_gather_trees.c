/*
 * The gather trees (linear, binomial, linear_sync) for every process count
 * 1..64, without MPI: each is a tree rooted at vrank 0 whose subtrees are
 * runs [v, end) laid out as the flow needs them (v's own block, then each
 * child's run in the order v waits for them); a simulated flow brings
 * every block to the root exactly once; the holdings a failure can leave
 * (a rank inside the call: its own block and a prefix of its children's
 * subtrees, all of them once they arrived; a rank that returned: its own
 * block, which it keeps) are pairwise nested or disjoint, which the
 * engine's recovery needs. Then
 * the decision table against Open MPI's rules, and the names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gather/algorithms.h"

enum { MAX_P = 64 };

static const ftc_gather_algorithm algorithms[] = {
    FTC_GATHER_LINEAR, FTC_GATHER_BINOMIAL, FTC_GATHER_LINEAR_SYNC,
};
enum { ALGORITHMS = sizeof(algorithms) / sizeof(algorithms[0]) };

/* v's own block first, then each child's run end to end, filling [v, end). */
static void check_layout(const ftc_gather_tree *t, int n, int v)
{
    int next = v + 1;
    for (int i = 0; i < t->shape->children(v, n); i++) {
        const int c = t->shape->child(v, n, i);
        assert_int_equal(c, next);
        assert_int_equal(t->shape->parent(c, n), v);
        next = t->shape->subtree_end(c, n);
        assert_true(next > c);
    }
    assert_int_equal(next, t->shape->subtree_end(v, n));
}

static void test_trees_are_laid_out_runs(void **state)
{
    (void)state;
    for (int a = 0; a < ALGORITHMS; a++) {
        const ftc_gather_tree *t = ftc_gather_tree_of(algorithms[a]);
        for (int n = 1; n <= MAX_P; n++) {
            assert_int_equal(t->shape->parent(0, n), -1);
            assert_int_equal(t->shape->subtree_end(0, n), n);
            for (int v = 0; v < n; v++)
                check_layout(t, n, v);
            for (int v = 1; v < n; v++) {   /* every vrank reaches the root */
                int hops = 0;
                for (int u = v; u != 0; u = t->shape->parent(u, n), hops++)
                    assert_true(t->shape->parent(u, n) < u && hops < n);
                if (algorithms[a] == FTC_GATHER_BINOMIAL)
                    assert_true(hops <= 6);   /* ceil(log2 64) */
            }
        }
    }
}

/* The flow in rounds: a rank sends its run once every child's arrived;
 * each block must reach the root exactly once. */
static void test_flow_brings_every_block_once(void **state)
{
    (void)state;
    for (int a = 0; a < ALGORITHMS; a++) {
        const ftc_gather_tree *t = ftc_gather_tree_of(algorithms[a]);
        for (int n = 1; n <= MAX_P; n++) {
            int arrived[MAX_P] = { 0 }, delivered[MAX_P] = { 0 };
            bool sent[MAX_P] = { false };
            for (int round = 0; round < n; round++)
                for (int v = n - 1; v >= 1; v--)
                    if (!sent[v] && arrived[v] == t->shape->children(v, n)) {
                        sent[v] = true;
                        const int parent = t->shape->parent(v, n);
                        arrived[parent]++;
                        if (parent == 0)
                            for (int u = v; u < t->shape->subtree_end(v, n); u++)
                                delivered[u]++;
                    }
            assert_int_equal(arrived[0], t->shape->children(0, n));
            for (int u = 1; u < n; u++)
                assert_int_equal(delivered[u], 1);
        }
    }
}

typedef struct {
    int first, last;   /* the held run [first, last) */
} run;

/* v's holdings after k of its children arrived: [v, end of child k-1)
 * (k = 0: its own block, also what it keeps once it returned). */
static run held_after(const ftc_gather_tree *t, int n, int v, int k)
{
    return (run){ v, k == 0 ? v + 1 : t->shape->subtree_end(t->shape->child(v, n, k - 1), n) };
}

static bool nested_or_disjoint(run a, run b)
{
    const bool disjoint = a.last <= b.first || b.last <= a.first;
    const bool a_in_b = b.first <= a.first && a.last <= b.last;
    const bool b_in_a = a.first <= b.first && b.last <= a.last;
    return disjoint || a_in_b || b_in_a;
}

static void test_holdings_are_laminar(void **state)
{
    (void)state;
    for (int a = 0; a < ALGORITHMS; a++) {
        const ftc_gather_tree *t = ftc_gather_tree_of(algorithms[a]);
        for (int n = 1; n <= 40; n++)
            for (int v = 0; v < n; v++)
                for (int k = 0; k <= t->shape->children(v, n); k++)
                    for (int u = 0; u < n; u++)
                        for (int j = 0; j <= t->shape->children(u, n); j++)
                            assert_true(nested_or_disjoint(held_after(t, n, v, k),
                                                           held_after(t, n, u, j)));
    }
}

/* Open MPI 5 coll_tuned gather_intra_dec_fixed, in its own shape. Its
 * total_dsize is one rank's block. */
static int open_mpi_rule(int communicator_size, size_t total_dsize)
{
    if (communicator_size < 4) {
        if (total_dsize < 2) return 3;
        if (total_dsize < 4) return 1;
        if (total_dsize < 32768) return 2;
        if (total_dsize < 65536) return 1;
        if (total_dsize < 131072) return 2;
        return 3;
    }
    if (communicator_size < 8) {
        if (total_dsize < 1024) return 2;
        if (total_dsize < 8192) return 1;
        if (total_dsize < 32768) return 2;
        if (total_dsize < 262144) return 1;
        return 3;
    }
    if (communicator_size < 256)
        return 2;
    if (communicator_size < 512) {
        if (total_dsize < 2048) return 2;
        if (total_dsize < 8192) return 1;
        return 2;
    }
    return 2;
}

static void test_decision_table_is_open_mpis(void **state)
{
    (void)state;
    static const size_t thresholds[] = { 2, 4, 1024, 2048, 8192, 32768, 65536, 131072, 262144 };
    for (int p = 1; p <= 1100; p += p < 20 ? 1 : 7) {
        for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++)
            for (int d = -1; d <= 1; d++) {
                const size_t bytes = thresholds[i] + (size_t)d;
                assert_int_equal((int)ftc_gather_decide(p, bytes), open_mpi_rule(p, bytes));
            }
        assert_int_equal((int)ftc_gather_decide(p, 0), open_mpi_rule(p, 0));
        assert_int_equal((int)ftc_gather_decide(p, SIZE_MAX), open_mpi_rule(p, SIZE_MAX));
    }
}

static void test_names(void **state)
{
    (void)state;
    ftc_gather_algorithm a = FTC_GATHER_AUTO;
    assert_true(ftc_gather_parse_name("basic_linear", &a));
    assert_int_equal(a, FTC_GATHER_LINEAR);
    assert_true(ftc_gather_parse_name("linear", &a));
    assert_int_equal(a, FTC_GATHER_LINEAR);
    assert_true(ftc_gather_parse_name("2", &a));
    assert_int_equal(a, FTC_GATHER_BINOMIAL);
    assert_true(ftc_gather_parse_name("linear_sync", &a));
    assert_int_equal(a, FTC_GATHER_LINEAR_SYNC);
    assert_true(ftc_gather_parse_name("auto", &a));
    assert_int_equal(a, FTC_GATHER_AUTO);
    assert_false(ftc_gather_parse_name("ring", &a));
    assert_false(ftc_gather_parse_name("4", &a));
    assert_false(ftc_gather_parse_name(NULL, &a));
    for (int i = 0; i < FTC_GATHER_ALGORITHM_COUNT; i++) {
        ftc_gather_algorithm back = FTC_GATHER_AUTO;
        assert_true(ftc_gather_parse_name(ftc_gather_algorithm_name((ftc_gather_algorithm)i),
                                          &back));
        assert_int_equal((int)back, i);
    }
    assert_null(ftc_gather_algorithm_name((ftc_gather_algorithm)FTC_GATHER_ALGORITHM_COUNT));
    char list[256];
    ftc_gather_list_names(list, sizeof(list));
    assert_string_equal(list, "auto (0), basic_linear (1), binomial (2), linear_sync (3)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees_are_laid_out_runs),
        cmocka_unit_test(test_flow_brings_every_block_once),
        cmocka_unit_test(test_holdings_are_laminar),
        cmocka_unit_test(test_decision_table_is_open_mpis),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
