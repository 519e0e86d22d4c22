/*
 * Allgather, linear: gather every block to rank 0 along a binomial tree, then
 * rank 0 sends the whole buffer to every other rank at once.
 *
 * In a binomial tree rooted at 0 the subtree of rank r is the contiguous run
 * of ranks [r, r + lowbit(r)), so each tree edge of the gather carries one
 * message; the broadcast is flat: p - 1 sends posted together by rank 0.
 *
 *   p = 6, blocks a..f         gather                   broadcast of [abcdef]
 *   step 0   1->0 [b]  3->2 [d]  5->4 [f]       step 3   0->1 0->2 0->3 0->4 0->5
 *   step 1   2->0 [cd]
 *   step 2   4->0 [ef]  (0 holds [abcdef])
 *
 * Cost: (ceil(log2 p) + p - 1) alpha + (G + p (p - 1)) n beta, with n the
 *       bytes of one block and G = sum of subtree sizes (about (p/2) log2 p);
 *       the root's p - 1 sends overlap where the transport allows it.
 * Why pick it: it is the reference — simple enough to trust. On one node,
 * where every rank can copy from rank 0 at once, the flat broadcast is as
 * fast as Open MPI's linear allgather at every size (measured at p = 8); on
 * a network its p - 1 sends from one rank make it the slowest choice for
 * large p. The decision table never chooses it.
 */
#include "algorithms.h"

static int lowest_bit(int r) { return r & -r; }

/*
 * Steps 0..ceil(log2 p)-1: at step j, a rank r whose lowest set bit is 2^j
 * sends its subtree [r, r + 2^j) to r - 2^j, which receives it behind its
 * own subtree.
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

/* Last step: rank 0 sends all p slots to every other rank. */
static void plan_flat_broadcast_from_zero(ftc_schedule *s)
{
    ftc_schedule_step(s);
    if (s->rank != 0) {
        ftc_schedule_recv(s, 0, 0, s->size);
        return;
    }
    for (int peer = 1; peer < s->size; peer++)
        ftc_schedule_send(s, peer, 0, s->size);
}

bool ftc_allgather_plan_linear(ftc_schedule *s)
{
    /* The broadcast carries the whole buffer, the blocks this rank gathered
     * included: one message per rank beats several that skip them. */
    s->rewrites_held_blocks = true;
    if (s->size > 1) {
        plan_binomial_gather_to_zero(s);
        plan_flat_broadcast_from_zero(s);
    }
    return ftc_schedule_ok(s);
}
