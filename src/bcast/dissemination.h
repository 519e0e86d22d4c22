/*
 * Broadcast by dissemination: the binomial tree's data flow laid over the
 * dissemination barrier's exchanges (pure layout, any n). Used by the
 * fault-tolerant ftc_bcast for messages below the scatter threshold
 * (select.h).
 *
 * Participant r (relative to the root: r = (index - root) mod n) sends, at
 * step k, to r + 2^k and receives from r - 2^k (mod n). The message
 * carries the data when the sender holds it and the receiver does not yet,
 * else it is an empty token:
 *
 *   n = 6, root 0     step 0 (d = 1)      step 1 (d = 2)      step 2 (d = 4)
 *   data              0->1                0->2 1->3           0->4 1->5
 *   tokens            1->2 2->3 3->4      2->4 3->5 4->0      2->0 3->1 4->2
 *                     4->5 5->0           5->1                5->3
 *   holding the data  {0,1}               {0,1,2,3}           everyone
 *
 * Why the tokens: a participant completes only after hearing, through the
 * chain of receives, from every participant (the dissemination barrier's
 * property), so nobody completes a broadcast while a live rank has not
 * entered it. The fault-tolerance layer relies on that (calls present at a
 * meeting stay within a window; ft/reconcile.h): a plain binomial tree
 * lets its root run ahead by any number of calls. The caller may leave
 * the tokens out (ft_bcast.c does on most small calls): what remains is
 * the binomial tree.
 *
 * Cost: ceil(log2 n) (alpha + n_bytes beta) on every path, as the binomial
 * tree (the tokens travel beside the data, in the same steps); n - 1
 * messages carry data, the other n ceil(log2 n) - (n - 1) carry nothing.
 */
#ifndef FTCOLL_BCAST_DISSEMINATION_H
#define FTCOLL_BCAST_DISSEMINATION_H

#include <stdbool.h>

/* One participant's step: two participants (indices, not relative). */
typedef struct {
    int send_to;
    bool sends_data;       /* else an empty token */
    int receive_from;
    bool receives_data;    /* else an empty token */
} ftc_dissemination_step;

/* Steps among n participants: ceil(log2 n) (0 for n <= 1). */
int ftc_dissemination_steps(int n);

/* Participant `index`'s step `step` (0 <= step < ftc_dissemination_steps(n)) of a
 * broadcast from `root` among n. */
ftc_dissemination_step ftc_dissemination_step_of(int index, int root, int n, int step);

/* The step at which participant `index` receives the data (-1: the root). */
int ftc_dissemination_data_step(int index, int root, int n);

#endif
