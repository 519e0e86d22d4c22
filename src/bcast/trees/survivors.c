/*
 * The network as the survivors of a death see it: see shape.h.
 *
 *   live = {0, 1, 3}  of n = 4        latency (4 x 4)  ->  sub (3 x 3)
 *   place:  0  1  2                   sub[i][j] = latency[live[i]][live[j]]
 *
 * Cost: k^2 copies for k survivors.
 */
#include "shape.h"

void ftc_tree_restrict(int n, const double *latency, const int *site_of, const int *live, int k,
                       double *sub_latency, int *sub_site_of)
{
    for (int i = 0; i < k; i++) {
        const double *row = latency + (long)live[i] * n;
        for (int j = 0; j < k; j++)
            sub_latency[(long)i * k + j] = row[live[j]];
        sub_site_of[i] = site_of[live[i]];
    }
}
