/*
 * Reconciling where the survivors are at a meeting (src/ft/reconcile.h):
 * every case of the table there, from every participant's point of view,
 * and the property the meetings rely on — every participant computes the
 * same round and the same call, so one rank's next move is known to all.
 * Exhaustive over every mix of places and of calls v, v + 1 for n <= 5.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ft/reconcile.h"

#define MAX_N 5

/* In these tests every operation is a call, but for settling ones: a
 * rank inside call v is in operation v, one settling before call v in
 * operation v (its own, numbered before the call it precedes). */
static ftc_ft_presence at(long call, long kept)
{
    return (ftc_ft_presence){ .place = FTC_AT_CALL, .call = call, .kept = kept, .op = call };
}

static ftc_ft_presence between(long next)
{
    return (ftc_ft_presence){ .place = FTC_BETWEEN_CALLS, .call = next, .kept = next - 1,
                              .op = next };
}

static ftc_ft_presence leaving(long next)
{
    return (ftc_ft_presence){ .place = FTC_LEAVING, .call = next, .kept = next - 1, .op = next };
}

static ftc_ft_decision decide(int n, const ftc_ft_presence *where, int me)
{
    ftc_ft_decision d;
    ftc_ft_reconcile(n, where, me, &d);
    return d;
}

static void everyone_inside_one_call_recovers(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { at(7, 6), at(7, 6), at(7, 6) };
    for (int me = 0; me < 3; me++) {
        const ftc_ft_decision d = decide(3, where, me);
        assert_int_equal(d.role, FTC_ROLE_RECOVER);
        assert_true(d.round);
        assert_int_equal(d.call, 7);
        assert_int_equal(d.next, FTC_NEXT_RETURN);
        assert_false(d.owes_meeting);
    }
}

static void nobody_inside_has_nothing_to_do(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { between(4), leaving(4), between(4) };
    for (int me = 0; me < 3; me++) {
        const ftc_ft_decision d = decide(3, where, me);
        assert_int_equal(d.role, FTC_ROLE_NONE);
        assert_false(d.round);
        assert_int_equal(d.next, FTC_NEXT_RETURN);
        assert_false(d.owes_meeting);
    }
}

/* A collective interrupted on rank 1 only: it returns and comes back into
 * call 5, where the others wait for it. */
static void those_inside_wait_for_a_rank_between_calls(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { at(5, 4), between(5), at(5, 4) };
    ftc_ft_decision d = decide(3, where, 0);
    assert_int_equal(d.next, FTC_NEXT_MEET_AGAIN);
    assert_false(d.round);
    d = decide(3, where, 1);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_true(d.owes_meeting);
}

static void freeing_while_others_are_inside_is_an_error_everywhere(void **state)
{
    (void)state;
    const ftc_ft_presence same_call[2] = { at(5, 4), leaving(5) };
    const ftc_ft_presence next_call[3] = { at(4, 3), leaving(5), at(5, 4) };
    for (int me = 0; me < 2; me++)
        assert_int_equal(decide(2, same_call, me).next, FTC_NEXT_ERROR);
    for (int me = 0; me < 3; me++)
        assert_int_equal(decide(3, next_call, me).next, FTC_NEXT_ERROR);
}

/* Rank 0 is late in call 8; rank 1 is in call 9, rank 2 settling before 9. */
static void late_ranks_are_served_by_those_past_the_call(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { at(8, 7), at(9, 8), between(9) };
    ftc_ft_decision d = decide(3, where, 0);
    assert_int_equal(d.role, FTC_ROLE_LATE);
    assert_int_equal(d.call, 8);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_true(d.owes_meeting);   /* rank 1 waits for it in call 9 */
    assert_int_equal(d.settled_op, 0);
    d = decide(3, where, 1);
    assert_int_equal(d.role, FTC_ROLE_SERVE);
    assert_int_equal(d.next, FTC_NEXT_MEET_AGAIN);
    d = decide(3, where, 2);
    assert_int_equal(d.role, FTC_ROLE_SERVE);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_true(d.owes_meeting);
}

/* Everyone but the late rank is freeing the communicator: after the round
 * the late rank must not wait for them at its own ftc_comm_free. */
static void a_late_rank_knows_when_the_others_left(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { leaving(4), at(3, 2), leaving(4) };
    const ftc_ft_decision d = decide(3, where, 1);
    assert_int_equal(d.role, FTC_ROLE_LATE);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_false(d.owes_meeting);
    assert_int_equal(d.settled_op, 4);
    assert_int_equal(decide(3, where, 0).role, FTC_ROLE_SERVE);
    assert_int_equal(decide(3, where, 0).next, FTC_NEXT_RETURN);
}

