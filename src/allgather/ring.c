/*
 * Allgather, ring: p - 1 steps; every rank passes on what it got last.
 *
 * At step i rank r sends block r - i to r + 1 and receives block r - i - 1
 * from r - 1 (mod p): each block travels once around the ring.
 *
 *   p = 4     0 -> 1 -> 2 -> 3 -> 0
 *   step 0    r sends [r],   gets [r-1]
 *   step 1    r sends [r-1], gets [r-2]
 *   step 2    r sends [r-2], gets [r-3]      now every rank holds [0 1 2 3]
 *
 * Cost: (p - 1) alpha + (p - 1) n beta. Each rank talks to two neighbours.
 * Why pick it: bandwidth-optimal and contention-free on any p; best for large
 * messages, where the (p - 1) alpha latency does not matter.
 */
#include "algorithms.h"

bool ftc_allgather_plan_ring(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    const int next = ftc_mod(r + 1, p), prev = ftc_mod(r - 1, p);
    for (int i = 0; i < p - 1; i++) {
        ftc_schedule_step(s);
        ftc_schedule_recv(s, prev, ftc_mod(r - i - 1, p), 1);
        ftc_schedule_send(s, next, ftc_mod(r - i, p), 1);
    }
    return ftc_schedule_ok(s);
}
