#include "recursive_doubling.h"

static void add_start(ftc_holdings *out, int i, const int *ranks, const ftc_holdings *start)
{
    if (start)
        ftc_holdings_unite(out, &start[i]);
    else
        ftc_holdings_add(out, ranks[i]);
}

/* Active i's value once its spare (if any) is folded in. */
static void add_active_with_spare(ftc_holdings *out, int i, int n, const int *ranks,
                                  const ftc_holdings *start)
{
    add_start(out, i, ranks, start);
    const int spare = ftc_rd_fold_partner(i, n);
    if (spare >= 0)
        add_start(out, spare, ranks, start);
}

void ftc_rd_holdings(ftc_holdings *out, int index, int n, const ftc_rd_progress *progress,
                     const int *ranks, const ftc_holdings *start)
{
    ftc_holdings_clear(out);
    if (progress->complete) {
        for (int i = 0; i < n; i++)
            add_start(out, i, ranks, start);
        return;
    }
    const int actives = ftc_rd_actives(n);
    if (index >= actives || (progress->steps_done == 0 && !progress->folded)) {
        add_start(out, index, ranks, start);
        return;
    }
    const int block = 1 << progress->steps_done, first = index & ~(block - 1);
    for (int i = first; i < first + block && i < actives; i++)
        add_active_with_spare(out, i, n, ranks, start);
}
