#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* The progress slot (watch.h): its clock, arming and disarming. */
#include "watch.h"

#include <time.h>

double ftc_watch_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

void ftc_watch_slot_init(ftc_watch_slot *slot, MPI_Comm comm, int rank, int size)
{
    atomic_init(&slot->generation, 0);
    atomic_init(&slot->started, 0.0);
    atomic_init(&slot->collective, NULL);
    atomic_init(&slot->call, 0);
    atomic_init(&slot->step, -1);
    atomic_init(&slot->peer, -1);
    atomic_init(&slot->doing, NULL);
    slot->deadline = 0;
    slot->action = FTC_WATCHDOG_ABORT;
    slot->comm = comm;
    slot->rank = rank;
    slot->size = size;
    slot->registered = false;
    slot->fired_generation = 0;
    slot->next = NULL;
}

/* Fields first, then the odd generation that publishes them; the fence
 * keeps them after the previous disarm (the thread rereads the generation
 * to see that they did not change under it). */
void ftc_watch_arm(ftc_watch_slot *slot, const char *collective, long call)
{
    if (!ftc_watch_active(slot))
        return;
    const long gen = atomic_load_explicit(&slot->generation, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&slot->started, ftc_watch_now(), memory_order_relaxed);
    atomic_store_explicit(&slot->collective, collective, memory_order_relaxed);
    atomic_store_explicit(&slot->call, call, memory_order_relaxed);
    atomic_store_explicit(&slot->step, -1, memory_order_relaxed);
    atomic_store_explicit(&slot->peer, -1, memory_order_relaxed);
    atomic_store_explicit(&slot->doing, NULL, memory_order_relaxed);
    atomic_store_explicit(&slot->generation, gen + 1, memory_order_release);
}

void ftc_watch_disarm(ftc_watch_slot *slot)
{
    if (!ftc_watch_active(slot))
        return;
    const long gen = atomic_load_explicit(&slot->generation, memory_order_relaxed);
    if (gen & 1)
        atomic_store_explicit(&slot->generation, gen + 1, memory_order_release);
}
