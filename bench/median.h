/* The median of a few samples, shared by the benchmark programs. */
#ifndef FTCOLL_BENCH_MEDIAN_H
#define FTCOLL_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int bench_compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `samples` (n >= 1) in place and returns their median. */
static inline double bench_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof(*samples), bench_compare_doubles);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
}

#endif
