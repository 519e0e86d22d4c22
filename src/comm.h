/* The ftcoll communicator (internal view of ftc_comm_t). */
#ifndef FTCOLL_COMM_H
#define FTCOLL_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"
#include "guard/guard.h"
#include "inject.h"
#include "schedule.h"
#include "schedule_exec.h"


struct ftc_comm {
    MPI_Comm comm;              /* private duplicate, MPI_ERRORS_RETURN */
    int rank;
    int size;
    int verbose;                /* FTCOLL_VERBOSE */

    struct ftc_allgather_state *allgather;      /* allgather/allgather.h */

    ftc_exec_scratch exec;      /* requests and statuses for the engine */
    char *scratch;              /* bytes for local rotations, allreduce partner values */
    size_t scratch_size;
    char *packed;               /* a second scratch buffer: ftc_bcast packs its data
                                 * there while the engine works in `scratch` */
    size_t packed_size;

    MPI_Comm self;              /* MPI_COMM_SELF's duplicate, MPI_ERRORS_RETURN: for
                                 * checks whose errors MPI would raise fatally */
    ftc_inject_plan inject;     /* FTCOLL_INJECT */
    struct ftc_ft *ft;          /* the fault-tolerance layer (ft/ft.h) */
    struct ftc_allreduce_state *allreduce;   /* allreduce/ft_engine.h */
    ftc_guard_state guard;      /* FTCOLL_GUARD, FTCOLL_WATCHDOG */
    struct ftc_tree_comm *tree; /* tree broadcasts (bcast/adaptive.h), NULL if unused */
    MPI_Op checked_op;          /* the last (op, type) pair known to be valid */
    MPI_Datatype checked_type;
};

#endif
