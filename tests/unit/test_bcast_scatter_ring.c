/*
 * The fault-tolerant broadcast's plan for large messages
 * (bcast/scatter_ring.h) and the choice between the two plans
 * (bcast/select.h).
 *
 * The plan, replayed step by step for every n in 1..64 and every root:
 * every send meets a receive of the same blocks on its peer in the same
 * step; a participant sends only blocks it holds; everyone ends with every
 * block; ceil(log2 n) + n - 1 steps; every participant has heard, through
 * its chain of receives, from every participant; within a phase (the
 * scatter's ceil(log2 n) steps, then the ring's) no participant receives a
 * block it sent, so that its sends may stay in flight until the phase
 * ends (the ring does bring back blocks sent in the scatter). The blocks cover the
 * message once, their lengths differing by at most one. The choice follows
 * Open MPI's fixed rules, written out as their condition, and yields to
 * FTCOLL_BCAST_PLAN's names; the binomial flow's token period keeps a
 * period's copies within the budget and divides the window; replayed over
 * runs of one size, two sizes alternating and random orders, the tokens
 * leave no more than the window - 1 calls without in a row and keep each
 * size class's copies within the budget; messages from
 * the confirmation's size on confirm, smaller ones keep copies; large
 * calls confirm where ranks share processors, unless FTCOLL_BCAST_CONFIRM
 * says otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bcast/scatter_ring.h"
#include "bcast/select.h"
#include "ft/reconcile.h"

#define MAX_N 64

static uint64_t blocks_mask(int first, int last)
{
    uint64_t mask = 0;
    for (int b = first; b < last; b++)
        mask |= 1ULL << b;
    return mask;
}

static int ceil_log2(int n)
{
    int steps = 0;
    while ((1 << steps) < n)
        steps++;
    return steps;
}

typedef struct {
    uint64_t holds[MAX_N];    /* blocks, relative to the root */
    uint64_t heard[MAX_N];    /* participants heard from */
    uint64_t sent[MAX_N];     /* blocks sent in the current phase (scatter, then ring) */
} replay;

static void check_pairs(int n, int root, int step)
{
    for (int i = 0; i < n; i++) {
        const ftc_scatter_ring_step mine = ftc_scatter_ring_step_of(i, root, n, step);
        if (mine.send.peer < 0)
            continue;
        assert_int_not_equal(mine.send.peer, i);
        const ftc_scatter_ring_step peer = ftc_scatter_ring_step_of(mine.send.peer, root, n, step);
        assert_int_equal(peer.receive.peer, i);
        assert_int_equal(peer.receive.first, mine.send.first);
        assert_int_equal(peer.receive.last, mine.send.last);
    }
    for (int i = 0; i < n; i++) {   /* and every receive meets a send */
        const ftc_scatter_ring_step mine = ftc_scatter_ring_step_of(i, root, n, step);
        if (mine.receive.peer >= 0)
            assert_int_equal(ftc_scatter_ring_step_of(mine.receive.peer, root, n, step).send.peer, i);
    }
}

static void run_step(replay *r, int n, int root, int step)
{
    uint64_t holds[MAX_N], heard[MAX_N];
    for (int i = 0; i < n; i++) {
        holds[i] = r->holds[i];
        heard[i] = r->heard[i];
    }
    for (int i = 0; i < n; i++) {
        const ftc_scatter_ring_step s = ftc_scatter_ring_step_of(i, root, n, step);
        if (s.send.peer >= 0) {
            const uint64_t sent = blocks_mask(s.send.first, s.send.last);
            assert_true(s.send.first < s.send.last);
            assert_int_equal(holds[i] & sent, sent);
            r->sent[i] |= sent;
        }
        if (s.receive.peer >= 0) {
            /* sends stay in flight within a phase (ft_bcast.c): no receive
             * may write a block its participant sent earlier in it */
            const uint64_t received = blocks_mask(s.receive.first, s.receive.last);
            assert_int_equal(received & r->sent[i], 0);
            r->holds[i] |= received;
            r->heard[i] |= heard[s.receive.peer];
        }
    }
}

