/*
 * The scatterv's recovery (the engine's round for blocks routed to their
 * owners) for every process count 1..64, without MPI: every state a
 * failure can leave each rank in, the holdings the flow gives it there
 * (src/scatter/scatterv_linear.c), and the round's plan over them
 * (ftc_recovery_block_sender with each block's owner as its destination).
 * A rank other than the root is dead before the call, dead during it (its
 * block arrived or not), inside it (arrived or not), past it, or past it
 * after the root's word; the root is dead before the call or during it,
 * inside it, past it with its copies kept, or past it once every rank
 * acknowledged. Checked for each: every survivor inside the call that
 * lacks its block gets it from exactly one sender, the root, whenever the
 * root takes part (so a survivor returns MPIX_ERR_PROC_FAILED only with
 * the root dead); nobody is asked for a block it lacks; no block goes to
 * a rank past the call or dead. Exhaustive for p <= 5 (every root), random
 * states for every p in 1..64.
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

enum { MAX_P = 64, RANDOM_CASES = 400 };

/* A rank other than the root, when the survivors meet. */
typedef enum {
    DEAD_BEFORE,     /* dead before the call */
    DIED_WITHOUT,    /* died in the call before its block arrived */
    DIED_WITH,       /* died in the call after its block arrived */
    INSIDE_WITHOUT,  /* inside the call, its block not arrived */
    INSIDE_WITH,     /* inside the call, its block arrived (acknowledging, or waiting
                      * for the word, or not yet returned) */
    PAST,            /* returned with its block */
    PAST_WORD,       /* returned after the root's word */
    STATES
} rank_state;

typedef enum {
    ROOT_DEAD_BEFORE,   /* no block ever left it */
    ROOT_DIED,          /* during the call: what it sent arrived or not */
    ROOT_INSIDE,        /* holds every block */
    ROOT_PAST_KEPT,     /* returned, its copies kept: holds every block */
    ROOT_PAST_ACKED,    /* returned once every rank acknowledged: keeps nothing */
    ROOT_STATES
} root_state;

static bool survives(rank_state s) { return s >= INSIDE_WITHOUT; }
static bool has_block(rank_state s) { return s == DIED_WITH || s >= INSIDE_WITH; }
static bool inside(rank_state s) { return s == INSIDE_WITHOUT || s == INSIDE_WITH; }

typedef struct {
    int p, root;
    rank_state state[MAX_P];
    root_state root_is;
} scenario;

/* Whether the flow can leave the ranks so: blocks come from a root that
 * entered the call; the word and a root past the call without copies come
 * once every live rank acknowledged, that is held its block. */
static bool possible(const scenario *s)
{
    bool everyone_holds = true, word = false;
    for (int q = 0; q < s->p; q++) {
        if (q == s->root)
            continue;
        if (s->root_is == ROOT_DEAD_BEFORE && has_block(s->state[q]))
            return false;
        everyone_holds = everyone_holds && (s->state[q] == DEAD_BEFORE || has_block(s->state[q]));
        word = word || s->state[q] == PAST_WORD;
    }
    if (word && !everyone_holds)
        return false;
    if (word && (s->root_is == ROOT_DEAD_BEFORE || s->root_is == ROOT_PAST_KEPT))
        return false;   /* the word comes from a root that heard every acknowledgement */
    return s->root_is != ROOT_PAST_ACKED || everyone_holds;
}

/* Each participant's holdings, as the flow leaves them: the root inside
 * or past with copies every block; a rank past after the word, or a root
 * past with every acknowledgement, nothing; any other survivor its own
 * block once it arrived. */
static void holdings_of(const scenario *s, bool *participant, ftc_holdings *held)
{
    for (int q = 0; q < s->p; q++) {
        ftc_holdings_clear(&held[q]);
        participant[q] = q == s->root
            ? s->root_is == ROOT_INSIDE || s->root_is == ROOT_PAST_KEPT ||
              s->root_is == ROOT_PAST_ACKED
            : survives(s->state[q]);
    }
    if (s->root_is == ROOT_INSIDE || s->root_is == ROOT_PAST_KEPT)
        for (int q = 0; q < s->p; q++)
            ftc_holdings_add(&held[s->root], q);
    for (int q = 0; q < s->p; q++)
        if (q != s->root && participant[q] && has_block(s->state[q]) && s->state[q] != PAST_WORD)
            ftc_holdings_add(&held[q], q);
}

static void check_scenario(const scenario *s)
{
    ftc_holdings held[MAX_P];
    bool participant[MAX_P];
    for (int q = 0; q < s->p; q++)
        assert_true(ftc_holdings_init(&held[q], s->p));
    holdings_of(s, participant, held);
    const bool root_serves = participant[s->root] && s->root_is != ROOT_PAST_ACKED;
    for (int owner = 0; owner < s->p; owner++) {
        const int from = ftc_recovery_block_sender(s->p, participant, held, owner, owner);
        const bool needs = owner != s->root && inside(s->state[owner]) &&
                           !ftc_holdings_has(&held[owner], owner);
        if (from >= 0) {   /* only the root sends, and only what it holds */
            assert_int_equal(from, s->root);
            assert_true(ftc_holdings_has(&held[from], owner));
        }
        if (needs && root_serves)
            assert_int_equal(from, s->root);   /* every survivor inside gets its block */
        if (needs && !root_serves)             /* lost only with the root dead */
            assert_true(s->root_is == ROOT_DEAD_BEFORE || s->root_is == ROOT_DIED);
        if (owner == s->root && participant[owner])
            assert_int_equal(from, -1);        /* the root holds its own */
    }
    for (int q = 0; q < s->p; q++)
        ftc_holdings_destroy(&held[q]);
}

static void fill_states(scenario *s, long code)
{
    for (int q = 0; q < s->p; q++) {
        if (q == s->root)
            continue;
        s->state[q] = (rank_state)(code % STATES);
        code /= STATES;
    }
}

/* Every state of every rank and root: p <= 5. */
static void test_every_state_small(void **unused)
{
    (void)unused;
    long checked = 0;
    for (int p = 1; p <= 5; p++) {
        long combinations = 1;
        for (int i = 1; i < p; i++)
            combinations *= STATES;
        for (int root = 0; root < p; root++)
            for (long c = 0; c < combinations; c++)
                for (int r = 0; r < ROOT_STATES; r++) {
                    scenario s = { .p = p, .root = root, .root_is = (root_state)r };
                    fill_states(&s, c);
                    if (possible(&s)) {
                        check_scenario(&s);
                        checked++;
                    }
                }
    }
    assert_true(checked > 1000);
}

/* Random states for every p in 1..64, the root anywhere. */
static void test_random_states(void **unused)
{
    (void)unused;
    srand(23);
    long checked = 0;
    for (int p = 1; p <= MAX_P; p++)
        for (int i = 0; i < RANDOM_CASES; i++) {
            scenario s = { .p = p, .root = rand() % p,
                           .root_is = (root_state)(rand() % ROOT_STATES) };
            for (int q = 0; q < p; q++)
                s.state[q] = (rank_state)(rand() % STATES);
            if (possible(&s)) {
                check_scenario(&s);
                checked++;
            }
        }
    assert_true(checked > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_state_small),
        cmocka_unit_test(test_random_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
