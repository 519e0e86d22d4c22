/*
 * Reconciling where the survivors are at a meeting (src/ft/reconcile.h):
 * every case of the table there, from every participant's point of view,
 * and the property the meetings rely on — every participant computes the
 * same round and the same call, so one rank's next move is known to all.
 * Exhaustive over every mix of places and of calls v, v + 1 for n <= 5,
 * and of calls v .. v + 2 with kept windows for n <= 4; and the sequence of
 * meetings that serves ranks several calls late, to its end.
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
    return (ftc_ft_presence){ .place = FTC_AT_CALL, .call = call, .kept_first = kept,
                              .kept_last = kept, .op = call };
}

/* Inside `call`, keeping the results of calls first .. call - 1. */
static ftc_ft_presence at_keeping(long call, long first)
{
    return (ftc_ft_presence){ .place = FTC_AT_CALL, .call = call, .kept_first = first,
                              .kept_last = call - 1, .op = call };
}

static ftc_ft_presence between(long next)
{
    return (ftc_ft_presence){ .place = FTC_BETWEEN_CALLS, .call = next, .kept_first = next - 1,
                              .kept_last = next - 1, .op = next };
}

static ftc_ft_presence leaving(long next)
{
    return (ftc_ft_presence){ .place = FTC_LEAVING, .call = next, .kept_first = next - 1,
                              .kept_last = next - 1, .op = next };
}

