/*
 * The guard's records and settings (src/guard/report.h, settings.h), no MPI:
 * merging along the check-in tree for every p in 1..64 with random errors,
 * silent ranks and ranks in another collective gives rank 0 exact counts,
 * the most severe entries first, and the decision; arguments unlike
 * between ranks (random values of every item) name the rank on the rarer
 * side, with the values and counts; the ranks not heard from are exactly
 * the silent ranks' subtrees; the diagnosis and the settings' parser say
 * what they should.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guard/report.h"
#include "guard/settings.h"
#include "guard/checkin_tree.h"

#define MAX_P 64

/* ---- records ----------------------------------------------------------------- */

static void entries_kept_in_order_and_capped(void **state)
{
    (void)state;
    ftc_guard_record r;
    ftc_guard_record_init(&r, FTC_GUARDED_ALLREDUCE, 3, 5);
    for (int rank = 20; rank > 0; rank--) {
        char message[32];
        snprintf(message, sizeof(message), "rank %d", rank);
        ftc_guard_record_add_errors(&r, rank, 2, message);
    }
    ftc_guard_record_add_silent(&r, 30);
    assert_int_equal(r.error_ranks, 20);
    assert_int_equal(r.errors, 40);
    assert_int_equal(r.silent_ranks, 1);
    assert_int_equal(r.nentries, FTC_GUARD_ENTRIES);
    assert_int_equal(r.entry[0].kind, FTC_GUARD_SILENT);
    assert_int_equal(r.entry[0].rank, 30);
    for (int i = 1; i < r.nentries; i++) {
        assert_int_equal(r.entry[i].kind, FTC_GUARD_ERROR);
        assert_int_equal(r.entry[i].rank, i);   /* the lowest ranks */
    }
    assert_int_equal(ftc_guard_decide(&r), FTC_GUARD_ABORT);
    ftc_guard_record_add_errors(&r, 99, 0, "no error: not listed");
    assert_int_equal(r.error_ranks, 20);
}

static void decisions(void **state)
{
    (void)state;
    ftc_guard_record r, child;
    ftc_guard_record_init(&r, FTC_GUARDED_ALLGATHER, 1, 1);
    assert_int_equal(ftc_guard_decide(&r), FTC_GUARD_GO);
    ftc_guard_record_init(&child, FTC_GUARDED_ALLGATHER, 1, 1);
    ftc_guard_record_add_errors(&child, 4, 1, "bad input");
    ftc_guard_record_merge(&r, &child, 4);
    assert_int_equal(ftc_guard_decide(&r), FTC_GUARD_STOP);
    ftc_guard_record_init(&child, FTC_GUARDED_ALLREDUCE, 1, 1);   /* another collective */
    ftc_guard_record_merge(&r, &child, 6);
    assert_int_equal(r.elsewhere_ranks, 1);
    assert_int_equal(ftc_guard_decide(&r), FTC_GUARD_ABORT);
    assert_int_equal(r.entry[0].kind, FTC_GUARD_ELSEWHERE);
    assert_int_equal(r.entry[0].rank, 6);
    assert_string_equal(r.entry[0].message, "ftc_allreduce call 1");
}

static void wire_size_and_validation(void **state)
{
    (void)state;
    ftc_guard_record r;
    ftc_guard_record_init(&r, FTC_GUARDED_CHECK, 1, 1);
    assert_int_equal(ftc_guard_record_bytes(&r), offsetof(ftc_guard_record, entry));
    assert_true(ftc_guard_record_valid(&r, ftc_guard_record_bytes(&r)));
    ftc_guard_record_add_errors(&r, 2, 1, "x");
    assert_true(ftc_guard_record_valid(&r, ftc_guard_record_bytes(&r)));
    assert_false(ftc_guard_record_valid(&r, ftc_guard_record_bytes(&r) - 1));
    assert_false(ftc_guard_record_valid(&r, 3));
    memset(r.entry[0].message, 'a', sizeof(r.entry[0].message));   /* no terminator */
    assert_false(ftc_guard_record_valid(&r, ftc_guard_record_bytes(&r)));
    r.nentries = FTC_GUARD_ENTRIES + 1;
    assert_false(ftc_guard_record_valid(&r, sizeof(r)));
}

