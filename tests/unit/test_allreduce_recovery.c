/*
 * The fault-tolerant allreduce's recovery planning, driven by a simulator of
 * the whole protocol (no MPI): rounds of recursive doubling among the plan's
 * masters, then the hand-out, with ranks killed at chosen points — before
 * or after they send, in any round (round 0 is the failure-free attempt,
 * later rounds are recoveries), at the fold-in, any step, the fold-out, the
 * hand-out, or while the survivors agree on the next plan.
 *
 * Every combination of two values is checked to be of disjoint holdings (no
 * contribution counted twice). At the end: every survivor holds exactly the
 * plan's S, S holds every survivor and everything a survivor held when a
 * failure was detected, the lost set is exactly the complement and only dead
 * ranks, and the number of rounds is bounded by the failures.
 *
 * Coverage: one failure at every rank, point and phase for every p in 1..64;
 * every pair of failures (rounds 0 and 1) for p <= 8; two and three failures
 * drawn at random (fixed seed) for every p in 1..64. Two progress models:
 * survivors stop at the step where the failure happens ("prompt"), or go on
 * as far as their partners let them ("eager"); the real run lies between.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "allreduce/recovery.h"
#include "allreduce/recursive_doubling.h"

#define MAX_P 64

/* Under valgrind (FTCOLL_UNIT_QUICK=1) a smaller grid: it looks for memory
 * errors, which the smaller process counts reach as well. */
static int largest_p = MAX_P;
static int random_samples = 400;
#define MAX_KILLS 3
#define AGREEMENT (-2)   /* point: while survivors agree on the next plan */
#define FOLD_IN (-1)     /* point: fold-in; steps are 0..; then fold-out, hand-out */

typedef enum { BEFORE_SEND, AFTER_SEND } phase;
typedef enum { PROMPT, EAGER } progress;

typedef struct {
    int rank, round, point;   /* point: AGREEMENT, FOLD_IN, step, steps (fold-out), steps+1 */
    phase when;
} kill;

typedef struct {
    int p;
    progress mode;
    bool alive[MAX_P];
    ftc_holdings held[MAX_P];
    ftc_holdings seen[MAX_P]; /* per rank: union of its holdings at every detection */
    const kill *kills;
    int nkills;
    char why[256];
} world;

static bool fail_world(world *w, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(w->why, sizeof(w->why), format, args);
    va_end(args);
    return false;
}

/* Does `rank` die at (round, point)? Sets *sends for a death after sending. */
static bool dies_at(const world *w, int rank, int round, int point, bool *sends)
{
    for (int k = 0; k < w->nkills; k++) {
        const kill *x = &w->kills[k];
        if (x->rank == rank && x->round == round && x->point == point) {
            *sends = x->when == AFTER_SEND;
            return true;
        }
    }
    return false;
}

/* One round's transfers, as the simulator runs them. */
typedef struct {
    world *w;
    int round;
    bool failure;          /* someone died or stalled in this round */
    bool stalled[MAX_P];   /* saw a failure: makes no more progress */
} round_state;

/* Rank `from` sends at this point if alive, not stalled, and not killed
 * before sending; a kill after sending still delivers, then the rank dies. */
static bool sends_at(round_state *rs, int from, int point)
{
    world *w = rs->w;
    bool sends_then_dies = false;
    if (!w->alive[from] || rs->stalled[from])
        return false;
    if (dies_at(w, from, rs->round, point, &sends_then_dies)) {
        w->alive[from] = false;
        rs->failure = true;
        return sends_then_dies;
    }
    return true;
}

static bool combine(world *w, int into, int from_value_of, const ftc_holdings *value)
{
    if (!ftc_holdings_disjoint(&w->held[into], value))
        return fail_world(w, "rank %d would count a contribution twice (from %d)", into,
                          from_value_of);
    ftc_holdings_unite(&w->held[into], value);
    return true;
}

/* A one-way transfer that replaces (hand-out, fold-out) or adds (fold-in). */
static bool transfer(round_state *rs, int from, int to, int point, bool add)
{
    world *w = rs->w;
    ftc_holdings value;
    ftc_holdings_init(&value, w->p);
    ftc_holdings_copy(&value, &w->held[from]);
    const bool delivered = sends_at(rs, from, point);
    bool ok = true;
    if (w->alive[to] && !rs->stalled[to]) {
        if (!delivered) {
            rs->stalled[to] = true;
            rs->failure = true;
        } else if (add) {
            ok = combine(w, to, from, &value);
        } else if (!ftc_holdings_subset(&w->held[to], &value)) {
            ok = fail_world(w, "rank %d would receive a result that misses its own data", to);
        } else {
            ftc_holdings_copy(&w->held[to], &value);
        }
    }
    ftc_holdings_destroy(&value);
    return ok;
}

