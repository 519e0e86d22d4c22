/*
 * Which fault-tolerant broadcast runs (pure): MPICH's fixed rule as a
 * table (MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288 bytes,
 * MPIR_CVAR_BCAST_MIN_PROCS = 8):
 *
 *   p < 8, or under 12 KiB      dissemination.h   (binomial data flow)
 *   otherwise                   scatter_ring.h    (scatter + ring allgather)
 *
 * MPICH runs its recursive-doubling allgather after the scatter for medium
 * messages on power-of-two counts; the ring serves every count here.
 */
#ifndef FTCOLL_BCAST_SELECT_H
#define FTCOLL_BCAST_SELECT_H

#include <stddef.h>

typedef enum { FTC_BCAST_DISSEMINATION, FTC_BCAST_SCATTER_RING } ftc_bcast_algorithm;

/* For p live ranks and a message of `bytes` (count x size of the type). */
ftc_bcast_algorithm ftc_bcast_decide(int p, size_t bytes);

#endif
