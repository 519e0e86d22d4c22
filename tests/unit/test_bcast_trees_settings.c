/*
 * The tree broadcasts' settings (src/bcast/trees/settings.h): every key and
 * algorithm name, the defaults, and each bad value refused with a reason
 * that names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bcast/trees/settings.h"

static void defaults(void **state)
{
    (void)state;
    ftc_tree_settings s;
    char why[256];
    assert_true(ftc_tree_settings_parse(NULL, &s, why, sizeof why));
    assert_int_equal(s.check_every, 0);
    assert_true(s.threshold == 0.0 && s.smooth == 1.0 && s.floor == 1e-6);
    assert_int_equal(s.probe_cliques, 0);
    assert_int_equal(s.pings, 3);
    assert_true(ftc_tree_settings_parse("", &s, why, sizeof why));
    assert_int_equal(s.pings, 3);
}

static void every_key(void **state)
{
    (void)state;
    ftc_tree_settings s;
    char why[256];
    assert_true(ftc_tree_settings_parse("check=4,threshold=50,probe=cliques,pings=5,floor=250,"
                                        "smooth=0.25", &s, why, sizeof why));
    assert_int_equal(s.check_every, 4);
    assert_true(s.threshold == 0.5);
    assert_int_equal(s.probe_cliques, 1);
    assert_int_equal(s.pings, 5);
    assert_true(s.floor > 249e-6 && s.floor < 251e-6);
    assert_true(s.smooth == 0.25);
    assert_true(ftc_tree_settings_parse("probe=all", &s, why, sizeof why));
    assert_int_equal(s.probe_cliques, 0);
}

static void expect_refused(const char *text, const char *reason)
{
    ftc_tree_settings s;
    char why[256] = "";
    assert_false(ftc_tree_settings_parse(text, &s, why, sizeof why));
    if (!strstr(why, reason))
        fail_msg("\"%s\": expected a reason with \"%s\", got \"%s\"", text, reason, why);
}

static void bad_values(void **state)
{
    (void)state;
    expect_refused("check=-1", "bad value '-1' for check");
    expect_refused("check=1.5", "bad value '1.5' for check");
    expect_refused("threshold=x", "bad value 'x' for threshold");
    expect_refused("probe=some", "bad value 'some' for probe");
    expect_refused("pings=0", "bad value '0' for pings");
    expect_refused("pings=101", "bad value '101' for pings");
    expect_refused("floor=-3", "bad value '-3' for floor");
    expect_refused("smooth=0", "bad value '0' for smooth");
    expect_refused("smooth=1.5", "bad value '1.5' for smooth");
    expect_refused("every=3", "unknown setting 'every'");
    expect_refused("check", "'check' is not key=value");
    char long_text[400];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    expect_refused(long_text, "too long");
}

static void algorithms(void **state)
{
    (void)state;
    char why[256];
    ftc_bcast_alg alg;
    for (int i = 0; i < FTC_BCAST_ALG_COUNT; i++) {
        const char *name = ftc_bcast_alg_name((ftc_bcast_alg)i);
        assert_non_null(name);
        assert_true(ftc_bcast_alg_parse(name, &alg, why, sizeof why));
        assert_int_equal(alg, i);
    }
    assert_true(ftc_bcast_alg_parse(NULL, &alg, why, sizeof why));
    assert_int_equal(alg, FTC_BCAST_ALG_AUTO);
    assert_false(ftc_bcast_alg_parse("fast", &alg, why, sizeof why));
    assert_non_null(strstr(why, "unknown broadcast algorithm 'fast'"));
    assert_null(ftc_bcast_alg_name(FTC_BCAST_ALG_COUNT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(every_key),
        cmocka_unit_test(bad_values),
        cmocka_unit_test(algorithms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
