/* ftc_allgather over the live ranks, and its end after a failure: see ft_allgather.c. */
#ifndef FTCOLL_ALLGATHER_FT_ALLGATHER_H
#define FTCOLL_ALLGATHER_FT_ALLGATHER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"

/* The most bytes of blocks a call takes with ULFM: the recovery's messages
 * carry them, packed, with a header, in one int count of bytes. */
enum { FTC_ALLGATHER_MAX_BYTES = INT_MAX - (1 << 16) };

/* One call, its arguments checked. */
typedef struct {
    ftc_comm_t comm;
    long number;              /* the call's number in the engine's numbering */
    bool in_place;
    const void *send;         /* this rank's block (the send side, or its own slot) */
    int send_count;
    MPI_Datatype send_type;
    bool send_contiguous;
    char *recv;               /* the user's buffer: slot r at recv + r x stride */
    int count;
    MPI_Datatype type;
    bool contiguous;
    MPI_Aint stride;          /* extent x count */
    size_t block_bytes;       /* count x size of type: what one block carries */
} ftc_allgather_call;

/*
 * Whether the plan gathers apart from the user's buffer: once ranks have
 * died (the user's slots are the communicator's ranks, the plan's the live
 * ones), or when it works in a buffer rotated by `rotation` (Bruck), which
 * would put other ranks' blocks in a dead rank's slot. Then the user's
 * buffer is written only once every block arrived, and only in the live
 * ranks' slots.
 */
bool ftc_allgather_gathers_apart(const ftc_allgather_call *a, int rotation);

/* Where the attempt gathers: the user's buffer, or, gathering apart, one
 * slot per live rank in a buffer of the communicator's. */
int ftc_allgather_attempt_slots(const ftc_allgather_call *a, bool apart, ftc_slots *slots);

/* Gathered apart: slot s (the block of live rank (s + rotation) mod n) to
 * that rank's slot in the user's buffer. */
int ftc_allgather_deliver(const ftc_allgather_call *a, const ftc_slots *gathered, int rotation);

/* FTCOLL_INJECT's step of the confirmation's first exchange (0: entering
 * the call, 1: every block arrived). */
enum { FTC_ALLGATHER_CONFIRM_STEP = 2 };

/* Whether the call confirms that every live rank holds every block rather
 * than keep a copy for late ranks (a copy of 128 KiB or more). */
bool ftc_allgather_confirms(const ftc_allgather_call *a);

/* The confirmation: a dissemination barrier of empty messages over the
 * live ranks on the call's tag. MPI_SUCCESS, FTC_DETECTED, or an error. */
int ftc_allgather_confirm(const ftc_allgather_call *a);

/* The attempt completed here (and `confirmed` that every live rank holds
 * every block): reported (S = the live ranks) and, where a rank could
 * finish the call late without holding every block, kept for it. */
int ftc_allgather_complete(const ftc_allgather_call *a, bool confirmed);

/*
 * A failure stopped the attempt (or a meeting is owed): the survivors
 * finish the call with the engine's recovery; every block of S lands in
 * its owner's slot, the others are left as they are. `holds_every_block`:
 * the attempt completed here (the failure came in the confirmation).
 */
int ftc_allgather_recover(const ftc_allgather_call *a, bool holds_every_block);

#endif
