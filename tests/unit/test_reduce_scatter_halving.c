/*
 * The reduce-scatter's recursive halving (src/reduce_scatter/recursive_halving.h),
 * without MPI, for every process count 1..64.
 *
 * Layout: with every rank alive and with dead ranks among them, and block
 * counts that include zeros, every exchange's span is the one its partner
 * expects, and every live rank ends with its block combined over every
 * live rank (each element followed as the set of live ranks it holds).
 *
 * Confirmation: each live rank's program is the flow's order of messages
 * (fold in, halving steps, fold out, then with three ranks or more the
 * dissemination barrier). Sends are buffered and messages typed, so a
 * receive that takes a message of another phase fails the test. A rank
 * dies between any two operations of a random interleaving (one or two
 * ranks; a dead rank's messages in flight kept or lost); the survivors run
 * on until none can move. Whenever any survivor completed the call, every
 * survivor holds its block: the recovery's "every survivor holds its
 * block, or no rank returned" (recursive_halving.c) has no third case.
 * Without failures every rank completes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "allreduce/rabenseifner.h"
#include "reduce_scatter/recursive_halving.h"

enum { MAX_P = 64, MAX_COUNT = 3, MAX_ELEMENTS = MAX_P * MAX_COUNT, LAYOUT_TRIALS = 40 };

static uint64_t all_of(int n) { return n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

/* A communicator of p ranks, `live` of them alive, blocks of `counts`. */
typedef struct {
    int p, n;
    int live[MAX_P];
    int starts[MAX_P + 1];
    ftc_halving_layout l;
} setup;

static void make_setup(setup *s, int p, bool holes, bool zeros)
{
    s->p = p;
    s->n = 0;
    for (int r = 0; r < p; r++)
        if (!holes || rand() % 3 != 0 || (r == p - 1 && s->n == 0))
            s->live[s->n++] = r;
    s->starts[0] = 0;
    for (int r = 0; r < p; r++)
        s->starts[r + 1] = s->starts[r] + (zeros ? rand() % (MAX_COUNT + 1) : 1 + rand() % MAX_COUNT);
    s->l = ftc_halving_layout_of(s->n);
}

static int share(const setup *s, int b)
{
    return ftc_halving_share_start(&s->l, b, s->live, s->starts, s->starts[s->p]);
}

typedef struct {
    int first, count;
} span;

static span shares(const setup *s, int first, int end)
{
    return (span){ share(s, first), share(s, end) - share(s, first) };
}

/* Live index `index`'s exchange at halving step k: its partner's live
 * index, and the spans it sends and receives. */
static int step_of(const setup *s, int index, int k, span *out, span *in)
{
    const int b = ftc_halving_participant(&s->l, index);
    const ftc_rabenseifner_step st = ftc_rabenseifner_reduce_scatter_step(b, s->l.m, k);
    *out = shares(s, st.send_first, st.send_end);
    *in = shares(s, st.receive_first, st.receive_end);
    return ftc_halving_active_index(&s->l, st.partner);
}

/* ---- layout --------------------------------------------------------------------------------- */

static uint64_t held[MAX_P][MAX_ELEMENTS], before[MAX_P][MAX_ELEMENTS];

static void check_layout(const setup *s)
{
    const int n = s->n, total = s->starts[s->p];
    for (int i = 0; i < n; i++)
        for (int e = 0; e < total; e++)
            held[i][e] = (uint64_t)1 << i;
    for (int i = 0; i < 2 * s->l.spares; i += 2)   /* fold in: the whole vector */
        for (int e = 0; e < total; e++)
            held[i + 1][e] |= held[i][e];
    for (int k = 0; k < ftc_halving_steps(&s->l); k++) {
        memcpy(before, held, sizeof(held));
        for (int i = 0; i < n; i++) {
            if (ftc_halving_is_spare(&s->l, i))
                continue;
            span out, in, partner_out, partner_in;
            const int j = step_of(s, i, k, &out, &in);
            assert_true(j >= 0 && j < n && j != i);
            assert_int_equal(step_of(s, j, k, &partner_out, &partner_in), i);
            assert_int_equal(in.first, partner_out.first);
            assert_int_equal(in.count, partner_out.count);
            assert_int_equal(out.first, partner_in.first);
            assert_int_equal(out.count, partner_in.count);
            for (int e = in.first; e < in.first + in.count; e++)
                held[i][e] |= before[j][e];
        }
    }
    for (int i = 0; i < 2 * s->l.spares; i += 2) {   /* fold out: the spare's block */
        const int r = s->live[i];
        for (int e = s->starts[r]; e < s->starts[r + 1]; e++)
            held[i][e] = held[i + 1][e];
    }
    for (int i = 0; i < n; i++) {
        const int r = s->live[i];
        for (int e = s->starts[r]; e < s->starts[r + 1]; e++)
            assert_true(held[i][e] == all_of(n));
    }
}

static void every_live_rank_gets_its_block_over_all(void **state)
{
    (void)state;
    srand(17);
    for (int p = 1; p <= MAX_P; p++)
        for (int t = 0; t < LAYOUT_TRIALS; t++) {
            setup s;
            make_setup(&s, p, t % 2 == 1, t % 4 >= 2);
            check_layout(&s);
        }
}

/* ---- the confirmation, with failures --------------------------------------------------------- */

typedef enum { SEND, RECEIVE, DONE, COMPLETE } op_kind;
typedef enum { FOLD_IN, HALVING, FOLD_OUT, CONFIRM } phase;

typedef struct {
    op_kind kind;
    int peer;
    phase of;
} op;

enum { MAX_OPS = 64, MAX_QUEUE = 16 };

typedef struct {
    op ops[MAX_OPS];
    int count, pc;
    bool alive, done;
} program;

