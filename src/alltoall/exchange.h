/*
 * One ftc_alltoall or ftc_alltoallv once its arguments are checked: the
 * algorithm's exchange over the live ranks, the acknowledgements or the
 * copy kept for late receivers, or after a failure the recovery
 * (exchange.c).
 */
#ifndef FTCOLL_ALLTOALL_EXCHANGE_H
#define FTCOLL_ALLTOALL_EXCHANGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../allreduce/ft_engine.h"
#include "../comm.h"
#include "ftcoll.h"

/* The most bytes of blocks a rank copies in one call for receivers still
 * inside it at a meeting. A block above its share of it (this over the
 * other live ranks) is acknowledged instead of copied. Where the copy and
 * the acknowledgements cost the same: at p = 8 on 2 cores, copying 7
 * blocks of 16 KiB made a call 1.54x native, acknowledging them 1.22 to
 * 1.30x; blocks of 8 KiB 1.15 to 1.19x copied, 1.26 to 1.31x
 * acknowledged. */
enum { FTC_ALLTOALL_KEPT_BYTES = 64 * 1024 };

/* The most bytes one block may carry: a wait checks a message's size as an
 * int. */
enum { FTC_ALLTOALL_MAX_BLOCK = INT_MAX };

typedef struct {
    const char *name;              /* the public call, for messages: "ftc_alltoall" */
    ftc_comm_t comm;
    long number;                   /* the call's number in the engine's numbering */
    ftc_alltoall_algorithm algorithm;
    /* this rank's row: block r for rank r (in place: a packed copy of
     * recvbuf's blocks, MPI_PACKED) */
    ftc_block_places send;
    bool send_contiguous;          /* send.type dense and predefined: packed by memcpy */
    /* this rank's column: where rank r's block lands */
    ftc_block_places recv;
    bool recv_contiguous;
    bool in_place;                 /* this rank's own block is already in place */
    MPI_Request *requests;         /* room for two requests per rank */
} ftc_alltoall_call;

/* The whole call over the live ranks. */
int ftc_alltoall_run(const ftc_alltoall_call *a);

#endif

/* ---- building a call (prepare.c) ---- */

/* Room for a call on `comm`, made before the guard, so that a rank short
 * of memory stops every rank: the requests, the counts, `packed` bytes for
 * an in-place call's blocks and `relayed` for the modified Bruck's. */
int ftc_alltoall_reserve(ftc_comm_t comm, const char *name, size_t packed, size_t relayed);

/* An in-place call's row: recvbuf's blocks (a->recv) packed side by side
 * into the room ftc_alltoall_reserve made, as a->send (MPI_PACKED). */
int ftc_alltoall_pack_in_place(ftc_alltoall_call *a);

/* The algorithm of a call on n live ranks (the forced one, or `decided`),
 * recorded for ftc_alltoall_last_choice and logged when it changed. The
 * modified Bruck only where `bruck_room` says its room was reserved (the
 * same answer on every rank): linear in its place elsewhere (alltoallv). */
ftc_alltoall_algorithm ftc_alltoall_choose(ftc_comm_t comm, int n,
                                           ftc_alltoall_algorithm decided, bool bruck_room);
