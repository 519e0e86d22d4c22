/*
 * Allreduce, recursive doubling over n participants, any n (pure layout).
 *
 * With m the largest power of two <= n, participants m..n-1 are spares for
 * this round: each first hands its value to participant i - m (fold in),
 * and gets the result back from it at the end (fold out). The m actives run
 * log2 m exchanges: at step k, i and i XOR 2^k swap values and both combine
 * them, always as op(lower index's value, higher index's value) so that both
 * compute bit for bit the same thing, whatever the op.
 *
 *   n = 6, m = 4        fold in     step 0       step 1       fold out
 *   participants        4->0 5->1   0<>1 2<>3    0<>2 1<>3    0->4 1->5
 *   0 holds             {0,4}       {0,1,4,5}    {all}
 *
 * Cost: (log2 m + 2 [n > m]) alpha + (log2 m + 2 [n > m]) n_bytes beta
 *       + log2 m n_bytes gamma (gamma: the op's cost per byte).
 * Why: fewest steps for small and medium vectors, and after each step the
 * value of a rank covers an aligned block of participants — the structure
 * that makes holdings nested or disjoint, which recovery relies on.
 */
#ifndef FTCOLL_ALLREDUCE_RECURSIVE_DOUBLING_H
#define FTCOLL_ALLREDUCE_RECURSIVE_DOUBLING_H

#include <stdbool.h>

#include "../schedule.h"
#include "../ft/holdings.h"

/* The actives among n participants: the largest power of two <= n. */
static inline int ftc_rd_actives(int n) { return n > 0 ? 1 << ftc_floor_log2(n) : 0; }

static inline int ftc_rd_steps(int n) { return n > 0 ? ftc_floor_log2(n) : 0; }

static inline int ftc_rd_partner(int index, int step) { return index ^ (1 << step); }

/* For a spare (index >= actives): the active it folds into; for an active:
 * its spare, or -1. */
static inline int ftc_rd_fold_partner(int index, int n)
{
    const int m = ftc_rd_actives(n);
    if (index >= m)
        return index - m;
    return index + m < n ? index + m : -1;
}

/* How far one participant got: enough to know what its value holds. */
typedef struct {
    bool folded;     /* active: its spare's value combined in; spare: value handed over */
    int steps_done;  /* exchanges completed and combined */
    bool complete;   /* holds the whole group's result */
} ftc_rd_progress;

/*
 * The holdings of participant `index`'s value after `progress`, in a group
 * of n whose participant i starts with holdings start[i] (NULL: each holds
 * only itself, ranks[i]). After s steps an active's value covers the
 * aligned block of 2^s actives around it, each with its spare folded in; a
 * spare keeps its own value until the result comes back.
 */
void ftc_rd_holdings(ftc_holdings *out, int index, int n, const ftc_rd_progress *progress,
                     const int *ranks, const ftc_holdings *start);

#endif
