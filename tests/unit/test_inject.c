/* FTCOLL_INJECT: what it accepts, what it refuses (and says why), and which
 * points it matches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "inject.h"

static ftc_inject_plan parse_ok(const char *text)
{
    ftc_inject_plan plan;
    char why[256];
    if (!ftc_inject_parse(text, &plan, why, sizeof(why)))
        fail_msg("\"%s\" rejected: %s", text, why);
    return plan;
}

static void expect_rejected(const char *text, const char *reason_contains)
{
    ftc_inject_plan plan;
    char why[256];
    if (ftc_inject_parse(text, &plan, why, sizeof(why)))
        fail_msg("\"%s\" accepted", text);
    if (!strstr(why, reason_contains))
        fail_msg("\"%s\": reason \"%s\" lacks \"%s\"", text, why, reason_contains);
}

static void empty_means_nothing(void **state)
{
    (void)state;
    assert_int_equal(parse_ok(NULL).count, 0);
    assert_int_equal(parse_ok("").count, 0);
    assert_int_equal(parse_ok("  ;  ; ").count, 0);
}

static void the_documented_example(void **state)
{
    (void)state;
    ftc_inject_plan plan = parse_ok("kill rank=3 call=2 step=1 at=before-send; kill rank=5 at=recovery");
    assert_int_equal(plan.count, 2);
    assert_int_equal(plan.kills[0].rank, 3);
    assert_int_equal(plan.kills[0].call, 2);
    assert_int_equal(plan.kills[0].step, 1);
    assert_int_equal(plan.kills[0].when, FTC_INJECT_BEFORE_SEND);
    assert_int_equal(plan.kills[1].rank, 5);
    assert_int_equal(plan.kills[1].call, 1);
    assert_int_equal(plan.kills[1].round, 1);
    assert_int_equal(plan.kills[1].when, FTC_INJECT_RECOVERY);
}

static void named_steps_and_rounds(void **state)
{
    (void)state;
    ftc_inject_plan plan = parse_ok("kill rank=0 step=fold-in;kill rank=1 step=fold-out at=after-send;"
                                    "kill rank=2 step=handout round=2;kill rank=3 step=confirm");
    assert_int_equal(plan.kills[0].step, FTC_INJECT_STEP_FOLD_IN);
    assert_int_equal(plan.kills[1].step, FTC_INJECT_STEP_FOLD_OUT);
    assert_int_equal(plan.kills[1].when, FTC_INJECT_AFTER_SEND);
    assert_int_equal(plan.kills[2].step, FTC_INJECT_STEP_HANDOUT);
    assert_int_equal(plan.kills[2].round, 2);
    assert_int_equal(plan.kills[3].step, FTC_INJECT_STEP_CONFIRM);
}

static void bad_directives_say_why(void **state)
{
    (void)state;
    expect_rejected("kill call=2", "rank=R is required");
    expect_rejected("stop rank=1", "starts with \"kill\"");
    expect_rejected("kill rank=-1", "non-negative");
    expect_rejected("kill rank=x", "non-negative");
    expect_rejected("kill rank=1 call=0", "call counts from 1");
    expect_rejected("kill rank=1 step=seven", "step must be");
    expect_rejected("kill rank=1 at=lunch", "at must be");
    expect_rejected("kill rank=1 colour=red", "unknown key");
    expect_rejected("kill rank=1 step", "key=value");
    expect_rejected("kill rank=1 at=recovery round=0", "round 1 or later");
    expect_rejected("kill rank=1; kill rank=2 at=never", "directive 2");
}

static void matching_points(void **state)
{
    (void)state;
    ftc_inject_plan plan = parse_ok("kill rank=3 call=2 step=1; kill rank=5 at=recovery");
    assert_true(ftc_inject_matches(&plan, 3, 2, 0, 1, FTC_INJECT_BEFORE_SEND));
    assert_false(ftc_inject_matches(&plan, 3, 1, 0, 1, FTC_INJECT_BEFORE_SEND));
    assert_false(ftc_inject_matches(&plan, 3, 2, 0, 1, FTC_INJECT_AFTER_SEND));
    assert_false(ftc_inject_matches(&plan, 3, 2, 0, 2, FTC_INJECT_BEFORE_SEND));
    assert_false(ftc_inject_matches(&plan, 4, 2, 0, 1, FTC_INJECT_BEFORE_SEND));
    assert_true(ftc_inject_matches(&plan, 5, 1, 1, 0, FTC_INJECT_RECOVERY));
    assert_true(ftc_inject_matches(&plan, 5, 1, 1, 7, FTC_INJECT_RECOVERY));
    assert_false(ftc_inject_matches(&plan, 5, 1, 2, 0, FTC_INJECT_RECOVERY));
}

static void spinning_instead_of_dying(void **state)
{
    (void)state;
    ftc_inject_plan plan = parse_ok("spin rank=2 call=2 step=1; kill rank=4");
    const ftc_injection *spin = ftc_inject_matches(&plan, 2, 2, 0, 1, FTC_INJECT_BEFORE_SEND);
    assert_non_null(spin);
    assert_int_equal(spin->action, FTC_INJECT_SPIN);
    assert_int_equal(ftc_inject_matches(&plan, 4, 1, 0, 0, FTC_INJECT_BEFORE_SEND)->action,
                     FTC_INJECT_KILL);
    expect_rejected("spin call=2", "rank=R is required");
    expect_rejected("sleep rank=1", "\"kill\" or \"spin\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_means_nothing),
        cmocka_unit_test(the_documented_example),
        cmocka_unit_test(named_steps_and_rounds),
        cmocka_unit_test(bad_directives_say_why),
        cmocka_unit_test(matching_points),
        cmocka_unit_test(spinning_instead_of_dying),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
