/*
 * Which algorithm runs an ftc_reduce_scatter(_block): recursive halving
 * (recursive_halving.c) once the whole vector is large enough that its
 * bytes, not its latency, cost most; else the allreduce of the whole
 * vector (allreduce_block.c). FTCOLL_REDUCE_SCATTER_ALGORITHM forces one.
 * The op is always commutative: ftc_check_reduction refuses any other.
 */
#include "algorithms.h"
#include "../decision.h"

/* The whole vector's bytes from which recursive halving runs on three
 * ranks or more: below, its confirmation's ceil(log2 p) empty exchanges
 * cost more than the bytes it saves (measured at p = 8: at 2 KiB halving
 * 1.69 x native, the allreduce 1.42; at 4 KiB 1.55 and 2.28). On two
 * ranks it has no confirmation (nobody would be left to disagree) and
 * sends half the allreduce's bytes: from the first byte. */
enum { FTC_HALVING_MIN_BYTES = 4096 };

ftc_reduce_scatter_algorithm ftc_reduce_scatter_decide(int p, size_t vector_bytes)
{
    const size_t from = p == 2 ? 1 : FTC_HALVING_MIN_BYTES;
    return p >= 2 && vector_bytes >= from ? FTC_REDUCE_SCATTER_RECURSIVE_HALVING
                                          : FTC_REDUCE_SCATTER_ALLREDUCE;
}

static const ftc_decision_name names[] = {
    { "auto", FTC_REDUCE_SCATTER_AUTO }, { "0", FTC_REDUCE_SCATTER_AUTO },
    { "allreduce", FTC_REDUCE_SCATTER_ALLREDUCE }, { "1", FTC_REDUCE_SCATTER_ALLREDUCE },
    { "recursive_halving", FTC_REDUCE_SCATTER_RECURSIVE_HALVING },
    { "2", FTC_REDUCE_SCATTER_RECURSIVE_HALVING },
};

bool ftc_reduce_scatter_parse_name(const char *text, ftc_reduce_scatter_algorithm *out)
{
    int value = 0;
    if (!ftc_decision_parse_name(names, sizeof(names) / sizeof(names[0]), text, &value))
        return false;
    *out = (ftc_reduce_scatter_algorithm)value;
    return true;
}

static const char *const algorithm_names[FTC_REDUCE_SCATTER_ALGORITHM_COUNT] = {
    "auto", "allreduce", "recursive_halving"
};

const char *ftc_reduce_scatter_algorithm_name(ftc_reduce_scatter_algorithm algorithm)
{
    if ((int)algorithm < 0 || (int)algorithm >= FTC_REDUCE_SCATTER_ALGORITHM_COUNT)
        return NULL;
    return algorithm_names[algorithm];
}
