/*
 * The fault-tolerant allreduce's protocol, modelled without MPI
 * (ft_model.[ch]: the model, its failure semantics and the checks) and
 * explored over deaths at *instants*: a rank dies between any two events
 * of any rank, over two consecutive calls of different lengths (3 and 7)
 * and the ftc_comm_free after them. The model drives the real pure code:
 * ftc_ft_reconcile, ftc_recovery_plan_build, ftc_rd_holdings and the
 * recursive doubling's partner functions.
 *
 * Coverage:
 *   failure-free     every p in 1..64, lowest-rank-first, round-robin and
 *                    random orders.
 *   one death        every p in 1..8, every victim, every instant: the
 *                    failure-free run in a canonical order (lowest rank
 *                    first, and round-robin) is cut after each of its t
 *                    events and the victim dies there; from then on the
 *                    run goes on in the same order with the survivors
 *                    noticing the failure as late as they may, as early as
 *                    they may, and in SEEDS random orders (random detection
 *                    instants, eager or rendezvous sends, delayed receive
 *                    completions, random shrink and agreement outcomes).
 *   several deaths   two and three deaths at random instants of random
 *                    schedules, RANDOM_PER_P samples for every p in 1..64.
 *   negative control the same model with meetings that do not isolate an
 *                    epoch's messages and a tag window of 1: the checker
 *                    must see a message of one call matched by another (or
 *                    a contribution counted twice).
 * FTCOLL_UNIT_QUICK=1 (valgrind) shrinks the grids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ft_model.h"

static int one_death_max_p = 8;
static int seeds = 3;            /* random goings-on after each canonical prefix */
static int random_prefixes = 4;  /* random failure-free runs cut at every instant */
static int largest_p = FTM_MAX_P;
static int random_per_p = 6;

static char trace[1 << 18];

typedef struct {
    long runs, events, unmatched, belief_differs;
    int most_meetings;
} tally;

static void count(tally *t, const ftm_outcome *o)
{
    t->runs++;
    t->events += o->events;
    t->unmatched += o->unmatched;
    t->belief_differs += o->belief_differs;
    t->most_meetings = o->most_meetings > t->most_meetings ? o->most_meetings : t->most_meetings;
}

static void print_tally(const char *what, const tally *t)
{
    printf("[ model    ] %s: %ld runs, %ld events, most meetings by one rank %d, %ld messages "
           "stranded, %ld values whose data differed from their holdings when recorded\n",
           what, t->runs, t->events, t->most_meetings, t->unmatched, t->belief_differs);
}

/* Prints the failing run's schedule, then fails the test. */
static void fail_with_schedule(const ftm_scenario *s, const char *why)
{
    char text[512];
    ftm_describe(s, text, sizeof(text));
    ftm_outcome again;
    ftm_run(s, &again, trace, sizeof(trace));
    fprintf(stderr, "---- schedule of %s\n%s---- end\n", text, trace);
    fail_msg("%s: %s", text, why);
}

static void run_and_check(const ftm_scenario *s, tally *t)
{
    ftm_outcome o;
    ftm_run(s, &o, NULL, 0);
    count(t, &o);
    if (!o.ok)
        fail_with_schedule(s, o.why);
}

/* Events of the failure-free run of this scenario: the instants to die at. */
static long failure_free_events(const ftm_scenario *base)
{
    ftm_scenario s = *base;
    s.nkills = 0;
    ftm_outcome o;
    ftm_run(&s, &o, NULL, 0);
    if (!o.ok)
        fail_with_schedule(&s, o.why);
    return o.events;
}

static long instants_in_order(int p, ftm_order order)
{
    ftm_scenario s = ftm_default(p);
    s.prefix_order = s.order = order;
    return failure_free_events(&s);
}

static uint32_t mix(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u + (a << 6) + (a >> 2));
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h ? h : 1u;
}

/* ---- failure-free -------------------------------------------------------- */

static void failure_free(void **state)
{
    (void)state;
    tally t = { 0 };
    for (int p = 1; p <= largest_p; p++) {
        for (int order = FTM_ORDER_LOWEST; order <= FTM_ORDER_RANDOM; order++) {
            ftm_scenario s = ftm_default(p);
            s.prefix_order = s.order = (ftm_order)order;
            s.seed = mix((uint32_t)p, (uint32_t)order);
            ftm_outcome o;
            ftm_run(&s, &o, NULL, 0);
            count(&t, &o);
            if (!o.ok)
                fail_with_schedule(&s, o.why);
            assert_int_equal(o.survivors, p);
            assert_int_equal(o.unmatched, 0);
            assert_int_equal(o.most_meetings, 2);   /* ftc_comm_survivors' and ftc_comm_free's */
        }
    }
    char what[96];
    snprintf(what, sizeof(what), "failure-free, p = 1..%d", largest_p);
    print_tally(what, &t);
}

