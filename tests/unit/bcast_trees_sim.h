/*
 * A message simulator for the unit tests of the broadcast trees' distributed
 * algorithms (src/bcast/trees/: GHS construction, adaptation): n nodes
 * joined by FIFO channels, one per ordered pair. Sends are queued;
 * bcast_trees_sim_next delivers the oldest message of a channel picked at
 * random, so every run explores another interleaving, reproducibly from its
 * seed. Counts the messages sent by kind.
 */
#ifndef FTCOLL_TEST_BCAST_TREES_SIM_H
#define FTCOLL_TEST_BCAST_TREES_SIM_H

#include "bcast/trees/msg.h"

typedef struct bcast_trees_sim bcast_trees_sim;

bcast_trees_sim *bcast_trees_sim_new(int n, unsigned seed);

/* Usable as an ftc_send_fn (sim is the bcast_trees_sim): deep-copies msg and
 * its words, counts it by kind; aborts unless 0 <= to < n and from != to. */
void bcast_trees_sim_send(void *sim, const ftc_msg *msg);

/* Pops the oldest message of a random non-empty channel into *out (its
 * words stay valid until the next call or bcast_trees_sim_free). Returns 0,
 * out untouched, when nothing is in flight. */
int bcast_trees_sim_next(bcast_trees_sim *sim, ftc_msg *out);

long bcast_trees_sim_count(const bcast_trees_sim *sim, int kind);   /* sent so far, that kind */
long bcast_trees_sim_total(const bcast_trees_sim *sim);
void bcast_trees_sim_reset_counts(bcast_trees_sim *sim);
int bcast_trees_sim_in_flight(const bcast_trees_sim *sim);
void bcast_trees_sim_free(bcast_trees_sim *sim);

#endif
