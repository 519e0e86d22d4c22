/* What every MPI test program shares: stopping on the harness's own
 * failures (not ftcoll's), naming MPI error classes in reports, and the
 * checks that several tests make. */
#ifndef FTCOLL_TEST_HARNESS_H
#define FTCOLL_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "ftcoll.h"

/* The test itself cannot go on (out of memory, an MPI call of the harness
 * failed): report and MPI_Abort. */
void die(const char *what);

/* Exits with `status` after flushing, without MPI_Finalize: after a rank
 * died, Open MPI 5.0.7's MPI_Finalize waits in a PMIx fence that now and
 * then never completes (about one run in ten, every survivor in
 * ompi_mpi_finalize). For tests that have checked and reported everything. */
_Noreturn void leave_without_finalize(int status);
void *checked_malloc(size_t bytes);
void mpi_or_die(int rc, const char *what);

/* ftc_comm_recovered_calls, the cheap test of "anything failed?", against
 * the report of the call just made (`recovery_rounds` its rounds): it must
 * move by one exactly in a call with a recovery round. `*before` carries
 * the count from call to call (0 before the first). Returns 1, with a FAIL
 * line, when they disagree. */
int check_recovered_calls(ftc_comm_t comm, long *before, int recovery_rounds, int rank,
                          int call);

/* The ranks of `comm` (p of them, at most 64) it knows dead now, as a bitmap. */
uint64_t known_dead_ranks(ftc_comm_t comm, int p);

/* The ranks of MPI_COMM_WORLD in `survivors` (at most 64), as a bitmap. */
uint64_t survivor_ranks(MPI_Comm survivors);

/*
 * The end of a kill program whose calls give every survivor the same S:
 * over the survivors' communicator, each call's S (`sets`, `calls` of
 * them) compared between survivors, and this rank's `wrong` summed. The
 * lowest survivor prints
 *   <name>-kill p=P survivors=N calls=C wrong=W S=[ff f7 ...]: PASS|FAIL
 * Returns the wrong calls of every survivor, a differing S counted too.
 */
int report_same_sets(const char *name, MPI_Comm survivors, int p, const uint64_t *sets,
                     int calls, int wrong);

/* The last call's S (ftc_allreduce_last_report's in_result) as a bitmap
 * in *set, its recovery rounds checked by check_recovered_calls (`before`
 * as there). Returns 1, with a FAIL line, when there is no report or the
 * counts disagree. */
int reported_set(ftc_comm_t comm, long *before, int rank, int p, int call, uint64_t *set);

/* The MPI error class of a return code (MPI_SUCCESS stays itself). */
int class_of(int rc);
/* "MPI_ERR_COUNT", ...; "another class" for the ones the tests never expect. */
const char *class_name(int error_class);

/*
 * Application traffic that must never meet ftcoll's: each rank posts two
 * wildcard receives (any source, any tag) on MPI_COMM_WORLD and sends a
 * message to each neighbour, with a tag number of ftcoll's on purpose (its
 * sentinel's), *before* the ftcoll calls under test; finishing completes
 * them after the calls and checks that exactly the neighbours' messages
 * arrived. If ftcoll used MPI_COMM_WORLD, or one of its wildcard receives
 * matched user messages, they would cross.
 */
enum { USER_TRAFFIC_TAG = 7002, USER_MESSAGE_INTS = 7 };

typedef struct {
    int from, round, filler[USER_MESSAGE_INTS - 2];
} user_message;

typedef struct {
    int rank, p, round;
    user_message in[2], out;
    MPI_Request requests[4];
} user_traffic;

void user_traffic_start(user_traffic *u, int round);
/* Completes the round's messages, reports each wrong one (MISMATCH) and
 * returns how many; then a barrier keeps the next round's wildcard
 * receives away from a fast neighbour's next message. */
int user_traffic_finish(user_traffic *u);

#endif
