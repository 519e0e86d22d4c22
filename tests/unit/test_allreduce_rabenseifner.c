/*
 * Rabenseifner's layout (allreduce/rabenseifner.h) simulated without MPI for
 * every participant count 1..64 (the actives: its power of two) and vector
 * lengths around the block count: every message is the range its partner
 * expects, every combination joins disjoint contributions, every block of
 * the result is computed by exactly one participant and every participant
 * ends with every block over every participant. And the selection table
 * (allreduce/select.c) against Open MPI's rules for commutative ops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "allreduce/rabenseifner.h"
#include "allreduce/recursive_doubling.h"
#include "allreduce/select.h"

#define MAX_M 64

/* Per participant and block: the participants whose contributions it holds. */
typedef struct {
    int m;
    uint64_t held[MAX_M][MAX_M];
    int computed[MAX_M];   /* per block: how many participants completed it */
} world;

static void start(world *w, int m)
{
    memset(w, 0, sizeof(*w));
    w->m = m;
    for (int i = 0; i < m; i++)
        for (int b = 0; b < m; b++)
            w->held[i][b] = UINT64_C(1) << i;
}

static uint64_t everyone(int m) { return m == 64 ? UINT64_MAX : (UINT64_C(1) << m) - 1; }

static void check_pair(ftc_rabenseifner_step mine, ftc_rabenseifner_step theirs, int i)
{
    assert_int_equal(theirs.partner, i);
    assert_int_equal(mine.send_first, theirs.receive_first);
    assert_int_equal(mine.send_end, theirs.receive_end);
    assert_int_equal(mine.receive_first, theirs.send_first);
    assert_int_equal(mine.receive_end, theirs.send_end);
}

static void reduce_scatter(world *w)
{
    const int m = w->m;
    for (int step = 0; step < ftc_rabenseifner_steps(m); step++) {
        uint64_t next[MAX_M][MAX_M];
        memcpy(next, w->held, sizeof(next));
        for (int i = 0; i < m; i++) {
            const ftc_rabenseifner_step s = ftc_rabenseifner_reduce_scatter_step(i, m, step);
            check_pair(s, ftc_rabenseifner_reduce_scatter_step(s.partner, m, step), i);
            assert_int_equal(s.receive_end - s.receive_first, m >> (step + 1));
            for (int b = s.receive_first; b < s.receive_end; b++) {
                assert_int_equal(w->held[i][b] & w->held[s.partner][b], 0);   /* disjoint */
                next[i][b] = w->held[i][b] | w->held[s.partner][b];
            }
        }
        memcpy(w->held, next, sizeof(next));
    }
    for (int i = 0; i < m; i++) {   /* participant i owns block i, over everyone */
        assert_int_equal(w->held[i][i], everyone(m));
        w->computed[i]++;
    }
}

static void allgather(world *w)
{
    const int m = w->m;
    for (int step = 0; step < ftc_rabenseifner_steps(m); step++) {
        uint64_t next[MAX_M][MAX_M];
        memcpy(next, w->held, sizeof(next));
        for (int i = 0; i < m; i++) {
            const ftc_rabenseifner_step s = ftc_rabenseifner_allgather_step(i, m, step);
            check_pair(s, ftc_rabenseifner_allgather_step(s.partner, m, step), i);
            for (int b = s.send_first; b < s.send_end; b++)
                assert_int_equal(w->held[i][b], everyone(m));   /* only finished blocks travel */
            for (int b = s.receive_first; b < s.receive_end; b++)
                next[i][b] = w->held[s.partner][b];
        }
        memcpy(w->held, next, sizeof(next));
    }
    for (int i = 0; i < m; i++)
        for (int b = 0; b < m; b++)
            assert_int_equal(w->held[i][b], everyone(m));
}

static void every_participant_count(void **state)
{
    (void)state;
    static world w;
    for (int n = 1; n <= 64; n++) {
        const int m = ftc_rd_actives(n);
        start(&w, m);
        reduce_scatter(&w);
        allgather(&w);
        for (int b = 0; b < m; b++)
            assert_int_equal(w.computed[b], 1);
    }
}

