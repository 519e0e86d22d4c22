/*
 * Bruck's allgather: ceil(log2 p) steps for any p, working in a rotated buffer.
 * Planned here, below the collectives, for its two users: ftc_allgather
 * (allgather/bruck.c) and the survivors' meetings, which exchange their
 * records with it (ft/meeting.c).
 *
 * Rank r keeps its own block in slot 0 and, after step k, holds the blocks of
 * r, r+1, ..., r+2^(k+1)-1 (mod p) in slots 0.. . At step k it sends its first
 * 2^k slots to r - 2^k and receives 2^k slots (or what is left) from r + 2^k
 * behind them. A local rotation puts the blocks in rank order at the end.
 *
 *   p = 5        slot:  0 1 2 3 4         (digits: whose block)
 *   start        r=0:  [0 . . . .]   r=3: [3 . . . .]
 *   step 0 (d=1) r=0:  [0 1 . . .]   r=3: [3 4 . . .]   recv 1 slot from r+1
 *   step 1 (d=2) r=0:  [0 1 2 3 .]   r=3: [3 4 0 1 .]   recv 2 slots from r+2
 *   step 2 (d=4) r=0:  [0 1 2 3 4]   r=3: [3 4 0 1 2]   recv p-4 = 1 slot from r+4
 *   rotate by r        r=0:  [0 1 2 3 4]   r=3: [0 1 2 3 4]
 *
 * Cost: ceil(log2 p) alpha + (p - 1) n beta, plus a local copy of up to
 *       (p - 1) blocks for the rotation.
 * Why pick it: logarithmic latency on any process count, where recursive
 * doubling needs a power of two; best for small blocks on many processes.
 */
#include "bruck.h"

bool ftc_plan_bruck(ftc_schedule *s)
{
    const int p = s->size, r = s->rank;
    s->rotation = r;   /* slot j holds block (r + j) mod p */
    s->own_slot = 0;
    for (int distance = 1; distance < p; distance <<= 1) {
        const int count = distance < p - distance ? distance : p - distance;
        ftc_schedule_step(s);
        ftc_schedule_recv(s, ftc_mod(r + distance, p), distance, count);
        ftc_schedule_send(s, ftc_mod(r - distance, p), 0, count);
    }
    return ftc_schedule_ok(s);
}
