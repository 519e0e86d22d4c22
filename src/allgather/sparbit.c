/*
 * Allgather, Sparbit (Loch & Koslovski, 2021): Bruck's step count with the
 * distances reversed — far first, then halving — and blocks kept in place.
 *
 * With L = 2^(ceil(log2 p) - 1), step i uses distance d = L / 2^i: rank r
 * sends every block it holds to r + d and receives as many from r - d, one
 * message per block. For p not a power of two some blocks would arrive
 * twice; the bits of p decide at which steps a rank holds one block back.
 *
 *   p = 6, L = 4   holdings of r=0           (digits: whose block)
 *   step 0 (d=4)   [0] + 2 from r-4=2        send [0]        to 4
 *   step 1 (d=2)   [0 2] + 4 from r-2=4      send [0] only   to 2  (2 held back:
 *                                                            rank 2 already has it)
 *   step 2 (d=1)   [0 2 4] + [5 3 1] from 5  send [0 4 2]    to 1
 *
 * Cost: ceil(log2 p) steps, (p - 1) n beta; a step of 2^i messages costs
 *       between alpha (all in flight at once) and 2^i alpha.
 * Why pick it: small and medium messages on non-power-of-two p without Bruck's
 * final rotation; nearby ranks exchange the most data, which suits locality.
 */
#include "algorithms.h"

/* The distances at which a rank holds back one block, as a bit mask of the
 * distances (Open MPI's "ignore_steps"): derived from the low bits of p. */
static unsigned held_back_distances(int p)
{
    const unsigned size = (unsigned)p;
    const int low_zeros = __builtin_ctz(size);
    return (~(size >> low_zeros) | 1u) << low_zeros;
}

bool ftc_allgather_plan_sparbit(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    if (p < 2)
        return ftc_schedule_ok(s);
    const int steps = ftc_ceil_log2(p);
    const unsigned held_back = held_back_distances(p);
    int blocks_held = 1;
    for (int i = 0, distance = 1 << (steps - 1); i < steps; i++, distance >>= 1) {
        const int hold_back = ((unsigned)distance & held_back) == (unsigned)distance;
        const int to = ftc_mod(r + distance, p), from = ftc_mod(r - distance, p);
        ftc_schedule_step(s);
        /* Each send goes out as soon as it is posted, its receive beside it:
         * posting all receives first delays the first send measurably. */
        for (int t = 0; t < blocks_held - hold_back; t++) {
            ftc_schedule_send(s, to, ftc_mod(r - 2 * t * distance, p), 1);
            ftc_schedule_recv(s, from, ftc_mod(r - (2 * t + 1) * distance, p), 1);
        }
        blocks_held = 2 * blocks_held - hold_back;
    }
    return ftc_schedule_ok(s);
}
