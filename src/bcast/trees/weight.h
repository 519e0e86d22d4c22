/*
 * Edge weights made unique: latency first, ties broken by the edge's ranks.
 * GHS merges fragments along each one's lightest outgoing edge; with two
 * edges of equal weight two fragments could pick different ones and close
 * a cycle. Unique weights give every process count exactly one minimum
 * spanning tree, and every rank builds the same one. Pure C, no MPI.
 *
 * A weight also names its edge (lo < hi): a Report carrying the best weight
 * of a fragment carries the edge to add with it.
 */
#ifndef FTCOLL_BCAST_TREES_WEIGHT_H
#define FTCOLL_BCAST_TREES_WEIGHT_H

#include <limits.h>
#include <math.h>

typedef struct {
    double latency;   /* seconds, one way; INFINITY for "no edge" */
    int lo, hi;       /* the edge's ranks, lo < hi; INT_MAX for "no edge" */
} ftc_weight;

static inline ftc_weight ftc_weight_of(double latency, int a, int b)
{
    ftc_weight w = {latency, a < b ? a : b, a < b ? b : a};
    return w;
}

static inline ftc_weight ftc_weight_infinite(void)
{
    ftc_weight w = {INFINITY, INT_MAX, INT_MAX};
    return w;
}

static inline int ftc_weight_is_infinite(ftc_weight w)
{
    return w.lo == INT_MAX;
}

/* <0, 0, >0 like strcmp: by latency, then lo, then hi. */
static inline int ftc_weight_cmp(ftc_weight a, ftc_weight b)
{
    if (a.latency != b.latency)
        return a.latency < b.latency ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return 0;
}

/* The other end of the edge `w` names, seen from `self`. */
static inline int ftc_weight_peer(ftc_weight w, int self)
{
    return w.lo == self ? w.hi : w.lo;
}

#endif