/* Receivers that are killed at this point before sending die too (they
 * have nothing to send here, but the kill point is theirs). */
static void kill_silent_ranks(round_state *rs, int point)
{
    world *w = rs->w;
    for (int r = 0; r < w->p; r++) {
        bool ignored;
        if (w->alive[r] && dies_at(w, r, rs->round, point, &ignored)) {
            w->alive[r] = false;
            rs->failure = true;
        }
    }
}

/* In the prompt model, everyone stops once a failure has happened. */
static void apply_progress_model(round_state *rs)
{
    if (rs->w->mode == PROMPT && rs->failure)
        for (int r = 0; r < rs->w->p; r++)
            rs->stalled[r] = true;
}

static bool exchange_step(round_state *rs, const int *participants, int m, int step)
{
    world *w = rs->w;
    ftc_holdings before[MAX_P];
    bool sent[MAX_P] = { false };
    for (int i = 0; i < m; i++) {
        ftc_holdings_init(&before[i], w->p);
        ftc_holdings_copy(&before[i], &w->held[participants[i]]);
    }
    for (int i = 0; i < m; i++)
        sent[i] = sends_at(rs, participants[i], step);
    bool ok = true;
    for (int i = 0; i < m && ok; i++) {
        const int me = participants[i], partner = ftc_rd_partner(i, step);
        if (!w->alive[me] || rs->stalled[me])
            continue;
        if (!sent[partner] || !w->alive[me]) {
            rs->stalled[me] = true;
            rs->failure = true;
            continue;
        }
        ok = combine(w, me, participants[partner], &before[partner]);
    }
    for (int i = 0; i < m; i++)
        ftc_holdings_destroy(&before[i]);
    return ok;
}

static bool run_reduction(round_state *rs, const ftc_recovery_plan *plan)
{
    const int n = plan->nmasters, m = ftc_rd_actives(n), steps = ftc_rd_steps(n);
    const int *who = plan->masters;
    bool ok = true;
    kill_silent_ranks(rs, FOLD_IN);
    for (int i = m; i < n && ok; i++)
        ok = transfer(rs, who[i], who[i - m], FOLD_IN, true);
    apply_progress_model(rs);
    for (int step = 0; step < steps && ok; step++) {
        ok = exchange_step(rs, who, m, step);
        apply_progress_model(rs);
    }
    kill_silent_ranks(rs, steps);
    for (int i = m; i < n && ok; i++)
        ok = transfer(rs, who[i - m], who[i], steps, false);
    apply_progress_model(rs);
    return ok;
}

static bool hand_out(round_state *rs, const ftc_recovery_plan *plan, int point)
{
    world *w = rs->w;
    bool ok = true;
    kill_silent_ranks(rs, point);
    for (int r = 0; r < w->p && ok; r++)
        if (w->alive[r] && plan->master_of[r] != r && plan->master_of[r] >= 0)
            ok = transfer(rs, plan->master_of[r], r, point, false);
    return ok;
}

static void note_detection(world *w)
{
    for (int r = 0; r < w->p; r++)
        if (w->alive[r])
            ftc_holdings_unite(&w->seen[r], &w->held[r]);
}

static bool check_final(world *w, const ftc_recovery_plan *plan)
{
    for (int r = 0; r < w->p; r++) {
        if (ftc_holdings_has(&plan->lost, r) && w->alive[r])
            return fail_world(w, "rank %d is alive but its contribution is reported lost", r);
        if (ftc_holdings_has(&plan->lost, r) == ftc_holdings_has(&plan->result, r))
            return fail_world(w, "rank %d is in both or neither of S and lost", r);
        if (w->alive[r] && !ftc_holdings_equal(&w->held[r], &plan->result))
            return fail_world(w, "survivor %d does not hold exactly S", r);
        if (w->alive[r] && !ftc_holdings_subset(&w->seen[r], &plan->result))
            return fail_world(w, "S misses a contribution survivor %d held at a detection", r);
    }
    return true;
}

