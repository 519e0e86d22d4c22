/*
 * The fault-tolerant broadcast's plan (bcast/dissemination.h), replayed
 * step by step for every n in 1..64 and every root: every send meets a
 * receive of the same kind (data or token) on its peer in the same step;
 * data only leaves a holder for a participant that lacks it; every
 * participant ends with the data, received exactly once, at the step
 * ftc_dissemination_data_step names; n - 1 data messages in ceil(log2 n)
 * steps; and every participant has heard, through its chain of receives,
 * from every participant (nobody completes before all entered).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bcast/dissemination.h"

#define MAX_N 64

typedef struct {
    bool holds[MAX_N];
    int received[MAX_N];          /* data messages received */
    uint64_t heard[MAX_N];        /* participants heard from, through receives */
    int data_messages;
} replay;

static int ceil_log2(int n)
{
    int steps = 0;
    while ((1 << steps) < n)
        steps++;
    return steps;
}

static void check_pairs(int n, int root, int step)
{
    for (int i = 0; i < n; i++) {
        const ftc_dissemination_step mine = ftc_dissemination_step_of(i, root, n, step);
        const ftc_dissemination_step peer = ftc_dissemination_step_of(mine.send_to, root, n, step);
        assert_int_equal(peer.receive_from, i);
        assert_int_equal(peer.receives_data, mine.sends_data);
        assert_int_not_equal(mine.send_to, i);
    }
}

static void run_step(replay *r, int n, int root, int step)
{
    bool holds_before[MAX_N];
    uint64_t heard_before[MAX_N];
    for (int i = 0; i < n; i++) {
        holds_before[i] = r->holds[i];
        heard_before[i] = r->heard[i];
    }
    for (int i = 0; i < n; i++) {
        const ftc_dissemination_step s = ftc_dissemination_step_of(i, root, n, step);
        if (s.sends_data) {
            assert_true(holds_before[i]);
            assert_false(holds_before[s.send_to]);
            r->data_messages++;
        }
        if (s.receives_data) {
            assert_int_equal(ftc_dissemination_data_step(i, root, n), step);
            r->holds[i] = true;
            r->received[i]++;
        }
        r->heard[i] |= heard_before[s.receive_from];
    }
}

static void replay_broadcast(int n, int root)
{
    replay r = { .data_messages = 0 };
    for (int i = 0; i < n; i++) {
        r.holds[i] = i == root;
        r.received[i] = 0;
        r.heard[i] = 1ULL << i;
    }
    const int steps = ftc_dissemination_steps(n);
    assert_int_equal(steps, ceil_log2(n));
    for (int step = 0; step < steps; step++) {
        check_pairs(n, root, step);
        run_step(&r, n, root, step);
    }
    const uint64_t everyone = n == 64 ? ~0ULL : (1ULL << n) - 1;
    for (int i = 0; i < n; i++) {
        assert_true(r.holds[i]);
        assert_int_equal(r.received[i], i == root ? 0 : 1);
        assert_int_equal(r.heard[i], everyone);
    }
    assert_int_equal(ftc_dissemination_data_step(root, root, n), -1);
    assert_int_equal(r.data_messages, n - 1);
}

static void every_n_every_root(void **state)
{
    (void)state;
    for (int n = 1; n <= MAX_N; n++)
        for (int root = 0; root < n; root++)
            replay_broadcast(n, root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_n_every_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
