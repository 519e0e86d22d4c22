/* The fault-tolerance layer's state: shared by ft.c and meeting.c only. */
#ifndef FTCOLL_FT_INTERNAL_H
#define FTCOLL_FT_INTERNAL_H

#include "ft.h"

#include "../schedule_exec.h"

struct ftc_ft {
    int rank, size;             /* in the ftcoll communicator */
    MPI_Comm base;              /* the ftcoll communicator's (epoch 0's; not owned) */
    int tag_window;
    ftc_ft_round round;         /* the collective's recovery round */

    /* the current epoch: a communicator of the ranks alive at its start */
    long epoch;
    MPI_Comm comm;              /* the data communicator */
    MPI_Comm watch;             /* epoch 0's group, carries only the sentinel; kept
                                 * for every epoch (failures acknowledged on it) */
    MPI_Request sentinel;
    ftc_exec_watch exec_watch;  /* ftc_ft_exec_watch: polls the sentinel */
    bool failure_known;         /* ULFM refused to post the sentinel, or it answered a
                                 * poll (ftc_ft_failure_noticed): a rank of the epoch
                                 * is known dead already */
    int *epoch_rank;            /* per rank: its rank in `comm`, -1 if not in it */
    MPI_Comm *retired;          /* earlier epochs' communicators, freed at the end:
                                 * their numbers are not reused while messages a
                                 * failure stranded on them may still arrive */
    int nretired, retired_capacity;

    /* the live ranks, as the survivors last agreed */
    bool *alive;
    int *live;
    int nlive;
    int live_index;
    ftc_holdings live_held;

    /* calls */
    long calls;                 /* calls begun: the number of the current or last */
    long kept_first, kept_last; /* the kept window: calls completed here whose results
                                 * are kept (0, 0: none; reconcile.h) */
    ftc_holdings kept_held[FTC_FT_WINDOW];   /* their S, call c's at c % FTC_FT_WINDOW */
    long ops;                   /* operations begun (ftc_ft_begin_op) */
    bool owes_meeting;
    long skip_op;               /* settling in this operation meets nobody: the
                                 * others left that settling already (0: none) */
};

/* Makes `comm` the current epoch and posts its sentinel on the twin; the
 * previous epoch's communicator is retired. */
int ftc_ft_install_epoch(ftc_ft *ft, MPI_Comm comm);

/* Counts an operation that may meet: every rank numbers it alike. */
void ftc_ft_begin_op(ftc_ft *ft);

#endif
