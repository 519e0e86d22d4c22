/*
 * A message simulator for the tree algorithms' unit tests (GHS construction,
 * adaptation): n nodes joined by FIFO channels, one per ordered pair. Sends
 * are queued; tree_sim_next delivers the oldest message of a channel picked
 * at random, so every run explores another interleaving, reproducibly from
 * its seed. Counts the messages sent by kind.
 */
#ifndef FTCOLL_TEST_TREE_SIM_H
#define FTCOLL_TEST_TREE_SIM_H

#include "bcast/trees/msg.h"

typedef struct tree_sim tree_sim;

tree_sim *tree_sim_new(int n, unsigned seed);

/* Usable as an ftc_send_fn (sim is the tree_sim): deep-copies msg and its
 * words, counts it by kind; aborts unless 0 <= to < n and from != to. */
void tree_sim_send(void *sim, const ftc_msg *msg);

/* Pops the oldest message of a random non-empty channel into *out (its
 * words stay valid until the next call or tree_sim_free). Returns 0, out
 * untouched, when nothing is in flight. */
int tree_sim_next(tree_sim *sim, ftc_msg *out);

long tree_sim_count(const tree_sim *sim, int kind);   /* sent so far of that kind */
long tree_sim_total(const tree_sim *sim);
void tree_sim_reset_counts(tree_sim *sim);
int tree_sim_in_flight(const tree_sim *sim);
void tree_sim_free(tree_sim *sim);

#endif
