/*
 * The fault-tolerant allreduce's state: between calls (ftc_allreduce_state,
 * one per communicator) and during one call (ftc_ft_call), shared by the
 * failure-free execution (ft_engine.c) and the recovery round
 * (ft_recovery.c).
 */
#ifndef FTCOLL_ALLREDUCE_FT_CALL_H
#define FTCOLL_ALLREDUCE_FT_CALL_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../ft/ft.h"
#include "../inject.h"
#include "ft_engine.h"
#include "recursive_doubling.h"
#include "select.h"

/* A completed call's result, kept for late ranks. */
typedef struct {
    char *data;            /* its value: its own buffer (`kept`), or in the arena */
    size_t capacity;       /* of its own buffer */
    size_t bytes;
    int count;
    MPI_Datatype type;
    size_t offset;         /* in the arena (window[]) */
    /* a part of the result (ftc_gather's), or the whole (op MPI_OP_NULL) */
    MPI_Op op;             /* a predefined op: a rank that serves the part
                            * combines it with the late ranks' by it */
    bool whole;            /* the part is the value itself, as it is (ftc_reduce's) */
    size_t block_width;    /* else the part's value is one block of this many bytes per
                            * rank, zeros but the held ranks': only those are kept,
                            * in rank order, in `data` */
    ftc_route route;       /* blocks routed to where they belong (ftc_kept_part):
                            * block_width bytes as the route lays them out */
    int root;
} ftc_kept_result;

/* Call `number`'s kept result; NULL when not kept here. */
ftc_kept_result *ftc_allreduce_kept_result(ftc_comm_t comm, long number);

struct ftc_allreduce_state {
    bool strict;                /* FTCOLL_STRICT: S short of every rank is an error */
    ftc_inject_plan inject;     /* FTCOLL_INJECT, ftc_inject */

    /* the results of the layer's kept window (their S are the layer's):
     * ranks that finish one of those calls late get it from here (ULFM
     * builds only). The window's first call, which may be large (any
     * call every rank entered), in `kept`; the later ones (broadcasts
     * without tokens, ft_bcast.c) in window[call % FTC_FT_WINDOW], their
     * values one after the other in the arena, which starts afresh with
     * each window: it grows, doubling, to at most twice the most one window
     * held (ft/tokens.h bounds that), however the sizes vary over time */
    ftc_kept_result kept;
    ftc_kept_result window[FTC_FT_WINDOW];
    char *arena;
    size_t arena_capacity, arena_used;

    /* a recovery round's messages: a value with its holdings. Kept from
     * round to round, and resized only at a round's start: a send a
     * failure released may read its buffer until the survivors met. */
    char *packed_out, *packed_in;
    size_t packed_out_capacity, packed_in_capacity;

    /* FTCOLL_ALLREDUCE_ALGORITHM: auto (the decision table) or one for
     * every call */
    ftc_allreduce_algorithm algorithm;

    /* an in-place call's input, kept while a Rabenseifner attempt
     * overwrites it: a failure restarts from it */
    char *input_copy;
    size_t input_copy_capacity;

    ftc_holdings call_held;     /* a call's holdings and live ranks at its start: */
    ftc_holdings call_alive;    /* kept here so that a call allocates nothing */

    bool have_report;
    long recovered_calls;       /* calls whose report has a recovery round */
    ftc_allreduce_report report;
    ftc_holdings report_held;   /* S */
    ftc_holdings report_failed;
    /* the report of a call's first part, while it restarts
     * (ftc_allreduce_report_hold) */
    ftc_allreduce_report held_report;
    ftc_holdings held_failed;
    double held_at;
};

typedef struct {
    ftc_comm_t comm;
    ftc_ft *ft;
    int count;
    MPI_Datatype type;
    MPI_Op op;                    /* MPI_OP_NULL when serving a kept result */
    size_t bytes;                 /* extent x count: what a copy of the value moves */
    int type_size;                /* bytes an element carries on the wire */
    size_t extent;                /* bytes an element spans in memory */
    int wire_bytes;               /* size x count: what a message of it carries */
    const void *input;            /* this rank's contribution, unchanged during the call */
    ftc_allreduce_algorithm algorithm;   /* of the failure-free attempt */
    char *current;                /* this rank's value so far */
    char *incoming;               /* where a partner's value arrives */
    long number;                  /* the call's number on the communicator, from 1 */
    int round;                    /* 0: failure-free attempt; 1, 2, ...: meetings */
    long epoch_before;            /* the epoch the failure-free attempt ran in */
    int step;                     /* where the engine is, for FTCOLL_INJECT */
    int tag_of_call;              /* the failure-free attempt's tag */
    ftc_rd_progress progress;     /* how far the failure-free attempt got */
    const ftc_routed_blocks *routed;   /* a call whose blocks go each to one rank, or NULL */
    ftc_holdings held;            /* what `current` holds, once a failure was detected */
    bool have_held;
    bool confirmed;               /* every live rank held the result before this rank
                                   * completed: nothing kept (confirm_everyone_holds) */
    /* for the report */
    ftc_holdings alive_at_start;
    double detected_at;
    bool late;
} ftc_ft_call;

/* FTCOLL_INJECT: SIGKILL (or spin) this rank if a directive names this point;
 * `send`, if not NULL, completes first ("after-send": the peer has the data).
 * Inline, so that the usual case (nothing injected) costs one test per step. */
void ftc_ft_injection_point(const ftc_ft_call *c, ftc_inject_when when, MPI_Request *send);

static inline void ftc_ft_die_if_injected(const ftc_ft_call *c, ftc_inject_when when,
                                          MPI_Request *send)
{
    if (c->comm->allreduce->inject.count > 0)
        ftc_ft_injection_point(c, when, send);
}

/* The watchdog's view of what this rank does now. */
void ftc_ft_report_progress(const ftc_ft_call *c, const char *doing, int peer);

/*
 * Combines the partner's value (in c->incoming) into this rank's, always
 * as op(lower rank's value, higher rank's value), so that both partners
 * compute the same bits.
 */
void ftc_ft_combine(ftc_ft_call *c, bool partner_is_higher);

/*
 * One transfer with `peer`: `send_count` elements of the call's type from
 * `send`, `receive_count` into `receive`. MPI_SUCCESS, FTC_DETECTED, or an
 * error with the call's context.
 */
int ftc_ft_exchange(ftc_ft_call *c, const void *send, int send_count, void *receive,
                    int receive_count, int peer);

/* The actives' part of a failure-free attempt by Rabenseifner's algorithm
 * (ft_rabenseifner.c): this rank is active `me` of m, its spare (if any)
 * folded in already; on success it holds the result. The engine runs the
 * folds around it, as for recursive doubling. */
int ftc_ft_rabenseifner_actives(ftc_ft_call *c, int me, int m);

/* An error other than a process failure, with the call's context. */
int ftc_ft_error(int rc, const char *what, int peer);

/*
 * Waits for the n requests of one transfer with `peer` (`posted`: what
 * posting them returned; on an error, what was posted is abandoned).
 * MPI_SUCCESS, FTC_DETECTED on a process failure, or an error with the
 * call's context.
 */
int ftc_ft_complete_transfer(ftc_ft_call *c, int posted, MPI_Request *r, const int *expected,
                             int n, const char *what, int peer);

#ifdef FTCOLL_HAVE_ULFM
/* The round the layer runs in a meeting (ft/ft.h's ftc_ft_round). */
int ftc_allreduce_round(ftc_comm_t comm, void *call, const ftc_ft_meeting *meeting);
#endif

#endif