/* ---- one death at every instant ------------------------------------------ */

/* After a canonical prefix: the same order with late and with early
 * detection, then random goings-on. */
static void after_canonical_prefix(ftm_scenario *s, tally *t)
{
    s->seed = 0;
    s->order = s->prefix_order;
    s->detect = FTM_DETECT_LATE;
    run_and_check(s, t);
    s->detect = FTM_DETECT_EARLY;
    run_and_check(s, t);
    s->order = FTM_ORDER_RANDOM;
    s->detect = FTM_DETECT_ANY;
    for (int k = 0; k < seeds; k++) {
        s->seed = mix(mix((uint32_t)s->p, (uint32_t)s->kills[0].victim),
                      mix((uint32_t)s->kills[0].after, (uint32_t)k + 1u));
        s->network = k % 2 ? FTM_NETWORK_SLOW : FTM_NETWORK_ANY;
        run_and_check(s, t);
    }
}

/* Victim v dies after event t of `prefix`'s failure-free run, for every v
 * and t. A random prefix goes on with the same random stream. */
static void every_instant(const ftm_scenario *prefix, tally *t)
{
    const long instants = failure_free_events(prefix);
    for (int v = 0; v < prefix->p; v++)
        for (long after = 0; after < instants; after++) {
            ftm_scenario s = *prefix;
            s.nkills = 1;
            s.kills[0] = (ftm_kill){ .victim = v, .after = after };
            if (prefix->prefix_order == FTM_ORDER_RANDOM)
                run_and_check(&s, t);
            else
                after_canonical_prefix(&s, t);
        }
}

static void one_death_every_instant(void **state)
{
    (void)state;
    tally t = { 0 };
    for (int p = 1; p <= one_death_max_p; p++) {
        for (int order = FTM_ORDER_LOWEST; order <= FTM_ORDER_ROUND_ROBIN; order++) {
            ftm_scenario s = ftm_default(p);
            s.prefix_order = s.order = (ftm_order)order;
            every_instant(&s, &t);
        }
        for (int k = 0; k < random_prefixes; k++) {
            ftm_scenario s = ftm_default(p);
            s.prefix_order = s.order = FTM_ORDER_RANDOM;
            s.detect = FTM_DETECT_ANY;
            s.network = k % 2 ? FTM_NETWORK_SLOW : FTM_NETWORK_ANY;
            s.seed = mix((uint32_t)p, 1000u + (uint32_t)k);
            every_instant(&s, &t);
        }
    }
    char what[96];
    snprintf(what, sizeof(what), "one death at every instant, p = 1..%d", one_death_max_p);
    print_tally(what, &t);
}

/* ---- two and three deaths at random instants ----------------------------- */

static ftm_scenario random_deaths(int p, uint32_t *seed, long instants)
{
    ftm_scenario s = ftm_default(p);
    s.prefix_order = s.order = FTM_ORDER_RANDOM;
    s.detect = FTM_DETECT_ANY;
    *seed = mix(*seed, (uint32_t)p);
    s.seed = *seed;
    s.network = (*seed >> 8) % 2u ? FTM_NETWORK_SLOW : FTM_NETWORK_ANY;
    s.nkills = 2 + (int)(*seed % 2u);
    for (int k = 0; k < s.nkills; k++) {
        *seed = mix(*seed, (uint32_t)k);
        s.kills[k].victim = (int)(*seed % (uint32_t)p);
        *seed = mix(*seed, 77u);
        s.kills[k].after = (long)(*seed % (uint32_t)instants);
    }
    return s;
}

static void several_deaths_at_random(void **state)
{
    (void)state;
    tally t = { 0 };
    uint32_t seed = 20261122u;
    for (int p = 1; p <= largest_p; p++) {
        const long instants = instants_in_order(p, FTM_ORDER_LOWEST);
        for (int sample = 0; sample < random_per_p; sample++) {
            const ftm_scenario s = random_deaths(p, &seed, instants);
            run_and_check(&s, &t);
        }
    }
    char what[96];
    snprintf(what, sizeof(what), "two or three deaths at random instants, p = 1..%d", largest_p);
    print_tally(what, &t);
}

