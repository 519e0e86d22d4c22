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

#include <stdbool.h>

#include <mpi.h>

#include "ftcoll.h"
#include "../watch.h"

/* Turns the slot's watching on (deadline > 0, starting the thread if
 * needed) or off. Returns MPI_SUCCESS or an error with a message. */
int ftc_watch_configure(ftc_watch_slot *slot, double deadline, ftc_watchdog_action action);

/* Unregisters the slot (and stops the thread when it was the last one). */
void ftc_watch_release(ftc_watch_slot *slot);

/* The report line for a call that ran `elapsed` seconds (pure formatting). */
void ftc_watch_format(char *out, size_t size, int rank, int size_of_comm, const char *collective,
                      long call, double elapsed, double deadline, int step, const char *doing,
                      int peer);

#endif
