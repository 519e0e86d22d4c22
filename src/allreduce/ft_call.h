/*
 * The fault-tolerant allreduce's state during one call, shared by the
 * failure-free execution (ft_engine.c) and recovery (ft_recovery.c).
 */
#ifndef FTCOLL_ALLREDUCE_FT_CALL_H
#define FTCOLL_ALLREDUCE_FT_CALL_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../inject.h"
#include "holdings.h"
#include "recursive_doubling.h"

/* Internal result: a process failure was detected; recovery follows. */
enum { FTC_DETECTED = -1 };

/* The recursive doubling running now: the live ranks (round 0), or the
 * masters of a recovery round. */
typedef struct {
    int n;
    const int *ranks;             /* participant -> rank, ascending */
    const ftc_holdings *start;    /* participant -> holdings; NULL: itself */
    int me;                       /* this rank's participant index */
    ftc_rd_progress progress;
} ftc_ft_group;

typedef struct {
    ftc_comm_t comm;
    int count;
    MPI_Datatype type;
    MPI_Op op;                    /* MPI_OP_NULL when serving a saved result */
    size_t bytes;
    char *current;                /* this rank's value so far */
    char *incoming;               /* where a partner's value arrives */
    long number;                  /* the call's number on the communicator, from 1 */
    int round;                    /* 0: failure-free attempt; 1, 2, ...: recoveries */
    int step;                     /* where the engine is, for FTCOLL_INJECT */
    int tag;
    ftc_ft_group group;
    ftc_holdings held;            /* what `current` holds, once a failure was detected */
    bool have_held;
    /* for the report */
    ftc_holdings alive_at_start;
    double detected_at;
    bool late;
} ftc_ft_call;

/* FTCOLL_INJECT: SIGKILL this rank if a directive names this point. */
void ftc_ft_die_if_injected(const ftc_ft_call *c, ftc_inject_when when);

/*
 * Waits for up to two requests of one exchange (either may be null) and
 * for the communicator's sentinel. On a process failure, cancels or
 * releases what is left and returns FTC_DETECTED (with ULFM); other errors
 * come back as MPI error classes with a message.
 */
int ftc_ft_wait(ftc_ft_call *c, MPI_Request *requests, const bool *is_receive, int n,
                const char *what, int peer);

/* Point-to-point with the call's datatype and tag. */
int ftc_ft_send(ftc_ft_call *c, const void *value, int to);
int ftc_ft_receive(ftc_ft_call *c, void *into, int from);

/* Recursive doubling over c->group; c->group.progress says how far it got. */
int ftc_ft_run_group(ftc_ft_call *c);

/* c->held := what c->current holds, from the group's progress. */
void ftc_ft_note_holdings(ftc_ft_call *c);

#ifdef FTCOLL_HAVE_ULFM
/* Recovery rounds until this rank holds the call's result (ft_recovery.c). */
int ftc_ft_recover(ftc_ft_call *c);
#endif

#endif
