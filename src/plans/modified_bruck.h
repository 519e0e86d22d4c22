/*
 * Open MPI's modified Bruck alltoall as plain arithmetic (pure, no MPI):
 * which slots move at each step, to whom, and when a slot's block is
 * where it belongs. ftc_alltoall runs it (alltoall/bruck.c); the unit test
 * plays it for every process count.
 *
 * Rank r starts with slot j holding its own block for r + j (mod n). At
 * the step of distance d = 1, 2, 4, .. (below n) it sends every slot whose
 * bit d is set to r + d and takes the same slots from r - d. Once every
 * step ran, slot j holds the block of r - j for r.
 */
#ifndef FTCOLL_PLANS_MODIFIED_BRUCK_H
#define FTCOLL_PLANS_MODIFIED_BRUCK_H

#include <stdbool.h>

/* The steps on n ranks: ceil(log2 n), distance 1 << step each. */
int ftc_modified_bruck_steps(int n);

static inline int ftc_modified_bruck_distance(int step) { return 1 << step; }

/* Whether `slot` moves at the step of `distance`. */
static inline bool ftc_modified_bruck_moves(int slot, int distance)
{
    return (slot & distance) != 0;
}

/* Whether that step is the slot's last move (`distance` its highest bit):
 * after it, the slot holds its final block. */
static inline bool ftc_modified_bruck_last_move(int slot, int distance)
{
    return slot >= distance && slot < 2 * distance;
}

/* The slots among n that move at the step of `distance`, and the most at
 * any step on n ranks: the blocks of the largest message. */
int ftc_modified_bruck_moving(int n, int distance);
int ftc_modified_bruck_most_moving(int n);

/* Rank r's partners at the step of `distance` on n ranks. */
int ftc_modified_bruck_send_to(int r, int distance, int n);
int ftc_modified_bruck_receive_from(int r, int distance, int n);

/* Slot j of rank r: at the start its block for this rank, at the end the
 * rank whose block it holds. */
int ftc_modified_bruck_first_destination(int r, int slot, int n);
int ftc_modified_bruck_final_source(int r, int slot, int n);

#endif
