/*
 * Allgather, neighbor exchange: p/2 steps, even p.
 *
 * Ranks pair up (0-1, 2-3, ...) and swap their blocks; from then on each rank
 * alternates between its left and right neighbour, forwarding the pair of
 * blocks it received in the previous step.
 *
 *   p = 6        0 <> 1   2 <> 3   4 <> 5      step 0: one block each way
 *               >0   1 <> 2   3 <> 4   5<      step 1: the pair just received
 *                0 <> 1   2 <> 3   4 <> 5      step 2: the pair just received
 *   holdings     after 0: {01}{01}{23}{23}{45}{45}
 *                after 1: {0145}{0123}{0123}{2345}{2345}{0145}
 *                after 2: all six blocks everywhere
 *
 * Cost: (p/2) alpha + (p - 1) n beta: half the ring's steps, same bandwidth.
 * Why pick it: medium and large messages on many processes. Odd p: the ring
 * instead, chosen in registry.c.
 */
#include "algorithms.h"

bool ftc_allgather_plan_neighbor_exchange(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    if (p < 2)
        return ftc_schedule_ok(s);
    const bool even = r % 2 == 0;
    /* neighbour[0] is the pair partner, used on even steps; neighbour[1] on odd. */
    const int neighbour[2] = { ftc_mod(even ? r + 1 : r - 1, p), ftc_mod(even ? r - 1 : r + 1, p) };
    /* The pair of blocks to receive next from each side walks away by 2. */
    const int walk[2] = { even ? +2 : -2, even ? -2 : +2 };
    const int my_pair = even ? r : neighbour[0];   /* first (even) slot of my pair */
    int next_from[2] = { my_pair, my_pair };

    ftc_schedule_step(s);
    ftc_schedule_exchange(s, neighbour[0], r, neighbour[0], 1);

    int send_from = my_pair;
    for (int i = 1; i < p / 2; i++) {
        const int side = i % 2;
        next_from[side] = ftc_mod(next_from[side] + walk[side], p);
        ftc_schedule_step(s);
        ftc_schedule_exchange(s, neighbour[side], send_from, next_from[side], 2);
        send_from = next_from[side];
    }
    return ftc_schedule_ok(s);
}