static ftc_ft_presence leaving_keeping(long next, long first)
{
    ftc_ft_presence p = leaving(next);
    p.kept_first = first;
    return p;
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

/* Back-to-back broadcasts without tokens: rank 0 is inside call 8, rank 1
 * inside 9, rank 2 inside 11 (it kept 8 .. 10). Call 8 is served first;
 * ranks 1 and 2 wait; rank 0 comes back into 9, and so on. */
static void ranks_several_calls_apart_finish_the_oldest_first(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { at_keeping(8, 6), at_keeping(9, 8), at_keeping(11, 8) };
    ftc_ft_decision d = decide(3, where, 0);
    assert_int_equal(d.role, FTC_ROLE_LATE);
    assert_int_equal(d.call, 8);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_true(d.owes_meeting);
    for (int me = 1; me < 3; me++) {
        d = decide(3, where, me);
        assert_int_equal(d.role, FTC_ROLE_SERVE);
        assert_int_equal(d.call, 8);
        assert_int_equal(d.next, FTC_NEXT_MEET_AGAIN);
    }
    /* the next meeting: ranks 0 and 1 inside 9, late again */
    const ftc_ft_presence then[3] = { at_keeping(9, 8), at_keeping(9, 8), at_keeping(11, 8) };
    assert_int_equal(decide(3, then, 0).role, FTC_ROLE_LATE);
    assert_int_equal(decide(3, then, 1).role, FTC_ROLE_LATE);
    assert_int_equal(decide(3, then, 2).role, FTC_ROLE_SERVE);
    assert_int_equal(decide(3, then, 2).call, 9);
}

/* A rank that freed the communicator after call 10 while rank 1 is still
 * inside 9 waits: rank 1 will need call 9's result, which the leaving
 * rank may be the only one to hold. */
static void a_leaving_rank_waits_while_a_middle_rank_is_inside(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { at_keeping(8, 8), at_keeping(9, 8),
                                       leaving_keeping(11, 8) };
    const ftc_ft_decision d = decide(3, where, 2);
    assert_int_equal(d.role, FTC_ROLE_SERVE);
    assert_int_equal(d.next, FTC_NEXT_MEET_AGAIN);
    assert_true(decide(3, where, 0).owes_meeting);
    assert_int_equal(decide(3, where, 0).settled_op, 0);
}

/* Rank 1 is inside call 17; the others ran on to 20 and settle before
 * ftc_comm_survivors: they must stay until rank 1 was served 17 .. 20,
 * then leave, and rank 1 skips its own settling. */
static void settling_servers_stay_until_every_call_was_served(void **state)
{
    (void)state;
    ftc_ft_presence where[3] = { between(21), at_keeping(17, 16), between(21) };
    where[0].kept_first = where[2].kept_first = 16;
    where[0].op = where[2].op = 30;
    ftc_ft_decision d = decide(3, where, 0);
    assert_int_equal(d.role, FTC_ROLE_SERVE);
    assert_int_equal(d.next, FTC_NEXT_MEET_AGAIN);
    d = decide(3, where, 1);
    assert_int_equal(d.role, FTC_ROLE_LATE);
    assert_true(d.owes_meeting);
    assert_int_equal(d.settled_op, 0);
    where[1] = at_keeping(20, 16);   /* its last late call */
    d = decide(3, where, 0);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_false(d.owes_meeting);
    d = decide(3, where, 1);
    assert_false(d.owes_meeting);
    assert_int_equal(d.settled_op, 30);
}

static void windows_too_far_apart_or_not_kept_are_errors(void **state)
{
    (void)state;
    const ftc_ft_presence too_far[2] = { at(3, 2), at_keeping(3 + FTC_FT_WINDOW + 1, 3) };
    const ftc_ft_presence window_after[2] = { at(3, 2), at_keeping(6, 4) };
    const ftc_ft_presence middle_outside[3] = { at(3, 2), between(4), at_keeping(5, 3) };
    for (int me = 0; me < 2; me++) {
        assert_int_equal(decide(2, too_far, me).next, FTC_NEXT_ERROR);
        assert_int_equal(decide(2, window_after, me).next, FTC_NEXT_ERROR);
    }
    for (int me = 0; me < 3; me++)
        assert_int_equal(decide(3, middle_outside, me).next, FTC_NEXT_ERROR);
    const ftc_ft_presence whole_window[2] = { at(3, 2), at_keeping(3 + FTC_FT_WINDOW, 3) };
    assert_int_equal(decide(2, whole_window, 0).role, FTC_ROLE_LATE);
    assert_int_equal(decide(2, whole_window, 1).role, FTC_ROLE_SERVE);
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

/* The servers settle in the operation after the late rank's call (a
 * meeting owed to them, outside any call): the late rank skips that
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
    const ftc_ft_presence apart[2] = { at(3, 2), at(5, 4) };   /* 3 not kept */
    const ftc_ft_presence leaving_older[3] = { leaving(3), at(4, 3), at(3, 2) };
    const ftc_ft_presence not_kept[2] = { at(3, 2), at(4, 1) };
    for (int me = 0; me < 2; me++) {
        assert_int_equal(decide(2, apart, me).next, FTC_NEXT_ERROR);
        assert_int_equal(decide(2, not_kept, me).next, FTC_NEXT_ERROR);
    }
    for (int me = 0; me < 3; me++)
        assert_int_equal(decide(3, leaving_older, me).next, FTC_NEXT_ERROR);
}

/* A meeting owed on rank 0 only: it settles before call 3,
 * while the others completed the allgather and ran on through broadcasts
 * without tokens (rank 1 inside 4, rank 2 inside 3). Rank 0 returns and
 * comes into call 3, where it is late; the others wait for it. */
static void a_rank_interrupted_before_the_others_calls_comes_back_late(void **state)
{
    (void)state;
    const ftc_ft_presence where[3] = { between(3), at_keeping(5, 2), at(3, 2) };
    ftc_ft_decision d = decide(3, where, 0);
    assert_false(d.round);
    assert_int_equal(d.next, FTC_NEXT_RETURN);
    assert_true(d.owes_meeting);
    for (int me = 1; me < 3; me++) {
        d = decide(3, where, me);
        assert_false(d.round);
        assert_int_equal(d.next, FTC_NEXT_MEET_AGAIN);
    }
    const ftc_ft_presence then[3] = { at(3, 2), at_keeping(5, 2), at(3, 2) };
    assert_int_equal(decide(3, then, 0).role, FTC_ROLE_LATE);
    assert_int_equal(decide(3, then, 1).role, FTC_ROLE_SERVE);
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

static long spread_of(int n, const ftc_ft_presence *where)
{
    long lo = where[0].call, hi = where[0].call;
    for (int i = 1; i < n; i++) {
        lo = where[i].call < lo ? where[i].call : lo;
        hi = where[i].call > hi ? where[i].call : hi;
    }
    return hi - lo;
}

/* The properties every mix must have, from every participant's view. */
static void assert_decisions_consistent(int n, const ftc_ft_presence *where)
{
    const ftc_ft_decision first = decide(n, where, 0);
    bool someone_waits = false, someone_owes = false;
    for (int me = 0; me < n; me++) {
        const ftc_ft_decision d = decide(n, where, me);
        assert_int_equal(d.round, first.round);
        assert_int_equal(d.next == FTC_NEXT_ERROR, first.next == FTC_NEXT_ERROR);
        if (d.round)
            assert_int_equal(d.call, first.call);
        assert_true(d.role == FTC_ROLE_NONE || d.round);
        if (d.role == FTC_ROLE_SERVE)   /* it holds what it serves */
            assert_true(where[me].kept_first <= d.call && d.call <= where[me].kept_last);
        /* nobody past the call leaves while the late ones have a later
         * call to be served, and no late rank skips a settling then */
        if (d.round && d.next != FTC_NEXT_ERROR && spread_of(n, where) > 1) {
            assert_false(d.role == FTC_ROLE_SERVE && d.next == FTC_NEXT_RETURN &&
                         !d.owes_meeting);
            assert_int_equal(d.settled_op, 0);
        }
        someone_waits |= d.next == FTC_NEXT_MEET_AGAIN;
        someone_owes |= d.next == FTC_NEXT_RETURN && d.owes_meeting;
    }
    assert_int_equal(someone_waits, someone_owes);
}

/* Every mix of `n` participants, each one of `per_rank` codes, decoded. */
static void assert_every_mix_consistent(int max_n, int per_rank,
                                        void (*decode_mix)(int, int, ftc_ft_presence *))
{
    for (int n = 1; n <= max_n; n++) {
        int codes = 1;
        for (int i = 0; i < n; i++)
            codes *= per_rank;
        for (int code = 0; code < codes; code++) {
            ftc_ft_presence where[MAX_N];
            decode_mix(code, n, where);
            assert_decisions_consistent(n, where);
        }
    }
}

static void every_participant_decides_alike(void **state)
{
    (void)state;
    assert_every_mix_consistent(MAX_N, 6, decode);
}

/* Every mix of places over calls v .. v + 2, each rank past a call keeping
 * every call from v (a window) or only its last: the same properties. */
static void decode_three(int code, int n, ftc_ft_presence *where)
{
    for (int i = 0; i < n; i++, code /= 18) {
        const int place = code % 3;
        const long call = 10 + (code / 3) % 3;
        const bool window = (code / 9) % 2;
        where[i] = place == 0 ? at(call, call - 1) : place == 1 ? between(call) : leaving(call);
        if (window)
            where[i].kept_first = 10;
    }
}

static void every_participant_decides_alike_over_three_calls(void **state)
{
    (void)state;
    assert_every_mix_consistent(4, 18, decode_three);
}

/* ---- the meetings that follow one another after a death ------------------------------ */

/*
 * Ranks up to `spread` calls apart after a death: each either ahead (inside
 * call hi, or settling or leaving before it) or inside a call from
 * hi - spread to hi - 1, every one keeping the results from call 9 on (the
 * last call everyone entered). Meetings follow one another as the layer
 * runs them: a late rank served call c returns and comes back into c + 1
 * (or into the settling before hi) when it owes a meeting; a rank told to
 * meet again keeps its place. Checked: no meeting ends in an error, every
 * served call was kept by its server, nobody waits for a rank that does
 * not come back, and within spread + 2 meetings every rank is done: a
 * late rank has caught up with hi (or skipped the settling the others left
 * after), and no server left while a late rank still had a call to be
 * served from it.
 */
enum { AHEAD = -1, MAX_MEETINGS = 8 };

typedef struct {
    int n;
    long hi;
    int ahead_place;   /* FTC_AT_CALL: inside hi; else settling or leaving before hi */
} sequence;

/* Settling or leaving before call hi (the ranks ahead's kind), keeping
 * calls first .. last. */
static ftc_ft_presence outside_before_hi(const sequence *q, long first, long last)
{
    ftc_ft_presence p = q->ahead_place == FTC_LEAVING ? leaving(q->hi) : between(q->hi);
    p.kept_first = first;
    p.kept_last = last;
    return p;
}

static ftc_ft_presence starting_place(const sequence *q, int behind)
{
    if (behind != AHEAD)
        return at_keeping(q->hi - behind, 9);
    return q->ahead_place == FTC_AT_CALL ? at_keeping(q->hi, 9)
                                         : outside_before_hi(q, 9, q->hi - 1);
}

/* Where a late rank served call `served` goes next, owing a meeting. */
static ftc_ft_presence after_served(const sequence *q, long served)
{
    if (served + 1 < q->hi || q->ahead_place == FTC_AT_CALL)
        return at_keeping(served + 1, served);   /* finished in a meeting: its window starts there */
    return outside_before_hi(q, served, served);
}

static void run_meetings(const sequence *q, ftc_ft_presence *where)
{
    bool done[MAX_N] = { false };
    for (int meeting = 0; meeting < MAX_MEETINGS; meeting++) {
        ftc_ft_presence now[MAX_N];
        int index[MAX_N], n = 0;
        for (int i = 0; i < q->n; i++)
            if (!done[i]) {
                index[n] = i;
                now[n++] = where[i];
            }
        if (n == 0)
            return;
        assert_decisions_consistent(n, now);
        for (int k = 0; k < n; k++) {
            const ftc_ft_decision d = decide(n, now, k);
            const int i = index[k];
            assert_int_not_equal(d.next, FTC_NEXT_ERROR);
            if (d.next == FTC_NEXT_MEET_AGAIN)
                continue;
            if (d.role == FTC_ROLE_LATE && d.owes_meeting) {
                where[i] = after_served(q, d.call);
                continue;
            }
            /* it leaves: a server only once nobody still lags behind it */
            assert_false(d.owes_meeting);
            done[i] = true;
        }
    }
    for (int i = 0; i < q->n; i++)
        assert_true(done[i]);
}

static void meetings_serve_every_late_call_then_end(void **state)
{
    (void)state;
    static const int places[] = { FTC_AT_CALL, FTC_BETWEEN_CALLS, FTC_LEAVING };
    for (int n = 2; n <= 4; n++)
        for (int spread = 1; spread <= 3; spread++)
            for (int kind = 0; kind < 3; kind++) {
                const sequence q = { .n = n, .hi = 10 + spread, .ahead_place = places[kind] };
                int codes = 1;
                for (int i = 0; i < n; i++)
                    codes *= spread + 1;
                for (int code = 0; code < codes; code++) {
                    ftc_ft_presence where[MAX_N];
                    for (int i = 0, c = code; i < n; i++, c /= spread + 1)
                        where[i] = starting_place(&q, c % (spread + 1) == 0 ? AHEAD
                                                                            : c % (spread + 1));
                    run_meetings(&q, where);
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
        cmocka_unit_test(ranks_several_calls_apart_finish_the_oldest_first),
        cmocka_unit_test(a_leaving_rank_waits_while_a_middle_rank_is_inside),
        cmocka_unit_test(settling_servers_stay_until_every_call_was_served),
        cmocka_unit_test(windows_too_far_apart_or_not_kept_are_errors),
        cmocka_unit_test(a_late_rank_knows_when_the_others_left),
        cmocka_unit_test(a_late_rank_skips_only_the_operation_the_others_settled_in),
        cmocka_unit_test(servers_in_different_operations_are_an_error),
        cmocka_unit_test(inconsistent_calls_are_errors_everywhere),
        cmocka_unit_test(a_rank_interrupted_before_the_others_calls_comes_back_late),
        cmocka_unit_test(every_participant_decides_alike),
        cmocka_unit_test(every_participant_decides_alike_over_three_calls),
        cmocka_unit_test(meetings_serve_every_late_call_then_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
