/*
 * Gather selection: Open MPI's fixed decision rules (coll_tuned
 * gather_intra_dec_fixed, 5.0) as a table, by the bytes of one rank's
 * block (Open MPI's total_dsize is dsize x scount: one block), and the
 * algorithms' names and numbers, which are Open MPI's.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "algorithms.h"
#include "../decision.h"

#define LIN FTC_GATHER_LINEAR
#define BIN FTC_GATHER_BINOMIAL
#define SYNC FTC_GATHER_LINEAR_SYNC
#define ELSE FTC_DECISION_ELSE

static const ftc_decision_row decision_table[] = {
    {   4, {{2, SYNC}, {4, LIN}, {32768, BIN}, {65536, LIN}, {131072, BIN}, {ELSE, SYNC}} },
    {   8, {{1024, BIN}, {8192, LIN}, {32768, BIN}, {262144, LIN}, {ELSE, SYNC}} },
    { 256, {{ELSE, BIN}} },
    { 512, {{2048, BIN}, {8192, LIN}, {ELSE, BIN}} },
    { LONG_MAX, {{ELSE, BIN}} },
};

ftc_gather_algorithm ftc_gather_decide(int p, size_t block_bytes)
{
    return (ftc_gather_algorithm)ftc_decision_look_up(
        decision_table, sizeof(decision_table) / sizeof(decision_table[0]), p, block_bytes,
        FTC_GATHER_BINOMIAL);
}

const ftc_gather_tree *ftc_gather_tree_of(ftc_gather_algorithm algorithm)
{
    switch (algorithm) {
    case FTC_GATHER_LINEAR: return &ftc_gather_linear_tree;
    case FTC_GATHER_LINEAR_SYNC: return &ftc_gather_linear_sync_tree;
    default: return &ftc_gather_binomial_tree;
    }
}

/* ---- names ------------------------------------------------------------------------------- */

static const char *const names[FTC_GATHER_ALGORITHM_COUNT] = {
    "auto", "basic_linear", "binomial", "linear_sync",
};

static const ftc_decision_name parse_names[] = {
    { "auto", FTC_GATHER_AUTO }, { "0", FTC_GATHER_AUTO },
    { "basic_linear", LIN }, { "linear", LIN }, { "1", LIN },
    { "binomial", BIN }, { "2", BIN },
    { "linear_sync", SYNC }, { "3", SYNC },
};

const char *ftc_gather_algorithm_name(ftc_gather_algorithm algorithm)
{
    if ((int)algorithm < 0 || (int)algorithm >= FTC_GATHER_ALGORITHM_COUNT)
        return NULL;
    return names[algorithm];
}

bool ftc_gather_parse_name(const char *text, ftc_gather_algorithm *out)
{
    int value = 0;
    if (!ftc_decision_parse_name(parse_names, sizeof(parse_names) / sizeof(parse_names[0]), text,
                                 &value))
        return false;
    *out = (ftc_gather_algorithm)value;
    return true;
}

void ftc_gather_list_names(char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int a = 0; a < FTC_GATHER_ALGORITHM_COUNT && used < size; a++)
        used += (size_t)snprintf(out + used, size - used, "%s%s (%d)", a ? ", " : "", names[a], a);
}
