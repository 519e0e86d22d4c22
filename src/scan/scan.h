/*
 * One ftc_scan or ftc_exscan once its arguments are checked: the chain
 * for small inputs (chain.c), the allgather and fold for large ones
 * (gather_fold.c); select.c picks.
 */
#ifndef FTCOLL_SCAN_SCAN_H
#define FTCOLL_SCAN_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"
#include "../ft/reconcile.h"
#include "../ft/tokens.h"

typedef struct {
    const char *name;            /* the public call, for messages */
    ftc_comm_t comm;
    bool exclusive;              /* ftc_exscan: the ranks before this one only */
    const void *input;           /* sendbuf, or in place recvbuf */
    void *result;                /* recvbuf */
    int count;
    MPI_Datatype type;
    MPI_Op op;
    ftc_type_shape shape;        /* the type's */
} ftc_scan_call;

/* The chain runs while p blocks come to at most this many bytes: a rank
 * keeps up to p blocks for late ranks, and FTC_FT_WINDOW calls of such
 * copies stay within FTC_FT_KEPT_BYTES (ft/tokens.h). */
enum { FTC_SCAN_CHAIN_MAX_BYTES = FTC_FT_KEPT_BYTES / FTC_FT_WINDOW };

/* One rank's input: count x extent bytes. */
size_t ftc_scan_block_bytes(const ftc_scan_call *call);

/* Room for either algorithm, made before the guard: a rank short of
 * memory stops every rank. */
int ftc_scan_reserve(const ftc_scan_call *call);

/* Whether this call runs the chain: p blocks within
 * FTC_SCAN_CHAIN_MAX_BYTES, and not a call on which every rank must enter
 * before any completes (one in FTC_FT_WINDOW, with ULFM on three or more
 * ranks). Alike on every rank. */
bool ftc_scan_runs_chain(const ftc_scan_call *call);

/* The whole call over the live ranks, by the algorithm that
 * ftc_scan_runs_chain picks; each ends over the survivors after a
 * failure. */
int ftc_scan_run(const ftc_scan_call *call);
int ftc_scan_chain(const ftc_scan_call *call);
int ftc_scan_gather_fold(const ftc_scan_call *call);

/* This rank's prefix over the blocks of S (ftc_allreduce_result_includes),
 * laid out by rank in `blocks` (rank r's at r x N), into recvbuf; the
 * blocks become prefixes on the way. */
int ftc_scan_fold(const ftc_scan_call *call, char *blocks);

#endif
