/* The layout of recursive_halving.h: which live index plays which part. */
#include "recursive_halving.h"

#include "../allreduce/rabenseifner.h"
#include "../schedule.h"

ftc_halving_layout ftc_halving_layout_of(int n)
{
    const int m = n > 0 ? 1 << ftc_floor_log2(n) : 0;
    return (ftc_halving_layout){ .n = n, .m = m, .spares = n - m };
}

bool ftc_halving_is_spare(const ftc_halving_layout *l, int index)
{
    return index < 2 * l->spares && index % 2 == 0;
}

int ftc_halving_participant(const ftc_halving_layout *l, int index)
{
    return index < 2 * l->spares ? index / 2 : index - l->spares;
}

int ftc_halving_first_index(const ftc_halving_layout *l, int b)
{
    return b < l->spares ? 2 * b : b + l->spares;
}

int ftc_halving_active_index(const ftc_halving_layout *l, int b)
{
    return b < l->spares ? 2 * b + 1 : b + l->spares;
}

int ftc_halving_steps(const ftc_halving_layout *l) { return ftc_rabenseifner_steps(l->m); }

int ftc_halving_share_start(const ftc_halving_layout *l, int b, const int *live_ranks,
                            const int *starts, int total)
{
    if (b == 0)
        return 0;
    if (b >= l->m)
        return total;
    return starts[live_ranks[ftc_halving_first_index(l, b)]];
}