static void stop_report_lists_errors_only(void **state)
{
    (void)state;
    ftc_guard_record r;
    ftc_guard_record_init(&r, FTC_GUARDED_ALLREDUCE, 2, 7);
    ftc_guard_record_add_errors(&r, 5, 1, "rank 5: disk full");
    ftc_guard_record_add_errors(&r, 1, 3, "rank 1: NaN");
    r.warnings = 4;
    ftc_stop_report out;
    ftc_guard_stop_report(&r, &out);
    assert_int_equal(out.check, 7);
    assert_int_equal(out.error_ranks, 2);
    assert_int_equal(out.errors, 4);
    assert_int_equal(out.warnings, 4);
    assert_int_equal(out.listed, 2);
    assert_int_equal(out.error_rank[0], 1);
    assert_string_equal(out.message[0], "rank 1: NaN");
    assert_int_equal(out.error_rank[1], 5);
}

/* ---- the whole tree: merging up to rank 0 --------------------------------- */

typedef struct {
    ftc_guard_record record[MAX_P];
    bool silent[MAX_P], error[MAX_P], elsewhere[MAX_P];
} tree_run;

/* Bottom-up (children have higher ranks): each rank merges its children's
 * records, or names a silent child; a silent rank's own record is lost. */
static void merge_up(tree_run *t, int p)
{
    for (int r = p - 1; r >= 0; r--) {
        ftc_guard_node node;
        ftc_guard_node_of(r, p, &node);
        ftc_guard_record *mine = &t->record[r];
        ftc_guard_record_init(mine, t->elsewhere[r] ? FTC_GUARDED_ALLGATHER
                                                    : FTC_GUARDED_ALLREDUCE, 4, 9);
        mine->warnings = r % 3;
        if (t->error[r]) {
            char message[64];
            snprintf(message, sizeof(message), "rank %d failed its check", r);
            ftc_guard_record_add_errors(mine, r, 1 + r % 2, message);
        }
        for (int i = 0; i < node.nchildren; i++) {
            const int child = node.children[i];
            if (t->silent[child])
                ftc_guard_record_add_silent(mine, child);
            else
                ftc_guard_record_merge(mine, &t->record[child], child);
        }
    }
}

static bool under_silent(const tree_run *t, int r)
{
    for (int a = r; a > 0; a -= a & -a)
        if (t->silent[a])
            return true;
    return false;
}

static void expect_root_record(const tree_run *t, int p)
{
    int errors = 0, error_ranks = 0, silent = 0, elsewhere = 0, warnings = 0, unheard = 0;
    for (int r = 0; r < p; r++) {
        const bool lost = under_silent(t, r);
        unheard += lost;
        silent += t->silent[r] && !under_silent(t, r - (r & -r)) && r > 0;
        if (lost)
            continue;
        warnings += r % 3;
        error_ranks += t->error[r];
        errors += t->error[r] ? 1 + r % 2 : 0;
        elsewhere += t->elsewhere[r] != t->elsewhere[r == 0 ? 0 : r - (r & -r)] && r > 0;
    }
    const ftc_guard_record *root = &t->record[0];
    assert_int_equal(root->error_ranks, error_ranks);
    assert_int_equal(root->errors, errors);
    assert_int_equal(root->warnings, warnings);
    assert_int_equal(root->silent_ranks, silent);
    assert_int_equal(root->elsewhere_ranks, elsewhere);
    const ftc_guard_decision want = silent || elsewhere ? FTC_GUARD_ABORT
                                    : error_ranks ? FTC_GUARD_STOP : FTC_GUARD_GO;
    assert_int_equal(ftc_guard_decide(root), want);
    for (int i = 1; i < root->nentries; i++)   /* severity, then rank */
        assert_true(root->entry[i - 1].kind < root->entry[i].kind
                    || (root->entry[i - 1].kind == root->entry[i].kind
                        && root->entry[i - 1].rank < root->entry[i].rank));
    /* with the silent ranks listed, the unheard ones are their subtrees */
    if (silent + elsewhere <= FTC_GUARD_ENTRIES && elsewhere == 0) {
        int ranks[MAX_P];
        assert_int_equal(ftc_guard_unheard(root, NULL, p, ranks), unheard);
        for (int i = 0; i < unheard; i++)
            assert_true(under_silent(t, ranks[i]));
    }
}

