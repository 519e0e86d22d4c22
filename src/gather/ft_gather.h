/*
 * One ftc_gather once its arguments are checked and its algorithm chosen:
 * the flow up the algorithm's tree over the live ranks, and its end
 * (ft_gather.c).
 */
#ifndef FTCOLL_GATHER_FT_GATHER_H
#define FTCOLL_GATHER_FT_GATHER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "algorithms.h"

/* The most bytes the p blocks may come to: a subtree's message, whose
 * size a wait checks as an int, and the recovery's messages, which carry
 * them packed with a header in one int count of bytes. */
enum { FTC_GATHER_MAX_BYTES = INT_MAX - (1 << 16) };

typedef struct {
    ftc_comm_t comm;
    long number;                /* the call's number in the engine's numbering */
    int root;
    ftc_gather_algorithm algorithm;
    /* this rank's block (at an in-place root: its place in recvbuf) */
    const void *send;
    int send_count;
    MPI_Datatype send_type;
    MPI_Aint send_extent;
    bool send_contiguous;
    /* the root's buffer: block r at recv + r x stride (the root only) */
    char *recv;
    int recv_count;
    MPI_Datatype recv_type;
    MPI_Aint recv_extent;
    bool recv_contiguous;
    bool in_place;
    size_t block_bytes;         /* one block's payload, alike on every rank */
} ftc_gather_call;

/* The whole call over the live ranks: the flow, then the root's word or
 * the copy kept for a late root, or after a failure the recovery. */
int ftc_gather_run(const ftc_gather_call *g);

#endif
