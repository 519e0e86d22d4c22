/* What both torture programs share with the driver (tests/torture/torture.py):
 * the pids it kills by, the moment the calls begin, and how far each rank
 * has got. Each is skipped when its environment variable is unset. */
#ifndef FTCOLL_TORTURE_LAUNCH_H
#define FTCOLL_TORTURE_LAUNCH_H

enum { TORTURE_MAX_RANKS = 64 };   /* slots of the progress file */

/* "rank pid" into $TORTURE_PIDS.<rank>, complete (written, then renamed)
 * or absent; MPI_Abort if it cannot be written. */
void torture_write_pid_file(int rank);

/* Rank 0 creates $TORTURE_STARTED once every rank has passed a barrier. */
void torture_mark_started(int rank);

/* Maps this rank's slot of $TORTURE_PROGRESS (TORTURE_MAX_RANKS 64-bit
 * little-endian counters, made by the driver). */
void torture_map_progress(int rank);

/* This rank is about to make call `call` (a store to shared memory: the
 * driver kills a victim when its counter reaches the call it aimed at). */
void torture_progress(long call);

#endif