/* Runs the protocol to the end; false (with w->why) if a rule was broken. */
static bool run_protocol(world *w)
{
    for (int r = 0; r < w->p; r++) {
        w->alive[r] = true;
        ftc_holdings_clear(&w->held[r]);
        ftc_holdings_add(&w->held[r], r);
    }
    for (int r = 0; r < w->p; r++)
        ftc_holdings_clear(&w->seen[r]);
    for (int round = 0; round <= w->nkills + 1; round++) {
        round_state rs = { .w = w, .round = round };
        kill_silent_ranks(&rs, AGREEMENT);
        bool anyone = false;
        for (int r = 0; r < w->p; r++)
            anyone |= w->alive[r];
        if (!anyone)
            return true;   /* everybody died: nothing to check */
        note_detection(w);
        ftc_recovery_plan plan;
        ftc_plan_status status = ftc_recovery_plan_build(&plan, w->p, w->alive, w->held);
        bool ok = status == FTC_PLAN_OK
            || fail_world(w, "round %d: planning failed with status %d", round, status);
        const int steps = ftc_rd_steps(plan.nmasters);
        ok = ok && run_reduction(&rs, &plan) && hand_out(&rs, &plan, steps + 1);
        if (ok && !rs.failure)
            ok = check_final(w, &plan);
        const bool finished = ok && !rs.failure;
        ftc_recovery_plan_destroy(&plan);
        if (!ok)
            return false;
        if (finished)
            return true;
    }
    return fail_world(w, "did not finish within %d rounds", w->nkills + 2);
}

/* ---- drivers -------------------------------------------------------------- */

static void world_init(world *w, int p, progress mode)
{
    memset(w, 0, sizeof(*w));
    w->p = p;
    w->mode = mode;
    for (int r = 0; r < MAX_P; r++) {
        ftc_holdings_init(&w->held[r], p);
        ftc_holdings_init(&w->seen[r], p);
    }
}

static void world_destroy(world *w)
{
    for (int r = 0; r < MAX_P; r++) {
        ftc_holdings_destroy(&w->held[r]);
        ftc_holdings_destroy(&w->seen[r]);
    }
}

static void run_or_fail(world *w, const kill *kills, int nkills)
{
    w->kills = kills;
    w->nkills = nkills;
    if (run_protocol(w))
        return;
    char scenario[256] = "";
    for (int k = 0; k < nkills; k++) {
        size_t used = strlen(scenario);
        snprintf(scenario + used, sizeof(scenario) - used, " [rank %d round %d point %d %s]",
                 kills[k].rank, kills[k].round, kills[k].point,
                 kills[k].when == BEFORE_SEND ? "before-send" : "after-send");
    }
    fail_msg("p=%d %s kills%s: %s", w->p, w->mode == PROMPT ? "prompt" : "eager", scenario,
             w->why);
}

/* Points of round 0 for p ranks: fold-in, every step, fold-out, hand-out. */
static int last_point(int p) { return ftc_rd_steps(p) + 1; }

static void no_failure(void **state)
{
    (void)state;
    world w;
    for (int p = 1; p <= largest_p; p++) {
        world_init(&w, p, PROMPT);
        run_or_fail(&w, NULL, 0);
        world_destroy(&w);
    }
}

static void one_failure_everywhere(void **state)
{
    (void)state;
    world w;
    for (int mode = PROMPT; mode <= EAGER; mode++)
        for (int p = 1; p <= largest_p; p++) {
            world_init(&w, p, (progress)mode);
            for (int r = 0; r < p; r++)
                for (int point = FOLD_IN; point <= last_point(p); point++)
                    for (int when = BEFORE_SEND; when <= AFTER_SEND; when++) {
                        const kill k = { r, 0, point, (phase)when };
                        run_or_fail(&w, &k, 1);
                    }
            world_destroy(&w);
        }
}

/* Two failures, every pair of ranks and points, in round 0 and in the
 * recovery round 1 (agreement included), for small p. */
