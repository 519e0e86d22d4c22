/*
 * Allgather, recursive doubling: log2 p pairwise exchanges, power-of-two p.
 *
 * At step k rank r exchanges everything it holds — the 2^k blocks of its
 * aligned group — with r XOR 2^k; groups double until one spans all ranks.
 *
 *   p = 8        step 0 (xor 1)   step 1 (xor 2)    step 2 (xor 4)
 *   r=0 holds    [0]   +[1]       [0 1] +[2 3]      [0 1 2 3] +[4 5 6 7]
 *   r=5 holds    [5]   +[4]       [4 5] +[6 7]      [4 5 6 7] +[0 1 2 3]
 *
 *        ┌───────┴───────┐            step 2
 *    ┌───┴───┐       ┌───┴───┐        step 1
 *   ┌┴┐     ┌┴┐     ┌┴┐     ┌┴┐       step 0
 *   0 1     2 3     4 5     6 7
 *
 * Cost: log2 p alpha + (p - 1) n beta. Blocks stay in place: no extra memory.
 * Why pick it: fewest steps and largest messages early, ideal for small and
 * medium messages when p is a power of two. Other p: Bruck instead, chosen
 * in registry.c.
 */
#include "algorithms.h"

bool ftc_allgather_plan_recursive_doubling(ftc_schedule *s)
{
    const int r = s->rank;
    for (int distance = 1; distance < s->size; distance <<= 1) {
        const int peer = r ^ distance;
        const int mine = r & ~(distance - 1);      /* first slot of my group */
        const int theirs = peer & ~(distance - 1); /* first slot of the peer's */
        ftc_schedule_step(s);
        ftc_schedule_exchange(s, peer, mine, theirs, distance);
    }
    return ftc_schedule_ok(s);
}
