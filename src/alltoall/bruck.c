/*
 * Modified Bruck alltoall, as Open MPI's (its algorithm 3, modified_bruck):
 * ceil(log2 n) steps instead of n - 1 messages. Each rank keeps its blocks
 * in slots rotated to start at itself; at the step of distance d it sends
 * every slot whose bit d is set to the rank d after it (its own blocks and
 * those it relays for others) and takes the same slots from the rank d
 * before it. The arithmetic is pure, in plans/modified_bruck.c.
 *
 *   rank i, slot j: i's block for i+j (mod n)   (own block: in place already)
 *   step d = 1, 2, 4 .. < n:
 *       pack the slots with bit d, and the relay's word  -> one message
 *       send it to i+d, receive i-d's, wait for the send, then the receive
 *       a slot whose highest bit is d has arrived: (i-j)'s block, placed in
 *       recvbuf and counted; the others go back into their slots
 *
 *     n = 4, rank 0 (xy: x's block for y)
 *       slot:     0   1   2   3
 *       start    00  01  02  03
 *       d = 1    00  30  02  32    slots 1, 3 from rank 3 (30 placed)
 *       d = 2    00  30  20  10    slots 2, 3 from rank 2 (20, 10 placed)
 *
 * Blocks of any type travel packed (MPI_Pack, or memcpy when dense), in
 * room reserved before the guard (ftc_alltoall_reserve): the slots and one
 * message each way. In place, the blocks sent come from the packed copy of
 * recvbuf made before the call, so placing blocks early overwrites nothing
 * still to send.
 *
 * Fault tolerance. Every wait goes through ftc_alltoall_wait_message (the
 * sentinel included); a death abandons the step's receive (cancelled) and
 * send (released) and ends the exchange, and the recovery round resends
 * every block a survivor lacks from its sender. Hence:
 *  - a block counts (f->held) only once placed after its last move; one
 *    still travelling is not counted, and its sender sends it again;
 *  - the relay's word, the byte after each message: set once the rank took
 *    a message of the wrong size (the user's error), a word set, or could
 *    not pack its own blocks. Its relayed blocks are then suspect, and so
 *    are those of every rank downstream, which count none from then on and
 *    return an error. So a rank counts sender s's block only where every
 *    message it passed through had the right size: s's blocks are then the
 *    size of this rank's, and both read the same acknowledgement rule from
 *    it (exchange.c); a sender not counted is acknowledged whatever the
 *    rule (an unmatched empty message at worst, never a missing one);
 *  - the end of the call stays as exchange.c has it: a rank completes once
 *    every live rank's block is placed here, so every live rank entered the
 *    call. Its own blocks may still sit at relays, but the acknowledgements
 *    and the kept copies are end to end: a receiver acknowledges once all
 *    its blocks are placed, and a sender keeps a copy of every block it
 *    waits no acknowledgement for. A relay dying with a block in hand costs
 *    its receiver that block from its sender (send buffer or kept copy) in
 *    the recovery round, never a wrong one. A dead rank's block still
 *    travelling is lost, as one it had not sent yet, and the report says so;
 *  - a step's send is waited for before its receive, since a receive of
 *    the wrong size releases what it waits with and the exchange goes on,
 *    writing the next message where that send would still read; only a
 *    failure releases a send, and the survivors meet before the room is
 *    written again (the released send, on the ended epoch's communicator,
 *    can match no later receive).
 *
 * Cost: ceil(log2 n) (alpha + (n/2) m beta), m the block's bytes, plus
 * packing and copying about n m bytes a step: fewer messages than linear
 * for small blocks on many ranks, at about (log2 n)/2 times the bytes.
 */
#include <string.h>

#include "../error.h"
#include "../p2p.h"
#include "../plans/modified_bruck.h"
#include "algorithms.h"
#include "state.h"

typedef struct {
    ftc_alltoall_flow *f;
    size_t block;          /* bytes of one block, the same for every rank */
    char *slots;           /* n slots of `block` bytes */
    char *outgoing;        /* one message: the moving slots side by side, then the word */
    char *incoming;
    bool suspect;          /* this rank's relayed blocks may be wrong: its word says so */
} relay;

static char *slot_at(const relay *r, int slot) { return r->slots + (size_t)slot * r->block; }

/* The first suspicion is this rank's error (the user's): its column is
 * undefined, as after any MPI error. */
static void suspect(relay *r, int rc)
{
    r->suspect = true;
    if (r->f->error == MPI_SUCCESS)
        r->f->error = rc;
}

