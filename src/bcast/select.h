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

/* Up to this many bytes a broadcast by dissemination sends its tokens only
 * every FTC_FT_WINDOW calls, and every rank keeps a copy of the data for
 * late ranks (ft_bcast.c): the copy costs less than the tokens' latency. */
enum { FTC_BCAST_WINDOWED_BYTES = 2048 };

/* For p live ranks and a message of `bytes` (count x size of the type). */
ftc_bcast_algorithm ftc_bcast_decide(int p, size_t bytes);

#endif
