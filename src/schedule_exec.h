/* The engine: runs a schedule (schedule.h) over MPI on a buffer of slots. */
#ifndef FTCOLL_SCHEDULE_EXEC_H
#define FTCOLL_SCHEDULE_EXEC_H

#include <stdbool.h>

#include <mpi.h>

#include "buffer.h"
#include "schedule.h"

/* Per-communicator scratch the engine reuses from call to call. */
typedef struct {
    MPI_Request *requests;
    MPI_Status *statuses;
    int capacity;
    struct ftc_watch_slot *watch;   /* the communicator's watchdog slot: told each step */
    /* within one run: the last datatype made for slots not end to end, kept
     * for the next transfer of the same slots (linear's root sends them all
     * to every rank) */
    bool spread_made;
    MPI_Datatype spread;
    int spread_first, spread_count;
} ftc_exec_scratch;

void ftc_exec_scratch_free(ftc_exec_scratch *scratch);

/*
 * Runs every step of `s` on `slots` over `comm` with `tag`: a step posts its
 * transfers in the planned order, then waits for all of them. A failed step
 * does not stop the run (peers still wait for this rank's later messages);
 * the first error is returned. Every received
 * message must have exactly the expected size: a shorter one means the ranks
 * passed different counts or types, and fails with MPI_ERR_TRUNCATE rather
 * than leaving stale data behind. `what` names the collective in messages.
 * With slots->own set, a send of that slot alone reads the caller's buffer.
 */
typedef struct ftc_exec_watch ftc_exec_watch;
int ftc_schedule_run(const ftc_schedule *s, const ftc_slots *slots, MPI_Comm comm, int tag,
                     ftc_exec_scratch *scratch, const char *what, const ftc_exec_watch *watch);

/*
 * `watch` (NULL: none) is polled between the tests of every wait:
 * stop(context) says true once a process failed (ULFM: the fault-tolerance
 * layer's sentinel, ft/ft.h's ftc_ft_exec_watch). The run then stops at
 * once, cancels or releases its transfers in flight and returns
 * FTC_EXEC_INTERRUPTED: a rank its peers wait for may be dead or waiting
 * elsewhere, so going on could wait forever. stop must not block.
 */
struct ftc_exec_watch {
    bool (*stop)(void *context);
    void *context;
};
enum { FTC_EXEC_INTERRUPTED = -2 };

#endif
