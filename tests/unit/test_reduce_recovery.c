/*
 * The reduce's binomial flow and what a failure leaves of it, for every
 * process count 1..64, without MPI. The first k children's subtrees of
 * vrank v are the run [v + 1, v + 2^k) cut at v's subtree's end (what
 * src/reduce/binomial.c's holdings count on). Then random states of the
 * flow, consistent with it (a parent combined a child's value only if the
 * child sent it; a rank that returned sent first and keeps its own input;
 * any rank may be dead): the holdings the survivors bring are pairwise
 * nested or disjoint (the recovery plan refuses nothing), S holds every
 * survivor, and a dead rank's input is in S exactly when a survivor's
 * value combines it.
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
#include "plans/binomial.h"

enum { MAX_P = 64, TRIALS = 400 };

static uint64_t run_of(int first, int end)
{
    uint64_t set = 0;
    for (int u = first; u < end; u++)
        set |= (uint64_t)1 << u;
    return set;
}

static void children_prefix_is_a_run(void **state)
{
    (void)state;
    for (int n = 1; n <= MAX_P; n++)
        for (int v = 0; v < n; v++) {
            const int end = ftc_binomial_subtree_end(v, n);
            uint64_t seen = 0;
            for (int k = 0; k <= ftc_binomial_children(v, n); k++) {
                const int cut = v + (1 << k) < end ? v + (1 << k) : end;
                assert_true(seen == run_of(v + 1, cut));
                if (k < ftc_binomial_children(v, n)) {
                    const int c = ftc_binomial_child(v, k);
                    assert_int_equal(ftc_binomial_parent(c), v);
                    seen |= run_of(c, ftc_binomial_subtree_end(c, n));
                }
            }
            assert_true(seen == run_of(v + 1, end));
        }
}

typedef struct {
    bool alive, sent, returned, held_all;
    int arrived;          /* children combined, nearest first */
} rank_state;

static int random_below(int n) { return n > 0 ? rand() % n : 0; }

/* A state of the flow: leaves first, as values travel up. */
static void random_states(int n, rank_state *s)
{
    for (int v = n - 1; v >= 0; v--) {
        const int children = ftc_binomial_children(v, n);
        int can = 0;   /* the children, nearest first, that sent */
        while (can < children && s[ftc_binomial_child(v, can)].sent)
            can++;
        s[v].alive = random_below(4) != 0;
        s[v].arrived = random_below(can + 1);
        s[v].held_all = s[v].arrived == children;
        s[v].sent = v != 0 && s[v].held_all && random_below(3) != 0;
        s[v].returned = s[v].alive && s[v].sent && random_below(2) != 0;
    }
}

static uint64_t holdings_of(int n, int v, const rank_state *s)
{
    if (s[v].returned)
        return (uint64_t)1 << v;   /* its kept input */
    const int end = ftc_binomial_subtree_end(v, n);
    const int cut = s[v].held_all ? end : v + (1 << s[v].arrived);
    return run_of(v, cut < end ? cut : end);
}

static void survivors_recover_every_input_held(void **state)
{
    (void)state;
    srand(17);
    for (int n = 1; n <= MAX_P; n++)
        for (int trial = 0; trial < TRIALS; trial++) {
            rank_state s[MAX_P];
            random_states(n, s);
            bool alive[MAX_P];
            ftc_holdings held[MAX_P];
            uint64_t alive_set = 0, union_set = 0;
            for (int v = 0; v < n; v++) {
                alive[v] = s[v].alive;
                assert_true(ftc_holdings_init(&held[v], n));
                const uint64_t h = holdings_of(n, v, s);
                for (int u = 0; u < n; u++)
                    if (h >> u & 1)
                        ftc_holdings_add(&held[v], u);
                if (alive[v]) {
                    alive_set |= (uint64_t)1 << v;
                    union_set |= h;
                }
            }
            ftc_recovery_plan plan;
            const ftc_plan_status status = ftc_recovery_plan_build(&plan, n, alive, held);
            if (alive_set == 0) {
                assert_int_equal(status, FTC_PLAN_NO_SURVIVOR);
            } else {
                assert_int_equal(status, FTC_PLAN_OK);
                uint64_t result = 0;
                for (int u = 0; u < n; u++)
                    if (ftc_holdings_has(&plan.result, u))
                        result |= (uint64_t)1 << u;
                assert_true((result & alive_set) == alive_set);
                assert_true(result == union_set);
            }
            ftc_recovery_plan_destroy(&plan);
            for (int v = 0; v < n; v++)
                ftc_holdings_destroy(&held[v]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(children_prefix_is_a_run),
        cmocka_unit_test(survivors_recover_every_input_held),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
