/*
 * Allgather selection: Open MPI's fixed decision rules (coll_tuned
 * allgather_intra_dec_fixed, 5.0), written as a table.
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
