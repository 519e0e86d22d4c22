/*
 * The watchdog: a thread that reports and ends an ftcoll call still running
 * at its deadline. A hung rank answers no message, so only a thread of
 * each process that is not inside the call can notice the hang and end
 * it, instead of the job waiting forever.
 *
 *   main thread                          watchdog thread (one per process)
 *   ftc_watch_arm     gen = odd  ---+    every deadline/20 (5..250 ms):
 *   ftc_watch_progress(step, peer)  |      for each slot armed longer than
 *   ...                             +-->     its deadline, same gen:
 *   ftc_watch_disarm  gen = even            print the report, then abort
 *                                            or revoke (once per call)
 *
 * Arming costs a clock read and a few atomic stores, no lock: the slot is a
 * sequence lock (gen odd while a call runs; the thread rereads gen after
 * the fields to make sure they belong to one call).
 */
#ifndef FTCOLL_GUARD_WATCHDOG_H
#define FTCOLL_GUARD_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>

#include <mpi.h>

#include "ftcoll.h"

typedef struct ftc_watch_slot {
    atomic_long generation;            /* odd while a call runs */
    _Atomic double started;            /* monotonic seconds at arm */
    _Atomic(const char *) collective;  /* "ftc_allreduce", ... */
    atomic_long call;
    atomic_int step;                   /* -1: not in a step */
    atomic_int peer;                   /* -1: none */
    _Atomic(const char *) doing;       /* "receiving from", ... or NULL */
    /* settings and identity: written before the slot is registered */
    double deadline;
    ftc_watchdog_action action;
    MPI_Comm comm;
    int rank, size;
    bool registered;
    long fired_generation;             /* the watchdog thread's: the call that fired */
    struct ftc_watch_slot *next;
} ftc_watch_slot;

void ftc_watch_slot_init(ftc_watch_slot *slot, MPI_Comm comm, int rank, int size);

/* Turns the slot's watching on (deadline > 0, starting the thread if
 * needed) or off. Returns MPI_SUCCESS or an error with a message. */
int ftc_watch_configure(ftc_watch_slot *slot, double deadline, ftc_watchdog_action action);

/* Unregisters the slot (and stops the thread when it was the last one). */
void ftc_watch_release(ftc_watch_slot *slot);

static inline bool ftc_watch_active(const ftc_watch_slot *slot)
{
    return slot && slot->registered;
}

void ftc_watch_arm(ftc_watch_slot *slot, const char *collective, long call);
void ftc_watch_disarm(ftc_watch_slot *slot);

/* Where the call is now: `doing` ("receiving from", ...) rank `peer` at `step`. */
static inline void ftc_watch_progress(ftc_watch_slot *slot, int step, const char *doing, int peer)
{
    if (!ftc_watch_active(slot))
        return;
    atomic_store_explicit(&slot->step, step, memory_order_relaxed);
    atomic_store_explicit(&slot->doing, doing, memory_order_relaxed);
    atomic_store_explicit(&slot->peer, peer, memory_order_relaxed);
}

/* The report line for a call that ran `elapsed` seconds (pure formatting). */
void ftc_watch_format(char *out, size_t size, int rank, int size_of_comm, const char *collective,
                      long call, double elapsed, double deadline, int step, const char *doing,
                      int peer);

#endif
