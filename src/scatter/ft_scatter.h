/*
 * One ftc_scatterv (or ftc_scatter, its blocks all alike) once its
 * arguments are checked: the flow down the algorithm's tree over the live
 * ranks, and its end (ft_scatter.c).
 */
#ifndef FTCOLL_SCATTER_FT_SCATTER_H
#define FTCOLL_SCATTER_FT_SCATTER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../ft/ft.h"
#include "../ft/tokens.h"
#include "../plans/vrank_tree.h"

/* The most bytes of blocks a root copies in one call for receivers still
 * inside it at a meeting: a window of such copies stays within
 * FTC_FT_KEPT_BYTES. A block above its share of it (this over the other
 * live ranks) is acknowledged instead of copied. */
enum { FTC_SCATTER_KEPT_BYTES = FTC_FT_KEPT_BYTES / FTC_FT_WINDOW };

/* The most bytes one block may carry: a wait checks a message's size as an int. */
enum { FTC_SCATTER_MAX_BLOCK = INT_MAX };

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
    /* the tree (algorithms.h; NULL: linear), and for the binomial tree the
     * room for p blocks of this rank's (a run passed on) and the p-entry
     * tables that describe a subtree held there to the recovery */
    const ftc_vrank_tree *tree;
    char *room;
    int *subtree_counts;
    int *subtree_displs;
} ftc_scatter_call;

/* The whole call over the live ranks: the flow, then the acknowledgements
 * or the copies kept for late receivers, or after a failure the recovery. */
int ftc_scatter_run(const ftc_scatter_call *s);

#endif
