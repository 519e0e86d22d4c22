/*
 * One call of the allgather family (ftc_allgather, ftc_allgatherv) once its
 * arguments are checked and its algorithm chosen: the attempt over the
 * live ranks (attempt.c) and its end after a failure (ft_allgather.c).
 */
#ifndef FTCOLL_ALLGATHER_FT_ALLGATHER_H
#define FTCOLL_ALLGATHER_FT_ALLGATHER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"
#include "../schedule.h"
#include "ftcoll.h"

/* The most bytes of blocks a call takes with ULFM: the recovery's messages
 * carry them, packed, with a header, in one int count of bytes. */
enum { FTC_ALLGATHER_MAX_BYTES = INT_MAX - (1 << 16) };

/* `call`'s p blocks of all_bytes within that limit: MPI_SUCCESS, or
 * MPI_ERR_COUNT saying so (only with ULFM). */
int ftc_allgather_check_total(const char *call, int p, long long all_bytes);

/* Memory a module of the family keeps from call to call. */
typedef struct {
    /* where a plan gathers apart from the user's buffer (ranks have died,
     * or it works in a rotated buffer): one slot per live rank, before the
     * blocks move to their owners' slots */
    char *gathered;
    size_t gathered_capacity;
    /* an allgatherv's: each block's place in the user's buffer (bytes); its
     * slots' counts and places gathering apart; the slots' elements before
     * each and the last slot of each one's run end to end (ftc_slots); where
     * each block starts packed for the recovery. p + 1 entries each. */
    MPI_Aint *block_offsets;
    int *slot_counts;
    MPI_Aint *slot_offsets;
    long long *elements_before;
    int *run_last;
    size_t *packed_at;
    int capacity;   /* p: the arrays' entries less one */
} ftc_allgather_scratch;

/* The arrays with room for p blocks. */
int ftc_allgather_scratch_reserve(ftc_allgather_scratch *s, int p);
void ftc_allgather_scratch_free(ftc_allgather_scratch *s);

/* Each algorithm's plan, built on first use for the live ranks of the
 * epoch it was built in (a death makes it stale: rebuilt for the
 * survivors). */
typedef struct {
    ftc_schedule *plans[FTC_ALLGATHER_ALGORITHM_COUNT];
    bool own_block_alone[FTC_ALLGATHER_ALGORITHM_COUNT];  /* of each plan, found with it */
} ftc_allgather_plans;

/* The plan of `algorithm` for live rank `me` of n. */
int ftc_allgather_plan_for(ftc_allgather_plans *cache, ftc_allgather_algorithm algorithm, int me,
                           int n, const ftc_schedule **out);
void ftc_allgather_plans_free(ftc_allgather_plans *cache);

/* One call, its arguments checked. */
typedef struct {
    ftc_comm_t comm;
    const char *name;         /* "ftc_allgather" or "ftc_allgatherv", for messages */
    ftc_allgather_scratch *scratch;   /* the calling module's */
    long number;              /* the call's number in the engine's numbering */
    bool in_place;
    const void *send;         /* this rank's block (the send side, or its own slot) */
    int send_count;
    MPI_Datatype send_type;
    bool send_contiguous;
    char *recv;               /* the user's buffer */
    int count;                /* ftc_allgather: the elements of every block */
    MPI_Datatype type;
    bool contiguous;          /* `type` is dense */
    int type_size;
    MPI_Aint extent;          /* of `type` */
    MPI_Aint stride;          /* ftc_allgather: block r at recv + r x stride (extent x count) */
    const int *counts;        /* ftc_allgatherv: block r holds counts[r] elements... */
    const MPI_Aint *offsets;  /* ...at recv + offsets[r] (NULL, both, for ftc_allgather) */
    size_t all_bytes;         /* the p blocks' payload */
} ftc_allgather_call;

static inline int ftc_allgather_count_of(const ftc_allgather_call *a, int rank)
{
    return a->counts ? a->counts[rank] : a->count;
}

static inline char *ftc_allgather_block_of(const ftc_allgather_call *a, int rank)
{
    return a->recv + (a->offsets ? a->offsets[rank] : (MPI_Aint)rank * a->stride);
}

static inline size_t ftc_allgather_bytes_of(const ftc_allgather_call *a, int rank)
{
    return (size_t)ftc_allgather_count_of(a, rank) * (size_t)a->type_size;
}

/*
 * The whole call over the live ranks (attempt.c): the plan (`algorithm`,
 * named for messages) runs, into the user's buffer or apart from it; then
 * the confirmation or the copy kept for late ranks, or, after a failure,
 * the recovery: every survivor ends alike.
 */
int ftc_allgather_run(ftc_allgather_call *a, const ftc_schedule *plan, const char *algorithm,
                      bool own_block_alone);

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