static void every_pair_of_failures_small_p(void **state)
{
    (void)state;
    world w;
    for (int mode = PROMPT; mode <= EAGER; mode++)
        for (int p = 2; p <= 8; p++) {
            world_init(&w, p, (progress)mode);
            const int points = last_point(p);
            for (int a = 0; a < p; a++)
                for (int b = a + 1; b < p; b++)
                    for (int pa = FOLD_IN; pa <= points; pa++)
                        for (int pb = AGREEMENT; pb <= points; pb++)
                            for (int round_b = 0; round_b <= 1; round_b++)
                                for (int phases = 0; phases < 4; phases++) {
                                    if (round_b == 0 && pb == AGREEMENT)
                                        continue;
                                    const kill ks[2] = {
                                        { a, 0, pa, (phase)(phases & 1) },
                                        { b, round_b, pb, (phase)(phases >> 1) },
                                    };
                                    run_or_fail(&w, ks, 2);
                                }
            world_destroy(&w);
        }
}

/* A small, fixed pseudo-random generator: the same scenarios on every run. */
static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void random_multiple_failures(void **state)
{
    (void)state;
    uint32_t seed = 20261122u;
    world w;
    for (int mode = PROMPT; mode <= EAGER; mode++)
        for (int p = 2; p <= largest_p; p++) {
            world_init(&w, p, (progress)mode);
            for (int sample = 0; sample < random_samples; sample++) {
                kill ks[MAX_KILLS];
                const int nkills = 2 + (int)(next_random(&seed) % 2);
                for (int k = 0; k < nkills; k++) {
                    ks[k].rank = (int)(next_random(&seed) % (uint32_t)p);
                    ks[k].round = (int)(next_random(&seed) % 3);
                    ks[k].point = AGREEMENT
                        + (int)(next_random(&seed) % (uint32_t)(last_point(p) + 3));
                    if (ks[k].round == 0 && ks[k].point == AGREEMENT)
                        ks[k].point = FOLD_IN;
                    ks[k].when = (phase)(next_random(&seed) % 2);
                }
                run_or_fail(&w, ks, nkills);
            }
            world_destroy(&w);
        }
}

/* A whole block dead: what only it held is reported lost, nothing else. */
static void whole_block_lost_is_reported(void **state)
{
    (void)state;
    world w;
    world_init(&w, 8, PROMPT);
    /* After step 1, {0,1,2,3} is held by 0..3 only; kill all four before step 2. */
    const kill ks[3] = { { 0, 0, 2, BEFORE_SEND }, { 1, 0, 2, BEFORE_SEND }, { 2, 0, 2, BEFORE_SEND } };
    w.kills = ks;
    w.nkills = 3;
    assert_true(run_protocol(&w));
    world_destroy(&w);

    bool alive[4] = { true, false, true, true };
    ftc_holdings held[4];
    for (int r = 0; r < 4; r++) {
        ftc_holdings_init(&held[r], 4);
        ftc_holdings_add(&held[r], r);
    }
    ftc_recovery_plan plan;
    assert_int_equal(ftc_recovery_plan_build(&plan, 4, alive, held), FTC_PLAN_OK);
    assert_true(ftc_holdings_has(&plan.lost, 1));
    assert_int_equal(ftc_holdings_count(&plan.lost), 1);
    assert_int_equal(plan.nmasters, 3);
    ftc_recovery_plan_destroy(&plan);
    for (int r = 0; r < 4; r++)
        ftc_holdings_destroy(&held[r]);
}

/* Overlapping, non-nested holdings can only come from a bug: refused. */
static void overlapping_holdings_are_refused(void **state)
{
    (void)state;
    bool alive[3] = { true, true, true };
    ftc_holdings held[3];
    for (int r = 0; r < 3; r++)
        ftc_holdings_init(&held[r], 3);
    ftc_holdings_add(&held[0], 0);
    ftc_holdings_add(&held[0], 1);
    ftc_holdings_add(&held[1], 1);
    ftc_holdings_add(&held[1], 2);
    ftc_holdings_add(&held[2], 2);
    ftc_recovery_plan plan;
    assert_int_equal(ftc_recovery_plan_build(&plan, 3, alive, held), FTC_PLAN_NOT_LAMINAR);
    ftc_recovery_plan_destroy(&plan);
    for (int r = 0; r < 3; r++)
        ftc_holdings_destroy(&held[r]);
}

int main(void)
{
    const char *quick = getenv("FTCOLL_UNIT_QUICK");
    if (quick && strcmp(quick, "1") == 0) {
        largest_p = 12;
        random_samples = 40;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_failure),
        cmocka_unit_test(one_failure_everywhere),
        cmocka_unit_test(every_pair_of_failures_small_p),
        cmocka_unit_test(random_multiple_failures),
        cmocka_unit_test(whole_block_lost_is_reported),
        cmocka_unit_test(overlapping_holdings_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
