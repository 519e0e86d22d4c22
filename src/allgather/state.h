/* The state of the allgather family's modules on a communicator
 * (comm->allgather, comm->allgatherv). */
#ifndef FTCOLL_ALLGATHER_STATE_H
#define FTCOLL_ALLGATHER_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../args.h"
#include "ft_allgather.h"
#include "ftcoll.h"

struct ftc_allgather_state {
    ftc_allgather_algorithm forced;   /* FTC_ALLGATHER_AUTO: decision table */
    ftc_known_type known;             /* spares the type queries of most calls */
    ftc_allgather_choice last;
    ftc_allgather_plans plans;
    ftc_allgather_scratch scratch;
};

struct ftc_allgatherv_state {
    ftc_allgatherv_algorithm forced;  /* FTC_ALLGATHERV_AUTO: decision table */
    ftc_known_type known;
    ftc_allgatherv_choice last;
    ftc_allgather_plans plans;
    ftc_allgather_scratch scratch;
};

#endif
