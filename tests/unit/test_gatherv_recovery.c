/*
 * The gatherv's recovery (the engine's round for blocks only a root needs)
 * for every process count 1..64, without MPI: every state a failure can
 * leave each rank in, the holdings the flow gives it there
 * (src/gather/gatherv_linear.c), and the round's plan over them
 * (ftc_recovery_block_sender). A rank other than the root is dead before
 * the call, dead during it (its block sent or not), inside it (sent or
 * not), past it with the copy of its block kept, or past it after the
 * root's word; the root is dead, past the call, or inside it with the
 * blocks that arrived in its order. Checked for each: S holds every
 * survivor's block (the gatherv's promise) and every block that had
 * reached the root; every block of S the root lacks has exactly one
 * sender, which holds it and is its owner; nobody else is asked; no block
 * outside S is a survivor's. Exhaustive for p <= 5 (every root), random
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
    DEAD_BEFORE,    /* dead before the call: its block never existed */
    DIED_UNSENT,    /* died in the call before its block left */
    DIED_SENT,      /* died in the call after its block left */
    INSIDE_UNSENT,  /* inside the call, its send not complete */
    INSIDE_SENT,    /* inside the call, its block sent (waiting for the word, or not yet returned) */
    PAST_KEPT,      /* returned, its block's copy kept */
    PAST_WORD,      /* returned after the root's word: nothing kept */
    STATES
} rank_state;

typedef enum { ROOT_DEAD, ROOT_PAST, ROOT_INSIDE, ROOT_STATES } root_state;

static bool survives(rank_state s) { return s >= INSIDE_UNSENT; }
static bool sent(rank_state s) { return s == DIED_SENT || s >= INSIDE_SENT; }

typedef struct {
    int p, root;
    rank_state state[MAX_P];
    root_state root_is;
    int arrived;   /* the root inside: blocks taken, in its order */
} scenario;

/* The root's j-th other rank (j = 1 ..), in the order it waits: ranks
 * after it, wrapping, those dead before the call left out. *count: how many. */
static int order_of(const scenario *s, int *order)
{
    int count = 0;
    for (int j = 1; j < s->p; j++) {
        const int q = (s->root + j) % s->p;
        if (s->state[q] != DEAD_BEFORE)
            order[count++] = q;
    }
    return count;
}

/* Whether the flow can leave the ranks so: the root takes blocks in its
 * order, only sent ones; the word (a rank past it) comes once every live
 * block arrived, so the root is not inside short of them; a root past the
 * call had every block, so nobody still waits to send. */
static bool possible(const scenario *s)
{
    int order[MAX_P];
    const int others = order_of(s, order);
    if (s->root_is == ROOT_INSIDE) {
        if (s->arrived > others)
            return false;
        for (int j = 0; j < s->arrived; j++)
            if (!sent(s->state[order[j]]))
                return false;
    }
    for (int q = 0; q < s->p; q++) {
        if (q == s->root)
            continue;
        const bool all_arrived = s->root_is != ROOT_INSIDE || s->arrived == others;
        if (s->state[q] == PAST_WORD && !all_arrived)
            return false;
        if (s->root_is == ROOT_PAST && (s->state[q] == INSIDE_UNSENT || s->state[q] == DIED_UNSENT))
            return false;
    }
    return true;
}

/* Each participant's holdings, as the flow leaves them. */
static void holdings_of(const scenario *s, bool *participant, ftc_holdings *held)
{
    int order[MAX_P];
    order_of(s, order);
    for (int q = 0; q < s->p; q++) {
        ftc_holdings_clear(&held[q]);
        participant[q] = q == s->root ? s->root_is != ROOT_DEAD : survives(s->state[q]);
    }
    if (s->root_is == ROOT_INSIDE) {
        ftc_holdings_add(&held[s->root], s->root);
        for (int j = 0; j < s->arrived; j++)
            ftc_holdings_add(&held[s->root], order[j]);
    }
    /* a root past the call serves with empty holdings, and so does a rank
     * past it after the word; any other survivor holds its own block */
    for (int q = 0; q < s->p; q++)
        if (q != s->root && participant[q] && s->state[q] != PAST_WORD)
            ftc_holdings_add(&held[q], q);
}

static void check_scenario(const scenario *s)
{
    ftc_holdings held[MAX_P], all;
    bool participant[MAX_P];
    for (int q = 0; q < s->p; q++)
        assert_true(ftc_holdings_init(&held[q], s->p));
    assert_true(ftc_holdings_init(&all, s->p));
    holdings_of(s, participant, held);
    for (int q = 0; q < s->p; q++)
        if (participant[q])
            ftc_holdings_unite(&all, &held[q]);
    if (s->root_is == ROOT_INSIDE) {
        int order[MAX_P];
        order_of(s, order);
        /* the round: the root ends with its own and every block sent to it */
        for (int owner = 0; owner < s->p; owner++) {
            const int from = ftc_recovery_block_sender(s->p, participant, held, s->root, owner);
            if (ftc_holdings_has(&held[s->root], owner)) {
                assert_int_equal(from, -1);
            } else if (ftc_holdings_has(&all, owner)) {
                assert_int_equal(from, owner);   /* only owners hold their blocks */
                assert_true(participant[from]);
            } else {
                assert_int_equal(from, -1);
            }
        }
        for (int q = 0; q < s->p; q++)   /* every survivor's block */
            if (participant[q])
                assert_true(ftc_holdings_has(&all, q));
        for (int j = 0; j < s->arrived; j++)   /* every block that reached the root */
            assert_true(ftc_holdings_has(&all, order[j]));
    }
    for (int owner = 0; owner < s->p; owner++)   /* nobody is asked for what it lacks */
        for (int q = 0; q < s->p; q++)
            if (ftc_recovery_block_sender(s->p, participant, held, s->root, owner) == q)
                assert_true(ftc_holdings_has(&held[q], owner));
    for (int q = 0; q < s->p; q++)
        ftc_holdings_destroy(&held[q]);
    ftc_holdings_destroy(&all);
}

/* Every state of every rank, every root and arrival count: p <= 5. */
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
                for (int r = 0; r < ROOT_STATES; r++)
                    for (int arrived = 0; arrived < p; arrived++) {
                        scenario s = { .p = p, .root = root, .root_is = (root_state)r,
                                       .arrived = arrived };
                        long rest = c;
                        for (int q = 0; q < p; q++) {
                            if (q == root)
                                continue;
                            s.state[q] = (rank_state)(rest % STATES);
                            rest /= STATES;
                        }
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
    srand(17);
    for (int p = 1; p <= MAX_P; p++)
        for (int i = 0; i < RANDOM_CASES; i++) {
            scenario s = { .p = p, .root = rand() % p, .root_is = (root_state)(rand() % 3) };
            for (int q = 0; q < p; q++)
                s.state[q] = (rank_state)(rand() % STATES);
            int order[MAX_P];
            const int others = order_of(&s, order);
            s.arrived = 0;   /* the longest possible prefix, or a shorter one */
            while (s.arrived < others && sent(s.state[order[s.arrived]]))
                s.arrived++;
            s.arrived = s.arrived > 0 ? rand() % (s.arrived + 1) : 0;
            if (possible(&s))
                check_scenario(&s);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_state_small),
        cmocka_unit_test(test_random_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
