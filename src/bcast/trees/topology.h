/*
 * An emulated network: which site each rank is in, the one-way latency
 * between sites, and changes scheduled by broadcast number. Read from a
 * text file (format in docs/mst-bcast.md); a malformed file is refused with
 * its line number and the reason. Pure C, no MPI.
 *
 *   # 6 sites of 4 ranks
 *   scale 0.01                  every latency below is multiplied by this
 *   site S0 0-3                 a site and its ranks
 *   site S1 4-7
 *   latency S0 S1 485.4         milliseconds, one way, both directions
 *   link 13 14 0.0              one pair of ranks, overriding its sites'
 *   change 8 4 6 6000           from the 8th broadcast on, channel (4,6)
 *                               is 6000 ms (before scaling)
 */
#ifndef FTCOLL_BCAST_TREES_TOPOLOGY_H
#define FTCOLL_BCAST_TREES_TOPOLOGY_H

#include <stddef.h>

enum { FTC_TOPOLOGY_NAME_MAX = 32 };

typedef struct {
    int from_bcast;   /* 1-based: the change holds from this broadcast on */
    int a, b;         /* the channel's ranks */
    double ms;        /* its latency from then on, before scaling */
} ftc_topology_change;

typedef struct {
    int nranks, nsites;
    double scale;                        /* 1.0 unless the file says */
    char (*site_name)[FTC_TOPOLOGY_NAME_MAX];
    int *site_of;                        /* nranks: a site index */
    double *site_ms;                     /* nsites x nsites, symmetric */
    int nlinks;                          /* `link` overrides, in file order */
    ftc_topology_change *links;          /* from_bcast = 1 */
    int nchanges;                        /* `change` lines, in file order */
    ftc_topology_change *changes;
} ftc_topology;

/* 0 on success; -1 with `error` holding "line N: reason" (or "reason" for
 * whole-file problems such as a rank in no site). `out` needs no freeing
 * after a failure. */
int ftc_topology_parse(const char *text, ftc_topology *out, char *error, size_t error_size);
int ftc_topology_load(const char *path, ftc_topology *out, char *error, size_t error_size);
void ftc_topology_free(ftc_topology *topology);

/* One-way latency of channel (a, b) during broadcast number `bcast`
 * (1-based; 0 means before the first), in seconds, scale applied: the
 * site-to-site latency, unless a link or a change (the latest whose
 * from_bcast <= bcast, file order breaking ties) says otherwise. 0 if a == b. */
double ftc_topology_latency(const ftc_topology *topology, int a, int b, int bcast);

#endif
