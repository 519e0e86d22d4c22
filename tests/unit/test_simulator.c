/*
 * The simulator is the proof behind every schedule test, so it must reject
 * each kind of broken schedule: here, hand-made ones on 3 ranks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "simulate.h"

enum { P = 3 };

typedef struct { ftc_schedule plans[P]; } trio;

static void start(trio *t)
{
    for (int r = 0; r < P; r++) {
        ftc_schedule_init(&t->plans[r], r, P);
        ftc_schedule_step(&t->plans[r]);
    }
}

/* A correct one-step plan: everyone sends its block to both others. */
static void add_all_to_all(trio *t)
{
    for (int r = 0; r < P; r++)
        for (int peer = 0; peer < P; peer++)
            if (peer != r) {
                ftc_schedule_recv(&t->plans[r], peer, peer, 1);
                ftc_schedule_send(&t->plans[r], peer, r, 1);
            }
}

static void expect(trio *t, bool ok, const char *why_contains)
{
    simulation sim = simulate_schedules(t->plans, P);
    for (int r = 0; r < P; r++)
        ftc_schedule_destroy(&t->plans[r]);
    if (sim.ok != ok)
        fail_msg("expected %s, got %s: %s", ok ? "success" : "failure", sim.ok ? "success" : "failure",
                 sim.why);
    if (why_contains && !strstr(sim.why, why_contains))
        fail_msg("expected a reason containing \"%s\", got \"%s\"", why_contains, sim.why);
}

static void accepts_a_correct_plan(void **state)
{
    (void)state;
    trio t;
    start(&t);
    add_all_to_all(&t);
    expect(&t, true, NULL);
}

static void rejects_a_send_nobody_receives(void **state)
{
    (void)state;
    trio t;
    start(&t);
    add_all_to_all(&t);
    ftc_schedule_send(&t.plans[0], 1, 0, 1);
    expect(&t, false, "never receives");
}

static void rejects_a_receive_nobody_sends(void **state)
{
    (void)state;
    trio t;
    start(&t);
    add_all_to_all(&t);
    ftc_schedule_recv(&t.plans[2], 1, 1, 1);
    expect(&t, false, "deadlock");
}

static void rejects_sending_to_itself(void **state)
{
    (void)state;
    trio t;
    start(&t);
    add_all_to_all(&t);
    ftc_schedule_send(&t.plans[1], 1, 1, 1);
    expect(&t, false, "itself");
}

static void rejects_a_block_delivered_twice(void **state)
{
    (void)state;
    trio t;
    start(&t);
    add_all_to_all(&t);
    ftc_schedule_step(&t.plans[0]);
    ftc_schedule_step(&t.plans[1]);
    ftc_schedule_send(&t.plans[0], 1, 0, 1);
    ftc_schedule_recv(&t.plans[1], 0, 0, 1);
    expect(&t, false, "twice");
}

static void rejects_a_missing_block(void **state)
{
    (void)state;
    trio t;
    start(&t);
    ftc_schedule_exchange(&t.plans[0], 1, 0, 1, 1);
    ftc_schedule_exchange(&t.plans[1], 0, 1, 0, 1);
    expect(&t, false, "never receives block");
}

static void rejects_a_block_sent_before_it_is_held(void **state)
{
    (void)state;
    trio t;
    start(&t);
    ftc_schedule_send(&t.plans[0], 1, 2, 1);   /* rank 0 does not hold block 2 yet */
    ftc_schedule_recv(&t.plans[1], 0, 2, 1);
    expect(&t, false, "before holding");
}

static void rejects_a_block_put_in_the_wrong_slot(void **state)
{
    (void)state;
    trio t;
    start(&t);
    ftc_schedule_send(&t.plans[0], 1, 0, 1);
    ftc_schedule_recv(&t.plans[1], 0, 2, 1);   /* block 0 into the slot of block 2 */
    expect(&t, false, "which is for block");
}

static void rejects_mismatched_sizes(void **state)
{
    (void)state;
    trio t;
    start(&t);
    ftc_schedule_send(&t.plans[0], 1, 0, 1);
    ftc_schedule_recv(&t.plans[1], 0, 0, 2);
    expect(&t, false, "expects");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_a_correct_plan),
        cmocka_unit_test(rejects_a_send_nobody_receives),
        cmocka_unit_test(rejects_a_receive_nobody_sends),
        cmocka_unit_test(rejects_sending_to_itself),
        cmocka_unit_test(rejects_a_block_delivered_twice),
        cmocka_unit_test(rejects_a_missing_block),
        cmocka_unit_test(rejects_a_block_sent_before_it_is_held),
        cmocka_unit_test(rejects_a_block_put_in_the_wrong_slot),
        cmocka_unit_test(rejects_mismatched_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
