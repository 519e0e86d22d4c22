#include "rabenseifner.h"

#include "../schedule.h"

int ftc_rabenseifner_steps(int m) { return m > 1 ? ftc_floor_log2(m) : 0; }

/* Before reduce-scatter step k a participant holds the aligned range of
 * m / 2^k blocks around its index; it keeps the half on its side of d. */
ftc_rabenseifner_step ftc_rabenseifner_reduce_scatter_step(int index, int m, int step)
{
    const int d = m >> (step + 1), first = index & ~(2 * d - 1);
    const int kept = first + (index & d), given = first + ((index & d) ^ d);
    return (ftc_rabenseifner_step){ .partner = index ^ d,
                                    .send_first = given, .send_end = given + d,
                                    .receive_first = kept, .receive_end = kept + d };
}

/* Before allgather step k a participant holds the aligned range of 2^k
 * blocks around its index, its partner the adjacent one. */
ftc_rabenseifner_step ftc_rabenseifner_allgather_step(int index, int m, int step)
{
    (void)m;
    const int d = 1 << step, first = index & ~(d - 1), other = first ^ d;
    return (ftc_rabenseifner_step){ .partner = index ^ d,
                                    .send_first = first, .send_end = first + d,
                                    .receive_first = other, .receive_end = other + d };
}
