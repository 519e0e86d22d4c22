/*
 * The scan's chain (src/scan/chain.c) and what a failure leaves of it, for
 * every process count 1..64, without MPI. Live index j receives the
 * inputs 0 .. j - 1 from j - 1 and passes 0 .. j on to j + 1. A failure
 * can stop the flow between any two of its operations, on every rank at
 * once: each rank has received its message or not (a message that left
 * may still be abandoned at a sentinel), sent its own or not (only once
 * received), and is inside the call, past it (completed: its message sent,
 * or the last rank's received), or dead. A survivor inside brings the
 * inputs it holds ({0 .. j} once received, else {j}); one past the call
 * brings the copy it kept ({0 .. j}, with three or more ranks). Checked
 * wherever a recovery runs (a rank dead, a survivor inside): the recovery
 * plan refuses nothing (holdings nested or disjoint); S holds every
 * survivor; and every survivor that completed finds its own S, {0 .. j},
 * as S up to it: the same prefixes on every survivor. Exhaustive for
 * n <= 6, random states for every n in 1..64.
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
#include "ft/holdings.h"

enum { MAX_P = 64, EXHAUSTIVE_P = 6, TRIALS = 300 };

typedef enum { INSIDE, PAST, DEAD, FATES } fate;

typedef struct {
    bool received;   /* the inputs 0 .. j - 1 are here (always at j = 0) */
    bool sent;       /* its message reached j + 1's buffer */
    fate is;
} rank_state;

static uint64_t up_to(int j) { return j >= 63 ? ~UINT64_C(0) : (UINT64_C(1) << (j + 1)) - 1; }

/* Whether rank j's state fits the flow, given the rank before it. */
static bool possible(int n, int j, const rank_state *s)
{
    if (j == 0 && !s[j].received)
        return false;
    if (j > 0 && s[j].received && !s[j - 1].sent)
        return false;
    if (s[j].sent && (!s[j].received || j == n - 1))
        return false;
    if (s[j].is == PAST && !(s[j].sent || (j == n - 1 && s[j].received)))
        return false;
    return true;
}

/* What a survivor brings to the recovery; 0 when it takes no part (a
 * rank past the call keeps nothing with two ranks or fewer). */
static uint64_t brought(int n, int j, const rank_state *s)
{
    if (s[j].is == INSIDE)
        return s[j].received ? up_to(j) : UINT64_C(1) << j;
    if (s[j].is == PAST)
        return n > 2 ? up_to(j) : 0;
    return 0;
}

static void check(int n, const rank_state *s)
{
    bool any_dead = false, any_inside = false;
    for (int j = 0; j < n; j++) {
        any_dead |= s[j].is == DEAD;
        any_inside |= s[j].is == INSIDE;
    }
    if (!any_dead || !any_inside)
        return;   /* no recovery: every survivor completed from the flow */
    bool participant[MAX_P];
    ftc_holdings held[MAX_P];
    uint64_t survivors = 0;
    for (int j = 0; j < n; j++) {
        const uint64_t h = brought(n, j, s);
        participant[j] = h != 0;
        assert_true(ftc_holdings_init(&held[j], n));
        for (int u = 0; u < n; u++)
            if (h >> u & 1)
                ftc_holdings_add(&held[j], u);
        if (s[j].is != DEAD)
            survivors |= UINT64_C(1) << j;
    }
    ftc_recovery_plan plan;
    assert_int_equal(ftc_recovery_plan_build(&plan, n, participant, held), FTC_PLAN_OK);
    uint64_t result = 0;
    for (int u = 0; u < n; u++)
        if (ftc_holdings_has(&plan.result, u))
            result |= UINT64_C(1) << u;
    assert_true((result & survivors) == survivors);
    for (int j = 0; j < n; j++)
        if (s[j].is == PAST)
            assert_true((result & up_to(j)) == up_to(j));
    ftc_recovery_plan_destroy(&plan);
    for (int j = 0; j < n; j++)
        ftc_holdings_destroy(&held[j]);
}

/* Every state of ranks j .. n - 1 after those before. */
static void every_state_from(int n, int j, rank_state *s, long *cases)
{
    if (j == n) {
        check(n, s);
        (*cases)++;
        return;
    }
    for (int bits = 0; bits < 4; bits++)
        for (int f = 0; f < FATES; f++) {
            s[j] = (rank_state){ .received = bits & 1, .sent = bits >> 1, .is = (fate)f };
            if (possible(n, j, s))
                every_state_from(n, j + 1, s, cases);
        }
}

static void every_failure_of_small_chains(void **state)
{
    (void)state;
    for (int n = 1; n <= EXHAUSTIVE_P; n++) {
        rank_state s[MAX_P];
        long cases = 0;
        every_state_from(n, 0, s, &cases);
        assert_true(cases > 0);
    }
}

static bool coin(void) { return rand() % 2 == 0; }

static void random_failures_of_every_chain(void **state)
{
    (void)state;
    srand(29);
    for (int n = 1; n <= MAX_P; n++)
        for (int trial = 0; trial < TRIALS; trial++) {
            rank_state s[MAX_P];
            /* the flow's front: ranks before `front` passed their message on */
            const int front = rand() % n;
            for (int j = 0; j < n; j++) {
                s[j].received = j == 0 || (j <= front && (j < front || coin()));
                s[j].sent = j < front && s[j].received && j < n - 1;
                const bool completes = s[j].sent || (j == n - 1 && s[j].received);
                const int r = rand() % 8;   /* deaths often, as an adversary would */
                s[j].is = r < 3 ? DEAD : (completes && r < 6 ? PAST : INSIDE);
                if (j > 0 && s[j].received && !s[j - 1].sent)
                    s[j].received = false;
                assert_true(possible(n, j, s));
            }
            check(n, s);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_failure_of_small_chains),
        cmocka_unit_test(random_failures_of_every_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
