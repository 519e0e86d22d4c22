/*
 * Allgather and allgatherv selection: Open MPI's fixed decision rules
 * (coll_tuned allgather(v)_intra_dec_fixed, 5.0), written as tables.
 *
 * A row covers communicators of fewer than `below_procs` processes; in it
 * the first column whose `below_bytes` exceeds the block bytes (what one rank
 * contributes: count x size of its type) names the algorithm. Every row ends
 * in an "else" column.
 *
 * Open MPI names that quantity total_dsize, and descriptions of its rules
 * call it the total over all processes, but its code computes
 * dsize x scount: one rank's block. We follow the code, so that both
 * libraries pick the same algorithm for the same call. (With MPI_IN_PLACE,
 * Open MPI multiplies by the ignored sendcount; we use recvcount.)
 */
#include <limits.h>
#include <stdint.h>

#include "ftcoll.h"
#include "../decision.h"

/* Short names keep the table readable. */
#define BRUCK FTC_ALLGATHER_BRUCK
#define RDBL FTC_ALLGATHER_RECURSIVE_DOUBLING
#define RING FTC_ALLGATHER_RING
#define NEIGH FTC_ALLGATHER_NEIGHBOR_EXCHANGE
#define TWO FTC_ALLGATHER_TWO_PROC

#define ELSE FTC_DECISION_ELSE

static const ftc_decision_row decision_table[] = {
    {    2, {{ELSE, RDBL}} },                                   /* p = 1: nothing to move */
    {    3, {{ELSE, TWO}} },                                    /* p = 2 */
    {   32, {{ELSE, RDBL}} },
    {   64, {{1024, RDBL}, {65536, NEIGH}, {ELSE, RING}} },
    {  128, {{512, RDBL}, {65536, NEIGH}, {ELSE, RING}} },
    {  256, {{512, RDBL}, {131072, NEIGH}, {524288, RING}, {1048576, NEIGH}, {ELSE, RING}} },
    {  512, {{32, RDBL}, {128, BRUCK}, {1024, RDBL}, {131072, NEIGH}, {524288, RING},
             {1048576, NEIGH}, {ELSE, RING}} },
    { 1024, {{64, RDBL}, {256, BRUCK}, {2048, RDBL}, {ELSE, NEIGH}} },
    { 2048, {{4, RDBL}, {8, BRUCK}, {16, RDBL}, {32, BRUCK}, {256, RDBL}, {512, BRUCK},
             {4096, RDBL}, {ELSE, NEIGH}} },
    { 4096, {{32, BRUCK}, {128, RDBL}, {512, BRUCK}, {4096, RDBL}, {ELSE, NEIGH}} },
    { LONG_MAX, {{2, RDBL}, {8, BRUCK}, {16, RDBL}, {512, BRUCK}, {4096, RDBL},
                        {ELSE, NEIGH}} },
};

ftc_allgather_algorithm ftc_allgather_decide(int p, size_t block_bytes)
{
    return (ftc_allgather_algorithm)ftc_decision_look_up(
        decision_table, sizeof(decision_table) / sizeof(decision_table[0]), p, block_bytes, RDBL);
}

/* The allgatherv's rules look at one rank's share of the blocks: their
 * total over p (with MPI_IN_PLACE Open MPI sizes by the receive type, as
 * we do). */
#define V_LINEAR FTC_ALLGATHERV_LINEAR
#define V_BRUCK FTC_ALLGATHERV_BRUCK
#define V_RING FTC_ALLGATHERV_RING
#define V_NEIGH FTC_ALLGATHERV_NEIGHBOR_EXCHANGE
#define V_TWO FTC_ALLGATHERV_TWO_PROC

static const ftc_decision_row v_decision_table[] = {
    {    2, {{ELSE, V_RING}} },                                      /* p = 1: nothing to move */
    {    3, {{2048, V_RING}, {4096, V_TWO}, {8192, V_RING}, {ELSE, V_TWO}} },     /* p = 2 */
    {    8, {{256, V_LINEAR}, {4096, V_NEIGH}, {8192, V_RING}, {16384, V_NEIGH},
             {262144, V_BRUCK}, {ELSE, V_NEIGH}} },
    {   16, {{1024, V_LINEAR}, {ELSE, V_BRUCK}} },
    {   32, {{128, V_LINEAR}, {262144, V_BRUCK}, {ELSE, V_RING}} },
    {   64, {{256, V_LINEAR}, {8192, V_BRUCK}, {ELSE, V_RING}} },
    {  128, {{256, V_LINEAR}, {4096, V_BRUCK}, {ELSE, V_RING}} },
    {  256, {{1024, V_BRUCK}, {65536, V_NEIGH}, {ELSE, V_RING}} },
    {  512, {{1024, V_BRUCK}, {ELSE, V_RING}} },
    { 1024, {{512, V_BRUCK}, {1024, V_LINEAR}, {4096, V_BRUCK}, {1048576, V_NEIGH},
             {ELSE, V_RING}} },
    { LONG_MAX, {{4096, V_BRUCK}, {ELSE, V_NEIGH}} },
};

ftc_allgatherv_algorithm ftc_allgatherv_decide(int p, size_t total_bytes)
{
    const size_t share = p > 0 ? total_bytes / (size_t)p : total_bytes;
    return (ftc_allgatherv_algorithm)ftc_decision_look_up(
        v_decision_table, sizeof(v_decision_table) / sizeof(v_decision_table[0]), p, share,
        V_RING);
}
