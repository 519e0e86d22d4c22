/*
 * Reduce-scatter by recursive halving over the n live ranks (pure layout,
 * no MPI; the flow is recursive_halving.c). Blocks belong to ranks of the
 * communicator; the live ranks own theirs, and a dead rank's block rides
 * along with the live rank's before it (participant 0 takes those before
 * the first live rank), so that every participant's share of the vector
 * is one run of elements.
 *
 * m, the largest power of two <= n, participants run the halving; the
 * first 2 (n - m) live indices pair up, the even one (a spare) folding its
 * whole vector into the odd one (its active) and getting its block back
 * at the end. Participant b is live indices {2b, 2b + 1} for b < n - m,
 * else live index b + (n - m): its share is one run of elements.
 *
 *   n = 3, m = 2:  live 0 --[a0]--> live 1            (fold in)
 *                  live 1 <--half--> live 2           (halving, one step)
 *                  live 1 --[block of live 0]--> live 0   (fold out)
 *
 *   step k, d = m / 2^(k+1): participant b and b XOR d each keep the half
 *   of their range on their side of d, sending the other half and
 *   combining the partner's copy of the kept half (rabenseifner.h's
 *   reduce-scatter steps over the participants' shares)
 *
 * Cost: (log2 m + 2 [n > m]) alpha + (m-1)/m N beta + (m-1)/m N gamma
 * (N the whole vector's bytes), against the allreduce's log2 m (alpha +
 * N beta + N gamma) by recursive doubling: the same latency, a fraction
 * of the bytes and of the op's work. Only for a commutative op: a block's
 * operands are combined in no rank order.
 */
#ifndef FTCOLL_REDUCE_SCATTER_RECURSIVE_HALVING_H
#define FTCOLL_REDUCE_SCATTER_RECURSIVE_HALVING_H

#include <stdbool.h>

typedef struct {
    int n;        /* live ranks */
    int m;        /* participants: the largest power of two <= n */
    int spares;   /* n - m: live indices 0, 2, .., 2 (spares - 1) fold in */
} ftc_halving_layout;

ftc_halving_layout ftc_halving_layout_of(int n);

/* Whether live index `index` hands its vector to index + 1 and waits. */
bool ftc_halving_is_spare(const ftc_halving_layout *l, int index);

/* The participant live index `index` belongs to (a spare: its active's). */
int ftc_halving_participant(const ftc_halving_layout *l, int index);

/* The first live index of participant `b`; n for b = m. */
int ftc_halving_first_index(const ftc_halving_layout *l, int b);

/* The live index that runs participant `b`'s halving. */
int ftc_halving_active_index(const ftc_halving_layout *l, int b);

/* Halving steps: log2 m. */
int ftc_halving_steps(const ftc_halving_layout *l);

/* Where participant b's share of the vector starts (b = m: its end),
 * given the live ranks (ascending) and each rank's block's first element
 * (starts[r], `total` the vector's elements): at its first live rank's
 * block. The blocks of dead ranks go with the share before them
 * (participant 0's begins at 0): the shares tile the vector. */
int ftc_halving_share_start(const ftc_halving_layout *l, int b, const int *live_ranks,
                            const int *starts, int total);

#endif
