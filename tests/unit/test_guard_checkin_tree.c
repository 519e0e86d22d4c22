/*
 * The guarded collectives' check-in tree and timing (src/guard/checkin_tree.h), for
 * every p in 1..64 and a few large ones: a spanning tree rooted at 0 of
 * depth at most ceil(log2 p); windows such that nobody gives up on a rank that is
 * only late; and a replay of check-ins with random arrival times within
 * the latecomer window and one silent rank: only the silent rank's parent
 * times out, and no rank gives up on the decision before it comes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "guard/checkin_tree.h"

#define MAX_P 64
#define T 1.0   /* the latecomer window: times below are in units of it */

static void expect_spanning_tree(int p)
{
    int reached = 1;   /* rank 0 */
    for (int r = 0; r < p; r++) {
        ftc_guard_node node;
        ftc_guard_node_of(r, p, &node);
        assert_int_equal(node.rank, r);
        assert_true(node.depth <= ftc_guard_tree_height(p));
        assert_true((1L << node.depth) < 2L * p);   /* depth <= ceil(log2 p) */
        if (r == 0) {
            assert_int_equal(node.parent, -1);
            assert_int_equal(node.height, ftc_guard_tree_height(p));
        } else {
            ftc_guard_node parent;
            assert_true(node.parent >= 0 && node.parent < r);
            ftc_guard_node_of(node.parent, p, &parent);
            int listed = 0;
            for (int i = 0; i < parent.nchildren; i++)
                listed += parent.children[i] == r;
            assert_int_equal(listed, 1);
            assert_int_equal(node.depth, parent.depth + 1);
            assert_true(parent.height >= node.height + 1);
            reached++;
        }
        for (int i = 0; i < node.nchildren; i++)
            assert_true(node.children[i] > r && node.children[i] < p);
    }
    assert_int_equal(reached, p);
    int deepest = 0;
    for (int r = 0; r < p; r++) {
        ftc_guard_node node;
        ftc_guard_node_of(r, p, &node);
        deepest = node.depth > deepest ? node.depth : deepest;
    }
    assert_int_equal(deepest, ftc_guard_tree_height(p));
}

/* A parent outwaits any child that arrives up to T after it and waits its
 * own whole window; the decision outwaits a root that arrives T late. */
static void expect_windows_nest(int p)
{
    ftc_guard_node root;
    ftc_guard_node_of(0, p, &root);
    const double decision = ftc_guard_decision_window(p, T);
    assert_true(decision >= 1.2 * (T + ftc_guard_children_window(&root, T)) - 1e-9);
    for (int r = 1; r < p; r++) {
        ftc_guard_node node, parent;
        ftc_guard_node_of(r, p, &node);
        ftc_guard_node_of(node.parent, p, &parent);
        assert_true(ftc_guard_children_window(&parent, T)
                    >= T + ftc_guard_children_window(&node, T) - 1e-9);
    }
}

static void tree_and_windows(void **state)
{
    (void)state;
    const int large[] = { 100, 1000, 4096, 5000 };
    for (int p = 1; p <= MAX_P; p++) {
        expect_spanning_tree(p);
        expect_windows_nest(p);
    }
    for (size_t i = 0; i < sizeof(large) / sizeof(large[0]); i++)
        expect_windows_nest(large[i]);
}

/*
 * Check-in replay: rank r arrives at arrival[r] in [0, T] (the silent rank
 * never does). It reports when all its children have, or gives up on the
 * missing ones at the end of its window. Returns the number of ranks that
 * gave up on a child, and checks who.
 */
static double report_time(int r, int p, const double *arrival, int silent, int *gave_up,
                          int *blamed)
{
    ftc_guard_node node;
    ftc_guard_node_of(r, p, &node);
    const double deadline = arrival[r] + ftc_guard_children_window(&node, T);
    double done = arrival[r];
    for (int i = 0; i < node.nchildren; i++) {
        const int c = node.children[i];
        const double theirs = c == silent ? 1e300 : report_time(c, p, arrival, silent, gave_up,
                                                               blamed);
        if (theirs > deadline) {
            (*gave_up)++;
            *blamed = c;
            done = deadline;
        } else if (theirs > done) {
            done = theirs;
        }
    }
    return done;
}

static void silent_rank_is_named_by_its_parent(void **state)
{
    (void)state;
    srand(12345);
    for (int p = 2; p <= MAX_P; p++) {
        for (int silent = 1; silent < p; silent++) {
            double arrival[MAX_P];
            for (int r = 0; r < p; r++)
                arrival[r] = T * rand() / RAND_MAX;
            int gave_up = 0, blamed = -1;
            const double decided = report_time(0, p, arrival, silent, &gave_up, &blamed);
            assert_int_equal(gave_up, 1);
            assert_int_equal(blamed, silent);
            for (int r = 0; r < p; r++)   /* nobody stops waiting for the decision first */
                if (r != silent)
                    assert_true(decided <= arrival[r] + ftc_guard_decision_window(p, T));
        }
        double arrival[MAX_P];
        for (int r = 0; r < p; r++)
            arrival[r] = T * rand() / RAND_MAX;
        int gave_up = 0, blamed = -1;
        report_time(0, p, arrival, -1, &gave_up, &blamed);
        assert_int_equal(gave_up, 0);   /* everyone within T: no false alarm */
    }
}

static void deadline_rule(void **state)
{
    (void)state;
    assert_true(ftc_guard_window_from_deadline(100.0) == 20.0);
    assert_true(ftc_guard_window_from_deadline(0.0) == 0.0);
    assert_true(ftc_guard_window_from_deadline(-5.0) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_and_windows),
        cmocka_unit_test(silent_rank_is_named_by_its_parent),
        cmocka_unit_test(deadline_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
