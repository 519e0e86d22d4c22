/*
 * ftc_rd_holdings: what a participant's value holds after a given progress
 * of the recursive doubling, against a step-by-step replay that unites the
 * partners' holdings, for every n in 1..64, every participant and every
 * point (before the fold, after it, after each step, complete), with each
 * participant starting from itself and from a larger set of its own (as the
 * masters of a recovery round do).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "allreduce/recursive_doubling.h"

#define MAX_N 64
#define WIDE 3   /* participant i of a recovery round: ranks 3i..3i+2 */

typedef struct {
    int n, size;
    int ranks[MAX_N];
    ftc_holdings start[MAX_N];
    ftc_holdings now[MAX_N];   /* the replay */
    bool wide;
} replay;

static void setup(replay *r, int n, bool wide)
{
    r->n = n;
    r->wide = wide;
    r->size = wide ? WIDE * n : n;
    for (int i = 0; i < n; i++) {
        r->ranks[i] = wide ? WIDE * i : i;
        assert_true(ftc_holdings_init(&r->start[i], r->size));
        assert_true(ftc_holdings_init(&r->now[i], r->size));
        for (int k = 0; k < (wide ? WIDE : 1); k++)
            ftc_holdings_add(&r->start[i], r->ranks[i] + k);
        ftc_holdings_copy(&r->now[i], &r->start[i]);
    }
}

static void teardown(replay *r)
{
    for (int i = 0; i < r->n; i++) {
        ftc_holdings_destroy(&r->start[i]);
        ftc_holdings_destroy(&r->now[i]);
    }
}

static void expect_all(const replay *r, const ftc_rd_progress *progress, bool actives_only)
{
    ftc_holdings got;
    assert_true(ftc_holdings_init(&got, r->size));
    for (int i = 0; i < r->n; i++) {
        if (actives_only && i >= ftc_rd_actives(r->n))
            continue;
        ftc_rd_holdings(&got, i, r->n, progress, r->ranks, r->wide ? r->start : NULL);
        if (!ftc_holdings_equal(&got, &r->now[i]))
            fail_msg("n=%d participant %d folded=%d steps=%d complete=%d: holdings differ",
                     r->n, i, progress->folded, progress->steps_done, progress->complete);
    }
    ftc_holdings_destroy(&got);
}

static void replay_and_compare(int n, bool wide)
{
    replay r;
    setup(&r, n, wide);
    const int m = ftc_rd_actives(n);
    ftc_rd_progress progress = { 0 };
    expect_all(&r, &progress, false);             /* nothing done: everyone holds itself */
    for (int i = 0; i + m < n; i++)
        ftc_holdings_unite(&r.now[i], &r.now[i + m]);
    progress.folded = true;
    expect_all(&r, &progress, true);              /* a spare still holds its own value */
    for (int step = 0; step < ftc_rd_steps(n); step++) {
        ftc_holdings before[MAX_N];
        for (int i = 0; i < m; i++) {
            assert_true(ftc_holdings_init(&before[i], r.size));
            ftc_holdings_copy(&before[i], &r.now[i]);
        }
        for (int i = 0; i < m; i++)
            ftc_holdings_unite(&r.now[i], &before[ftc_rd_partner(i, step)]);
        for (int i = 0; i < m; i++)
            ftc_holdings_destroy(&before[i]);
        progress.steps_done = step + 1;
        expect_all(&r, &progress, true);
    }
    for (int i = m; i < n; i++)
        ftc_holdings_copy(&r.now[i], &r.now[i - m]);
    progress.complete = true;
    expect_all(&r, &progress, false);             /* everyone: the whole group */
    teardown(&r);
}

static void every_point_every_n(void **state)
{
    (void)state;
    for (int n = 1; n <= MAX_N; n++) {
        replay_and_compare(n, false);
        replay_and_compare(n, true);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_point_every_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
