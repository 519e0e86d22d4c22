/*
 * Allreduce for large vectors, reduce-scatter by recursive halving then
 * allgather by recursive doubling (Rabenseifner), over m participants, m a
 * power of two (pure layout; the spares of other counts fold in and out as
 * in recursive_doubling.h). The vector is cut into m blocks, block b going
 * to participant b.
 *
 *   m = 4, blocks 0..3     reduce-scatter             allgather
 *                          step 0 (d = 2)  step 1 (d = 1)   step 0 (d = 1)  step 1 (d = 2)
 *   participant 0 keeps    0 1 (sends 2 3) 0 (sends 1)      0 1 (gets 1)    0 1 2 3 (gets 2 3)
 *   participant 1 keeps    0 1 (sends 2 3) 1 (sends 0)      0 1 (gets 0)    0 1 2 3 (gets 2 3)
 *   participant 2 keeps    2 3 (sends 0 1) 2 (sends 3)      2 3 (gets 3)    0 1 2 3 (gets 0 1)
 *
 *   reduce-scatter step k: partner i XOR d, d = m / 2^(k+1); each keeps the
 *                          half of its range on its side of d and combines
 *                          the partner's copy of it into its own
 *   allgather step k:      partner i XOR 2^k; each sends its range and
 *                          receives the partner's, the two adjacent
 *
 * Cost: 2 log2 m alpha + 2 (m-1)/m n_bytes beta + (m-1)/m n_bytes gamma,
 * against recursive doubling's log2 m (alpha + n_bytes beta + n_bytes gamma):
 * the same latency twice over, for a fraction of the bytes and of the
 * reduction work. Each block of the result is computed once, by its owner,
 * and copied everywhere else: every participant ends with the same bits.
 */
#ifndef FTCOLL_ALLREDUCE_RABENSEIFNER_H
#define FTCOLL_ALLREDUCE_RABENSEIFNER_H

/* The first element of block b when `count` elements are cut into m blocks
 * (the first count mod m blocks one element longer); b = m gives count. */
static inline int ftc_rabenseifner_block_start(int count, int m, int b)
{
    const int quotient = count / m, remainder = count % m;
    return b * quotient + (b < remainder ? b : remainder);
}

/* One step of one participant: its partner, the blocks [send_first,
 * send_end) it sends, and the blocks [receive_first, receive_end) it gets
 * (and, reducing, combines into its own). */
typedef struct {
    int partner;
    int send_first, send_end;
    int receive_first, receive_end;
} ftc_rabenseifner_step;

/* Steps in each phase: log2 m. */
int ftc_rabenseifner_steps(int m);

ftc_rabenseifner_step ftc_rabenseifner_reduce_scatter_step(int index, int m, int step);
ftc_rabenseifner_step ftc_rabenseifner_allgather_step(int index, int m, int step);

#endif
