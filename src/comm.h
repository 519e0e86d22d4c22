/* The ftcoll communicator (internal view of ftc_comm_t). */
#ifndef FTCOLL_COMM_H
#define FTCOLL_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "allreduce/holdings.h"
#include "ftcoll.h"
#include "guard/guard.h"
#include "inject.h"
#include "schedule.h"
#include "schedule_exec.h"

/* The fault-tolerant allreduce's state between calls (allreduce/ft_*.c). */
typedef struct {
    long calls;                 /* calls started: the call's number, part of its tag */
    bool *alive;                /* per rank, as the survivors last agreed */
    int *live;                  /* the live ranks, ascending */
    int nlive;
    int live_index;             /* this rank's place in live[] */
    ftc_holdings live_held;     /* the live ranks as a set */
    ftc_holdings call_held;     /* a call's holdings and live ranks at its start: */
    ftc_holdings call_alive;    /* kept here so that a call allocates nothing */
    MPI_Request sentinel;       /* ULFM: a wildcard receive nobody matches, failed by
                                 * ULFM on every survivor when a rank dies */
    long agreements;            /* agreements run: the same count on every survivor */
    long watched_after;         /* the allreduce call the last watched collective followed */
    bool agree_at_entry;        /* this rank finished a call that others, already in
                                 * the next one, helped it finish: they wait in an
                                 * agreement that its next ftcoll entry must join */
    bool strict;                /* FTCOLL_STRICT: S short of every rank is an error */

    /* the last completed call's result: ranks that finish that call late
     * (their partner died after the others had returned) get it from here */
    char *saved;
    size_t saved_capacity;
    size_t saved_bytes;
    int saved_count;
    MPI_Datatype saved_type;
    long saved_call;
    ftc_holdings saved_held;

    bool have_report;
    ftc_allreduce_report report;
    ftc_holdings report_held;   /* S */
    ftc_holdings report_failed;
} ftc_ft_state;

struct ftc_comm {
    MPI_Comm comm;              /* private duplicate, MPI_ERRORS_RETURN */
    int rank;
    int size;
    int verbose;                /* FTCOLL_VERBOSE */

    ftc_allgather_algorithm allgather_forced;   /* FTC_ALLGATHER_AUTO: decision table */
    ftc_allgather_choice allgather_last;
    ftc_schedule *allgather_plans[FTC_ALLGATHER_ALGORITHM_COUNT]; /* built on first use */

    ftc_exec_scratch exec;      /* requests and statuses for the engine */
    char *scratch;              /* bytes for local rotations, allreduce partner values */
    size_t scratch_size;
    char *packed;               /* ftc_bcast's packed data (the engine uses `scratch`) */
    size_t packed_size;

    MPI_Comm self;              /* MPI_COMM_SELF's duplicate, MPI_ERRORS_RETURN: for
                                 * checks whose errors MPI would raise fatally */
    ftc_inject_plan inject;     /* FTCOLL_INJECT */
    ftc_ft_state ft;
    ftc_guard_state guard;      /* FTCOLL_GUARD, FTCOLL_WATCHDOG */
    struct ftc_tree_comm *tree; /* tree broadcasts (bcast/tree_bcast.c), NULL if unused */
    MPI_Op checked_op;          /* the last (op, type) pair known to be valid */
    MPI_Datatype checked_type;
};

/* Frees an ftcoll communicator without a message to any rank (the PMPI
 * layer, when MPI frees the communicator under it), and sets *comm to NULL. */
void ftc_comm_release_local(ftc_comm_t *comm);

#endif
