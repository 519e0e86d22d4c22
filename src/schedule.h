/*
 * Schedules: who sends which blocks to whom, step by step — as data.
 *
 * A collective over p ranks moves "blocks" (one block = the data one rank
 * contributes). An algorithm does not touch MPI: it only *plans* — it fills a
 * schedule for one rank with steps, each a set of transfers of a run of
 * consecutive buffer slots to or from a peer. One engine (schedule_exec.c)
 * runs any schedule over MPI; unit tests run every schedule of every rank
 * against each other in a simulator, without MPI.
 *
 * Rules a schedule obeys (the simulator proves them):
 *  - within a step, the sends from A to B and the receives on B from A are
 *    equal in number, order and size: the engine posts all transfers of a
 *    step, then waits for all of them, so steps never deadlock;
 *  - every slot is written once, except when the schedule says
 *    rewrites_held_blocks: then a slot may receive again the very block it
 *    holds (linear's broadcast of the whole buffer: one message per rank
 *    beats several that skip the blocks it already has);
 *  - slot s of rank r's buffer holds block (s + rotation) mod p, where
 *    rotation is 0 for most algorithms and r for Bruck, whose engine rotates
 *    the buffer into block order once all steps are done.
 *
 * This file is pure C: no MPI, so it can be tested anywhere.
 */
#ifndef FTCOLL_SCHEDULE_H
#define FTCOLL_SCHEDULE_H

#include <stdbool.h>

typedef enum { FTC_XFER_SEND, FTC_XFER_RECV } ftc_xfer_kind;

/* One message: `count` consecutive slots starting at `first`, to/from `peer`. */
typedef struct {
    ftc_xfer_kind kind;
    int peer;
    int first;
    int count;
} ftc_xfer;

typedef struct {
    int rank;          /* the rank this schedule is for */
    int size;          /* p */
    int rotation;      /* slot s holds block (s + rotation) mod p */
    int own_slot;      /* where this rank's own block starts */
    int nsteps;
    int *step_begin;   /* xfers of step k: [step_begin[k], step_begin[k+1]) */
    int nxfers;
    ftc_xfer *xfers;
    int step_cap;
    int xfer_cap;
    int max_step_xfers; /* most transfers in one step: the engine's request count */
    bool rewrites_held_blocks; /* a receive may bring a held block again (same bytes) */
    bool out_of_memory; /* set by a builder call that could not grow the arrays */
} ftc_schedule;

/* Starts an empty schedule for `rank` of `size`; identity layout. */
void ftc_schedule_init(ftc_schedule *s, int rank, int size);
void ftc_schedule_destroy(ftc_schedule *s);

/* Builders: open a new step, then add its transfers. Failures to allocate
 * are remembered in s->out_of_memory and reported by ftc_schedule_ok(). */
void ftc_schedule_step(ftc_schedule *s);
void ftc_schedule_send(ftc_schedule *s, int peer, int first, int count);
void ftc_schedule_recv(ftc_schedule *s, int peer, int first, int count);

/* Both directions with one peer: a send of [send_first, +count) and a
 * receive of [recv_first, +count), the pairwise exchange most steps are. */
void ftc_schedule_exchange(ftc_schedule *s, int peer, int send_first,
                           int recv_first, int count);

static inline bool ftc_schedule_ok(const ftc_schedule *s) { return !s->out_of_memory; }

static inline int ftc_schedule_step_size(const ftc_schedule *s, int step)
{
    return s->step_begin[step + 1] - s->step_begin[step];
}

static inline const ftc_xfer *ftc_schedule_step_xfers(const ftc_schedule *s, int step)
{
    return s->xfers + s->step_begin[step];
}

/*
 * True when the own block's slot is only ever sent, and only on its own (a
 * transfer of that one slot): the own block may then be sent straight from
 * the caller's send buffer and put into its slot after the run (Open MPI's
 * order), instead of copied in before the first send. Two-proc and ring
 * plans are such; those that forward the own block with others are not.
 */
bool ftc_schedule_sends_own_block_alone(const ftc_schedule *s);

/* The block that slot `slot` holds under this schedule's layout. */
static inline int ftc_schedule_block_of_slot(const ftc_schedule *s, int slot)
{
    return (slot + s->rotation) % s->size;
}

/* Small arithmetic shared by the algorithms. */
static inline int ftc_mod(int a, int p) { int m = a % p; return m < 0 ? m + p : m; }
static inline bool ftc_is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }
int ftc_floor_log2(int p);   /* largest k with 2^k <= p, p >= 1 */
int ftc_ceil_log2(int p);    /* smallest k with 2^k >= p, p >= 1 */

#endif /* FTCOLL_SCHEDULE_H */
