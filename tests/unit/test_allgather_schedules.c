/*
 * Every allgather algorithm, every process count 1..64, simulated without
 * MPI: each rank ends with every block exactly once and in rank order, no
 * rank sends to itself, every send meets its receive in the same step (so
 * nothing waits forever), and the step and traffic counts are those of the
 * algorithm's cost line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "allgather/algorithms.h"
#include "simulate.h"

#define MAX_P 64

static int ceil_log2(int p) { return ftc_ceil_log2(p); }

/* The steps each algorithm must take on p ranks (its alpha term). */
static int expected_steps(ftc_allgather_algorithm alg, int p)
{
    if (p == 1)
        return 0;
    switch (alg) {
    case FTC_ALLGATHER_LINEAR: return ceil_log2(p) + 1;
    case FTC_ALLGATHER_BRUCK:
    case FTC_ALLGATHER_RECURSIVE_DOUBLING:
    case FTC_ALLGATHER_SPARBIT: return ceil_log2(p);
    case FTC_ALLGATHER_RING: return p - 1;
    case FTC_ALLGATHER_NEIGHBOR_EXCHANGE: return p / 2;
    case FTC_ALLGATHER_TWO_PROC: return 1;
    default: return -1;
    }
}

/* Blocks sent by all ranks together (the beta term times p). */
static long expected_blocks(ftc_allgather_algorithm alg, int p)
{
    if (alg == FTC_ALLGATHER_LINEAR) {
        /* Binomial gather: rank r sends its subtree [r, r + lowbit(r)) once;
         * then rank 0 sends all p blocks to each of the p - 1 others. */
        long gathered = 0;
        for (int r = 1; r < p; r++) {
            const int subtree = r & -r;
            gathered += subtree < p - r ? subtree : p - r;
        }
        return gathered + (long)(p - 1) * p;
    }
    return (long)p * (p - 1);          /* everyone receives each other block once */
}

static void check_algorithm(ftc_allgather_algorithm alg)
{
    const ftc_allgather_info *info = ftc_allgather_info_of(alg);
    int served = 0;
    for (int p = 1; p <= MAX_P; p++) {
        if (!info->serves(p))
            continue;
        served++;
        simulation sim = simulate_allgather(alg, p);
        if (!sim.ok)
            fail_msg("%s on p=%d: %s", info->name, p, sim.why);
        if (sim.rewrites_held_blocks != (alg == FTC_ALLGATHER_LINEAR))
            fail_msg("%s on p=%d: only linear may rewrite blocks a rank holds", info->name, p);
        if (sim.steps != expected_steps(alg, p))
            fail_msg("%s on p=%d: %d steps, expected %d", info->name, p, sim.steps,
                     expected_steps(alg, p));
        if (sim.blocks_moved != expected_blocks(alg, p))
            fail_msg("%s on p=%d: %ld blocks sent, expected %ld", info->name, p,
                     sim.blocks_moved, expected_blocks(alg, p));
    }
    assert_true(served > 0);
}

static void linear(void **state) { (void)state; check_algorithm(FTC_ALLGATHER_LINEAR); }
static void bruck(void **state) { (void)state; check_algorithm(FTC_ALLGATHER_BRUCK); }
static void recursive_doubling(void **state)
{
    (void)state;
    check_algorithm(FTC_ALLGATHER_RECURSIVE_DOUBLING);
}
static void ring(void **state) { (void)state; check_algorithm(FTC_ALLGATHER_RING); }
static void neighbor_exchange(void **state)
{
    (void)state;
    check_algorithm(FTC_ALLGATHER_NEIGHBOR_EXCHANGE);
}
static void two_proc(void **state) { (void)state; check_algorithm(FTC_ALLGATHER_TWO_PROC); }
static void sparbit(void **state) { (void)state; check_algorithm(FTC_ALLGATHER_SPARBIT); }

/* Which p each algorithm serves, and that every other p falls back to one that does. */
static void served_process_counts(void **state)
{
    (void)state;
    for (int p = 1; p <= MAX_P; p++) {
        assert_true(ftc_allgather_info_of(FTC_ALLGATHER_RECURSIVE_DOUBLING)->serves(p)
                    == ftc_is_power_of_two(p));
        assert_true(ftc_allgather_info_of(FTC_ALLGATHER_NEIGHBOR_EXCHANGE)->serves(p)
                    == (p == 1 || p % 2 == 0));
        assert_true(ftc_allgather_info_of(FTC_ALLGATHER_TWO_PROC)->serves(p) == (p == 2));
        for (int alg = FTC_ALLGATHER_LINEAR; alg < FTC_ALLGATHER_ALGORITHM_COUNT; alg++) {
            ftc_allgather_algorithm used = ftc_allgather_resolve(alg, p, 4096, NULL, 0);
            assert_true(ftc_allgather_info_of(used)->serves(p));
            simulation sim = simulate_allgather(used, p);
            if (!sim.ok)
                fail_msg("%d resolved to %d on p=%d: %s", alg, used, p, sim.why);
        }
    }
}

/* Whether rank r's plan sends its own block only on its own (so the engine
 * may send it from the send buffer and place it after the run). */
static bool own_block_sent_alone(ftc_allgather_algorithm alg, int r, int p)
{
    ftc_schedule plan;
    ftc_schedule_init(&plan, r, p);
    assert_true(ftc_allgather_build_plan(alg, &plan));
    const bool alone = ftc_schedule_sends_own_block_alone(&plan);
    ftc_schedule_destroy(&plan);
    return alone;
}

/* Two-proc and ring send the own block once, alone; Bruck (beyond 3 ranks),
 * recursive doubling and neighbor exchange (beyond 2) forward it with others. */
static void own_block_alone(void **state)
{
    (void)state;
    for (int p = 2; p <= MAX_P; p++) {
        for (int r = 0; r < p; r++) {
            assert_true(own_block_sent_alone(FTC_ALLGATHER_RING, r, p));
            if (p == 2)
                assert_true(own_block_sent_alone(FTC_ALLGATHER_TWO_PROC, r, p));
            if (p >= 4)   /* at 3, its second step sends the own block alone again */
                assert_false(own_block_sent_alone(FTC_ALLGATHER_BRUCK, r, p));
            if (p >= 4 && ftc_is_power_of_two(p))
                assert_false(own_block_sent_alone(FTC_ALLGATHER_RECURSIVE_DOUBLING, r, p));
            if (p >= 4 && p % 2 == 0)
                assert_false(own_block_sent_alone(FTC_ALLGATHER_NEIGHBOR_EXCHANGE, r, p));
        }
    }
    ftc_schedule empty;
    ftc_schedule_init(&empty, 0, 1);
    assert_true(ftc_schedule_sends_own_block_alone(&empty));
    ftc_schedule_destroy(&empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear),
        cmocka_unit_test(bruck),
        cmocka_unit_test(recursive_doubling),
        cmocka_unit_test(ring),
        cmocka_unit_test(neighbor_exchange),
        cmocka_unit_test(two_proc),
        cmocka_unit_test(sparbit),
        cmocka_unit_test(served_process_counts),
        cmocka_unit_test(own_block_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
