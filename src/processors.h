/*
 * Whether the ranks of a communicator share processors: some node runs
 * more of its ranks than there are processors for them (collective).
 *
 * Why a collective asks: with a processor each, a rank copies a message
 * while the others go on, but a step that waits for every rank stalls
 * them all; with processors shared, every copy takes its time from
 * another rank, and waiting costs less than copying. The broadcast's
 * confirmation (bcast/select.h) turns on it.
 *
 * A node's processors: the union of the CPU sets its ranks may run on
 * (bound one per core: one each; unbound: every processor of the node,
 * hardware threads included); where the system gives no CPU set, its
 * online processors. Only the communicator's ranks count: the other
 * processes of the job or the node are not seen.
 */
#ifndef FTCOLL_PROCESSORS_H
#define FTCOLL_PROCESSORS_H

#include <stdbool.h>

#include <mpi.h>

/* Collective over `comm`: sets *shared alike on every rank. MPI_SUCCESS,
 * or the failed MPI call's error (named, *shared left false). */
int ftc_ranks_share_processors(MPI_Comm comm, bool *shared);

#endif