/* The servers settle in the operation after the late rank's call (an
 * ftc_allgather a failure interrupted on them): the late rank skips that
 * operation's settling only, not the next one's (ftc_comm_survivors,
 * ftc_comm_free), to which the servers come again. */
static void a_late_rank_skips_only_the_operation_the_others_settled_in(void **state)
{
    (void)state;
    ftc_ft_presence where[3] = { between(4), at(3, 2), between(4) };
    where[0].op = where[2].op = 7;
    const ftc_ft_decision d = decide(3, where, 1);
    assert_int_equal(d.role, FTC_ROLE_LATE);
    assert_int_equal(d.settled_op, 7);
    assert_int_equal(decide(3, where, 0).settled_op, 0);
}

/* Servers settling in different operations cannot happen in a correct
 * program (nobody leaves an operation that needs every rank before the
 * others reach it): an error on every rank alike, never a guess. */
static void servers_in_different_operations_are_an_error(void **state)
{
    (void)state;
    ftc_ft_presence where[3] = { between(4), at(3, 2), leaving(4) };
    where[2].op = 5;
    for (int me = 0; me < 3; me++)
        assert_int_equal(decide(3, where, me).next, FTC_NEXT_ERROR);
}

static void inconsistent_calls_are_errors_everywhere(void **state)
{
    (void)state;
    const ftc_ft_presence apart[2] = { at(3, 2), at(5, 4) };
    const ftc_ft_presence outside_older[3] = { between(3), at(4, 3), at(3, 2) };
    const ftc_ft_presence not_kept[2] = { at(3, 2), at(4, 1) };
    for (int me = 0; me < 2; me++) {
        assert_int_equal(decide(2, apart, me).next, FTC_NEXT_ERROR);
        assert_int_equal(decide(2, not_kept, me).next, FTC_NEXT_ERROR);
    }
    for (int me = 0; me < 3; me++)
        assert_int_equal(decide(3, outside_older, me).next, FTC_NEXT_ERROR);
}

/* Every mix of places over calls v and v + 1: all participants agree on
 * whether there is a round and for which call, on an error, and every
 * rank that returns owing a meeting has someone waiting for it. */
static void decode(int code, int n, ftc_ft_presence *where)
{
    for (int i = 0; i < n; i++, code /= 6) {
        const int place = code % 3;
        const long call = 10 + (code / 3) % 2;
        where[i] = place == 0 ? at(call, call - 1) : place == 1 ? between(call) : leaving(call);
    }
}

static void every_participant_decides_alike(void **state)
{
    (void)state;
    for (int n = 1; n <= MAX_N; n++) {
        int codes = 1;
        for (int i = 0; i < n; i++)
            codes *= 6;
        for (int code = 0; code < codes; code++) {
            ftc_ft_presence where[MAX_N];
            decode(code, n, where);
            const ftc_ft_decision first = decide(n, where, 0);
            bool someone_waits = false, someone_owes = false;
            for (int me = 0; me < n; me++) {
                const ftc_ft_decision d = decide(n, where, me);
                assert_int_equal(d.round, first.round);
                assert_int_equal(d.next == FTC_NEXT_ERROR, first.next == FTC_NEXT_ERROR);
                if (d.round)
                    assert_int_equal(d.call, first.call);
                assert_true(d.role == FTC_ROLE_NONE || d.round);
                someone_waits |= d.next == FTC_NEXT_MEET_AGAIN;
                someone_owes |= d.next == FTC_NEXT_RETURN && d.owes_meeting;
            }
            assert_int_equal(someone_waits, someone_owes);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(everyone_inside_one_call_recovers),
        cmocka_unit_test(nobody_inside_has_nothing_to_do),
        cmocka_unit_test(those_inside_wait_for_a_rank_between_calls),
        cmocka_unit_test(freeing_while_others_are_inside_is_an_error_everywhere),
        cmocka_unit_test(late_ranks_are_served_by_those_past_the_call),
        cmocka_unit_test(a_late_rank_knows_when_the_others_left),
        cmocka_unit_test(a_late_rank_skips_only_the_operation_the_others_settled_in),
        cmocka_unit_test(servers_in_different_operations_are_an_error),
        cmocka_unit_test(inconsistent_calls_are_errors_everywhere),
        cmocka_unit_test(every_participant_decides_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
