/*
 * Allgather, linear: gather every block to rank 0, then broadcast the whole
 * buffer from rank 0 — both along binomial trees, as Open MPI's linear
 * allgather composes its own gather and broadcast.
 *
 * In a binomial tree rooted at 0 the subtree of rank r is the contiguous run
 * of ranks [r, r + lowbit(r)), so every tree edge carries one message.
 *
 *   p = 6, blocks a..f         gather                   broadcast of [abcdef]
 *   step 0   1->0 [b]  3->2 [d]  5->4 [f]       step 3   0->4
 *   step 1   2->0 [cd]                          step 4   0->2
 *   step 2   4->0 [ef]  (0 holds [abcdef])      step 5   0->1  2->3  4->5
 *
 * Cost: 2 ceil(log2 p) alpha + ((p/2) log2 p + p (p - 1)) n beta
 *       (n: bytes of one block; the broadcast moves the whole buffer).
 * Why pick it: it is the reference — simple enough to trust, and with tiny
 * messages on few processes its steps cost little. The decision table never
 * chooses it.
 */
#include "algorithms.h"

static int lowest_bit(int r) { return r & -r; }

/*
 * Steps 0..L-1 (L = ceil(log2 p)): at step j, a rank r whose lowest set bit
 * is 2^j sends its subtree [r, r + 2^j) to r - 2^j, which receives it behind
 * its own subtree.
 */
static void plan_binomial_gather_to_zero(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    for (int reach = 1; reach < p; reach <<= 1) {
        ftc_schedule_step(s);
        if (r != 0 && lowest_bit(r) == reach) {
            const int end = r + reach < p ? r + reach : p;
            ftc_schedule_send(s, r - reach, r, end - r);
        } else if ((r == 0 || lowest_bit(r) > reach) && r + reach < p) {
            const int child = r + reach, end = child + reach < p ? child + reach : p;
            ftc_schedule_recv(s, child, child, end - child);
        }
    }
}

/*
 * Steps L..2L-1: the same tree, walked down from the largest distance: at
 * step k a rank that holds the buffer (r a multiple of 2 x distance) sends it
 * to r + distance.
 */
static void plan_binomial_broadcast_from_zero(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    for (int distance = 1 << (ftc_ceil_log2(p) - 1); distance >= 1; distance >>= 1) {
        ftc_schedule_step(s);
        if (r % (2 * distance) == 0 && r + distance < p)
            ftc_schedule_send(s, r + distance, 0, p);
        else if (r % (2 * distance) == distance)
            ftc_schedule_recv(s, r - distance, 0, p);
    }
}

bool ftc_allgather_plan_linear(ftc_schedule *s)
{
    /* The broadcast carries the whole buffer, the blocks this rank gathered
     * included: one message per tree edge beats several that skip them. */
    s->rewrites_held_blocks = true;
    if (s->size > 1) {
        plan_binomial_gather_to_zero(s);
        plan_binomial_broadcast_from_zero(s);
    }
    return ftc_schedule_ok(s);
}
