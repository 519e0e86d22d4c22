/*
 * Settings of the tree broadcasts, parsed from text (FTCOLL_BCAST,
 * FTCOLL_TREE, ftcrun's options). Pure C, no MPI.
 *
 *   FTCOLL_BCAST   auto | binomial | two-level | mst | ecef | tree
 *                  auto: ftcoll's default broadcast (fault-tolerant with ULFM),
 *                  or `tree` when a topology is set; tree: of the MST and the
 *                  earliest-completion tree, the one predicted to finish first
 *   FTCOLL_TREE    check=N,threshold=P,probe=all|cliques,pings=K,floor=US,smooth=A
 *                  check: re-measure and adapt the MST before every Nth
 *                  broadcast (0: never, the static MST; 1: every broadcast);
 *                  threshold: a channel whose latency moves by more than P
 *                  percent (and more than floor microseconds) has changed;
 *                  probe: measure every pair, or only pairs inside a site and
 *                  between the sites' first ranks (cliques); pings:
 *                  probes per pair and measurement, the fastest kept;
 *                  smooth: each measurement weighs A against the running
 *                  estimate's 1 - A (exponential smoothing; 1: none)
 */
#ifndef FTCOLL_BCAST_TREES_SETTINGS_H
#define FTCOLL_BCAST_TREES_SETTINGS_H

#include <stddef.h>

typedef enum {
    FTC_BCAST_ALG_AUTO = 0,
    FTC_BCAST_ALG_BINOMIAL,
    FTC_BCAST_ALG_TWO_LEVEL,
    FTC_BCAST_ALG_MST,
    FTC_BCAST_ALG_ECEF,
    FTC_BCAST_ALG_TREE,
    FTC_BCAST_ALG_COUNT
} ftc_bcast_alg;

typedef struct {
    int check_every;       /* 0: static */
    double threshold;      /* fraction: 0.1 for 10% */
    int probe_cliques;     /* 0: every pair */
    int pings;
    double floor;          /* seconds */
    double smooth;         /* weight of a new measurement, (0, 1] */
} ftc_tree_settings;

void ftc_tree_settings_default(ftc_tree_settings *settings);

/* 1 on success; 0 with `why` set. NULL or "" leaves the defaults. */
int ftc_tree_settings_parse(const char *text, ftc_tree_settings *settings, char *why,
                            size_t why_size);
int ftc_bcast_alg_parse(const char *text, ftc_bcast_alg *alg, char *why, size_t why_size);
const char *ftc_bcast_alg_name(ftc_bcast_alg alg);

#endif
