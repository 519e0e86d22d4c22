/*
 * The latency monitor: the trees are only as good as the latencies they
 * are built on, so each probe keeps the fastest of several round trips and
 * leaves out the time spent at the far end.
 *
 *   measure:  for every probed pair (i, j), i < j: i sends `pings` Pings to
 *             j at once, j answers each with a Pong, i keeps the fastest
 *             round trip / 2 (the time a Ping waited at j before its Pong
 *             left is j's delay, not the channel's, and is taken out); with
 *             probe=cliques only pairs inside a site and between the sites'
 *             first ranks are probed (cliques: fewer probes, as a site's
 *             ranks share their wide-area channels)
 *             a measurement waits only for the channels no slower than the
 *             MST's slowest; slower ones answer when they can and are taken
 *             then (maybe in a later measurement)
 *   publish:  every rank's measurements to every rank (MPI_Allgather), so
 *             that every rank builds the same tree: both ends of a channel
 *             weigh it with i's measurement; unprobed pairs take their
 *             sites' first ranks' latency
 *   changes:  channels whose latency moved by more than the threshold (and
 *             the floor) since the tree was built or last adapted
 */
#ifndef FTCOLL_BCAST_TREES_MONITOR_H
#define FTCOLL_BCAST_TREES_MONITOR_H

#include "adapt.h"
#include "net.h"
#include "settings.h"

/* Fills `matrix` (n x n, seconds, symmetric, 0 on the diagonal) on every
 * rank. `site_of` (n) is needed for probe=cliques. `current` (n x n, or
 * NULL the first time): the latencies known so far, which say which
 * channels to wait for. `round` (>= 1) numbers the measurements alike on
 * every rank.
 * Collective. */
int ftc_monitor_measure(ftc_net *net, const ftc_tree_settings *settings, const int *site_of,
                        const double *current, int round, double *matrix);

#endif
