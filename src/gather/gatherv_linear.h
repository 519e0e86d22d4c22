/*
 * One ftc_gatherv once its arguments are checked: the linear flow over the
 * live ranks, and its end (gatherv_linear.c).
 */
#ifndef FTCOLL_GATHER_GATHERV_LINEAR_H
#define FTCOLL_GATHER_GATHERV_LINEAR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../ft/ft.h"
#include "../ft/tokens.h"

/* The largest block a rank keeps a copy of for a root still inside the
 * call: a window of copies stays within FTC_FT_KEPT_BYTES. */
enum { FTC_GATHERV_KEPT_BLOCK = FTC_FT_KEPT_BYTES / FTC_FT_WINDOW };

/* The most bytes one block may carry: a wait checks a message's size as an int. */
enum { FTC_GATHERV_MAX_BLOCK = INT_MAX };

typedef struct {
    ftc_comm_t comm;
    long number;                /* the call's number in the engine's numbering */
    int root;
    bool in_place;
    /* this rank's block (at an in-place root: its place in recvbuf) */
    const void *send;
    int send_count;
    MPI_Datatype send_type;
    bool send_contiguous;
    size_t send_bytes;          /* its payload */
    /* the root's: block r is recv_counts[r] x recv_type at recv + displs[r] x extent */
    char *recv;
    const int *recv_counts;
    const int *displs;
    MPI_Datatype recv_type;
    MPI_Aint recv_extent;
    int recv_type_size;
    bool recv_contiguous;
} ftc_gatherv_call;

/* The whole call over the live ranks: the flow, then the root's word or
 * the copy kept for a late root, or after a failure the recovery. */
int ftc_gatherv_run(const ftc_gatherv_call *g);

#endif
