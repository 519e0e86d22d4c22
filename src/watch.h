/*
 * What a rank's current call is doing, for the watchdog (guard/watchdog.h)
 * to read from its own thread: the collective, the call, the step, the
 * peer. The engines write it as they go; arming and disarming bracket a
 * call. The slot is a sequence lock: the generation is odd while a call
 * runs, and the reader rereads it after the fields to make sure they
 * belong to one call. Writing costs a few relaxed atomic stores, no lock.
 */
#ifndef FTCOLL_WATCH_H
#define FTCOLL_WATCH_H

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

/* Monotonic seconds: the clock the slot's start and its deadline use. */
double ftc_watch_now(void);

#endif
