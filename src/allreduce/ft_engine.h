/* The fault-tolerant allreduce's execution over MPI (see docs/ft-allreduce.md). */
#ifndef FTCOLL_ALLREDUCE_FT_ENGINE_H
#define FTCOLL_ALLREDUCE_FT_ENGINE_H

#include <mpi.h>

#include "../comm.h"

/*
 * Reduces `count` elements of `type` (`bytes` in all) with `op` across the
 * live ranks; `value` holds this rank's input on entry and the result on
 * return. `type` is predefined and (op, type) valid: the caller checked.
 */
int ftc_ft_allreduce_run(ftc_comm_t comm, void *value, int count, MPI_Datatype type, MPI_Op op,
                         size_t bytes);

/* The communicator's fault-tolerance state: made by ftc_comm_create after
 * the communicator exists, released by ftc_comm_free. */
int ftc_ft_comm_init(ftc_comm_t comm);
void ftc_ft_comm_release(ftc_comm_t comm);

/* Rebuilds the list of live ranks from comm->ft.alive. */
void ftc_ft_update_live(ftc_comm_t comm);

/*
 * Outside any allreduce (ftc_comm_free, ftc_comm_survivors, an allgather
 * that met a failure): joins the survivors' agreement, and serves this
 * rank's saved result to ranks still finishing an earlier call, so nobody
 * is left waiting. Collective over the survivors; a no-op without ULFM.
 */
int ftc_ft_settle(ftc_comm_t comm);

/*
 * For collectives that need every rank: settles a failure this rank has
 * noticed, then MPIX_ERR_PROC_FAILED (with ULFM) if any rank has failed.
 */
int ftc_ft_require_every_rank(ftc_comm_t comm, const char *who);

/*
 * The request a collective that needs every rank should watch while it
 * waits (ftc_schedule_run), or NULL. A rank can be held in an allreduce's
 * recovery, waiting for the others, only until their next ftcoll call:
 * so the first collective after an allreduce watches the sentinel (and
 * pays for polling it), later ones wait as plain MPI does.
 */
MPI_Request *ftc_ft_watch_for(ftc_comm_t comm);
void ftc_ft_unwatch(ftc_comm_t comm);   /* after the collective, watched or not */

/* A collective that needs every rank saw a process failure mid-call:
 * settles with the survivors, then MPIX_ERR_PROC_FAILED. */
int ftc_ft_interrupted(ftc_comm_t comm, const char *who);

#endif