static void replay_broadcast(int n, int root)
{
    replay r;
    const uint64_t everyone = n == 64 ? ~0ULL : (1ULL << n) - 1;
    for (int i = 0; i < n; i++) {
        r.holds[i] = i == root ? everyone : 0;
        r.heard[i] = 1ULL << i;
        r.sent[i] = 0;
    }
    const int steps = ftc_scatter_ring_steps(n);
    assert_int_equal(steps, n > 1 ? ceil_log2(n) + n - 1 : 0);
    assert_int_equal(ftc_scatter_ring_scatter_steps(n), n > 1 ? ceil_log2(n) : 0);
    for (int step = 0; step < steps; step++) {
        if (step == ftc_scatter_ring_scatter_steps(n))   /* the scatter's sends are over */
            for (int i = 0; i < n; i++)
                r.sent[i] = 0;
        check_pairs(n, root, step);
        run_step(&r, n, root, step);
    }
    for (int i = 0; i < n; i++) {
        assert_int_equal(r.holds[i], everyone);
        assert_int_equal(r.heard[i], everyone);
    }
}

static void every_n_every_root(void **state)
{
    (void)state;
    for (int n = 1; n <= MAX_N; n++)
        for (int root = 0; root < n; root++)
            replay_broadcast(n, root);
}

static void blocks_cover_the_message(void **state)
{
    (void)state;
    const long counts[] = { 0, 1, 5, 63, 64, 65, 1000, 100000 };
    for (int n = 1; n <= MAX_N; n++) {
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
            assert_int_equal(ftc_scatter_ring_block_start(0, n, counts[c]), 0);
            assert_int_equal(ftc_scatter_ring_block_start(n, n, counts[c]), counts[c]);
            for (int b = 0; b < n; b++) {
                const long length = ftc_scatter_ring_block_start(b + 1, n, counts[c])
                                  - ftc_scatter_ring_block_start(b, n, counts[c]);
                assert_true(length == counts[c] / n || length == counts[c] / n + 1);
            }
        }
    }
}

/* Open MPI 5.0's fixed rules: it cuts the message (scatter + allgather)
 * only for large ones on many ranks; its trees map to the binomial flow. */
static ftc_bcast_algorithm open_mpi_choice(int p, size_t bytes)
{
    const bool cut = (p >= 16 && p < 32 && bytes >= 1048576) ||
                     (p >= 1024 && p < 2048 && bytes >= 524288) ||
                     (p >= 2048 && bytes >= 262144);
    return cut ? FTC_BCAST_SCATTER_RING : FTC_BCAST_DISSEMINATION;
}

static void choice_follows_open_mpi(void **state)
{
    (void)state;
    const int ps[] = { 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 1023, 1024, 2047, 2048,
                       5000 };
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        for (size_t power = 1; power <= (1u << 22); power *= 2) {
            for (size_t bytes = power - 1; bytes <= power + 1; bytes++) {
                assert_int_equal(ftc_bcast_decide(ps[i], bytes, FTC_BCAST_AUTO),
                                 open_mpi_choice(ps[i], bytes));
                assert_int_equal(ftc_bcast_decide(ps[i], bytes, FTC_BCAST_SCATTER_RING),
                                 FTC_BCAST_SCATTER_RING);
                assert_int_equal(ftc_bcast_decide(ps[i], bytes, FTC_BCAST_DISSEMINATION),
                                 FTC_BCAST_DISSEMINATION);
            }
        }
    }
}

static void plan_names(void **state)
{
    (void)state;
    ftc_bcast_algorithm a = FTC_BCAST_DISSEMINATION;
    assert_true(ftc_bcast_algorithm_parse("auto", &a));
    assert_int_equal(a, FTC_BCAST_AUTO);
    assert_true(ftc_bcast_algorithm_parse("scatter_ring", &a));
    assert_int_equal(a, FTC_BCAST_SCATTER_RING);
    assert_true(ftc_bcast_algorithm_parse("binomial", &a));
    assert_int_equal(a, FTC_BCAST_DISSEMINATION);
    assert_false(ftc_bcast_algorithm_parse("ring", &a));
    assert_false(ftc_bcast_algorithm_parse("", &a));
    assert_false(ftc_bcast_algorithm_parse(NULL, &a));
    assert_int_equal(a, FTC_BCAST_DISSEMINATION);   /* untouched by a rejected name */
}

