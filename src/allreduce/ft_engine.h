/* The fault-tolerant allreduce's execution over MPI (see docs/ft-allreduce.md). */
#ifndef FTCOLL_ALLREDUCE_FT_ENGINE_H
#define FTCOLL_ALLREDUCE_FT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"

/*
 * Reduces `count` elements of `type` (`bytes` in all) with `op` across the
 * live ranks; `value` holds this rank's input on entry and the result on
 * return. `input`, if not NULL, is the same input, left unchanged during
 * the call (the caller's send buffer): a failure can restart from it
 * without a copy. `type` is predefined and (op, type) valid: the caller
 * checked.
 */
int ftc_ft_allreduce_run(ftc_comm_t comm, const void *input, void *value, int count,
                         MPI_Datatype type, MPI_Op op, size_t bytes);


/* Whether the last completed call's result includes `rank`'s input. */
bool ftc_allreduce_result_includes(ftc_comm_t comm, int rank);

#endif
