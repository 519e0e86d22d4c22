#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include "watchdog.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../error.h"
#include "../abort.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ftc_watch_slot *registry;          /* slots with a deadline, under the lock */
static pthread_t thread;
static bool thread_running;
static atomic_bool thread_stop;

void ftc_watch_format(char *out, size_t size, int rank, int size_of_comm, const char *collective,
                      long call, double elapsed, double deadline, int step, const char *doing,
                      int peer)
{
    int used = snprintf(out, size, "ftcoll watchdog: rank %d of %d: %s call %ld has not finished "
                        "after %.3g s (deadline %.3g s)", rank, size_of_comm,
                        collective ? collective : "a collective", call, elapsed, deadline);
    if (used < 0 || (size_t)used >= size)
        return;
    if (step >= 0)
        used += snprintf(out + used, size - (size_t)used, ": step %d", step);
    else
        used += snprintf(out + used, size - (size_t)used, ": before its first step");
    if (used < 0 || (size_t)used >= size)
        return;
    if (doing && peer >= 0)
        snprintf(out + used, size - (size_t)used, ", %s rank %d", doing, peer);
    else if (doing)
        snprintf(out + used, size - (size_t)used, ", %s", doing);
}

static void fire(ftc_watch_slot *slot, double elapsed)
{
    char report[512];
    ftc_watch_format(report, sizeof(report), slot->rank, slot->size,
                     atomic_load_explicit(&slot->collective, memory_order_relaxed),
                     atomic_load_explicit(&slot->call, memory_order_relaxed), elapsed,
                     slot->deadline, atomic_load_explicit(&slot->step, memory_order_relaxed),
                     atomic_load_explicit(&slot->doing, memory_order_relaxed),
                     atomic_load_explicit(&slot->peer, memory_order_relaxed));
#ifdef FTCOLL_HAVE_ULFM
    if (slot->action == FTC_WATCHDOG_REVOKE) {
        fprintf(stderr, "%s; revoking the communicator\n", report);
        fflush(stderr);
        MPIX_Comm_revoke(slot->comm);
        return;
    }
#endif
    ftc_abort_job_staggered(slot->rank, 0, report);   /* every waiting rank fires */
}

/* Fires a slot whose call is past its deadline, once per call. */
static void check_slot(ftc_watch_slot *slot)
{
    const long gen = atomic_load_explicit(&slot->generation, memory_order_acquire);
    if (!(gen & 1) || gen == slot->fired_generation)
        return;
    const double started = atomic_load_explicit(&slot->started, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&slot->generation, memory_order_relaxed) != gen)
        return;   /* the call ended (or a new one began) while reading */
    const double elapsed = ftc_watch_now() - started;
    if (elapsed < slot->deadline)
        return;
    slot->fired_generation = gen;
    fire(slot, elapsed);
}

static double period_of(const ftc_watch_slot *slots)
{
    double period = 0.25;
    for (const ftc_watch_slot *s = slots; s; s = s->next)
        if (s->deadline / 20 < period)
            period = s->deadline / 20;
    return period < 0.005 ? 0.005 : period;
}

static void *watch_loop(void *unused)
{
    (void)unused;
    while (!atomic_load(&thread_stop)) {
        pthread_mutex_lock(&registry_lock);
        const double period = period_of(registry);
        for (ftc_watch_slot *s = registry; s; s = s->next)
            check_slot(s);
        pthread_mutex_unlock(&registry_lock);
        const struct timespec pause = { 0, (long)(period * 1e9) };
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void unregister_locked(ftc_watch_slot *slot)
{
    for (ftc_watch_slot **at = &registry; *at; at = &(*at)->next)
        if (*at == slot) {
            *at = slot->next;
            break;
        }
    slot->registered = false;
    slot->next = NULL;
}

/* Stops the thread when no slot is left (outside the lock: it takes it). */
static void stop_thread_if_idle(void)
{
    pthread_mutex_lock(&registry_lock);
    const bool idle = registry == NULL && thread_running;
    if (idle)
        thread_running = false;
    pthread_mutex_unlock(&registry_lock);
    if (!idle)
        return;
    atomic_store(&thread_stop, true);
    pthread_join(thread, NULL);
}

int ftc_watch_configure(ftc_watch_slot *slot, double deadline, ftc_watchdog_action action)
{
    pthread_mutex_lock(&registry_lock);
    if (slot->registered)
        unregister_locked(slot);
    slot->deadline = deadline;
    slot->action = action;
    int rc = MPI_SUCCESS;
    if (deadline > 0) {
        if (!thread_running) {
            atomic_store(&thread_stop, false);
            if (pthread_create(&thread, NULL, watch_loop, NULL) == 0)
                thread_running = true;
            else
                rc = ftc_fail(MPI_ERR_OTHER, "ftc_watchdog_set: cannot start the watchdog thread");
        }
        if (rc == MPI_SUCCESS) {
            slot->next = registry;
            registry = slot;
            slot->registered = true;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    if (deadline <= 0 || rc != MPI_SUCCESS)
        stop_thread_if_idle();
    return rc;
}

void ftc_watch_release(ftc_watch_slot *slot)
{
    pthread_mutex_lock(&registry_lock);
    if (slot->registered)
        unregister_locked(slot);
    pthread_mutex_unlock(&registry_lock);
    stop_thread_if_idle();
}
