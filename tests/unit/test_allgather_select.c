/*
 * The decision tables (allgather, allgatherv) against Open MPI's published
 * rules (their nested conditions, written below as the oracles), over a
 * grid of process counts and sizes that hits every threshold and its
 * neighbours; the fallbacks; the allgatherv's names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "allgather/algorithms.h"

/* Open MPI 5 coll_tuned allgather_intra_dec_fixed, verbatim in logic.
 * Its total_dsize is, in Open MPI's code, dsize x scount: one rank's block. */
static int open_mpi_rule(int communicator_size, size_t total_dsize)
{
    int alg;
    if (communicator_size == 2) {
        alg = 6;
    } else if (communicator_size < 32) {
        alg = 3;
    } else if (communicator_size < 64) {
        if (total_dsize < 1024) alg = 3;
        else if (total_dsize < 65536) alg = 5;
        else alg = 4;
    } else if (communicator_size < 128) {
        if (total_dsize < 512) alg = 3;
        else if (total_dsize < 65536) alg = 5;
        else alg = 4;
    } else if (communicator_size < 256) {
        if (total_dsize < 512) alg = 3;
        else if (total_dsize < 131072) alg = 5;
        else if (total_dsize < 524288) alg = 4;
        else if (total_dsize < 1048576) alg = 5;
        else alg = 4;
    } else if (communicator_size < 512) {
        if (total_dsize < 32) alg = 3;
        else if (total_dsize < 128) alg = 2;
        else if (total_dsize < 1024) alg = 3;
        else if (total_dsize < 131072) alg = 5;
        else if (total_dsize < 524288) alg = 4;
        else if (total_dsize < 1048576) alg = 5;
        else alg = 4;
    } else if (communicator_size < 1024) {
        if (total_dsize < 64) alg = 3;
        else if (total_dsize < 256) alg = 2;
        else if (total_dsize < 2048) alg = 3;
        else alg = 5;
    } else if (communicator_size < 2048) {
        if (total_dsize < 4) alg = 3;
        else if (total_dsize < 8) alg = 2;
        else if (total_dsize < 16) alg = 3;
        else if (total_dsize < 32) alg = 2;
        else if (total_dsize < 256) alg = 3;
        else if (total_dsize < 512) alg = 2;
        else if (total_dsize < 4096) alg = 3;
        else alg = 5;
    } else if (communicator_size < 4096) {
        if (total_dsize < 32) alg = 2;
        else if (total_dsize < 128) alg = 3;
        else if (total_dsize < 512) alg = 2;
        else if (total_dsize < 4096) alg = 3;
        else alg = 5;
    } else {
        if (total_dsize < 2) alg = 3;
        else if (total_dsize < 8) alg = 2;
        else if (total_dsize < 16) alg = 3;
        else if (total_dsize < 512) alg = 2;
        else if (total_dsize < 4096) alg = 3;
        else alg = 5;
    }
    return alg;
}

/* Open MPI 5 coll_tuned allgatherv_intra_dec_fixed, in logic: by one
 * rank's share of the total. Its numbers: 1 default, 2 bruck, 3 ring,
 * 4 neighbor, 5 two_proc. */
static int open_mpi_v_rule(int communicator_size, size_t per_rank_dsize)
{
    if (communicator_size == 2)
        return per_rank_dsize < 2048 ? 3 : per_rank_dsize < 4096 ? 5
             : per_rank_dsize < 8192 ? 3 : 5;
    if (communicator_size < 8)
        return per_rank_dsize < 256 ? 1 : per_rank_dsize < 4096 ? 4
             : per_rank_dsize < 8192 ? 3 : per_rank_dsize < 16384 ? 4
             : per_rank_dsize < 262144 ? 2 : 4;
    if (communicator_size < 16)
        return per_rank_dsize < 1024 ? 1 : 2;
    if (communicator_size < 32)
        return per_rank_dsize < 128 ? 1 : per_rank_dsize < 262144 ? 2 : 3;
    if (communicator_size < 64)
        return per_rank_dsize < 256 ? 1 : per_rank_dsize < 8192 ? 2 : 3;
    if (communicator_size < 128)
        return per_rank_dsize < 256 ? 1 : per_rank_dsize < 4096 ? 2 : 3;
    if (communicator_size < 256)
        return per_rank_dsize < 1024 ? 2 : per_rank_dsize < 65536 ? 4 : 3;
    if (communicator_size < 512)
        return per_rank_dsize < 1024 ? 2 : 3;
    if (communicator_size < 1024)
        return per_rank_dsize < 512 ? 2 : per_rank_dsize < 1024 ? 1
             : per_rank_dsize < 4096 ? 2 : per_rank_dsize < 1048576 ? 4 : 3;
    return per_rank_dsize < 4096 ? 2 : 4;
}

static const int process_counts[] = { 1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 63, 64, 65, 127, 128,
    129, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096,
    4097, 10000, 1 << 20 };

static const size_t thresholds[] = { 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 65536,
    131072, 524288, 1048576 };

static void check(int p, size_t bytes)
{
    const int got = ftc_allgather_decide(p, bytes);
    const int want = open_mpi_rule(p, bytes);
    if (got != want)
        fail_msg("p=%d bytes=%zu: table says %d, Open MPI's rule %d", p, bytes, got, want);
}

static void table_matches_open_mpi(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(process_counts) / sizeof(process_counts[0]); i++) {
        const int p = process_counts[i];
        check(p, 0);
        check(p, SIZE_MAX / 2);
        for (size_t t = 0; t < sizeof(thresholds) / sizeof(thresholds[0]); t++) {
            check(p, thresholds[t] - 1);
            check(p, thresholds[t]);
            check(p, thresholds[t] + 1);
        }
        for (size_t bytes = 1; bytes < (1u << 24); bytes = bytes * 3 / 2 + 1)
            check(p, bytes);
    }
}