typedef struct {
    phase q[MAX_QUEUE];
    int head, tail;
} channel;

static program prog[MAX_P];
static channel chan[MAX_P][MAX_P];   /* [from][to] */

static void add(program *g, op_kind kind, int peer, phase of)
{
    assert_true(g->count < MAX_OPS);
    g->ops[g->count++] = (op){ kind, peer, of };
}

/* The flow's order of messages (recursive_halving.c's run_flow). */
static void build_program(const setup *s, int i, program *g)
{
    memset(g, 0, sizeof(*g));
    g->alive = true;
    const int n = s->n;
    const bool paired = i < 2 * s->l.spares, spare = ftc_halving_is_spare(&s->l, i);
    if (paired)
        add(g, spare ? SEND : RECEIVE, spare ? i + 1 : i - 1, FOLD_IN);
    if (!spare)
        for (int k = 0; k < ftc_halving_steps(&s->l); k++) {
            span out, in;
            const int j = step_of(s, i, k, &out, &in);
            add(g, SEND, j, HALVING);
            add(g, RECEIVE, j, HALVING);
        }
    if (paired)
        add(g, spare ? RECEIVE : SEND, spare ? i + 1 : i - 1, FOLD_OUT);
    add(g, DONE, -1, FOLD_OUT);
    if (n >= 3)   /* with ULFM on three ranks or more (ftc_ft_keeps_results) */
        for (int d = 1; d < n; d *= 2) {
            add(g, SEND, (i + d) % n, CONFIRM);
            add(g, RECEIVE, (i - d + n) % n, CONFIRM);
        }
    add(g, COMPLETE, -1, CONFIRM);
}

static bool can_move(int i)
{
    const program *g = &prog[i];
    if (!g->alive || g->pc >= g->count)
        return false;
    const op *o = &g->ops[g->pc];
    return o->kind != RECEIVE || chan[o->peer][i].head < chan[o->peer][i].tail;
}

static void move(int i)
{
    program *g = &prog[i];
    const op *o = &g->ops[g->pc++];
    if (o->kind == SEND) {
        channel *c = &chan[i][o->peer];
        assert_true(c->tail < MAX_QUEUE);
        c->q[c->tail++] = o->of;
    } else if (o->kind == RECEIVE) {
        channel *c = &chan[o->peer][i];
        assert_int_equal(c->q[c->head++], o->of);   /* never a message of another phase */
    } else if (o->kind == DONE) {
        g->done = true;
    }
}

static void kill_rank(int victim, bool lose_messages)
{
    prog[victim].alive = false;
    if (lose_messages)
        for (int to = 0; to < MAX_P; to++)
            chan[victim][to].tail = chan[victim][to].head;
}

/* One run: ranks move at random; after `at[d]` moves rank victims[d] dies.
 * Returns the moves made. */
static int run(const setup *s, const int *victims, const int *at, int deaths, bool lose)
{
    memset(chan, 0, sizeof(chan));
    for (int i = 0; i < s->n; i++)
        build_program(s, i, &prog[i]);
    int moves = 0, movable[MAX_P];
    for (;;) {
        for (int d = 0; d < deaths; d++)
            if (at[d] == moves)
                kill_rank(victims[d], lose);
        int count = 0;
        for (int i = 0; i < s->n; i++)
            if (can_move(i))
                movable[count++] = i;
        if (count == 0)
            return moves;
        move(movable[rand() % count]);
        moves++;
    }
}

static void check_survivors(const setup *s)
{
    bool any_completed = false, all_done = true;
    for (int i = 0; i < s->n; i++) {
        if (!prog[i].alive)
            continue;
        any_completed |= prog[i].pc == prog[i].count;
        all_done &= prog[i].done;
    }
    if (any_completed)
        assert_true(all_done);
}

static void failure_free_runs_complete(const setup *s)
{
    run(s, NULL, NULL, 0, false);
    for (int i = 0; i < s->n; i++) {
        assert_int_equal(prog[i].pc, prog[i].count);
        assert_true(prog[i].done);
    }
}

static void one_death_anywhere(const setup *s, int interleavings)
{
    for (int t = 0; t < interleavings; t++) {
        const unsigned seed = (unsigned)rand();
        srand(seed);
        const int moves = run(s, NULL, NULL, 0, false);
        for (int victim = 0; victim < s->n; victim++)
            for (int at = 0; at <= moves; at++)
                for (int lose = 0; lose < 2; lose++) {
                    srand(seed);   /* the same interleaving up to the death */
                    run(s, &victim, &at, 1, lose);
                    check_survivors(s);
                }
    }
}

static void every_death_of_small_counts(void **state)
{
    (void)state;
    srand(23);
    for (int n = 1; n <= 9; n++) {
        setup s;
        make_setup(&s, n, false, false);
        failure_free_runs_complete(&s);
        one_death_anywhere(&s, 6);
    }
}

static void random_deaths_of_every_count(void **state)
{
    (void)state;
    srand(29);
    for (int n = 1; n <= MAX_P; n++) {
        setup s;
        make_setup(&s, n, false, false);
        failure_free_runs_complete(&s);
        for (int t = 0; t < 40; t++) {
            const int deaths = 1 + rand() % 2;
            int victims[2] = { rand() % n, rand() % n }, at[2];
            const int moves = run(&s, NULL, NULL, 0, false);
            at[0] = rand() % (moves + 1);
            at[1] = rand() % (moves + 1);
            run(&s, victims, at, deaths, rand() % 2);
            check_survivors(&s);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_live_rank_gets_its_block_over_all),
        cmocka_unit_test(every_death_of_small_counts),
        cmocka_unit_test(random_deaths_of_every_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
