/* The fault-tolerant allreduce's execution over MPI (see docs/ft-allreduce.md). */
#ifndef FTCOLL_ALLREDUCE_FT_ENGINE_H
#define FTCOLL_ALLREDUCE_FT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../module.h"

/*
 * Reduces `count` elements of `type` (`bytes` in all) with `op` across the
 * live ranks; `value` holds this rank's input on entry and the result on
 * return. `type` is predefined and (op, type) valid: the caller checked.
 */
int ftc_ft_allreduce_run(ftc_comm_t comm, void *value, int count, MPI_Datatype type, MPI_Op op,
                         size_t bytes);

/* The allreduce's state on a communicator (comm->allreduce, state.c): made
 * by communicator.c after the fault-tolerance layer, which it registers its
 * recovery round with. */
extern const ftc_module ftc_allreduce_module;

/* Whether the last completed call's result includes `rank`'s input. */
bool ftc_allreduce_result_includes(ftc_comm_t comm, int rank);

#endif
