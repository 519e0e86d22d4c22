/*
 * Alltoall selection: Open MPI's fixed decision rules (coll_tuned
 * alltoall_intra_dec_fixed and alltoallv_intra_dec_fixed, 5.0) as tables,
 * by the bytes of one block (Open MPI's total_dsize is dsize x scount: one
 * block), and the algorithms' names and numbers, which are Open MPI's.
 * Its linear_sync posts every request at once unless a limit is set
 * (coll_tuned_alltoall_max_requests, 0 by default): linear here. Its
 * two_proc is pairwise's one step. Its modified Bruck runs where it does:
 * blocks of 4 to 511 B on 16 to 31 ranks, under 512 B on 32 to 63, under
 * 1 KiB on 64 to 511, under 512 B on 512 to 2047, under 1 KiB on 2048 to
 * 4095 and under 2 KiB from 4096 on. ftc_alltoallv has no Bruck (nor has
 * Open MPI's alltoallv): forced, it runs linear (prepare.c).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "algorithms.h"
#include "../decision.h"
#include "../plans/modified_bruck.h"

#define LIN FTC_ALLTOALL_LINEAR
#define PW FTC_ALLTOALL_PAIRWISE
#define BR FTC_ALLTOALL_MODIFIED_BRUCK
#define ELSE FTC_DECISION_ELSE

static const ftc_decision_row alltoall_table[] = {
    {        3, {{32768, PW}, {262144, LIN}, {ELSE, PW}} },
    {        8, {{524288, LIN}, {1048576, PW}, {ELSE, LIN}} },
    {       16, {{ELSE, LIN}} },
    {       32, {{4, LIN}, {512, BR}, {ELSE, LIN}} },
    {       64, {{512, BR}, {ELSE, LIN}} },
    {      256, {{1024, BR}, {262144, LIN}, {ELSE, PW}} },
    {      512, {{1024, BR}, {32768, LIN}, {ELSE, PW}} },
    {     1024, {{512, BR}, {262144, LIN}, {ELSE, PW}} },
    {     2048, {{512, BR}, {ELSE, LIN}} },
    {     4096, {{1024, BR}, {ELSE, LIN}} },
    { LONG_MAX, {{2048, BR}, {ELSE, LIN}} },
};

#define ROWS(table) (sizeof(table) / sizeof((table)[0]))

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
    return (ftc_alltoall_algorithm)ftc_decision_look_up(alltoall_table, ROWS(alltoall_table), p,
                                                        block_bytes, LIN);
}

/* A row decides by bytes alone: its first process count answers for it. */
bool ftc_alltoall_may_pick_bruck(int size, size_t block_bytes)
{
    long first = 1;
    for (size_t row = 0; row < ROWS(alltoall_table) && first <= size; row++) {
        if (ftc_alltoall_decide((int)first, block_bytes) == BR)
            return true;
        first = alltoall_table[row].below_procs;
    }
    return false;
}

size_t ftc_alltoall_bruck_room(int size, size_t block_bytes)
{
    const size_t message = (size_t)ftc_modified_bruck_most_moving(size) * block_bytes + 1;
    if (message > INT_MAX)
        return 0;   /* a wait checks a message's size as an int */
    return (size_t)size * block_bytes + 2 * message;
}

ftc_alltoall_algorithm ftc_alltoallv_decide(int p)
{
    return (ftc_alltoall_algorithm)ftc_decision_look_up(alltoallv_table, ROWS(alltoallv_table), p,
                                                        0, LIN);
}

/* ---- names ------------------------------------------------------------------------------- */

static const char *const names[FTC_ALLTOALL_ALGORITHM_COUNT] = { "auto", "linear", "pairwise",
                                                                "modified_bruck" };

static const ftc_decision_name parse_names[] = {
    { "auto", FTC_ALLTOALL_AUTO }, { "0", FTC_ALLTOALL_AUTO },
    { "linear", LIN }, { "basic_linear", LIN }, { "1", LIN },
    { "pairwise", PW }, { "2", PW },
    { "modified_bruck", BR }, { "bruck", BR }, { "3", BR },
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
    if (!ftc_decision_parse_name(parse_names, ROWS(parse_names), text, &value))
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