/* A power of two dividing the window (so that every multiple of the window
 * has tokens whatever the sizes before it), the whole window while a
 * window's copies fit in the budget, and one period's copies within the
 * budget otherwise, down to tokens on every call: for the collectives'
 * budget (ftc_ft_token_period) and for others (the scan keeps 8 MiB). */
static void check_periods_within(size_t budget, bool default_budget)
{
    for (size_t power = 1; power <= (1u << 28); power *= 2) {
        for (size_t bytes = power - 1; bytes <= power + 1; bytes++) {
            const long period = FTC_FT_WINDOW >> ftc_ft_token_class_within(bytes, budget);
            if (default_budget)
                assert_int_equal(period, ftc_ft_token_period(bytes));
            assert_true(period >= 1 && period <= FTC_FT_WINDOW);
            assert_int_equal(FTC_FT_WINDOW % period, 0);
            assert_int_equal(period & (period - 1), 0);
            if (period > 1)
                assert_true((size_t)period * bytes <= budget);
            if (period < FTC_FT_WINDOW)
                assert_true((size_t)(2 * period) * bytes > budget);
        }
    }
}

static void token_period_bounds_the_kept_bytes(void **state)
{
    (void)state;
    check_periods_within(FTC_FT_KEPT_BYTES, true);
    check_periods_within((size_t)8 << 20, false);
    check_periods_within((size_t)64 << 20, false);
    assert_int_equal(FTC_FT_WINDOW >> ftc_ft_token_class_within(1 << 20, (size_t)8 << 20), 8);
    assert_int_equal(ftc_ft_token_period(0), FTC_FT_WINDOW);
    assert_int_equal(ftc_ft_token_period(FTC_FT_KEPT_BYTES / FTC_FT_WINDOW), FTC_FT_WINDOW);
    assert_int_equal(ftc_ft_token_period(FTC_FT_KEPT_BYTES), 1);
}

/* Sizes at and around the classes' bounds. */
static const size_t TOKEN_SIZES[] = { 0, 8, 16384, 16385, 32768, 65536, 102400, 131072,
                                      131073, 262144, 524288, 524289, 1048576 };
enum { NSIZES = sizeof(TOKEN_SIZES) / sizeof(TOKEN_SIZES[0]) };

/* A run of broadcasts that all keep copies, replayed: no more than
 * FTC_FT_WINDOW - 1 calls without tokens in a row (the calls present at a
 * meeting stay within the window), and the copies kept since the last
 * call with tokens within FTC_FT_KEPT_BYTES per size class, whatever the
 * order of the sizes. */
static void replay_tokens(const size_t *sizes, long calls)
{
    long class_calls[FTC_FT_TOKEN_CLASSES] = { 0 };
    size_t kept[FTC_FT_TOKEN_CLASSES] = { 0 };
    long without = 0;
    for (long number = 1; number <= calls; number++) {
        const size_t bytes = sizes[number - 1];
        const int k = ftc_ft_token_class(bytes);
        if (ftc_ft_sends_tokens(number, k, ++class_calls[k])) {
            without = 0;
            memset(kept, 0, sizeof(kept));   /* every rank entered: a new window */
            continue;
        }
        assert_true(++without <= FTC_FT_WINDOW - 1);
        kept[k] += bytes;
        assert_true(kept[k] <= FTC_FT_KEPT_BYTES);
    }
}

static void tokens_bound_the_window_and_the_copies(void **state)
{
    (void)state;
    enum { CALLS = 4096 };
    static size_t sizes[CALLS];
    for (int a = 0; a < NSIZES; a++) {
        for (int b = 0; b < NSIZES; b++) {
            for (long i = 0; i < CALLS; i++)   /* one size, then two alternating */
                sizes[i] = a == b ? TOKEN_SIZES[a] : TOKEN_SIZES[i % 2 ? a : b];
            replay_tokens(sizes, CALLS);
        }
    }
    uint32_t x = 2463534242u;   /* xorshift32: any order of sizes */
    for (int run = 0; run < 64; run++) {
        for (long i = 0; i < CALLS; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            sizes[i] = TOKEN_SIZES[x % NSIZES];
        }
        replay_tokens(sizes, CALLS);
    }
    /* a run of small broadcasts waits for every rank only once a window,
     * also where another collective took a call number before it (its
     * class count then out of step with the numbers) */
    for (long skew = 0; skew < 3; skew++) {
        long with = 0;
        for (long number = 1 + skew; number <= CALLS + skew; number++)
            with += ftc_ft_sends_tokens(number, ftc_ft_token_class(8), number - skew);
        assert_int_equal(with, CALLS / FTC_FT_WINDOW);
    }
}