/* Slot j: this rank's block for index me + j, packed. */
static void fill_slots(relay *r)
{
    const ftc_alltoall_flow *f = r->f;
    for (int slot = 1; slot < f->n; slot++) {
        const int to = ftc_modified_bruck_first_destination(f->me, slot, f->n);
        const int rc = ftc_alltoall_pack_block(f, to, slot_at(r, slot));
        if (rc != MPI_SUCCESS)
            suspect(r, rc);
    }
}

/* The message of the step of `distance`: its bytes. */
static int pack_message(relay *r, int distance)
{
    char *at = r->outgoing;
    for (int slot = distance; slot < r->f->n; slot++)
        if (ftc_modified_bruck_moves(slot, distance)) {
            if (r->block > 0)
                memcpy(at, slot_at(r, slot), r->block);
            at += r->block;
        }
    *at++ = (char)r->suspect;
    return (int)(at - r->outgoing);
}

/* A whole message in: each block placed after its last move (unless
 * suspect), else back into its slot to move on. */
static void take_message(relay *r, int distance, int from)
{
    ftc_alltoall_flow *f = r->f;
    const int bytes = ftc_modified_bruck_moving(f->n, distance) * (int)r->block;
    if (r->incoming[bytes] && !r->suspect)
        suspect(r, ftc_fail(MPI_ERR_TRUNCATE, "%s: blocks rank %d relayed to rank %d passed "
                            "through a rank whose blocks were of another size",
                            f->a->name, ftc_ft_live_ranks(f->ft)[from], f->comm->rank));
    const char *at = r->incoming;
    for (int slot = distance; slot < f->n; slot++) {
        if (!ftc_modified_bruck_moves(slot, distance))
            continue;
        if (!ftc_modified_bruck_last_move(slot, distance))
            memcpy(slot_at(r, slot), at, r->block);
        else if (!r->suspect)
            ftc_alltoall_place_block(f, ftc_modified_bruck_final_source(f->me, slot, f->n), at);
        at += r->block;
    }
}

static int post(relay *r, int step, int from, int to, int bytes, MPI_Request *q)
{
    ftc_alltoall_flow *f = r->f;
    const int *ranks = ftc_ft_live_ranks(f->ft);
    int rc = ftc_p2p_irecv(r->incoming, bytes, MPI_BYTE, from, f->tag, f->epoch, &q[0]);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: receiving from rank %d failed", f->a->name, ranks[from]);
    ftc_allreduce_injection_point(f->comm, f->a->number, FTC_ALLTOALL_STEP_RELAY + step,
                                  FTC_INJECT_BEFORE_SEND, NULL);
    rc = ftc_p2p_isend(r->outgoing, bytes, MPI_BYTE, to, f->tag, f->epoch, &q[1]);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: sending to rank %d failed", f->a->name, ranks[to]);
    ftc_allreduce_injection_point(f->comm, f->a->number, FTC_ALLTOALL_STEP_RELAY + step,
                                  FTC_INJECT_AFTER_SEND, &q[1]);
    return MPI_SUCCESS;
}

/* One step: its message out and in; a failure abandons both requests. */
static int exchange_step(relay *r, int step, MPI_Request *q)
{
    ftc_alltoall_flow *f = r->f;
    const int distance = ftc_modified_bruck_distance(step);
    const int to = ftc_modified_bruck_send_to(f->me, distance, f->n);
    const int from = ftc_modified_bruck_receive_from(f->me, distance, f->n);
    const int bytes = pack_message(r, distance);
    bool whole = false;
    q[0] = q[1] = MPI_REQUEST_NULL;
    int rc = post(r, step, from, to, bytes, q);
    if (rc == MPI_SUCCESS)
        rc = ftc_alltoall_wait_message(f, from, q, bytes, &whole);
    if (rc != MPI_SUCCESS) {
        ftc_alltoall_abandon(q, 1, 1);
        return rc;
    }
    if (whole)
        take_message(r, distance, from);
    else
        suspect(r, f->error);   /* the wait made the wrong size this rank's error */
    return MPI_SUCCESS;
}

int ftc_alltoall_modified_bruck(ftc_alltoall_flow *f)
{
    const int me = f->comm->rank;
    relay r = { .f = f, .block = (size_t)f->a->recv.counts[me] * (size_t)f->a->recv.type_size,
                .slots = f->comm->alltoall->relayed };
    r.outgoing = r.slots + (size_t)f->n * r.block;
    r.incoming = r.outgoing + (size_t)ftc_modified_bruck_most_moving(f->n) * r.block + 1;
    fill_slots(&r);
    int rc = MPI_SUCCESS;
    for (int step = 0; rc == MPI_SUCCESS && step < ftc_modified_bruck_steps(f->n); step++)
        rc = exchange_step(&r, step, f->a->requests);
    return rc;
}
