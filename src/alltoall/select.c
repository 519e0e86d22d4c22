/*
 * Alltoall selection: Open MPI's fixed decision rules (coll_tuned
 * alltoall_intra_dec_fixed and alltoallv_intra_dec_fixed, 5.0) as tables,
 * by the bytes of one block (Open MPI's total_dsize is dsize x scount: one
 * block), and the algorithms' names and numbers, which are Open MPI's.
 * Its linear_sync posts every request at once unless a limit is set
 * (coll_tuned_alltoall_max_requests, 0 by default): linear here. Its
 * two_proc is pairwise's one step. Its modified Bruck (small blocks on 16
 * ranks or more) is not built: linear takes its place.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "algorithms.h"
#include "../decision.h"

#define LIN FTC_ALLTOALL_LINEAR
#define PW FTC_ALLTOALL_PAIRWISE
#define ELSE FTC_DECISION_ELSE

static const ftc_decision_row alltoall_table[] = {
    {        3, {{32768, PW}, {262144, LIN}, {ELSE, PW}} },
    {        8, {{524288, LIN}, {1048576, PW}, {ELSE, LIN}} },
    {      128, {{ELSE, LIN}} },
    {      256, {{262144, LIN}, {ELSE, PW}} },
    {      512, {{32768, LIN}, {ELSE, PW}} },
    {     1024, {{262144, LIN}, {ELSE, PW}} },
    { LONG_MAX, {{ELSE, LIN}} },
};

/* Open MPI decides the alltoallv by p alone. */
static const ftc_decision_row alltoallv_table[] = {
    {        4, {{ELSE, PW}} },
    {       64, {{ELSE, LIN}} },
    {      128, {{ELSE, PW}} },
    {      256, {{ELSE, LIN}} },
    {     1024, {{ELSE, PW}} },
    { LONG_MAX, {{ELSE, LIN}} },
};

ftc_alltoall_algorithm ftc_alltoall_decide(int p, size_t block_bytes)
{
    return (ftc_alltoall_algorithm)ftc_decision_look_up(
        alltoall_table, sizeof(alltoall_table) / sizeof(alltoall_table[0]), p, block_bytes, LIN);
}

ftc_alltoall_algorithm ftc_alltoallv_decide(int p)
{
    return (ftc_alltoall_algorithm)ftc_decision_look_up(
        alltoallv_table, sizeof(alltoallv_table) / sizeof(alltoallv_table[0]), p, 0, LIN);
}

/* ---- names ------------------------------------------------------------------------------- */

static const char *const names[FTC_ALLTOALL_ALGORITHM_COUNT] = { "auto", "linear", "pairwise" };

static const ftc_decision_name parse_names[] = {
    { "auto", FTC_ALLTOALL_AUTO }, { "0", FTC_ALLTOALL_AUTO },
    { "linear", LIN }, { "basic_linear", LIN }, { "1", LIN },
    { "pairwise", PW }, { "2", PW },
};

const char *ftc_alltoall_algorithm_name(ftc_alltoall_algorithm algorithm)
{
    if ((int)algorithm < 0 || (int)algorithm >= FTC_ALLTOALL_ALGORITHM_COUNT)
        return NULL;
    return names[algorithm];
}

bool ftc_alltoall_parse_name(const char *text, ftc_alltoall_algorithm *out)
{
    int value = 0;
    if (!ftc_decision_parse_name(parse_names, sizeof(parse_names) / sizeof(parse_names[0]), text,
                                 &value))
        return false;
    *out = (ftc_alltoall_algorithm)value;
    return true;
}

void ftc_alltoall_list_names(char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int a = 0; a < FTC_ALLTOALL_ALGORITHM_COUNT && used < size; a++)
        used += (size_t)snprintf(out + used, size - used, "%s%s (%d)", a ? ", " : "", names[a], a);
}
