/*
 * The modified Bruck alltoall's plan (plans/modified_bruck.c) played for
 * every process count 1..64 without MPI: every rank's slots start with its
 * own blocks, each step moves the slots the plan names to the partner it
 * names, and at the end every block sits at its destination, in the slot
 * of its source. Also: a slot holds its final block from the step the plan
 * calls its last move on, and never moves after it (a block counted there
 * stays right); both partners of a step agree on the message's size; the
 * largest message is the plan's most_moving.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plans/modified_bruck.h"

enum { MAX_P = 64 };

/* A block: who sent it, for whom. */
typedef struct {
    int source, destination;
} block;

typedef struct {
    int n;
    block slots[MAX_P][MAX_P];   /* [rank][slot] */
    bool settled[MAX_P][MAX_P];  /* its last move done */
} world;

static void start(world *w, int n)
{
    w->n = n;
    for (int r = 0; r < n; r++)
        for (int j = 0; j < n; j++) {
            w->slots[r][j] = (block){ r, ftc_modified_bruck_first_destination(r, j, n) };
            w->settled[r][j] = j == 0;   /* the own block never moves */
        }
}

/* One step: every rank's message built before any arrives, then taken. */
static void play_step(world *w, int step)
{
    static block messages[MAX_P][MAX_P];
    const int n = w->n, d = ftc_modified_bruck_distance(step);
    int sizes[MAX_P];
    for (int r = 0; r < n; r++) {
        sizes[r] = 0;
        for (int j = 0; j < n; j++)
            if (ftc_modified_bruck_moves(j, d)) {
                assert_false(w->settled[r][j]);   /* nothing moves after its last move */
                messages[r][sizes[r]++] = w->slots[r][j];
            }
        assert_int_equal(sizes[r], ftc_modified_bruck_moving(n, d));
        assert_true(sizes[r] <= ftc_modified_bruck_most_moving(n));
    }
    for (int r = 0; r < n; r++) {
        const int from = ftc_modified_bruck_receive_from(r, d, n);
        assert_int_equal(ftc_modified_bruck_send_to(from, d, n), r);
        int taken = 0;
        for (int j = 0; j < n; j++) {
            if (!ftc_modified_bruck_moves(j, d))
                continue;
            w->slots[r][j] = messages[from][taken++];
            if (ftc_modified_bruck_last_move(j, d)) {
                w->settled[r][j] = true;
                assert_int_equal(w->slots[r][j].destination, r);
                assert_int_equal(w->slots[r][j].source, ftc_modified_bruck_final_source(r, j, n));
            }
        }
        assert_int_equal(taken, sizes[from]);
    }
}

static void test_every_block_arrives(void **unused)
{
    (void)unused;
    static world w;
    for (int n = 1; n <= MAX_P; n++) {
        start(&w, n);
        int largest = 0;
        for (int step = 0; step < ftc_modified_bruck_steps(n); step++) {
            const int moving = ftc_modified_bruck_moving(n, ftc_modified_bruck_distance(step));
            largest = moving > largest ? moving : largest;
            play_step(&w, step);
        }
        assert_int_equal(largest, ftc_modified_bruck_most_moving(n));
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++) {
                assert_true(w.settled[r][j]);
                assert_int_equal(w.slots[r][j].destination, r);
                assert_int_equal(w.slots[r][j].source, ftc_modified_bruck_final_source(r, j, n));
            }
    }
}

/* ceil(log2 n) steps, as Open MPI's. */
static void test_steps(void **unused)
{
    (void)unused;
    assert_int_equal(ftc_modified_bruck_steps(1), 0);
    assert_int_equal(ftc_modified_bruck_steps(2), 1);
    assert_int_equal(ftc_modified_bruck_steps(3), 2);
    assert_int_equal(ftc_modified_bruck_steps(16), 4);
    assert_int_equal(ftc_modified_bruck_steps(17), 5);
    assert_int_equal(ftc_modified_bruck_most_moving(16), 8);
    assert_int_equal(ftc_modified_bruck_most_moving(5), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_block_arrives),
        cmocka_unit_test(test_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
