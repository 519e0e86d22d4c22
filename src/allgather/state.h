/* The allgather's state on a communicator (comm->allgather): what allgather.c
 * and ft_allgather.c share. */
#ifndef FTCOLL_ALLGATHER_STATE_H
#define FTCOLL_ALLGATHER_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../args.h"
#include "../schedule.h"
#include "ftcoll.h"

struct ftc_allgather_state {
    ftc_allgather_algorithm forced;   /* FTC_ALLGATHER_AUTO: decision table */
    ftc_known_type known;             /* spares the type queries of most calls */
    ftc_allgather_choice last;
    /* built on first use, for the live ranks of the epoch they were built
     * in (a death makes them stale: rebuilt for the survivors) */
    ftc_schedule *plans[FTC_ALLGATHER_ALGORITHM_COUNT];
    bool own_block_alone[FTC_ALLGATHER_ALGORITHM_COUNT];  /* of each plan, found with it */
    /* where a plan gathers apart from the user's buffer (ranks have died,
     * or it works in a rotated buffer): one slot per live rank, before the
     * blocks move to their owners' slots */
    char *gathered;
    size_t gathered_capacity;
};

#endif
