/*
 * The alltoall algorithms: each moves this rank's row to the other live
 * ranks and their blocks into its column, one file per algorithm, named
 * after it, over the primitives of one exchange (exchange.c), which count
 * what arrived and stop everything at a failure.
 */
#ifndef FTCOLL_ALLTOALL_ALGORITHMS_H
#define FTCOLL_ALLTOALL_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../ft/ft.h"
#include "../ft/holdings.h"
#include "exchange.h"

/* One exchange on this rank. Ranks are the epoch's indices 0 .. n - 1. */
typedef struct {
    const ftc_alltoall_call *a;
    ftc_comm_t comm;
    ftc_ft *ft;
    int n;                  /* live ranks */
    int me;                 /* this rank's index among them */
    int tag;
    MPI_Comm epoch;
    ftc_holdings *held;     /* the ranks whose blocks arrived here, itself included */
    int error;              /* this rank's own error: a block of the wrong size */
} ftc_alltoall_flow;

/* Posts the receive of index `from`'s block, or the send of this rank's
 * block for index `to`, into *r. */
int ftc_alltoall_post_receive(ftc_alltoall_flow *f, int from, MPI_Request *r);
int ftc_alltoall_post_send(ftc_alltoall_flow *f, int to, MPI_Request *r);

/* Waits for the receive of index `from`'s block: counted in f->held when it
 * arrived whole; one of another size is f->error, and the exchange goes on.
 * Returns MPI_SUCCESS, FTC_DETECTED, or another error (which ends the call). */
int ftc_alltoall_wait_receive(ftc_alltoall_flow *f, int from, MPI_Request *r);

/* The same for the receive r[0] and the send r[1] together. */
int ftc_alltoall_wait_receive_and_send(ftc_alltoall_flow *f, int from, MPI_Request *r);

/* Waits for the send r[1], then the receive r[0] of a message of `bytes`
 * from index `from`: *whole when both completed and the message brought
 * exactly `bytes` (one of another size is f->error, and the exchange goes
 * on, its send already complete). Returns as ftc_alltoall_wait_receive. */
int ftc_alltoall_wait_message(ftc_alltoall_flow *f, int from, MPI_Request *r, int bytes,
                              bool *whole);

/* This rank's block for index `to`, packed into `into` (its bytes). */
int ftc_alltoall_pack_block(const ftc_alltoall_flow *f, int to, char *into);

/* Index `from`'s block, packed `bytes`, put in its place in this rank's
 * column and counted in f->held (failing, f->error, not counted). */
void ftc_alltoall_place_block(ftc_alltoall_flow *f, int from, const char *bytes);

/* FTCOLL_INJECT's step of the modified Bruck's exchange k (distance 2^k):
 * FTC_ALLTOALL_STEP_RELAY + k (steps 0 .. 2 are every algorithm's). */
enum { FTC_ALLTOALL_STEP_RELAY = 3 };

/* Waits for `count` sends (in batches of FTC_FT_MAX_WAIT), the first to index `to`. */
int ftc_alltoall_wait_sends(ftc_alltoall_flow *f, MPI_Request *sends, int count, int to);

/* Cancels the receives and releases the sends of requests not yet waited
 * for (null ones skipped): `receives` of them first, then the sends. */
void ftc_alltoall_abandon(MPI_Request *requests, int receives, int sends);

/* The algorithms: every block sent and received, or the first failure. */
int ftc_alltoall_linear(ftc_alltoall_flow *f);
int ftc_alltoall_pairwise(ftc_alltoall_flow *f);
int ftc_alltoall_modified_bruck(ftc_alltoall_flow *f);

/* Whether the decision table picks the modified Bruck for some live count
 * up to `size` with blocks of `block_bytes`: ftc_alltoall then reserves its
 * room before the guard. */
bool ftc_alltoall_may_pick_bruck(int size, size_t block_bytes);

/* The bytes of the modified Bruck's room on up to `size` ranks: its slots
 * and one message each way; 0 where a message would carry more than
 * INT_MAX bytes (the Bruck cannot run: linear does). */
size_t ftc_alltoall_bruck_room(int size, size_t block_bytes);

/* A name ("pairwise", Open MPI's "basic_linear", "linear") or a number
 * ("2"), into *out; false (nothing written) for anything else. */
bool ftc_alltoall_parse_name(const char *text, ftc_alltoall_algorithm *out);

/* "auto (0), linear (1), pairwise (2), modified_bruck (3)": the valid names, for messages. */
void ftc_alltoall_list_names(char *out, size_t size);

#endif
