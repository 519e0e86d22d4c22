/*
 * One ftc_scan or ftc_exscan once its arguments are checked: the chain
 * (chain.c), its tokens picked by select.c, its recovery's fold (fold.c).
 */
#ifndef FTCOLL_SCAN_SCAN_H
#define FTCOLL_SCAN_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../buffer.h"
#include "../comm.h"
#include "../ft/holdings.h"

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

/* One rank's input: count x extent bytes. */
size_t ftc_scan_block_bytes(const ftc_scan_call *call);

/* Room for the chain, made before the guard: a rank short of memory stops
 * every rank. */
int ftc_scan_reserve(const ftc_scan_call *call);

/* Whether call `number` ends in the tokens (select.c); counts the call in
 * its size class, so it is asked once per call, on every rank. */
bool ftc_scan_sends_tokens(const ftc_scan_call *call, long number);

/* The whole call over the live ranks, which also ends it over the
 * survivors after a failure; the report names S up to this rank. */
int ftc_scan_run(const ftc_scan_call *call);
int ftc_scan_chain(const ftc_scan_call *call);

/* A recovery's blocks (fold.c): one per rank, ftc_scan_block_width bytes:
 * N bytes, a tag, and the ranks a prefix combines. */
enum { FTC_SCAN_TAG_NONE = 0, FTC_SCAN_TAG_PREFIX = 1, FTC_SCAN_TAG_INPUT = 2 };
size_t ftc_scan_block_width(const ftc_scan_call *call);
void ftc_scan_write_tag(const ftc_scan_call *call, char *block, char tag,
                        const ftc_holdings *combined);

/* After the round, on a rank whose message never arrived: S from the
 * blocks, reported, and this rank's prefix over it into recvbuf. */
int ftc_scan_fold(const ftc_scan_call *call, char *blocks);

#endif
