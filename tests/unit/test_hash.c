/* The FNV-1a hash ranks compare: the published test vectors, bytes added
 * in pieces give the hash of the whole, and the 31-bit fold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hash.h"

static void published_vectors(void **state)
{
    (void)state;
    assert_true(ftc_hash_text("") == UINT64_C(0xcbf29ce484222325));
    assert_true(ftc_hash_text("a") == UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(ftc_hash_text("foobar") == UINT64_C(0x85944171f73967e8));
}

static void pieces_make_the_whole(void **state)
{
    (void)state;
    const char *text = "site S0 0-3\nsite S1 4-7\n";
    uint64_t h = FTC_HASH_START;
    for (size_t i = 0, n = strlen(text); i < n; i += 5)
        h = ftc_hash_bytes(h, text + i, n - i < 5 ? n - i : 5);
    assert_true(h == ftc_hash_text(text));
}

static void folds_to_a_non_negative_int(void **state)
{
    (void)state;
    const uint64_t samples[] = { 0, UINT64_MAX, UINT64_C(0x8000000080000000),
                                 ftc_hash_text("host-a"), ftc_hash_text("host-b") };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        assert_true(ftc_hash_int(samples[i]) >= 0);
    assert_int_not_equal(ftc_hash_int(ftc_hash_text("host-a")),
                         ftc_hash_int(ftc_hash_text("host-b")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_vectors),
        cmocka_unit_test(pieces_make_the_whole),
        cmocka_unit_test(folds_to_a_non_negative_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