static void merging_along_the_tree(void **state)
{
    (void)state;
    srand(4);
    const int trials = getenv("FTCOLL_UNIT_QUICK") ? 5 : 60;
    for (int p = 1; p <= MAX_P; p++) {
        for (int trial = 0; trial < trials; trial++) {
            tree_run t;
            memset(&t, 0, sizeof(t));
            for (int r = 0; r < p; r++) {
                t.error[r] = rand() % 5 == 0;
                t.silent[r] = r > 0 && trial % 3 == 1 && rand() % 9 == 0;
                t.elsewhere[r] = trial % 3 == 2 && rand() % 11 == 0;
            }
            merge_up(&t, p);
            expect_root_record(&t, p);
        }
    }
}

/* ---- what every rank must pass alike ------------------------------------------- */

/* One end of item `item`'s values over p ranks: the value, its lowest
 * rank, how many ranks hold it; -1 values are not reported. */
typedef struct {
    int64_t value;
    int rank, ranks;
} value_end;

static value_end end_of(const int64_t values[][FTC_GUARD_MATCHED], int item, int p, bool high)
{
    value_end e = { -1, -1, 0 };
    for (int r = 0; r < p; r++) {
        const int64_t v = values[r][item];
        if (v < 0)
            continue;
        if (e.rank < 0 || (high ? v > e.value : v < e.value))
            e = (value_end){ v, r, 0 };
        e.ranks += v == e.value;
    }
    return e;
}

/* Merged up the tree, each rank's values: rank 0 names the first item
 * that differs, at the lowest rank of its side fewer ranks took (the high
 * one on a tie), against the lowest rank of the other; alike, it goes on. */
static void expect_mismatch_named(const int64_t values[][FTC_GUARD_MATCHED], int p)
{
    ftc_guard_record records[MAX_P];
    for (int r = p - 1; r >= 0; r--) {
        ftc_guard_node node;
        ftc_guard_node_of(r, p, &node);
        ftc_guard_record_init(&records[r], FTC_GUARDED_GATHER, 3, 3);
        ftc_guard_matching m;
        memcpy(m.value, values[r], sizeof(m.value));
        ftc_guard_record_observe(&records[r], r, &m);
        for (int i = 0; i < node.nchildren; i++)
            ftc_guard_record_merge(&records[r], &records[node.children[i]], node.children[i]);
    }
    ftc_guard_record *root = &records[0];
    ftc_guard_record_add_mismatches(root);
    int item = 0;
    value_end high = { 0 }, low = { 0 };
    for (; item < FTC_GUARD_MATCHED; item++) {
        high = end_of(values, item, p, true);
        low = end_of(values, item, p, false);
        if (low.value != high.value)
            break;
    }
    if (item == FTC_GUARD_MATCHED) {
        assert_int_equal(root->nentries, 0);
        assert_int_equal(ftc_guard_decide(root), FTC_GUARD_GO);
        return;
    }
    const value_end named = high.ranks <= low.ranks ? high : low;
    const value_end other = high.ranks <= low.ranks ? low : high;
    char want[160];
    if (item == FTC_MATCH_ROOT)
        snprintf(want, sizeof(want), "passes root %lld (%d rank(s)), rank %d root %lld (%d)",
                 (long long)named.value, named.ranks, other.rank, (long long)other.value,
                 other.ranks);
    else if (item == FTC_MATCH_BYTES)
        snprintf(want, sizeof(want), "passes %lld bytes (%d rank(s)), rank %d %lld (%d)",
                 (long long)named.value, named.ranks, other.rank, (long long)other.value,
                 other.ranks);
    else
        snprintf(want, sizeof(want), "unlike rank %d's (%d rank(s) against %d)", other.rank,
                 named.ranks, other.ranks);
    assert_int_equal(ftc_guard_decide(root), FTC_GUARD_STOP);
    assert_int_equal(root->error_ranks, 1);
    assert_int_equal(root->nentries, 1);
    assert_int_equal(root->entry[0].rank, named.rank);
    assert_non_null(strstr(root->entry[0].message, want));
}

