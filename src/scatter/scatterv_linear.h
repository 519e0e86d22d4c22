/*
 * One ftc_scatterv (or ftc_scatter, its blocks all alike) once its
 * arguments are checked: the linear flow over the live ranks, and its end
 * (scatterv_linear.c).
 */
#ifndef FTCOLL_SCATTER_SCATTERV_LINEAR_H
#define FTCOLL_SCATTER_SCATTERV_LINEAR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../ft/ft.h"
#include "../ft/tokens.h"

/* The most bytes of blocks a root copies in one call for receivers still
 * inside it at a meeting: a window of such copies stays within
 * FTC_FT_KEPT_BYTES. A block above its share of it (this over the other
 * live ranks) is acknowledged instead of copied. */
enum { FTC_SCATTERV_KEPT_BYTES = FTC_FT_KEPT_BYTES / FTC_FT_WINDOW };

/* The most bytes one block may carry: a wait checks a message's size as an int. */
enum { FTC_SCATTERV_MAX_BLOCK = INT_MAX };

typedef struct {
    const char *name;           /* the public call, for messages: "ftc_scatterv" */
    ftc_comm_t comm;
    long number;                /* the call's number in the engine's numbering */
    int root;
    bool in_place;              /* the root's recvbuf is MPI_IN_PLACE: its block stays */
    /* where this rank's block lands */
    void *recv;
    int recv_count;
    MPI_Datatype recv_type;
    bool recv_contiguous;
    size_t recv_bytes;          /* its payload */
    /* the root's: block r is send_counts[r] x send_type at send + displs[r] x
     * extent (displs NULL: at send + r x stride x extent, a scatter's) */
    const char *send;
    const int *send_counts;
    const int *displs;
    MPI_Aint stride;
    MPI_Datatype send_type;
    MPI_Aint send_extent;
    int send_type_size;
    bool send_contiguous;
    MPI_Request *requests;      /* room for a request per rank */
} ftc_scatterv_call;

/* The whole call over the live ranks: the flow, then the acknowledgements
 * or the copies kept for late receivers, or after a failure the recovery. */
int ftc_scatterv_run(const ftc_scatterv_call *s);

#endif
