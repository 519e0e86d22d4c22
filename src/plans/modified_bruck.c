/*
 * Open MPI's modified Bruck alltoall, planned (modified_bruck.h): the
 * arithmetic of alltoall/bruck.c, apart from MPI so that the unit test can
 * play every step for every process count.
 *
 *   n = 5, rank r, slot j: [start: r's block for r+j]  -> [end: r-j's block for r]
 *   step 0 (d = 1): slots 1 3   go to r+1, come from r-1
 *   step 1 (d = 2): slots 2 3   go to r+2, come from r-2
 *   step 2 (d = 4): slot  4     goes to r+4, comes from r-4
 *
 * Why it works: before the step of distance d, slot j of rank r holds the
 * block that rank r - (j mod d) sent for r - (j mod d) + j. Sending the
 * slots with bit d set to r + d keeps that true one bit further; once
 * every bit is done, slot j holds r - j's block for r. Slot j stops moving
 * after the step of its highest bit.
 */
#include "modified_bruck.h"

#include "../schedule.h"

int ftc_modified_bruck_steps(int n)
{
    return n > 1 ? ftc_ceil_log2(n) : 0;
}

/* Slots 0 .. n-1 run in periods of 2d, the upper d of each with bit d set. */
int ftc_modified_bruck_moving(int n, int distance)
{
    const int period = 2 * distance, rest = n % period - distance;
    return n / period * distance + (rest > 0 ? rest : 0);
}

int ftc_modified_bruck_most_moving(int n)
{
    int most = 0;
    for (int step = 0; step < ftc_modified_bruck_steps(n); step++) {
        const int moving = ftc_modified_bruck_moving(n, ftc_modified_bruck_distance(step));
        most = moving > most ? moving : most;
    }
    return most;
}

int ftc_modified_bruck_send_to(int r, int distance, int n) { return ftc_mod(r + distance, n); }

int ftc_modified_bruck_receive_from(int r, int distance, int n)
{
    return ftc_mod(r - distance, n);
}

int ftc_modified_bruck_first_destination(int r, int slot, int n) { return ftc_mod(r + slot, n); }

int ftc_modified_bruck_final_source(int r, int slot, int n) { return ftc_mod(r - slot, n); }