static void matching_along_the_tree(void **state)
{
    (void)state;
    srand(7);
    const int trials = getenv("FTCOLL_UNIT_QUICK") ? 10 : 120;
    for (int p = 1; p <= MAX_P; p++) {
        for (int trial = 0; trial < trials; trial++) {
            int64_t values[MAX_P][FTC_GUARD_MATCHED];
            /* trial 0 alike; then, item by item, some ranks off (few or
             * many), or some reporting none (a call without that item) */
            const int item = trial % (FTC_GUARD_MATCHED + 1) - 1;
            const int odds = 2 + trial % 7;
            for (int r = 0; r < p; r++)
                for (int i = 0; i < FTC_GUARD_MATCHED; i++) {
                    values[r][i] = 4096 * (i + 1);
                    if (i == item && rand() % odds == 0)
                        values[r][i] = rand() % 3 * 2048;
                    if (item < 0 && trial > 0 && rand() % 5 == 0)
                        values[r][i] = -1;
                }
            expect_mismatch_named((const int64_t(*)[FTC_GUARD_MATCHED])values, p);
        }
    }
    /* a rank with an error of its own reports no values: not compared */
    ftc_guard_record r, child;
    ftc_guard_record_init(&r, FTC_GUARDED_BCAST, 1, 1);
    ftc_guard_record_observe(&r, 0, NULL);
    ftc_guard_record_add_mismatches(&r);
    assert_int_equal(ftc_guard_decide(&r), FTC_GUARD_GO);
    /* with an error raised, values that differ add no second entry */
    const ftc_guard_matching one = { .value = { 0, 64, -1, -1, -1 } };
    const ftc_guard_matching two = { .value = { 1, 64, -1, -1, -1 } };
    ftc_guard_record_init(&r, FTC_GUARDED_BCAST, 1, 1);
    ftc_guard_record_observe(&r, 0, &one);
    ftc_guard_record_init(&child, FTC_GUARDED_BCAST, 1, 1);
    ftc_guard_record_observe(&child, 1, &two);
    ftc_guard_record_add_errors(&child, 1, 1, "rank 1: disk full");
    ftc_guard_record_merge(&r, &child, 1);
    ftc_guard_record_add_mismatches(&r);
    assert_int_equal(r.error_ranks, 1);
    assert_int_equal(r.nentries, 1);
    assert_string_equal(r.entry[0].message, "rank 1: disk full");
}

/* ---- the diagnosis -------------------------------------------------------------- */

static void rank_ranges(void **state)
{
    (void)state;
    char out[64];
    const int ranks[] = { 0, 1, 2, 3, 4, 6, 9, 10, 11 };
    ftc_format_ranks(ranks, 9, out, sizeof(out));
    assert_string_equal(out, "0-4,6,9-11");
    ftc_format_ranks(ranks, 0, out, sizeof(out));
    assert_string_equal(out, "");
    ftc_format_ranks(ranks, 9, out, 5);   /* cut short, still a string */
    assert_true(strlen(out) < 5);
}

