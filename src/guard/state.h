/*
 * The guard's state on one communicator (comm->guard), private to the
 * guard's files: its settings, the counts that name calls in reports, the
 * check-in tree's place and the stop.
 */
#ifndef FTCOLL_GUARD_STATE_H
#define FTCOLL_GUARD_STATE_H

#include <stdbool.h>

#include "checkin_tree.h"
#include "report.h"
#include "settings.h"

typedef struct ftc_guard ftc_guard_state;

struct ftc_guard {
    ftc_guard_settings settings;        /* FTCOLL_GUARD, ftc_guard_set */
    ftc_watchdog_settings watchdog;     /* FTCOLL_WATCHDOG, until the start applies it */
    double settings_at;                 /* MPI_Wtime when time_left was given */
    long collectives;                   /* guardable collectives started: every-N counts them */
    long calls[FTC_GUARDED_KINDS];      /* per kind: "ftc_allreduce call 7" */
    long checks;                        /* check-ins run */
    int errors;                         /* raised on this rank */
    char first_error[FTC_GUARD_MESSAGE_MAX];
    int warnings;                       /* emitted on this rank */
    bool stopped;                       /* a check-in decided to stop: every call stops */
    bool left_alone;                    /* the last call: this rank left it at its checks */
    ftc_guard_record decided;           /* that check-in's record */
    ftc_guard_record *received;         /* the children's records (allocated on use) */
    ftc_guard_node node;                /* this rank's place in the tree of node_ranks */
    int node_ranks, node_position;      /* what `node` was computed for (0: not yet) */
    ftc_stop_handler handler;
    void *handler_arg;
    long *host_pid;                     /* per rank: host hash, pid (for the brutal stop) */
    int *tally;                         /* rank 0: per rank, warnings (at the free) */
};

#endif
