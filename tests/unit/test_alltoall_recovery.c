/*
 * The alltoall's recovery (the engine's round for blocks routed each to
 * one rank, its pairs: ftc_recovery_pair_sender) for every process count
 * 1..64, without MPI, over every state a failure can leave each rank in
 * (src/alltoall/exchange.c): dead before the call (nothing of it ever
 * sent), dead during it (each of its blocks arrived or not), inside it
 * (each block for it arrived or not, but every block of a sender past the
 * call that was acknowledged here), or past it (every block for it
 * arrived; each of its own blocks kept as a copy or acknowledged by its
 * destination, which then holds it). Checked: a block moves only from its
 * sender, only to a destination inside the call that lacks it, and only
 * when the sender holds it (inside the call, or past it with the copy
 * kept); afterwards every destination inside the call holds every
 * surviving sender's block, and lacks only dead senders'. Also the
 * decision tables against Open MPI 5.0's rules, the modified Bruck's room
 * reserved wherever the table may pick it, and the names.
 * Exhaustive over the states for p <= 4 (random arrivals), random states
 * for every p in 1..64.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "allreduce/recovery.h"
#include "alltoall/algorithms.h"
#include "ft/holdings.h"

enum { MAX_P = 64, RANDOM_CASES = 300, ARRIVAL_DRAWS = 8 };

typedef enum { DEAD_BEFORE, DIED, INSIDE, PAST, STATES } rank_state;

typedef struct {
    int p;
    rank_state state[MAX_P];
    bool arrived[MAX_P][MAX_P];   /* [sender][destination] */
    bool kept[MAX_P][MAX_P];      /* a sender past the call: its copy of the block */
} scenario;

static bool survives(rank_state s) { return s == INSIDE || s == PAST; }

/* Arrivals and copies as the flow can leave them. */
static void draw(scenario *s)
{
    for (int from = 0; from < s->p; from++)
        for (int to = 0; to < s->p; to++) {
            const rank_state f = s->state[from], t = s->state[to];
            bool arrived = from == to || (f != DEAD_BEFORE && rand() % 2);
            if (t == PAST)   /* it completed: every live sender's block arrived */
                arrived = f != DEAD_BEFORE;
            s->kept[from][to] = f == PAST && from != to && rand() % 2;
            if (f == PAST && from != to && !s->kept[from][to])
                arrived = t != DEAD_BEFORE;   /* acknowledged: the destination holds it */
            s->arrived[from][to] = arrived;
        }
}

static void check_scenario(const scenario *s)
{
    const int p = s->p;
    bool participant[MAX_P];
    ftc_holdings held[MAX_P];
    for (int r = 0; r < p; r++) {
        participant[r] = survives(s->state[r]);
        assert_true(ftc_holdings_init(&held[r], p));
        for (int from = 0; from < p; from++)
            if (s->arrived[from][r])
                ftc_holdings_add(&held[r], from);
    }
    for (int to = 0; to < p; to++) {
        if (s->state[to] != INSIDE)
            continue;
        for (int from = 0; from < p; from++) {
            const int sender = ftc_recovery_pair_sender(p, participant, held, to, from);
            if (sender < 0) {
                /* held already, or lost with its dead sender */
                assert_true(s->arrived[from][to] || !survives(s->state[from]));
                continue;
            }
            assert_int_equal(sender, from);
            assert_false(s->arrived[from][to]);
            /* the sender has it: its send buffer, or the copy it kept */
            assert_true(s->state[from] == INSIDE || s->kept[from][to]);
        }
    }
    /* nothing is planned for a destination that is not inside the call */
    for (int to = 0; to < p; to++)
        for (int from = 0; from < p && s->state[to] != INSIDE; from++)
            if (s->state[to] == PAST)
                assert_true(ftc_recovery_pair_sender(p, participant, held, to, from) < 0);
    for (int r = 0; r < p; r++)
        ftc_holdings_destroy(&held[r]);
}

static void fill_states(scenario *s, long code)
{
    for (int r = 0; r < s->p; r++, code /= STATES)
        s->state[r] = (rank_state)(code % STATES);
}

static void test_every_state_small(void **unused)
{
    (void)unused;
    srand(7);
    for (int p = 1; p <= 4; p++) {
        long codes = 1;
        for (int r = 0; r < p; r++)
            codes *= STATES;
        for (long code = 0; code < codes; code++)
            for (int d = 0; d < ARRIVAL_DRAWS; d++) {
                scenario s = { .p = p };
                fill_states(&s, code);
                draw(&s);
                check_scenario(&s);
            }
    }
}

static void test_random_states(void **unused)
{
    (void)unused;
    srand(29);
    const int cases = getenv("FTCOLL_UNIT_QUICK") ? RANDOM_CASES / 10 : RANDOM_CASES;
    for (int p = 1; p <= MAX_P; p++)
        for (int c = 0; c < cases; c++) {
            scenario s = { .p = p };
            for (int r = 0; r < p; r++)
                s.state[r] = (rank_state)(rand() % STATES);
            draw(&s);
            check_scenario(&s);
        }
}

/* Open MPI 5.0's alltoall rules (its linear_sync as linear, two_proc as
 * pairwise) and its alltoallv rules. */
