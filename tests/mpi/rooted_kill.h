/*
 * What the real-kill tests of the rooted collectives (test_gather_kill.c,
 * test_gatherv_kill.c, test_scatterv_kill.c) share: the calls' roots and shapes, and the run of
 * the calls with the survivors' verdict.
 */
#ifndef FTCOLL_TEST_ROOTED_KILL_H
#define FTCOLL_TEST_ROOTED_KILL_H

#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "ftcoll.h"

enum { ROOTED_CALLS = 7, ROOTED_MAX_RANKS = 64, ROOTED_UNTOUCHED = -1 };

/* Call c goes to root 3c mod p: every root comes up, and a root killed in
 * one call is the root of a later one. */
int rooted_root_of(int call, int p);

/* Element i of `rank`'s block in call `call`. */
int rooted_element(int rank, int call, int i);

/* Calls 3 and 6 are in place at the root. */
bool rooted_in_place(int call);

/* Ints of the root's buffer one element takes: call 4 receives every other int. */
int rooted_stride_of(int call);

/* Call 2's blocks go out from every other int. */
int rooted_send_stride_of(int call);

/* An int, then a gap of one int (free it). */
MPI_Datatype rooted_strided_int(void);

/* The receive type of call `call`: every other int for call 4, an int as a
 * derived type for call 6, else MPI_INT (free it unless MPI_INT). */
MPI_Datatype rooted_recv_type_of(int call);

/* What every rank checks of call `call` to `root` that returned `rc`:
 * MPI_SUCCESS and a report (*valid its S), holding this rank's own block
 * when the root was alive as the call began (`dead_before` the ranks known
 * dead then). Returns the wrong checks, with FAIL lines. */
int rooted_check_outcome(ftc_comm_t comm, int rc, int rank, int p, int call, int root,
                         uint64_t dead_before, uint64_t *valid);

/* One call on every rank: the number of wrong checks, and *root_valid (see
 * rooted_direction). */
typedef int (*rooted_check)(ftc_comm_t comm, int rank, int p, int call, uint64_t *root_valid);

/* Where the blocks go, and so what the run checks over the survivors. */
typedef enum {
    ROOTED_TO_ROOT,     /* a gather: *root_valid is the root's S, which must hold
                         * every survivor wherever the root survived */
    ROOTED_FROM_ROOT,   /* a scatter: *root_valid is this rank's own bit when its
                         * block arrived; every survivor's must, wherever the
                         * root survived */
} rooted_direction;

/* Every call, then the check over the survivors; the lowest survivor prints
 *   NAME p=P survivors=N calls=C wrong=W S=[f f7 ...]: PASS|FAIL
 * (each call's *root_valid, united over the survivors). Leaves without
 * MPI_Finalize. */
_Noreturn void rooted_kill_run(const char *name, rooted_check check, rooted_direction direction);

#endif
