/* The ftcoll communicator (internal view of ftc_comm_t). */
#ifndef FTCOLL_COMM_H
#define FTCOLL_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"
#include "inject.h"
#include "schedule.h"
#include "schedule_exec.h"

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

    MPI_Comm self;              /* MPI_COMM_SELF's duplicate, MPI_ERRORS_RETURN: for
                                 * checks whose errors MPI would raise fatally */
    long allreduce_calls;       /* sequence number, part of every allreduce tag */
    bool lost_a_rank;           /* a failure ended an allreduce: until recovery exists,
                                 * later calls report it at once instead of waiting */
    ftc_inject_plan inject;     /* FTCOLL_INJECT */
    MPI_Op checked_op;          /* the last (op, type) pair known to be valid */
    MPI_Datatype checked_type;
};

#endif