static void test_decision_tables(void **unused)
{
    (void)unused;
    const ftc_alltoall_algorithm LIN = FTC_ALLTOALL_LINEAR, PW = FTC_ALLTOALL_PAIRWISE,
                                 BR = FTC_ALLTOALL_MODIFIED_BRUCK;
    assert_int_equal(ftc_alltoall_decide(2, 4), PW);
    assert_int_equal(ftc_alltoall_decide(2, 32767), PW);
    assert_int_equal(ftc_alltoall_decide(2, 32768), LIN);
    assert_int_equal(ftc_alltoall_decide(2, 262144), PW);
    assert_int_equal(ftc_alltoall_decide(2, 1 << 21), PW);
    assert_int_equal(ftc_alltoall_decide(4, 1000), LIN);
    assert_int_equal(ftc_alltoall_decide(7, 524288), PW);
    assert_int_equal(ftc_alltoall_decide(7, 1048576), LIN);
    for (int p = 8; p < 128; p++)
        assert_int_equal(ftc_alltoall_decide(p, (size_t)p * 1000), LIN);
    /* the modified Bruck: small blocks from 16 ranks on */
    assert_int_equal(ftc_alltoall_decide(15, 100), LIN);
    assert_int_equal(ftc_alltoall_decide(16, 3), LIN);
    assert_int_equal(ftc_alltoall_decide(16, 4), BR);
    assert_int_equal(ftc_alltoall_decide(31, 511), BR);
    assert_int_equal(ftc_alltoall_decide(31, 512), LIN);
    assert_int_equal(ftc_alltoall_decide(32, 0), BR);
    assert_int_equal(ftc_alltoall_decide(63, 511), BR);
    assert_int_equal(ftc_alltoall_decide(63, 512), LIN);
    assert_int_equal(ftc_alltoall_decide(64, 1023), BR);
    assert_int_equal(ftc_alltoall_decide(64, 1024), LIN);
    assert_int_equal(ftc_alltoall_decide(100, 300000), PW);
    assert_int_equal(ftc_alltoall_decide(511, 1023), BR);
    assert_int_equal(ftc_alltoall_decide(512, 511), BR);
    assert_int_equal(ftc_alltoall_decide(512, 512), LIN);
    assert_int_equal(ftc_alltoall_decide(2047, 511), BR);
    assert_int_equal(ftc_alltoall_decide(2048, 1023), BR);
    assert_int_equal(ftc_alltoall_decide(4096, 2047), BR);
    assert_int_equal(ftc_alltoall_decide(4096, 2048), LIN);
    assert_int_equal(ftc_alltoall_decide(200, 300000), PW);
    assert_int_equal(ftc_alltoall_decide(300, 40000), PW);
    assert_int_equal(ftc_alltoall_decide(600, 200000), LIN);
    assert_int_equal(ftc_alltoall_decide(5000, 1 << 20), LIN);
    assert_int_equal(ftc_alltoallv_decide(2), PW);
    assert_int_equal(ftc_alltoallv_decide(3), PW);
    assert_int_equal(ftc_alltoallv_decide(4), LIN);
    assert_int_equal(ftc_alltoallv_decide(63), LIN);
    assert_int_equal(ftc_alltoallv_decide(64), PW);
    assert_int_equal(ftc_alltoallv_decide(128), LIN);
    assert_int_equal(ftc_alltoallv_decide(512), PW);
    assert_int_equal(ftc_alltoallv_decide(2048), LIN);
}

/* Where the table may pick the Bruck for some live count up to p, its
 * room is reserved: exactly there. */
static void test_bruck_room_where_picked(void **unused)
{
    (void)unused;
    static const size_t blocks[] = { 0, 3, 4, 100, 511, 512, 1023, 1024, 2047, 2048, 4096 };
    static const int sizes[] = { 1, 2, 15, 16, 17, 31, 32, 63, 64, 200, 511, 512, 600, 1024,
                                 2048, 3000, 4096, 5000 };
    for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            bool picked = false;
            for (int n = 1; n <= sizes[s]; n++)
                picked |= ftc_alltoall_decide(n, blocks[b]) == FTC_ALLTOALL_MODIFIED_BRUCK;
            assert_int_equal(ftc_alltoall_may_pick_bruck(sizes[s], blocks[b]), picked);
        }
    assert_int_equal(ftc_alltoall_bruck_room(16, 10), 16 * 10 + 2 * (8 * 10 + 1));
    assert_int_equal(ftc_alltoall_bruck_room(64, (size_t)1 << 30), 0);   /* messages too large */
}

static void test_names(void **unused)
{
    (void)unused;
    ftc_alltoall_algorithm a = FTC_ALLTOALL_AUTO;
    assert_true(ftc_alltoall_parse_name("pairwise", &a));
    assert_int_equal(a, FTC_ALLTOALL_PAIRWISE);
    assert_true(ftc_alltoall_parse_name("basic_linear", &a));
    assert_int_equal(a, FTC_ALLTOALL_LINEAR);
    assert_true(ftc_alltoall_parse_name("0", &a));
    assert_int_equal(a, FTC_ALLTOALL_AUTO);
    const char *const bruck[] = { "modified_bruck", "bruck", "3" };
    for (int i = 0; i < 3; i++) {
        a = FTC_ALLTOALL_AUTO;
        assert_true(ftc_alltoall_parse_name(bruck[i], &a));
        assert_int_equal(a, FTC_ALLTOALL_MODIFIED_BRUCK);
    }
    assert_false(ftc_alltoall_parse_name("4", &a));
    assert_string_equal(ftc_alltoall_algorithm_name(FTC_ALLTOALL_LINEAR), "linear");
    assert_string_equal(ftc_alltoall_algorithm_name(FTC_ALLTOALL_MODIFIED_BRUCK),
                        "modified_bruck");
    assert_null(ftc_alltoall_algorithm_name((ftc_alltoall_algorithm)4));
    char list[128];
    ftc_alltoall_list_names(list, sizeof(list));
    assert_string_equal(list, "auto (0), linear (1), pairwise (2), modified_bruck (3)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_state_small),
        cmocka_unit_test(test_random_states),
        cmocka_unit_test(test_decision_tables),
        cmocka_unit_test(test_bruck_room_where_picked),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
