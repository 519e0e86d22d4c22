/*
 * Allgather, linear: gather every block to rank 0, then broadcast the whole
 * buffer from rank 0 along a binomial tree.
 *
 *   p = 5, blocks a..e        gather (one step)         broadcast of [abcde]
 *   0:[a....]  1:[.b...]      1,2,3,4 --block--> 0      step 1:  0 -> 1
 *   2:[..c..]  3:[...d.]      0:[abcde]                 step 2:  0 -> 2, 1 -> 3
 *   4:[....e]                                           step 3:  0 -> 4
 *
 * Cost: (p - 1 + ceil(log2 p)) alpha + (p - 1 + p ceil(log2 p)) n beta
 *       (n: bytes of one block). Rank 0 is a hot spot in both phases.
 * Why pick it: it is the reference — simple enough to trust, and for tiny
 * messages on few processes its handful of steps costs little. It is never
 * chosen by the decision table.
 */
#include "algorithms.h"

/* Step 0: everyone sends its block to rank 0, which receives them all. */
static void plan_gather_to_zero(ftc_schedule *s)
{
    ftc_schedule_step(s);
    if (s->rank != 0) {
        ftc_schedule_send(s, 0, s->rank, 1);
        return;
    }
    for (int peer = 1; peer < s->size; peer++)
        ftc_schedule_recv(s, peer, peer, 1);
}

/*
 * Steps 1..ceil(log2 p): a rank that holds the buffer after step k
 * (rank < 2^k) sends it to rank + 2^k; rank r receives it in the step
 * k = floor(log2 r) from r - 2^k.
 */
static void plan_binomial_broadcast_from_zero(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    for (int k = 0, reach = 1; reach < p; k++, reach <<= 1) {
        ftc_schedule_step(s);
        if (r < reach && r + reach < p)
            ftc_schedule_send(s, r + reach, 0, p);
        else if (r >= reach && r < 2 * reach)
            ftc_schedule_recv(s, r - reach, 0, p);
    }
}

bool ftc_allgather_plan_linear(ftc_schedule *s)
{
    /* The broadcast carries the whole buffer, this rank's block included:
     * one message per tree edge beats two that skip it. */
    s->rewrites_own_block = true;
    if (s->size > 1) {
        plan_gather_to_zero(s);
        plan_binomial_broadcast_from_zero(s);
    }
    return ftc_schedule_ok(s);
}
