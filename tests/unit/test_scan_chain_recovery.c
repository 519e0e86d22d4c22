/*
 * The scan's chain (src/scan/chain.c) and what a failure leaves of it, for
 * every process count 1..64, without MPI. Live index j makes its prefix
 * P_j once P_j-1 arrived from j - 1 (rank 0 at once) and passes P_j on to
 * j + 1. A failure can stop the flow between any two of its operations,
 * on every rank at once: each rank has made its prefix or not (a message
 * that left may still be abandoned at a sentinel), sent it or not (only
 * once made), and is inside the call, past it (completed: its prefix
 * sent, or the last rank's made), or dead. A survivor inside brings a
 * block: its prefix once made, else its input; one past the call brings
 * the prefix it kept (with three or more ranks). Holdings are the rank
 * alone. Checked wherever a recovery runs (a rank dead, a survivor
 * inside): the recovery plan refuses nothing and S holds every survivor;
 * K, the highest rank whose prefix is there, is at or above every
 * survivor that made its prefix (its result, over every live rank up to
 * it, is S up to it) and below every survivor inside that did not (its
 * input extends P_K). Exhaustive for n <= 6, random states for every n in
 * 1..64.
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
    bool made;       /* P_j made: P_j-1 arrived (rank 0: always once entered) */
    bool sent;       /* P_j reached j + 1's buffer */
    fate is;
} rank_state;

typedef enum { NOTHING, PREFIX, INPUT } block;

/* Whether rank j's state fits the flow, given the rank before it. */
static bool possible(int n, int j, const rank_state *s)
{
    if (j > 0 && s[j].made && !s[j - 1].sent)
        return false;
    if (s[j].sent && (!s[j].made || j == n - 1))
        return false;
    if (s[j].is == PAST && !(s[j].sent || (j == n - 1 && s[j].made)))
        return false;
    return true;
}

/* What a survivor brings to the recovery (a rank past the call keeps
 * nothing with two ranks or fewer). */
static block brought(int n, int j, const rank_state *s)
{
    if (s[j].is == INSIDE)
        return s[j].made ? PREFIX : INPUT;
    if (s[j].is == PAST && n > 2)
        return PREFIX;
    return NOTHING;
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
    uint64_t survivors = 0, bringing = 0;
    int k = -1;
    for (int j = 0; j < n; j++) {
        const block b = brought(n, j, s);
        participant[j] = b != NOTHING;
        assert_true(ftc_holdings_init(&held[j], n));
        if (participant[j]) {
            ftc_holdings_add(&held[j], j);
            bringing |= UINT64_C(1) << j;
        }
        if (b == PREFIX)
            k = j;
        if (s[j].is != DEAD)
            survivors |= UINT64_C(1) << j;
    }
    ftc_recovery_plan plan;
    assert_int_equal(ftc_recovery_plan_build(&plan, n, participant, held), FTC_PLAN_OK);
    uint64_t result = 0;
    for (int u = 0; u < n; u++)
        if (ftc_holdings_has(&plan.result, u))
            result |= UINT64_C(1) << u;
    assert_true(result == bringing);
    for (int j = 0; j < n; j++) {
        if (s[j].is == DEAD || (s[j].is == PAST && n <= 2))
            continue;
        if (s[j].made)
            assert_true(j <= k);   /* its result is S up to it */
        else
            assert_true(j > k);    /* its input extends P_K */
    }
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
            s[j] = (rank_state){ .made = bits & 1, .sent = bits >> 1, .is = (fate)f };
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
            /* the flow's front: ranks before `front` passed their prefix on */
            const int front = rand() % n;
            for (int j = 0; j < n; j++) {
                s[j].made = (j == 0 && coin()) || (j > 0 && j <= front && (j < front || coin()));
                if (j > 0 && !s[j - 1].sent)
                    s[j].made = false;
                s[j].sent = j < front && s[j].made && j < n - 1;
                const bool completes = s[j].sent || (j == n - 1 && s[j].made);
                const int r = rand() % 8;   /* deaths often, as an adversary would */
                s[j].is = r < 3 ? DEAD : (completes && r < 6 ? PAST : INSIDE);
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