/* ---- the epoch's isolation, and the negative control ----------------------- */

typedef struct {
    long runs, by_kind[FTM_MODEL_ERROR + 1];
    char example[FTM_MODEL_ERROR + 1][1024];
} sweep;

/* One death at every instant of the lowest-rank-first run, for p = 2..6,
 * going on canonically and in `seeds` random ways: by kind of outcome. */
static void sweep_one_death(bool isolate_epochs, int window, sweep *out)
{
    memset(out, 0, sizeof(*out));
    for (int p = 2; p <= 6; p++) {
        const long instants = instants_in_order(p, FTM_ORDER_LOWEST);
        for (int v = 0; v < p; v++)
            for (long after = 0; after < instants; after++)
                for (int k = 0; k <= seeds; k++) {
                    ftm_scenario s = ftm_default(p);
                    s.isolate_epochs = isolate_epochs;
                    s.window = window;
                    s.nkills = 1;
                    s.kills[0] = (ftm_kill){ .victim = v, .after = after };
                    s.order = k == 0 ? FTM_ORDER_LOWEST : FTM_ORDER_RANDOM;
                    s.detect = k == 0 ? FTM_DETECT_LATE : FTM_DETECT_ANY;
                    s.seed = mix(mix((uint32_t)p, (uint32_t)v),
                                 mix((uint32_t)after, (uint32_t)k));
                    ftm_outcome o;
                    ftm_run(&s, &o, NULL, 0);
                    out->runs++;
                    out->by_kind[o.violation]++;
                    char *example = out->example[o.violation];
                    if (!o.ok && !example[0]) {
                        char text[320];
                        ftm_describe(&s, text, sizeof(text));
                        snprintf(example, sizeof(out->example[0]), "%s: %s", text, o.why);
                    }
                }
    }
}

static long wrong_matches(const sweep *w)
{
    return w->by_kind[FTM_MATCHED_OTHER_CALL] + w->by_kind[FTM_MATCHED_OTHER_EPOCH]
         + w->by_kind[FTM_MATCHED_WRONG];
}

/* With epochs, even a tag window of 1 (two consecutive calls on one tag)
 * never lets a receive match a message of another call or epoch. */
static void epochs_alone_isolate_calls(void **state)
{
    (void)state;
    sweep w;
    sweep_one_death(true, 1, &w);
    printf("[ model    ] epochs on, window 1: %ld runs, %ld wrong matches\n", w.runs,
           wrong_matches(&w));
    for (int kind = FTM_MATCHED_OTHER_CALL; kind <= FTM_MATCHED_WRONG; kind++)
        if (w.by_kind[kind] > 0)
            fail_msg("%s", w.example[kind]);
}

/* NEGATIVE control: meetings that do not isolate an epoch's messages, and a
 * window of 1. A message an interrupted attempt of call 1 left in the
 * network reaches a receive of call 2: the bug class seen in real runs,
 * which the checker must see. */
static void negative_control_is_caught(void **state)
{
    (void)state;
    sweep w;
    sweep_one_death(false, 1, &w);
    printf("[ model    ] NEGATIVE control, epochs off, window 1: %ld runs, %ld caught matching "
           "another call's message, %ld another epoch's, %ld counting twice; e.g. %s\n",
           w.runs, w.by_kind[FTM_MATCHED_OTHER_CALL], w.by_kind[FTM_MATCHED_OTHER_EPOCH],
           w.by_kind[FTM_COUNTED_TWICE], w.example[FTM_MATCHED_OTHER_CALL]);
    assert_true(w.by_kind[FTM_MATCHED_OTHER_CALL] > 0);
    assert_non_null(strstr(w.example[FTM_MATCHED_OTHER_CALL], "for call 2"));
    assert_non_null(strstr(w.example[FTM_MATCHED_OTHER_CALL], "a message of call 1"));
}

int main(void)
{
    const char *quick = getenv("FTCOLL_UNIT_QUICK");
    if (quick && strcmp(quick, "1") == 0) {
        one_death_max_p = 4;
        seeds = 1;
        random_prefixes = 2;
        largest_p = 12;
        random_per_p = 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failure_free),
        cmocka_unit_test(one_death_every_instant),
        cmocka_unit_test(several_deaths_at_random),
        cmocka_unit_test(epochs_alone_isolate_calls),
        cmocka_unit_test(negative_control_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