static void blocks_cut_the_vector(void **state)
{
    (void)state;
    const int counts[] = { 0, 1, 2, 3, 7, 63, 64, 65, 1000, 131072, 131075 };
    for (int m = 1; m <= MAX_M; m *= 2) {
        for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
            const int count = counts[k];
            assert_int_equal(ftc_rabenseifner_block_start(count, m, 0), 0);
            assert_int_equal(ftc_rabenseifner_block_start(count, m, m), count);
            for (int b = 0; b < m; b++) {
                const int length = ftc_rabenseifner_block_start(count, m, b + 1)
                                 - ftc_rabenseifner_block_start(count, m, b);
                assert_true(length == count / m || length == count / m + 1);
            }
        }
    }
}

/* Open MPI 5 coll_tuned allreduce_intra_dec_fixed, commutative ops, in its
 * own numbering: 1 linear, 2 nonoverlapping, 3 recursive doubling, 4 ring,
 * 5 segmented ring, 6 Rabenseifner. */
static int open_mpi_rule(int p, size_t bytes)
{
    if (p < 4) {
        if (bytes < 8) return 4;
        if (bytes < 4096) return 3;
        if (bytes < 8192) return 4;
        if (bytes < 16384) return 3;
        if (bytes < 65536) return 4;
        if (bytes < 262144) return 5;
        return 6;
    }
    if (p < 8) return bytes < 16 ? 4 : bytes < 8192 ? 3 : 6;
    if (p < 16) return bytes < 8192 ? 3 : 6;
    if (p < 32) return bytes < 64 ? 5 : bytes < 4096 ? 3 : 6;
    if (p < 64) return bytes < 128 ? 5 : 6;
    if (p < 128) return bytes < 262144 ? 3 : 6;
    if (p < 256) return bytes < 131072 ? 2 : bytes < 262144 ? 3 : 6;
    if (p < 512) return bytes < 4096 ? 2 : 6;
    if (p < 2048) return bytes < 2048 ? 2 : bytes < 16384 ? 3 : 6;
    if (p < 4096) return bytes < 2048 ? 2 : bytes < 4096 ? 5 : bytes < 16384 ? 3 : 6;
    return bytes < 2048 ? 2 : bytes < 16384 ? 5 : bytes < 32768 ? 3 : 6;
}

static ftc_allreduce_algorithm same_shape(int open_mpi)
{
    return open_mpi >= 4 ? FTC_ALLREDUCE_RABENSEIFNER : FTC_ALLREDUCE_RECURSIVE_DOUBLING;
}

static void table_matches_open_mpi(void **state)
{
    (void)state;
    const int ps[] = { 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
                       255, 256, 257, 511, 512, 513, 2047, 2048, 2049, 4095, 4096, 4097, 10000 };
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        for (size_t bytes = 1; bytes <= (size_t)1 << 22; bytes *= 2) {
            for (int delta = -1; delta <= 1; delta++) {
                const size_t b = bytes + (size_t)delta;
                const int count = (int)(b / 8) > ps[i] ? (int)(b / 8) : ps[i] * 4;
                assert_int_equal(ftc_allreduce_decide(ps[i], count, b),
                                 same_shape(open_mpi_rule(ps[i], b)));
            }
        }
    }
}

static void short_vectors_and_one_rank(void **state)
{
    (void)state;
    /* fewer elements than actives: no blocks to cut */
    assert_int_equal(ftc_allreduce_decide(8, 7, 1 << 20), FTC_ALLREDUCE_RECURSIVE_DOUBLING);
    assert_int_equal(ftc_allreduce_decide(8, 8, 1 << 20), FTC_ALLREDUCE_RABENSEIFNER);
    assert_int_equal(ftc_allreduce_decide(1, 1 << 20, 1 << 23), FTC_ALLREDUCE_RECURSIVE_DOUBLING);
    ftc_allreduce_algorithm a = FTC_ALLREDUCE_AUTO;
    assert_true(ftc_allreduce_algorithm_parse("rabenseifner", &a));
    assert_int_equal(a, FTC_ALLREDUCE_RABENSEIFNER);
    assert_true(ftc_allreduce_algorithm_parse("recursive_doubling", &a));
    assert_int_equal(a, FTC_ALLREDUCE_RECURSIVE_DOUBLING);
    assert_true(ftc_allreduce_algorithm_parse("auto", &a));
    assert_int_equal(a, FTC_ALLREDUCE_AUTO);
    assert_false(ftc_allreduce_algorithm_parse("ring", &a));
    assert_false(ftc_allreduce_algorithm_parse(NULL, &a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_participant_count),
        cmocka_unit_test(blocks_cut_the_vector),
        cmocka_unit_test(table_matches_open_mpi),
        cmocka_unit_test(short_vectors_and_one_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