/* From FTC_BCAST_CONFIRM_BYTES on a call confirms and keeps nothing;
 * below, it keeps its copy, with tokens less often than every call. */
static void large_messages_confirm(void **state)
{
    (void)state;
    const ftc_bcast_confirmation on = FTC_BCAST_CONFIRM_ON;
    assert_false(ftc_bcast_confirms(0, FTC_BCAST_DISSEMINATION, on, true));
    assert_false(ftc_bcast_confirms(FTC_BCAST_CONFIRM_BYTES - 1, FTC_BCAST_SCATTER_RING, on, true));
    assert_true(ftc_bcast_confirms(FTC_BCAST_CONFIRM_BYTES, FTC_BCAST_DISSEMINATION, on, false));
    assert_true(ftc_bcast_confirms(SIZE_MAX, FTC_BCAST_DISSEMINATION, on, false));
    assert_true(ftc_ft_token_period(FTC_BCAST_CONFIRM_BYTES - 1) > 1);
}

/* The setting's names; auto: large calls confirm where ranks share
 * processors, by the scatter and ring, which waits for every rank anyway,
 * and above the kept bytes' bound; on and off whatever the plan, the size
 * and the processors. */
static void confirmation_setting(void **state)
{
    (void)state;
    ftc_bcast_confirmation c = FTC_BCAST_CONFIRM_OFF;
    assert_true(ftc_bcast_confirmation_parse("auto", &c));
    assert_int_equal(c, FTC_BCAST_CONFIRM_AUTO);
    assert_true(ftc_bcast_confirmation_parse("on", &c));
    assert_int_equal(c, FTC_BCAST_CONFIRM_ON);
    assert_true(ftc_bcast_confirmation_parse("off", &c));
    assert_int_equal(c, FTC_BCAST_CONFIRM_OFF);
    assert_false(ftc_bcast_confirmation_parse("yes", &c));
    assert_false(ftc_bcast_confirmation_parse("", &c));
    assert_false(ftc_bcast_confirmation_parse(NULL, &c));
    assert_int_equal(c, FTC_BCAST_CONFIRM_OFF);
    const size_t large = FTC_BCAST_CONFIRM_BYTES;
    const ftc_bcast_algorithm bin = FTC_BCAST_DISSEMINATION, ring = FTC_BCAST_SCATTER_RING;
    assert_true(ftc_bcast_confirms(large, bin, FTC_BCAST_CONFIRM_AUTO, true));
    assert_false(ftc_bcast_confirms(large, bin, FTC_BCAST_CONFIRM_AUTO, false));
    assert_true(ftc_bcast_confirms(large, ring, FTC_BCAST_CONFIRM_AUTO, false));
    /* with a processor per rank, copies only up to the kept bytes' bound */
    assert_false(ftc_bcast_confirms(FTC_FT_KEPT_BYTES, bin, FTC_BCAST_CONFIRM_AUTO, false));
    assert_true(ftc_bcast_confirms(FTC_FT_KEPT_BYTES + 1, bin, FTC_BCAST_CONFIRM_AUTO, false));
    for (int shared = 0; shared <= 1; shared++) {
        for (int plan = bin; plan <= ring; plan++) {
            assert_true(ftc_bcast_confirms(large, (ftc_bcast_algorithm)plan,
                                           FTC_BCAST_CONFIRM_ON, shared));
            assert_false(ftc_bcast_confirms(large, (ftc_bcast_algorithm)plan,
                                            FTC_BCAST_CONFIRM_OFF, shared));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_n_every_root),
        cmocka_unit_test(blocks_cover_the_message),
        cmocka_unit_test(choice_follows_open_mpi),
        cmocka_unit_test(plan_names),
        cmocka_unit_test(token_period_bounds_the_kept_bytes),
        cmocka_unit_test(tokens_bound_the_window_and_the_copies),
        cmocka_unit_test(large_messages_confirm),
        cmocka_unit_test(confirmation_setting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
