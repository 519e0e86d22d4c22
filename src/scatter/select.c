/*
 * Scatter selection: Open MPI's fixed decision rules (coll_tuned
 * scatter_intra_dec_fixed, 5.0) as a table, by the bytes of one block
 * (Open MPI's total_dsize is dsize x count: one block), and the
 * algorithms' names and numbers, which are Open MPI's. Its linear_nb (3)
 * is basic_linear here, whose sends are nonblocking already.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "algorithms.h"
#include "../decision.h"

#define LIN FTC_SCATTER_LINEAR
#define BIN FTC_SCATTER_BINOMIAL
#define ELSE FTC_DECISION_ELSE

static const ftc_decision_row decision_table[] = {
    {        4, {{ELSE, LIN}} },
    {        8, {{2048, BIN}, {4096, LIN}, {8192, BIN}, {ELSE, LIN}} },
    {       32, {{16384, BIN}, {ELSE, LIN}} },
    {       64, {{512, BIN}, {8192, LIN}, {16384, BIN}, {ELSE, LIN}} },
    { LONG_MAX, {{512, BIN}, {ELSE, LIN}} },
};

ftc_scatter_algorithm ftc_scatter_decide(int p, size_t block_bytes)
{
    return (ftc_scatter_algorithm)ftc_decision_look_up(
        decision_table, sizeof(decision_table) / sizeof(decision_table[0]), p, block_bytes,
        FTC_SCATTER_LINEAR);
}

const ftc_vrank_tree *ftc_scatter_tree_of(ftc_scatter_algorithm algorithm)
{
    return algorithm == FTC_SCATTER_BINOMIAL ? ftc_scatter_binomial_tree
                                             : ftc_scatter_linear_tree;
}

/* ---- names ------------------------------------------------------------------------------- */

static const char *const names[FTC_SCATTER_ALGORITHM_COUNT] = { "auto", "basic_linear",
                                                                 "binomial" };

static const ftc_decision_name parse_names[] = {
    { "auto", FTC_SCATTER_AUTO }, { "0", FTC_SCATTER_AUTO },
    { "basic_linear", LIN }, { "linear", LIN }, { "1", LIN },
    { "linear_nb", LIN }, { "3", LIN },
    { "binomial", BIN }, { "2", BIN },
};

const char *ftc_scatter_algorithm_name(ftc_scatter_algorithm algorithm)
{
    if ((int)algorithm < 0 || (int)algorithm >= FTC_SCATTER_ALGORITHM_COUNT)
        return NULL;
    return names[algorithm];
}

bool ftc_scatter_parse_name(const char *text, ftc_scatter_algorithm *out)
{
    int value = 0;
    if (!ftc_decision_parse_name(parse_names, sizeof(parse_names) / sizeof(parse_names[0]), text,
                                 &value))
        return false;
    *out = (ftc_scatter_algorithm)value;
    return true;
}

void ftc_scatter_list_names(char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int a = 0; a < FTC_SCATTER_ALGORITHM_COUNT && used < size; a++)
        used += (size_t)snprintf(out + used, size - used, "%s%s (%d)", a ? ", " : "", names[a], a);
}
