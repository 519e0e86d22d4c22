/*
 * Allreduce selection: Open MPI's fixed decision rules for commutative ops
 * (coll_tuned allreduce_intra_dec_fixed, 5.0), written as a table, each of
 * its algorithms mapped to the fault-tolerant one of the same shape:
 * recursive doubling, reduce + bcast and linear to recursive doubling (few
 * steps, whole vectors); ring, segmented ring and Rabenseifner to
 * Rabenseifner (the vector cut in blocks, each reduced once).
 *
 * The table's shape is decision.h's, over the call's bytes (count x size of
 * the type). A vector of fewer elements than the participants' power of two
 * has blocks too small to cut: recursive doubling.
 */
#include "select.h"

#include <limits.h>

#include "../decision.h"
#include "recursive_doubling.h"

#define RD FTC_ALLREDUCE_RECURSIVE_DOUBLING
#define RAB FTC_ALLREDUCE_RABENSEIFNER
#define ELSE FTC_DECISION_ELSE

static const ftc_decision_row decision_table[] = {
    {    4, {{8, RAB}, {4096, RD}, {8192, RAB}, {16384, RD}, {ELSE, RAB}} },
    {    8, {{16, RAB}, {8192, RD}, {ELSE, RAB}} },
    {   16, {{8192, RD}, {ELSE, RAB}} },
    {   32, {{64, RAB}, {4096, RD}, {ELSE, RAB}} },
    {   64, {{ELSE, RAB}} },
    {  128, {{262144, RD}, {ELSE, RAB}} },
    {  256, {{262144, RD}, {ELSE, RAB}} },
    {  512, {{4096, RD}, {ELSE, RAB}} },
    { 2048, {{16384, RD}, {ELSE, RAB}} },
    { 4096, {{2048, RD}, {4096, RAB}, {16384, RD}, {ELSE, RAB}} },
    { LONG_MAX, {{2048, RD}, {16384, RAB}, {32768, RD}, {ELSE, RAB}} },
};

static ftc_allreduce_algorithm look_up(int p, size_t bytes)
{
    return (ftc_allreduce_algorithm)ftc_decision_look_up(
        decision_table, sizeof(decision_table) / sizeof(decision_table[0]), p, bytes, RD);
}

ftc_allreduce_algorithm ftc_allreduce_decide(int p, int count, size_t bytes)
{
    if (p < 2 || count < ftc_rd_actives(p))
        return RD;
    return look_up(p, bytes);
}

bool ftc_allreduce_algorithm_parse(const char *name, ftc_allreduce_algorithm *out)
{
    static const ftc_decision_name names[] = {
        { "auto", FTC_ALLREDUCE_AUTO },
        { "recursive_doubling", RD },
        { "rabenseifner", RAB },
    };
    int value;
    if (!ftc_decision_parse_name(names, sizeof(names) / sizeof(names[0]), name, &value))
        return false;
    *out = (ftc_allreduce_algorithm)value;
    return true;
}