static void abort_diagnosis(void **state)
{
    (void)state;
    /* p = 8: rank 6 silent (7 reports through it), rank 3 in an allgather */
    ftc_guard_record r;
    ftc_guard_record_init(&r, FTC_GUARDED_ALLREDUCE, 2, 2);
    ftc_guard_record_add_silent(&r, 6);
    ftc_guard_record child;
    ftc_guard_record_init(&child, FTC_GUARDED_ALLGATHER, 1, 2);
    ftc_guard_record_merge(&r, &child, 3);
    char text[2048];
    ftc_guard_format_abort(&r, NULL, 8, 0.5, text, sizeof(text));
    assert_non_null(strstr(text, "aborting the job before ftc_allreduce call 2 (check-in 2)"));
    assert_non_null(strstr(text, "rank 6 did not check in within 1 s; not heard from either: 7"));
    assert_non_null(strstr(text, "rank 3 is in ftc_allgather call 1 instead"));
    assert_non_null(strstr(text, "ranks 0-2,4-5 wait in the check-in before ftc_allreduce call 2"));
    /* live ranks 0,2,5,9 (others dead): positions map back to ranks */
    const int live[] = { 0, 2, 5, 9 };
    ftc_guard_record_init(&r, FTC_GUARDED_ALLREDUCE, 7, 8);
    ftc_guard_record_add_silent(&r, 5);
    ftc_guard_format_abort(&r, live, 4, 1.0, text, sizeof(text));
    assert_non_null(strstr(text, "rank 5 did not check in within 2 s; not heard from either: 9"));
    assert_non_null(strstr(text, "ranks 0,2 wait"));
}

/* ---- settings ---------------------------------------------------------------- */

static void guard_settings(void **state)
{
    (void)state;
    ftc_guard_settings s;
    char why[256];
    assert_true(ftc_guard_settings_parse(NULL, &s, why, sizeof(why)));
    assert_int_equal(s.every, 0);
    assert_true(s.timeout == FTC_GUARD_DEFAULT_TIMEOUT);
    assert_true(ftc_guard_settings_parse("off", &s, why, sizeof(why)));
    assert_int_equal(s.every, 0);
    assert_true(ftc_guard_settings_parse("every=3,timeout=2.5,time-left=100", &s, why,
                                         sizeof(why)));
    assert_int_equal(s.every, 3);
    assert_true(s.timeout == 2.5 && s.time_left == 100);
    const double twenty_percent = ftc_guard_effective_timeout(&s, 90);   /* of 10 s */
    assert_true(twenty_percent > 2.0 - 1e-9 && twenty_percent < 2.0 + 1e-9);
    assert_true(ftc_guard_effective_timeout(&s, 0) == 2.5);    /* 20 s left: the timeout */
    const char *bad[][2] = {
        { "every=-1", "every" }, { "every=x", "every" }, { "timeout=0", "timeout" },
        { "timeout=nan", "timeout" }, { "timeout=1e99", "timeout" }, { "often=1", "unknown key" },
        { "every", "key=value" }, { "time-left=-3", "time-left" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        s.every = 42;
        assert_false(ftc_guard_settings_parse(bad[i][0], &s, why, sizeof(why)));
        assert_non_null(strstr(why, bad[i][1]));
        assert_int_equal(s.every, 0);   /* the defaults, not half a setting */
    }
}

static void watchdog_settings(void **state)
{
    (void)state;
    ftc_watchdog_settings s;
    char why[256];
    assert_true(ftc_watchdog_settings_parse("", &s, why, sizeof(why)));
    assert_true(s.deadline == 0);
    assert_true(ftc_watchdog_settings_parse("deadline=30,action=revoke", &s, why, sizeof(why)));
    assert_true(s.deadline == 30 && s.action == FTC_WATCHDOG_REVOKE);
    assert_false(ftc_watchdog_settings_parse("deadline=-1", &s, why, sizeof(why)));
    assert_non_null(strstr(why, "deadline"));
    assert_false(ftc_watchdog_settings_parse("action=explode", &s, why, sizeof(why)));
    assert_non_null(strstr(why, "abort or revoke"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entries_kept_in_order_and_capped),
        cmocka_unit_test(decisions),
        cmocka_unit_test(wire_size_and_validation),
        cmocka_unit_test(stop_report_lists_errors_only),
        cmocka_unit_test(merging_along_the_tree),
        cmocka_unit_test(matching_along_the_tree),
        cmocka_unit_test(rank_ranges),
        cmocka_unit_test(abort_diagnosis),
        cmocka_unit_test(guard_settings),
        cmocka_unit_test(watchdog_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
