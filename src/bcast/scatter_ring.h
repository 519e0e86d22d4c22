/*
 * Broadcast by scatter and ring allgather (van de Geijn; MPICH's
 * scatter_ring_allgather), pure layout, any n. Used by the fault-tolerant
 * ftc_bcast for large messages (select.h). The message is cut into n
 * blocks of count/n elements (the first count mod n one longer); block b
 * belongs to participant b relative to the root.
 *
 *   n = 4, root 0: blocks A B C D
 *
 *   scatter (binomial, halving)        ring allgather (n - 1 steps)
 *   step 0: 0 -> 2  C D                step 2: 0->1 A  1->2 B  2->3 C  3->0 D
 *   step 1: 0 -> 1  B,  2 -> 3  D      step 3: 0->1 D  1->2 A  2->3 B  3->0 C
 *   now: 0 A(BCD)  1 B  2 C(D)  3 D    step 4: 0->1 C  1->2 D  2->3 A  3->0 B
 *
 * Scatter: at step k, with m = 2^(L-1-k) (L = ceil(log2 n)), a participant
 * r that is a multiple of 2m sends blocks [r + m, r + 2m) to r + m. Ring:
 * at step s, participant r sends block r - s to r + 1 and receives block
 * r - s - 1 from r - 1 (mod n), so after n - 1 steps everyone holds every
 * block, and everyone has heard, through its chain of receives, from
 * every participant: nobody completes before all entered (the property
 * the fault-tolerance layer needs, as dissemination.h explains).
 *
 * Cost: (ceil(log2 n) + n - 1) alpha + 2 ((n - 1) / n) n_bytes beta: the
 * whole message crosses each rank's link about twice, against ceil(log2 n)
 * times down a binomial tree; more steps, so for large messages only.
 */
#ifndef FTCOLL_BCAST_SCATTER_RING_H
#define FTCOLL_BCAST_SCATTER_RING_H

/* Blocks [first, last) relative to the root, to or from a participant
 * (an index, not relative); peer -1: nothing this step. */
typedef struct {
    int peer;
    int first, last;
} ftc_scatter_ring_transfer;

typedef struct {
    ftc_scatter_ring_transfer send, receive;
} ftc_scatter_ring_step;

/* Steps among n participants: ceil(log2 n) + n - 1 (0 for n <= 1). */
int ftc_scatter_ring_steps(int n);

/* Of those, the scatter's: steps 0 .. this - 1 (ceil(log2 n); 0 for n <= 1);
 * the ring's n - 1 follow. */
int ftc_scatter_ring_scatter_steps(int n);

/* Participant `index`'s step `step` of a broadcast from `root` among n. */
ftc_scatter_ring_step ftc_scatter_ring_step_of(int index, int root, int n, int step);

/* The first element of block `block` (0..n; block n: count) of count. */
long ftc_scatter_ring_block_start(int block, int n, long count);

#endif