static void every_process_count_up_to_5000(void **state)
{
    (void)state;
    for (int p = 1; p <= 5000; p++)
        for (size_t t = 0; t < sizeof(thresholds) / sizeof(thresholds[0]); t++) {
            check(p, thresholds[t] - 1);
            check(p, thresholds[t]);
        }
}

static void fallbacks_follow_open_mpi(void **state)
{
    (void)state;
    char why[160];
    assert_int_equal(ftc_allgather_resolve(FTC_ALLGATHER_RECURSIVE_DOUBLING, 6, 64, why, sizeof why),
                     FTC_ALLGATHER_BRUCK);
    assert_non_null(strstr(why, "recursive_doubling needs a power-of-two process count (p=6)"));
    assert_int_equal(ftc_allgather_resolve(FTC_ALLGATHER_NEIGHBOR_EXCHANGE, 7, 64, why, sizeof why),
                     FTC_ALLGATHER_RING);
    assert_non_null(strstr(why, "using ring"));
    /* two_proc beyond 2: the table's choice, and its own fallback after it. */
    assert_int_equal(ftc_allgather_resolve(FTC_ALLGATHER_TWO_PROC, 6, 64, why, sizeof why),
                     FTC_ALLGATHER_BRUCK);
    assert_non_null(strstr(why, "two_proc needs exactly 2 processes (p=6): using recursive_doubling"));
    assert_non_null(strstr(why, "; recursive_doubling needs"));
    assert_int_equal(ftc_allgather_resolve(FTC_ALLGATHER_TWO_PROC, 8, 64, why, sizeof why),
                     FTC_ALLGATHER_RECURSIVE_DOUBLING);
    /* Nothing to explain when the algorithm serves p. */
    assert_int_equal(ftc_allgather_resolve(FTC_ALLGATHER_RING, 5, 64, why, sizeof why),
                     FTC_ALLGATHER_RING);
    assert_string_equal(why, "");
}

/* p = 1 has no rank to exchange with: any choice serves it. */
static void check_v(int p, size_t share)
{
    if (p == 1 || share > SIZE_MAX / (size_t)p)
        return;
    const int got = ftc_allgatherv_decide(p, share * (size_t)p);
    const int want = open_mpi_v_rule(p, share);
    if (got != want)
        fail_msg("allgatherv p=%d share=%zu: table says %d, Open MPI's rule %d", p, share, got,
                 want);
}

static void v_table_matches_open_mpi(void **state)
{
    (void)state;
    static const size_t v_thresholds[] = { 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                           65536, 262144, 1048576 };
    for (size_t i = 0; i < sizeof(process_counts) / sizeof(process_counts[0]); i++) {
        const int p = process_counts[i];
        check_v(p, 0);
        for (size_t t = 0; t < sizeof(v_thresholds) / sizeof(v_thresholds[0]); t++) {
            check_v(p, v_thresholds[t] - 1);
            check_v(p, v_thresholds[t]);
        }
        for (size_t share = 1; share < (1u << 24); share = share * 3 / 2 + 1)
            check_v(p, share);
    }
    /* a total that is no multiple of p: the share rounds down, as Open MPI's */
    assert_int_equal(ftc_allgatherv_decide(2, 2 * 2048 - 1), FTC_ALLGATHERV_RING);
    assert_int_equal(ftc_allgatherv_decide(2, 2 * 2048), FTC_ALLGATHERV_TWO_PROC);
}

static void v_fallbacks_and_names(void **state)
{
    (void)state;
    char why[160];
    assert_int_equal(ftc_allgatherv_resolve(FTC_ALLGATHERV_NEIGHBOR_EXCHANGE, 5, 64, why,
                                            sizeof why), FTC_ALLGATHERV_RING);
    assert_non_null(strstr(why, "neighbor_exchange needs an even process count (p=5): using ring"));
    /* two_proc at 3: the table's neighbor exchange, then ring */
    assert_int_equal(ftc_allgatherv_resolve(FTC_ALLGATHERV_TWO_PROC, 3, 3 * 1000, why,
                                            sizeof why), FTC_ALLGATHERV_RING);
    assert_non_null(strstr(why, "two_proc needs exactly 2 processes (p=3): using neighbor_exchange"));
    assert_int_equal(ftc_allgatherv_resolve(FTC_ALLGATHERV_BRUCK, 5, 64, why, sizeof why),
                     FTC_ALLGATHERV_BRUCK);
    assert_string_equal(why, "");
    for (int id = 1; id < FTC_ALLGATHERV_ALGORITHM_COUNT; id++)
        assert_string_equal(ftc_allgatherv_algorithm_name((ftc_allgatherv_algorithm)id),
                            ftc_allgather_info_of(ftc_allgatherv_plan_of(
                                (ftc_allgatherv_algorithm)id))->name);
    ftc_allgatherv_algorithm alg;
    assert_true(ftc_allgatherv_parse_name("default", &alg));
    assert_int_equal(alg, FTC_ALLGATHERV_LINEAR);
    assert_true(ftc_allgatherv_parse_name("3", &alg));
    assert_int_equal(alg, FTC_ALLGATHERV_RING);
    assert_false(ftc_allgatherv_parse_name("7", &alg));
    assert_false(ftc_allgatherv_parse_name("recursive_doubling", &alg));
    assert_false(ftc_allgatherv_parse_name("", &alg));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v_table_matches_open_mpi),
        cmocka_unit_test(v_fallbacks_and_names),
        cmocka_unit_test(table_matches_open_mpi),
        cmocka_unit_test(every_process_count_up_to_5000),
        cmocka_unit_test(fallbacks_follow_open_mpi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
