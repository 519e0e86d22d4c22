/*
 * The scatter family's recovery (the engine's round for blocks routed to
 * their owners) for every process count 1..64, without MPI: every state a
 * failure can leave each rank in, the holdings the flow gives it there
 * (src/scatter/ft_scatter.c), over the linear tree and the binomial one,
 * and the round's plan over them (ftc_recovery_block_sender with each
 * block's owner as its destination).
 * A rank other than the root is dead before the call, dead during it (its
 * block arrived or not), inside it (arrived or not), past it, or past it
 * after the root's word; the root is dead before the call or during it,
 * inside it, past it with its copies kept, or past it once every rank
 * acknowledged. Over the binomial tree (over the ranks alive at the
 * call) a rank's block arrives only through its parent, once the parent's
 * run arrived, and a rank with children still inside the call holds its
 * subtree's blocks too. Checked for each: every survivor inside the call
 * that lacks its block gets it from exactly one sender that holds it (the
 * root, or a rank above it in the tree still inside the call) whenever the
 * root takes part or such a rank holds it (so a survivor returns
 * MPIX_ERR_PROC_FAILED only with the root dead); nobody is asked for a
 * block it lacks; no block goes to a rank past the call or dead.
 * Exhaustive for p <= 5 (every root), random states for every p in 1..64.
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
#include "plans/vrank_tree.h"

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
    const ftc_vrank_tree *tree;   /* the flow's: linear with the root dead before */
} scenario;

/* The tree over the ranks alive at the call, from the root: rank q's
 * vrank, or -1 (dead before); *n the ranks in it. */
static int vrank_of(const scenario *s, int q, int *n)
{
    int v = -1, count = 0, before_root = 0;
    for (int r = 0; r < s->p; r++) {
        if (r != s->root && s->state[r] == DEAD_BEFORE)
            continue;
        if (r == q)
            v = count;
        if (r == s->root)
            before_root = count;
        count++;
    }
    *n = count;
    return v < 0 ? -1 : (v - before_root + count) % count;
}

/* The rank at vrank u. */
static int rank_at_vrank(const scenario *s, int u)
{
    int n;
    for (int r = 0; r < s->p; r++)
        if (vrank_of(s, r, &n) == u)
            return r;
    return -1;
}

/* Rank q's parent in the flow's tree. */
static int parent_of(const scenario *s, int q)
{
    int n;
    const int v = vrank_of(s, q, &n);
    return rank_at_vrank(s, s->tree->parent(v, n));
}

/* Whether `above` is a strict ancestor of q in the flow's tree. */
static bool is_above(const scenario *s, int above, int q)
{
    for (int r = parent_of(s, q); r >= 0; r = r == s->root ? -1 : parent_of(s, r))
        if (r == above)
            return true;
    return false;
}

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
    for (int q = 0; q < s->p; q++) {   /* a block comes down from a parent that got its run */
        if (q == s->root || !has_block(s->state[q]))
            continue;
        const int parent = parent_of(s, q);
        if (parent != s->root && !has_block(s->state[parent]))
            return false;
    }
    return s->root_is != ROOT_PAST_ACKED || everyone_holds;
}

/* Each participant's holdings, as the flow leaves them: the root inside
 * or past with copies every block; a rank past after the word, or a root
 * past with every acknowledgement, nothing; any other survivor its own
 * block once it arrived, and while it is inside the call its subtree's. */
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
    for (int q = 0; q < s->p; q++)
        for (int below = 0; below < s->p && q != s->root && s->state[q] == INSIDE_WITH; below++)
            if (below != s->root && s->state[below] != DEAD_BEFORE && is_above(s, q, below))
                ftc_holdings_add(&held[q], below);
}

/* Whether a rank above `owner` in the tree, inside the call, holds its block. */
static bool held_above(const scenario *s, int owner)
{
    for (int q = 0; q < s->p; q++)
        if (q != s->root && s->state[q] == INSIDE_WITH && is_above(s, q, owner))
            return true;
    return false;
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
        if (from >= 0) {   /* the root, or a rank above it inside the call: what it holds */
            assert_true(from == s->root || (inside(s->state[from]) && is_above(s, from, owner)));
            assert_true(ftc_holdings_has(&held[from], owner));
        }
        if (needs && (root_serves || held_above(s, owner)))
            assert_true(from >= 0);            /* every survivor inside gets its block */
        if (needs && from < 0)                 /* lost only with the root dead */
            assert_true(s->root_is == ROOT_DEAD_BEFORE || s->root_is == ROOT_DIED);
        if (owner == s->root && participant[owner])
            assert_int_equal(from, -1);        /* the root holds its own */
    }
    for (int q = 0; q < s->p; q++)
        ftc_holdings_destroy(&held[q]);
}

/* The flow's tree: with the root dead before the call no block moves,
 * over the linear tree whatever the algorithm. */
static const ftc_vrank_tree *tree_of(const scenario *s, bool binomial)
{
    return binomial && s->root_is != ROOT_DEAD_BEFORE ? &ftc_binomial_vrank_tree
                                                      : &ftc_linear_vrank_tree;
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
                for (int r = 0; r < ROOT_STATES * 2; r++) {
                    scenario s = { .p = p, .root = root, .root_is = (root_state)(r / 2) };
                    fill_states(&s, c);
                    s.tree = tree_of(&s, r % 2);
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
            s.tree = tree_of(&s, rand() % 2);
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
