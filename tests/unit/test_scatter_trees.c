/*
 * The scatter trees (linear, binomial) for every process count 1..64,
 * without MPI: a simulated flow down each (the root sends every child its
 * run, a rank whose run arrived keeps its own block and sends each child
 * its part) brings every block to its owner exactly once, each message a
 * run inside its sender's, in at most ceil(log2 n) hops over the binomial
 * tree (that the children's runs tile the rest of a rank's run in order,
 * which lets a rank send each from its room at (first - v) blocks, is
 * test_gather_trees.c's, over the same trees). Then the decision table
 * against Open MPI's rules, and the names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "scatter/algorithms.h"

enum { MAX_P = 64 };

static const ftc_scatter_algorithm algorithms[] = { FTC_SCATTER_LINEAR, FTC_SCATTER_BINOMIAL };
enum { ALGORITHMS = sizeof(algorithms) / sizeof(algorithms[0]) };

typedef struct {
    int first, last;
} run;

/* Rounds of the flow: a rank sends in the round after its run arrived. */
static void flow_down(const ftc_vrank_tree *t, int n, int *owned, int *hops)
{
    run holding[MAX_P];
    bool arrived[MAX_P] = { false }, sent[MAX_P] = { false };
    holding[0] = (run){ 0, n };
    arrived[0] = true;
    hops[0] = 0;
    for (int round = 0; round < n; round++) {
        bool now[MAX_P] = { false };
        for (int v = 0; v < n; v++) {
            if (!arrived[v] || sent[v])
                continue;
            sent[v] = true;
            owned[v]++;
            for (int i = 0; i < t->children(v, n); i++) {
                const int c = t->child(v, n, i);
                const run part = { c, t->subtree_end(c, n) };
                /* a run inside the sender's, past its own block */
                assert_true(holding[v].first < part.first && part.last <= holding[v].last);
                assert_int_equal(t->parent(c, n), v);
                assert_false(arrived[c]);
                holding[c] = part;
                now[c] = true;
                hops[c] = hops[v] + 1;
            }
        }
        for (int v = 0; v < n; v++)
            arrived[v] = arrived[v] || now[v];
    }
}

static void test_flow_brings_every_block_once(void **state)
{
    (void)state;
    for (int a = 0; a < ALGORITHMS; a++) {
        const ftc_vrank_tree *t = ftc_scatter_tree_of(algorithms[a]);
        for (int n = 1; n <= MAX_P; n++) {
            int owned[MAX_P] = { 0 }, hops[MAX_P] = { 0 };
            flow_down(t, n, owned, hops);
            int depth = 0;
            while ((1 << depth) < n)
                depth++;
            for (int v = 0; v < n; v++) {
                assert_int_equal(owned[v], 1);
                if (algorithms[a] == FTC_SCATTER_BINOMIAL)
                    assert_true(hops[v] <= depth);
                else
                    assert_true(hops[v] <= 1);
            }
        }
    }
}

/* Open MPI 5 coll_tuned scatter_intra_dec_fixed, in its own shape: 1
 * basic_linear, 2 binomial, 3 linear_nb (linear here). Its total_dsize is
 * one block. */
static int open_mpi_rule(int communicator_size, size_t total_dsize)
{
    int alg;
    if (communicator_size < 4) {
        alg = total_dsize < 2 ? 3 : total_dsize < 131072 ? 1 : total_dsize < 262144 ? 3 : 1;
    } else if (communicator_size < 8) {
        alg = total_dsize < 2048 ? 2 : total_dsize < 4096 ? 1 : total_dsize < 8192 ? 2
            : total_dsize < 32768 ? 1 : total_dsize < 1048576 ? 3 : 1;
    } else if (communicator_size < 16) {
        alg = total_dsize < 16384 ? 2 : total_dsize < 1048576 ? 3 : 1;
    } else if (communicator_size < 32) {
        alg = total_dsize < 16384 ? 2 : total_dsize < 32768 ? 1 : 3;
    } else if (communicator_size < 64) {
        alg = total_dsize < 512 ? 2 : total_dsize < 8192 ? 3 : total_dsize < 16384 ? 2 : 3;
    } else {
        alg = total_dsize < 512 ? 2 : 3;
    }
    return alg == 3 ? 1 : alg;
}

static void test_decision_table_is_open_mpis(void **state)
{
    (void)state;
    static const size_t thresholds[] = { 2, 512, 2048, 4096, 8192, 16384, 32768, 131072,
                                         262144, 1048576 };
    for (int p = 1; p <= 1100; p += p < 80 ? 1 : 7) {
        for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++)
            for (int d = -1; d <= 1; d++) {
                const size_t bytes = thresholds[i] + (size_t)d;
                assert_int_equal((int)ftc_scatter_decide(p, bytes), open_mpi_rule(p, bytes));
            }
        assert_int_equal((int)ftc_scatter_decide(p, 0), open_mpi_rule(p, 0));
        assert_int_equal((int)ftc_scatter_decide(p, SIZE_MAX), open_mpi_rule(p, SIZE_MAX));
    }
}

static void test_names(void **state)
{
    (void)state;
    ftc_scatter_algorithm a = FTC_SCATTER_AUTO;
    assert_true(ftc_scatter_parse_name("basic_linear", &a));
    assert_int_equal(a, FTC_SCATTER_LINEAR);
    assert_true(ftc_scatter_parse_name("linear_nb", &a));
    assert_int_equal(a, FTC_SCATTER_LINEAR);
    assert_true(ftc_scatter_parse_name("3", &a));
    assert_int_equal(a, FTC_SCATTER_LINEAR);
    assert_true(ftc_scatter_parse_name("2", &a));
    assert_int_equal(a, FTC_SCATTER_BINOMIAL);
    assert_true(ftc_scatter_parse_name("auto", &a));
    assert_int_equal(a, FTC_SCATTER_AUTO);
    assert_false(ftc_scatter_parse_name("ring", &a));
    assert_false(ftc_scatter_parse_name("4", &a));
    assert_false(ftc_scatter_parse_name(NULL, &a));
    for (int i = 0; i < FTC_SCATTER_ALGORITHM_COUNT; i++) {
        ftc_scatter_algorithm back = FTC_SCATTER_AUTO;
        assert_true(ftc_scatter_parse_name(ftc_scatter_algorithm_name((ftc_scatter_algorithm)i),
                                           &back));
        assert_int_equal((int)back, i);
    }
    assert_null(ftc_scatter_algorithm_name((ftc_scatter_algorithm)FTC_SCATTER_ALGORITHM_COUNT));
    char list[256];
    ftc_scatter_list_names(list, sizeof(list));
    assert_string_equal(list, "auto (0), basic_linear (1), binomial (2)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flow_brings_every_block_once),
        cmocka_unit_test(test_decision_table_is_open_mpis),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
